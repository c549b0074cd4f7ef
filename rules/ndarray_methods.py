"""Methods and properties of arrays and numpy scalars: ``x.sum(axis=0)``, ``x.T``, ...

Where a method takes the same parameters as a NumPy function (after the receiver), it
shares that function's rule: ``x.sum(axis=0)`` is differentiated as ``np.sum(x, axis=0)``.
Where it does not (``x.reshape(2, 3)``, ``x.transpose(1, 0)``, ``x.T``, ``x.astype(t)``,
``x.flatten()``, ``x.item()``), a small function below spells the method as a function,
with the method's own signature, and carries the rule. Every method is registered for
``np.ndarray`` and, where numpy scalars have it, for ``np.generic``.

Complex receivers: the rules are those of the functions (``z.conj()`` pulls ``g`` back to
``conj(g)``, ``z.real`` to ``g``, ``z.imag`` to ``1j * g``, ``z.prod()`` to ``g`` times the
conjugate product of the others: see ``numpy_elementwise`` and ``numpy_reductions``).
The properties ``real`` and ``imag`` need their entry here: without one, ``z.imag`` would
be read as a field of a structure.
"""
import numpy as np

from s2sad.registry import defmethod, defvjp

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


defvjp(ndarray_reshape,   "a, *shape, order='C'", "np.reshape(g, np.shape(a), order=order)")
defvjp(ndarray_transpose, "a, *axes", ndarray_transpose_vjp)
defvjp(ndarray_T,         "a", "np.transpose(g)")
defvjp(ndarray_mT,        "a", "mT(g)")
defvjp(ndarray_flatten,   "a, order='C'", "np.reshape(g, np.shape(a), order='F' if order == 'F' else 'C')")
defvjp(ndarray_copy,      "a, order='C'", "unbroadcast(g, a)")
defvjp(ndarray_astype,    "a, dtype, order='K', casting='unsafe', subok=True, copy=True", "unbroadcast(g, a)")
defvjp(ndarray_item,      "a, *args", ndarray_item_vjp)

METHODS = {
    # method name: the function whose rule it uses (receiver first)
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
    "std": np.std, "var": np.var, "cumsum": np.cumsum, "cumprod": np.cumprod,
    "dot": np.dot, "clip": np.clip, "squeeze": np.squeeze, "swapaxes": np.swapaxes,
    "trace": np.trace, "diagonal": np.diagonal, "repeat": np.repeat, "ravel": np.ravel,
    "conj": np.conjugate, "conjugate": np.conjugate, "real": np.real, "imag": np.imag,  # real, imag: properties
    "reshape": ndarray_reshape, "transpose": ndarray_transpose, "T": ndarray_T, "mT": ndarray_mT,
    "flatten": ndarray_flatten, "copy": ndarray_copy, "astype": ndarray_astype, "item": ndarray_item,
}

for _name, _function in METHODS.items():
    defmethod(np.ndarray, _name, _function)
    if hasattr(np.generic, _name):
        defmethod(np.generic, _name, _function)
