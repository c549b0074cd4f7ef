"""An array's reducing methods as the NumPy functions they are, in compiled code (compile=True).

``x.std(axis=0)`` is ``np.std(x, axis=0)``: the method has the function's rule
(rules/ndarray_methods.py), its parameters are the function's after the array, and the NumPy
path computes it so. Before the compiled code is generated, each such method call of the
function is made the call of the function, its value computed by the overload
compiled_helpers has for the function given more than an array (``reduce_std``: the same one
``np.std(x, axis=0)`` compiles to) and its cotangent by the rule's, as for the function.

Those overloads serve float64 arrays alone: ``v.std()`` of a Python float, which raises in
Python, finds no implementation, and the NumPy path answers (raising as Python does).
``x.sum()`` and ``x.mean(axis=1)`` keep the helpers of their own (``ARRAY_METHODS``, for_numba.py);
given more (``keepdims``), they are made the functions' calls too.
"""
from __future__ import annotations

import copy

import numpy as np

from ..frontend.ir import Callee, Function, Operation, operations_of

# method -> (the NumPy function whose rule it has, the overload computing its value on an array)
REDUCING_METHODS = {"sum": (np.sum, "reduce_sum"), "mean": (np.mean, "reduce_mean"), "prod": (np.prod, "reduce_prod"),
                    "max": (np.max, "reduce_max"), "min": (np.min, "reduce_min"), "var": (np.var, "reduce_var"),
                    "std": (np.std, "reduce_std")}
# the methods for_numba's ARRAY_METHODS serve given the array and at most an axis
OWN_HELPERS = frozenset({"sum", "mean"})


def methods_as_functions(function: Function) -> Function:
    """``function`` (the normalised IR; not changed) with its reducing methods' calls made
    calls of their NumPy functions (see above)."""
    if not any(_as_function(op) for op in operations_of(function.statements)):
        return function
    function = copy.deepcopy(function)
    for op in operations_of(function.statements):
        if _as_function(op):
            numpy_function, spelling = REDUCING_METHODS[op.callee.name]
            # called as the overload, its rule's functions named for the method (`std_vjp_a`, as np.std's are)
            op.callee = Callee("static", spelling, numpy_function, name=op.callee.name)
    return function


def _as_function(op: Operation) -> bool:
    callee = op.callee
    if op.kind != "call" or callee is None or callee.kind != "method" or callee.packed \
            or callee.name not in REDUCING_METHODS:
        return False
    return callee.name not in OWN_HELPERS or len(op.args) + len(op.kwargs) > 2 \
        or any(keyword != "axis" for keyword, _ in op.kwargs)
