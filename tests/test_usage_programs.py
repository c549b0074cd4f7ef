"""Every check of ``usage_programs.py`` (s2sad used as a notebook user or an ML engineer uses it:
definitions changed between calls, parameters updated in place, gradients of gradients, rules
registered and replaced) gives the right derivative or the refusal listed here.

Each number is compared there with central differences of the plain function as it is at that
time. A check not listed in REFUSED must give numbers; one listed must raise an s2sad error.
"""
import pytest

from usage_programs import CHECKS, outcome

REFUSED = {
    # the file was saved after Python compiled the function: its text is not the code that runs
    "file_edited_without_reload", "file_edited_above_without_reload", "module_reloaded_after_edit",
    # an emitted derivative file whose function's text changed since it was emitted
    "emitted_file_then_source_changed",
    # a user's reverse rule without a forward rule gives jvp, not a second derivative (README)
    "template_rule_in_grad_jvp_hvp", "defvjp_all_in_hvp",
    # rules handing back cotangents of the wrong shape, or too few of them
    "rule_with_wrong_shape", "rule_with_wrong_shape_broadcastable", "rule_with_wrong_shape_same_size",
    "rrule_with_wrong_number_of_cotangents", "rrule_cotangents_off_by_one",
    # a differentiated float given to a parameter the user's rule has no derivative for (a None slot, or
    # one after the last vjp given): it gave 0.0 where central differences give 8.3483
    "rule_for_keyword_arguments",
}

KNOWN_WRONG: dict = {}  # name -> what is wrong (strict xfail): none left


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_WRONG[name]))
                                  if name in KNOWN_WRONG else name for name in sorted(CHECKS)])
def test_usage(name, tmp_path, monkeypatch):
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    result, detail = outcome(name, tmp_path / "work")
    expected = "refused" if name in REFUSED else "right"
    assert result == expected, f"{name}: {result} ({detail})"


def test_every_outcome_is_listed_for_a_check_that_exists():
    assert REFUSED <= set(CHECKS) and set(KNOWN_WRONG) <= set(CHECKS)
    assert 50 <= len(CHECKS) <= 90
