"""The types every variable holds when the arguments have the types of one call: the facts a
version of the rrule specialised to those types reads (issue 19, item 2).

A *signature* names each argument's type as the first call saw it: a float64 ``np.ndarray``
of at least one dimension and a given shape, a Python float or a Python int. Given one,
``typed_plan`` finds each variable's type by propagating the signature through the operations
whose result type follows from their operands' types alone:

* arithmetic (``+ - * / **``, unary ``-``/``+``) and NumPy ufuncs that map float64 to float64:
  an array when an operand is one (the operands' shapes broadcast), else a NumPy float64 scalar
  (a ufunc, or an operand that is one) or a Python number;
* ``@`` of float64 arrays of one or two dimensions; ``np.sum``/``np.mean`` of a whole array;
* ``range``, ``len``, a loop counter, ``math`` functions of numbers, copies.

A variable assigned in several places (a loop's carried value) has a type only if every
assignment gives the same one (the fixpoint below): then any call with the signature computes
values of exactly these types, so what the generic helpers decide at run time (``conj`` of a
real value, ``unbroadcast`` of an array already the right shape, ``accumulate``'s ownership
tests) is decided here once. When a value the gradient flows through has no type (an
operation outside this list, a global, a container), there is no plan and the general rrule
runs: a guess costs speed, never a number.
"""
from __future__ import annotations

import ast
import functools
import math
import operator
import warnings

import numpy as np

from .activity import Activity
from .scalars import math_function, real_number
from ..frontend.ir import Function, Operation, Var, operations_of

ARRAY, F64, FLOAT, INT, RANGE = "array", "f64", "float", "int", "range"
SCALAR = "scalar"  # a real number of one of those types (a variable assigned a float, then a float64)
_NUMBERS = (F64, FLOAT, INT, SCALAR)

_ELEMENTWISE_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
                          operator.neg, operator.pos}
_MATMUL = {operator.matmul, np.matmul}
_WHOLE_REDUCTIONS = {np.sum, np.mean}
_ndarray = np.ndarray
_float64 = np.dtype(np.float64)


def signature_of(args) -> tuple | None:
    """The signature of a call's arguments, or None when one of them is of a type no typed
    version is made for (another dtype, a 0-d or subclassed array, a NumPy scalar, a bool, ...).

    An array's shape is written with its lengths of 1 as 1 and the others as names (``n0``,
    ``n1``, ...), equal lengths with one name: ``(32, 32)``, ``(32,)`` and ``(1, 32)`` are
    ``(n0, n0)``, ``(n0,)`` and ``(1, n0)``. Broadcasting and matrix products depend on no more
    than that, so one typed version serves every call whose lengths are equal where these are."""
    kinds = []
    names: dict[int, str] = {}
    for value in args:
        kind = value.__class__
        if kind is _ndarray:
            if value.dtype is not _float64 or value.ndim == 0:
                return None
            kinds.append((ARRAY, tuple(1 if n == 1 else names.setdefault(n, f"n{len(names)}") for n in value.shape)))
        elif kind is float:
            kinds.append((FLOAT,))
        elif kind is int:
            kinds.append((INT,))
        else:
            return None
    return tuple(kinds)


def entry_tests(params: list[str], signature: tuple) -> list[str]:
    """The Python tests, one a parameter, that a call's arguments have ``signature`` (what
    ``signature_of`` gives): an array's class, dtype and number of dimensions, its lengths of 1,
    and its lengths equal to one read before."""
    tests = []
    first: dict[str, str] = {}  # a length's name -> where it was first read
    for param, kind in zip(params, signature):
        if kind[0] != ARRAY:
            tests.append(f"{param}.__class__ is {kind[0]}")
            continue
        test = [f"{param}.__class__ is np.ndarray and {param}.dtype is FLOAT64 and {param}.ndim == {len(kind[1])}"]
        for axis, length in enumerate(kind[1]):
            here = f"{param}.shape[{axis}]"
            if length == 1:
                test.append(f"{here} == 1")
            elif length in first:
                test.append(f"{here} == {first[length]}")
            else:
                first[length] = here
        tests.append(" and ".join(test))
    return tests


