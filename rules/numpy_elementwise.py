"""Rules for NumPy's elementwise functions (ufuncs and friends), one line each.

Unary rules need no ``unbroadcast``: the output has the input's shape. Binary rules sum
each cotangent back to its operand with ``unbroadcast``, which also casts it to the
operand's dtype, so float32 stays float32.

Singular slopes. Where a derivative is infinite at a point of the domain (``sqrt`` and
``log`` at 0, ``arcsin`` at +-1, ...) the rule divides through ``safe_divide``, which
returns exactly 0 where the cotangent is 0. So ``np.where(x > 0, np.sqrt(x), 0.0)`` at
``x = 0`` gives a zero gradient: ``where`` sends zeros to the untaken branch, and the
``sqrt`` rule turns that zero into 0, not ``0 / 0 = NaN``.

Ties. ``maximum``/``minimum``/``fmax``/``fmin`` split the cotangent equally between two
equal operands (half each), as the reductions ``max``/``min`` split it among all tied
elements. ``clip`` passes the cotangent to ``a`` where ``a_min <= a <= a_max``
(boundaries included) and to the bound where ``a`` is outside it.
"""

import numpy as np

from s2sad.registry import defvjp
from s2sad.tangents import NO_TANGENT

from .helpers import unbroadcast

# ------------------------------------------------------------------ unary
defvjp(np.negative,   "x", "-g")
defvjp(np.positive,   "x", "g")
defvjp(np.sin,        "x", "g * np.cos(x)")
defvjp(np.cos,        "x", "-g * np.sin(x)")
defvjp(np.tan,        "x", "g * (1 + ans ** 2)")
defvjp(np.arcsin,     "x", "safe_divide(g, np.sqrt(1 - x ** 2))")
defvjp(np.arccos,     "x", "safe_divide(-g, np.sqrt(1 - x ** 2))")
defvjp(np.arctan,     "x", "g / (1 + x ** 2)")
defvjp(np.sinh,       "x", "g * np.cosh(x)")
defvjp(np.cosh,       "x", "g * np.sinh(x)")
defvjp(np.tanh,       "x", "g * (1 - ans ** 2)")
defvjp(np.arcsinh,    "x", "g / np.sqrt(x ** 2 + 1)")
defvjp(np.arccosh,    "x", "safe_divide(g, np.sqrt(x ** 2 - 1))")
defvjp(np.arctanh,    "x", "safe_divide(g, 1 - x ** 2)")
defvjp(np.exp,        "x", "g * ans")
defvjp(np.exp2,       "x", "g * ans * math.log(2)")
defvjp(np.expm1,      "x", "g * (ans + 1)")
defvjp(np.log,        "x", "safe_divide(g, x)")
defvjp(np.log2,       "x", "safe_divide(g, x * math.log(2))")
defvjp(np.log10,      "x", "safe_divide(g, x * math.log(10))")
defvjp(np.log1p,      "x", "safe_divide(g, x + 1)")
defvjp(np.sqrt,       "x", "safe_divide(g * 0.5, ans)")
defvjp(np.cbrt,       "x", "safe_divide(g, 3 * ans ** 2)")
defvjp(np.square,     "x", "g * 2 * x")
defvjp(np.reciprocal, "x", "-g * ans ** 2")
defvjp(np.absolute,   "x", "g * np.sign(x)")  # np.abs is np.absolute; slope 0 at 0
defvjp(np.fabs,       "x", "g * np.sign(x)")
defvjp(np.deg2rad,    "x", "g * (math.pi / 180)")
defvjp(np.rad2deg,    "x", "g * (180 / math.pi)")
defvjp(np.radians,    "x", "g * (math.pi / 180)")
defvjp(np.degrees,    "x", "g * (180 / math.pi)")
defvjp(np.sinc,       "x", "g * safe_divide(np.cos(math.pi * x) - ans, x)")
defvjp(np.conjugate,  "x", "np.conjugate(g)")
defvjp(np.real,       "val", "unbroadcast(np.real(g), val)")
defvjp(np.nan_to_num, "x, copy=True, nan=0.0, posinf=None, neginf=None", "np.where(np.isfinite(x), g, 0)")

