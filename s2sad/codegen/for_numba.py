"""The float version of a gradient as Numba compiles it (``compile=True``).

The float version of an rrule (``scalars.py``) computes on Python floats only, but it still
writes s2sad's symbolic zero: a cotangent starts at ``ZERO``, a block runs under
``if g is not ZERO:``, a value is ``unthunk``-ed. Numba knows none of them. Here they become
what they are for floats, on the syntax tree (libcst keeps the comments that point at the
user's lines):

* ``ZERO`` is ``0.0``: a float cotangent that nothing reached is 0;
* ``g is not ZERO`` is ``g != 0.0`` (and ``is`` is ``==``): a block skipped for a zero
  cotangent contributes nothing, as it does for ZERO;
* ``unthunk(g)`` is ``g``: floats are never thunks;
* ``written_into(new, old)`` (what ``y op= v`` leaves in ``y``) is ``new``: a float is rebound,
  never changed in place (so are its checked spellings, ``written_into_argument`` and
  ``written_into_shared``, whose refusals concern arrays and lists only);
* ``safe_divide(a, b)`` is its float case written inline (``FLOAT_HELPERS``);
* ``at_an_exact_point(found, x, True, ...)`` after ``found = x == c`` is ``if found: raise
  ArithmeticError(...)`` (``if not found`` for ``!=``): the NumPy path, which the call is run on
  again, refuses that point naming the user's line (``runtime/exact_points.py``);
* ``type(x) is float`` (a rule telling a Python float from a NumPy scalar) is ``x == x`` (see
  ``leave_Comparison``);
* the cotangent of a 1-d array read by element, ``dx = add_at(dx, g, i, x)`` from
  ``dx = ZERO``, is ``dx = np.zeros_like(x)`` then ``dx[i] += g``.

A function of arrays (``arrays=True``) is the general version's code, whose values may be
floats or arrays of any shape: there the helpers stay calls, of ``s2sad.compiled_helpers``,
whose Numba overloads decide for each argument type what the NumPy path's helpers decide for
each value; ``dv = ZERO`` is ``dv = zero_like(v)`` (a cotangent has its value's type: Numba
types a variable once), ``g is not ZERO`` is ``nonzero(g)``, and ``dx = add_at(dx, g, i, x)``
is ``add_into(dx, i, g)`` and ``dx = accumulate(dx, g)`` is ``dx = accumulate_into(dx, g)`` (in
place) where ``dx`` is a buffer of its own (made new by ``zero_like`` or ``untake``, changed by
nothing else, read by nothing but the ``return``); ``np.tanh(x)`` (and the other NUMPY_LOOPS) is
``numpy_tanh(x)``, NumPy's own loop on a large array. ``fewer_allocations`` then spares Numba
the allocations and reference counts nothing needs.

In both, ``math.fmod`` and ``math.cbrt``, which Numba lacks, are NumPy's (``MATH_AS_NUMPY``), and
a ``with np.errstate(...)`` ignoring what it names is its body (``errstate_ignored.py``).

Whatever else the function reads that is not its own, ``math``, ``np`` or a builtin Numba
compiles keeps it from compiling: ``NotCompiledError`` names it, and ``grad`` runs the NumPy
path instead.
"""
from __future__ import annotations

from typing import NamedTuple

import libcst as cst
from libcst.helpers import get_full_name_for_node

from ..errors import NotCompiledError, SourceLocation
from .core import RECEIVER_CHECKS
from .errstate_ignored import errstate_ignored
from .extremes import ARRAY_COMPARISONS, extremes_written_out
from .fewer_allocations import fewer_allocations
from .nodes import binding_counts, called_name, numpy_function_name
from .squares import squares_multiplied
from .star_calls import star_calls_unpacked
from .unset_before_loops import unset_before_loops
from .weak_scalars import HELPERS as WEAK_HELPERS, weak_scalars

# builtin exceptions a function's validation raises (`raise ValueError("...")`): Numba raises them too, and a
# compiled call that raises is run again on the NumPy path, whose error, located, is the one the user sees
BUILTIN_EXCEPTIONS = frozenset({"ValueError", "TypeError", "ArithmeticError", "ZeroDivisionError", "OverflowError",
                                "FloatingPointError", "AssertionError", "RuntimeError", "IndexError", "KeyError"})
# the globals compiled code may read: modules and builtins Numba compiles
COMPILABLE_GLOBALS = frozenset({"math", "np", "range", "len", "float", "int", "abs", "min", "max", "pow", "round",
                                "enumerate", "True", "False", "None"}) | BUILTIN_EXCEPTIONS
# on arrays, Python's min, max and round walk an array's first axis where NumPy's would not: not compiled
ARRAY_GLOBALS = COMPILABLE_GLOBALS - {"min", "max", "round"} | {"slice", "enumerate", "zip", "sorted"}

# an array's methods (and .T) compiled code calls in place of method_rrule (attribute_rrule): name -> helper
# (each with its pullback, `array_sum_pullback`)
ARRAY_METHODS = {"sum": "array_sum", "mean": "array_mean", "dot": "array_dot", "T": "array_T",
                 "reshape": "array_reshape", "transpose": "array_transpose", "copy": "array_copy"}
# rules' own functions (bound when a module loads) that have an overload in compiled_helpers too
BOUND_RULES_COMPILED = frozenset({"array_vjp_object", "max_vjp_a", "min_vjp_a", "amax_vjp_a", "amin_vjp_a",
                                  "prod_vjp_a", "trace_vjp_a", "concatenate_vjp_arrays", "stack_vjp_arrays",
                                  "hstack_vjp_tup", "vstack_vjp_tup", "var_vjp_a", "std_vjp_a", "append_vjp_arr",
                                  "append_vjp_values",
                                  # (compiled_sorting's)
                                  "sorted_vjp_iterable",
                                  # (compiled_linear_algebra's)
                                  "slogdet_vjp_a", "solve_vjp_a", "solve_vjp_b", "cholesky_vjp_a", "diag_vjp_v",
                                  # (compiled_repeats')
                                  "repeat_vjp_a"})
