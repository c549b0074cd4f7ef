"""The digamma and trigamma functions of a real float, for the rules of ``math.lgamma`` and
``math.gamma`` (SciPy, which has them, is optional).

``digamma(x)`` is ``lgamma``'s slope, ``trigamma(x)`` digamma's (what a Hessian of ``lgamma``
reads). Each moves ``x`` up by the recurrences ``digamma(x) = digamma(x + 1) - 1 / x`` and
``trigamma(x) = trigamma(x + 1) + 1 / x ** 2`` until ``x >= 12``, where their asymptotic
series are within a few units in the last place (the first left-out term is below 1e-15 of the value);
below 0, the reflection formulas (``digamma(1 - x) - digamma(x) = pi / tan(pi x)``,
``trigamma(1 - x) + trigamma(x) = pi ** 2 / sin(pi x) ** 2``) bring ``x`` above. At a pole
(0, -1, -2, ...) both are NaN, as ``lgamma``'s value there is infinite.
"""
import math

_LARGE = 12.0
# Bernoulli numbers B_2k / 2k (digamma) and B_2k (trigamma), k = 1..6
_DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760)
_TRIGAMMA_SERIES = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730)


def _at_a_pole(x: float) -> bool:
    return x <= 0 and x == math.floor(x)


def digamma(x) -> float:
    """d lgamma(x) / dx for a real ``x``."""
    x = float(x)
    if math.isnan(x) or _at_a_pole(x):
        return math.nan
    if x < 0:
        return digamma(1 - x) - math.pi / math.tan(math.pi * x)
    shift = 0.0
    while x < _LARGE:
        shift -= 1 / x
        x += 1
    inverse_square = 1 / (x * x)
    series, power = 0.0, inverse_square
    for coefficient in _DIGAMMA_SERIES:
        series += coefficient * power
        power *= inverse_square
    return shift + math.log(x) - 0.5 / x - series


def trigamma(x) -> float:
    """d digamma(x) / dx for a real ``x``."""
    x = float(x)
    if math.isnan(x) or _at_a_pole(x):
        return math.nan
    if x < 0:
        return -trigamma(1 - x) + (math.pi / math.sin(math.pi * x)) ** 2
    shift = 0.0
    while x < _LARGE:
        shift += 1 / (x * x)
        x += 1
    inverse_square = 1 / (x * x)
    series, power = 0.0, 1 / (x * x * x)
    for coefficient in _TRIGAMMA_SERIES:
        series += coefficient * power
        power *= inverse_square
    return shift + 1 / x + 0.5 * inverse_square + series
