"""Issue 16, items 2 and 4. ``super().method(...)`` in a method called on an object: the method is
specialised to the object's type, ``super()`` reaching what Python's reaches (a diamond's next
class, a chain of three), in grad, vjp, jvp and compile, and (session 17) in hvp; a ``super()``
reaching a property reads it through its getter, in every mode; in a method called by name it is
refused at the line, the hint naming the base and what to call. ``.append`` on a list an object's field holds (``self.history.append(h)``,
``state.trace.append(x)``), the list shared by two objects included, stays refused at the line in
every mode, never a number. Against central differences where they run."""
import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_matches, assert_hvp_matches, numerical_gradient

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


class Base:
    def f(self, x):
        return np.sin(x) * 2.0


class Left(Base):
    def f(self, x):
        return super().f(x) + x ** 2


class Right(Base):
    def f(self, x):
        return super().f(x) * 3.0


class Diamond(Left, Right):
    pass


def diamond_through_super(x):
    # Left.f's super() reaches Right.f for a Diamond (its MRO: Diamond, Left, Right, Base), Base.f for a Left
    return np.sum(Diamond().f(x)) + np.sum(Left().f(x * 0.5) ** 2)


class Top(Left):
    def f(self, x):
        return super().f(x) * np.cos(x)


def chain_of_three(x):
    return np.sum(Top().f(x) ** 2)


def test_a_base_method_called_by_name_is_differentiated_in_every_mode():
    x = np.linspace(-0.5, 0.7, 3)
    assert_every_mode_matches(through_the_base_by_name, x, np.cos(np.arange(3.0)), np.sin(np.arange(3.0) + 1.0))


@pytest.mark.parametrize("function", [through_super, diamond_through_super, chain_of_three])
def test_super_in_a_method_reaches_what_python_reaches_for_the_objects_type(function):
    x, v = np.linspace(-0.5, 0.7, 3), np.cos(np.arange(3.0))
    expected = numerical_gradient(function, [x], 0)
    np.testing.assert_allclose(s2sad.grad(function)(x), expected, rtol=1e-6, atol=1e-8)
    value, pullback = s2sad.vjp(function, x)
    assert value == pytest.approx(function(x))
    np.testing.assert_allclose(pullback(2.0)[0], 2.0 * expected, rtol=1e-6, atol=1e-8)
    assert s2sad.jvp(function, (x,), (v,))[1] == pytest.approx(float(np.sum(expected * v)), rel=1e-6, abs=1e-8)
    np.testing.assert_allclose(s2sad.grad(function, compile=True)(x), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("function", [through_super, diamond_through_super, chain_of_three])
def test_a_hessian_through_super_reaches_what_python_reaches(function):
    """Forward code differentiated again called the method unspecialised, whose `super()` the fence refused."""
    x = np.linspace(-0.5, 0.7, 3)
    v, u = np.cos(np.arange(3.0)), np.sin(np.arange(3.0) + 1.0)
    assert_hvp_matches(s2sad.hvp(function, (x,), (v,)), function, [x], [v], [u], rtol=1e-4, atol=1e-6)


def test_a_base_method_replaced_after_a_gradient_is_the_one_differentiated():
    x = np.linspace(-0.5, 0.7, 3)

    class Lower:
        def g(self, x):
            return x * 2.0

    class Upper(Lower):
        def g(self, x):
            return super().g(x) ** 2

    def through(x):
        return np.sum(Upper().g(x))

    np.testing.assert_allclose(s2sad.grad(through)(x), 8.0 * x, rtol=1e-12)
    Lower.g = lambda self, x: x * 3.0
    np.testing.assert_allclose(s2sad.grad(through)(x), 18.0 * x, rtol=1e-12)


class WithAProperty:
    def __init__(self, k):
        self.k = k

    @property
    def scale(self):
        return np.sin(self.k) * 2.0


class ReadsAPropertyThroughSuper(WithAProperty):
    @property
    def scale(self):
        return 3.0

    def f(self, x):
        return x * super().scale  # marker: a property


class APropertyReadingSuper(WithAProperty):
    @property
    def scale(self):
        return super().scale * self.k


def property_through_super(x):
    return np.sum(ReadsAPropertyThroughSuper(x).f(x) ** 2) + np.sum(APropertyReadingSuper(x[::-1]).scale * x)


def test_super_reaching_a_property_reads_it_through_its_getter_in_every_mode():
    """The fence refused it: only functions were resolved."""
    x = np.linspace(-0.5, 0.7, 3)
    assert_every_mode_matches(property_through_super, x, np.cos(np.arange(3.0)), np.sin(np.arange(3.0) + 1.0))


def property_through_super_in_a_method_called_by_name(x):
    return np.sum(ReadsAPropertyThroughSuper.f(ReadsAPropertyThroughSuper(1.5), x))


def test_super_in_a_method_called_by_name_is_refused_the_hint_reading_the_getter():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=r"`super\(\)` is not supported in a method") as caught:
        s2sad.grad(property_through_super_in_a_method_called_by_name)(np.linspace(-0.5, 0.7, 3))
    assert "# marker: a property" in caught.value.location.text
    assert "`WithAProperty.scale.fget(self)`" in caught.value.hint


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
