"""Rules for Python's operators, as the transformer spells them (``a + b`` is ``operator.add``).

They accept anything NumPy's broadcasting accepts: Python floats and ints, numpy scalars,
0-d arrays and arrays. Each cotangent is summed back to its operand's shape and cast to
its dtype by ``unbroadcast``, which returns at once for two Python floats, so scalar code
pays one call per operand. An int or bool operand gets ``NO_TANGENT``.

Complex operands follow the convention of ``numpy_fft``: ``a * b`` pulls ``g`` back to
``g * conj(b)``, ``a / b`` to ``g / conj(b)`` and ``-g * conj(a / b**2)``, ``a @ b`` to
``g @ b^H`` and ``a^H @ g``, ``a ** b`` to ``g * conj(b * a**(b - 1))`` and
``g * conj(a**b * log(a))``. The conjugate is taken with ``.conjugate()``, which Python
numbers, numpy scalars and arrays all have and which returns a real array itself, so real
code pays no copy (it does need an array, not a list, as the other operand of ``*``
and ``/``). A real operand of a complex operation gets the real part of its cotangent, in
its own dtype (``unbroadcast`` takes it).

``a[i]`` on an array scatters the cotangent into zeros of ``a``'s shape (repeated fancy
indices accumulate); on a tuple or list it returns a tuple or list holding ``ZERO``
everywhere but at the index. Operators on sequences as containers (``[0.0] * n``,
``xs + ys``) are not differentiated here.
"""
import operator

import numpy as np

from s2sad.forward_rules import defjvp
from s2sad.registry import defvjp, nondifferentiable
from s2sad.tangents import ZERO, Tangent, unthunk

from .numpy_elementwise import power_jvp_base, power_jvp_exponent

# ------------------------------------------------------------------ arithmetic
defvjp(operator.add,     "a, b", "unbroadcast(g, a)",     "unbroadcast(g, b)")
defvjp(operator.sub,     "a, b", "unbroadcast(g, a)",     "unbroadcast(-g, b)")
defvjp(operator.mul,     "a, b", "unbroadcast(g * b.conjugate(), a)", "unbroadcast(g * a.conjugate(), b)")
defvjp(operator.truediv, "a, b", "unbroadcast(g / b.conjugate(), a)", "unbroadcast(-g * (ans / b).conjugate(), b)")
defvjp(operator.pow,     "a, b", "power_vjp_base(g, a, b)", "power_vjp_exponent(g, ans, a, b)")
defvjp(operator.mod,     "a, b", "unbroadcast(g, a)",     "unbroadcast(-g * np.floor_divide(a, b), b)")
defvjp(operator.matmul,  "a, b", "matmul_vjp_x1(g, a, b)", "matmul_vjp_x2(g, a, b)", lazy=True)
defvjp(operator.neg,     "a",    "-g")
defvjp(operator.pos,     "a",    "g")

# ------------------------------------------------------------------ indexing
defvjp(operator.getitem, "a, index", "untake(g, index, a)", None, thunks=True)

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
# No conjugates (a holomorphic operator pushes ``g`` to ``f'(z) * g``). ``G_OUT`` is ``g`` as
# a term of the output's tangent: as it is for Python floats (the fast path), else cast to
# the output's dtype and broadcast to its shape (the tangent of a Python float added to a
# float32 array, of a real array added to a complex one). ``a[index]`` is linear in ``a``:
# the tangent is ``g[index]``, also for the tangent of a list or tuple; a dict's or a
# structure's tangent is read by key (absent keys are ZERO).

G_OUT = "g if type(ans) is float else fit(np.asarray(g, ans.dtype), ans) if hasattr(ans, 'dtype') else complex(g)"


def getitem_jvp(g, ans, a, index):
    if type(g) is np.ndarray or type(g) is list or type(g) is tuple:
        return g[index]
    g = unthunk(g)
    if isinstance(g, dict):
        return g.get(index, ZERO)
    if isinstance(g, Tangent) and isinstance(index, slice):  # a tuple's tangent kept by position
        return type(a)(g[i] for i in range(len(a))[index])
    return g[index]


defjvp(operator.add,     G_OUT, G_OUT, elementwise=True)
defjvp(operator.sub,     G_OUT, f"-({G_OUT})", elementwise=True)
defjvp(operator.mul,     "g * b", "a * g", elementwise=True)
defjvp(operator.truediv, "g / b", "-g * ans / b", elementwise=True)
defjvp(operator.pow,     power_jvp_base, power_jvp_exponent, elementwise=True)
defjvp(operator.mod,     G_OUT, "-g * (a // b)", elementwise=True)
defjvp(operator.matmul,  "g @ b", "a @ g")
defjvp(operator.neg,     "-g")
defjvp(operator.pos,     "+g")
defjvp(operator.getitem, getitem_jvp, None)
