"""Rules for the ``math`` module, on Python floats (and ``cmath.log``, the complex logarithm
the forward rule of a power of a negative or complex base takes).

Written with ``math`` (not ``np``) so scalar code stays in Python floats: a cotangent of a
float is a float. Slopes that are infinite at a point of the domain go through
``safe_divide`` (a zero cotangent stays 0, see ``numpy_elementwise``).
"""
import cmath
import math

from s2sad.registry.forward import defjvp
from s2sad.registry import defvjp, nondifferentiable

from .builtins import sum_vjp_iterable
from .numpy_elementwise import power_jvp_exponent

_E = "2.718281828459045"  # math.e, spelt out: signatures are parsed without imports


def fsum_vjp(g, ans, seq):
    """``sum``'s: the exactly rounded sum has the slope 1 in each item."""
    return sum_vjp_iterable(g, ans, seq, 0.0)



defvjp(math.sin,   "x", "g * math.cos(x)")
defvjp(math.cos,   "x", "-g * math.sin(x)")
defvjp(math.tan,   "x", "g * (1 + ans * ans)")
defvjp(math.asin,  "x", "safe_divide(g, math.sqrt(1 - x * x))")
defvjp(math.acos,  "x", "safe_divide(-g, math.sqrt(1 - x * x))")
defvjp(math.atan,  "x", "g / (1 + x * x)")
defvjp(math.atan2, "y, x", "g * x / (x * x + y * y)", "-g * y / (x * x + y * y)")
defvjp(math.sinh,  "x", "g * math.cosh(x)")
defvjp(math.cosh,  "x", "g * math.sinh(x)")
defvjp(math.tanh,  "x", "g * (1 - ans * ans)")
defvjp(math.asinh, "x", "g / math.sqrt(x * x + 1)")
defvjp(math.acosh, "x", "safe_divide(g, math.sqrt(x * x - 1))")
defvjp(math.atanh, "x", "safe_divide(g, 1 - x * x)")
defvjp(math.exp,   "x", "g * ans")
defvjp(math.expm1, "x", "g * (ans + 1)")
defvjp(math.log,   f"x, base={_E}", "safe_divide(g, x * math.log(base))",
                                   "safe_divide(-g * ans, base * math.log(base))")
defvjp(cmath.log,  f"x, base={_E}", "unbroadcast(safe_divide(g, np.conjugate(x * np.log(base))), x)",
                                   "unbroadcast(-safe_divide(g * np.conjugate(ans), np.conjugate(base * np.log(base))), base)")
defvjp(math.log2,  "x", "safe_divide(g, x * math.log(2))")
defvjp(math.log10, "x", "safe_divide(g, x * math.log(10))")
defvjp(math.log1p, "x", "safe_divide(g, x + 1)")
defvjp(math.sqrt,  "x", "safe_divide(g * 0.5, ans)")
defvjp(math.pow,   "x, y", "power_vjp_base(g, x, y)", "power_vjp_exponent(g, ans, x, y)")
defvjp(math.fabs,  "x", "g * ((x > 0) - (x < 0))")  # slope 0 at 0
defvjp(math.hypot, "x, y", "safe_divide(g * x, ans)", "safe_divide(g * y, ans)")  # two coordinates
defvjp(math.degrees, "x", "g * (180 / math.pi)")
defvjp(math.radians, "x", "g * (math.pi / 180)")
defvjp(math.erf,   "x", "g * (2 / math.sqrt(math.pi)) * math.exp(-x * x)")
defvjp(math.erfc,  "x", "-g * (2 / math.sqrt(math.pi)) * math.exp(-x * x)")
defvjp(math.copysign, "x, y", "g * math.copysign(1.0, x) * math.copysign(1.0, y)", None)
defvjp(math.fmod,  "x, y", "g", "-g * math.trunc(x / y)")
defvjp(math.ldexp, "x, i", "g * math.ldexp(1.0, i)", None)
defvjp(math.fsum,  "seq", fsum_vjp)
if hasattr(math, "cbrt"):  # Python >= 3.11
    defvjp(math.cbrt, "x", "safe_divide(g, 3 * ans * ans)")
    defvjp(math.exp2, "x", "g * ans * math.log(2)")

