"""A derivative never runs code generated from definitions that are no longer current.

Each test warms a derivative up, changes what the function depends on (a helper redefined,
a global callable rebound, defaults changed, ``np.sin`` monkeypatched, a closure cell
rebound, a helper two levels down redefined), then calls the same derivative again: the
value must be the plain function's, and the derivative must match central finite
differences. Every change is checked through grad, value_and_grad, vjp, jvp and
``@differentiate``; the last tests do the same across processes sharing a disk cache.
"""
import itertools
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient

X = 0.7
VECTOR = np.array([0.3, -0.8, 1.4])


# ---------------------------------------------------------------------- the ways to differentiate
def _grad(f):
    gradient = s2sad.grad(f)
    return lambda x: (None, gradient(x))


def _value_and_grad(f):
    return s2sad.value_and_grad(f)


def _vjp(f):
    def run(x):
        y, pullback = s2sad.vjp(f, x)
        return y, pullback(1.0)[0]
    return run


def _jvp(f):
    def run(x):
        if isinstance(x, np.ndarray):  # the gradient, one basis tangent at a time
            pushes = [s2sad.jvp(f, (x,), (np.eye(len(x))[i],)) for i in range(len(x))]
            return pushes[0][0], np.array([tangent for _, tangent in pushes])
        return s2sad.jvp(f, (x,), (1.0,))
    return run


def _decorated(f):
    marked = s2sad.differentiate(f)
    return lambda x: marked.value_and_grad(x)


WAYS = {"grad": _grad, "value_and_grad": _value_and_grad, "vjp": _vjp, "jvp": _jvp, "differentiate": _decorated}


def check(run, f, x):
    """``run(x)`` gives f's value (or None) and derivative: compare with f itself and finite differences."""
    value, derivative = run(x)
    if value is not None:
        np.testing.assert_allclose(value, f(x), rtol=1e-12)
    np.testing.assert_allclose(derivative, numerical_gradient(f, (x,), 0), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------------- user modules
@pytest.fixture()
def modules(tmp_path, monkeypatch):
    """``make(text)``: a user module in a file of its own; ``more(module, text)``: run more code in
    it from another file, as a notebook cell or an interactive session does."""
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "cache"))
    counter = itertools.count()
    made = []

    def run_file(namespace, name, text):
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(text))
        exec(compile(path.read_text(), str(path), "exec"), namespace)

    def make(text):
        name = f"staleness_{os.getpid()}_{next(counter)}"
        module = types.ModuleType(name)
        module.__file__ = str(tmp_path / f"{name}.py")
        sys.modules[name] = module
        made.append(name)
        run_file(module.__dict__, name, text)
        return module

    def more(module, text):
        run_file(module.__dict__, f"{module.__name__}_cell{next(counter)}", text)

    make.more = more
    yield make
    for name in made:
        sys.modules.pop(name, None)


@pytest.fixture(params=list(WAYS))
def way(request):
    return WAYS[request.param]


# ---------------------------------------------------------------------- in one process
def test_a_redefined_helper_is_used(modules, way):
    m = modules("""
        def helper(x):
            return x ** 2

        def f(x):
            return helper(x) * 2.0 + x
    """)
    run = way(m.f)
    check(run, m.f, X)
    modules.more(m, """
        def helper(x):
            return x ** 3
    """)
    assert m.f(3.0) == 57.0
    check(run, m.f, X)
    check(run, m.f, 3.0)


def test_a_redefined_helper_is_used_with_arrays(modules, way):
    m = modules("""
        import numpy as np

        def helper(x):
            return np.sin(x) * x

        def f(x):
            return np.sum(helper(x))
    """)
    run = way(m.f)
    check(run, m.f, VECTOR)
    modules.more(m, """
        def helper(x):
            return np.exp(x) * x
    """)
    check(run, m.f, VECTOR)


def test_a_helper_two_levels_down_redefined_is_used(modules, way):
    m = modules("""
        def inner(x):
            return x ** 2

        def middle(x):
            return inner(x) + 1.0

        def f(x):
            return middle(x) * x
    """)
    run = way(m.f)
    check(run, m.f, X)
    modules.more(m, """
        def inner(x):
            return x ** 4
    """)
    check(run, m.f, X)


def test_a_rebound_global_callable_is_used(modules, way):
    m = modules("""
        import numpy as np

        def square(x):
            return x * x

        def cube(x):
            return x * x * x

        op = square

        def f(x):
            return op(x) + x
    """)
    run = way(m.f)
    check(run, m.f, X)
    m.op = m.cube  # a user function for another
    check(run, m.f, X)
    m.op = np.sin  # a function with a rule for a user function
    check(run, m.f, X)
    m.op = np.cos  # a rule for another rule
    check(run, m.f, X)
    m.op = m.square
    check(run, m.f, X)


def test_changed_defaults_are_used(modules, way):
    m = modules("""
        def f(x, a=2.0):
            return x ** 2 * a
    """)
    run = way(m.f)
    check(run, m.f, X)
    m.f.__defaults__ = (5.0,)
    assert m.f(1.0) == 5.0
    check(run, m.f, X)


def test_changed_keyword_only_defaults_are_used(modules, way):
    m = modules("""
        def f(x, *, a=2.0):
            return x ** 2 * a
    """)
    run = way(m.f)
    check(run, m.f, X)
    m.f.__kwdefaults__ = {"a": 5.0}
    check(run, m.f, X)
    m.f.__kwdefaults__["a"] = 7.0  # changed in place
    check(run, m.f, X)


def test_changed_defaults_of_a_helper_are_used(modules, way):
    m = modules("""
        def helper(x, power=2):
            return x ** power

        def f(x):
            return helper(x) + x
    """)
    run = way(m.f)
    check(run, m.f, X)
    m.helper.__defaults__ = (3,)
    check(run, m.f, X)


