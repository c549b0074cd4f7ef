"""Whether a function's value is ``np.sum`` of an elementwise expression of its arguments.

Such a function, called with large arrays of one shape, can be differentiated block by block
(``runtime/blocks.py``): every element of its gradient depends on the same elements of the
arguments alone, so the gradient of the whole is the gradients of the blocks side by side,
and its value the sum of theirs. Computing each block while it is in the cache, and keeping
only one block's intermediate values at a time, is faster and smaller than computing every
intermediate array whole.

Only what is provably elementwise counts: straight-line code (no loop, branch or ``with``),
each operation an arithmetic operator (not ``@``) or a NumPy ufunc with one output and no
keywords, on the arguments, earlier values and number literals; the last, returned, is
``np.sum(v)`` with nothing else. Anything else (a global array, an attribute, indexing, a
reduction on the way) and the function is not one.
"""
from __future__ import annotations

import operator

import numpy as np

from ..frontend.ir import Function, Statement, Var, operations_of
from .scalars import real_number

_ELEMENTWISE_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.neg,
                          operator.pos, operator.abs}


def _elementwise(value) -> bool:
    try:
        if value in _ELEMENTWISE_OPERATORS:
            return True
    except TypeError:  # an unhashable callee
        return False
    return isinstance(value, np.ufunc) and value.nout == 1 and value.signature is None  # not matmul


# What the one-pass loop of compile=True (compiled_elementwise.py) computes element by element as
# NumPy computes the arrays: IEEE's correctly rounded arithmetic and square root, exact changes of
# sign, and x ** 2 (NumPy's square, Numba's x * x). Others (NumPy's own SIMD exp, log, tanh, ...)
# can differ from the libm Numba calls by an ulp, which a cancellation makes larger.
_EXACT = {operator.add, operator.sub, operator.mul, operator.truediv, operator.neg, operator.pos, operator.abs,
          np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.positive, np.absolute, np.sqrt, np.square}
# ufuncs NumPy computes for float64 by calling libm on this machine, as Numba does: the loop checks
# each once per process (compiled_elementwise.same_as_numpy) before it computes with it
LIBM = {np.sin: "sin", np.cos: "cos"}


def libm_calls(function: Function) -> tuple[str, ...] | None:
    """For a function ``elementwise_sum`` accepts: the names of the libm functions (``LIBM``) it
    calls, when every other operation is one of ``_EXACT`` (or ``x ** 2``) and each reads a
    value (a parameter or an earlier result, which are floats); else None. (An operation on
    number literals alone, ``100000 * 100000 * 100000 * 100000``, is one of Python's ints, which
    Numba computes in 64 bits: wrapped.)"""
    calls = []
    for operation in operations_of(function.statements)[:-1]:
        if not any(isinstance(atom, Var) for atom in operation.args):
            return None
        value = operation.callee.value
        if value is operator.pow and len(operation.args) == 2 and not isinstance(operation.args[1], Var) \
                and operation.args[1].code == "2":
            continue
        if value in LIBM:
            calls.append(LIBM[value])
        elif value not in _EXACT:
            return None
    return tuple(sorted(set(calls)))


def elementwise_sum(function: Function) -> bool:
    """Whether ``function`` returns ``np.sum`` of an elementwise expression of its parameters."""
    if not all(isinstance(item, Statement) for item in function.statements) or not isinstance(function.result, Var):
        return False
    operations = operations_of(function.statements)
    if not operations or operations[-1].target != function.result.name:
        return False
    known = set(function.params)
    for position, operation in enumerate(operations):
        callee = operation.callee
        last = position == len(operations) - 1
        if operation.kind != "call" or callee is None or callee.kind != "static" or operation.kwargs:
            return False
        if last:
            if callee.value is not np.sum or len(operation.args) != 1 or not isinstance(operation.args[0], Var):
                return False
        elif not _elementwise(callee.value):
            return False
        for atom in operation.args:
            if isinstance(atom, Var) and atom.name not in known or not isinstance(atom, Var) and not real_number(atom.code):
                return False
        known.add(operation.target)
    return True
