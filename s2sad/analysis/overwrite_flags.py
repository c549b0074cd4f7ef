"""Which ``overwrite_*`` flags a call of a library function sets: ``scipy.linalg.solve_triangular(a,
b, overwrite_b=True)`` and ``cho_solve(c, b, overwrite_b=True)`` may leave the solution in ``b``,
``np.median(a, overwrite_input=True)`` reorders ``a``, ``scipy.fft.fft(x, overwrite_x=True)`` may
write into ``x``. The rules read the call's result only: a later read of that argument saw the
library's changed values and s2sad's unchanged tangent, a wrong number in every mode. A flag given
anything but the literal ``False`` (or ``0``, ``None``), by keyword or by position, is taken for set."""
from __future__ import annotations

import inspect


def overwrite_flags_set(function, positional: list[bool], keywords: dict[str, bool], starred: bool) -> list[str]:
    """The names of ``function``'s ``overwrite_*`` parameters a call may set: ``positional`` says of
    each argument given by position whether it is the literal False, ``keywords`` the same by name;
    ``starred``: a ``*`` or ``**`` argument, which may reach any of them."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return []
    flags = []
    for index, parameter in enumerate(parameters):
        if not parameter.name.startswith("overwrite_"):
            continue
        by_position = parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD) \
            and index < len(positional) and not positional[index]
        by_keyword = parameter.name in keywords and not keywords[parameter.name]
        if by_position or by_keyword or starred and parameter.name not in keywords:
            flags.append(parameter.name)
    return flags