# NumPy's reductions Numba compiles only of a whole array (np.sum takes an axis, no keepdims): a call
# given more than its array calls the overload of compiled_helpers instead (np.max(x, axis=1, keepdims=True))
NUMPY_REDUCTIONS = {"sum": "reduce_sum", "mean": "reduce_mean", "prod": "reduce_prod", "max": "reduce_max",
                    "amax": "reduce_max", "min": "reduce_min", "amin": "reduce_min", "var": "reduce_var",
                    "std": "reduce_std"}
# NumPy's functions joining a sequence of arrays, which Numba compiles of a tuple only, and the rules'
# functions their cotangents take the same sequence to (its position among their arguments): a list literal
# read by nothing else becomes a tuple
JOINS = {"np.concatenate": 0, "np.stack": 0, "np.hstack": 0, "np.vstack": 0, "concatenate_vjp_arrays": 2,
         "stack_vjp_arrays": 2, "hstack_vjp_tup": 2, "vstack_vjp_tup": 2}
# NumPy's joins of a sequence given by name (a list built in a loop, or kept on the tape): the overloads
# of compiled_helpers, which join lists as well as tuples
LIST_JOINS = {"concatenate": "numpy_concatenate", "stack": "numpy_stack", "vstack": "numpy_vstack",
              "hstack": "numpy_hstack"}
# the helpers compiled array code calls, each an overload of Numba's in s2sad/compiled_helpers.py (named
# here, not imported: that module imports Numba, and generating code needs none)
ARRAY_HELPERS = frozenset({"conj", "unbroadcast", "accumulate", "accumulate_into", "expand_reduced", "reduced_count",
                           "safe_divide", "matmul_vjp_x1", "matmul_vjp_x2", "add_into", "add_at", "untake",
                           "tie_share", "nonzero", "zero_like", "power_vjp_base", "power_vjp_exponent",
                           "written_into", "written_into_argument", "written_into_shared", "not_the_callers", "split_cotangent", "item_cotangent", "zero_items_like", "layers_of_arrays", "dot_vjp_a",
                           "dot_vjp_b", "inverse_axes", "numpy_ndim", "numpy_matmul",
                           # `y[index] = v` on an array of the function's own: the overwritten part kept, put back
                           "written_item_of", "zeroed_at", "overwritten", "restore",
                           # `tuple(shape)` of a call given `*shape` (star_calls.py)
                           "as_tuple",
                           # np.concatenate and np.stack of a list named (built in a loop), and its
                           # cotangent taken apart as the loop's appends are undone
                           "numpy_concatenate", "numpy_stack", "numpy_vstack", "numpy_hstack", "item_of", "prefix_of",
                           # np.squeeze given its axes (Numba has none), and its pullback
                           "numpy_squeeze", "reshaped_like",
                           # `type(x) is float` (abs's rule), and abs itself
                           "is_python_float", "builtin_abs",
                           # after `found = x == c` of a differentiated x: the NumPy path refuses an exact hit
                           "at_an_exact_point",
                           # Python's sorted of floats, given what the name `sorted` is (compiled_sorting.py)
                           "sorted_items",
                           # `np.repeat(h0, n, axis=0)`, which Numba repeats flattened alone (compiled_repeats.py)
                           "numpy_repeat",
                           # `np.roll(x, 1, axis=0)`, which Numba rolls flattened alone (compiled_rolls.py)
                           "numpy_roll",
                           # Python's max and min of two numbers (extremes.py)
                           *ARRAY_COMPARISONS.values()}) | BOUND_RULES_COMPILED | set(NUMPY_REDUCTIONS.values()) \
    | {name for helper in ARRAY_METHODS.values() for name in (helper, f"{helper}_pullback")}

# NumPy functions whose own (vectorised) loop compiled code calls on a large array: `np.tanh(x)` is
# `numpy_tanh(x)` (compiled_helpers.NUMPY_LOOPS says why, and from which size)
NUMPY_LOOPS = frozenset({"tanh", "sinh", "tan", "arctan", "arcsinh", "log1p", "expm1", "cbrt", "log10", "exp", "log",
                         "cosh", "log2", "exp2", "arctanh"})
ARRAY_HELPERS = ARRAY_HELPERS | {f"numpy_{name}" for name in NUMPY_LOOPS}
FLOAT_RESULTS = frozenset(f"numpy_{name}" for name in NUMPY_LOOPS)   # floats of any real argument (squares.py)

# `shape_like` (fewer_allocations.py), and `dW = matmul_vjp_x1_into(dW, g, W, h)` for an RNN's weights
ARRAY_HELPERS = ARRAY_HELPERS | {"shape_like", "matmul_vjp_x1_into"}
# `weak(0.5, x)`, `numpy_sum(x)`: Python numbers and sums as NumPy computes them on float32 (weak_scalars.py)
ARRAY_HELPERS = ARRAY_HELPERS | WEAK_HELPERS

# what compiled code for arrays imports from s2sad.compiled_overloads: the helpers, and the exception it
# raises itself for a case it leaves to the NumPy path (unset_before_loops.py)
ARRAY_IMPORTS = ARRAY_HELPERS | {"NotCompiledCase"}

# `math` functions Numba does not compile, as NumPy's (on floats, the same numbers: fmod is exact, both cube
# roots call the C library's); `math.fmod` of two ints is a float, NumPy's an int, hence the float()s
MATH_AS_NUMPY = {"fmod": "np.fmod(float({0}), float({1}))", "cbrt": "np.cbrt({0})"}


class _MathAsNumpy(cst.CSTTransformer):
    """``MATH_AS_NUMPY``; and ``math.trunc(v)`` computed with (the slope of ``math.fmod`` in its divisor,
    ``-g * math.trunc(x / y)``) is ``np.trunc(v)``: Python's int multiplies as the float it is
    equal to, where Numba's 64-bit int would not hold a quotient past 2**63."""

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        name = get_full_name_for_node(updated.func)
        template = MATH_AS_NUMPY.get(name[len("math."):]) if name and name.startswith("math.") else None
        if template is not None and not any(a.keyword or a.star for a in updated.args) \
                and template.count("{") == len(updated.args):
            return cst.parse_expression(template.format(*(_CODE.code_for_node(a.value) for a in updated.args)))
        return updated

    def leave_BinaryOperation(self, original, updated: cst.BinaryOperation) -> cst.BaseExpression:
        operands = {}
        for side in ("left", "right"):
            operand = getattr(updated, side)
            if isinstance(operand, cst.Call) and get_full_name_for_node(operand.func) == "math.trunc" \
                    and len(operand.args) == 1 and not (operand.args[0].keyword or operand.args[0].star):
                operands[side] = operand.with_changes(func=cst.parse_expression("np.trunc"))
        return updated.with_changes(**operands) if operands else updated