nondifferentiable(
    math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite, math.isclose,
    math.factorial, math.comb, math.perm, math.gcd, math.isqrt,
)


# ---- forward rules
#
# The slope times the tangent, in ``math``, so a Python float's tangent is a Python float (a
# numpy scalar argument's tangent stays a numpy scalar), and in functions with rules, so
# forward code can be differentiated again. ``pow``: a base's slope ``y * x ** (y - 1)`` is
# finite for ``y >= 1``; below, it divides by ``x ** (1 - y)`` (``x ** 0`` is flat, ``x ** 0.5``
# at 0 infinite or, for a zero tangent, 0); an exponent's tangent is the callable shared with
# ``numpy_elementwise`` (0 at a zero base, NaN for a negative one).
defjvp(math.sin,   "g * math.cos(x)")
defjvp(math.cos,   "-g * math.sin(x)")
defjvp(math.tan,   "g * (1 + ans * ans)")
defjvp(math.asin,  "safe_divide(g, math.sqrt(1 - x * x))")
defjvp(math.acos,  "safe_divide(-g, math.sqrt(1 - x * x))")
defjvp(math.atan,  "g / (1 + x * x)")
defjvp(math.atan2, "g * x / (x * x + y * y)", "-g * y / (x * x + y * y)")
defjvp(math.sinh,  "g * math.cosh(x)")
defjvp(math.cosh,  "g * math.sinh(x)")
defjvp(math.tanh,  "g * (1 - ans * ans)")
defjvp(math.asinh, "g / math.sqrt(x * x + 1)")
defjvp(math.acosh, "safe_divide(g, math.sqrt(x * x - 1))")
defjvp(math.atanh, "safe_divide(g, 1 - x * x)")
defjvp(math.exp,   "g * ans")
defjvp(math.expm1, "g * (ans + 1)")
defjvp(math.log,   "safe_divide(g, x * math.log(base))", "safe_divide(-g * ans, base * math.log(base))")
defjvp(cmath.log,  "safe_divide(g, x * np.log(base))", "-safe_divide(g * ans, base * np.log(base))")
defjvp(math.log2,  "safe_divide(g, x * math.log(2))")
defjvp(math.log10, "safe_divide(g, x * math.log(10))")
defjvp(math.log1p, "safe_divide(g, x + 1)")
defjvp(math.sqrt,  "safe_divide(g * 0.5, ans)")
defjvp(math.pow,   "g * y * math.pow(x, y - 1) if y >= 1 else safe_divide(g * y, math.pow(x, 1 - y))",
                   power_jvp_exponent)
defjvp(math.fabs,  "g * (1.0 if x > 0 else -1.0 if x < 0 else 0.0)")  # slope 0 at 0
defjvp(math.hypot, "safe_divide(g * x, ans)", "safe_divide(g * y, ans)")
defjvp(math.degrees, "g * (180 / math.pi)")
defjvp(math.radians, "g * (math.pi / 180)")
defjvp(math.erf,   "g * (2 / math.sqrt(math.pi)) * math.exp(-x * x)")
defjvp(math.erfc,  "-g * (2 / math.sqrt(math.pi)) * math.exp(-x * x)")
defjvp(math.copysign, "g * math.copysign(1.0, x) * math.copysign(1.0, y)", None)  # flat in y (but at 0)
defjvp(math.fmod,  "g", "-g * ((x - ans) / y)")  # fmod(x, y) = x - trunc(x / y) * y
defjvp(math.ldexp, "g * math.ldexp(1.0, i)", None)
defjvp(math.fsum,  "sum(g)")  # the sum of the tangents (sum's forward rule)
if hasattr(math, "cbrt"):  # Python >= 3.11
    defjvp(math.cbrt, "safe_divide(g, 3 * ans * ans)")
    defjvp(math.exp2, "g * ans * math.log(2)")
