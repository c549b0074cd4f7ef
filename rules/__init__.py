"""The built-in rules: importing this package registers all of them.

One module per namespace, each a flat table: ``operators`` (``a + b``, ``a[i]``),
``numpy_elementwise``, ``numpy_reductions``, ``numpy_shapes``, ``numpy_linalg`` (products
and ``numpy.linalg``), ``ndarray_methods`` (``x.sum()``, ``x.T``), ``math_module``,
``builtins``, ``nondifferentiable``; ``scipy_special`` when SciPy is installed.
``helpers`` holds the functions rule templates may call.
"""
from . import helpers  # noqa: F401
from . import operators, numpy_elementwise, numpy_reductions, numpy_shapes, numpy_linalg  # noqa: F401
from . import ndarray_methods, math_module, builtins, nondifferentiable  # noqa: F401

# SciPy is optional, and importing it costs a quarter of a second: its rules are
# registered now if the user has already imported scipy, else on the first lookup of
# a scipy function (see s2sad.registry.rule_for).
import sys as _sys

if "scipy.special" in _sys.modules:
    from . import scipy_special  # noqa: F401