# helpers the float version calls, as they compute on two floats (rules/helpers.py), written inline
FLOAT_HELPERS = {
    "safe_divide": "(0.0 if {0} == 0.0 else {0} / {1} if {1} != 0.0 else math.copysign(math.inf, {0}) * math.copysign(1.0, {1}))",
}
# `at_an_exact_point(found, x, equal, spelling, file, line, column)` of a float x (core.exact_point_checks)
EXACT_POINT_TEMPLATE = "if {negation}{found}:\n    raise ArithmeticError('s2sad: a differentiated value found equal to a constant')\n"
# what `y op= v` leaves in y (rules/helpers.py), checked or not: on a float, the new value (see above)
WRITTEN_INTO = ("written_into", "written_into_argument", "written_into_shared")
_CODE = cst.Module([])


class _AsFloats(cst.CSTTransformer):
    """The rewrites above; ``scattered``: a cotangent made by ``add_at`` -> the array it is of."""

    def __init__(self, scattered: dict):
        super().__init__()
        self.scattered = scattered

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        target = updated.targets[0].target if len(updated.targets) == 1 else None
        name = target.value if isinstance(target, cst.Name) else None
        if name in self.scattered and isinstance(updated.value, cst.Float):  # `dx = ZERO` of an array x: zeros
            return updated.with_changes(value=cst.parse_expression(f"np.zeros_like({self.scattered[name]})"))
        value = updated.value
        if name in self.scattered and isinstance(value, cst.Call) and called_name(value) == "add_at":
            # `dx = add_at(dx, g, i, x)`: the element's cotangent added where it was read
            _, g, index, _ = (a.value for a in value.args)
            return cst.AugAssign(cst.Subscript(cst.Name(name), [cst.SubscriptElement(cst.Index(index))]),
                                 cst.AddAssign(), g)
        return updated

    def leave_SimpleStatementLine(self, original, updated: cst.SimpleStatementLine):
        call = updated.body[0].value if len(updated.body) == 1 and isinstance(updated.body[0], cst.Expr) else None
        if not isinstance(call, cst.Call) or called_name(call) != "at_an_exact_point" or len(call.args) != 7 \
                or any(a.keyword or a.star for a in call.args) or not isinstance(call.args[2].value, cst.Name):
            return updated
        equal = call.args[2].value.value == "True"
        found = _CODE.code_for_node(call.args[0].value)
        if found == "None":  # a test of the operand's truth (`if v:`): is it 0?
            found = f"({_CODE.code_for_node(call.args[1].value)} == 0.0)"
        text = EXACT_POINT_TEMPLATE.format(negation="" if equal else "not ", found=found)
        return cst.parse_statement(text).with_changes(leading_lines=updated.leading_lines)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return cst.Float("0.0") if updated.value == "ZERO" else updated

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> cst.BaseExpression:
        # `type(x) is float` (a rule's test: `abs`'s slope is `(x > 0) - (x < 0)` of a Python float, np.sign of a
        # NumPy scalar): the two agree but at NaN, where the first gives 0 and the second NaN. Numba's floats are
        # one type, so the test is `x == x`: NaN takes the second, and a NaN gradient sends the call to the NumPy path
        value = _type_is_float(updated)
        if value is not None:
            return cst.Comparison(value, [cst.ComparisonTarget(cst.Equal(), value)])
        return updated

    def leave_ComparisonTarget(self, original, updated: cst.ComparisonTarget) -> cst.ComparisonTarget:
        if isinstance(updated.comparator, cst.Float) and updated.comparator.value == "0.0":
            if isinstance(updated.operator, cst.IsNot):
                return updated.with_changes(operator=cst.NotEqual())
            if isinstance(updated.operator, cst.Is):
                return updated.with_changes(operator=cst.Equal())
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        name = called_name(updated)
        if name == "unthunk" and len(updated.args) == 1:
            return updated.args[0].value
        if name in WRITTEN_INTO and updated.args and not updated.args[0].keyword:
            return updated.args[0].value
        if name in FLOAT_HELPERS and len(updated.args) == 2 and not any(a.keyword or a.star for a in updated.args):
            codes = [_CODE.code_for_node(a.value) for a in updated.args]
            return cst.parse_expression(FLOAT_HELPERS[name].format(*(f"({c})" for c in codes)))
        return updated


def _type_is_float(comparison: cst.Comparison) -> cst.BaseExpression | None:
    """``x`` of ``type(x) is float``, else None."""
    left, tests = comparison.left, comparison.comparisons
    if len(tests) == 1 and isinstance(tests[0].operator, cst.Is) and isinstance(tests[0].comparator, cst.Name) \
            and tests[0].comparator.value == "float" and isinstance(left, cst.Call) and called_name(left) == "type" \
            and len(left.args) == 1 and not (left.args[0].keyword or left.args[0].star):
        return left.args[0].value
    return None


def _method_call(value) -> str | None:
    """``method_rrule(x, 'sum', ...)`` or ``attribute_rrule(x, 'T')`` of a method compiled code has:
    its helper's name."""
    if not (isinstance(value, cst.Call) and called_name(value) in ("method_rrule", "attribute_rrule")
            and len(value.args) >= 2 and isinstance(value.args[1].value, cst.SimpleString)):
        return None
    return ARRAY_METHODS.get(value.args[1].value.evaluated_value)


class SplitCall(NamedTuple):
    """How compiled code calls a user function's split form (codegen/reverse.split_calls)."""
    forward: str
    reverse: str | None    # None: nothing is differentiated through the call, its value alone is read
    count: int             # the callee's number of parameters
    static: tuple          # the positions of the arguments (functions) its split form is specialised to


