"""What stays refused of issue 16's items 2 and 4, and how: ``super().method(...)`` in a method
(the hint names the base and the method to call by name, which is differentiated), and ``.append``
on a list an object's field holds (``self.history.append(h)``, ``state.trace.append(x)``), the list
shared by two objects included: refused at the line in every mode, never a number. Against central
differences where they run."""
import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_matches

W = np.linspace(-1.0, 1.0, 12).reshape(3, 4) * 0.3


class Layer:
    def __init__(self, W):
        self.W = W

    def forward(self, x):
        return np.tanh(x @ self.W)


class ScaledBySuper(Layer):
    def __init__(self, W, s):
        super().__init__(W)
        self.s = s

    def forward(self, x):
        return super().forward(x) * self.s


class ScaledByName(Layer):
    def __init__(self, W, s):
        super().__init__(W)
        self.s = s

    def forward(self, x):
        return Layer.forward(self, x) * self.s


def through_super(x):
    return np.sum(ScaledBySuper(W, 2.0).forward(x))


def through_the_base_by_name(x):
    return np.sum(ScaledByName(W, 2.0).forward(x) ** 2)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_super_in_a_method_is_refused_naming_the_base_and_method_to_call(mode):
    x = np.linspace(-0.5, 0.7, 3)
    run = {"grad": lambda: s2sad.grad(through_super)(x), "jvp": lambda: s2sad.jvp(through_super, (x,), (x,))}[mode]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=r"`super\(\)` is not supported in a method") as caught:
        run()
    assert "super().forward(x)" in caught.value.location.text
    assert "`Layer.forward(self, ...)`" in caught.value.hint


def test_what_the_hint_says_is_differentiated():
    x = np.linspace(-0.5, 0.7, 3)
    assert_every_mode_matches(through_the_base_by_name, x, np.cos(np.arange(3.0)), np.sin(np.arange(3.0) + 1.0))


class Recorder:
    def __init__(self):
        self.history = []

    def step(self, h):
        self.history.append(h)  # marker: kept in the object
        return h * 2.0


def history_read_back(x):
    r = Recorder()
    h = x
    for _ in range(3):
        h = np.sin(r.step(h))  # marker: only the history read
    return np.sum(np.stack(r.history) ** 2)


def history_and_result_read(x):
    r = Recorder()
    h = x
    for _ in range(3):
        h = np.sin(r.step(h))
    return np.sum(h) + np.sum(np.stack(r.history))


class Holder:
    def __init__(self, trace):
        self.trace = trace


def appended_to_a_field(x):
    state = Holder([])
    state.trace.append(x)  # marker: a field's list
    state.trace.append(x * 2.0)
    return np.sum(np.stack(state.trace) ** 2)


def appended_through_one_read_through_another(x):
    shared = []
    a = Holder(shared)
    b = Holder(shared)
    a.trace.append(x)  # marker: a field's list
    return np.sum(np.stack(b.trace) ** 2)


def appended_after_an_object_took_it(x):
    kept = []
    state = Holder(kept)
    kept.append(x * 2.0)  # marker: seen by state
    return np.sum(np.stack(state.trace) ** 2)


@pytest.mark.parametrize("function, marker, error, message", [
    (history_read_back, "only the history read", s2sad.MissingRuleError, "calls the method `.step`"),
    (history_and_result_read, "kept in the object", s2sad.MissingRuleError, "calls the method `.append`"),
    (appended_to_a_field, "a field's list", s2sad.MissingRuleError, "calls the method `.append`"),
    (appended_through_one_read_through_another, "a field's list", s2sad.MissingRuleError, "calls the method `.append`"),
    (appended_after_an_object_took_it, "seen by state", s2sad.UnsupportedSyntaxError, "`state` sees the same object"),
])
@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_a_list_an_object_holds_changed_by_append_is_refused_at_its_line(function, marker, error, message, mode):
    x = np.linspace(-0.5, 0.7, 3)
    run = {"grad": lambda: s2sad.grad(function)(x), "jvp": lambda: s2sad.jvp(function, (x,), (np.ones(3),)),
           "hvp": lambda: s2sad.hvp(function, (x,), (np.ones(3),))}[mode]
    with pytest.raises(error, match=message) as caught:
        run()
    assert f"# marker: {marker}" in caught.value.location.text


def test_the_hint_for_a_method_keeping_its_argument_says_what_to_write():
    with pytest.raises(s2sad.MissingRuleError) as caught:
        s2sad.grad(history_read_back)(np.linspace(-0.5, 0.7, 3))
    assert "self.history.append(h)" in caught.value.hint and "hs.append" in caught.value.hint
