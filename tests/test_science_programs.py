"""The science corpus (tests/science_programs.py, cases in tests/science_cases.py), differentiated
untouched in every mode: grad, value_and_grad, vjp, jvp, hvp and grad(compile=True) against
central finite differences in float64 of the plain NumPy function, the caller's arguments
unchanged, and float32 in giving float32 out. Programs s2sad refuses stay listed with the error
and message they must fail with; and the bugs the corpus found, reduced, each against its own
finite differences or a hand-derived formula."""
import numpy as np
import pytest
from scipy import signal

import s2sad
import science_cases as cases
from corpus_cases import check_or_refused, in_every_mode
from finite_differences import mixed_second_difference, numerical_gradient

_APPEND_TO_A_FIELD = (s2sad.MissingRuleError, r"science_programs\.py:\d+:9: .*`self\.layers\.append\(\(W, b\)\)` calls the method `\.append`",
                      "a list held by an object's field changed by .append: s2sad follows list changes on a variable of "
                      "the function's own only")
_SUPER_INIT_SECOND_ORDER = (s2sad.MissingRuleError, r"science_programs\.py:\d+:5: .*no second derivative through TanhLayer\.__init__",
                            "hvp reaches the constructor calling super().__init__ first, refused in forward code")

REFUSED = {}
for _mode in cases.MODES:
    REFUSED[(_mode, "dataclass_default_factory_call")] = _APPEND_TO_A_FIELD
    if _mode == "hvp":  # (super().forward(x) in a method is differentiated in the other modes since session 16)
        REFUSED[(_mode, "inheritance_super_call_dunder_call")] = _SUPER_INIT_SECOND_ORDER


@pytest.mark.parametrize(("name", "mode"), in_every_mode(cases.CORPUS, cases.MODES))
def test_program_in_every_mode(name, mode):
    check_or_refused(cases.check, name, mode, REFUSED)


def test_the_corpus_is_large_and_mostly_differentiated():
    assert 70 <= len(cases.CORPUS) <= 90
    assert len(REFUSED) <= 3 * len(cases.MODES)
    assert {name for _, name in REFUSED} <= set(cases.CORPUS)


# ---------------------------------------------------------------- the bugs the corpus found, reduced
def _smoothed_by_diffs(u, lam):
    # np.diff with an end that is itself differentiated: the tangent of u[:, -1:] was dropped
    dx = np.diff(u, axis=1, append=u[:, -1:])
    dy = np.diff(u, axis=0, prepend=u[:1, :] * lam)
    return np.sum(np.sin(dx) * dy[:, :1] + dy ** 2)


def test_np_diff_differentiates_its_prepend_and_append():
    # before: jvp 6.066983 against 6.978461 by central differences (tv_denoise_unrolled: the
    # forward rule gave the ends zero tangents), and grad refused prepend=/append= altogether
    rs = np.random.RandomState(0)
    u, lam = rs.randn(3, 4), 0.7
    v, w = rs.randn(3, 4), rs.randn(3, 4)
    expected = numerical_gradient(_smoothed_by_diffs, (u, lam), 0)
    np.testing.assert_allclose(s2sad.grad(_smoothed_by_diffs)(u, lam), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.grad(_smoothed_by_diffs, argnums=1)(u, lam),
                               numerical_gradient(_smoothed_by_diffs, (u, lam), 1), rtol=1e-6)
    np.testing.assert_allclose(s2sad.jvp(_smoothed_by_diffs, (u, lam), (v, 0.0))[1], np.sum(expected * v), rtol=1e-6)
    products = s2sad.hvp(_smoothed_by_diffs, (u, lam), (v, 0.0))
    np.testing.assert_allclose(np.sum(products[0] * w), mixed_second_difference(_smoothed_by_diffs, (u, lam), (v, 0.0), (w, 0.0)),
                               rtol=1e-5)


def _logged(fn):
    def wrapper(*args, **kwargs):
        return 0.5 * fn(*args, **kwargs)
    wrapper.__wrapped__ = fn
    return wrapper


@_logged
def _half_squared_error(w, X, y):
    return np.sum((X @ w - y) ** 2)


def test_hvp_of_a_decorated_function_whose_wrapper_takes_star_args():
    # before: IndexError in hvp (it bound the wrapper's (*args, **kwargs) as if they were the
    # function's parameters); the Hessian of 0.5 |Xw - y|^2 in w is X^T X
    rs = np.random.RandomState(1)
    w, X, y = rs.randn(3), rs.randn(6, 3), rs.randn(6)
    v = rs.randn(3)
    products = s2sad.hvp(_half_squared_error, (w, X, y), (v, np.zeros((6, 3)), np.zeros(6)))
    np.testing.assert_allclose(products[0], X.T @ X @ v, rtol=1e-12)
    # along X too: d/dt of X^T (X w - y) moved along (0, V, 0) is V^T (X w - y) + X^T V w
    V = rs.randn(6, 3)
    products = s2sad.hvp(_half_squared_error, (w, X, y), (np.zeros(3), V, np.zeros(6)))
    np.testing.assert_allclose(products[0], V.T @ (X @ w - y) + X.T @ (V @ w), rtol=1e-12)


