"""Calls of s2sad's public API that are wrong, each on its line with the error mypy must report:
the annotations are precise enough to catch them (tests/test_docs.py checks that it does).
Not a program to run."""
from __future__ import annotations

import s2sad
from s2sad.testing import check_grad


def f(x: float) -> float:
    return x * 2.0


s2sad.grad(f, holomorphic="yes")  # E: Argument "holomorphic" to "grad" has incompatible type
s2sad.value_and_grad(f, argnums="0")  # E: Argument "argnums" to "value_and_grad" has incompatible type
s2sad.jacrev(f, has_aux=1.5)  # E: Argument "has_aux" to "jacrev" has incompatible type
s2sad.jacfwd(f, holomorphic=None)  # E: Argument "holomorphic" to "jacfwd" has incompatible type
s2sad.vjp(f, 1.0, has_aux="no")  # E: Argument "has_aux" to "vjp" has incompatible type
s2sad.defvjp_all(f, 3, f)  # E: Argument 2 to "defvjp_all" has incompatible type
s2sad.defrrule(f, f, signature=1)  # E: Argument "signature" to "defrrule" has incompatible type
s2sad.defderivative(f, "x", 2.0)  # E: Argument 3 to "defderivative" has incompatible type
s2sad.defjvp(f, 1.0)  # E: Argument 2 to "defjvp" has incompatible type
s2sad.deflinear(f, 0)  # E: Argument 2 to "deflinear" has incompatible type
s2sad.nondifferentiable(3)  # E: Argument 1 to "nondifferentiable" has incompatible type
s2sad.defmethod("Layer", "apply")  # E: Argument 1 to "defmethod" has incompatible type
s2sad.unregister("f")  # E: Argument 1 to "unregister" has incompatible type
s2sad.differentiate_source(f)(1.0).upper()  # E: "float" has no attribute "upper"
s2sad.stop_gradient(2.0).upper()  # E: "float" has no attribute "upper"
s2sad.elementwise_grad(f, argnums=(0, 1))  # E: Argument "argnums" to "elementwise_grad" has incompatible type
s2sad.check_grads(f, order="2")  # E: Argument "order" to "check_grads" has incompatible type
check_grad(f, 1.0, rtol="x")  # E: Argument "rtol" to "check_grad" has incompatible type
s2sad.show(f, mode=1)  # E: Argument "mode" to "show" has incompatible type
s2sad.jvp(f, 1.0, (1.0,))  # E: Argument 2 to "jvp" has incompatible type
s2sad.hvp(f, (1.0,), (1.0,), 2)  # E: Too many arguments for "hvp"
s2sad.hessian(f, argnums=1.5)  # E: Argument "argnums" to "hessian" has incompatible type
