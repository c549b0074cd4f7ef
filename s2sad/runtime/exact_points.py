"""The refusal of a branch chosen by ``==`` (or ``!=``) between a differentiated float and a constant,
at a point where they are equal.

``np.where(x == 0, 1.0, np.expm1(x) / x)`` guards a removable singularity: NumPy's function is
smooth at 0 (its slope there is 1/2), but the branch the equality picks holds at that one point
only, so the branch taken (the constant 1.0) has slope 0. s2sad differentiates the branch taken,
which is right where the comparison's outcome holds around the point (``x > 0``), and wrong here.
Where no element is equal the branch holds around the point and the derivative is NumPy's.
"""
from __future__ import annotations

import numpy as np

from ..errors import UnsupportedSyntaxError, refusal_at


def _floating(value) -> bool:
    if isinstance(value, (float, complex, np.floating, np.complexfloating)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "fc"


def at_an_exact_point(found, operand, equal: bool, spelling: str, filename: str, line: int, column: int) -> None:
    """Refuse ``found = operand == constant`` (``equal``) or ``operand != constant`` where it finds
    ``operand`` equal to the constant: the outcome at an isolated point."""
    if not _floating(operand) or not isinstance(found, (bool, np.bool_, np.ndarray)):
        return
    hits = np.asarray(found, dtype=bool) if equal else ~np.asarray(found, dtype=bool)
    if not np.any(hits):
        return
    raise refusal_at(
        UnsupportedSyntaxError,
        f"`{spelling}` finds a differentiated value exactly equal to a constant, and the branch it chooses "
        "holds at that point alone: s2sad differentiates the branch taken, whose derivative there is not "
        "the function's (a guard like `np.where(x == 0, 1.0, np.sin(x) / x)` has slope 0 at 0)",
        filename, line, column,
        "differentiate at a point where they differ, or give the guarded expression a rule of its own "
        "(s2sad.custom_jvp / s2sad.defvjp) with its limit's derivative")


at_an_exact_point.reads_its_arguments_only = True  # (forward code calling it is differentiated again for hvp)
