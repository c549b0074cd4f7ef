"""``y.sort()``, ``y.fill(v)`` and ``np.copyto(dst, src)`` on arrays the function owns: written as
element assignments of the whole array (normalize_mutation.array_mutation, copy_into), so the
rules of ``np.sort`` and of element assignment apply, with NumPy's casting; refused, at the
line, where the array is the caller's (an argument, a view of one).

Each derivative (grad, vjp, jvp, hvp) is checked against central finite differences in float64.
"""
import numpy as np
import pytest

import s2sad
from finite_differences import assert_hvp_matches, numerical_gradient

x0 = np.array([0.3, 1.2, -0.5, 0.9])
M0 = np.array([[0.3, -1.1, 0.8], [1.4, 0.2, -0.6]])


def sorts_a_copy(x):
    y = x * 1.5
    y.sort()
    return y[0] * 2.0 + y[-1] * y[1]


def sorts_rows_and_columns(M):
    A = np.sin(M)
    A.sort(axis=0)
    B = M ** 2
    B.sort(1, kind="stable")
    return np.sum(A * np.arange(6.0).reshape(2, 3)) + np.sum(B[:, 0] * A[:, 1])


def fills_then_writes(x):
    y = np.empty(4)
    y.fill(np.sum(x) * 0.5)
    y[1:3] = x[:2] ** 2
    return np.sum(y * x)


def fills_an_int_array(x):
    n = np.zeros(4, dtype=int)
    n.fill(2.5 * x[0])  # cast to int as fill casts: no derivative flows through it
    return np.sum(n * x)


def fills_float32(x):
    y = np.zeros(4, dtype=np.float32)
    y.fill(x[1])
    return np.sum(y.astype(np.float64) * x)


def copies_broadcast(x, M):
    D = np.zeros((2, 4))
    np.copyto(D, x)  # a row broadcast to both rows
    E = np.ones(3)
    np.copyto(E, M[1] * x[0])
    return np.sum(D[0] * D[1] * x) + np.sum(E ** 3)


def copies_into_float32(x):
    y = np.empty(4, dtype=np.float32)
    np.copyto(y, np.tanh(x))
    return np.sum(y.astype(np.float64) * x)


CASES = [
    (sorts_a_copy, (x0,)),
    (sorts_rows_and_columns, (M0,)),
    (fills_then_writes, (x0,)),
    (fills_an_int_array, (x0,)),
    (fills_float32, (x0,)),
    (copies_broadcast, (x0, M0)),
    (copies_into_float32, (x0,)),
]
IDS = [f.__name__ for f, _ in CASES]
LOOSE = {fills_float32, copies_into_float32}  # float32 storage: differences of float32-rounded values


def _tolerance(f):
    return dict(rtol=1e-4, atol=1e-4) if f in LOOSE else dict(rtol=1e-6, atol=1e-8)


def _directions(args, seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=np.shape(a)) for a in args]


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_grad_and_vjp_match_differences(f, args):
    argnums = tuple(range(len(args)))
    gradients = s2sad.grad(f, argnums=argnums)(*args)
    y, pullback = s2sad.vjp(f, *args)
    np.testing.assert_allclose(y, f(*args), rtol=1e-12)
    cotangents = pullback(0.5)
    for i in argnums:
        # float32 storage: steps of 1e-3 rather than 1e-6, its rounding far below them
        expected = numerical_gradient(f, args, i, eps=1e-3 if f in LOOSE else 1e-6)
        np.testing.assert_allclose(gradients[i], expected, **_tolerance(f))
        np.testing.assert_allclose(cotangents[i], 0.5 * expected, **_tolerance(f))


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_jvp_matches_differences(f, args):
    directions, h = _directions(args, 1), (1e-3 if f in LOOSE else 1e-6)
    y, dy = s2sad.jvp(f, args, directions)
    slope = (f(*[a + h * d for a, d in zip(args, directions)]) - f(*[a - h * d for a, d in zip(args, directions)])) / (2 * h)
    np.testing.assert_allclose(y, f(*args), rtol=1e-12)
    np.testing.assert_allclose(dy, slope, **_tolerance(f))


