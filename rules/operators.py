"""Rules for Python's operators, as the transformer spells them (``a + b`` is ``operator.add``).

They accept anything NumPy's broadcasting accepts: Python floats and ints, numpy scalars,
0-d arrays and arrays. Each cotangent is summed back to its operand's shape and cast to
its dtype by ``unbroadcast``, which returns at once for two Python floats, so scalar code
pays one call per operand. An int or bool operand gets ``NO_TANGENT``.

Complex operands follow the convention of ``numpy_fft``: ``a * b`` pulls ``g`` back to
``g * conj(b)``, ``a / b`` to ``g / conj(b)`` and ``-g * conj(a / b**2)``, ``a @ b`` to
``g @ b^H`` and ``a^H @ g``, ``a ** b`` to ``g * conj(b * a**(b - 1))`` and
``g * conj(a**b * log(a))``. The conjugate is taken with the helper ``conj``, which returns
a real array or a float itself, so real code pays no copy, and goes through
``np.conjugate`` for anything else (complex values, lists, Dask arrays, lazily). A real operand of a complex operation gets the real part of its cotangent, in
its own dtype (``unbroadcast`` takes it).

``a[i]`` on an array scatters the cotangent into zeros of ``a``'s shape (repeated fancy
indices accumulate); on a tuple or list it returns a tuple or list holding ``ZERO``
everywhere but at the index. The index gets a cotangent only when it holds the arrays:
``np.r_[x, y]`` and ``np.c_[x, y]`` (see ``index_tricks``). ``xs + ys`` where one side is
written as a list or tuple is ``operator.concat`` (the normaliser tells it from a sum): each
side gets its own items of the cotangent. Other operators on sequences (``[0.0] * n``, two
list variables added) are refused where their cotangent would be split.
"""
import operator

from s2sad.registry.forward import defjvp
from s2sad.registry import defvjp, nondifferentiable

from s2sad.runtime.structure import split_cotangent
from s2sad.runtime.tangents import ZERO

from .index_tricks import getitem_jvp_index, getitem_vjp_index
from .numpy_elementwise import power_jvp_exponent

def concat_vjp_a(g, ans, a, b):
    return _items(g, len(ans), a, 0, len(a))


def concat_vjp_b(g, ans, a, b):
    return _items(g, len(ans), b, len(a), len(ans))


def _items(g, count, like, start, stop):
    return _joined(split_cotangent(g, count)[start:stop], like)


def concat_jvp_a(g, ans, a, b):
    zeros = [ZERO for _ in b]  # each side written as list(...): a join s2sad differentiates again
    return _joined(list(split_cotangent(g, len(a))) + list(zeros), ans)


def concat_jvp_b(g, ans, a, b):
    zeros = [ZERO for _ in a]
    return _joined(list(zeros) + list(split_cotangent(g, len(b))), ans)


def _joined(items, like):
    return list(items) if isinstance(like, list) else tuple(items)


defvjp(operator.concat, "a, b", concat_vjp_a, concat_vjp_b)
defjvp(operator.concat, concat_jvp_a, concat_jvp_b)

# ------------------------------------------------------------------ arithmetic
defvjp(operator.add,     "a, b", "unbroadcast(g, a)",     "unbroadcast(g, b)")
defvjp(operator.sub,     "a, b", "unbroadcast(g, a)",     "unbroadcast(-g, b)")
defvjp(operator.mul,     "a, b", "unbroadcast(g * conj(b), a)", "unbroadcast(g * conj(a), b)")
defvjp(operator.truediv, "a, b", "unbroadcast(g / conj(b), a)", "unbroadcast(-g * conj(ans / b), b)")
defvjp(operator.pow,     "a, b", "power_vjp_base(g, a, b)", "power_vjp_exponent(g, ans, a, b)")
defvjp(operator.mod,     "a, b", "unbroadcast(g, a)",     "unbroadcast(-g * np.floor_divide(a, b), b)")
defvjp(operator.matmul,  "a, b", "matmul_vjp_x1(g, a, b)", "matmul_vjp_x2(g, a, b)", lazy=True)
defvjp(operator.neg,     "a",    "-g")
defvjp(operator.pos,     "a",    "g")

# ------------------------------------------------------------------ indexing
defvjp(operator.getitem, "a, index", "untake(g, index, a)", getitem_vjp_index, thunks=True)  # index: np.r_[x, y]

# ------------------------------------------------------------------ no gradient
nondifferentiable(
    operator.floordiv,
    operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge,
    operator.not_, operator.truth, operator.is_, operator.is_not, operator.contains,
    operator.and_, operator.or_, operator.xor, operator.invert, operator.lshift, operator.rshift,
    operator.index,
)


# ---- forward rules
#
# No conjugates (a holomorphic operator pushes ``g`` to ``f'(z) * g``). Terms that are ``g``
# itself are bare, so ``a + b`` pushes forward to ``da + db`` and a broadcast operand's
# tangent is broadcast up by ``fit``; every template is arithmetic on the tangent (a ZERO
# tangent stays ZERO) in operators that have rules, so forward code can be differentiated
# again. ``a ** b`` as in ``numpy_elementwise`` (its base's template, its exponent's callable,
# keeping Python's semantics for Python numbers); ``a[index]`` is linear in ``a``: ``g[index]``,
# for an array's tangent as for a list's, a tuple's or a structure's (absent fields: ZERO).

defjvp(operator.add,     "g", "g", elementwise=True)
defjvp(operator.sub,     "g", "-g", elementwise=True)
defjvp(operator.mul,     "g * b", "a * g", elementwise=True)
defjvp(operator.truediv, "g / b", "-g * ans / b", elementwise=True)
defjvp(operator.pow,     "power_jvp_base(g, a, b)", power_jvp_exponent, elementwise=True)
defjvp(operator.mod,     "g", "-g * (a // b)", elementwise=True)
defjvp(operator.matmul,  "g @ b", "a @ g")
defjvp(operator.neg,     "-g")
defjvp(operator.pos,     "+g")
defjvp(operator.getitem, "g[index]", getitem_jvp_index)