# ------------------------------------------------------------------ binary
defvjp(np.add,        "x1, x2", "unbroadcast(g, x1)",     "unbroadcast(g, x2)")
defvjp(np.subtract,   "x1, x2", "unbroadcast(g, x1)",     "unbroadcast(-g, x2)")
defvjp(np.multiply,   "x1, x2", "unbroadcast(g * x2, x1)", "unbroadcast(g * x1, x2)")
defvjp(np.divide,     "x1, x2", "unbroadcast(g / x2, x1)", "unbroadcast(-g * ans / x2, x2)")  # also true_divide
defvjp(np.power,      "x1, x2", "power_vjp_base(g, x1, x2)", "power_vjp_exponent(g, ans, x1, x2)")  # also pow
defvjp(np.float_power, "x1, x2", "power_vjp_base(g, x1, x2)", "power_vjp_exponent(g, ans, x1, x2)")
defvjp(np.remainder,  "x1, x2", "unbroadcast(g, x1)",     "unbroadcast(-g * np.floor_divide(x1, x2), x2)")  # also mod
defvjp(np.fmod,       "x1, x2", "unbroadcast(g, x1)",     "unbroadcast(-g * np.trunc(x1 / x2), x2)")
defvjp(np.arctan2,    "x1, x2", "unbroadcast(g * x2 / (x1 ** 2 + x2 ** 2), x1)",
                                "unbroadcast(-g * x1 / (x1 ** 2 + x2 ** 2), x2)")
defvjp(np.hypot,      "x1, x2", "unbroadcast(safe_divide(g * x1, ans), x1)",
                                "unbroadcast(safe_divide(g * x2, ans), x2)")
defvjp(np.logaddexp,  "x1, x2", "unbroadcast(g * np.exp(x1 - ans), x1)",
                                "unbroadcast(g * np.exp(x2 - ans), x2)")
defvjp(np.logaddexp2, "x1, x2", "unbroadcast(g * np.exp2(x1 - ans), x1)",
                                "unbroadcast(g * np.exp2(x2 - ans), x2)")
for _selection in (np.maximum, np.minimum, np.fmax, np.fmin):  # the winner takes g; a tie shares it
    defvjp(_selection, "x1, x2", "unbroadcast(tie_share(g, x1, x2, ans), x1)",
                                 "unbroadcast(tie_share(g, x2, x1, ans), x2)")

# ------------------------------------------------------------------ selection
defvjp(np.where, "condition, x=None, y=None",
       None, "unbroadcast(np.where(condition, g, 0), x)", "unbroadcast(np.where(condition, 0, g), y)")


def _clip_bounds(a_min, a_max, lo, hi):
    return (lo if a_min is None else a_min), (hi if a_max is None else a_max)


def clip_vjp_a(g, ans, a, a_min, a_max, out, min, max):
    lo, hi = _clip_bounds(a_min, a_max, min, max)
    inside = True
    if lo is not None:
        inside = np.greater_equal(a, lo)
    if hi is not None:
        inside = inside & np.less_equal(a, hi)
    return unbroadcast(np.where(inside, g, 0), a)


def clip_vjp_min(g, ans, a, a_min, a_max, out, min, max):
    lo, hi = _clip_bounds(a_min, a_max, min, max)
    if lo is None:
        return NO_TANGENT
    below = np.less(a, lo)
    if hi is not None:
        below = below & np.less_equal(lo, hi)  # numpy: a bound above a_max loses to a_max
    return unbroadcast(np.where(below, g, 0), lo)


def clip_vjp_max(g, ans, a, a_min, a_max, out, min, max):
    lo, hi = _clip_bounds(a_min, a_max, min, max)
    if hi is None:
        return NO_TANGENT
    above = np.greater(a, hi)
    if lo is not None:
        above = above | np.less(hi, lo)
    return unbroadcast(np.where(above, g, 0), hi)


defvjp(np.clip, "a, a_min=None, a_max=None, out=None, *, min=None, max=None",
       clip_vjp_a, clip_vjp_min, clip_vjp_max)

# ------------------------------------------------------------------ scalar types used as casts
defvjp(np.float64, "x=0.0", "unbroadcast(g, x)")
defvjp(np.float32, "x=0.0", "unbroadcast(g, x)")
defvjp(np.float16, "x=0.0", "unbroadcast(g, x)")
