"""Registering your own differentiation rules, checking them, and opting out of them.

Shows, for two user functions:

* ``softplus``: an elementwise function given its derivative in one line with
  ``s2sad.defderivative``; s2sad turns it into a broadcasting template that it inlines;
* ``unit``: a vector normalised to length 1, given a hand-written vjp with
  ``s2sad.defvjp`` (a Python function ``(g, ans, v) -> cotangent of v``).

Each rule is checked against finite differences with ``s2sad.testing.check_rrule``, then
used inside a differentiated function (the generated code shows where). Finally
``s2sad.differentiate_source`` drops the rules, so s2sad differentiates the two
functions' own source instead, and the gradients are compared.

Run: python examples/custom_rule.py

Exits with status 1 if a check fails.
"""
import sys

import numpy as np

import s2sad
from s2sad.testing import check_grad, check_rrule


def softplus(x):
    """log(1 + exp(x)), computed without overflow for large x."""
    return np.logaddexp(0.0, x)


def unit(v):
    """``v`` scaled to length 1."""
    return v / np.sqrt(np.sum(v * v))


def unit_vjp(g, ans, v):
    """The cotangent of ``v`` for the output cotangent ``g`` of ``unit(v)`` (its value is ``ans``).

    The Jacobian of ``v / |v|`` is ``(I - u u^T) / |v|`` with ``u = ans``: symmetric, so the
    vjp is the same matrix applied to ``g``.
    """
    return (g - ans * np.sum(ans * g)) / np.sqrt(np.sum(v * v))


# The derivative of softplus is the logistic function: one expression in x (and ans, the output).
s2sad.defderivative(softplus, "x", "1 / (1 + np.exp(-x))")
# One vjp per positional parameter of the signature: a template string, a function, or None.
s2sad.defvjp(unit, "v", unit_vjp)


def model(w, X):
    """A scalar that uses both functions: the mean softplus of projections on a unit direction."""
    direction = unit(w)
    return np.mean(softplus(X @ direction))


def main():
    rng = np.random.default_rng(1)
    w, X = rng.standard_normal(3), rng.standard_normal((20, 3))

    # 1. Each rule on its own against finite differences (float64, float32, broadcasting inputs).
    check_rrule(softplus, rng.standard_normal((4, 2)))
    check_rrule(softplus, rng.standard_normal(5).astype(np.float32))
    check_rrule(unit, rng.standard_normal(4))
    print("check_rrule: both rules match finite differences")

    # 2. Used inside a differentiated function: the gradient, checked end to end.
    with_rules = s2sad.grad(model)(w, X)
    check_grad(model, w, X)
    print(f"gradient with the rules:      {np.array2string(with_rules, precision=8)}")
    source = s2sad.differentiate(model).source
    print("in the generated pullback:")
    for line in source.splitlines():
        if ("unit_vjp_v(" in line or "np.exp(-" in line) and "=" in line:
            print("   ", line.strip())      # the template inlined, the vjp function called

    # 3. Opting out: s2sad differentiates the functions' source instead of using the rules.
    s2sad.differentiate_source(softplus)
    s2sad.differentiate_source(unit)
    from_source = s2sad.grad(model)(w, X)
    print(f"gradient from the source:     {np.array2string(from_source, precision=8)}")
    if not np.allclose(with_rules, from_source, rtol=1e-10, atol=1e-12):
        print("FAILED: the rules and the source give different gradients", file=sys.stderr)
        return 1
    source = s2sad.differentiate(model).source
    if "unit_vjp" in source or "unit_rrule" not in source:
        print("FAILED: the generated code still uses the rule of unit", file=sys.stderr)
        return 1
    print("after differentiate_source the generated code calls unit's own generated rrule:")
    for line in source.splitlines():
        if "unit_rrule(" in line or "softplus_rrule(" in line:
            print("   ", line.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
