"""Library code users call (issue 16 item 9) and ``functools.reduce``: pure-Python SciPy functions
differentiated from their source (``rosen``, distances, ``softmax``), modules held in variables, ``reduce`` over a lambda, a user
function and a NumPy function; gradients (reverse) and tangents (forward) against central finite
differences, and the library functions s2sad refuses, each refused at its line."""
import functools
import operator

import numpy as np
import pytest

import s2sad
from s2sad.errors import UnsupportedArgumentsError
from finite_differences import as_array, numerical_gradient

scipy_optimize = pytest.importorskip("scipy.optimize")
import scipy.spatial.distance as distance  # noqa: E402
import scipy.special  # noqa: E402
import scipy.stats  # noqa: E402

rng = np.random.default_rng(9)


def r(*shape):
    return rng.standard_normal(shape)


# ---------------------------------------------------------------- programs calling library code
def rosen_of_a_curve(x, scale):
    return scipy_optimize.rosen(np.tanh(x) * scale)


def rosen_of_two_rows(x, y):
    return np.sum(scipy_optimize.rosen([x, y]))


def softmax_loss(logits, labels):
    return np.sum(scipy.special.logsumexp(logits, axis=1)) - np.sum(logits * labels)


def normal_negative_log_likelihood(mu, log_sigma, data):
    return -np.sum(scipy.stats.norm.logpdf(data, loc=mu, scale=np.exp(log_sigma)))


def distances(x, y):
    return (distance.cosine(x, y) + distance.cityblock(x, y) + distance.braycurtis(x, y)
            + distance.correlation(x, y) + distance.sqeuclidean(x, y))


def softmax_attention(scores, values):
    return np.sum(scipy.special.softmax(scores) * values) + np.sum(scipy.special.log_softmax(scores) ** 2)


def pick_backend(x):
    return np if np.ndim(x) else None


def backend_in_a_variable(x, w):
    xp = pick_backend(x)  # a module held in a variable: xp.sum is NumPy's sum when the code runs
    linalg = xp.linalg
    return xp.sum(xp.tanh(x * w) ** 2) + linalg.norm(x) * xp.mean(w)


def module_as_a_default(x, backend=np):
    return backend.sum(backend.exp(-x ** 2)) + backend.linalg.norm(x)


def polynomial(x, coefficients):
    return np.sum(np.polyval(coefficients, x) ** 2)


def polynomial_of_a_list(a, x):
    return np.sum(np.polyval([a, 2.0, a * 3.0], x))


def product_of_matrices(matrices, v):
    product = functools.reduce(lambda a, b: a @ b, matrices)
    return np.sum(np.tanh(product @ v))


def sum_of_terms(terms, init):
    return np.sum(functools.reduce(np.add, terms, init) ** 2)


def recurrent_step(h, x):
    return np.tanh(0.5 * h + x)


def runs_a_recurrence(h0, xs):
    return np.sum(functools.reduce(recurrent_step, xs, h0) ** 2)


def product_of_scalars(values):
    return functools.reduce(operator.mul, values)


def reduce_of_one_item(x):
    return np.sum(functools.reduce(np.multiply, [x]) ** 2)


def reduce_of_rows(x):
    return np.sum(np.sin(functools.reduce(lambda a, b: a * b + 1.0, x)))


CASES = {
    # name: (function, args, argnums)
    "scipy_rosen": (scipy_optimize.rosen, (r(5),), (0,)),
    "scipy_rosen_as_a_callee": (rosen_of_a_curve, (r(4), 1.3), (0, 1)),
    "scipy_rosen_of_a_list": (rosen_of_two_rows, (r(3), r(3)), (0, 1)),
    "scipy_logsumexp_as_a_callee": (softmax_loss, (r(4, 3), np.eye(3)[[0, 2, 1, 0]]), (0,)),
    "scipy_spatial_distances": (distances, (np.abs(r(4)) + 0.2, np.abs(r(4)) + 0.2), (0, 1)),
    "scipy_softmax_and_log_softmax": (softmax_attention, (r(5), r(5)), (0, 1)),
    "scipy_norm_logpdf": (normal_negative_log_likelihood, (0.3, -0.2, r(6)), (0, 1)),
    "numpy_polyval": (polynomial, (r(2, 3), r(4)), (0, 1)),
    "numpy_polyval_of_a_list": (polynomial_of_a_list, (0.7, r(3)), (0, 1)),
    "module_in_a_variable": (backend_in_a_variable, (r(4), r(4)), (0, 1)),
    "module_as_a_default_argument": (module_as_a_default, (r(3),), (0,)),
    "reduce_lambda_matmul": (product_of_matrices, ([r(3, 3) * 0.5 for _ in range(3)], r(3)), (0, 1)),
    "reduce_numpy_function_with_initial": (sum_of_terms, ([r(3) for _ in range(4)], r(3)), (0, 1)),
    "reduce_user_function_with_initial": (runs_a_recurrence, (r(3), r(5, 3)), (0, 1)),
    "reduce_operator_over_a_tuple": (product_of_scalars, ((0.7, -1.3, 2.1),), (0,)),
    "reduce_of_one_item": (reduce_of_one_item, (r(3),), (0,)),
    "reduce_over_the_rows_of_an_array": (reduce_of_rows, (r(4, 3),), (0,)),
}


