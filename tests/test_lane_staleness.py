"""The fast path of a warm derivative (its lane, api._differentiated) never runs stale code.

After a derivative's first call, later calls with arguments of the same kinds go straight to
the code generated for them: the gradient for floats, the version typed for float64 arrays,
or the general rrule. Each test here warms one such lane up (and checks that the later calls
do take it: ``api._run``, the long way, is not called), changes what the function depends
on, and calls the same derivative again: the gradient must be the one derived by hand for
the new definition. test_staleness.py makes the same changes through every transform; here
each kind of lane gets them, with several differentiated arguments as well as one.

A function calling another user function has no lane (its pullback runs once: api._lane), nor
has a call leaving a default to its default, so the tests of redefined helpers and changed
defaults check only the numbers after a warm-up: whichever way the call takes, it must not
be stale.
"""
import math
import sys

import numpy as np
import pytest

import s2sad
from s2sad import api
from test_staleness import modules  # noqa: F401  (the fixture: user modules in files of their own)

X, Y = 0.7, 1.3
W = np.array([0.3, -0.8, 1.4, 0.05])
V = np.array([1.1, -0.4, 0.6, 2.0])


@pytest.fixture()
def long_way_calls(monkeypatch):
    """How many calls took the long way (api._run) since the fixture was made."""
    calls = []
    run = api._run

    def counted(*args, **kwargs):
        calls.append(args[0])
        return run(*args, **kwargs)

    monkeypatch.setattr(api, "_run", counted)
    return calls


def warm(gradient, *args):
    """Call ``gradient`` twice: the first call takes the long way and makes the lane, the second takes the lane."""
    first = gradient(*args)
    second = gradient(*args)
    return first, second


def assert_lane_taken(gradient, args, long_way_calls):
    before = len(long_way_calls)
    gradient(*args)
    assert len(long_way_calls) == before, "a warm derivative took the long way: the lane is not what these tests test"


def assert_gradients(got, expected):
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        assert type(a) is type(b)
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


# ---------------------------------------------------------------------- floats: the fused gradient
FLOATS = """
    import math

    scale = 3.0
    op = math.sin

    def cube(x):
        return x ** 3

    def f(x, y):
        return scale * x ** 2 * y + op(y)

    def g(x, y, a=2.0):
        return a * x * y

    def s(x, y):
        return math.sin(x) * y

    def helper(x):
        return x ** 2

    def k(x, y):
        return helper(x) * y
"""


def test_floats_lane_is_taken_when_warm(modules, long_way_calls):
    m = modules(FLOATS)
    gradient = s2sad.grad(m.f, argnums=(0, 1))
    first, second = warm(gradient, X, Y)
    assert_gradients(second, (6 * X * Y, 3 * X ** 2 + math.cos(Y)))
    assert_lane_taken(gradient, (X, Y), long_way_calls)


def test_floats_lane_reads_an_edited_global(modules, long_way_calls):
    m = modules(FLOATS)
    gradient = s2sad.grad(m.f, argnums=(0, 1))
    warm(gradient, X, Y)
    m.scale = 5.0  # data the function reads: read when the derivative runs, so the lane stays
    assert_gradients(gradient(X, Y), (10 * X * Y, 5 * X ** 2 + math.cos(Y)))
    assert_lane_taken(gradient, (X, Y), long_way_calls)


def test_floats_lane_uses_a_rebound_callee(modules, long_way_calls):
    m = modules(FLOATS)
    gradient = s2sad.grad(m.f, argnums=(0, 1))
    warm(gradient, X, Y)
    m.op = math.cos  # a function with a rule for another
    assert_gradients(gradient(X, Y), (6 * X * Y, 3 * X ** 2 - math.sin(Y)))
    assert_lane_taken(gradient, (X, Y), long_way_calls)  # a lane for the new binding
    m.op = m.cube  # a user function for it
    assert_gradients(gradient(X, Y), (6 * X * Y, 3 * X ** 2 + 3 * Y ** 2))
    gradient(X, Y)
    m.op = math.sin  # and the first again
    assert_gradients(gradient(X, Y), (6 * X * Y, 3 * X ** 2 + math.cos(Y)))