@functools.lru_cache(maxsize=None)
def keeps_float64(ufunc, count: int | None = None) -> bool:
    """A ufunc of one output that maps float64 operands (``count`` of them, if given) to a float64
    value (not a comparison's bool)."""
    if not isinstance(ufunc, np.ufunc) or ufunc.nout != 1 or (count is not None and count != ufunc.nin):
        return False
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            value = ufunc(*([np.float64(0.5)] * ufunc.nin))
    except Exception:  # noqa: BLE001 - a ufunc with no float64 loop
        return False
    return value.__class__ is np.float64


def broadcast_shapes(shapes) -> tuple | None:
    """The broadcast shape of shapes written as ``signature_of`` writes them; None where two
    lengths of different names meet (a call of the signature may raise there: no plan)."""
    rank = max(len(shape) for shape in shapes)
    result = []
    for axis in range(rank):
        lengths = {shape[axis - rank + len(shape)] for shape in shapes if axis - rank + len(shape) >= 0} - {1}
        if len(lengths) > 1:
            return None
        result.append(lengths.pop() if lengths else 1)
    return tuple(result)


def _elementwise(operation: Operation, operands: list) -> tuple | None:
    value = operation.callee.value
    ufunc = isinstance(value, np.ufunc)
    if ufunc and (len(operands) != value.nin or not keeps_float64(value)):
        return None
    if not ufunc and len(operands) != (1 if value in (operator.neg, operator.pos) else 2):
        return None
    arrays = [t[1] for t in operands if t[0] == ARRAY]
    if arrays:
        shape = broadcast_shapes(arrays)
        return (ARRAY, shape) if shape else None
    if ufunc:
        return (F64,)
    if any(t[0] == SCALAR for t in operands):
        return (SCALAR,)
    if any(t[0] == F64 for t in operands):
        return (F64,)
    if all(t[0] == INT for t in operands):
        # int ** int may be a float (2 ** -1) and int / int is one: untyped (nothing to gain on ints)
        return (INT,) if value in (operator.add, operator.sub, operator.mul, operator.neg, operator.pos) else None
    return (FLOAT,)


def _matmul(operands: list) -> tuple | None:
    if len(operands) != 2 or any(t[0] != ARRAY for t in operands):
        return None
    a, b = operands[0][1], operands[1][1]
    if len(a) > 2 or len(b) > 2:
        return None
    if a[-1] != b[0 if len(b) == 1 else -2]:
        return None  # the product raises; the general path says so
    shape = a[:-1] + b[:-2] + b[-1:] if len(b) == 2 else a[:-1]
    return (ARRAY, shape) if shape else (F64,)


def _result_type(operation: Operation, operands: list) -> tuple | None:
    """The type of the operation's value from its operands' types; None when it does not follow."""
    if operation.kind == "copy":
        return operands[0]
    if operation.kind == "element":
        return (INT,) if operands[0] == (RANGE,) else None
    callee = operation.callee
    if operation.kind != "call" or callee is None or callee.kind != "static" or operation.kwargs or callee.packed:
        return None
    value = callee.value
    if any(t[0] == RANGE for t in operands):
        return None
    try:
        if value in _ELEMENTWISE_OPERATORS or isinstance(value, np.ufunc) and value not in _MATMUL:
            return _elementwise(operation, operands)
        if value in _MATMUL:
            return _matmul(operands)
        if value in _WHOLE_REDUCTIONS:
            # of an array or a float: a float64 (of an int, an int64: not typed)
            return (F64,) if len(operands) == 1 and operands[0][0] in (ARRAY, F64, FLOAT) else None
        if value is range:
            return (RANGE,) if 1 <= len(operands) <= 3 and all(t == (INT,) for t in operands) else None
        if value is len:
            return (INT,) if len(operands) == 1 and operands[0][0] == ARRAY else None
    except TypeError:  # an unhashable callee
        return None
    if math_function(value) and operands and all(t[0] in _NUMBERS for t in operands) \
            and value not in (math.floor, math.ceil, math.trunc, math.factorial, math.comb, math.perm, math.isqrt,
                              math.gcd, math.lcm, math.isnan, math.isinf, math.isfinite, math.isclose):
        return (FLOAT,)
    return None


