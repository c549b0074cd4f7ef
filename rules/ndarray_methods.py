"""Methods and properties of arrays and numpy scalars: ``x.sum(axis=0)``, ``x.T``, ...

Where a method takes the same parameters as a NumPy function (after the receiver), it
shares that function's rule: ``x.sum(axis=0)`` is differentiated as ``np.sum(x, axis=0)``.
Where it does not (``x.reshape(2, 3)``, ``x.transpose(1, 0)``, ``x.T``, ``x.astype(t)``,
``x.flatten()``, ``x.item()``, ``x.tolist()``), a small function below spells the method as a function,
with the method's own signature, and carries the rule. Every method is registered for
``np.ndarray`` and, where numpy scalars have it, for ``np.generic``.

Complex receivers: the rules are those of the functions (``z.conj()`` pulls ``g`` back to
``conj(g)``, ``z.real`` to ``g``, ``z.imag`` to ``1j * g``, ``z.prod()`` to ``g`` times the
conjugate product of the others: see ``numpy_elementwise`` and ``numpy_reductions``).
The properties ``real`` and ``imag`` need their entry here: without one, ``z.imag`` would
be read as a field of a structure.
"""
import numpy as np

from s2sad.registry.forward import defjvp_method
from s2sad.registry import defmethod, defvjp
from s2sad.runtime.tangents import NO_TANGENT, ZERO, is_zero, unthunk

from .helpers import inverse_axes, unbroadcast


def _shape_argument(shape):
    """``x.reshape(2, 3)`` and ``x.reshape((2, 3))`` name the same shape."""
    return shape[0] if len(shape) == 1 else shape


def ndarray_reshape(a, *shape, order="C"):
    return np.reshape(a, _shape_argument(shape), order=order)


def ndarray_transpose(a, *axes):
    return np.transpose(a, _shape_argument(axes) if axes else None)


def ndarray_T(a):
    return np.transpose(a)


def ndarray_mT(a):
    return np.swapaxes(a, -1, -2)


def ndarray_flatten(a, order="C"):
    return np.asarray(a).flatten(order)


def ndarray_copy(a, order="C"):
    return a.copy(order)


def ndarray_astype(a, dtype, order="K", casting="unsafe", subok=True, copy=True):
    return a.astype(dtype, order=order, casting=casting, subok=subok, copy=copy)


def ndarray_item(a, *args):
    return a.item(*args)


def ndarray_flat(a):
    """``x.flat``: NumPy's iterator over the elements in C order; read (``x.flat[i]``, ``for v in
    x.flat``) it gives what ``np.ravel(x)`` holds, so that is the value differentiated."""
    return np.ravel(a)


def ndarray_tolist(a):
    return a.tolist()


def ndarray_transpose_vjp(g, ans, a, axes):
    axes = _shape_argument(axes) if axes else None
    return np.transpose(g, inverse_axes(axes, np.ndim(a)))


def ndarray_item_vjp(g, ans, a, args):
    out = np.zeros(np.shape(a), dtype=a.dtype)
    if not args:
        out[...] = g
    elif len(args) == 1:
        out.flat[args[0]] = g
    else:
        out[args] = g
    return unbroadcast(out, a)


def _nested_cotangent(ct, shape, dtype):
    """The cotangent of nested lists (lists, Tangents of lists, ZERO) as an array of ``shape``."""
    ct = unthunk(ct)
    if is_zero(ct) or ct is NO_TANGENT:
        return np.zeros(shape, dtype=dtype)
    if not shape:
        return np.asarray(ct, dtype=np.result_type(ct, dtype))
    return np.stack([_nested_cotangent(ct[i], shape[1:], dtype) for i in range(shape[0])]) if shape[0] else \
        np.zeros(shape, dtype=dtype)


def ndarray_tolist_vjp(g, ans, a):
    return unbroadcast(_nested_cotangent(g, np.shape(a), np.result_type(a, np.float64)), a)


defvjp(ndarray_reshape,   "a, *shape, order='C'", "np.reshape(g, np.shape(a), order=order)")
defvjp(ndarray_transpose, "a, *axes", ndarray_transpose_vjp)
defvjp(ndarray_T,         "a", "np.transpose(g)")
defvjp(ndarray_mT,        "a", "mT(g)")
defvjp(ndarray_flatten,   "a, order='C'", "np.reshape(g, np.shape(a), order='F' if order == 'F' else 'C')")
defvjp(ndarray_copy,      "a, order='C'", "unbroadcast(g, a)")
defvjp(ndarray_astype,    "a, dtype, order='K', casting='unsafe', subok=True, copy=True", "unbroadcast(g, a)")
defvjp(ndarray_item,      "a, *args", ndarray_item_vjp)
defvjp(ndarray_flat,      "a", "np.reshape(g, np.shape(a))")
defvjp(ndarray_tolist,    "a", ndarray_tolist_vjp)

