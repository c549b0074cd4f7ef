"""Lists and tuples handed to NumPy's elementwise functions.

NumPy reads a list or tuple argument as the array ``np.asarray`` makes of it; a rule's template
computes with the argument's value and tangent as written (``g * (2.0 * x)``, ``safe_divide(g,
x + 1)``, ``-g``), which of a list would repeat it, join it or fail. So where the argument of
such a call may hold a list or tuple (a parameter, an item of a container: not a value a NumPy
call made), the rule reads it through ``array_like``, which converts a list or tuple and hands
anything else back as it is, and only where the template computes with the value as it is
(``computed_with``): handed straight to a NumPy function, NumPy reads it itself. The user's own
code is not touched: there a list stays a list for ``+``, ``*``, ``len`` and indexing.

That meaning has one consequence in reverse mode: a list joined with ``+`` (or repeated with
``*``) and then read by a NumPy function as one array gets an array cotangent, which the rules
of ``+`` and ``*`` would take for a sum's (a product's). Where an operand may be a list, the
rule reads its cotangent through ``sequence_cotangent``, which refuses exactly that case.
Which variables may hold a list is ``Producers``' question, answered from the operations that
assign them.
"""
from __future__ import annotations

import ast
import functools
import operator

import numpy as np

from ..frontend.ir import Const, Function, Var, operations_of
from ..registry.forward import forward_rule
from .expressions import callee_spelling


def reads_sequences_as_arrays(function) -> bool:
    """A NumPy or SciPy function, which reads a list it is given as an array (not a container op):
    `signal.lfilter(b, [1.0, a1], x)`'s tangent of the list is handed to its jvp as an array."""
    module = getattr(function, "__module__", None) or ""
    return isinstance(function, np.ufunc) or module.split(".")[0] in ("numpy", "scipy")


# NumPy's elementwise functions that are no ufuncs (their rules in rules/numpy_elementwise.py)
_ELEMENTWISE_FUNCTIONS = (np.sinc, np.i0, np.angle, np.real, np.imag, np.real_if_close, np.nan_to_num, np.fix,
                          np.round, np.around)


def takes_array_likes(function) -> bool:
    """Whether each argument of ``function`` is read as ``np.asarray`` of it: NumPy's ufuncs and
    the functions registered as elementwise (``np.clip``, ``np.where``); not ``np.concatenate``
    or ``np.select``, whose arguments are sequences of arrays of any shapes."""
    if isinstance(function, np.ufunc) or function in _ELEMENTWISE_FUNCTIONS:
        return True
    forward = forward_rule(function)
    return forward is not None and forward.elementwise and reads_sequences_as_arrays(function)


# `+` and `*`, which of two lists (a list and an int) join (repeat) them: not a sum (a product)
_JOINING = (operator.add, operator.mul, operator.iadd, operator.imul)
# arithmetic no list or tuple allows: its value is a number or an array
_NO_SEQUENCE_OPERATORS = frozenset({operator.sub, operator.truediv, operator.floordiv, operator.mod, operator.pow,
                                    operator.neg, operator.pos, operator.matmul, operator.abs, operator.isub,
                                    operator.itruediv, operator.ipow, operator.imatmul})


def as_array_like(code: str) -> str:
    return f"array_like({code})"


@functools.lru_cache(maxsize=4096)
def computed_with(template: str) -> frozenset[str]:
    """The free names of a rule's template some occurrence of which is computed with as it is
    (an operand, an attribute's owner, the argument of a helper such as ``safe_divide``), not
    handed straight to a NumPy function or ``conj``, which read a list as NumPy does, or given
    as ``unbroadcast``'s ``like``: only those need ``array_like``."""
    names: set[str] = set()
    pending = [(ast.parse(template.strip(), mode="eval").body, False)]
    while pending:
        node, read_as_an_array = pending.pop()
        if isinstance(node, ast.Name):
            if not read_as_an_array:
                names.add(node.id)
        elif isinstance(node, ast.Call):
            spelling = callee_spelling(node.func) or ""
            reads = spelling.startswith("np.") or spelling == "conj"
            pending += [(argument, reads or spelling == "unbroadcast" and position == 1)
                        for position, argument in enumerate(node.args)]
            pending += [(keyword.value, reads) for keyword in node.keywords]
        else:
            pending += [(child, False) for child in ast.iter_child_nodes(node)]
    return frozenset(names)


def as_read_by(template: str, codes: dict[str, str], converted: dict[str, str]) -> dict[str, str]:
    """Each parameter's code for ``template``: through ``array_like`` (``converted``) where the
    template computes with it as it is, else as written."""
    used = computed_with(template)
    return {param: converted[param] if param in used else code for param, code in codes.items()}


class LikeAsGiven:
    """A rule expression pass (expressions.py): ``unbroadcast(v, array_like(x))`` read as
    ``unbroadcast(v, x)``. ``unbroadcast`` reads a list's shape and dtype as ``np.asarray``
    makes them, and a value the pullback reads only there is one a tape may keep a data-free
    stand-in for (tape_contents.py)."""

    def applies(self, callees: frozenset[str]) -> bool:
        return "unbroadcast" in callees

    def __call__(self, tree: ast.expr) -> ast.expr | None:
        changed = False
        for node in ast.walk(tree):
            if _called(node, "unbroadcast", 2) and _called(node.args[1], "array_like", 1):
                node.args[1] = node.args[1].args[0]
                changed = True
        return tree if changed else None