def test_floats_lane_uses_a_changed_default(modules, long_way_calls):
    m = modules(FLOATS)
    gradient = s2sad.grad(m.g, argnums=(0, 1))
    warm(gradient, X, Y)
    m.g.__defaults__ = (7.0,)
    assert_gradients(gradient(X, Y), (7.0 * Y, 7.0 * X))


def test_floats_lane_uses_a_replaced_code_object(modules, long_way_calls):
    m = modules(FLOATS)
    gradient = s2sad.grad(m.g, argnums=(0, 1))
    warm(gradient, X, Y)
    m.g.__code__ = m.s.__code__  # g(x, y, a=2.0) now computes sin(x) * y
    assert_gradients(gradient(X, Y), (math.cos(X) * Y, math.sin(X)))


def test_floats_lane_uses_a_monkeypatched_library_function(modules, long_way_calls, monkeypatch):
    m = modules(FLOATS)
    gradient = s2sad.grad(m.s, argnums=(0, 1))
    warm(gradient, X, Y)
    assert_lane_taken(gradient, (X, Y), long_way_calls)
    monkeypatch.setattr(math, "sin", math.exp)
    assert m.s(X, Y) == math.exp(X) * Y
    assert_gradients(gradient(X, Y), (math.exp(X) * Y, math.exp(X)))
    monkeypatch.setattr(math, "sin", m.cube)  # a user function for it
    assert_gradients(gradient(X, Y), (3 * X ** 2 * Y, X ** 3))
    monkeypatch.undo()
    assert_gradients(gradient(X, Y), (math.cos(X) * Y, math.sin(X)))


def test_floats_after_warm_up_use_a_redefined_helper(modules):
    m = modules(FLOATS)
    gradient = s2sad.grad(m.k, argnums=(0, 1))
    warm(gradient, X, Y)
    modules.more(m, """
        def helper(x):
            return x ** 3
    """)
    assert_gradients(gradient(X, Y), (3 * X ** 2 * Y, X ** 3))
    m.helper.__defaults__ = None  # (no defaults: unchanged) then rebound
    m.helper = math.exp
    assert_gradients(gradient(X, Y), (math.exp(X) * Y, math.exp(X)))


# ---------------------------------------------------------------------- arrays: the typed version
ARRAYS = """
    import numpy as np

    scale = 2.0

    def f(w):
        return np.sum(np.tanh(scale * w + 1.0) ** 2)

    def h(w, v, a=2.0):
        return np.sum(a * w * v)

    def fake_tanh(u):
        return u ** 3

    def inner(w):
        return np.tanh(scale * w + 1.0)

    def k(w):
        return np.sum(inner(w) ** 2)

    def constant(w):
        return np.sum(np.tanh(2.0 * w + 1.0) ** 2)
"""


def tanh_square_gradient(w, scale):
    t = np.tanh(scale * w + 1.0)
    return 2 * scale * t * (1 - t ** 2)


def test_array_lane_is_taken_when_warm(modules, long_way_calls):
    m = modules(ARRAYS)
    gradient = s2sad.grad(m.f)
    first, second = warm(gradient, W)
    assert_gradients(second, tanh_square_gradient(W, 2.0))
    assert_lane_taken(gradient, (W,), long_way_calls)


def test_array_lane_reads_an_edited_global(modules, long_way_calls):
    m = modules(ARRAYS)
    gradient = s2sad.grad(m.f)
    warm(gradient, W)
    m.scale = 0.5
    assert_gradients(gradient(W), tanh_square_gradient(W, 0.5))
    assert_lane_taken(gradient, (W,), long_way_calls)


def test_array_lane_uses_a_changed_default(modules, long_way_calls):
    m = modules(ARRAYS)
    gradient = s2sad.grad(m.h, argnums=(0, 1))
    warm(gradient, W, V)
    m.h.__defaults__ = (-3.0,)
    assert_gradients(gradient(W, V), (-3.0 * V, -3.0 * W))


