"""s2sad: source-to-source automatic differentiation for Python and NumPy."""
from __future__ import annotations

import importlib as _importlib
import os as _os
from typing import TYPE_CHECKING, Any

from .version import __version__  # noqa: F401

from ._checkout import load_checkout_rules as _load_checkout_rules

_load_checkout_rules(_os.path.dirname(__file__))

from . import rules  # noqa: E402  (registers the built-in rules)

from .api import grad, rrule, value_and_grad, vjp  # noqa: E402
from .decorator import Differentiated, differentiate, show  # noqa: E402
from .registry.forward import defjvp, deflinear  # noqa: E402
from .errors import (  # noqa: E402
    ArgumentError, CompiledFallbackWarning, ComplexDtypeError, MissingRuleError, RefusedBranchWarning, RuleError, S2SADError,
    SourceUnavailableError, UnsupportedSyntaxError,
)
from .registry import (  # noqa: E402
    defmethod, defrrule, defvjp_all, differentiate_source, nondifferentiable, unregister,
)
from .registry.slopes import defderivative, defslopes  # noqa: E402
# With s2sad, not on first use: stop_gradient's rule is a library rule, in every cache key,
# so the set of rules must not depend on whether a program touched these names.
from .conveniences import (  # noqa: E402
    custom_jvp, custom_vjp, defvjp, elementwise_grad, linearize, stop_gradient,
)
from .runtime.tangents import NO_TANGENT, ZERO  # noqa: E402

# Imported on first use, not with s2sad (a warm start pays only for what it runs):
# s2sad.testing (check_grad, check_rrule: public; autograd's check_grads) and the Jacobian helpers.
_LAZY = {"testing": (".testing", None), "check_grads": (".testing", "check_grads"), **{name: (".jacobians", name) for name in (
    "hessian", "hvp", "jacfwd", "jacobian", "jacrev", "jvp")}}


if TYPE_CHECKING:  # the names imported on first use, as type checkers should see them
    from . import testing  # noqa: F401
    from .testing import check_grads  # noqa: F401
    from .jacobians import hessian, hvp, jacfwd, jacobian, jacrev, jvp  # noqa: F401


def __getattr__(name: str) -> Any:
    try:
        module_name, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 's2sad' has no attribute {name!r}") from None
    module = _importlib.import_module(module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "grad", "value_and_grad", "vjp", "rrule", "differentiate", "Differentiated", "show",
    "jvp", "jacfwd", "jacrev", "jacobian", "hessian", "hvp", "defjvp", "deflinear",
    "stop_gradient", "elementwise_grad", "linearize", "check_grads", "custom_vjp", "custom_jvp",
    "defvjp", "defvjp_all", "defrrule", "defderivative", "defslopes", "defmethod", "nondifferentiable", "unregister",
    "differentiate_source", "testing",
    "ZERO", "NO_TANGENT",
    "S2SADError", "UnsupportedSyntaxError", "SourceUnavailableError", "MissingRuleError", "ArgumentError", "ComplexDtypeError", "RuleError",
    "RefusedBranchWarning", "CompiledFallbackWarning",
]