def _split_call(calls: dict, call: cst.Call) -> SplitCall | None:
    """The split form a call calls: of its function's variants, the one made for as many
    arguments as it gives and specialised to the functions it passes (the most static arguments
    among those it matches)."""
    variants = calls.get(called_name(call))
    if not variants:
        return None
    passed = {(position, get_full_name_for_node(a.value)) for position, a in enumerate(call.args)
              if isinstance(a.value, (cst.Name, cst.Attribute))}
    matching = [(given, count) for given, count in variants if passed.issuperset(given)
                and count in (None, len(call.args))]
    return variants[max(matching, key=lambda variant: len(variant[0]))] if matching else None


class _Pullbacks(cst.CSTVisitor):
    """``y, y_pullback = method_rrule(x, 'sum')``: ``y_pullback`` -> (``array_sum_pullback``, None);
    ``y, y_pullback = f_rrule(a)`` of a user function compiled split (``calls``: rrule -> (forward,
    reverse, the callee's number of parameters)): ``y_pullback`` -> (``f_reverse``, the number of
    cotangents the call's pullback gives when it passes fewer arguments than ``f`` has parameters)."""

    def __init__(self, calls: dict, keyword_pullbacks: dict):
        super().__init__()
        self.calls = calls
        self.keyword_pullbacks = keyword_pullbacks
        self.found: dict = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        target = node.targets[0].target if len(node.targets) == 1 else None
        if not (isinstance(target, cst.Tuple) and len(target.elements) == 2
                and isinstance(target.elements[1].value, cst.Name)):
            return
        helper = _method_call(node.value)
        if helper is not None:
            self.found[target.elements[1].value.value] = (f"{helper}_pullback", None)
        elif isinstance(node.value, cst.Call) and _split_call(self.calls, node.value) is not None \
                and _split_call(self.calls, node.value).reverse is not None:
            split = _split_call(self.calls, node.value)
            pullback = target.elements[1].value.value
            # the caller unpacks (0.0, one cotangent per argument given): by position, before the keywords
            # (keyword_calls.py); one given by keyword is read from the whole, by position
            given = self.keyword_pullbacks.get(pullback, (None, len(node.value.args)))[1]
            self.found[pullback] = (split.reverse, 1 + given if given < split.count else None)