def _numerical(function, args, argnum):
    """Finite differences for an array, a float, or a list or tuple of them (item by item)."""
    value = args[argnum]
    if not isinstance(value, (list, tuple)):
        return numerical_gradient(function, list(args), argnum)

    def moved(item, position):
        items = list(value)
        items[position] = item
        return function(*args[:argnum], type(value)(items), *args[argnum + 1:])

    return [numerical_gradient(moved, [item, position], 0) for position, item in enumerate(value)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    function, args, argnums = CASES[name]
    value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*args)
    np.testing.assert_allclose(value, function(*args), rtol=1e-12)
    for argnum, gradient in zip(argnums, gradients):
        assert type(gradient) is type(args[argnum])
        np.testing.assert_allclose(as_array(gradient, args[argnum]), np.asarray(_numerical(function, args, argnum)),
                                   rtol=1e-5, atol=1e-7, err_msg=f"argument {argnum}")


def _random_tangent(value):
    if isinstance(value, (list, tuple)):
        return type(value)(_random_tangent(item) for item in value)
    return float(rng.standard_normal()) if isinstance(value, float) else r(*np.shape(value))


def _zero_tangent(value):
    if isinstance(value, (list, tuple)):
        return type(value)(_zero_tangent(item) for item in value)
    return 0.0 if isinstance(value, float) else np.zeros_like(value)


@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_matches_finite_differences(name):
    function, args, argnums = CASES[name]
    tangents = [_random_tangent(a) if i in argnums else _zero_tangent(a) for i, a in enumerate(args)]
    value, tangent = s2sad.jvp(function, args, tangents)
    np.testing.assert_allclose(value, function(*args), rtol=1e-12)
    expected = sum(np.sum(np.asarray(_numerical(function, args, i)) * np.asarray(tangents[i])) for i in argnums)
    np.testing.assert_allclose(tangent, expected, rtol=1e-5, atol=1e-7)


def test_rosen_matches_scipys_own_derivative():
    x = r(6)
    np.testing.assert_allclose(s2sad.grad(scipy_optimize.rosen)(x), scipy_optimize.rosen_der(x), rtol=1e-12)
    v = r(6)
    np.testing.assert_allclose(s2sad.jvp(scipy_optimize.rosen, (x,), (v,))[1], scipy_optimize.rosen_der(x) @ v,
                               rtol=1e-12)


def test_reduce_of_an_empty_sequence_raises_as_python_does():
    def reduces_nothing(x):
        return functools.reduce(np.add, x[:0]) * 2.0

    for run in (lambda: s2sad.grad(reduces_nothing)(r(3)), lambda: s2sad.jvp(reduces_nothing, (r(3),), (r(3),))):
        with pytest.raises(TypeError, match="reduce\\(\\) of empty iterable with no initial value"):
            run()


def test_reduce_of_an_empty_sequence_with_an_initial_value_returns_it():
    def reduces_nothing_from(x, start):
        return np.sum(functools.reduce(np.add, x[:0], start) ** 2)

    x, start = r(3), r(2)
    gradient = s2sad.grad(reduces_nothing_from, argnums=1)(x, start)
    np.testing.assert_allclose(gradient, 2 * start)
    assert s2sad.jvp(reduces_nothing_from, (x, start), (r(3), np.ones(2)))[1] == pytest.approx(np.sum(2 * start))


def test_reduce_with_a_callee_reading_a_differentiated_local_is_refused():
    def scales_each_step(x, s):
        return functools.reduce(lambda a, b: a + b * s, x)

    with pytest.raises(s2sad.MissingRuleError, match="given to a function that calls it"):
        s2sad.grad(scales_each_step, argnums=(0, 1))(r(3), 0.5)
    with pytest.raises(s2sad.MissingRuleError, match="given to a function that calls it"):
        s2sad.jvp(scales_each_step, (r(3), 0.5), (r(3), 1.0))


# ---------------------------------------------------------------- library code s2sad refuses, at its line
def rosen_hessian_product(x, p):
    return np.sum(scipy_optimize.rosen_hess_prod(x, p) ** 2)


def frozen_distribution(x):
    return np.sum(scipy.stats.norm(0.3, 2.0).logpdf(x))


REFUSED = [
    # function, args, error, words its message holds, the file its location points into
    (rosen_hessian_product, (r(4), r(4)), s2sad.UnsupportedSyntaxError, ("Hp[...] = ...",), "_optimize.py"),
    (polynomial, (r(2), r(3, 2)), UnsupportedArgumentsError, ("np.polyval", "1-D"), "test_library_code.py"),
    (frozen_distribution, (r(3),), s2sad.MissingRuleError, ("rv_continuous_frozen.logpdf",), "test_library_code.py"),
]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function, args, error, words, filename", REFUSED, ids=[case[0].__name__ for case in REFUSED])
def test_library_code_s2sad_cannot_differentiate_is_refused_at_its_line(mode, function, args, error, words, filename):
    with pytest.raises(error) as raised:
        if mode == "reverse":
            s2sad.grad(function)(*args)
        else:
            s2sad.jvp(function, args, tuple(np.ones_like(a) for a in args))
    assert all(word in str(raised.value) for word in words), str(raised.value)
    assert raised.value.location is not None and raised.value.location.filename.endswith(filename)
