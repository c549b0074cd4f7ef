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
from .tangents import NO_TANGENT, ZERO, unthunk


def _floating(value, in_sequences: bool = False) -> bool:
    """A float or float array; ``in_sequences``: or a list or tuple holding one (``x.tolist() == [0.0, 1.0]``)."""
    if isinstance(value, (float, complex, np.floating, np.complexfloating)):
        return True
    if in_sequences and isinstance(value, (list, tuple)):
        return any(_floating(item, True) for item in value)
    return isinstance(value, np.ndarray) and value.dtype.kind in "fc"


def _moving(tangent):
    """Where a tangent is not 0 (of a list or tuple: whether any of its items' is); False where it
    says nothing (no tangent, or not a number's)."""
    tangent = unthunk(tangent)
    if isinstance(tangent, (list, tuple)):
        return any(np.any(_moving(item)) for item in tangent)
    if tangent is ZERO or tangent is NO_TANGENT or not isinstance(tangent, (float, complex, np.number, np.ndarray)):
        return False
    return np.asarray(tangent) != 0


# the arguments of the check reverse code writes (forward code adds the operand's tangent)
EXACT_POINT_ARGUMENTS = 7


def at_an_exact_point(found, operand, equal: bool, spelling: str, filename: str, line: int, column: int,
                      tangent=None) -> None:
    """Refuse ``found = operand == constant`` (``equal``) or ``operand != constant`` where it finds
    ``operand`` equal to the constant: the outcome at an isolated point. ``found`` None: the test
    is of ``operand``'s truth, and the check compares it with 0 itself. Forward code passes the
    operand's ``tangent``: where it is 0 the operand stays put along it (a relu's 0 for a negative
    input, data given no tangent), the outcome holds around the point, and nothing is refused."""
    if not _floating(operand, in_sequences=found is not None):
        return
    if found is None:  # a test of the operand's truth (``if v:``, ``np.where(x, ...)``): is it 0?
        found = np.equal(operand, 0)
    if not isinstance(found, (bool, np.bool_, np.ndarray)):
        return
    hits = np.asarray(found, dtype=bool) if equal else ~np.asarray(found, dtype=bool)
    if tangent is not None:
        hits = hits & _moving(tangent)
    if not np.any(hits):
        return
    raise refusal_at(
        UnsupportedSyntaxError,
        f"`{spelling}` finds a differentiated value exactly equal to a constant (a key it looks up, a value moving "
        "with other inputs, or another element of its array), and the branch or entry it chooses "
        "holds at that point alone: s2sad differentiates the branch taken, whose derivative there is not "
        "the function's (a guard like `np.where(x == 0, 1.0, np.sin(x) / x)` has slope 0 at 0)",
        filename, line, column,
        "differentiate at a point where they differ, or give the guarded expression a rule of its own "
        "(s2sad.custom_jvp / s2sad.defvjp) with its limit's derivative; data compared so (counts == 0) is "
        "not refused once it is not differentiated (leave it out of argnums, or close over it), and a value "
        "that stays put around the point (a relu's 0) is better tested by what made it (z <= 0); a norm's "
        "`r > 0` choosing by the vector itself is better `r < eps` choosing the Taylor expansion in the vector "
        "(Rodrigues' `np.eye(3) + skew(w)`)")


at_an_exact_point.reads_its_arguments_only = True  # (forward code calling it is differentiated again for hvp)
