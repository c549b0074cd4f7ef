"""Session 17's brief, item 6: ``super().__init__(...)`` given only constants, in a constructor that
computes. Reverse code called the base's initializer as a plain call, which runs ``__init__``'s own
code and returns None (AttributeError on the next line, in grad and compile: forward mode had been
fixed alone, by ``initialized``), and a Hessian through forward code met ``initialized`` without a
rule ("no rule for `initialized`", naming nothing the user wrote). ``super().__init__(w); self.s = s``
on one line was refused as "super() other than ... as a statement". Every mode against central
differences."""
import numpy as np
import pytest

from finite_differences import assert_every_mode_matches

X = np.linspace(-0.5, 0.7, 3)


class Scaled:
    def __init__(self, w, k=2.0):
        self.w2 = w * k


class Shifted(Scaled):
    def __init__(self, w, offset):
        super().__init__(w, k=0.5)  # given constants only
        self.shift = np.cos(offset)

    def apply(self, v):
        return v * self.w2 - self.shift


class ReadsWhatTheBaseSet(Scaled):
    def __init__(self, y):
        super().__init__(np.ones(3), k=2.0)
        self.y = y * self.w2


class ThreeDeep(Shifted):
    def __init__(self, s):
        super().__init__(np.linspace(1.0, 2.0, 3), s)
        self.s = np.sin(self.shift)


class OnOneLine(Scaled):
    def __init__(self, w, s):
        super().__init__(w * s); self.s = s  # noqa: E702


def base_given_constants_then_a_differentiated_field(x):
    return np.sum(Shifted(np.ones(3), x[0]).apply(x) ** 2)


def a_field_computed_from_the_bases(x):
    return np.sum(ReadsWhatTheBaseSet(np.cos(x)).y ** 2 * x)


def three_deep(x):
    o = ThreeDeep(x[1])
    return np.sum(o.apply(x) * o.s)


def super_init_and_a_store_on_one_line(x):
    o = OnOneLine(x, 2.0)
    return np.sum(o.w2 ** 2 * o.s)


@pytest.mark.parametrize("function", [base_given_constants_then_a_differentiated_field, a_field_computed_from_the_bases,
                                      three_deep, super_init_and_a_store_on_one_line])
def test_every_mode_matches_central_differences(function):
    assert_every_mode_matches(function, X, np.cos(np.arange(3.0)), np.sin(np.arange(3.0) + 1.0))
