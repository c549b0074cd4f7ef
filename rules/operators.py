"""Rules for Python's operators, as the transformer spells them (``a + b`` is ``operator.add``).

They accept anything NumPy's broadcasting accepts: Python floats and ints, numpy scalars,
0-d arrays and arrays. Each cotangent is summed back to its operand's shape and cast to
its dtype by ``unbroadcast``, which returns at once for two Python floats, so scalar code
pays one call per operand. An int or bool operand gets ``NO_TANGENT``.

``a[i]`` on an array scatters the cotangent into zeros of ``a``'s shape (repeated fancy
indices accumulate); on a tuple or list it returns a tuple or list holding ``ZERO``
everywhere but at the index. Operators on sequences as containers (``[0.0] * n``,
``xs + ys``) are not differentiated here.
"""
import operator

from s2sad.registry import defvjp, nondifferentiable

# ------------------------------------------------------------------ arithmetic
defvjp(operator.add,     "a, b", "unbroadcast(g, a)",     "unbroadcast(g, b)")
defvjp(operator.sub,     "a, b", "unbroadcast(g, a)",     "unbroadcast(-g, b)")
defvjp(operator.mul,     "a, b", "unbroadcast(g * b, a)", "unbroadcast(g * a, b)")
defvjp(operator.truediv, "a, b", "unbroadcast(g / b, a)", "unbroadcast(-g * ans / b, b)")
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
