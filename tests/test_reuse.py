"""Pullbacks read values the primal already computed (s2sad/reuse.py), where that is sound."""
import numpy as np
import pytest

import reuse_programs as programs
import s2sad
from finite_differences import assert_gradients_match
from s2sad.transform import transform

x = np.random.default_rng(3).standard_normal(5)


def pullback_of(function):
    source = transform(function, ("x",)).source
    lines = source.split("_pullback(", 1)[1].splitlines()
    return "\n".join(line for line in lines if not line.strip().startswith("#"))


@pytest.mark.parametrize("function", [programs.sin_times_cos, programs.spelt_differently])
def test_the_pullback_reads_the_primal_cosine_and_sine(function):
    pullback = pullback_of(function)
    assert "np.cos(" not in pullback and "np.sin(" not in pullback
    assert_gradients_match(function, [x], (0,), [s2sad.grad(function)(x)])


def test_a_value_computed_on_one_path_only_is_computed_again():
    # the branch taken may not have computed it: the rule's own expression stays
    assert "np.cos(x)" in pullback_of(programs.cosine_in_a_branch)
    for point in (x, -np.abs(x)):
        assert_gradients_match(programs.cosine_in_a_branch, [point], (0,), [s2sad.grad(programs.cosine_in_a_branch)(point)])


def test_a_carried_value_is_not_mistaken_for_the_value_before_the_loop():
    function = programs.cosine_of_a_carried_value
    assert_gradients_match(function, [x], (0,), [s2sad.grad(function)(x)])


def test_nothing_is_reused_in_a_function_that_changes_arrays_in_place():
    function = programs.cosine_before_a_change_in_place
    assert "np.cos(y)" in pullback_of(function)
    assert_gradients_match(function, [x], (0,), [s2sad.grad(function)(x)])


def test_the_unoptimised_translation_keeps_the_rules_as_written():
    source = transform(programs.sin_times_cos, ("x",), optimize=False).source
    assert "_vjp" in source.split("_pullback(", 1)[1]
