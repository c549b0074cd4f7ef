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
The helper ``conj`` returns a real array or a float itself, so real inputs pay nothing;
anything else (complex values, lists, Dask arrays) goes through ``np.conjugate``.
``abs`` of a complex ``z`` has cotangent ``g * z / |z|`` (0 at 0), ``angle`` has
``1j * g * z / |z|**2`` (0 at 0), ``imag`` has ``1j * g``; a real input of ``angle`` or
``imag`` gets ``ZERO``.
"""

import cmath
import math

import numpy as np

from s2sad.registry.forward import defjvp
from s2sad.registry import defvjp
from s2sad.registry.slopes import like_output
from s2sad.runtime.tangents import NO_TANGENT, ZERO

from .helpers import output_parts, safe_divide, unbroadcast
from .numpy_shapes import as_tangent_of

# sinc's slope (cos(pi x) - sinc(x)) / x cancels near 0 (a third off at x = 1e-8): below |x| = 0.03
# its Taylor series, -pi^2 x/3 + pi^4 x^3/30 - pi^6 x^5/840 + pi^8 x^7/45360, good to 1e-14 there.
# Masks, not np.where: Numba's np.where of floats is a 0-d array (compile=True would fall back), and
# the series is taken of x masked to 0 beyond, where x ** 7 would overflow to inf * 0 = nan.
_NEAR = "(x * (np.abs(x) < 0.03))"
_SINC_SLOPE = (f"{_NEAR} * ({-math.pi ** 2 / 3!r} + {_NEAR} ** 2 * ({math.pi ** 4 / 30!r} + {_NEAR} ** 2 * "
               f"({-math.pi ** 6 / 840!r} + {_NEAR} ** 2 * {math.pi ** 8 / 45360!r}))) "
               f"+ safe_divide(np.cos(math.pi * x) - ans, x) * (np.abs(x) >= 0.03)")


# ``divmod(a, b)`` is ``(a // b, a % b)``: the quotient is a step function (no slope), the
# remainder ``a - b * (a // b)`` moves with ``a`` and by ``-(a // b)`` with ``b``, as ``%``'s rule.
def divmod_vjp_x1(g, ans, x1, x2):
    g_remainder = output_parts(g, 2)[1]
    return ZERO if g_remainder is ZERO else unbroadcast(g_remainder, x1)


def divmod_vjp_x2(g, ans, x1, x2):
    g_remainder = output_parts(g, 2)[1]
    return ZERO if g_remainder is ZERO else unbroadcast(-g_remainder * ans[0], x2)


def _divmod_tangent(remainder_tangent, ans):
    quotient, remainder = ans
    step = np.zeros(np.shape(quotient))
    return as_tangent_of(step, quotient), as_tangent_of(np.broadcast_to(remainder_tangent, np.shape(remainder)), remainder)


def divmod_jvp_x1(g, ans, x1, x2):
    return _divmod_tangent(g, ans)


def divmod_jvp_x2(g, ans, x1, x2):
    return _divmod_tangent(-g * ans[0], ans)


# ------------------------------------------------------------------ np.nan_to_num's replacements
def replaced_cotangent(test, g, x):
    """The cotangent of a value np.nan_to_num puts where ``test`` holds: the real and imaginary
    parts are replaced apart, each by the value (the adjoint of ``nan_to_num_jvp_nan`` and kin)."""
    x = np.asarray(x)
    return np.where(test(x.real), np.real(g), 0) + np.where(test(x.imag), np.imag(g), 0)


def nan_to_num_vjp_x(g, ans, x, copy, nan, posinf, neginf):
    """``g`` where ``x`` is finite; of a complex ``x``, part by part (complex(1, nan) keeps its 1)."""
    x = np.asarray(x)
    if not np.iscomplexobj(x):
        return np.where(np.isfinite(x), g, 0)
    return np.where(np.isfinite(x.real), np.real(g), 0) + 1j * np.where(np.isfinite(x.imag), np.imag(g), 0)


def nan_to_num_vjp_nan(g, ans, x, copy, nan, posinf, neginf):
    return unbroadcast(replaced_cotangent(np.isnan, g, x), nan)


def nan_to_num_vjp_posinf(g, ans, x, copy, nan, posinf, neginf):
    return unbroadcast(replaced_cotangent(np.isposinf, g, x), posinf)


def nan_to_num_vjp_neginf(g, ans, x, copy, nan, posinf, neginf):
    return unbroadcast(replaced_cotangent(np.isneginf, g, x), neginf)


# ------------------------------------------------------------------ unary
defvjp(np.negative,   "x", "-g")
defvjp(np.positive,   "x", "g")
defvjp(np.sin,        "x", "g * conj(np.cos(x))")
defvjp(np.cos,        "x", "-g * conj(np.sin(x))")
defvjp(np.tan,        "x", "g * conj(1 + ans ** 2)")
defvjp(np.arcsin,     "x", "safe_divide(g, conj(np.sqrt(1 - x ** 2)))")
defvjp(np.arccos,     "x", "safe_divide(-g, conj(np.sqrt(1 - x ** 2)))")
defvjp(np.arctan,     "x", "g / conj(1 + x ** 2)")
defvjp(np.sinh,       "x", "g * conj(np.cosh(x))")
defvjp(np.cosh,       "x", "g * conj(np.sinh(x))")
defvjp(np.tanh,       "x", "g * conj(1 - ans ** 2)")
defvjp(np.arcsinh,    "x", "g / conj(np.sqrt(x ** 2 + 1))")
defvjp(np.arccosh,    "x", "safe_divide(g, conj(np.sqrt(x - 1) * np.sqrt(x + 1)))")  # not sqrt(x**2 - 1): its branch is wrong for Re(x) < 0
defvjp(np.arctanh,    "x", "safe_divide(g, conj(1 - x ** 2))")
defvjp(np.exp,        "x", "g * conj(ans)")
defvjp(np.exp2,       "x", "g * conj(ans) * math.log(2)")
defvjp(np.expm1,      "x", "g * conj(np.exp(x))")  # not ans + 1: it is 0 for x below -37
defvjp(np.log,        "x", "safe_divide(g, np.conjugate(x))")
defvjp(np.log2,       "x", "safe_divide(g, np.conjugate(x) * math.log(2))")
defvjp(np.log10,      "x", "safe_divide(g, np.conjugate(x) * math.log(10))")
defvjp(np.log1p,      "x", "safe_divide(g, conj(x + 1))")
defvjp(np.sqrt,       "x", "safe_divide(g * 0.5, conj(ans))")
defvjp(np.cbrt,       "x", "safe_divide(g, 3 * ans ** 2)")  # real only
defvjp(np.square,     "x, /, out=None, *, dtype=None", "unbroadcast(g * 2 * np.conjugate(x), x)")  # dtype: the jvps of erf & co; a real x squared in a complex dtype gets a real cotangent
defvjp(np.reciprocal, "x", "-g * conj(ans ** 2)")
defvjp(np.absolute,   "x", "g * np.sign(x)")  # np.abs is np.absolute; slope 0 at 0; sign(z) = z / |z| for complex z
defvjp(np.fabs,       "x", "g * np.sign(x)")
defvjp(np.deg2rad,    "x", "g * (math.pi / 180)")
defvjp(np.rad2deg,    "x", "g * (180 / math.pi)")
defvjp(np.radians,    "x", "g * (math.pi / 180)")
defvjp(np.degrees,    "x", "g * (180 / math.pi)")
defvjp(np.sinc,       "x", f"g * conj({_SINC_SLOPE})")
defvjp(np.nan_to_num, "x, copy=True, nan=0.0, posinf=None, neginf=None", nan_to_num_vjp_x, None,
       nan_to_num_vjp_nan, nan_to_num_vjp_posinf, nan_to_num_vjp_neginf)

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


def sign_vjp(g, ans, x):
    """Piecewise constant for real ``x``; for complex ``z`` NumPy gives ``z / |z|``, which moves:
    ``d sign = (dz - sign Re(conj(sign) dz)) / |z|``, a self-adjoint projection over ``|z|``."""
    if np.result_type(x).kind != "c":
        return ZERO if np.result_type(x).kind == "f" else NO_TANGENT
    return unbroadcast(safe_divide(g - ans * np.real(np.conjugate(ans) * g), np.abs(x)), x)


def sign_jvp(g, ans, x):
    if np.result_type(x).kind != "c":
        # zeros, not ZERO: forward code goes on computing with what a callable jvp returns
        return like_output(np.zeros(np.shape(ans)), ans)
    return safe_divide(g - ans * np.real(np.conjugate(ans) * g), np.abs(x))


defvjp(np.sign,         "x", sign_vjp)
defvjp(np.conjugate,    "x", "np.conjugate(g)")  # also np.conj
defvjp(np.real,         "val", "unbroadcast(np.real(g), val)")
defvjp(np.imag,         "val", imag_vjp)
defvjp(np.angle,        "z, deg=False", angle_vjp)
defvjp(np.real_if_close, "a, tol=100", "unbroadcast(g, a)")  # a real g stands for a.real, whose cotangent is g

# ------------------------------------------------------------------ binary
defvjp(np.add,        "x1, x2", "unbroadcast(g, x1)",     "unbroadcast(g, x2)")
defvjp(np.subtract,   "x1, x2", "unbroadcast(g, x1)",     "unbroadcast(-g, x2)")
defvjp(np.multiply,   "x1, x2, /, out=None, *, dtype=None", "unbroadcast(g * np.conjugate(x2), x1)", "unbroadcast(g * np.conjugate(x1), x2)")
defvjp(np.divide,     "x1, x2", "unbroadcast(g / np.conjugate(x2), x1)",
                                "unbroadcast(-g * conj(ans / x2), x2)")  # also true_divide
defvjp(np.power,      "x1, x2", "power_vjp_base(g, x1, x2)", "power_vjp_exponent(g, ans, x1, x2)")  # also pow
defvjp(np.float_power, "x1, x2", "power_vjp_base(g, x1, x2)", "power_vjp_exponent(g, ans, x1, x2)")
defvjp(np.remainder,  "x1, x2", "unbroadcast(g, x1)",     "unbroadcast(-g * np.floor_divide(x1, x2), x2)")  # also mod
defvjp(np.fmod,       "x1, x2", "unbroadcast(g, x1)",     "unbroadcast(-g * np.trunc(x1 / x2), x2)")
defvjp(np.divmod,     "x1, x2", divmod_vjp_x1, divmod_vjp_x2)  # (floor_divide, remainder): the quotient is a step
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
# heaviside(x1, x2) is 0, x2 or 1 as x1 is below, at or above 0: x2 is the value where x1 is 0, so its slope
# is 1 there; in x1 a step (0 but at 0, sign's convention)
defvjp(np.heaviside, "x1, x2", None, "unbroadcast(np.where(x1 == 0, g, 0.0), x2)")


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


# the bounds by position (a_min, a_max) or by NumPy 2's keywords (min=, max=): the same cotangent
defvjp(np.clip, "a, a_min=None, a_max=None, out=None, *, min=None, max=None",
       clip_vjp_a, clip_vjp_min, clip_vjp_max, None, clip_vjp_min, clip_vjp_max)

# ------------------------------------------------------------------ scalar types used as casts
defvjp(np.float64, "x=0.0", "unbroadcast(g, x)")
defvjp(np.float32, "x=0.0", "unbroadcast(g, x)")
defvjp(np.float16, "x=0.0", "unbroadcast(g, x)")


# ---- forward rules
#
# Each jvp pushes the tangent ``g`` of one operand forward to a term of the output's tangent.
# No conjugates: a holomorphic ``f`` pushes ``g`` to ``f'(z) * g``; ``abs`` of a complex
# ``z`` pushes it to ``Re(conj(z) g) / |z|``, ``angle`` to ``Im(g / z)`` (0 for a real input).
#
# Generated forward code inlines the templates and may itself be differentiated again
# (Hessians, higher derivatives), so the jvps are templates over functions that have rules
# wherever a template can say it, and arithmetic where that is enough, which also keeps a
# symbolic ZERO tangent ZERO. A term that is ``g`` itself is left bare: it has its operand's
# shape, and ``fit`` (which generated code and ``pushforward`` apply to elementwise rules)
# broadcasts it up to the output's. Selections use ``np.where`` with zeros like the output,
# so a NaN or infinite tangent of the untaken branch does not leak. Slopes that are infinite
# at a point divide through ``safe_divide``: a zero tangent there stays 0 (one-hot tangents
# of ``jacfwd`` at ``sqrt(0)``). ``x1 ** x2``: a constant exponent of at least 1 (``x ** 2``)
# has a finite slope everywhere; any other exponent divides by ``x1 ** (1 - x2)``, so ``x ** 0``
# is flat and ``x ** 0.5`` at 0 is infinite, or 0 for a zero tangent.
#
# Callables (their forward code cannot be differentiated again) are left for the exponent
# of a power (a variable exponent), nan_to_num and clip, whose jvps a line cannot say.


def power_jvp_exponent(g, ans, x1, x2):
    """``g * x1 ** x2 * log(x1)``, 0 where ``x1`` is 0 (``0 ** y`` is flat in ``y``), with the
    complex logarithm of a negative base where the power is complex (Python's ``(-2.0) ** 0.5``,
    NumPy's ``(-2.0) ** 0.5j``); NaN where a real power of a negative base is real only at integers."""
    if g is ZERO:
        return ZERO
    if type(ans) is float or type(ans) is complex:  # Python's ** and pow() on numbers
        if x1 == 0:
            return 0j if type(ans) is complex else 0.0
        if type(x1) is not complex and x1 > 0:
            return g * ans * math.log(x1)
        return g * ans * cmath.log(x1) if type(ans) is complex else math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        base = np.where(np.equal(x1, 0), np.ones_like(x1), x1)
        if base.dtype.kind != "c" and np.iscomplexobj(ans):
            base = base.astype(np.result_type(ans))
        term = g * ans * np.log(base)
    return like_output(term, ans)


def _parts_where(test, x, g, ans, of_x):
    """``g`` where ``test`` holds for ``x``, 0 elsewhere; for a complex ``x``, part by part
    (the real and imaginary parts of ``g`` if it is ``x``'s own tangent, else ``g`` for both)."""
    if g is ZERO:
        return ZERO
    if not np.iscomplexobj(x):
        return np.where(test(x), g, np.zeros_like(ans))
    x = np.asarray(x)
    real, imag = (np.real(g), np.imag(g)) if of_x else (g, g)
    return like_output(np.where(test(x.real), real, 0) + 1j * np.where(test(x.imag), imag, 0), ans)


def nan_to_num_jvp_x(g, ans, x, copy, nan, posinf, neginf):
    """``g`` where ``x`` is finite; a replaced value's tangent is that of its replacement."""
    return _parts_where(np.isfinite, x, g, ans, True)


def nan_to_num_jvp_nan(g, ans, x, copy, nan, posinf, neginf):
    return _parts_where(np.isnan, x, g, ans, False)


def nan_to_num_jvp_posinf(g, ans, x, copy, nan, posinf, neginf):
    return _parts_where(np.isposinf, x, g, ans, False)


def nan_to_num_jvp_neginf(g, ans, x, copy, nan, posinf, neginf):
    return _parts_where(np.isneginf, x, g, ans, False)


def clip_jvp_a(g, ans, a, a_min, a_max, out, min, max):
    """``g`` where ``a_min <= a <= a_max`` (as the reverse rule: the bounds included)."""
    if g is ZERO:
        return ZERO
    lo = min if a_min is None else a_min  # not _clip_bounds: its tuple would be differentiated again
    hi = max if a_max is None else a_max
    inside = True
    if lo is not None:
        inside = np.greater_equal(a, lo)
    if hi is not None:
        inside = inside & np.less_equal(a, hi)
    return np.where(inside, g, np.zeros_like(ans))


def clip_jvp_min(g, ans, a, a_min, a_max, out, min, max):
    """The lower bound's tangent where ``a`` is below it (and it is not above the upper bound)."""
    if g is ZERO:
        return ZERO
    lo = min if a_min is None else a_min
    hi = max if a_max is None else a_max
    below = np.less(a, lo)
    if hi is not None:
        below = below & np.less_equal(lo, hi)
    return np.where(below, g, np.zeros_like(ans))


def clip_jvp_max(g, ans, a, a_min, a_max, out, min, max):
    """The upper bound's tangent where ``a`` is above it, or everywhere it is below the lower bound."""
    if g is ZERO:
        return ZERO
    lo = min if a_min is None else a_min
    hi = max if a_max is None else a_max
    above = np.greater(a, hi)
    if lo is not None:
        above = above | np.less(hi, lo)
    return np.where(above, g, np.zeros_like(ans))


# ------------------------------------------------------------------ unary (forward)
defjvp(np.negative,   "-g")
defjvp(np.positive,   "+g")
defjvp(np.sin,        "g * np.cos(x)")
defjvp(np.cos,        "g * -np.sin(x)")
defjvp(np.tan,        "g * (1 + ans ** 2)")
defjvp(np.arcsin,     "safe_divide(g, np.sqrt(1 - x ** 2))")
defjvp(np.arccos,     "safe_divide(-g, np.sqrt(1 - x ** 2))")
defjvp(np.arctan,     "g / (1 + x ** 2)")
defjvp(np.sinh,       "g * np.cosh(x)")
defjvp(np.cosh,       "g * np.sinh(x)")
defjvp(np.tanh,       "g * (1 - ans ** 2)")
defjvp(np.arcsinh,    "g / np.sqrt(x ** 2 + 1)")
defjvp(np.arccosh,    "safe_divide(g, np.sqrt(x - 1) * np.sqrt(x + 1))")
defjvp(np.arctanh,    "safe_divide(g, 1 - x ** 2)")
defjvp(np.exp,        "g * ans")
defjvp(np.exp2,       "g * ans * math.log(2)")
defjvp(np.expm1,      "g * np.exp(x)")
defjvp(np.log,        "safe_divide(g, x)")
defjvp(np.log2,       "safe_divide(g, x * math.log(2))")
defjvp(np.log10,      "safe_divide(g, x * math.log(10))")
defjvp(np.log1p,      "safe_divide(g, x + 1)")
defjvp(np.sqrt,       "safe_divide(g * 0.5, ans)")
defjvp(np.cbrt,       "safe_divide(g, 3 * ans ** 2)")  # real only
defjvp(np.square,     "g * 2 * x if dtype is None else np.asarray(g * 2 * x, dtype=dtype)")  # in the dtype asked for
defjvp(np.reciprocal, "-g * ans ** 2")
defjvp(np.absolute,   "np.real(g * conj(np.sign(x)))")  # sign(z) = z / |z| (with a rule: hvp); slope 0 at 0
defjvp(np.sign,       sign_jvp)
defjvp(np.fabs,       "g * np.sign(x)")
defjvp(np.deg2rad,    "g * (math.pi / 180)")
defjvp(np.rad2deg,    "g * (180 / math.pi)")
defjvp(np.radians,    "g * (math.pi / 180)")
defjvp(np.degrees,    "g * (180 / math.pi)")
defjvp(np.sinc,       f"g * ({_SINC_SLOPE})")
defjvp(np.nan_to_num, nan_to_num_jvp_x, None, nan_to_num_jvp_nan, nan_to_num_jvp_posinf, nan_to_num_jvp_neginf)

# ------------------------------------------------------------------ complex parts (forward)
defjvp(np.conjugate,     "np.conjugate(g)")
defjvp(np.real,          "np.real(g)")
defjvp(np.imag,          "np.imag(g)")
defjvp(np.angle,         "safe_divide(np.imag(g * np.conjugate(z)), np.abs(z) ** 2) * (180 / math.pi if deg else 1)",
                         None)
defjvp(np.real_if_close, "g if np.iscomplexobj(ans) else np.real(g)", None)

# ------------------------------------------------------------------ binary (forward)
defjvp(np.add,         "g", "g", elementwise=True)
defjvp(np.subtract,    "g", "-g", elementwise=True)
defjvp(np.multiply,    "g * x2", "x1 * g", elementwise=True)
defjvp(np.divide,      "g / x2", "-g * ans / x2", elementwise=True)
defjvp(np.power,       "power_jvp_base(g, x1, x2)", power_jvp_exponent, elementwise=True)
defjvp(np.float_power, "power_jvp_base(g, x1, x2)", power_jvp_exponent, elementwise=True)
defjvp(np.remainder,   "g", "-g * np.floor_divide(x1, x2)", elementwise=True)
defjvp(np.fmod,        "g", "-g * np.trunc(x1 / x2)", elementwise=True)
defjvp(np.divmod,      divmod_jvp_x1, divmod_jvp_x2)
defjvp(np.arctan2,     "g * x2 / (x1 ** 2 + x2 ** 2)", "-g * x1 / (x1 ** 2 + x2 ** 2)", elementwise=True)
defjvp(np.hypot,       "safe_divide(g * x1, ans)", "safe_divide(g * x2, ans)", elementwise=True)
defjvp(np.logaddexp,   "g * np.exp(x1 - ans)", "g * np.exp(x2 - ans)", elementwise=True)
defjvp(np.logaddexp2,  "g * np.exp2(x1 - ans)", "g * np.exp2(x2 - ans)", elementwise=True)
for _selection in (np.maximum, np.minimum, np.fmax, np.fmin):  # the winner's tangent; a tie averages both
    defjvp(_selection, "np.where(x1 != ans, 0, np.where(x1 == x2, 0.5 * g, g))",
                       "np.where(x2 != ans, 0, np.where(x1 == x2, 0.5 * g, g))", elementwise=True)

# ------------------------------------------------------------------ selection (forward)
defjvp(np.where, None, "np.where(condition, g, np.zeros_like(ans))", "np.where(condition, np.zeros_like(ans), g)",
       elementwise=True)
defjvp(np.heaviside, None, "np.where(x1 == 0, g, np.zeros_like(ans))", elementwise=True)
defjvp(np.clip, clip_jvp_a, clip_jvp_min, clip_jvp_max, None, clip_jvp_min, clip_jvp_max, elementwise=True)

# ------------------------------------------------------------------ scalar types used as casts (forward)
defjvp(np.float64, "np.float64(g)")
defjvp(np.float32, "np.float32(g)")
defjvp(np.float16, "np.float16(g)")


# ------------------------------------------------------------------ unwrap
# np.unwrap(p) adds to each element a whole number of periods, fixed by the jumps between
# neighbours: piecewise constant in p (and in discont), so its derivative in p is the identity.
# The number of periods multiplies `period`: a differentiated period is refused.
_UNWRAP = "p, discont=None, axis=-1, *, period=6.283185307179586"


def unwrap_vjp(g, ans, p, discont, axis, period):
    return unbroadcast(g, p)


def unwrap_jvp(g, ans, p, discont, axis, period):
    return as_tangent_of(g, ans)


def _unwrap_period():
    from .numpy_reductions import refused_keyword  # (that module imports this one's neighbours)
    return refused_keyword("period", "np.unwrap", _UNWRAP)


defvjp(np.unwrap, _UNWRAP, unwrap_vjp, None, None, _unwrap_period())
defjvp(np.unwrap, unwrap_jvp, None, None, _unwrap_period())
