"""Rules for the functions that take a float apart or put it together: ``np.copysign``,
``np.ldexp``, ``np.frexp`` and ``np.modf`` (array-API and C99 names NumPy has).

* ``copysign(x1, x2) = |x1|`` with ``x2``'s sign: the slope in ``x1`` is ``sign(x1)`` times
  ``x2``'s sign (0 at ``x1 = 0``, ``abs``'s convention); in ``x2`` it is 0, but at 0 where it
  jumps (``math.copysign``'s rule, which says the same).
* ``ldexp(x1, x2) = x1 * 2 ** x2`` with an integer ``x2``: the cotangent is ``ldexp(g, x2)``,
  exact (a power of two) and in ``g``'s dtype.
* ``frexp(x) = (m, e)`` with ``x = m * 2 ** e``: ``m`` moves as ``x * 2 ** -e`` (``e`` is a step
  function, an integer), so ``x``'s cotangent is ``ldexp(g_m, -e)``.
* ``modf(x) = (x - trunc(x), trunc(x))``: the fraction has slope 1, the whole part 0.

Away from the points where they jump (powers of two for ``frexp``, integers for ``modf``), these
are the derivatives of the functions NumPy computes.
"""
import numpy as np

from s2sad.registry import defvjp
from s2sad.registry.forward import defjvp
from s2sad.runtime.tangents import ZERO

from .helpers import output_parts, unbroadcast
from .numpy_shapes import as_tangent_of


def frexp_vjp(g, ans, x):
    g_mantissa = output_parts(g, 2)[0]
    return ZERO if g_mantissa is ZERO else unbroadcast(np.ldexp(g_mantissa, -ans[1]), x)


def frexp_jvp(g, ans, x):
    mantissa, exponent = ans
    return as_tangent_of(np.ldexp(g, -exponent), mantissa), ZERO


def modf_vjp(g, ans, x):
    g_fraction = output_parts(g, 2)[0]
    return ZERO if g_fraction is ZERO else unbroadcast(g_fraction, x)


def modf_jvp(g, ans, x):
    fraction, whole = ans
    return as_tangent_of(g, fraction), as_tangent_of(np.zeros(np.shape(whole)), whole)


defvjp(np.copysign, "x1, x2", "unbroadcast(g * (np.sign(x1) * np.copysign(1.0, x2)), x1)", None)
defvjp(np.ldexp,    "x1, x2", "unbroadcast(np.ldexp(g, x2), x1)", None)
defvjp(np.frexp,    "x", frexp_vjp)
defvjp(np.modf,     "x", modf_vjp)

# ---- forward rules
defjvp(np.copysign, "g * (np.sign(x1) * np.copysign(1.0, x2))", None, elementwise=True)
defjvp(np.ldexp,    "np.ldexp(g, x2)", None, elementwise=True)
defjvp(np.frexp,    frexp_jvp)
defjvp(np.modf,     modf_jvp)