class _AsArrays(cst.CSTTransformer):
    """The rewrites for arrays (see above); ``primal_of``: cotangent -> its value's name,
    ``buffers``: the cotangents only their own updates change, ``pullbacks``: the pullbacks of
    an array's methods -> the helper computing the method."""

    def __init__(self, primal_of: dict, buffers: set, pullbacks: dict, calls: dict, keyword_pullbacks: dict,
                 joined: set = frozenset()):
        super().__init__()
        self.keyword_pullbacks = keyword_pullbacks
        self.primal_of = primal_of
        self.buffers = buffers
        self.pullbacks = pullbacks
        self.calls = calls
        self.joined = joined   # the list literals only joins read (`_joined_lists`): made tuples
        self.matmul_helper = True  # `x @ W` as numpy_matmul(x, W) (for_numba says when not)
        self.unset: set = set()    # the names bound to None before a loop sets them (`result = None`)
        self.returned = None       # the name of the value the function returns, when it has one `return`
        self.unpacked: set = set()  # the sequences whose items' cotangents item_cotangent gives (`_unpacked`)

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        target = updated.targets[0].target if len(updated.targets) == 1 else None
        name = target.value if isinstance(target, cst.Name) else None
        value = updated.value
        if name is not None and isinstance(value, cst.Subscript) and isinstance(original.value, cst.Call) \
                and called_name(original.value) in self.keyword_pullbacks:
            return updated.with_changes(value=value.value)  # all its cotangents, its keywords' read by position
        helper = _method_call(value)
        if helper is not None:  # `x.sum(axis=0)`: its value, and what its pullback reads in place of the closure
            receiver, _, *rest = value.args
            if not rest:
                receiver = receiver.with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(value=cst.Call(cst.Name(helper), [receiver, *rest]))
        split = _split_call(self.calls, value) if isinstance(value, cst.Call) else None
        if split is not None and split.reverse is not None:
            # `f(a)` differentiated: its value and what its reverse reads (not given the functions it is specialised to)
            given = [a for position, a in enumerate(value.args) if position not in split.static]
            if given and split.static:
                given[-1] = given[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(value=value.with_changes(func=cst.Name(split.forward), args=given))
        if name in self.joined and isinstance(value, cst.List):
            return updated.with_changes(value=_as_tuple(value))
        if name in self.primal_of and isinstance(value, cst.Name) and value.value == "ZERO":
            primal = self.primal_of[name]
            if primal in self.unset and self.returned is not None:
                # the cotangent of what a `return` inside a loop returns (`result = None` until it runs), on the path
                # where it did not run: a zero of the function's value's type (Numba types `result` as that or None)
                primal = self.returned
            zeros = "zero_items_like" if primal in self.unpacked else "zero_like"  # (a tuple: item_cotangent's type)
            return updated.with_changes(value=cst.parse_expression(f"{zeros}({primal})"))
        if name in self.buffers and isinstance(value, cst.Call) and called_name(value) == "add_at":
            _, g, index, _ = (a.value for a in value.args)
            return cst.Expr(cst.Call(cst.Name("add_into"), [cst.Arg(cst.Name(name)), cst.Arg(index), cst.Arg(g)]))
        if name in self.buffers and isinstance(value, cst.Call) and called_name(value) == "accumulate":
            added = value.args[1].value
            if isinstance(added, cst.Call) and called_name(added) == "matmul_vjp_x1" and len(added.args) == 3 \
                    and not any(a.keyword or a.star for a in added.args):  # `dW += outer(g, h)` where dW is
                return updated.with_changes(value=cst.Call(cst.Name("matmul_vjp_x1_into"),
                                                           [value.args[0], *added.args]))
            return updated.with_changes(value=value.with_changes(func=cst.Name("accumulate_into")))
        return updated

    def leave_BinaryOperation(self, original, updated: cst.BinaryOperation) -> cst.BaseExpression:
        if isinstance(updated.operator, cst.MatrixMultiply) and self.matmul_helper:
            # `x @ W`: the helper kept on disk (compiled_helpers); not where a variable has its name
            return cst.Call(cst.Name("numpy_matmul"), [cst.Arg(updated.left), cst.Arg(updated.right)])
        return updated

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> cst.BaseExpression:
        tested = _type_is_float(updated)
        if tested is not None:  # a rule's `type(x) is float` (abs's): the overload's answer for x's type
            return cst.Call(cst.Name("is_python_float"), [cst.Arg(tested)])
        if len(updated.comparisons) == 1:
            test = updated.comparisons[0]
            if isinstance(test.comparator, cst.Name) and test.comparator.value == "ZERO" \
                    and isinstance(test.operator, (cst.Is, cst.IsNot)):
                nonzero = cst.Call(cst.Name("nonzero"), [cst.Arg(updated.left)])
                return nonzero if isinstance(test.operator, cst.IsNot) else cst.UnaryOperation(cst.Not(), nonzero)
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if called_name(updated) == "unthunk" and len(updated.args) == 1:
            return updated.args[0].value
        function = updated.func
        if isinstance(function, cst.Attribute) and isinstance(function.value, cst.Name) and function.value.value == "np" \
                and function.attr.value in NUMPY_LOOPS and len(updated.args) == 1 \
                and not (updated.args[0].keyword or updated.args[0].star):  # `np.tanh(x)`: NumPy's loop if x is large
            return updated.with_changes(func=cst.Name(f"numpy_{function.attr.value}"))
        function = numpy_function_name(updated)
        if function == "ndim" and len(updated.args) == 1 and not (updated.args[0].keyword or updated.args[0].star):
            return updated.with_changes(func=cst.Name("numpy_ndim"))  # (Numba has no np.ndim)
        if function in NUMPY_REDUCTIONS and len(updated.args) > 1:  # `np.max(x, axis=1)`: the overload's
            return updated.with_changes(func=cst.Name(NUMPY_REDUCTIONS[function]))
        method = updated.func.attr.value if isinstance(updated.func, cst.Attribute) else None
        if method in NUMPY_REDUCTIONS and method not in ("amax", "amin") and updated.args \
                and not (isinstance(updated.func.value, cst.Name) and updated.func.value.value in COMPILABLE_GLOBALS):
            # `y.max(axis=0)` nothing is differentiated through (else method_rrule): np.max(y, axis=0)'s
            # overload (on anything but an array it finds no implementation, and the NumPy path answers)
            return cst.Call(cst.Name(NUMPY_REDUCTIONS[method]), [cst.Arg(updated.func.value), *updated.args])
        position = JOINS.get(f"np.{function}")
        if position is not None and len(updated.args) > position and isinstance(updated.args[position].value, cst.List):
            joined = updated.args[position].with_changes(value=_as_tuple(updated.args[position].value))
            return updated.with_changes(args=[*updated.args[:position], joined, *updated.args[position + 1:]])
        if function in ("repeat", "roll") and len(updated.args) == 3 and not any(a.star for a in updated.args):
            # `np.repeat(h0, n, axis=0)`, `np.roll(g, -1, None)` (roll's cotangent): the overload's
            return updated.with_changes(func=cst.Name(f"numpy_{function}"))
        if called_name(updated) == "abs" and len(updated.args) == 1 and not (updated.args[0].keyword or updated.args[0].star):
            # `abs(x)`, which Numba has of numbers alone: the overload's, given what the name `abs` is (a function
            # of the user's named so is not the builtin, and the overload finds no implementation for it)
            return updated.with_changes(func=cst.Name("builtin_abs"), args=[cst.Arg(cst.Name("abs")), *updated.args])
        if function == "squeeze" and len(updated.args) in (1, 2) and not any(a.star for a in updated.args) \
                and not updated.args[0].keyword \
                and (len(updated.args) == 1 or updated.args[1].keyword is None or updated.args[1].keyword.value == "axis"):
            return updated.with_changes(func=cst.Name("numpy_squeeze"))  # `np.squeeze(x, axis=1)`, `np.squeeze(x)`
        if function == "reshape" and _reshaped_like(updated):  # np.squeeze's pullback, of a number too
            return updated.with_changes(func=cst.Name("reshaped_like"),
                                        args=[updated.args[0], cst.Arg(updated.args[1].value.args[0].value)])
        if function in LIST_JOINS and updated.args and isinstance(updated.args[0].value, cst.Name) \
                and updated.args[0].value.value not in self.joined \
                and not updated.args[0].keyword and not any(a.star for a in updated.args):
            # `np.concatenate(states, axis=0)` of a name not made a tuple: Numba joins tuples only, the overload
            # lists too (other arguments than the axis find no implementation, and the NumPy path answers)
            return updated.with_changes(func=cst.Name(LIST_JOINS[function]))
        value_only = _split_call(self.calls, updated)
        if value_only is not None and value_only.reverse is None:  # `f(y, 1.5)`, not differentiated: the forward's value
            call = updated.with_changes(func=cst.Name(value_only.forward))
            return cst.Subscript(call, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])
        found = self.pullbacks.get(called_name(updated))
        if found is not None and len(updated.args) == 1:  # `y_pullback(g)`: the helper's pullback of what it kept
            call = cst.Call(cst.Name(found[0]), [cst.Arg(updated.func), *updated.args])
            if found[1] is None:
                return call
            # a call that left parameters to their defaults: the cotangents of the arguments it gave
            return cst.Subscript(call, [cst.SubscriptElement(cst.Slice(None, cst.Integer(str(found[1]))))])
        if called_name(updated) == "sorted" and updated.args and not any(a.star for a in updated.args):
            # `sorted(xs)`, which Numba sorts otherwise than Python (not stably): the overload's, given what the
            # name is (a function of the user's named so is not the builtin, and finds no implementation there)
            return updated.with_changes(func=cst.Name("sorted_items"), args=[cst.Arg(cst.Name("sorted")), *updated.args])
        return updated



def _reshaped_like(call: cst.Call) -> bool:
    """``np.reshape(g, np.shape(a))``, each argument by position."""
    if len(call.args) != 2 or any(a.keyword or a.star for a in call.args):
        return False
    shape = call.args[1].value
    return isinstance(shape, cst.Call) and numpy_function_name(shape) == "shape" and len(shape.args) == 1 \
        and not (shape.args[0].keyword or shape.args[0].star)


def _as_tuple(value: cst.List) -> cst.Tuple:
    elements = list(value.elements)
    if len(elements) == 1:  # `(x,)`
        elements = [elements[0].with_changes(comma=cst.Comma())]
    return cst.Tuple(elements)