def test_a_replaced_code_object_is_used(modules, way):
    m = modules("""
        def f(x):
            return x ** 2

        def g(x):
            return x ** 5
    """)
    run = way(m.f)
    check(run, m.f, X)
    m.f.__code__ = m.g.__code__
    check(run, m.f, X)


def test_a_monkeypatched_library_function_is_used_then_the_original_again(modules, way, monkeypatch):
    m = modules("""
        import numpy as np

        def fake_sin(x):
            return x ** 3

        def f(x):
            return np.sin(x) * x
    """)
    run = way(m.f)
    check(run, m.f, X)
    monkeypatch.setattr(np, "sin", m.fake_sin)
    assert m.f(2.0) == 16.0
    check(run, m.f, X)
    monkeypatch.undo()
    assert m.f(2.0) == np.sin(2.0) * 2.0
    check(run, m.f, X)


def test_a_rebound_closure_cell_is_used(modules, way):
    m = modules("""
        def square(x):
            return x * x

        def cube(x):
            return x * x * x

        def make():
            op = square

            def f(x):
                return op(x) * 2.0

            def use(new):
                nonlocal op
                op = new

            return f, use

        f, use = make()
    """)
    run = way(m.f)
    check(run, m.f, X)
    m.use(m.cube)
    check(run, m.f, X)


def test_module_data_is_read_when_the_derivative_runs(modules, way):
    m = modules("""
        import numpy as np

        scale = 2.0
        weights = np.array([1.0, 2.0, 3.0])

        def f(x):
            return np.sum(weights * x) * scale + x * scale
    """)
    run = way(m.f)
    check(run, m.f, X)
    m.scale = 5.0
    m.weights = np.array([-1.0, 0.5, 4.0])
    check(run, m.f, X)


def test_a_second_derivative_uses_a_redefined_helper(modules):
    m = modules("""
        def helper(x):
            return x ** 3

        def f(x):
            return helper(x) + x
    """)
    second = lambda x: s2sad.hvp(m.f, (x,), (1.0,))  # noqa: E731
    np.testing.assert_allclose(second(X), 6 * X, rtol=1e-12)  # by hand: (x^3 + x)'' = 6x
    modules.more(m, """
        def helper(x):
            return x ** 4
    """)
    np.testing.assert_allclose(second(X), 12 * X ** 2, rtol=1e-12)  # (x^4 + x)'' = 12x^2


def test_an_unchanged_function_keeps_its_generated_code(modules):
    """The check must not make code again when nothing changed (that would be slow, not wrong)."""
    from s2sad import transform

    m = modules("""
        import numpy as np

        def helper(x):
            return np.sin(x) * x

        def f(x):
            return helper(x) + np.linalg.norm(np.array([x, 1.0]))
    """)
    rrule = transform.generated_rrule(m.f, ("x",))
    assert rrule.__s2sad_current__(m.f)
    assert transform.generated_rrule(m.f, ("x",)) is rrule
    m.unrelated = 3.0
    assert transform.generated_rrule(m.f, ("x",)) is rrule
    m.helper = lambda x: x
    assert not rrule.__s2sad_current__(m.f)


# ---------------------------------------------------------------------- across processes
HELPER_IS_A_RULE = "import numpy as np\n\nh = np.exp\n"
HELPER_IS_A_FUNCTION = "def h(x):\n    return x ** 3\n"

PROGRAM = """
import numpy as np
import s2sad
import helpers
from user import f

x = 0.7
value, gradient = s2sad.value_and_grad(f)(x)
_, jvp_tangent = s2sad.jvp(f, (x,), (1.0,))
print(*(repr(float(v)) for v in (value, gradient, jvp_tangent, f(x))))
"""


def _run_program(directory, cache):
    environment = dict(os.environ, S2SAD_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    environment["PYTHONPATH"] = os.pathsep.join([str(directory), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", PROGRAM], cwd=directory, env=environment, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [float(word) for word in done.stdout.split()]


@pytest.mark.parametrize("first, second", [(HELPER_IS_A_RULE, HELPER_IS_A_FUNCTION),
                                           (HELPER_IS_A_FUNCTION, HELPER_IS_A_RULE)])
def test_a_helper_module_edited_between_processes(tmp_path, first, second):
    (tmp_path / "user.py").write_text("import helpers\n\n\ndef f(x):\n    return helpers.h(x) * x\n")
    cache = tmp_path / "cache"
    expected = {HELPER_IS_A_RULE: lambda x: (np.exp(x) * x, np.exp(x) * (1 + x)),
                HELPER_IS_A_FUNCTION: lambda x: (x ** 4, 4 * x ** 3)}
    for helpers in (first, second, first, second):  # each run after the first finds a warm cache
        (tmp_path / "helpers.py").write_text(helpers)
        value, gradient, tangent, plain = _run_program(tmp_path, cache)
        want_value, want_gradient = expected[helpers](0.7)
        assert value == plain
        np.testing.assert_allclose([value, gradient, tangent], [want_value, want_gradient, want_gradient], rtol=1e-12)


def test_a_decorated_helper_whose_original_changed_is_used(modules, way):
    m = modules("""
        import functools

        def logged(function):
            @functools.wraps(function)
            def wrapper(*args):
                return function(*args)
            return wrapper

        @logged
        def helper(x):
            return x ** 2

        def cube(x):
            return x ** 3

        def f(x):
            return helper(x) + x
    """)
    run = way(m.f)
    check(run, m.f, X)
    m.helper.__wrapped__.__code__ = m.cube.__code__
    assert m.f(2.0) == 10.0
    check(run, m.f, X)
