"""A user's script calling every public name of s2sad: `mypy --strict`-clean against s2sad's
annotations (s2sad ships py.typed). Run: mypy --strict tests/typing/user_script.py
(tests/test_docs.py does, if mypy is installed: pip install -e '.[typing]'). Also a working
program, whose checks are real: python tests/typing/user_script.py."""
from __future__ import annotations

import io
import warnings
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

import s2sad
from s2sad.testing import check_grad, check_hvp, check_jvp, check_rrule, numerical_gradient

Array = npt.NDArray[np.float64]
ComplexArray = npt.NDArray[np.complex128]


def loss(W: Array, b: Array, X: Array) -> float:
    return float(np.mean(np.tanh(X @ W + b) ** 2))


def loss_and_norm(W: Array, b: Array, X: Array) -> tuple[float, float]:
    return loss(W, b, X), float(np.sum(W ** 2))


def vector_function(x: Array) -> Array:
    result: Array = np.sin(x) * x[0]
    return result


def cube(z: ComplexArray) -> np.complex128:
    total: np.complex128 = np.sum(z ** 3)
    return total


@s2sad.differentiate(argnums=(0, 1))
def energy(x: Array, y: Array) -> float:
    return float(np.sum(np.sin(x) * y))


@s2sad.differentiate
def plain_energy(x: Array) -> float:
    return float(np.sum(x ** 4))


@s2sad.custom_vjp
def clipped(x: Array) -> Array:
    return x


def clipped_fwd(x: Array) -> tuple[Array, None]:
    return x, None


def clipped_bwd(residuals: None, g: Array) -> tuple[Array]:
    return (np.clip(g, -1.0, 1.0),)


clipped.defvjp(clipped_fwd, clipped_bwd)


@s2sad.custom_jvp
def log1pexp(x: float) -> float:
    return float(np.log1p(np.exp(x)))


def log1pexp_jvp(primals: tuple[float], tangents: tuple[float]) -> tuple[float, float]:
    x, = primals
    x_dot, = tangents
    return log1pexp(x), x_dot / (1.0 + float(np.exp(-x)))


log1pexp.defjvp(log1pexp_jvp)


# ---------------------------------------------------------------- functions given rules of the user's


def logsumexp(x: Array) -> float:
    return float(np.log(np.sum(np.exp(x))))


def hypot(x: float, y: float) -> float:
    return float(np.sqrt(x ** 2 + y ** 2))


def softplus(x: float) -> float:
    return float(np.log1p(np.exp(x)))


def softplus_rrule(x: float) -> tuple[float, Callable[[float], tuple[Any, float]]]:
    def softplus_pullback(g: float) -> tuple[Any, float]:
        return s2sad.NO_TANGENT, g / (1.0 + float(np.exp(-x)))
    return softplus(x), softplus_pullback


def logistic(x: float) -> float:
    return float(1.0 / (1.0 + np.exp(-x)))


def cube_root(x: float) -> float:
    return float(np.cbrt(x))


def cube_root_slope(ans: float, x: float) -> float:
    return 1.0 / (3.0 * ans ** 2)


def twice(x: Array) -> Array:
    return 2.0 * x


def bucket(x: float) -> float:
    return float(np.floor(x / 0.5))


def with_bucket(x: float) -> float:
    return x * bucket(x)


def halve(x: float) -> float:
    return x / 2.0


class Scale:
    def __init__(self, factor: float) -> None:
        self.factor = factor

    def apply(self, x: Array) -> Array:
        return self.factor * x


def scaled_energy(x: Array) -> float:
    return float(np.sum(Scale(3.0).apply(x) ** 2))


def register_rules() -> None:
    s2sad.defvjp(logsumexp, lambda ans, x: lambda g: g * np.exp(x - ans))
    s2sad.defvjp_all(hypot, "x, y", lambda g, ans, x, y: (g * x / ans, g * y / ans))
    s2sad.defrrule(softplus, softplus_rrule, "x")
    s2sad.defderivative(logistic, "x", "ans * (1 - ans)")
    s2sad.defslopes(cube_root, "x", cube_root_slope)
    s2sad.defvjp(twice, "x", "2.0 * g")
    s2sad.deflinear(twice)
    s2sad.defjvp(logsumexp, lambda g, ans, x: np.sum(g * np.exp(x - ans)))
    s2sad.nondifferentiable(bucket)
    s2sad.defvjp(Scale.apply, "self, x", None, "g * self.factor")
    s2sad.defmethod(Scale, "apply")
    s2sad.defderivative(halve, "x", "0.25")  # wrong on purpose: dropped below
    assert s2sad.grad(halve)(1.0) == 0.25
    s2sad.unregister(halve)
    assert s2sad.grad(halve)(1.0) == 0.5
    s2sad.defderivative(halve, "x", "0.25")
    again: Callable[[float], float] = s2sad.differentiate_source(halve)
    assert s2sad.grad(again)(1.0) == 0.5