def _spelled(call: cst.Call) -> str | None:
    """``np.concatenate`` or ``concatenate_vjp_arrays``: what a call calls, as it is spelled."""
    function = numpy_function_name(call)
    return f"np.{function}" if function is not None else called_name(call)


class _Joins(cst.CSTVisitor):
    """The names read as the sequence of a join (``JOINS``), how often; and where
    ``np.concatenate`` is given ``axis=None`` (the arrays flattened, which Numba cannot compile)."""

    def __init__(self):
        self.read: dict = {}
        self.flattening: list = []

    def visit_Call(self, node: cst.Call) -> None:
        spelled = _spelled(node)
        position = JOINS.get(spelled)
        if position is None:
            return
        if len(node.args) > position and isinstance(node.args[position].value, cst.Name) \
                and node.args[position].keyword is None:
            name = node.args[position].value.value
            self.read[name] = self.read.get(name, 0) + 1
        if spelled == "np.concatenate":
            axis = [a.value for i, a in enumerate(node.args) if a.keyword is not None and a.keyword.value == "axis"
                    or a.keyword is None and i == 1]
            if axis and isinstance(axis[0], cst.Name) and axis[0].value == "None":
                self.flattening.append(_CODE.code_for_node(node))


class _Messages(cst.CSTVisitor):
    """How often each name is read as the message of a builtin exception (``ValueError(message)``)."""

    def __init__(self):
        self.read: dict = {}

    def visit_Call(self, node: cst.Call) -> None:
        if called_name(node) in BUILTIN_EXCEPTIONS and len(node.args) == 1 and isinstance(node.args[0].value, cst.Name):
            name = node.args[0].value.value
            self.read[name] = self.read.get(name, 0) + 1


class _UnformattedMessages(cst.CSTTransformer):
    """``message = "{} inputs but {} targets".format(n, m)`` read only by ``ValueError(message)``:
    the message is the template (Numba formats no strings). A compiled call that raises is run
    again on the NumPy path, and the error the user sees is that path's, formatted."""

    def __init__(self, module: cst.Module):
        super().__init__()
        assigned, occurrences, messages = _Assigned(), _Occurrences(), _Messages()
        module.visit(assigned)
        module.visit(occurrences)
        module.visit(messages)
        self.names = {name for name, values in assigned.values.items()
                      if len(values) == 1 and _format_template(values[0]) is not None
                      and occurrences.all.get(name, 0) == 1 + messages.read.get(name, 0)}

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        target = updated.targets[0].target if len(updated.targets) == 1 else None
        if isinstance(target, cst.Name) and target.value in self.names:
            return updated.with_changes(value=_format_template(updated.value))
        return updated


def _unset_and_returned(module: cst.Module, assigned: _Assigned) -> tuple[set, str | None]:
    """The names bound to None (``result = None``, before a loop whose ``return`` sets it), and the
    name of the value returned, ``y`` of the one ``return y, (dx, ...)`` (None if it has other returns)."""
    returns = _Returns()
    module.visit(returns)
    unset = {name for name, values in assigned.values.items()
             if any(isinstance(v, cst.Name) and v.value == "None" for v in values)}
    found = returns.found
    returned = found[0].value.elements[0].value if len(found) == 1 and isinstance(found[0].value, cst.Tuple) \
        and len(found[0].value.elements) == 2 and isinstance(found[0].value.elements[0].value, cst.Name) else None
    return unset, returned.value if returned is not None else None


class _Returns(cst.CSTVisitor):
    def __init__(self):
        self.found: list = []

    def visit_Return(self, node: cst.Return) -> None:
        self.found.append(node)


