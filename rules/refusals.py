"""Derivatives s2sad does not have, refused where one is asked for rather than given as 0.

A function declared ``nondifferentiable`` passes no gradient at all, which is right for
rounding and comparisons but silently wrong for a function whose output moves with a float
argument (the factors of ``lu_factor``, a draw ``normal(loc, scale)``). Such functions
get a rule whose vjp and jvp raise a located ``MissingRuleError`` when a gradient reaches
that argument, and pass nothing for arguments without one (ints, shapes).
"""
from s2sad.errors import MissingRuleError
from s2sad.registry.forward import defjvp
from s2sad.registry import signature_from_text, defvjp


def refusing(what: str, hint: str):
    """A vjp (and jvp) ``(g, ans, *params)`` refusing a derivative of ``what``."""
    def no_derivative(g, ans, *params):
        raise MissingRuleError(f"no rule for the derivative of {what}", hint=hint)

    no_derivative.__name__ = no_derivative.__qualname__ = "no_derivative"
    return no_derivative


def defrefused(function, signature: str, refused_params, what: str, hint: str, name: str | None = None):
    """A rule for ``function`` refusing derivatives in ``refused_params`` (the others get none)."""
    params = list(signature_from_text(signature).parameters)
    refuse = refusing(what, hint)
    slots = [refuse if param in refused_params else None for param in params]
    rule = defvjp(function, signature, *slots, name=name)
    defjvp(function, *slots)
    return rule

