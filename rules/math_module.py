"""Rules for the ``math`` module, on Python floats (and ``cmath.log``, the complex logarithm
the forward rule of a power of a negative or complex base takes).

Written with ``math`` (not ``np``) so scalar code stays in Python floats: a cotangent of a
float is a float. Slopes that are infinite at a point of the domain go through
``safe_divide`` (a zero cotangent stays 0, see ``numpy_elementwise``).

``math.prod(items, start=1)`` multiplies its items with ``*`` (numbers, or arrays, which
broadcast): each item's cotangent is ``g`` times the conjugate product of ``start`` and the
other items, from running products from the left and from the right, so a zero item gives
the exact slope (nothing is divided by an item). Over an array its items are the rows along
the first axis, as Python walks it (``np.prod(x, axis=0)``'s rule). An iterator is refused, as
``sum``'s is: it is spent when the pullback runs.
"""
import cmath
import math

import numpy as np

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry.forward import defjvp
from s2sad.registry import defvjp, nondifferentiable
from s2sad.runtime.tangents import NO_TANGENT, is_zero, unthunk

from .builtins import sum_vjp_iterable
from .helpers import conj, unbroadcast
from .numpy_elementwise import power_jvp_exponent
from .numpy_reductions import prod_jvp, prod_vjp
from .numpy_shapes import as_tangent_of
from .polygamma import digamma, trigamma

_E = "2.718281828459045"  # math.e, spelt out: signatures are parsed without imports
_DICT_VALUES = type({}.values())


def fsum_vjp(g, ans, seq):
    """``sum``'s: the exactly rounded sum has the slope 1 in each item."""
    return sum_vjp_iterable(g, ans, seq, 0.0)


def walked_items(iterable):
    """The items ``math.prod`` multiplied, read again by its pullback: refused for an iterator."""
    if not isinstance(iterable, (list, tuple, _DICT_VALUES)):
        raise UnsupportedArgumentsError("math.prod() is differentiated over a list, a tuple, a dict's values or an "
                                        "array, not an iterator", hint="build a list first: math.prod([...])")
    return list(iterable)


def products_of_the_others(items):
    """For each item, the product of the other items: running products from the left and from
    the right, multiplied (nothing is divided by an item, which may be 0)."""
    left, right = [1], [1]
    for item in items[:-1]:
        left.append(left[-1] * item)
    for item in items[:0:-1]:
        right.append(right[-1] * item)
    return [before * after for before, after in zip(left, right[::-1])]


def math_prod_vjp_iterable(g, ans, iterable, start):
    g = unthunk(g)
    if isinstance(iterable, np.ndarray) and iterable.ndim > 0:
        if len(iterable) == 0 or iterable.dtype.kind not in "fc":
            return NO_TANGENT if iterable.dtype.kind not in "fc" else np.zeros_like(iterable)
        row_cotangent = unbroadcast(g * conj(start), iterable[0])
        return prod_vjp(row_cotangent, ans, iterable, 0, None, None, False, None, True)
    items = walked_items(iterable)
    others = products_of_the_others(items)
    cotangents = [unbroadcast(g * conj(other * start), item) for other, item in zip(others, items)]
    return tuple(cotangents) if isinstance(iterable, tuple) else cotangents


def _product_of_the_items(iterable):
    return math.prod(iterable if isinstance(iterable, np.ndarray) else walked_items(iterable))


def math_prod_vjp_start(g, ans, iterable, start):
    return unbroadcast(g * conj(_product_of_the_items(iterable)), start)


def math_prod_jvp_start(g, ans, iterable, start):
    return as_tangent_of(g * _product_of_the_items(iterable), ans)


def math_prod_jvp_iterable(g, ans, iterable, start):
    """The sum of each item's tangent times the product of ``start`` and the others."""
    if isinstance(iterable, np.ndarray) and iterable.ndim > 0:
        if len(iterable) == 0:
            return as_tangent_of(np.zeros(np.shape(ans)), ans)
        return as_tangent_of(prod_jvp(g, ans, iterable, 0, None, None, False, None, True) * start, ans)
    items = walked_items(iterable)
    others = products_of_the_others(items)
    moved = [tangent * other for tangent, other in zip(g, others) if not (tangent is None or is_zero(tangent))]
    return as_tangent_of(sum(moved) * start if moved else np.zeros(np.shape(ans)), ans)



def lgamma_vjp(g, ans, x):
    return g * digamma(x)


def lgamma_jvp(g, ans, x):
    return as_tangent_of(g * digamma(x), ans)


def gamma_vjp(g, ans, x):
    return g * ans * digamma(x)


def gamma_jvp(g, ans, x):
    return as_tangent_of(g * ans * digamma(x), ans)


def digamma_vjp(g, ans, x):
    return g * trigamma(x)


def digamma_jvp(g, ans, x):
    return g * trigamma(x)


def _dist_cotangent(g, ans, p, q):
    """``g (p - q) / dist``, shaped as ``p`` is (a list, a tuple, an array); 0 at ``p == q``,
    where np.linalg.norm and math.hypot give 0 too (the subgradient at the cone's tip)."""
    g = unthunk(g)
    if isinstance(p, np.ndarray):
        return unbroadcast(g * np.asarray(p - q) / ans if ans != 0.0 else np.zeros_like(p), p)
    cotangents = [unbroadcast(g * (a - b) / ans if ans != 0.0 else 0.0, a) for a, b in zip(p, q)]
    return tuple(cotangents) if isinstance(p, tuple) else cotangents


def dist_vjp_p(g, ans, p, q):
    return _dist_cotangent(g, ans, p, q)


def dist_vjp_q(g, ans, p, q):
    return _dist_cotangent(-g, ans, p, q)


def _dist_tangent(g, ans, p, q):
    """The tangents of ``p`` along ``(p - q) / dist``: 0 at ``p == q``, as the reverse rule's."""
    if ans == 0.0:
        return 0.0
    moved = [tangent * (a - b) for tangent, a, b in zip(g, p, q) if not (tangent is None or is_zero(tangent))]
    return float(sum(moved)) / ans


def dist_jvp_p(g, ans, p, q):
    return _dist_tangent(g, ans, p, q)


def dist_jvp_q(g, ans, p, q):
    return _dist_tangent(g, ans, q, p)


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
defvjp(math.expm1, "x", "g * math.exp(x)")  # not ans + 1: it is 0 for x below -37
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
defvjp(math.lgamma, "x", lgamma_vjp)
defvjp(math.gamma, "x", gamma_vjp)
defvjp(digamma,    "x", digamma_vjp)
defvjp(math.dist,  "p, q", dist_vjp_p, dist_vjp_q)
defvjp(math.prod,  "iterable, /, *, start=1", math_prod_vjp_iterable, math_prod_vjp_start)
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
defjvp(math.expm1, "g * math.exp(x)")
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
defjvp(math.fsum,  "sum(g)")
defjvp(math.lgamma, lgamma_jvp)
defjvp(math.gamma, gamma_jvp)
defjvp(digamma,    digamma_jvp)
defjvp(math.dist,  dist_jvp_p, dist_jvp_q)  # the sum of the tangents (sum's forward rule)
defjvp(math.prod,  math_prod_jvp_iterable, math_prod_jvp_start)
if hasattr(math, "cbrt"):  # Python >= 3.11
    defjvp(math.cbrt, "safe_divide(g, 3 * ans * ans)")
    defjvp(math.exp2, "g * ans * math.log(2)")