def _format_template(value) -> cst.SimpleString | None:
    """The string of ``"...".format(...)``."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "format" \
            and isinstance(value.func.value, cst.SimpleString):
        return value.func.value
    return None


def _unpacked(module: cst.Module, text: str) -> set:
    """The names of the sequences ``item_cotangent(g, index, count, sequence)`` reads."""
    if "item_cotangent" not in text:
        return set()
    calls = _ItemCotangents()
    module.visit(calls)
    return calls.sequences


class _ItemCotangents(cst.CSTVisitor):
    """The names of the sequences the calls ``item_cotangent(g, index, count, sequence)`` read (a plain
    visitor, not libcst.matchers: importing that was 0.2 s of a compiled gradient's cold first call)."""

    def __init__(self):
        self.sequences: set = set()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "item_cotangent" and len(node.args) == 4 \
                and isinstance(node.args[3].value, cst.Name):
            self.sequences.add(node.args[3].value.value)


def _joined_lists(module: cst.Module, walked: _Walked, text: str) -> tuple[set, list]:
    """The names bound once to a list literal and read only as the sequence of a join (those can
    be tuples), and the calls that flatten what they join."""
    assigned, occurrences, joins = walked.assigned, walked.occurrences, _Joins()
    if _may_join(text):
        module.visit(joins)
    joined = {name for name, values in assigned.values.items()
              if len(values) == 1 and isinstance(values[0], cst.List)
              and not any(isinstance(e, cst.StarredElement) for e in values[0].elements)
              and occurrences.all.get(name, 0) == 1 + joins.read.get(name, 0)}
    return joined, joins.flattening


class _Walked(NamedTuple):
    """What the passes reading the array code before its rewrites share, from one walk each."""
    assigned: _Assigned
    occurrences: _Occurrences

    @classmethod
    def of(cls, module: cst.Module) -> _Walked:
        walked = cls(_Assigned(), _Occurrences())
        module.visit(walked.assigned)
        module.visit(walked.occurrences)
        return walked


# the words the joins of JOINS are spelled with (`concatenate` of `np.concatenate` and `concatenate_vjp_arrays`)
_JOIN_WORDS = frozenset(spelled.rpartition(".")[2].split("_")[0] for spelled in JOINS)


def _may_join(text: str) -> bool:
    """Whether ``text`` may call a join of JOINS."""
    return any(word in text for word in _JOIN_WORDS)


class _Assigned(cst.CSTVisitor):
    """Name -> the values assigned to it (``x = value`` statements)."""

    def __init__(self):
        self.values: dict = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            for name in _names(target.target):
                self.values.setdefault(name, []).append(node.value if isinstance(target.target, cst.Name) else None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        for name in _names(node.target):
            self.values.setdefault(name, []).append(None)

    def visit_Param(self, node: cst.Param) -> None:  # bound by the caller: a value of unknown origin
        self.values.setdefault(node.name.value, []).append(None)

    def visit_For(self, node: cst.For) -> None:
        for name in _names(node.target):
            self.values.setdefault(name, []).append(None)


class _Occurrences(cst.CSTVisitor):
    """How often each name occurs, and how often as what an owned buffer may be read as: the
    first argument of its own update (``dx = add_at(dx, ...)``, ``dx = accumulate(dx, ...)``), an
    assignment's target, or in the ``return``."""

    def __init__(self):
        self.all: dict = {}
        self.allowed: dict = {}
        self.returning = False

    def _allow(self, name: str) -> None:
        self.allowed[name] = self.allowed.get(name, 0) + 1

    def visit_Name(self, node: cst.Name) -> None:
        self.all[node.value] = self.all.get(node.value, 0) + 1
        if self.returning:
            self._allow(node.value)

    def visit_Return(self, node: cst.Return) -> None:
        self.returning = True

    def leave_Return(self, original: cst.Return) -> None:
        self.returning = False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._allow(target.target.value)
        value = node.value
        if len(node.targets) == 1 and isinstance(value, cst.Call) and called_name(value) in UPDATES and value.args \
                and isinstance(value.args[0].value, cst.Name) and _names(node.targets[0].target) == [value.args[0].value.value]:
            self._allow(value.args[0].value.value)


UPDATES = ("add_at", "accumulate")


class _SelfAssignments(cst.CSTTransformer):
    """Without ``g = g`` (what ``g = unthunk(g)`` became): no noise in the code users read. Without
    core.RECEIVER_CHECKS either (``receiver_left_alone(x, ...)``): they refuse a method or attribute of a
    user's object (or a dict's), and compiled code holds no objects or dicts (they are written out
    as their fields or entries, methods as functions), only numbers and arrays, whose methods Numba
    compiles or refuses to. Code of floats alone drops ``not_the_callers`` too: a float is rebound by a
    change, never the caller's (on arrays its overload lets numbers pass and leaves arrays to the NumPy path)."""

    def __init__(self, floats_only: bool = False):
        super().__init__()
        self.dropped = RECEIVER_CHECKS + (("not_the_callers",) if floats_only else ())

    def leave_SimpleStatementLine(self, original, updated: cst.SimpleStatementLine):
        kept = [s for s in updated.body if not (isinstance(s, cst.Assign) and len(s.targets) == 1
                                                and isinstance(s.targets[0].target, cst.Name)
                                                and isinstance(s.value, cst.Name)
                                                and s.targets[0].target.value == s.value.value)
                and not (isinstance(s, cst.Expr) and isinstance(s.value, cst.Call)
                         and called_name(s.value) in self.dropped)]
        if len(kept) == len(updated.body):
            return updated
        return updated.with_changes(body=kept) if kept else cst.RemoveFromParent()

    def leave_IndentedBlock(self, original, updated: cst.IndentedBlock):
        return updated if updated.body else updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])


# helpers whose answer is a new array of its own (the cotangent of `x[i]`: zeros, and g at i)
FRESH = ("untake",)


def _made_fresh(value) -> bool:
    """``ZERO`` (``zero_like``: new zeros) or a call of a helper in FRESH."""
    return isinstance(value, cst.Name) and value.value == "ZERO" or isinstance(value, cst.Call) and called_name(value) in FRESH


def _own_buffers(walked: _Walked) -> set:
    """The cotangents that are buffers of their own: made new (``ZERO``, ``untake``: see
    ``_made_fresh``), changed only by their own updates, read by nothing else but the ``return``.
    Updating such a buffer in place changes no other value."""
    assigned, occurrences = walked.assigned, walked.occurrences
    return {name for name, values in assigned.values.items()
            if any(_made_fresh(v) for v in values)
            and all(_made_fresh(v) or isinstance(v, cst.Call) and called_name(v) in UPDATES
                    and isinstance(v.args[0].value, cst.Name) and v.args[0].value.value == name for v in values)
            and occurrences.all.get(name, 0) == occurrences.allowed.get(name, 0)}


class _Reads(cst.CSTVisitor):
    """The names a function reads and the names it binds."""

    def __init__(self):
        self.read: list[str] = []
        self.bound: set[str] = set()
        self.large_integers: list[str] = []   # literals past 2**31, and powers of two integer literals

    def visit_Integer(self, node: cst.Integer) -> None:
        if abs(node.evaluated_value) >= 2 ** 31:
            self.large_integers.append(node.value)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, (cst.Power, cst.LeftShift)) and isinstance(node.left, cst.Integer) \
                and isinstance(node.right, cst.Integer):
            self.large_integers.append(_CODE.code_for_node(node))

    def visit_Param(self, node: cst.Param) -> None:
        self.bound.add(node.name.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.bound.update(_names(node.target))

    def visit_For(self, node: cst.For) -> None:
        self.bound.update(_names(node.target))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # math.sin reads `math`, not `sin`
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # f(axis=0) reads `f` and 0, not `axis`
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.read.append(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.bound.add(node.name.value)



class _Scattered(cst.CSTVisitor):
    """``dx = add_at(dx, g, index, x)``: ``dx`` -> ``x``, the cotangents of arrays read by element."""

    def __init__(self):
        self.found: dict = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and isinstance(value, cst.Call) \
                and called_name(value) == "add_at" and len(value.args) == 4 and isinstance(value.args[3].value, cst.Name) \
                and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == node.targets[0].target.value:
            self.found[node.targets[0].target.value] = value.args[3].value.value


class _RandomDraws(cst.CSTVisitor):
    """``np.random.randn(3)``, ``np.random.seed(0)``: NumPy's global random state. Numba compiles
    these to draws from a state of its own, which NumPy's seed does not set nor its draws advance:
    the numbers (the value and the gradient) would not be those NumPy's own run gives."""

    def __init__(self):
        self.found: list[str] = []

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = get_full_name_for_node(node) or ""
        if name.startswith(("np.random.", "numpy.random.")) and name not in self.found:
            self.found.append(name)


class _FlatIndices(cst.CSTVisitor):
    """``x.flat[i]`` (``flat_x = x.flat`` then ``flat_x[i]`` as generated code spells it) with an index
    not a literal ``i >= 0``: Numba's flat iterator does not wrap a negative index, and read memory
    past the array (``np.array(c).flat[-1]`` gave 0.0 or 5.6e-322 where NumPy gives c's last element)."""

    def __init__(self):
        self.iterators: set[str] = set()
        self.read: list[tuple[cst.BaseExpression, cst.Subscript]] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Attribute) and node.value.attr.value == "flat":
            self.iterators.update(name for target in node.targets for name in _names(target.target))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self.read.append((node.value, node))

    def unsure(self) -> list[str]:
        def flat(value) -> bool:
            return isinstance(value, cst.Attribute) and value.attr.value == "flat" or \
                isinstance(value, cst.Name) and value.value in self.iterators

        def literal(subscript: cst.Subscript) -> bool:
            index = subscript.slice[0].slice if len(subscript.slice) == 1 else None
            return isinstance(index, cst.Index) and isinstance(index.value, cst.Integer)

        return [".flat[" + ", ".join(_CODE.code_for_node(element.slice) for element in subscript.slice) + "]"
                for value, subscript in self.read if flat(value) and not literal(subscript)]


def _names(target) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _names(element.value)]
    return []


