"""Central finite differences in float64: the independent reference every gradient is checked against."""
import numpy as np


def numerical_gradient(f, args, argnum, eps=1e-6):
    """d f(*args) / d args[argnum], one coordinate at a time, in float64."""
    args = list(args)
    x = args[argnum]
    is_scalar = np.ndim(x) == 0 and not isinstance(x, np.ndarray)
    base = np.array(x, dtype=np.float64)
    gradient = np.zeros_like(base)
    for index in np.ndindex(base.shape):
        values = []
        for step in (eps, -eps):
            moved = base.copy()
            moved[index] += step
            args[argnum] = float(moved) if is_scalar else moved
            values.append(float(f(*args)))
        gradient[index] = (values[0] - values[1]) / (2 * eps)
    return float(gradient) if is_scalar else gradient


def as_array(gradient, primal):
    """A gradient as a float64 array shaped like ``np.array(primal)``: structural tangents of
    lists and tuples (absent items are zero) are stacked like their primal."""
    if isinstance(primal, (list, tuple)):
        return np.array([as_array(gradient[i], item) for i, item in enumerate(primal)])
    return np.asarray(gradient, dtype=np.float64)


def assert_gradients_match(f, args, argnums, gradients, rtol=1e-5, atol=1e-7):
    for argnum, gradient in zip(argnums, gradients):
        expected = numerical_gradient(f, args, argnum)
        np.testing.assert_allclose(as_array(gradient, args[argnum]), expected, rtol=rtol, atol=atol,
                                   err_msg=f"gradient with respect to argument {argnum} of {f.__name__}")


def mixed_second_difference(f, args, v, u, h=1e-4):
    """``u . H v`` of a scalar ``f`` at ``args`` (one direction per argument in ``v`` and ``u``):
    the central mixed second difference along ``v`` and ``u``, in float64."""
    def at(s, t):
        return f(*[a + s * h * dv + t * h * du for a, dv, du in zip(args, v, u)])

    return (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h * h)


def assert_hvp_matches(products, f, args, v, u, rtol=1e-5, atol=1e-7):
    """``hvp(f, args, v)`` (one product, or a tuple of one per argument) read along ``u``, against
    :func:`mixed_second_difference`."""
    products = products if isinstance(products, tuple) else (products,)
    np.testing.assert_allclose(sum(np.sum(p * du) for p, du in zip(products, u)),
                               mixed_second_difference(f, args, v, u), rtol=rtol, atol=atol)


def assert_every_mode_matches(f, x, v, u, cotangent=2.0):
    """``f`` of one array ``x`` in grad, vjp (scaled by ``cotangent``), jvp along ``v`` and hvp
    along ``v`` read along ``u``, each against central differences in float64."""
    import pytest
    import s2sad

    expected = numerical_gradient(f, [x], 0)
    np.testing.assert_allclose(s2sad.grad(f)(x), expected, rtol=1e-5, atol=1e-7)
    value, pullback = s2sad.vjp(f, x)
    assert value == pytest.approx(f(x))
    np.testing.assert_allclose(pullback(cotangent)[0], cotangent * expected, rtol=1e-5, atol=1e-7)
    _, tangent = s2sad.jvp(f, (x,), (v,))
    assert tangent == pytest.approx(float(np.sum(expected * v)), rel=1e-5, abs=1e-7)
    assert_hvp_matches(s2sad.hvp(f, (x,), (v,)), f, [x], [v], [u], rtol=1e-4, atol=1e-6)


def refusal_in(mode: str, f, x, match: str):
    """The s2sad error ``f`` of one array ``x`` raises in ``mode`` (grad, jvp or hvp, along ones),
    its message matching ``match``: what refusal tests read the located line from."""
    import pytest
    import s2sad

    run = {"grad": lambda: s2sad.grad(f)(x), "jvp": lambda: s2sad.jvp(f, (x,), (np.ones_like(x),)),
           "hvp": lambda: s2sad.hvp(f, (x,), (np.ones_like(x),))}[mode]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=match) as caught:
        run()
    return caught.value


def assert_every_mode_of_arrays(f, args, cotangent=2.0, seed=0):
    """``f`` of several float arrays in grad (every argument), vjp (scaled by ``cotangent``), jvp
    and hvp along random directions, each against central differences in float64; the arguments
    are checked unchanged."""
    import pytest
    import s2sad

    kept = [np.array(a, copy=True) for a in args]
    rng = np.random.default_rng(seed)
    v = [rng.normal(size=np.shape(a)) for a in args]
    u = [rng.normal(size=np.shape(a)) for a in args]
    argnums = tuple(range(len(args)))
    expected = [numerical_gradient(f, args, argnum) for argnum in argnums]
    for got, want in zip(s2sad.grad(f, argnums=argnums)(*args), expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    value, pullback = s2sad.vjp(f, *args)
    assert value == pytest.approx(f(*args))
    for got, want in zip(pullback(cotangent), expected):
        np.testing.assert_allclose(got, cotangent * want, rtol=1e-5, atol=1e-7)
    _, slope = s2sad.jvp(f, tuple(args), tuple(v))
    assert slope == pytest.approx(sum(float(np.sum(e * d)) for e, d in zip(expected, v)), rel=1e-5, abs=1e-7)
    assert_hvp_matches(s2sad.hvp(f, tuple(args), tuple(v)), f, list(args), v, u, rtol=1e-4, atol=1e-6)
    for a, before in zip(args, kept):
        np.testing.assert_array_equal(a, before)
