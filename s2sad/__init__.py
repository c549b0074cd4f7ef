"""s2sad: source-to-source automatic differentiation for Python and NumPy."""
from __future__ import annotations

import os as _os

__version__ = "0.1.0"

from ._checkout import load_checkout_rules as _load_checkout_rules

_load_checkout_rules(_os.path.dirname(__file__))

from . import rules  # noqa: E402  (registers the built-in rules)

from .api import Differentiated, differentiate, grad, rrule, show, value_and_grad, vjp  # noqa: E402
from .jacobians import hessian, hvp, jacfwd, jacobian, jacrev, jvp  # noqa: E402
from .forward_rules import defjvp, deflinear  # noqa: E402
from .errors import (  # noqa: E402
    ArgumentError, MissingRuleError, RuleError, S2SADError, SourceUnavailableError, UnsupportedSyntaxError,
)
from .registry import (  # noqa: E402
    defderivative, defmethod, defrrule, defvjp, defvjp_all, differentiate_source, nondifferentiable, unregister,
)
from . import testing  # noqa: E402  (s2sad.testing.check_grad, check_rrule: public)
from .tangents import NO_TANGENT, ZERO  # noqa: E402

__all__ = [
    "grad", "value_and_grad", "vjp", "rrule", "differentiate", "Differentiated", "show",
    "jvp", "jacfwd", "jacrev", "jacobian", "hessian", "hvp", "defjvp", "deflinear",
    "defvjp", "defvjp_all", "defrrule", "defderivative", "defmethod", "nondifferentiable", "unregister",
    "differentiate_source", "testing",
    "ZERO", "NO_TANGENT",
    "S2SADError", "UnsupportedSyntaxError", "SourceUnavailableError", "MissingRuleError", "ArgumentError", "RuleError",
]
