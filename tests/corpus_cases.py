"""The parameters of a corpus test for one mode (tests/test_realistic_programs.py,
tests/test_idiom_programs.py): one per program, a strict xfail for each the corpus lists as
refused in that mode, so a refusal that lifts turns into a failure to remove from the list."""
import pytest


def corpus_cases(names, refused: dict, mode: str) -> list:
    """``refused``: ``(mode, name) -> (error class, a fragment of its message, why)``."""
    params = []
    for name in sorted(names):
        refusal = refused.get((mode, name))
        marks = () if refusal is None else pytest.mark.xfail(strict=True, raises=refusal[0], reason=refusal[2])
        params.append(pytest.param(name, marks=marks, id=name))
    return params
