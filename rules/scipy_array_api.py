"""Rules for SciPy's array-API plumbing (registered once the user imports a SciPy module using it).

Pure-Python SciPy functions without a rule of their own (``scipy.optimize.rosen``,
``rosen_hess_prod``) are differentiated from their source, and most begin the same way:
``xp = array_namespace(x)`` picks the module of array functions to call (``xp.sum``, called
through that module when the code runs), and ``x = xp_promote(x, force_floating=True, xp=xp)``
converts the arguments to arrays of one floating dtype.

* ``array_namespace`` and the type predicates behind it (``is_jax_array``, ...) only look at
  their arguments' types, as do ``xp_result_type``, ``xp_default_dtype``, ``xp_device``,
  ``xp_size`` and ``_contains_nan`` (a flag, or the error ``nan_policy='raise'`` asks for):
  no gradient, and their source (written for every array library) is never read.
* ``xp_promote(*args, broadcast=, force_floating=)`` casts (and, with ``broadcast=True``,
  broadcasts) each argument: each cotangent is the output's, summed back over broadcast
  axes and cast to the argument's dtype; each tangent is the argument's, broadcast and cast
  as the argument is. A list argument (``rosen([X, Y])``) is an array of its items: its
  cotangent a list of the rows'. In forward mode only the first argument may carry a
  tangent (the generated code cannot pass tangents into ``*args``).
"""
import numpy as np
from scipy._lib import _array_api, _util

from s2sad.registry import defrrule, nondifferentiable
from s2sad.registry.forward import defjvp
from s2sad.runtime.structure import split_cotangent, tangent_filled
from s2sad.runtime.tangents import NO_TANGENT, ZERO, is_zero, unthunk

from .helpers import unbroadcast

# ------------------------------------------------------------------ type inspection: no gradient
nondifferentiable(
    _array_api.array_namespace, _array_api.is_array_api_obj, _array_api.is_array_api_strict,
    _array_api.is_complex, _array_api.is_cupy, _array_api.is_cupy_array, _array_api.is_dask,
    _array_api.is_dask_array, _array_api.is_jax, _array_api.is_jax_array, _array_api.is_lazy_array,
    _array_api.is_marray, _array_api.is_numpy, _array_api.is_numpy_array, _array_api.is_torch,
    _array_api.is_torch_array, _array_api.xp_result_type, _array_api.xp_default_dtype, _array_api.xp_device,
    _array_api.xp_device_type, _array_api.xp_result_device, _array_api.xp_size, _util._contains_nan,
)


# ------------------------------------------------------------------ xp_promote
def _promoted_cotangent(g, argument):
    g = unthunk(g)
    if is_zero(g) or argument is None:
        return ZERO if argument is not None else NO_TANGENT
    if isinstance(argument, (list, tuple)):
        rows = np.asarray(g)
        items = [_promoted_cotangent(rows[i], item) for i, item in enumerate(argument)]
        return items if isinstance(argument, list) else tuple(items)
    return unbroadcast(g, argument)


def xp_promote_rrule(x, *rest, broadcast=False, force_floating=False, xp=None):
    arguments = (x, *rest)
    y = _array_api.xp_promote(*arguments, broadcast=broadcast, force_floating=force_floating, xp=xp)

    def xp_promote_pullback(g):
        parts = (g,) if len(arguments) == 1 else split_cotangent(g, len(arguments))
        return (NO_TANGENT, *(_promoted_cotangent(part, argument) for part, argument in zip(parts, arguments)))

    return y, xp_promote_pullback


def xp_promote_jvp_x(g, ans, x, rest, broadcast, force_floating, xp):
    g = unthunk(g)
    promoted = ans if not rest else ans[0]
    tangent = np.asarray(tangent_filled(g, x))
    if promoted.dtype.kind != "c" and np.iscomplexobj(tangent):
        tangent = tangent.real
    tangent = np.broadcast_to(tangent, promoted.shape).astype(promoted.dtype)
    return tangent if not rest else (tangent,) + (ZERO,) * len(rest)


defrrule(_array_api.xp_promote, xp_promote_rrule, signature="x, *rest, broadcast=False, force_floating=False, xp=None")
defjvp(_array_api.xp_promote, xp_promote_jvp_x, None, None, None, None)