def for_numba(text: str, bindings: dict, location: SourceLocation | None, primal_of: dict | None = None,
              calls: dict | None = None, keyword_pullbacks: dict | None = None, extremes: dict | None = None) -> str:
    """``text``, one generated function, as Numba compiles it; NotCompiledError when it cannot.
    ``primal_of`` (cotangent -> its value's name): the general version's code, for arrays.
    ``calls``: the user's functions it calls split (rrule -> {its calls' static arguments: SplitCall},
    codegen/reverse.split_calls); ``keyword_pullbacks``: the pullbacks of those called by keyword
    (keyword_calls.py); ``extremes``: the rrules of Python's max and min it calls (extremes.py)."""
    arrays = primal_of is not None
    calls = calls or {}
    module = extremes_written_out(cst.parse_module(text), extremes or {}, bindings, arrays, location)
    allowed = ARRAY_GLOBALS | ARRAY_IMPORTS if arrays else COMPILABLE_GLOBALS
    allowed = allowed | {name for variants in calls.values() for split in variants.values()
                         for name in (split.forward, split.reverse) if name}
    bound = sorted(name for name in bindings if name not in allowed)  # `range` is bound to the builtin
    for name in [name for name in bindings if arrays and name in BOUND_RULES_COMPILED]:
        del bindings[name]  # a rule's function the module would bind: its overload is imported instead
    if bound:
        raise NotCompiledError(f"its gradient calls {', '.join(f'`{name}`' for name in bound)}, which s2sad binds "
                               "when the module loads (a rule's function, another generated function): Numba "
                               "cannot compile those calls", location)
    # A pass that can find nothing in code without some word is skipped where ``text`` lacks it (no pass
    # writes a word a later one looks for): each walk of the tree was 2-3 ms of a compiled gradient's
    # cold first call, 40 ms of the RNN's (benchmarks/cold_call.py).
    if "random" in text:
        draws = _RandomDraws()
        module.visit(draws)
        if draws.found:
            raise NotCompiledError(f"it draws from NumPy's global random state (`{draws.found[0]}`), which Numba's "
                                   "code would replace by a state of its own: other numbers than NumPy's", location)
    if "flat" in text:
        flat_indices = _FlatIndices()
        module.visit(flat_indices)
        if flat_indices.unsure():
            raise NotCompiledError(f"it reads `{flat_indices.unsure()[0]}`, an index into `.flat` that Numba's code "
                                   "does not wrap when negative (it reads past the array)", location)
    if "math" in text:
        module = module.visit(_MathAsNumpy())
    if "errstate" in text:  # `with np.errstate(divide="ignore"):`: its body
        module = errstate_ignored(module)
    if arrays and ("tuple" in text or "{" in text):
        # `np.ones(*shape)`, `x.reshape(*shape)`: the tuple unpacked into the call (star_calls.py)
        module = star_calls_unpacked(module, location)
    if arrays:
        # `outputs = None` before the loop assigning it: not an optional array (before `_unset_and_returned`,
        # for whose names a cotangent's zero is the returned value's)
        module = unset_before_loops(module, primal_of)
        pullbacks = _Pullbacks(calls, keyword_pullbacks or {})
        module.visit(pullbacks)
        walked = _Walked.of(module)
        joined, flattening = _joined_lists(module, walked, text)
        if flattening:
            raise NotCompiledError(f"it joins arrays flattened ({flattening[0]}), which Numba cannot compile", location)
        rewrites = _AsArrays(primal_of, _own_buffers(walked), pullbacks.found, calls, keyword_pullbacks or {}, joined)
        rewrites.matmul_helper = "numpy_matmul" not in text or "numpy_matmul" not in binding_counts(module)
        rewrites.unset, rewrites.returned = _unset_and_returned(module, walked.assigned)
        rewrites.unpacked = _unpacked(module, text)
        module = module.visit(rewrites)
        module = fewer_allocations(module)
        module = squares_multiplied(weak_scalars(module), FLOAT_RESULTS)
    else:
        scattered = _Scattered()
        module.visit(scattered)
        module = module.visit(_AsFloats(scattered.found))
    if "format" in text:  # `message = "...".format(...)`
        module = module.visit(_UnformattedMessages(module))
    module = module.visit(_SelfAssignments(floats_only=not arrays))
    reads = _Reads()
    module.visit(reads)
    if reads.large_integers:
        raise NotCompiledError(f"it computes with integers ({', '.join(reads.large_integers)}) that Numba's 64-bit "
                               "integers may not hold (Python's grow)", location)
    foreign = [name for name in dict.fromkeys(reads.read) if name not in reads.bound and name not in allowed]
    if foreign:
        raise NotCompiledError(f"its gradient calls {', '.join(f'`{name}`' for name in foreign)}, which Numba "
                               "cannot compile", location)
    return module.code
