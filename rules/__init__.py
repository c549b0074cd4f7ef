"""The built-in rules: importing this package registers all of them.

One module per namespace, each a flat table: ``operators`` (``a + b``, ``a[i]``),
``numpy_elementwise``, ``numpy_reductions``, ``numpy_shapes``, ``numpy_linalg`` (products
and ``numpy.linalg``), ``numpy_polynomials`` (``np.polyval``, ``np.vander``),
``numpy_interpolation`` (``np.interp``), ``numpy_quantiles`` (``np.quantile``, ``np.percentile``), ``numpy_apply`` (``np.apply_along_axis``), ``numpy_windows`` (``np.kaiser``), ``numpy_array_api`` (NumPy 2's
``np.vecdot``, ``np.cumulative_sum``, ``np.unstack``, ``np.linalg.trace``), ``numpy_float_parts`` (``np.copysign``,
``np.ldexp``, ``np.frexp``, ``np.modf``), ``numpy_ufunc_methods`` (``np.add.reduce``,
``np.maximum.accumulate``, ``np.multiply.outer``), ``ndarray_methods`` (``x.sum()``,
``x.T``), ``math_module``, ``builtins``, ``python_containers`` (``sorted``, ``zip``, ``dict`` and
its methods), ``python_objects`` (``p.w = v``), ``functools_module`` (``functools.reduce``),
``nondifferentiable``, ``generated_code``, ``forward_dispatch`` and ``context_managers`` (what generated
code calls);
``scipy_special``, ``scipy_stats``, ``scipy_signal``, ``scipy_linalg`` and ``scipy_integrate``
once the user imports the SciPy module each is for (``scipy_array_api``, the plumbing
pure-Python SciPy functions call, once any of them is imported).
``helpers`` holds the functions rule templates may call.
"""
from . import helpers  # noqa: F401
from . import operators, numpy_elementwise, numpy_reductions, numpy_shapes, numpy_linalg, numpy_fft, numpy_polynomials  # noqa: F401
from . import numpy_interpolation, numpy_ufunc_methods, numpy_windows, numpy_array_api, numpy_float_parts  # noqa: F401
from . import numpy_quantiles, numpy_apply  # noqa: F401
from . import ndarray_methods, math_module, builtins, python_containers, python_objects, functools_module  # noqa: F401
from . import nondifferentiable  # noqa: F401
from . import generated_code, forward_dispatch, context_managers  # noqa: F401  (what generated code calls, so it can be differentiated again)

# SciPy is optional, and importing it costs a quarter of a second or more: the rules of
# scipy.special, .stats, .signal, .linalg and .integrate are registered now for the submodules the
# user has already imported, else on the first lookup of a function once they have (see
# s2sad.registry.rule_for). Each rules module imports only its own submodule.
from s2sad.registry import load_optional_rules

load_optional_rules()