def test_array_lane_uses_a_monkeypatched_numpy_function(modules, long_way_calls, monkeypatch):
    m = modules(ARRAYS)
    gradient = s2sad.grad(m.f)
    warm(gradient, W)
    u = 2.0 * W + 1.0
    monkeypatch.setattr(np, "tanh", np.sin)  # one ufunc for another
    assert_gradients(gradient(W), 4 * np.sin(u) * np.cos(u))
    assert_lane_taken(gradient, (W,), long_way_calls)
    monkeypatch.setattr(np, "tanh", m.fake_tanh)  # a user function for a ufunc: sum(u ** 6)
    assert_gradients(gradient(W), 12 * u ** 5)
    monkeypatch.undo()
    assert_gradients(gradient(W), tanh_square_gradient(W, 2.0))


@pytest.mark.parametrize("transform", [s2sad.grad, s2sad.value_and_grad])
def test_the_typed_array_lane_uses_a_monkeypatched_numpy_function(modules, long_way_calls, monkeypatch, transform):
    """A function reading no global of its own has a version typed for its arrays, and its lane
    written out (lanes.array_lane), which runs the staleness check itself."""
    m = modules(ARRAYS)
    gradient = transform(m.constant)
    warm(gradient, W)
    assert_lane_taken(gradient, (W,), long_way_calls)
    u = 2.0 * W + 1.0
    monkeypatch.setattr(np, "tanh", np.sin)
    got = gradient(W)
    assert_gradients(got[1] if transform is s2sad.value_and_grad else got, 4 * np.sin(u) * np.cos(u))
    monkeypatch.undo()
    got = gradient(W)
    assert_gradients(got[1] if transform is s2sad.value_and_grad else got, tanh_square_gradient(W, 2.0))


def test_value_and_grad_lane_uses_a_monkeypatched_numpy_function(modules, long_way_calls, monkeypatch):
    m = modules(ARRAYS)
    both = s2sad.value_and_grad(m.f)
    warm(both, W)
    assert_lane_taken(both, (W,), long_way_calls)
    monkeypatch.setattr(np, "tanh", m.fake_tanh)
    value, gradient = both(W)
    u = 2.0 * W + 1.0
    np.testing.assert_allclose(value, np.sum(u ** 6), rtol=1e-13)
    assert_gradients(gradient, 12 * u ** 5)


def test_arrays_after_warm_up_use_a_redefined_helper(modules):
    m = modules(ARRAYS)
    gradient = s2sad.grad(m.k)
    warm(gradient, W)
    modules.more(m, """
        def inner(w):
            return np.sin(w)
    """)
    assert_gradients(gradient(W), 2 * np.sin(W) * np.cos(W))
    m.scale = 0.5  # a global the helper reads, edited
    modules.more(m, """
        def inner(w):
            return np.tanh(scale * w + 1.0)
    """)
    warm(gradient, W)
    m.scale = 3.0
    assert_gradients(gradient(W), tanh_square_gradient(W, 3.0))


# ---------------------------------------------------------------------- mixed: an array and a float
def test_mixed_lane_uses_a_monkeypatched_numpy_function(modules, long_way_calls, monkeypatch):
    m = modules("""
        import numpy as np

        def f(w, c):
            return np.sum(np.sin(w * c))
    """)
    gradient = s2sad.grad(m.f, argnums=(0, 1))
    warm(gradient, W, X)
    assert_lane_taken(gradient, (W, X), long_way_calls)
    monkeypatch.setattr(np, "sin", np.exp)
    assert_gradients(gradient(W, X), (X * np.exp(W * X), float(np.sum(W * np.exp(W * X)))))


# ---------------------------------------------------------------------- the lanes written out with their check (lanes.py)
def written_lane(gradient, count):
    """The lane written out for calls of ``count`` arguments (api._differentiated's written_lanes, in the
    namespace of the function grad returns: lanes.entry)."""
    for value in (gradient.__globals__.get("written_lanes"),):
        if isinstance(value, dict) and value and all(callable(v) for v in value.values()) and \
                getattr(value.get(count), "__name__", "") in ("gradient_of_floats", "gradient_of_array"):
            return value[count]
    return None


