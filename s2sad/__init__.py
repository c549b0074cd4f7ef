"""s2sad: source-to-source automatic differentiation for Python and NumPy."""
from __future__ import annotations

import os as _os

__version__ = "0.1.0"

from ._checkout import load_checkout_rules as _load_checkout_rules

_load_checkout_rules(_os.path.dirname(__file__))

from . import rules  # noqa: E402  (registers the built-in rules)

from .api import Differentiated, differentiate, grad, rrule, show, value_and_grad, vjp  # noqa: E402
from .errors import (  # noqa: E402
    ArgumentError, MissingRuleError, RuleError, S2SADError, SourceUnavailableError, UnsupportedSyntaxError,
)
from .registry import defmethod, defrrule, defvjp, defvjp_all, nondifferentiable, unregister  # noqa: E402
from .tangents import NO_TANGENT, ZERO  # noqa: E402

__all__ = [
    "grad", "value_and_grad", "vjp", "rrule", "differentiate", "Differentiated", "show",
    "defvjp", "defvjp_all", "defrrule", "defmethod", "nondifferentiable", "unregister",
    "ZERO", "NO_TANGENT",
    "S2SADError", "UnsupportedSyntaxError", "SourceUnavailableError", "MissingRuleError", "ArgumentError", "RuleError",
]
