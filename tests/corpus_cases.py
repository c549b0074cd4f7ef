"""The parameters of a corpus test for one mode (tests/test_realistic_programs.py,
tests/test_idiom_programs.py): one per program, a strict xfail for each the corpus lists as
refused in that mode, so a refusal that lifts turns into a failure to remove from the list."""
import re

import pytest


def corpus_cases(names, refused: dict, mode: str) -> list:
    """``refused``: ``(mode, name) -> (error class, a fragment of its message, why)``."""
    params = []
    for name in sorted(names):
        refusal = refused.get((mode, name))
        marks = () if refusal is None else pytest.mark.xfail(strict=True, raises=refusal[0], reason=refusal[2])
        params.append(pytest.param(name, marks=marks, id=name))
    return params


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