def _penalty_over_sorted_keys(params):
    total = 0.0
    for name in sorted(params, key=len):
        total = total + len(name) * np.sum(params[name] ** 2)
    for name in list(params):
        total = total + np.sum(np.sin(params[name]))
    return total


def test_sorted_and_list_of_a_dict_of_arrays():
    # before: TypeError "cannot add a list to a structural tangent of dict" (the keys' list
    # cotangent was handed back to the dict); and hvp refused the r_ rule's code it reached
    params = {"w": np.array([0.3, -1.2, 0.5]), "bias": np.array([0.1, 0.4]), "gamma": 0.7}
    gradient = s2sad.grad(_penalty_over_sorted_keys)(params)
    for name, value in params.items():
        np.testing.assert_allclose(gradient[name], 2 * len(name) * np.asarray(value) + np.cos(value), rtol=1e-12)
    v = {"w": np.array([1.0, 0.5, -0.2]), "bias": np.array([0.3, 0.1]), "gamma": -0.4}
    products = s2sad.hvp(_penalty_over_sorted_keys, (params,), (v,))
    for name, value in params.items():
        np.testing.assert_allclose(products[name], (2 * len(name) - np.sin(value)) * np.asarray(v[name]), rtol=1e-12)


def _sum_of_squares(*arrays):
    return sum(np.sum(a ** 2) for a in arrays)


def _scaled_sum_of_squares(scale, *arrays):
    return scale * sum(np.sum(np.sin(a) * a) for a in arrays)


def _through_star_calls(x, pairs):
    return _sum_of_squares(*pairs[0]) * np.sum(np.sin(x)) + _scaled_sum_of_squares(*pairs[1], x)


def test_hvp_through_a_helper_collecting_its_arguments_with_star():
    # before: "no second derivative through _sum_of_squares called in forward code" (a tangent
    # collected by *args was refused, though the forward call's pullback spreads it)
    rs = np.random.RandomState(2)
    x = rs.randn(3)
    pairs = [(rs.randn(2, 3), rs.randn(2)), (0.8, rs.randn(2))]

    def flat(x, a, b, s, c):
        return _through_star_calls(x, [(a, b), (s, c)])

    args = (x, pairs[0][0], pairs[0][1], pairs[1][0], pairs[1][1])
    v = tuple(rs.randn(*np.shape(a)) if np.ndim(a) else 0.3 for a in args)
    u = tuple(rs.randn(*np.shape(a)) if np.ndim(a) else -0.6 for a in args)
    dx, dpairs = s2sad.hvp(_through_star_calls, (x, pairs), (v[0], [(v[1], v[2]), (v[3], v[4])]))
    along_u = np.sum(dx * u[0]) + sum(np.sum(np.asarray(p) * q) for p, q in
                                      zip((dpairs[0][0], dpairs[0][1], dpairs[1][0], dpairs[1][1]), u[1:]))
    np.testing.assert_allclose(along_u, mixed_second_difference(flat, args, v, u), rtol=1e-5)


def _norm_read_by_a_test(x, layers):
    s = _sum_of_squares(*layers[0])
    if s > 1.0:
        return np.sum(np.tanh(x))
    return np.sum(x * 2)


def _fill(buffer, value):
    buffer[:] = value
    return 0


def _fills_through_star(x):
    buffer = np.zeros(3)
    arguments = (buffer, x)
    _fill(*arguments)
    return np.sum(buffer ** 2)


def test_a_star_call_whose_result_is_not_differentiated():
    # before: jvp refused `s = _sum_of_squares(*layers[0])` ("calls the method `.__call__` ...
    # its result is not differentiated"), and grad with the layers among argnums too, though the
    # same call written out was differentiated: the fuzzer's commonest forward-mode refusal
    x = np.array([0.3, -0.7, 1.1])
    layers = [(np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]]), np.array([0.2, -0.3]))]
    tangents = (np.array([1.0, 0.5, -0.2]), [(np.ones((2, 3)), np.ones(2))])
    assert s2sad.jvp(_norm_read_by_a_test, (x, layers), tangents)[1] == pytest.approx(
        np.sum((1 - np.tanh(x) ** 2) * tangents[0]), rel=1e-12)
    dx, dlayers = s2sad.grad(_norm_read_by_a_test, argnums=(0, 1))(x, layers)
    np.testing.assert_allclose(dx, 1 - np.tanh(x) ** 2, rtol=1e-12)
    assert all(np.all(np.asarray(d) == 0) for d in dlayers[0])
    # a helper that writes into what it is given is still refused, star or not
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=r"_fill may write into its arguments"):
        s2sad.grad(_fills_through_star)(x)


