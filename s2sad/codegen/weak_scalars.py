"""Python numbers in compiled array code cast as NumPy casts them (float32 under ``compile=True``).

NumPy 2 (NEP 50) calls a Python float or int "weak": meeting a float32 array or scalar it is
cast to float32 first, so ``0.5 * x``, ``s + lam`` and ``g / count`` of float32 values stay
float32. Numba types every Python float as float64 (an int as int64) and widens the float32
value instead: another dtype, other numbers. The code compiled for arrays is one text for every
argument type, so here each Python number an arithmetic operation meets is written
``weak(number, other)``, whose Numba overload (``s2sad.compiled_helpers``) is the number cast
as NumPy would cast it for the types of this call (float32 beside a float32; unchanged
otherwise: a float64 call compiles to the code it did before). The numbers are:

* constants (``0.5 * x``, ``x ** 2.0``, ``1.0 - p``, ``x > 0.5``, ``np.maximum(x, 0.0)``);
* the entry's parameters it never binds again (a Python float ``lam`` in ``lam * s``; the
  compiled gradient is given Python floats and ints only, never NumPy scalars, which NumPy
  does not call weak); a split function's parameters are left alone (its caller may pass a
  NumPy scalar);
* ``reduced_count(...)``, the count a mean divides by (a Python int to NumPy).

The other operand must be a name (the generated code is mostly three-address), read twice at
no cost. What this does not reach stays Numba's promotion, which ``s2sad.compiled`` finds in
the typed code and refuses for float32 calls (they take the NumPy path).

And ``np.sum(x)`` / ``np.mean(x)`` of one array are ``numpy_sum(x)`` / ``numpy_mean(x)``:
NumPy's pairwise order of summation for a float32 array, Numba's ``np.sum`` otherwise.
"""
from __future__ import annotations

import libcst as cst

from .nodes import binding_counts, called_name, numpy_function_name

# NumPy functions whose Python-number arguments are cast like an operator's (to the array beside them)
ELEMENTWISE = frozenset({"maximum", "minimum", "fmax", "fmin", "where", "clip"})
# NumPy's whole-array reductions with an overload following NumPy's order of summation
ORDERED_SUMS = {"sum": "numpy_sum", "mean": "numpy_mean"}
HELPERS = frozenset({"weak", *ORDERED_SUMS.values()})


def weak_scalars(module: cst.Module) -> cst.Module:
    """``module`` (compiled array code) with its Python numbers written ``weak(number, other)``."""
    return module.visit(_WeakScalars())


def _number(node) -> bool:
    """A numeric constant: ``0.5``, ``2``, ``-1.0``."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Float, cst.Integer))


def _exact_in_float32(node) -> bool:
    import numpy as np

    value = float(cst.Module([]).code_for_node(node))
    return float(np.float32(value)) == value


def _counted(node) -> bool:
    return isinstance(node, cst.Call) and called_name(node) == "reduced_count"


def _weakened(number: cst.BaseExpression, other: cst.Name) -> cst.Call:
    return cst.Call(cst.Name("weak"), [cst.Arg(number.with_changes(lpar=(), rpar=())), cst.Arg(other)])


class _WeakScalars(cst.CSTTransformer):
    def __init__(self):
        super().__init__()
        self.weak_names: list[set] = []   # per function: the parameters it never binds again
        self.assigned: list[set] = []     # per function: the names assigned so far (a seed's value is one)

    # ------------------------------------------------------------ which names are Python numbers
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        names = set()
        if node.name.value.endswith("_grad_compiled"):  # the entry: given Python floats and ints only
            names = {p.name.value for p in node.params.params}
            names -= set(binding_counts(node.body))  # a parameter the body binds again is not the one given
        self.weak_names.append(names)
        self.assigned.append(set())

    def leave_FunctionDef(self, original, updated):
        self.weak_names.pop()
        self.assigned.pop()
        return updated

    def _parameter(self, node) -> bool:
        """A parameter never bound again, or its ``conj`` (itself, for a real number)."""
        if isinstance(node, cst.Call) and called_name(node) == "conj" \
                and len(node.args) == 1:
            node = node.args[0].value
        return isinstance(node, cst.Name) and bool(self.weak_names) and node.value in self.weak_names[-1]

    def leave_Assign(self, original, updated: cst.Assign):
        """``dresult = 1.0``, the seed, is ``weak(1.0, result)``: a float32 value's seed is a float32
        (NumPy's Python float 1.0, cast where it meets the float32 cotangents); only a constant
        float32 holds exactly, so that the seed meeting a float64 is the same number."""
        target = updated.targets[0].target if len(updated.targets) == 1 else None
        if isinstance(target, cst.Name) and target.value.startswith("d") and _number(updated.value) \
                and self.assigned and target.value[1:] in self.assigned[-1] and _exact_in_float32(updated.value):
            return updated.with_changes(value=_weakened(updated.value, cst.Name(target.value[1:])))
        if isinstance(target, cst.Name) and self.assigned:
            self.assigned[-1].add(target.value)
        return updated

    # ------------------------------------------------------------ where they meet another value
    def leave_BinaryOperation(self, original, updated: cst.BinaryOperation):
        left, right = updated.left, updated.right
        if isinstance(updated.operator, cst.Power) and isinstance(right, cst.Integer):
            return updated  # `x ** 2`: Numba's integer power keeps the dtype, as NumPy's does
        certain = [_number(side) or _counted(side) for side in (left, right)]
        if certain[0] and not certain[1] and isinstance(right, cst.Name):
            return updated.with_changes(left=_weakened(left, right))
        if certain[1] and not certain[0] and isinstance(left, cst.Name):
            return updated.with_changes(right=_weakened(right, left))
        if any(certain) or isinstance(updated.operator, cst.MatrixMultiply) \
                or isinstance(left, cst.Name) and isinstance(right, cst.Name) and left.value == right.value:
            return updated  # (`@` of a Python number is an error: its operands are arrays; `w * w` is one type)
        # a parameter (a Python number, or an array: `weak` leaves an array alone) beside a name
        if self._parameter(left) and isinstance(right, cst.Name):
            updated = updated.with_changes(left=_weakened(left, right))
        if self._parameter(right) and isinstance(left, cst.Name):
            updated = updated.with_changes(right=_weakened(right, left))
        return updated

    def leave_Comparison(self, original, updated: cst.Comparison):
        if len(updated.comparisons) != 1:
            return updated
        left, target = updated.left, updated.comparisons[0]
        right = target.comparator
        if _number(right) and isinstance(left, cst.Name):
            return updated.with_changes(comparisons=[target.with_changes(comparator=_weakened(right, left))])
        if _number(left) and isinstance(right, cst.Name):
            return updated.with_changes(left=_weakened(left, right))
        return updated

    def leave_Call(self, original, updated: cst.Call):
        function = numpy_function_name(updated)
        if function in ORDERED_SUMS and len(updated.args) == 1 and updated.args[0].keyword is None \
                and updated.args[0].star == "":
            return updated.with_changes(func=cst.Name(ORDERED_SUMS[function]))
        if function not in ELEMENTWISE:
            return updated
        names = [a.value for a in updated.args if isinstance(a.value, cst.Name)]
        if function == "where":
            names = names[1:]  # the condition is a mask: the values beside a number are the others
        if not names:
            return updated
        args = [a.with_changes(value=_weakened(a.value, names[0])) if _number(a.value) else a for a in updated.args]
        return updated.with_changes(args=args)