def main() -> None:
    rng = np.random.default_rng(0)
    W, b, X = rng.normal(size=(3, 2)), np.zeros(2), rng.normal(size=(5, 3))
    x = np.array([0.3, -0.8, 1.1])
    close = np.allclose

    # transforms
    dW: Any = s2sad.grad(loss)(W, b, X)
    value, (gW, gb) = s2sad.value_and_grad(loss, argnums=(0, 1))(W, b, X)
    (value2, norm), gW2 = s2sad.value_and_grad(loss_and_norm, has_aux=True)(W, b, X)
    y, pullback = s2sad.vjp(vector_function, x)
    out, rule_pullback = s2sad.rrule(vector_function, x)
    y_jvp, tangent = s2sad.jvp(vector_function, (x,), (np.ones(3),))
    J_fwd = s2sad.jacfwd(vector_function)(x)
    J_rev = s2sad.jacrev(vector_function)(x)
    J = s2sad.jacobian(vector_function)(x)
    H = s2sad.hessian(plain_energy)(x)
    Hv = s2sad.hvp(plain_energy, (x,), (np.ones(3),))
    z = np.array([0.5 + 0.5j, -1.0 + 0.2j])
    dz = s2sad.grad(cube, holomorphic=True)(z)
    assert dW.shape == W.shape and close(gW, dW) and gb.shape == b.shape and value == loss(W, b, X)
    assert close(pullback(np.ones(3))[0], rule_pullback(np.ones(3))[1]) and close(y, out) and close(y_jvp, y)
    assert close(J_fwd, J_rev) and close(J, J_fwd) and close(tangent, J @ np.ones(3))
    assert close(H, np.diag(12 * x ** 2)) and close(Hv, 12 * x ** 2) and close(dz, 3 * z ** 2)
    assert norm == float(np.sum(W ** 2)) and close(gW2, dW) and value2 == value
    try:
        s2sad.grad(cube)(z)
        raise AssertionError("a complex output needs holomorphic=True")
    except s2sad.ComplexDtypeError:
        pass

    # the decorator and the generated code
    dx, dy = energy.grad(W[:, 0], W[:, 1])
    printed = io.StringIO()
    s2sad.show(loss, argnums=(0, 1), file=printed)
    assert isinstance(energy, s2sad.Differentiated) and np.shape(dx) == (3,) and np.shape(dy) == (3,)
    assert "def loss_rrule(W, b, X):" in printed.getvalue()

    # the conveniences
    y_lin, f_jvp = s2sad.linearize(np.sin, W)
    stopped: Array = s2sad.stop_gradient(W)
    elementwise = s2sad.elementwise_grad(np.tanh)(W)
    assert np.shape(f_jvp(W)) == W.shape and stopped.shape == W.shape and np.shape(elementwise) == W.shape
    assert np.all(np.abs(s2sad.grad(lambda v: float(np.sum(5.0 * clipped(v))))(b)) <= 1.0)
    assert close(s2sad.grad(log1pexp)(100.0), 1.0)

    # rules of the user's
    register_rules()
    assert close(s2sad.grad(logsumexp)(np.zeros(2)), [0.5, 0.5])
    assert close(s2sad.grad(hypot, argnums=(0, 1))(3.0, 4.0), (0.6, 0.8))
    assert close(s2sad.grad(softplus)(0.0), 0.5) and close(s2sad.grad(logistic)(0.0), 0.25)
    assert close(s2sad.grad(cube_root)(8.0), 1 / 12) and close(s2sad.jvp(twice, (x,), (x,))[1], 2 * x)
    assert s2sad.grad(with_bucket)(1.2) == 2.0 and close(s2sad.grad(scaled_energy)(x), 18 * x)

    # checking
    check_grad(loss, W, b, X, argnums=(0, 1))
    s2sad.check_grads(loss, modes=("fwd", "rev"))(W, b, X)
    s2sad.testing.check_grads(plain_energy, order=2)(x)
    check_jvp(vector_function, x)
    check_hvp(plain_energy, x)
    check_rrule(np.tanh, x)
    assert close(numerical_gradient(plain_energy, x), 4 * x ** 3, rtol=1e-6)

    # the symbolic tangents and the errors
    assert s2sad.ZERO + 1.0 == 1.0 and s2sad.vjp(twice, x)[1](x)[0] is not s2sad.NO_TANGENT
    errors: list[type[Exception]] = [s2sad.S2SADError, s2sad.UnsupportedSyntaxError, s2sad.SourceUnavailableError,
                                     s2sad.MissingRuleError, s2sad.ArgumentError, s2sad.ComplexDtypeError,
                                     s2sad.RuleError]
    assert all(issubclass(error, s2sad.S2SADError) for error in errors)
    warnings.simplefilter("ignore", s2sad.RefusedBranchWarning)


if __name__ == "__main__":
    main()