def _softened_energy(X, self_term):
    d = X[:, None, :] - X[None, :, :]
    inv = 1.0 / (np.sum(d ** 2, -1) + 0.1)
    np.fill_diagonal(inv, self_term)
    return np.sum(inv ** 2 * np.arange(16.0).reshape(4, 4))


def _repeated_diagonal(A, values):
    B = A * 2.0
    np.fill_diagonal(B, values)  # shorter than the diagonal: NumPy repeats it along
    return np.sum(np.sin(B))


def _wrapped_diagonal(A, c):
    B = A.copy()
    np.fill_diagonal(B, c, wrap=True)  # a tall array: the diagonal starts again below the square
    return np.sum(B ** 3)


@pytest.mark.parametrize("function, shapes", [(_softened_energy, ((4, 2), ())), (_repeated_diagonal, ((5, 5), (2,))),
                                              (_wrapped_diagonal, ((7, 3), ()))])
def test_fill_diagonal_of_a_local_array(function, shapes):
    # before: refused ("`np.fill_diagonal(...)` changes an array in place"), the n-body program's
    # line; now `a[...] = diagonal_filled(val, a, wrap)`, in every mode against central differences
    rs = np.random.RandomState(3)

    def draw(shape):
        return rs.randn(*shape) if shape else float(rs.randn())

    args, v, u = (tuple(draw(s) for s in shapes) for _ in range(3))
    for i in range(2):
        np.testing.assert_allclose(s2sad.grad(function, argnums=i)(*args), numerical_gradient(function, args, i),
                                   rtol=1e-6, atol=1e-8)
    h = 1e-6
    slope = (function(*[a + h * d for a, d in zip(args, v)]) - function(*[a - h * d for a, d in zip(args, v)])) / (2 * h)
    np.testing.assert_allclose(s2sad.jvp(function, args, v)[1], slope, rtol=1e-6)
    products = s2sad.hvp(function, args, v)
    np.testing.assert_allclose(sum(np.sum(p * d) for p, d in zip(products, u)), mixed_second_difference(function, args, v, u),
                               rtol=1e-5)
    assert s2sad.grad(function)(*(a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args)).dtype == np.float32


def _ar_filter_energy(b, a1, x):
    y = signal.lfilter(b, [1.0, a1], x)  # the denominator a list holding a differentiated float
    return np.sum(y ** 2)


def test_lfilter_given_a_list_holding_a_differentiated_float():
    # before: jvp and hvp crashed in the rule (NotImplementedError: input type 'object' not
    # supported: the list's tangent [ZERO, da1] reached lfilter as an object array); grad was right
    rs = np.random.RandomState(9)
    args, v, u = (rs.randn(3), 0.4, rs.randn(10)), (rs.randn(3), 0.7, rs.randn(10)), (rs.randn(3), -0.3, rs.randn(10))
    h = 1e-6
    slope = (_ar_filter_energy(*[a + h * d for a, d in zip(args, v)]) -
             _ar_filter_energy(*[a - h * d for a, d in zip(args, v)])) / (2 * h)
    np.testing.assert_allclose(s2sad.jvp(_ar_filter_energy, args, v)[1], slope, rtol=1e-6)
    products = s2sad.hvp(_ar_filter_energy, args, v)
    np.testing.assert_allclose(sum(np.sum(p * d) for p, d in zip(products, u)),
                               mixed_second_difference(_ar_filter_energy, args, v, u), rtol=1e-5)


def _clipped_by_keywords(x, c):
    return np.sum(np.clip(x, min=-c, max=0.5 * c) ** 2) + np.sum(np.clip(x, -c, None) * x)


def test_clip_bounds_given_by_numpy_2_keywords():
    # before: grad gave the bounds of np.clip(x, min=..., max=...) no cotangent (0 against 3.2 by
    # central differences for np.sum(np.clip(x, min=-c, max=c) ** 2)); jvp was right
    x, c = np.array([0.3, -1.2, 0.5, 2.0, -0.1]), 0.8
    for argnum in (0, 1):
        np.testing.assert_allclose(s2sad.grad(_clipped_by_keywords, argnums=argnum)(x, c),
                                   numerical_gradient(_clipped_by_keywords, (x, c), argnum), rtol=1e-6, atol=1e-8)
    v, u = (np.array([0.1, 0.2, -0.3, 0.4, 0.5]), 1.0), (np.array([-0.2, 0.1, 0.3, 0.0, 0.2]), 0.5)
    products = s2sad.hvp(_clipped_by_keywords, (x, c), v)
    np.testing.assert_allclose(np.sum(products[0] * u[0]) + products[1] * u[1],
                               mixed_second_difference(_clipped_by_keywords, (x, c), v, u), rtol=1e-5, atol=1e-8)