METHODS = {
    # method name: the function whose rule it uses (receiver first)
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
    "std": np.std, "var": np.var, "cumsum": np.cumsum, "cumprod": np.cumprod,
    "dot": np.dot, "clip": np.clip, "squeeze": np.squeeze, "swapaxes": np.swapaxes,
    "trace": np.trace, "diagonal": np.diagonal, "repeat": np.repeat, "ravel": np.ravel, "take": np.take,
    "conj": np.conjugate, "conjugate": np.conjugate, "real": np.real, "imag": np.imag,  # real, imag: properties
    "reshape": ndarray_reshape, "transpose": ndarray_transpose, "T": ndarray_T, "mT": ndarray_mT,
    "flatten": ndarray_flatten, "copy": ndarray_copy, "astype": ndarray_astype, "item": ndarray_item,
    "tolist": ndarray_tolist, "flat": ndarray_flat,  # flat: a property
}

for _name, _function in METHODS.items():
    defmethod(np.ndarray, _name, _function)
    if hasattr(np.generic, _name):
        defmethod(np.generic, _name, _function)

# Python's numbers have the same parts: (s * 1j).imag, z.conjugate() of a Python complex
# (a field read of a structural tangent before, which crashed the pullback)
for _owner in (complex, float):
    for _name in ("real", "imag", "conjugate"):
        defmethod(_owner, _name, METHODS[_name])


# ---- forward rules
#
# The methods spelt as functions above are linear in the receiver: each pushes the receiver's
# tangent through the same operation, with its elements in the order the method reads the
# receiver's (``order='A'`` and ``'K'`` follow the receiver's memory layout, not the
# tangent's); it copies where the method copies and is cast as ``astype`` casts (an int
# target has no tangent). Templates over NumPy functions with rules, so forward code can be
# differentiated again, except ``flatten``, ``astype`` and ``item``, whose jvps a line cannot
# say. The methods of METHODS that share a NumPy function's rule (``x.sum()``) share its
# forward rule too, registered by the module of that function.


def ndarray_flatten_jvp(g, ans, a, order):
    if order in ("A", "a"):
        order = "F" if a.flags.fnc else "C"  # a's layout, not g's
    if order not in ("K", "k"):
        return np.asarray(g).flatten(order)
    positions = np.empty_like(a, dtype=np.intp)  # a's layout ('K'), holding the C-order position of each element
    positions[...] = np.arange(positions.size).reshape(positions.shape)
    return np.asarray(g).reshape(-1)[positions.flatten(order)]


def ndarray_astype_jvp(g, ans, a, dtype, order, casting, subok, copy):
    target = np.result_type(ans)
    if target.kind not in "fc" or g is ZERO:
        return ZERO
    if target.kind != "c" and np.iscomplexobj(g):
        g = np.real(g)  # astype keeps the real part
    if type(g) is not np.ndarray:
        return target.type(g)
    return g.astype(target, order, "unsafe", True, copy)  # positionally: keywords would read as differentiated (hvp)


def ndarray_item_jvp(g, ans, a, args):
    return ZERO if g is ZERO else np.asarray(g).item(*args)


def ndarray_tolist_jvp(g, ans, a):
    return ZERO if g is ZERO else np.asarray(g).tolist()


defjvp_method(np.ndarray, "reshape",   "np.reshape(g, np.shape(ans), order=order if order != 'A' else 'F' if a.flags.fnc else 'C')")
defjvp_method(np.ndarray, "transpose", "np.transpose(g, axes[0] if len(axes) == 1 else axes or None)")
defjvp_method(np.ndarray, "T",         "np.transpose(g)")
defjvp_method(np.ndarray, "mT",        "np.swapaxes(g, -1, -2)")
defjvp_method(np.ndarray, "flatten",   ndarray_flatten_jvp)
defjvp_method(np.ndarray, "copy",      "np.copy(g, order=order) if type(g) is np.ndarray else g")  # scalars are immutable
defjvp_method(np.ndarray, "astype",    ndarray_astype_jvp)
defjvp_method(np.ndarray, "item",      ndarray_item_jvp)
defjvp_method(np.ndarray, "tolist",    ndarray_tolist_jvp)
defjvp_method(np.ndarray, "flat",      "np.ravel(g)")