@pytest.mark.parametrize("kind", ["floats", "array"])
def test_a_written_lane_is_left_when_the_registry_changes(modules, long_way_calls, kind):
    """A rule registered anew changes nothing the check compares (the functions are the same
    objects): the registry's generation, tested in the lane first, is what sees it (here
    forget_generated, which every registration's bump of the generation stands for)."""
    m = modules(FLOATS if kind == "floats" else ARRAYS)
    gradient, args = (s2sad.grad(m.s, argnums=(0, 1)), (X, Y)) if kind == "floats" else (s2sad.grad(m.constant), (W,))
    warm(gradient, *args)
    assert written_lane(gradient, len(args)) is not None
    assert_lane_taken(gradient, args, long_way_calls)
    expected = gradient(*args)
    s2sad.registry.forget_generated()
    before = len(long_way_calls)
    assert_gradients(gradient(*args), expected)
    assert len(long_way_calls) == before + 1  # the long way, once, and a lane for the new generation
    assert_lane_taken(gradient, args, long_way_calls)


def test_the_floats_lane_has_the_gradients_body_written_in_and_its_errors_name_the_users_line(modules):
    m = modules(FLOATS)
    gradient = s2sad.grad(m.s, argnums=(0, 1))
    warm(gradient, X, Y)
    lane = written_lane(gradient, 2)
    assert lane is not None and "s2sad_" in lane.__code__.co_filename  # the generated module's lines, inlined
    assert "sin" in lane.__code__.co_names  # the body (math.sin) is in the lane, not called
    # a division by zero inside the body: raised from the generated file's line, pointing at the user's
    quotient = modules("""
        def q(x, y):
            return x / y
    """)
    gradient = s2sad.grad(quotient.q, argnums=(0, 1))
    warm(gradient, X, Y)
    assert "s2sad_" in written_lane(gradient, 2).__code__.co_filename
    with pytest.raises(ZeroDivisionError) as raised:
        gradient(X, 0.0)
    notes = "\n".join(getattr(raised.value, "__notes__", []))
    assert "return x / y" in notes and ".py:3" in notes


COLLIDING = """
    import math

    def f(x, y):
        current = math.sin(x)
        refuse = current * y
        function = refuse + x
        return function * function
"""


def test_a_body_using_the_lanes_own_names_is_called_not_written_in(modules, long_way_calls):
    """``current``, ``refuse`` and ``function`` name the lane's own values: such a body is called,
    and its check still runs first (a monkeypatched sine is seen)."""
    m = modules(COLLIDING)
    gradient = s2sad.grad(m.f, argnums=(0, 1))

    def expected(x, y, sin=math.sin, cos=math.cos):
        value = sin(x) * y + x
        return 2 * value * (cos(x) * y + 1), 2 * value * sin(x)

    warm(gradient, X, Y)
    lane = written_lane(gradient, 2)
    assert lane is not None and lane.__code__.co_filename == "<s2sad lane>"  # the gradient for floats is called
    assert_lane_taken(gradient, (X, Y), long_way_calls)
    assert_gradients(gradient(X, Y), expected(X, Y))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(math, "sin", math.cos)
        assert_gradients(gradient(X, Y), expected(X, Y, math.cos, lambda x: -math.sin(x)))
    assert_gradients(gradient(X, Y), expected(X, Y))


RETURNS_A_LANE_NAME = """
    import math

    def f(x, y):
        refuse = math.sin(x) * y
        return refuse
"""


def test_a_body_whose_value_has_a_lane_name_is_called(modules, long_way_calls):
    """The value named `refuse` (the lane's NaN refusal): the body is called, not written in, and
    gives what the long way gives (a NaN argument's NaN gradient included)."""
    m = modules(RETURNS_A_LANE_NAME)
    gradient = s2sad.grad(m.f, argnums=(0, 1))
    warm(gradient, X, Y)
    assert written_lane(gradient, 2).__code__.co_filename == "<s2sad lane>"
    assert_lane_taken(gradient, (X, Y), long_way_calls)
    assert_gradients(gradient(X, Y), (math.cos(X) * Y, math.sin(X)))
    dx, dy = gradient(X, math.nan)
    first_dx, first_dy = s2sad.grad(m.f, argnums=(0, 1))(X, math.nan)  # a first call: the long way
    assert math.isnan(dx) and math.isnan(first_dx) and dy == first_dy == math.sin(X)


