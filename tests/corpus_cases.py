"""The parameters of a corpus test for one mode (tests/test_realistic_programs.py,
tests/test_idiom_programs.py): one per program, a strict xfail for each the corpus lists as
refused in that mode, so a refusal that lifts turns into a failure to remove from the list."""
import os
import re

import pytest

# compile=True is the suite's costliest mode (Numba compiles each program anew, several seconds
# each): in the default run a corpus's programs take it in turns, one in COMPILED_SHARE, the others
# in every other mode; S2SAD_TESTS=full runs every program in every mode
FULL = os.environ.get("S2SAD_TESTS") == "full"
COMPILED_SHARE = 8


def corpus_cases(names, refused: dict, mode: str) -> list:
    """``refused``: ``(mode, name) -> (error class, a fragment of its message, why)``."""
    params = []
    for name in sorted(names):
        refusal = refused.get((mode, name))
        marks = () if refusal is None else pytest.mark.xfail(strict=True, raises=refusal[0], reason=refusal[2])
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def compiled_share(names, share: int = COMPILED_SHARE) -> list:
    """The programs of ``names`` (sorted) that take the compiled mode in this run: one in ``share``."""
    return [name for position, name in enumerate(sorted(names)) if FULL or position % share == 0]


def in_every_mode(names, modes) -> list:
    """``(name, mode)`` parameters of a corpus's programs in its modes: every pair, but for the
    compiled mode, taken by the ``compiled_share`` alone."""
    compiled = set(compiled_share(names))
    return [pytest.param(name, mode, id=f"{name}-{mode}") for name in sorted(names) for mode in modes
            if mode != "grad_compiled" or name in compiled]


def check_or_refused(check, name: str, mode: str, refused: dict) -> None:
    """``check(name, mode)``; for a program ``refused`` lists in that mode, the listed error with
    its message instead (a refusal with another message fails)."""
    refusal = refused.get((mode, name))
    if refusal is None:
        check(name, mode)
        return
    with pytest.raises(refusal[0]) as error:
        check(name, mode)
    assert re.search(refusal[1], str(error.value), re.S), f"{name} ({mode}) refused, but not as listed: {error.value}"
