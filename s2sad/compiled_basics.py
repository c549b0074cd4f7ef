"""What every module of compiled helpers (``compiled_helpers``, ``compiled_lists``,
``compiled_linear_algebra``) builds on: the exception a case not covered raises, the stubs
their overloads hang on, and the Numba types they serve.

Like them, it imports only NumPy's and Numba's modules: ``s2sad emit --compile`` copies it into
the file it writes, which runs without s2sad.
"""
from numba.core import types

__all__ = ["NotCompiledCase", "compiled_only", "real", "real_array", "absent", "array_list"]


class NotCompiledCase(Exception):
    """Raised by compiled code for a case it does not cover: the NumPy path computes this call."""


def compiled_only(name: str):
    """The Python function Numba's overloads of ``name`` hang on (Numba keys an overload on the
    function object); called outside compiled code it raises."""
    def helper(*args, **kwargs):
        raise NotCompiledCase(f"s2sad's compiled helper {name} runs only inside Numba-compiled code")
    helper.__name__ = helper.__qualname__ = name
    return helper


def real(t) -> bool:
    return isinstance(t, types.Float)


def real_array(t) -> bool:
    return isinstance(t, types.Array) and isinstance(t.dtype, types.Float) and t.ndim > 0


def absent(t) -> bool:
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


def array_list(t) -> bool:
    """A list of float64 or float32 arrays (Numba's list: one type for every item, so alike in rank
    and dtype); joining and cutting back copy elements, exact in either."""
    return isinstance(t, types.List) and real_array(t.dtype)