# ---------------------------------------------------------------------- grad's own function running the lane (lanes.warm_up)
def python_frames_of(call):
    """``(names of the Python functions the call runs, its answer)``: C functions are not counted."""
    called = []

    def profile(frame, event, arg):
        if event == "call":
            called.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        answer = call()
    finally:
        sys.setprofile(None)
    return called, answer


def test_a_warm_scalar_call_is_one_python_call(modules, long_way_calls):
    """Once its float lane is made, the function grad returned runs the lane's test and the gradient's
    body itself: no other Python function is called (math's functions are C)."""
    m = modules(FLOATS)
    gradient = s2sad.grad(m.s, argnums=(0, 1))
    warm(gradient, X, Y)
    assert "s2sad_" in gradient.__code__.co_filename  # the generated module's lines, written in
    called, got = python_frames_of(lambda: gradient(X, Y))
    assert called == ["<lambda>", "differentiated_f"]
    assert_gradients(got, (math.cos(X) * Y, math.sin(X)))
    assert_lane_taken(gradient, (X, Y), long_way_calls)
    assert_gradients(s2sad.grad(m.s)(X, 2), (math.cos(X) * 2,))  # an int: not the lane's call, served as before
    with pytest.raises(s2sad.errors.ArgumentError, match="out of range"):  # refused as before
        gradient(X, y=Y)


EVERY_PARAMETER = """
    def p(x, y=2.0):
        return x * x * y

    def s(x, y):
        return x * y * y

    def q(x, y, *, a=2.0):
        return a * x * y
"""


def test_a_lane_for_calls_giving_every_parameter_reads_no_defaults_but_its_code(modules, long_way_calls):
    """A call giving each parameter reads no default: new defaults leave the lane (and its numbers) as
    they were, a call leaving one reads the new one, and a new code object is still noticed."""
    m = modules(EVERY_PARAMETER)
    gradient = s2sad.grad(m.p, argnums=(0, 1))
    warm(gradient, X, Y)
    m.p.__defaults__ = (7.0,)
    assert_gradients(gradient(X, Y), (2 * X * Y, X * X))
    assert_lane_taken(gradient, (X, Y), long_way_calls)
    assert_gradients(s2sad.grad(m.p)(X), (2 * X * 7.0,))
    m.p.__code__ = m.s.__code__  # p(x, y) now computes x * y * y
    assert_gradients(gradient(X, Y), (Y * Y, 2 * X * Y))


def test_a_lane_of_a_function_with_keyword_only_parameters_tests_their_defaults(modules, long_way_calls):
    m = modules(EVERY_PARAMETER)
    gradient = s2sad.grad(m.q, argnums=(0, 1))
    warm(gradient, X, Y)
    m.q.__kwdefaults__ = {"a": 5.0}
    assert_gradients(gradient(X, Y), (5.0 * Y, 5.0 * X))


def test_an_error_in_the_body_grads_function_runs_names_the_users_line(modules):
    m = modules("""
        import math

        def r(x, y):
            u = math.sin(x) * y
            v = u + x
            return v / y
    """)
    gradient = s2sad.grad(m.r, argnums=(0, 1))
    warm(gradient, X, Y)
    assert "s2sad_" in gradient.__code__.co_filename
    with pytest.raises(ZeroDivisionError) as raised:
        gradient(X, 0.0)
    notes = "\n".join(getattr(raised.value, "__notes__", []))
    assert "return v / y" in notes and ".py:7" in notes, notes


def test_a_lane_tests_what_the_bodys_entry_test_wanted_of_a_parameter_not_differentiated(modules, long_way_calls):
    """``grad(s)`` (x alone): the gradient for floats takes `y` a float or an int, and the lane tests
    that in its stead; a bool, neither, is served by the general code."""
    m = modules(FLOATS)
    gradient = s2sad.grad(m.s)
    warm(gradient, X, Y)
    assert "s2sad_" in gradient.__code__.co_filename
    assert_gradients(gradient(X, Y), (math.cos(X) * Y,))
    assert_gradients(gradient(X, 2), (math.cos(X) * 2,))
    assert_lane_taken(gradient, (X, 2), long_way_calls)
    assert_gradients(gradient(X, True), (math.cos(X),))
