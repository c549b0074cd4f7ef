"""Every helper compiled code calls, gathered from the modules that define their Numba overloads:
the one module generated code imports its helpers from (``from s2sad.compiled_overloads import
...``), so that loading it registers every overload, those too that ``compiled_lists`` and
``compiled_linear_algebra`` add to ``compiled_helpers``' stubs (``item_cotangent`` of a list,
``numpy_matmul`` of stacks of matrices), ``compiled_exact_points``' check of ``x == c``, ``compiled_sorting``'s ``sorted``, ``compiled_repeats``'
``np.repeat`` along an axis, ``compiled_rolls``' ``np.roll``, ``compiled_index_arrays``' indices
given as an array of ints and ``compiled_shared_memory``'s check of an array changed in place."""
from . import compiled_basics, compiled_exact_points, compiled_helpers, compiled_index_arrays, \
    compiled_linear_algebra, compiled_lists, compiled_repeats, compiled_rolls, compiled_shared_memory, \
    compiled_sorting
from .compiled_basics import *  # noqa: F401,F403
from .compiled_helper_modules import HELPER_MODULES
from .compiled_exact_points import *  # noqa: F401,F403
from .compiled_helpers import *  # noqa: F401,F403
from .compiled_linear_algebra import *  # noqa: F401,F403
from .compiled_lists import *  # noqa: F401,F403
from .compiled_repeats import *  # noqa: F401,F403
from .compiled_rolls import *  # noqa: F401,F403
from .compiled_sorting import *  # noqa: F401,F403

__all__ = [name for module in HELPER_MODULES for name in globals()[module].__all__]
