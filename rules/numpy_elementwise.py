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

Complex numbers (the convention is stated in ``numpy_fft``): the cotangent of a complex
input is ``g * conj(f'(z))`` for a holomorphic ``f``, so rules conjugate their slope.
``ndarray.conjugate()`` of a real array is the array itself, so real inputs pay nothing;
bare parameters, which may be Python numbers or lists, go through ``np.conjugate``.
``abs`` of a complex ``z`` has cotangent ``g * z / |z|`` (0 at 0), ``angle`` has
``1j * g * z / |z|**2`` (0 at 0), ``imag`` has ``1j * g``; a real input of ``angle`` or
``imag`` gets ``ZERO``.
"""

import math

import numpy as np

from s2sad.registry import defvjp
from s2sad.tangents import NO_TANGENT, ZERO

from .helpers import safe_divide, unbroadcast

# ------------------------------------------------------------------ unary
defvjp(np.negative,   "x", "-g")
defvjp(np.positive,   "x", "g")
defvjp(np.sin,        "x", "g * np.cos(x).conjugate()")
defvjp(np.cos,        "x", "-g * np.sin(x).conjugate()")
defvjp(np.tan,        "x", "g * (1 + ans ** 2).conjugate()")
defvjp(np.arcsin,     "x", "safe_divide(g, np.sqrt(1 - x ** 2).conjugate())")
defvjp(np.arccos,     "x", "safe_divide(-g, np.sqrt(1 - x ** 2).conjugate())")
defvjp(np.arctan,     "x", "g / (1 + x ** 2).conjugate()")
defvjp(np.sinh,       "x", "g * np.cosh(x).conjugate()")
defvjp(np.cosh,       "x", "g * np.sinh(x).conjugate()")
defvjp(np.tanh,       "x", "g * (1 - ans ** 2).conjugate()")
defvjp(np.arcsinh,    "x", "g / np.sqrt(x ** 2 + 1).conjugate()")
defvjp(np.arccosh,    "x", "safe_divide(g, (np.sqrt(x - 1) * np.sqrt(x + 1)).conjugate())")  # not sqrt(x**2 - 1): its branch is wrong for Re(x) < 0
defvjp(np.arctanh,    "x", "safe_divide(g, (1 - x ** 2).conjugate())")
defvjp(np.exp,        "x", "g * ans.conjugate()")
defvjp(np.exp2,       "x", "g * ans.conjugate() * math.log(2)")
defvjp(np.expm1,      "x", "g * (ans + 1).conjugate()")
defvjp(np.log,        "x", "safe_divide(g, np.conjugate(x))")
defvjp(np.log2,       "x", "safe_divide(g, np.conjugate(x) * math.log(2))")
defvjp(np.log10,      "x", "safe_divide(g, np.conjugate(x) * math.log(10))")
defvjp(np.log1p,      "x", "safe_divide(g, (x + 1).conjugate())")
defvjp(np.sqrt,       "x", "safe_divide(g * 0.5, ans.conjugate())")
defvjp(np.cbrt,       "x", "safe_divide(g, 3 * ans ** 2)")  # real only
defvjp(np.square,     "x", "g * 2 * np.conjugate(x)")
defvjp(np.reciprocal, "x", "-g * (ans ** 2).conjugate()")
defvjp(np.absolute,   "x", "g * np.sign(x)")  # np.abs is np.absolute; slope 0 at 0; sign(z) = z / |z| for complex z
defvjp(np.fabs,       "x", "g * np.sign(x)")
defvjp(np.deg2rad,    "x", "g * (math.pi / 180)")
defvjp(np.rad2deg,    "x", "g * (180 / math.pi)")
defvjp(np.radians,    "x", "g * (math.pi / 180)")
defvjp(np.degrees,    "x", "g * (180 / math.pi)")
defvjp(np.sinc,       "x", "g * safe_divide(np.cos(math.pi * x) - ans, x).conjugate()")
defvjp(np.nan_to_num, "x, copy=True, nan=0.0, posinf=None, neginf=None", "np.where(np.isfinite(x), g, 0)")

# ------------------------------------------------------------------ complex parts


def imag_vjp(g, ans, val):
    """``Im(z)`` moves with ``Im(v)``: the cotangent is ``1j * g``; a real input's imaginary part is constant 0."""
    if not np.iscomplexobj(val):
        return ZERO
    return unbroadcast(1j * g, val)


def angle_vjp(g, ans, z, deg):
    """``d angle = Im(dz / z)``: the cotangent is ``1j * g * z / |z|**2``, 0 at 0; a real input's angle is flat."""
    if not np.iscomplexobj(z):
        return ZERO
    slope = safe_divide(1j * np.multiply(g, z), np.square(np.abs(z)))
    return unbroadcast(slope * (180 / math.pi) if deg else slope, z)


defvjp(np.conjugate,    "x", "np.conjugate(g)")  # also np.conj
defvjp(np.real,         "val", "unbroadcast(np.real(g), val)")
defvjp(np.imag,         "val", imag_vjp)
defvjp(np.angle,        "z, deg=False", angle_vjp)
defvjp(np.real_if_close, "a, tol=100", "unbroadcast(g, a)")  # a real g stands for a.real, whose cotangent is g

# ------------------------------------------------------------------ binary
defvjp(np.add,        "x1, x2", "unbroadcast(g, x1)",     "unbroadcast(g, x2)")
defvjp(np.subtract,   "x1, x2", "unbroadcast(g, x1)",     "unbroadcast(-g, x2)")
defvjp(np.multiply,   "x1, x2", "unbroadcast(g * np.conjugate(x2), x1)", "unbroadcast(g * np.conjugate(x1), x2)")
defvjp(np.divide,     "x1, x2", "unbroadcast(g / np.conjugate(x2), x1)",
                                "unbroadcast(-g * (ans / x2).conjugate(), x2)")  # also true_divide
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