def _constant_type(code: str) -> tuple | None:
    if not real_number(code):
        return None
    return (FLOAT,) if isinstance(ast.literal_eval(code.strip()), float) else (INT,)


def _joined(one, other):
    """The type of a variable assigned values of both types."""
    if one == other:
        return one
    if one is not None and other is not None and one[0] in _NUMBERS and other[0] in _NUMBERS:
        return (SCALAR,)
    return None


def variable_types(function: Function, signature: tuple) -> dict[str, tuple | None]:
    """Each assigned variable's type (None: not one type, or not known), by a fixpoint over every
    assignment, loops' and both paths' included: a type is kept only where every assignment
    gives it."""
    operations = operations_of(function.statements)
    types: dict[str, tuple | None] = dict(zip(function.params, signature))
    unknown = object()

    def operand(atom):
        if isinstance(atom, Var):
            return types.get(atom.name, unknown)
        return _constant_type(atom.code)

    changed = True
    while changed:
        changed = False
        for op in operations:
            if op.kind == "mutate" or not op.target:
                continue
            operands = [operand(a) for a in op.args]
            if any(t is unknown for t in operands):
                continue  # an operand not assigned yet in this pass (or a free name: stays unknown below)
            made = None if any(t is None for t in operands) else _result_type(op, operands)
            known = types.get(op.target, unknown)
            joined = made if known is unknown else _joined(known, made)
            if known is unknown or joined != known:
                types[op.target] = joined
                changed = True
    # names read but never assigned (globals, names the pipeline binds): no type
    for op in operations:
        for atom in op.args:
            if isinstance(atom, Var) and atom.name not in types:
                types[atom.name] = None
        if op.target and op.target not in types:
            types[op.target] = None
    return types


def typed_plan(function: Function, activity: Activity, signature: tuple) -> dict[str, tuple] | None:
    """The variables' types for a call with ``signature``, or None when some value the gradient
    flows through (an active operation's value or operand) has none, or the function changes a
    value in place."""
    if len(signature) != len(function.params):
        return None
    operations = operations_of(function.statements)
    if any(op.kind == "mutate" for op in operations):
        return None
    types = variable_types(function, signature)
    active = [op for op in operations if op.target in activity.active]
    if not active:
        return None
    result = function.result
    if not isinstance(result, Var) or (types.get(result.name) or ("",))[0] not in (F64, FLOAT, SCALAR):
        return None  # grad's seed is then the float 1.0: every cotangent has its value's type
    for op in active:
        if types.get(op.target) is None:
            return None
        for atom in op.args:
            if isinstance(atom, Var) and types.get(atom.name) is None:
                return None
            if not isinstance(atom, Var) and _constant_type(atom.code) is None:
                return None
    return {name: t for name, t in types.items() if t is not None}


def describe(params: list[str], signature: tuple) -> str:
    """``w: float64 array (n0, 1), y: float`` for the generated code's comments."""
    def shape(lengths):
        return "(" + ", ".join(str(n) for n in lengths) + ("," if len(lengths) == 1 else "") + ")"
    return ", ".join(f"{p}: float64 array {shape(kind[1])}" if kind[0] == ARRAY else f"{p}: {kind[0]}"
                     for p, kind in zip(params, signature)) or "no arguments"