def _called(node: ast.AST, name: str, count: int) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
            and len(node.args) == count and not node.keywords)


def _may_be_a_sequence(atom) -> bool:
    """A variable, or a constant other than a number (``0.0``, ``-1e-3``)."""
    if isinstance(atom, Var):
        return True
    try:
        return not isinstance(ast.literal_eval(atom.code.strip()), (int, float, complex))
    except (ValueError, SyntaxError):
        return True  # a name (np.pi) or an expression: taken for anything


class Producers:
    """The operations assigning each variable of a function, and what they may leave in it."""

    def __init__(self, function: Function):
        self.function = function
        self._producers: dict | None = None    # variable -> the operations assigning it

    def producers(self, name: str) -> list:
        """The operations assigning ``name`` ([None] for a parameter)."""
        if self._producers is None:
            self._producers = {}
            for operation in operations_of(self.function.statements):
                self._producers.setdefault(operation.target, []).append(operation)
        return self._producers.get(name, [None])

    def may_hold(self, name: str, rules_out) -> bool:
        """Whether ``name`` may hold a value of a kind ``rules_out(callee)`` says the call
        assigning it cannot make: not when every operation assigning it is such a call, or copies
        a value that is. A loop carrying it may carry anything."""
        def may_make(operation, seen) -> bool:
            return not (operation.kind == "call" and operation.callee.kind == "static" and rules_out(operation.callee.value))
        return self._some_producer(name, may_make, (), carried=True)

    def may_hold_a_sequence(self, name: str, seen=()) -> bool:
        """Whether ``name`` may hold a list or tuple: not when every operation assigning it is
        a NumPy call (an array), arithmetic no list allows (``x - y``, ``x * 2.0``, ``+`` of a
        value that is no list), or a copy of such a value (a loop carrying it: what its other
        assignments leave decides)."""
        def may_make(operation, seen) -> bool:
            if operation.kind == "copy":  # of a constant
                return _may_be_a_sequence(operation.args[0])
            if not (operation.kind == "call" and operation.callee.kind == "static"):
                return True
            if operation.callee.value in _JOINING:
                return self._may_join(operation, seen)
            return not (operation.callee.value in _NO_SEQUENCE_OPERATORS
                        or reads_sequences_as_arrays(operation.callee.value))
        return self._some_producer(name, may_make, seen, carried=False)

    def _some_producer(self, name: str, may_make, seen: tuple, carried: bool) -> bool:
        """Whether some operation assigning ``name`` ``may_make(operation, seen)`` the value asked
        about, a copy of another variable asking the same of it; a parameter may hold anything,
        and a variable met again (``seen``: a loop carrying it) is ``carried``."""
        if name in seen:
            return carried
        seen = (*seen, name)
        for operation in self.producers(name):
            if operation is None:
                return True   # a parameter: anything
            if operation.kind == "copy" and isinstance(operation.args[0], Var):
                if self._some_producer(operation.args[0].name, may_make, seen, carried):
                    return True
            elif may_make(operation, seen):
                return True
        return False

    def _may_join(self, op, seen, known=()) -> bool:
        if len(op.args) != 2:
            return True
        sequences = [isinstance(a, Var) and a.name not in known and self.may_hold_a_sequence(a.name, seen)
                     for a in op.args]
        if op.callee.value in (operator.add, operator.iadd):
            return all(sequences)
        if op.args[0] == op.args[1]:
            return False  # x * x: a list times a list, or an int times an int, repeats nothing
        # a repetition: a list or tuple times a Python int (a ufunc's value, or a float, is none)
        return any(sequence and self._may_hold_an_int(other, known)
                   for sequence, other in zip(sequences, reversed(op.args)))

    def _may_hold_an_int(self, atom, known) -> bool:
        if isinstance(atom, Const):
            return atom.code.strip().isdigit()
        return atom.name not in known and self.may_hold(atom.name, lambda callee: isinstance(callee, np.ufunc))

    def may_join(self, op, known=()) -> bool:
        """Whether ``op`` is `+` of two values that may be lists or tuples, or `*` of one and a
        value that may be an int: a join or a repetition, whose reverse rule must not read a
        NumPy function's array cotangent as a sum's or a product's (``sequence_cotangent``)."""
        return op.kind == "call" and op.callee is not None and op.callee.value in _JOINING and self._may_join(op, (), known)

    def array_like_codes(self, function, arguments, codes: dict[str, str], known=()) -> dict[str, str]:
        """``codes`` (parameter -> the code of its argument) with each argument of an elementwise
        NumPy ``function`` that may hold a list or tuple read through ``array_like``; ``known``
        holds the names whose type the code was specialised to (an array or a number)."""
        if not takes_array_likes(function):
            return codes
        wrapped = dict(codes)
        for param, atom in arguments.items():
            if param in wrapped and isinstance(atom, Var) and atom.name not in known \
                    and self.may_hold_a_sequence(atom.name):
                wrapped[param] = as_array_like(wrapped[param])
        return wrapped if wrapped != codes else codes
