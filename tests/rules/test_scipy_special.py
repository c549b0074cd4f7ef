"""Rules of rules/scipy_special.py (skipped without SciPy)."""
import numpy as np
import pytest

special = pytest.importorskip("scipy.special")

import s2sad  # noqa: E402,F401
from s2sad.registry import rule_for  # noqa: E402
from s2sad.testing import check_rrule  # noqa: E402

rng = np.random.default_rng(6)
POS = rng.uniform(0.5, 3.0, 5)
UNIT = rng.uniform(0.1, 0.9, 5)
REAL = rng.standard_normal(5)

# (function, args, hand-derived slope of the first float argument or None)
SPECIAL = [
    (special.erf,       (REAL,),           lambda x: 2 / np.sqrt(np.pi) * np.exp(-x ** 2)),
    (special.erfc,      (REAL,),           lambda x: -2 / np.sqrt(np.pi) * np.exp(-x ** 2)),
    (special.erfinv,    (UNIT - 0.5,),     lambda x: np.sqrt(np.pi) / 2 * np.exp(special.erfinv(x) ** 2)),
    (special.erfcinv,   (UNIT + 0.5,),     lambda x: -np.sqrt(np.pi) / 2 * np.exp(special.erfcinv(x) ** 2)),
    (special.expit,     (REAL,),           lambda x: special.expit(x) * (1 - special.expit(x))),
    (special.logit,     (UNIT,),           lambda x: 1 / (x * (1 - x))),
    (special.log_expit, (REAL,),           lambda x: 1 - special.expit(x)),
    (special.ndtr,      (REAL,),           lambda x: np.exp(-x ** 2 / 2) / np.sqrt(2 * np.pi)),
    (special.gamma,     (POS,),            lambda x: special.gamma(x) * special.digamma(x)),
    (special.gammaln,   (POS,),            special.digamma),
    (special.digamma,   (POS,),            lambda x: special.polygamma(1, x)),
    (special.rgamma,    (POS,),            lambda x: -special.digamma(x) / special.gamma(x)),
    (special.i0,        (REAL,),           special.i1),
    (special.i1,        (REAL,),           lambda x: special.i0(x) - special.i1(x) / x),
    (special.j0,        (REAL,),           lambda x: -special.j1(x)),
    (special.j1,        (REAL,),           lambda x: (special.j0(x) - special.jv(2, x)) / 2),
    (special.y0,        (POS,),            lambda x: -special.y1(x)),
    (special.y1,        (POS,),            lambda x: (special.y0(x) - special.yv(2, x)) / 2),
    (special.polygamma, (1, POS),          None),
    (special.beta,      (POS, POS[::-1]),  None),
    (special.betaln,    (POS, POS[::-1]),  None),
    (special.xlogy,     (REAL, POS),       lambda x: np.log(POS)),
    (special.xlog1py,   (REAL, POS),       lambda x: np.log1p(POS)),
    (special.logsumexp, (REAL,),           lambda x: np.exp(x) / np.sum(np.exp(x))),
    (special.softmax,   (REAL,),           None),
    (special.log_softmax, (REAL,),         None),
]
IDS = [f.__name__ for f, _, _ in SPECIAL]


WITH_FORMULA = [case for case in SPECIAL if case[2] is not None]  # softmax/log_softmax: Jacobians, checked below by check_rrule


@pytest.mark.parametrize("f, args, slope", WITH_FORMULA, ids=[c[0].__name__ for c in WITH_FORMULA])
def test_formula(f, args, slope):
    _, pullback = rule_for(f).rrule(*args)
    g = np.ones_like(f(*args))
    np.testing.assert_allclose(pullback(g)[1], slope(args[0]), rtol=1e-10)


@pytest.mark.parametrize("f, args, slope", SPECIAL, ids=IDS)
def test_finite_differences(f, args, slope):
    check_rrule(f, *args)


def test_logsumexp_axes_and_weights():
    x = rng.standard_normal((3, 4))
    check_rrule(special.logsumexp, x, axis=1)
    check_rrule(special.logsumexp, x, 0, rng.uniform(0.5, 1, (3, 4)), True)
    check_rrule(special.softmax, x, axis=0)
    check_rrule(special.log_softmax, x, axis=-1)


def test_i1_at_zero():
    _, pullback = rule_for(special.i1).rrule(np.array([0.0]))
    np.testing.assert_allclose(pullback(np.ones(1))[1], [0.5])


def test_float32():
    (dx,) = check_rrule(special.expit, REAL.astype(np.float32))
    assert dx.dtype == np.float32