@pytest.mark.parametrize("f, args", [c for c in CASES if c[0] not in LOOSE], ids=[n for n in IDS if "32" not in n])
def test_hvp_matches_second_differences(f, args):
    v, u = _directions(args, 2), _directions(args, 3)
    assert_hvp_matches(s2sad.hvp(f, args, v), f, args, v, u, rtol=1e-5, atol=1e-6)


def test_int_fill_and_float_copyto_cast_as_numpy_does():
    assert fills_an_int_array(x0) == np.sum(int(2.5 * x0[0]) * x0)
    np.testing.assert_allclose(s2sad.grad(fills_an_int_array)(x0), np.full(4, int(2.5 * x0[0])), rtol=1e-12)

    def copies_float_into_int(x):
        n = np.zeros(4, dtype=int)
        np.copyto(n, x)
        return np.sum(n * x)

    with pytest.raises(TypeError, match="same_kind"):  # NumPy's own refusal, from the same call
        copies_float_into_int(x0)
    with pytest.raises(TypeError, match="same_kind"):
        s2sad.grad(copies_float_into_int)(x0)


# ---------------------------------------------------------------- refusals, at the user's line
def sorts_the_argument(x):
    x.sort()  # refused: here
    return x[0]


def fills_a_view_of_the_argument(x):
    y = x[1:]
    y.fill(0.5)  # refused: here
    return np.sum(x)


def copies_into_the_argument(x, v):
    np.copyto(x, v * 2.0)  # refused: here
    return np.sum(x)


def copies_where(x):
    y = np.zeros(4)
    np.copyto(y, x, where=x > 0)  # refused: here
    return np.sum(y)


def sorts_a_list(x):
    xs = [x[0], x[1]]
    xs.sort()  # refused: here
    return xs[0]


def sorts_an_alias(x):
    y = x ** 2
    z = y  # the same array: NumPy's z sees the sort
    y.sort()  # refused: here
    return z[0] + 3.0 * z[-1]


def fills_with_a_sequence(x):
    y = np.zeros(2)
    y.fill(x[:2])  # NumPy's ValueError, raised by the same check
    return np.sum(y)


@pytest.mark.parametrize("f, args", [(sorts_the_argument, (x0,)), (fills_a_view_of_the_argument, (x0,)),
                                     (copies_into_the_argument, (x0, x0)), (copies_where, (x0,)),
                                     (sorts_a_list, (x0,)), (sorts_an_alias, (x0,))], ids=lambda v: getattr(v, "__name__", ""))
def test_a_change_of_memory_the_function_does_not_own_is_refused_at_its_line(f, args):
    for mode in ("grad", "jvp"):
        with pytest.raises(s2sad.S2SADError) as raised:
            if mode == "grad":
                s2sad.grad(f)(*[a.copy() for a in args])
            else:
                s2sad.jvp(f, tuple(a.copy() for a in args), tuple(np.ones_like(a) for a in args))
        assert raised.value.location is not None, str(raised.value)
        assert raised.value.location.text.strip().endswith("# refused: here"), str(raised.value)


def test_fill_with_a_sequence_raises_numpys_error():
    with pytest.raises(ValueError, match="sequence"):
        fills_with_a_sequence(x0)
    with pytest.raises(ValueError, match="sequence"):
        s2sad.grad(fills_with_a_sequence)(x0)


# ---------------------------------------------------------------- found on the way
def writes_a_float_into_an_int_array(x):
    n = np.zeros(4, dtype=int)
    n[...] = 2.5 * x[0]
    n[1] = 4.0 * x[2]
    return np.sum(n * x)


def test_a_float_written_into_an_int_array_carries_no_tangent():
    # forward mode gave the int array the value's tangent before (jvp 4.75 here, where NumPy's
    # function is piecewise constant in x[0] and x[2]: its slope is n . d)
    n = np.array([0, -2, 0, 0])
    d = np.array([0.4, -1.0, 2.0, 0.5])
    np.testing.assert_allclose(writes_a_float_into_an_int_array(x0), np.sum(n * x0))
    np.testing.assert_allclose(s2sad.jvp(writes_a_float_into_an_int_array, (x0,), (d,))[1], np.sum(n * d), rtol=1e-12)
    np.testing.assert_allclose(s2sad.grad(writes_a_float_into_an_int_array)(x0), n, rtol=1e-12)
    np.testing.assert_allclose(s2sad.hvp(writes_a_float_into_an_int_array, (x0,), (d,)), np.zeros(4), atol=1e-12)
