"""Checks of how people *use* s2sad, between and around its calls: a notebook user redefining a
helper after the first gradient, an ML engineer updating parameters in place between steps,
gradients of gradients, rules registered and replaced.

Each check is a function of a ``Workspace`` (user modules written as real files, edited and
reloaded as a notebook or an editor does) returning "right" or "refused": every number is
compared with central differences of the plain NumPy function as it is at that time
(``finite_differences.py``), never with s2sad itself. ``python tests/usage_programs.py`` prints
the outcome of every check (right / refused / wrong / crash).
"""
from __future__ import annotations

import contextlib
import copy
import functools
import importlib
import itertools
import os
import subprocess
import sys
import textwrap
import types
import warnings

import numpy as np

import s2sad
from finite_differences import mixed_second_difference, numerical_gradient
from s2sad.registry import all_rules

CHECKS: dict[str, tuple[str, object]] = {}  # name -> (group, check)
X = 0.7
V3 = np.array([0.3, -0.8, 1.4])


def check(group: str):
    def register(function):
        CHECKS[function.__name__] = (group, function)
        return function
    return register


# ---------------------------------------------------------------------- the workspace and comparisons
class Workspace:
    """User modules as files in ``directory``, importable by name (so ``importlib.reload`` works)."""

    _counter = itertools.count()

    def __init__(self, directory):
        self.directory = str(directory)
        self.names: list[str] = []
        sys.path.insert(0, self.directory)

    def path(self, name: str) -> str:
        return os.path.join(self.directory, name + ".py")

    def write(self, name: str, text: str) -> None:
        with open(self.path(name), "w", encoding="utf-8") as handle:
            handle.write(textwrap.dedent(text))
        importlib.invalidate_caches()

    def module(self, text: str, name: str | None = None):
        name = name or f"usage_{os.getpid()}_{next(self._counter)}"
        self.write(name, text)
        self.names.append(name)
        return importlib.import_module(name)

    def cell(self, module, text: str) -> None:
        """Run ``text`` in ``module``'s namespace from a file of its own, as a notebook cell does."""
        name = f"{module.__name__}_cell{next(self._counter)}"
        self.write(name, text)
        exec(compile(open(self.path(name), encoding="utf-8").read(), self.path(name), "exec"), module.__dict__)

    def edit(self, module, text: str):
        """Change ``module``'s file and reload it (an editor saving, then ``importlib.reload``)."""
        self.write(module.__name__, text)
        source = importlib.util.cache_from_source(self.path(module.__name__))
        if os.path.exists(source):
            os.remove(source)  # the same mtime second must not let the old bytecode be read
        return importlib.reload(module)

    def close(self) -> None:
        for name in self.names:
            sys.modules.pop(name, None)
        if self.directory in sys.path:
            sys.path.remove(self.directory)


def same(actual, expected, what: str, rtol=1e-6, atol=1e-8) -> None:
    np.testing.assert_allclose(np.asarray(actual, dtype=complex if np.iscomplexobj(actual) else float),
                               expected, rtol=rtol, atol=atol, err_msg=what)


def fd(f, args, argnum=0):
    return numerical_gradient(f, list(args), argnum)


def fd_grad(f, *args, argnum=0):
    return fd(f, args, argnum)


def fd_hessian(f, x, *rest):
    """The Hessian of scalar ``f(x, *rest)`` in ``x`` (a vector) by mixed central second differences."""
    n = len(x)
    basis = np.eye(n)
    zeros = [np.zeros_like(np.asarray(r, dtype=float)) for r in rest]
    return np.array([[mixed_second_difference(f, [x, *rest], [basis[j], *zeros], [basis[i], *zeros])
                      for j in range(n)] for i in range(n)])


def refused(run) -> str:
    """``run()`` must raise an s2sad error (a refusal): "refused"."""
    try:
        run()
    except s2sad.S2SADError:
        return "refused"
    raise AssertionError("expected an s2sad refusal, got an answer")


def tree_fd(f, params: dict, *rest):
    """Central differences of ``f(params, *rest)`` with respect to each array of the dict ``params``."""
    out = {}
    for key in params:
        def of_one(value, key=key):
            return f({**params, key: value}, *rest)
        out[key] = fd(of_one, [params[key]])
    return out


# ====================================================================== 1. stale definitions
@check("stale")
def helper_redefined_in_a_cell(ws):
    m = ws.module("""
        import numpy as np
        def helper(x):
            return np.sin(x)
        def f(x):
            return np.sum(helper(x) * x)
    """)
    g = s2sad.grad(m.f)
    same(g(V3), fd_grad(m.f, V3), "before")
    ws.cell(m, """
        def helper(x):
            return np.exp(x) * 0.5
    """)
    same(g(V3), fd_grad(m.f, V3), "after the helper's redefinition")
    return "right"


@check("stale")
def helper_redefined_compiled(ws):
    m = ws.module("""
        def helper(x):
            return x * x
        def f(x):
            return helper(x) + 3.0 * x
    """)
    g = s2sad.grad(m.f, compile=True)
    same(g(X), fd_grad(m.f, X), "before")
    ws.cell(m, """
        def helper(x):
            return x * x * x
    """)
    same(g(X), fd_grad(m.f, X), "after")
    return "right"


@check("stale")
def module_constant_changed(ws):
    m = ws.module("""
        import numpy as np
        SCALE = 2.0
        def f(x):
            return SCALE * np.sum(x ** 3)
    """)
    vg = s2sad.value_and_grad(m.f)
    same(vg(V3)[1], fd_grad(m.f, V3), "before")
    m.SCALE = -0.25
    value, gradient = vg(V3)
    same(value, m.f(V3), "value after")
    same(gradient, fd_grad(m.f, V3), "after")
    return "right"


@check("stale")
def module_constant_changed_compiled(ws):
    m = ws.module("""
        SCALE = 2.0
        def f(x):
            return SCALE * x * x + x
    """)
    g = s2sad.grad(m.f, compile=True)
    same(g(X), fd_grad(m.f, X), "before")
    m.SCALE = 5.5
    same(g(X), fd_grad(m.f, X), "after")
    return "right"


@check("stale")
def config_dict_changed_in_place(ws):
    m = ws.module("""
        import numpy as np
        CONFIG = {"alpha": 0.1, "power": 2}
        def f(x):
            return np.sum(x ** CONFIG["power"]) + CONFIG["alpha"] * np.sum(np.sin(x))
    """)
    g = s2sad.grad(m.f)
    same(g(V3), fd_grad(m.f, V3), "before")
    m.CONFIG["alpha"] = 3.0
    m.CONFIG["power"] = 3
    same(g(V3), fd_grad(m.f, V3), "after the dict changed")
    m.CONFIG = {"alpha": -1.0, "power": 4}
    same(g(V3), fd_grad(m.f, V3), "after the dict was replaced")
    return "right"


@check("stale")
def config_dict_changed_compiled(ws):
    m = ws.module("""
        CONFIG = {"alpha": 0.1}
        def f(x):
            return CONFIG["alpha"] * x * x * x
    """)
    g = s2sad.grad(m.f, compile=True)
    same(g(X), fd_grad(m.f, X), "before")
    m.CONFIG["alpha"] = 4.0
    same(g(X), fd_grad(m.f, X), "after")
    return "right"


def _model_module(ws):
    """A model class with a method, a subclass overriding it, a function to put in its place, and
    a loss calling the method."""
    return ws.module("""
        import numpy as np
        class Model:
            def __init__(self, w):
                self.w = w
            def forward(self, x):
                return np.tanh(self.w * x)
        class Wider(Model):
            def forward(self, x):
                return np.cos(self.w * x) + x ** 2
        def other_forward(x):
            return np.exp(0.3 * x) * x
        def loss(x, model):
            return np.sum(model.forward(x) ** 2)
    """)


W3 = np.array([0.5, 1.5, -1.0])


@check("stale")
def class_method_replaced(ws):
    m = _model_module(ws)
    model = m.Model(W3)
    g = s2sad.grad(m.loss)
    same(g(V3, model), fd_grad(m.loss, V3, model), "before")
    ws.cell(m, """
        def forward(self, x):
            return np.sin(self.w * x) * x
        Model.forward = forward
    """)
    same(g(V3, model), fd_grad(m.loss, V3, model), "after the method was replaced")
    return "right"


@check("stale")
def subclass_passed(ws):
    m = _model_module(ws)
    g = s2sad.grad(m.loss)
    for model in (m.Model(W3), m.Wider(W3), m.Model(np.array([2.0, 0.1, 0.3]))):
        same(g(V3, model), fd_grad(m.loss, V3, model), type(model).__name__)
    return "right"


@check("stale")
def instance_method_replaced(ws):
    m = _model_module(ws)
    model = m.Model(W3)
    g = s2sad.grad(m.loss)
    same(g(V3, model), fd_grad(m.loss, V3, model), "before")
    model.forward = m.other_forward  # an attribute of the instance hides the class's method
    value, gradient = s2sad.value_and_grad(m.loss)(V3, model)
    same(value, m.loss(V3, model), "the value after")
    same(gradient, fd_grad(m.loss, V3, model), "the gradient after")
    return "right"


@check("stale")
def instance_method_replaced_jvp_hvp(ws):
    m = _model_module(ws)
    model = m.Model(W3)
    model.forward = m.other_forward

    def f(x):
        return m.loss(x, model)
    v = np.array([1.0, -0.5, 2.0])
    _, t = s2sad.jvp(f, (V3,), (v,))
    same(t, fd_grad(f, V3) @ v, "jvp")
    same(s2sad.hvp(f, (V3,), (v,)), fd_hessian(f, V3) @ v, "hvp", rtol=1e-4, atol=1e-5)
    return "right"


@check("stale")
def instance_method_replaced_compiled(ws):
    m = _model_module(ws)
    model = m.Model(W3)
    g = s2sad.grad(m.loss, compile=True)
    same(g(V3, model), fd_grad(m.loss, V3, model), "before")
    model.forward = m.other_forward
    same(g(V3, model), fd_grad(m.loss, V3, model), "after")
    return "right"


def _saved_not_reloaded(ws, text: str, old: str, new: str) -> str:
    """Import ``text``, save it with ``old`` replaced by ``new`` without reloading it (Python runs
    the old code), then ask for the gradient of its ``f``: the old code's, or a refusal naming the file."""
    m = ws.module(text)
    ws.write(m.__name__, text.replace(old, new))
    try:
        gradient = s2sad.grad(m.f)(V3)
    except s2sad.S2SADError as error:
        assert m.__name__ in str(error.location), error
        return "refused"
    same(gradient, fd_grad(m.f, V3), "the code Python runs")
    return "right"


SINE_TIMES_X = """
    import numpy as np
    def g(x):
        return np.sum(x ** 2)
    def f(x):
        return np.sum(np.sin(x) * x)
"""


@check("stale")
def file_edited_without_reload(ws):
    return _saved_not_reloaded(ws, SINE_TIMES_X, "np.sin(x) * x)", "np.sin(x) * x ** 3)")


@check("stale")
def file_edited_above_without_reload(ws):
    # the lines move down: at f's old first line the file now holds g
    return _saved_not_reloaded(ws, SINE_TIMES_X, "import numpy as np", "import numpy as np\n# a comment\n")


@check("stale")
def file_edited_after_first_gradient(ws):
    text = SINE_TIMES_X
    m = ws.module(text)
    g = s2sad.grad(m.f)
    same(g(V3), fd_grad(m.f, V3), "before")
    ws.write(m.__name__, text.replace("* x)", "* x ** 3)"))  # Python still runs the old code: so must s2sad
    same(g(V3), fd_grad(m.f, V3), "after the file was saved")
    same(s2sad.grad(m.f)(V3), fd_grad(m.f, V3), "a new grad of the same function")
    return "right"


@check("stale")
def numpy_function_rebound_in_the_module(ws):
    m = ws.module("""
        import numpy as np
        from numpy import tanh
        def f(x):
            return np.sum(tanh(x) * x)
    """)
    g = s2sad.grad(m.f)
    same(g(V3), fd_grad(m.f, V3), "before")
    m.tanh = np.arctan
    same(g(V3), fd_grad(m.f, V3), "after tanh = np.arctan")
    ws.cell(m, """
        def tanh(x):
            return x ** 3
    """)
    same(g(V3), fd_grad(m.f, V3), "after tanh became the user's")
    return "right"


@check("stale")
def np_module_name_rebound(ws):
    m = ws.module("""
        import numpy as np
        def f(x):
            return np.sum(np.tanh(x) * x)
    """)
    g = s2sad.grad(m.f)
    same(g(V3), fd_grad(m.f, V3), "before")
    fake = types.SimpleNamespace(sum=np.sum, tanh=np.sin)
    m.np = fake
    try:
        same(g(V3), fd_grad(m.f, V3), "after np became a namespace with tanh = sin")
        return "right"
    finally:
        m.np = np


@check("stale")
def default_list_mutated(ws):
    m = ws.module("""
        def f(x, w=[1.0, 2.0]):
            return w[0] * x ** 2 + w[1] * x
    """)
    g = s2sad.grad(m.f)
    same(g(X), fd_grad(m.f, X), "before")
    m.f.__defaults__[0][0] = -4.0
    m.f.__defaults__[0].append(9.0)
    same(g(X), fd_grad(m.f, X), "after the default list changed in place")
    return "right"


@check("stale")
def default_array_mutated_compiled(ws):
    m = ws.module("""
        import numpy as np
        def f(x, w=np.array([1.0, 2.0, 3.0])):
            return np.sum(w * x * x)
    """)
    g = s2sad.grad(m.f, compile=True)
    same(g(V3), fd_grad(m.f, V3), "before")
    m.f.__defaults__[0][:] = [-1.0, 0.5, 7.0]
    same(g(V3), fd_grad(m.f, V3), "after")
    return "right"


@check("stale")
def defaults_replaced(ws):
    m = ws.module("""
        def f(x, p=2.0, *, q=1.0):
            return q * x ** p
    """)
    g = s2sad.grad(m.f)
    same(g(X), fd_grad(m.f, X), "before")
    m.f.__defaults__ = (3.0,)
    m.f.__kwdefaults__["q"] = -2.0
    same(g(X), fd_grad(m.f, X), "after")
    return "right"


@check("stale")
def closure_cell_rebound(ws):
    m = ws.module("""
        import numpy as np
        def make():
            k = 2.0
            def f(x):
                return np.sum(np.sin(k * x))
            def set_k(value):
                nonlocal k
                k = value
            return f, set_k
        f, set_k = make()
    """)
    g = s2sad.grad(m.f)
    same(g(V3), fd_grad(m.f, V3), "before")
    m.set_k(-0.7)
    same(g(V3), fd_grad(m.f, V3), "after the cell was rebound")
    return "right"


@check("stale")
def closure_cell_list_mutated(ws):
    m = ws.module("""
        import numpy as np
        def make():
            weights = [1.0, 2.0]
            def f(x):
                return weights[0] * np.sum(x ** 2) + weights[1] * np.sum(x)
            return f, weights
        f, weights = make()
    """)
    g = s2sad.grad(m.f)
    same(g(V3), fd_grad(m.f, V3), "before")
    m.weights[0] = 10.0
    same(g(V3), fd_grad(m.f, V3), "after the list in the cell changed")
    return "right"


@check("stale")
def code_object_replaced(ws):
    m = ws.module("""
        import numpy as np
        def f(x):
            return np.sum(x ** 2)
        def other(x):
            return np.sum(np.cos(x) * x)
    """)
    g = s2sad.grad(m.f)
    same(g(V3), fd_grad(m.f, V3), "before")
    m.f.__code__ = m.other.__code__
    same(g(V3), fd_grad(m.f, V3), "after f.__code__ = other.__code__")
    return "right"


@check("stale")
def module_reloaded_after_edit(ws):
    text = """
        import numpy as np
        def helper(x):
            return np.sin(x)
        def f(x):
            return np.sum(helper(x) * x)
    """
    m = ws.module(text)
    old_f = m.f
    g_old = s2sad.grad(old_f)
    same(g_old(V3), fd_grad(old_f, V3), "before")
    m = ws.edit(m, text.replace("np.sin(x)", "np.cosh(x) ** 2").replace("helper(x) * x", "helper(x) * x ** 3"))
    same(s2sad.grad(m.f)(V3), fd_grad(m.f, V3), "the new function")
    # the old function object runs the old code, reading the module's new helper: its text is no
    # longer in the file, so s2sad cannot differentiate it again once the helper changed
    try:
        gradient = g_old(V3)
    except s2sad.SourceUnavailableError as error:
        assert "not the code Python runs" in error.message, error
        return "refused"
    same(gradient, fd_grad(old_f, V3), "the old function after the reload")
    return "right"


@check("stale")
def decorated_function_reloaded(ws):
    text = """
        import numpy as np
        import s2sad
        @s2sad.differentiate
        def f(x):
            return np.sum(np.sin(x) ** 2)
    """
    m = ws.module(text)
    same(m.f.grad(V3), fd_grad(m.f, V3), "before")
    m = ws.edit(m, text.replace("np.sin(x) ** 2", "np.sin(x) ** 3 + x"))
    same(m.f.grad(V3), fd_grad(m.f, V3), "after the reload")
    return "right"


@check("stale")
def same_name_defined_twice_in_a_file(ws):
    m = ws.module("""
        import numpy as np
        def f(x):
            return np.sum(x ** 2)
        first = f
        def f(x):
            return np.sum(x ** 3)
    """)
    same(s2sad.grad(m.first)(V3), fd_grad(m.first, V3), "the first f")
    same(s2sad.grad(m.f)(V3), fd_grad(m.f, V3), "the second f")
    same(s2sad.grad(m.first)(V3), fd_grad(m.first, V3), "the first f again")
    return "right"


@check("stale")
def two_lambdas_on_one_line(ws):
    m = ws.module("""
        import numpy as np
        square, cube = (lambda x: np.sum(x ** 2)), (lambda x: np.sum(x ** 3))
    """)
    outcomes = set()
    for f in (m.square, m.cube, m.square):
        try:
            same(s2sad.grad(f)(V3), fd_grad(f, V3), "a lambda")
            outcomes.add("right")
        except s2sad.S2SADError:
            outcomes.add("refused")
    return "refused" if "refused" in outcomes else "right"


@check("stale")
def same_name_in_two_cells_decorated(ws):
    m = ws.module("""
        import numpy as np
        import s2sad
        @s2sad.differentiate
        def f(x):
            return np.sum(x ** 2)
    """)
    first = m.f
    same(first.grad(V3), fd_grad(first, V3), "the first")
    ws.cell(m, """
        @s2sad.differentiate
        def f(x):
            return np.sum(np.exp(x))
    """)
    same(m.f.grad(V3), fd_grad(m.f, V3), "the second")
    same(first.grad(V3), fd_grad(first, V3), "the first again")
    return "right"


@check("stale")
def user_rule_replaced_after_use(ws):
    m = ws.module("""
        import numpy as np
        def opaque(x):
            return np.sinh(x)
        def f(x):
            return np.sum(opaque(x) * x)
    """)
    first = m.opaque
    s2sad.defvjp(first, "x", lambda g, ans, x: g * np.cosh(x))
    try:
        g = s2sad.grad(m.f)
        same(g(V3), fd_grad(m.f, V3), "with the first rule")
        ws.cell(m, """
            def opaque(x):
                return np.sinh(x) * 2.0
        """)
        s2sad.defvjp(m.opaque, "x", lambda g, ans, x: 2.0 * g * np.cosh(x))
        same(g(V3), fd_grad(m.f, V3), "a new function, with its own rule")
        s2sad.defvjp(m.opaque, "x", lambda g, ans, x: 2.0 * g * np.cosh(x) + 0.0 * x)  # the rule replaced
        same(g(V3), fd_grad(m.f, V3), "the rule replaced")
        s2sad.unregister(m.opaque)
        same(g(V3), fd_grad(m.f, V3), "without a rule: from its source")
    finally:
        s2sad.unregister(first)
        s2sad.unregister(m.opaque)
    return "right"


@check("stale")
def user_rule_registered_after_use(ws):
    m = ws.module("""
        import numpy as np
        def soft(x):
            return np.log1p(np.exp(x))
        def f(x):
            return np.sum(soft(x) ** 2)
    """)
    g = s2sad.grad(m.f)
    same(g(V3), fd_grad(m.f, V3), "from the source")
    with registered(m.soft, lambda function: s2sad.defvjp(function, "x", "g / (1 + np.exp(-x))")):
        same(g(V3), fd_grad(m.f, V3), "with a rule")
    return "right"


@check("stale")
def hessian_after_helper_redefined(ws):
    m = ws.module("""
        import numpy as np
        def helper(x):
            return np.sin(x)
        def f(x):
            return np.sum(helper(x) * x ** 2)
    """)
    h = s2sad.hessian(m.f)

    def reference():
        return fd_hessian(m.f, V3)
    same(h(V3), reference(), "before", rtol=1e-4, atol=1e-5)
    ws.cell(m, """
        def helper(x):
            return np.exp(0.5 * x)
    """)
    same(h(V3), reference(), "after", rtol=1e-4, atol=1e-5)
    return "right"


@check("stale")
def jvp_after_global_rebound(ws):
    m = ws.module("""
        import numpy as np
        act = np.tanh
        def f(x):
            return np.sum(act(x) * x)
    """)
    v = np.array([1.0, 0.5, -2.0])
    _, t = s2sad.jvp(m.f, (V3,), (v,))
    same(t, fd_grad(m.f, V3) @ v, "before")
    m.act = np.sin
    _, t = s2sad.jvp(m.f, (V3,), (v,))
    same(t, fd_grad(m.f, V3) @ v, "after")
    return "right"


EMITTED_SOURCE = """
import numpy as np
def helper(x):
    return np.sin(x)
def loss(x):
    return np.sum(helper(x) * x)
"""


def _emit(ws, name, extra=()):
    result = subprocess.run([sys.executable, "-m", "s2sad", "emit", f"{name}.py:loss", "-o", f"{name}_grad.py", *extra],
                            cwd=ws.directory, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def _run_emitted(ws, name, code):
    """Run ``code`` in a new process beside the emitted file: its stdout, or the error it raised."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ws.directory, capture_output=True,
                            text=True)
    return result.returncode, result.stdout, result.stderr


@check("stale")
def emitted_file_then_source_changed(ws):
    name = f"emitsrc_{os.getpid()}_{next(Workspace._counter)}"
    ws.write(name, EMITTED_SOURCE)
    _emit(ws, name)
    ws.write(name, EMITTED_SOURCE.replace("helper(x) * x)", "helper(x) * x ** 2)"))
    code, out, err = _run_emitted(ws, name, f"""
        import numpy as np, {name}_grad as e
        print(repr(e.loss_grad(np.array([0.3, -0.8, 1.4])).tolist()))
    """)
    if code != 0:
        assert "S2SADError" in err or "s2sad" in err.splitlines()[-1], err
        return "refused"
    fresh = ws.module(open(ws.path(name)).read(), name=name + "_now")
    same(np.array(eval(out)), fd_grad(fresh.loss, V3), "the emitted gradient after the source changed")
    return "right"


@check("stale")
def emitted_file_then_helper_changed(ws):
    name = f"emitsrc_{os.getpid()}_{next(Workspace._counter)}"
    ws.write(name, EMITTED_SOURCE)
    _emit(ws, name)
    ws.write(name, EMITTED_SOURCE.replace("np.sin(x)", "np.exp(x) * 0.5"))
    code, out, err = _run_emitted(ws, name, f"""
        import numpy as np, {name}_grad as e
        print(repr(e.loss_grad(np.array([0.3, -0.8, 1.4])).tolist()))
    """)
    if code != 0:
        assert "s2sad" in err.lower(), err
        return "refused"
    fresh = ws.module(open(ws.path(name)).read(), name=name + "_now")
    same(np.array(eval(out)), fd_grad(fresh.loss, V3), "the emitted gradient after the helper changed")
    return "right"


@check("stale")
def emitted_file_then_helper_rebound_in_process(ws):
    name = f"emitsrc_{os.getpid()}_{next(Workspace._counter)}"
    ws.write(name, EMITTED_SOURCE)
    _emit(ws, name)
    ws.write(name + "_other", """
        import numpy as np
        def helper(x):
            return np.exp(x) * 0.5
    """)
    code, out, err = _run_emitted(ws, name, f"""
        import numpy as np, {name}_grad as e, {name} as source, {name}_other as other
        x = np.array([0.3, -0.8, 1.4])
        first = e.loss_grad(x)
        source.helper = other.helper  # a notebook cell rebinding the helper after the import
        print(repr([first.tolist(), e.loss_grad(x).tolist()]))
    """)
    if code != 0:
        assert "s2sad" in err.lower(), err
        return "refused"
    first, second = eval(out)
    fresh = ws.module(EMITTED_SOURCE, name=name + "_now")
    same(np.array(first), fd_grad(fresh.loss, V3), "before the helper was rebound")
    fresh.helper = lambda x: np.exp(x) * 0.5
    same(np.array(second), fd_grad(fresh.loss, V3), "after the helper was rebound")
    return "right"


@check("stale")
def emitted_file_unchanged_source_runs(ws):
    name = f"emitsrc_{os.getpid()}_{next(Workspace._counter)}"
    ws.write(name, EMITTED_SOURCE)
    _emit(ws, name)
    code, out, err = _run_emitted(ws, name, f"""
        import numpy as np, {name}_grad as e
        print(repr(e.loss_grad(np.array([0.3, -0.8, 1.4])).tolist()))
    """)
    assert code == 0, err
    fresh = ws.module(EMITTED_SOURCE, name=name + "_now")
    same(np.array(eval(out)), fd_grad(fresh.loss, V3), "the emitted gradient")
    return "right"


# ====================================================================== 2. training loops
def _mlp_module(ws):
    return ws.module("""
        import numpy as np
        def predict(layers, X):
            h = X
            for W, b in layers:
                h = np.tanh(h @ W + b)
            return h
        def loss(layers, X, y):
            return np.mean((predict(layers, X) - y) ** 2)
        def dict_loss(params, X, y):
            p = np.tanh(X @ params["W"] + params["b"])
            return np.mean((p - y) ** 2) + 0.01 * np.sum(params["W"] ** 2)
        class Net:
            def __init__(self, W, b):
                self.W = W
                self.b = b
            def loss(self, X, y):
                return np.mean((np.tanh(X @ self.W + self.b) - y) ** 2)
        def object_loss(net, X, y):
            return net.loss(X, y)
    """)


def _data(seed=0, n=6, d=3, k=2):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(n, k)), rng


def _layers_fd(loss, layers, X, y):
    grads = []
    for i, (W, b) in enumerate(layers):
        def of_W(Wv, i=i):
            return loss([(Wv, lb) if j == i else (lW, lb) for j, (lW, lb) in enumerate(layers)], X, y)

        def of_b(bv, i=i):
            return loss([(lW, bv) if j == i else (lW, lb) for j, (lW, lb) in enumerate(layers)], X, y)
        grads.append((fd(of_W, [W]), fd(of_b, [b])))
    return grads


@check("training")
def dict_params_updated_in_place(ws):
    m = _mlp_module(ws)
    X, y, rng = _data()
    params = {"W": rng.normal(size=(3, 2)), "b": np.zeros(2)}
    vg = s2sad.value_and_grad(m.dict_loss)
    for step in range(4):
        value, g = vg(params, X, y)
        same(value, m.dict_loss(params, X, y), f"value at step {step}")
        expected = tree_fd(m.dict_loss, params, X, y)
        for key in params:
            same(g[key], expected[key], f"{key} at step {step}")
            params[key] -= 0.5 * g[key]
    return "right"


@check("training")
def layer_tuples_updated_in_place(ws):
    m = _mlp_module(ws)
    X, y, rng = _data(1)
    layers = [(rng.normal(size=(3, 4)), np.zeros(4)), (rng.normal(size=(4, 2)), np.zeros(2))]
    g_of = s2sad.grad(m.loss)
    kept = []
    for step in range(3):
        grads = g_of(layers, X, y)
        expected = _layers_fd(m.loss, layers, X, y)
        for (dW, db), (eW, eb) in zip(grads, expected):
            same(dW, eW, f"dW at step {step}")
            same(db, eb, f"db at step {step}")
        kept.append(copy.deepcopy(grads))
        kept.append(grads)
        for (W, b), (dW, db) in zip(layers, grads):
            W -= 0.3 * dW  # in place: the caller's arrays change
            b -= 0.3 * db
    for i in range(0, len(kept), 2):  # the gradients handed back were not changed by later steps
        for (a, b), (c, d) in zip(kept[i], kept[i + 1]):
            same(c, a, "a kept dW")
            same(d, b, "a kept db")
    return "right"


@check("training")
def object_params_updated_in_place(ws):
    m = _mlp_module(ws)
    X, y, rng = _data(2)
    net = m.Net(rng.normal(size=(3, 2)), np.zeros(2))
    g_of = s2sad.grad(m.object_loss)
    for step in range(3):
        g = g_of(net, X, y)

        def of_W(W):
            return m.object_loss(m.Net(W, net.b), X, y)

        def of_b(b):
            return m.object_loss(m.Net(net.W, b), X, y)
        same(g.W, fd(of_W, [net.W]), f"W at step {step}")
        same(g.b, fd(of_b, [net.b]), f"b at step {step}")
        net.W -= 0.5 * g.W
        net.b -= 0.5 * g.b
    return "right"


@check("training")
def bound_method_of_an_updated_object(ws):
    m = _mlp_module(ws)
    X, y, rng = _data(3)
    net = m.Net(rng.normal(size=(3, 2)), np.zeros(2))
    for step in range(3):
        gx = s2sad.grad(net.loss)(X, y)
        same(gx, fd(lambda Xv: net.loss(Xv, y), [X]), f"dX at step {step}")
        net.W = net.W + 0.1  # rebinding a field between calls
        net.b *= 2.0
        net.b += 0.1
    return "right"


@check("training")
def adam_by_hand_with_state_dicts(ws):
    m = _mlp_module(ws)
    X, y, rng = _data(4)
    params = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    reference = {k: v.copy() for k, v in params.items()}
    state = {"m": {k: np.zeros_like(v) for k, v in params.items()},
             "v": {k: np.zeros_like(v) for k, v in params.items()}, "t": 0}
    ref_state = copy.deepcopy(state)

    def adam(params, grads, state, lr=0.05, b1=0.9, b2=0.999, eps=1e-8):
        state["t"] += 1
        for k in params:
            state["m"][k] *= b1
            state["m"][k] += (1 - b1) * grads[k]
            state["v"][k] *= b2
            state["v"][k] += (1 - b2) * grads[k] ** 2
            mhat = state["m"][k] / (1 - b1 ** state["t"])
            vhat = state["v"][k] / (1 - b2 ** state["t"])
            params[k] -= lr * mhat / (np.sqrt(vhat) + eps)

    g_of = s2sad.grad(m.dict_loss)
    for _ in range(5):
        adam(params, g_of(params, X, y), state)
        adam(reference, tree_fd(m.dict_loss, reference, X, y), ref_state)
    for k in params:
        same(params[k], reference[k], f"{k} after 5 Adam steps", rtol=1e-6, atol=1e-7)
    return "right"


@check("training")
def gradients_never_alias(ws):
    m = ws.module("""
        import numpy as np
        A = np.array([1.0, 2.0, 3.0])
        def linear(x):
            return np.dot(A, x)
        def weighted(w, x):
            return np.sum(w * x)
        def identity_sum(x):
            return np.sum(x)
        def scaled(x):
            return np.sum(x * 1.0)
    """)
    x = V3.copy()
    outs = []
    for f, args in ((m.linear, (x,)), (m.weighted, (x, m.A)), (m.identity_sum, (x,)), (m.scaled, (x,))):
        for _ in range(3):  # warm calls take other lanes
            outs.append((s2sad.grad(f)(*args), f, args))
            outs.append((s2sad.value_and_grad(f)(*args)[1], f, args))
    arrays = [m.A, x]
    for g, f, args in outs:
        for other in arrays:
            assert not np.shares_memory(g, other), f"a gradient of {f.__name__} shares memory with {other}"
        arrays.append(g)
    for g, f, args in outs:  # changing one gradient changes nothing else
        expected = fd_grad(f, *args)
        same(g, expected, f.__name__)
        g *= 100.0
    same(m.A, [1.0, 2.0, 3.0], "the module's constant")
    same(s2sad.grad(m.linear)(x), fd_grad(m.linear, x), "after the user scaled the gradients")
    return "right"


@check("training")
def has_aux_arrays_mutated(ws):
    m = ws.module("""
        import numpy as np
        def f(w, X):
            h = np.tanh(X @ w)
            return np.sum(h ** 2), {"h": h, "w": w, "X": X}
    """)
    X, _, rng = _data(5, k=1)
    w = rng.normal(size=3)
    g_of = s2sad.value_and_grad(m.f, has_aux=True)
    for step in range(3):
        (value, aux), g = g_of(w, X)
        same(g, fd(lambda wv: m.f(wv, X)[0], [w]), f"step {step}")
        assert aux["w"] is w and aux["X"] is X  # handed back as the function returned them
        aux["h"][:] = 0.0  # the user writes into the aux array
        same(g, fd(lambda wv: m.f(wv, X)[0], [w]), f"step {step}, after the aux was changed")
        w = w - 0.1 * g
    return "right"


@check("training")
def grad_has_aux_kept_across_steps(ws):
    m = ws.module("""
        import numpy as np
        def f(w):
            r = np.sin(w) * w
            return np.sum(r), r
    """)
    g_of = s2sad.grad(m.f, has_aux=True)
    w = V3.copy()
    kept = []
    for _ in range(3):
        g, aux = g_of(w)
        kept.append((g, aux, g.copy(), aux.copy(), w.copy()))
        w -= 0.2 * g
    for g, aux, g0, aux0, w0 in kept:
        same(g, g0, "a kept gradient")
        same(aux, aux0, "a kept aux")
        same(g0, fd(lambda wv: m.f(wv)[0], [w0]), "the gradient at its step")
    return "right"


@check("training")
def scalar_params_in_a_list(ws):
    m = ws.module("""
        import numpy as np
        def f(params, x):
            a, b, c = params
            return np.sum((a * x ** 2 + b * x + c - np.cos(x)) ** 2)
    """)
    params = [0.3, -0.2, 0.9]
    x = np.linspace(-1, 1, 5)
    g_of = s2sad.grad(m.f)
    for step in range(3):
        g = g_of(params, x)
        for i in range(3):
            same(g[i], fd(lambda v, i=i: m.f(params[:i] + [v] + params[i + 1:], x), [params[i]]), f"{i} at {step}")
        params = [p - 0.05 * d for p, d in zip(params, g)]
    return "right"


@check("training")
def compiled_training_loop_in_place(ws):
    m = ws.module("""
        import numpy as np
        def loss(w, x, y):
            return np.sum((np.tanh(x * w) - y) ** 2)
    """)
    x, y = np.linspace(-1, 1, 7), np.linspace(0.5, -0.3, 7)
    w = np.full(7, 0.4)
    g_of = s2sad.grad(m.loss, compile=True)
    kept = []
    for step in range(4):
        g = g_of(w, x, y)
        same(g, fd_grad(m.loss, w, x, y), f"step {step}")
        kept.append((g, g.copy()))
        w -= 0.1 * g
    for g, g0 in kept:
        same(g, g0, "a kept compiled gradient")
    return "right"


@check("training")
def float32_params_updated(ws):
    m = ws.module("""
        import numpy as np
        def loss(w, x):
            return np.sum(np.tanh(w * x) ** 2)
    """)
    x = np.linspace(-1, 1, 4).astype(np.float32)
    w = np.full(4, 0.3, dtype=np.float32)
    g_of = s2sad.grad(m.loss)
    for step in range(3):
        g = g_of(w, x)
        assert g.dtype == np.float32
        expected = fd(lambda wv: m.loss(wv, x.astype(np.float64)), [w.astype(np.float64)])
        same(g, expected, f"step {step}", rtol=1e-3, atol=1e-4)
        w -= np.float32(0.1) * g
    return "right"


@check("training")
def minibatch_lambdas_over_a_loop_variable(ws):
    m = _mlp_module(ws)
    X, y, rng = _data(7, n=12, k=1)
    w = rng.normal(size=3)
    for start, size in ((0, 4), (4, 5), (9, 3), (0, 4)):  # batch sizes change between calls
        Xb, yb = X[start:start + size], y[start:start + size, 0]
        g = s2sad.grad(lambda wv: np.mean((np.tanh(Xb @ wv) - yb) ** 2))(w)
        same(g, fd(lambda wv: np.mean((np.tanh(Xb @ wv) - yb) ** 2), [w]), f"batch at {start}")
        w = w - 0.5 * g
    return "right"


@check("training")
def closures_from_one_factory_interleaved(ws):
    m = ws.module("""
        import numpy as np
        def make_loss(target, scale):
            def loss(w):
                return scale * np.sum((np.sin(w) - target) ** 2)
            return loss
    """)
    losses = [m.make_loss(np.array([0.1, 0.2, 0.3]), 1.0), m.make_loss(np.array([-1.0, 0.5, 2.0]), 3.0)]
    grads = [s2sad.grad(loss) for loss in losses]
    for step in range(3):
        for loss, g in zip(losses, grads):  # the same code, other cells, called by turns
            same(g(V3 + step), fd_grad(loss, V3 + step), f"step {step}")
    return "right"


@check("training")
def partial_with_new_data_each_step(ws):
    m = _mlp_module(ws)
    X, y, rng = _data(8)
    params = {"W": rng.normal(size=(3, 2)), "b": np.zeros(2)}
    for step in range(3):
        Xs, ys = X + 0.1 * step, y[::-1] if step % 2 else y
        loss = functools.partial(m.dict_loss, X=Xs, y=ys)
        g = s2sad.grad(loss)(params)
        expected = tree_fd(lambda p: m.dict_loss(p, Xs, ys), params)
        for key in params:
            same(g[key], expected[key], f"{key} at step {step}")
        params = {key: params[key] - 0.2 * g[key] for key in params}
    return "right"


@check("training")
def dtypes_alternating_between_calls(ws):
    m = ws.module("""
        import numpy as np
        def loss(w, x):
            return np.sum(np.tanh(w * x) ** 2) + np.sum(w ** 3)
    """)
    g = s2sad.grad(m.loss)
    x = np.linspace(-1, 1, 3)
    for w in (V3, V3.astype(np.float32), V3, np.float64(0.4), 0.4, V3[::-1], V3.reshape(3, 1), V3):
        gradient = g(w, x)
        assert np.result_type(gradient) == np.result_type(w), (type(gradient), type(w))
        expected = fd(m.loss, [np.asarray(w, dtype=np.float64), x])
        same(gradient, expected, f"w of {np.asarray(w).dtype} {np.shape(w)}", rtol=1e-3 if np.asarray(w).dtype == np.float32 else 1e-6,
             atol=1e-4 if np.asarray(w).dtype == np.float32 else 1e-8)
    return "right"


# ====================================================================== 3. higher order and nesting
@check("higher")
def grad_of_grad_scalar(ws):
    m = ws.module("""
        import numpy as np
        def f(x):
            return np.sin(x) * x ** 3
    """)
    d2 = s2sad.grad(s2sad.grad(m.f))
    first = s2sad.grad(m.f)
    exact = -np.sin(X) * X ** 3 + 6 * np.cos(X) * X ** 2 + 6 * np.sin(X) * X  # (sin(x) x^3)'' by hand
    same(d2(X), exact, "f''", rtol=1e-10)
    same(first(X), fd(m.f, [X]), "f' after f'' was made")
    return "right"


@check("higher")
def jvp_of_grad(ws):
    m = ws.module("""
        import numpy as np
        def f(x):
            return np.sum(np.exp(0.3 * x) * x ** 2)
    """)
    v = np.array([1.0, -2.0, 0.5])
    _, t = s2sad.jvp(s2sad.grad(m.f), (V3,), (v,))
    hessian = fd_hessian(m.f, V3)
    same(t, hessian @ v, "H v by jvp of grad", rtol=1e-4, atol=1e-5)
    return "right"


@check("higher")
def hvp_of_a_loss_with_helpers(ws):
    m = ws.module("""
        import numpy as np
        def act(z):
            return np.log1p(np.exp(z))
        def loss(w, X, y):
            return np.mean((act(X @ w) - y) ** 2)
    """)
    X, y, rng = _data(6, k=1)
    y = y[:, 0]
    w, v = rng.normal(size=3), rng.normal(size=3)
    hv = s2sad.hvp(m.loss, (w, X, y), (v, np.zeros_like(X), np.zeros_like(y)))
    hv = hv[0] if isinstance(hv, tuple) else hv
    hessian = fd_hessian(lambda wv: m.loss(wv, X, y), w)
    same(hv, hessian @ v, "hvp", rtol=1e-4, atol=1e-5)
    return "right"


@check("higher")
def inner_optimisation_loop_calling_grad(ws):
    m = ws.module("""
        import numpy as np
        import s2sad
        def inner(y, x):
            return np.sum((y - x) ** 2 + 0.1 * y ** 4)
        def outer(x):
            y = np.zeros_like(x)
            step = s2sad.grad(inner)
            for _ in range(3):
                y = y - 0.2 * step(y, x)
            return np.sum(np.sin(y) * x)
    """)
    same(s2sad.grad(m.outer)(V3), fd_grad(m.outer, V3), "through three inner gradient steps", rtol=1e-5, atol=1e-7)
    return "right"


@check("higher")
def vjp_pullback_twice_different_cotangents(ws):
    m = ws.module("""
        import numpy as np
        def f(x):
            return np.tanh(x) * x[::-1]
    """)
    J = np.array([fd(lambda x, i=i: m.f(x)[i], [V3]) for i in range(3)])
    y, pullback = s2sad.vjp(m.f, V3)
    for ct in (np.ones(3), np.array([0.0, 2.0, -1.0]), np.array([5.0, 0.0, 0.0]), np.ones(3)):
        same(pullback(ct)[0], ct @ J, f"pullback of {ct}")
    return "right"


@check("higher")
def vjp_pullback_twice_with_in_place_code(ws):
    m = ws.module("""
        import numpy as np
        def f(x):
            out = np.zeros(3)
            out[0] = x[0] * x[1]
            out[1] = np.sin(x[2])
            out *= x
            return out
    """)
    J = np.array([fd(lambda x, i=i: m.f(x)[i], [V3]) for i in range(3)])
    y, pullback = s2sad.vjp(m.f, V3)
    for ct in (np.ones(3), np.array([0.0, 2.0, -1.0]), np.array([1.0, 1.0, 3.0])):
        same(pullback(ct)[0], ct @ J, f"pullback of {ct}")
    return "right"


@check("higher")
def vjp_then_caller_changes_input(ws):
    m = ws.module("""
        import numpy as np
        def f(x):
            return np.sin(x) * x
    """)
    x = V3.copy()
    expected = np.array([fd(lambda xv, i=i: m.f(xv)[i], [V3]) for i in range(3)])
    y, pullback = s2sad.vjp(m.f, x)
    x *= 3.0  # the caller's array changes before the pullback runs
    same(pullback(np.ones(3))[0], np.ones(3) @ expected, "at the point of the vjp call")
    return "right"


@check("higher")
def vjp_then_caller_changes_output(ws):
    m = ws.module("""
        import numpy as np
        def f(x):
            return np.exp(x)
    """)
    y, pullback = s2sad.vjp(m.f, V3.copy())
    y[:] = -1.0
    same(pullback(np.ones(3))[0], np.exp(V3), "after the caller changed the output")
    return "right"


@check("higher")
def linearize_then_caller_changes_point(ws):
    m = ws.module("""
        import numpy as np
        def f(x):
            return np.sin(x) * x ** 2
    """)
    x = V3.copy()
    J = np.array([fd(lambda xv, i=i: m.f(xv)[i], [V3]) for i in range(3)])
    y, f_jvp = s2sad.linearize(m.f, x)
    x -= 0.5 * np.ones(3)  # an optimiser's step in place, before the linear map is used
    for v in (np.ones(3), np.array([0.0, 2.0, -1.0])):
        same(f_jvp(v), J @ v, f"the jvp at the point linearized, along {v}")
    same(y, m.f(V3), "the value at that point")
    return "right"


@check("higher")
def argnums_tuple_with_an_int_between(ws):
    m = ws.module("""
        import numpy as np
        def f(a, n, b, c):
            return np.sum(a ** n * np.sin(b)) + c * np.sum(a)
    """)
    args = (V3, 3, np.array([0.1, 0.2, 0.3]), 1.5)
    ga, gb, gc = s2sad.grad(m.f, argnums=(0, 2, 3))(*args)
    same(ga, fd(m.f, args, 0), "a")
    same(gb, fd(m.f, args, 2), "b")
    same(gc, fd(m.f, args, 3), "c")
    gb2, ga2 = s2sad.grad(m.f, argnums=(2, 0))(*args)
    same(ga2, ga, "a, asked second")
    same(gb2, gb, "b, asked first")
    return "right"


@check("higher")
def holomorphic_function(ws):
    m = ws.module("""
        import numpy as np
        def f(z):
            return np.sin(z) * z ** 2 + np.exp(1j * z)
    """)
    z = 0.4 + 0.3j
    h = 1e-6
    expected = (m.f(z + h) - m.f(z - h)) / (2 * h)
    expected_i = (m.f(z + 1j * h) - m.f(z - 1j * h)) / (2j * h)
    same(expected, expected_i, "the function is holomorphic", rtol=1e-6)
    same(s2sad.grad(m.f, holomorphic=True)(z), expected, "f'(z)")
    zs = np.array([0.1 + 0.2j, -0.5 + 1j])
    _, t = s2sad.jvp(m.f, (zs,), (np.ones(2, complex),))
    same(t, (m.f(zs + h) - m.f(zs - h)) / (2 * h), "jvp of complex")
    return "right"


@check("higher")
def real_loss_of_complex_grad_twice(ws):
    m = ws.module("""
        import numpy as np
        def f(z):
            return np.sum(np.abs(z * np.exp(1j * z.real)) ** 2)
    """)
    z = np.array([0.3 + 0.1j, -0.2 + 0.7j])
    g = s2sad.grad(m.f)(z)
    h = 1e-6
    expected = np.array([(m.f(z + h * e) - m.f(z - h * e)) / (2 * h) + 1j * (m.f(z + 1j * h * e) - m.f(z - 1j * h * e)) / (2 * h)
                         for e in np.eye(2)])
    # s2sad's convention for a real loss of complex z: the conjugate of JAX's, d/dx + i d/dy, or JAX's
    ok = np.allclose(g, expected, rtol=1e-5) or np.allclose(g, np.conj(expected), rtol=1e-5)
    assert ok, f"{g} against {expected}"
    g2 = s2sad.grad(m.f)(z)
    same(g2, g, "the second call")
    return "right"


@check("higher")
def differentiate_on_a_method(ws):
    m = ws.module("""
        import numpy as np
        import s2sad
        class Model:
            def __init__(self, scale):
                self.scale = scale
            @s2sad.differentiate(argnums=1)
            def energy(self, x):
                return self.scale * np.sum(np.cos(x) * x)
            @s2sad.differentiate
            def of_self(self, x):
                return self.scale ** 2 * np.sum(x)
    """)
    model = m.Model(2.0)
    same(model.energy(V3), m.Model.energy(model, V3), "the bound call")
    same(s2sad.grad(model.energy)(V3), fd_grad(model.energy, V3), "grad of the bound method")
    same(model.energy.grad(V3), fd_grad(model.energy, V3), "the decorator's .grad through the object")
    value, gradient = model.energy.value_and_grad(V3)
    same(value, model.energy(V3), "the value")
    same(gradient, fd_grad(model.energy, V3), "value_and_grad through the object")
    model.scale = -0.5
    same(model.energy.grad(V3), fd_grad(model.energy, V3), "after the field changed")
    tangent = model.of_self.grad(V3)  # argnums=0 is self: the derivative with respect to its fields
    same(tangent.scale, fd(lambda s: m.Model(s).of_self(V3), [model.scale]), "d/d scale")
    return "right"


@check("higher")
def differentiate_argnums_on_a_method(ws):
    m = ws.module("""
        import numpy as np
        import s2sad
        class Model:
            @s2sad.differentiate(argnums=(1, 2))
            def energy(self, x, w):
                return np.sum(np.cos(x) * w ** 2)
    """)
    model = m.Model()
    w = np.array([1.0, 2.0, 0.5])
    gx, gw = s2sad.grad(model.energy, argnums=(0, 1))(V3, w)
    same(gx, fd(model.energy, [V3, w], 0), "x")
    same(gw, fd(model.energy, [V3, w], 1), "w")
    gx2, gw2 = m.Model.energy.grad(model, V3, w)
    same(gx2, gx, "x through the decorator")
    same(gw2, gw, "w through the decorator")
    return "right"


@check("higher")
def hessian_of_a_dict_loss(ws):
    m = ws.module("""
        import numpy as np
        def f(p):
            return np.sum(np.sin(p["a"]) * p["b"] ** 2)
    """)
    p = {"a": np.array([0.2, 0.9]), "b": np.array([1.5, -0.4])}
    H = s2sad.hessian(m.f)(p)
    joint = fd_hessian(lambda ab: m.f({"a": ab[:2], "b": ab[2:]}), np.concatenate([p["a"], p["b"]]))
    blocks = {"a": slice(0, 2), "b": slice(2, 4)}
    for k1 in p:
        for k2 in p:
            same(H[k1][k2], joint[blocks[k1], blocks[k2]], f"H[{k1}][{k2}]", rtol=1e-4, atol=1e-5)
    return "right"


@check("higher")
def jacrev_of_grad_with_argnums(ws):
    m = ws.module("""
        import numpy as np
        def f(a, b):
            return np.sum(np.tanh(a * b) + a ** 2 * b)
    """)
    a, b = np.array([0.3, -0.5]), np.array([1.2, 0.8])
    J = s2sad.jacrev(s2sad.grad(m.f, argnums=1), argnums=0)(a, b)
    # d/da_j of df/db_i = H[i, j] of f in (b, a) together: the mixed block of its Hessian
    joint = fd_hessian(lambda ab: m.f(ab[2:], ab[:2]), np.concatenate([b, a]))
    expected = joint[:2, 2:]
    same(J, expected, "d/da of df/db", rtol=1e-4, atol=1e-5)
    return "right"


@check("higher")
def grad_of_value_and_grad_inside(ws):
    m = ws.module("""
        import numpy as np
        import s2sad
        def energy(x):
            return np.sum(np.cos(x) * x ** 2)
        def slope_norm(x):
            value, g = s2sad.value_and_grad(energy)(x)
            return value + np.sum(g ** 2)
    """)
    same(s2sad.grad(m.slope_norm)(V3), fd_grad(m.slope_norm, V3), "", rtol=1e-5, atol=1e-7)
    return "right"


@check("higher")
def third_order_scalar(ws):
    m = ws.module("""
        import numpy as np
        def f(x):
            return np.exp(0.5 * x) * x ** 2
    """)
    d3 = s2sad.grad(s2sad.grad(s2sad.grad(m.f)))
    x = 0.4
    exact = np.exp(0.5 * x) * (x ** 2 / 8 + 3 * x / 2 + 3)  # (e^{x/2} x^2)''' by hand
    try:
        same(d3(x), exact, "f'''", rtol=1e-8)
    except s2sad.S2SADError:
        return "refused"
    return "right"


# ====================================================================== 4. user rules
@check("rules")
def template_rule_in_grad_jvp_hvp(ws):
    m = ws.module("""
        import numpy as np
        def softplus(x):
            return np.logaddexp(0.0, x)
        def f(x):
            return np.sum(softplus(x) * x)
    """)
    with registered(m.softplus, lambda function: s2sad.defvjp(function, "x", "g / (1 + np.exp(-x))")):
        same(s2sad.grad(m.f)(V3), fd_grad(m.f, V3), "grad")
        v = np.array([0.5, 1.0, -1.0])
        try:
            _, t = s2sad.jvp(m.f, (V3,), (v,))
            same(t, fd_grad(m.f, V3) @ v, "jvp")
        except s2sad.S2SADError:
            return "refused"
        hessian = fd_hessian(m.f, V3)
        try:
            same(s2sad.hvp(m.f, (V3,), (v,)), hessian @ v, "hvp", rtol=1e-4, atol=1e-5)
        except s2sad.S2SADError:
            return "refused"
    return "right"


def _op_module(ws, reads="x"):
    """``op(x) = sin(x)`` (to be given a rule) and ``f(x) = sum(op(x) * <reads>)``."""
    return ws.module(f"""
        import numpy as np
        def op(x):
            return np.sin(x)
        def f(x):
            return np.sum(op(x) * {reads})
    """)


def _pair_module(ws):
    """``op(x, y) = sin(x) * y`` (to be given an rrule) and ``f(x, y) = sum(op(x, y))``."""
    return ws.module("""
        import numpy as np
        def op(x, y):
            return np.sin(x) * y
        def f(x, y):
            return np.sum(op(x, y))
    """)


@contextlib.contextmanager
def registered(function, register):
    """``register(function)`` for the ``with`` block, unregistered after it."""
    register(function)
    try:
        yield
    finally:
        s2sad.unregister(function)


def _refused_with_vjp(ws, vjp, x=V3, reads="x") -> str:
    m = _op_module(ws, reads)
    with registered(m.op, lambda op: s2sad.defvjp(op, "x", vjp)):
        return refused(lambda: s2sad.grad(m.f)(x))


@check("rules")
def rule_with_wrong_shape(ws):
    return _refused_with_vjp(ws, lambda g, ans, x: np.sum(g * np.cos(x)))  # a scalar where x is (3,)


@check("rules")
def rule_with_wrong_shape_broadcastable(ws):
    return _refused_with_vjp(ws, lambda g, ans, x: (g * np.cos(x))[:, None])  # (3, 1) where x is (3,)


@check("rules")
def rule_with_wrong_shape_same_size(ws):
    return _refused_with_vjp(ws, lambda g, ans, x: (g * np.cos(x)).reshape(x.shape[::-1]),  # (3, 2) for (2, 3)
                             np.arange(6.0).reshape(2, 3) / 7, reads="x[::-1, ::-1]")


def _right_with_vjp(ws, vjp, what: str) -> str:
    m = _op_module(ws)
    with registered(m.op, lambda op: s2sad.defvjp(op, "x", vjp)):
        gradient = s2sad.grad(m.f)(V3)
    assert gradient.dtype == np.float64, gradient.dtype
    same(gradient, fd_grad(m.f, V3), what)
    return "right"


@check("rules")
def rule_with_complex_dtype_for_real(ws):
    # a real argument's cotangent is the real part of the rule's (unbroadcast casts it)
    return _right_with_vjp(ws, lambda g, ans, x: g * np.cos(x) + 1j * g, "the real part of a complex cotangent")


@check("rules")
def rule_with_float32_for_float64(ws):
    return _right_with_vjp(ws, lambda g, ans, x: (g * np.cos(x)).astype(np.float32), "a float32 cotangent")


def _refused_with_pullback(ws, pullback) -> str:
    m = _pair_module(ws)

    def rrule(x, y):
        return np.sin(x) * y, lambda g: pullback(g, x, y)
    with registered(m.op, lambda op: s2sad.defrrule(op, rrule, "x, y")):
        return refused(lambda: s2sad.grad(m.f, argnums=(0, 1))(V3, V3 + 1))


@check("rules")
def rrule_with_wrong_number_of_cotangents(ws):
    return _refused_with_pullback(ws, lambda g, x, y: (s2sad.NO_TANGENT, g * np.cos(x) * y))  # y's missing


@check("rules")
def rrule_cotangents_off_by_one(ws):
    """The pullback forgets ``dself``: the cotangents come one place early."""
    return _refused_with_pullback(ws, lambda g, x, y: (g * np.cos(x) * y, g * np.sin(x)))


@check("rules")
def rule_for_keyword_arguments(ws):
    m = ws.module("""
        import numpy as np
        def scaled(x, *, s=2.0, shift=0.0):
            return s * np.sin(x) + shift
        def f(x, k):
            return np.sum(scaled(x, s=k) ** 2) + np.sum(scaled(x, shift=k, s=0.5)) + np.sum(scaled(x))
    """)
    with registered(m.scaled, lambda function: s2sad.defvjp(function, "x, *, s=2.0, shift=0.0", "g * s * np.cos(x)")):
        args = (V3, 1.7)
        same(s2sad.grad(m.f)(*args), fd(m.f, args, 0), "x")
        try:
            gk = s2sad.grad(m.f, argnums=1)(*args)
        except s2sad.S2SADError:
            return "refused"  # no rule for the keyword: refused, not zero
        same(gk, fd(m.f, args, 1), "k")
    return "right"


@check("rules")
def rule_for_positional_defaults_called_by_keyword(ws):
    m = ws.module("""
        import numpy as np
        def power(x, p=2.0):
            return np.abs(x) ** p
        def f(x):
            return np.sum(power(x, p=3.0)) + np.sum(power(p=1.5, x=x)) + np.sum(power(x))
    """)
    with registered(m.power, lambda function: s2sad.defvjp(function, "x, p=2.0", "g * p * np.abs(x) ** (p - 1) * np.sign(x)", None)):
        same(s2sad.grad(m.f)(V3), fd_grad(m.f, V3), "x")
    return "right"


@check("rules")
def defvjp_all_in_hvp(ws):
    m = ws.module("""
        import numpy as np
        def solve(A, b):
            return np.linalg.solve(A, b)
        def f(A, b):
            return np.sum(solve(A, b) ** 2)
    """)

    def vjp(g, ans, A, b):
        bb = np.linalg.solve(A.T, g)
        return -np.outer(bb, ans), bb
    s2sad.defvjp_all(m.solve, "A, b", vjp)
    A = np.array([[3.0, 0.5], [0.2, 2.0]])
    b = np.array([1.0, -0.5])
    try:
        gA, gb = s2sad.grad(m.f, argnums=(0, 1))(A, b)
        same(gA, fd(m.f, [A, b], 0), "A")
        same(gb, fd(m.f, [A, b], 1), "b")
        v = np.array([0.3, 1.0])
        try:
            hv = s2sad.hvp(lambda bb: m.f(A, bb), (b,), (v,))
        except s2sad.S2SADError:
            return "refused"
        hessian = fd_hessian(lambda bb: m.f(A, bb), b)
        same(hv, hessian @ v, "hvp in b", rtol=1e-4, atol=1e-5)
    finally:
        s2sad.unregister(m.solve)
    return "right"


@check("rules")
def custom_vjp_in_a_training_loop(ws):
    m = ws.module("""
        import numpy as np
        import s2sad
        @s2sad.custom_vjp
        def clip_grad(x):
            return np.tanh(x)
        def fwd(x):
            y = np.tanh(x)
            return y, y
        def bwd(y, g):
            return (g * (1 - y ** 2),)
        clip_grad.defvjp(fwd, bwd)
        def loss(w, x):
            return np.sum(clip_grad(w * x) ** 2)
    """)
    x = np.linspace(-1, 1, 3)
    w = np.array([0.5, 1.0, 2.0])
    g_of = s2sad.grad(m.loss)
    for step in range(3):
        g = g_of(w, x)
        same(g, fd(lambda wv: np.sum(np.tanh(wv * x) ** 2), [w]), f"step {step}")
        w -= 0.3 * g
    return "right"


@check("rules")
def autograd_style_defvjp(ws):
    m = ws.module("""
        import numpy as np
        def logsumexp(x):
            c = np.max(x)
            return c + np.log(np.sum(np.exp(x - c)))
        def f(x):
            return logsumexp(x * 2.0) * np.sum(x)
    """)
    with registered(m.logsumexp, lambda function: s2sad.defvjp(function, lambda ans, x: lambda g: g * np.exp(x - ans))):
        same(s2sad.grad(m.f)(V3), fd_grad(m.f, V3), "grad")
        y, pullback = s2sad.vjp(m.f, V3)
        same(pullback(2.0)[0], 2.0 * fd_grad(m.f, V3), "vjp with 2")
    return "right"


@check("rules")
def wrong_rule_is_users_responsibility_but_check_grads_catches_it(ws):
    m = ws.module("""
        import numpy as np
        def op(x):
            return np.sin(x)
    """)
    s2sad.defvjp(m.op, "x", "g * np.sin(x)")  # wrong on purpose: the checker must say so
    try:
        s2sad.check_grads(m.op, modes=("rev",))(V3)
    except AssertionError:
        return "right"
    except s2sad.S2SADError:
        return "right"
    finally:
        s2sad.unregister(m.op)
    raise AssertionError("check_grads passed a wrong rule")


@check("rules")
def defmethod_rule_then_subclass_overrides(ws):
    m = ws.module("""
        import numpy as np
        class Layer:
            def __init__(self, w):
                self.w = w
            def apply(self, x):
                return np.sin(self.w * x)
        class Other(Layer):
            def apply(self, x):
                return np.exp(self.w * x)
        def loss(x, layer):
            return np.sum(layer.apply(x))
    """)
    w = np.array([0.5, 1.0, -2.0])
    for layer in (m.Layer(w), m.Other(w), m.Layer(w)):
        same(s2sad.grad(m.loss)(V3, layer), fd_grad(m.loss, V3, layer), type(layer).__name__)
    return "right"


@check("rules")
def nondifferentiable_user_function(ws):
    m = ws.module("""
        import numpy as np
        def count_positive(x):
            return float(np.sum(x > 0))
        def f(x):
            return count_positive(x) * np.sum(x ** 2)
    """)
    with registered(m.count_positive, lambda function: s2sad.nondifferentiable(function)):
        same(s2sad.grad(m.f)(V3), fd_grad(m.f, V3), "grad")
    return "right"


@check("rules")
def rule_registered_on_a_wrapper_then_function_rebound(ws):
    m = ws.module("""
        import numpy as np
        def act(x):
            return np.tanh(x)
        def f(x):
            return np.sum(act(x) * x)
    """)
    with registered(m.act, lambda function: s2sad.defvjp(function, "x", "g * (1 - ans ** 2)")):
        g = s2sad.grad(m.f)
        same(g(V3), fd_grad(m.f, V3), "with the rule")
        ws.cell(m, """
            def act(x):
                return np.arctan(x)
        """)  # a new function without a rule: its source is differentiated
        same(g(V3), fd_grad(m.f, V3), "after act was redefined")
    return "right"


# ---------------------------------------------------------------------- running them
def outcome(name: str, directory) -> tuple[str, str]:
    """(right | refused | wrong | crash, detail) of one check run in ``directory``."""
    _, function = CHECKS[name]
    ws = Workspace(directory)
    rules_before = {id(rule.function) for rule in all_rules()}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return function(ws), ""
    except AssertionError as error:
        return "wrong", str(error).strip().splitlines()[0] if str(error).strip() else "assertion"
    except s2sad.S2SADError as error:
        return "refused", error.message
    except Exception as error:  # noqa: BLE001 (a crash is an outcome to report)
        return "crash", f"{type(error).__name__}: {error}"
    finally:
        ws.close()
        for rule in all_rules():  # a custom_vjp's rule outlives its module: later tests must not see it
            if id(rule.function) not in rules_before:
                s2sad.unregister(rule.function)


if __name__ == "__main__":
    import collections
    import tempfile
    counts = collections.Counter()
    for name in (sys.argv[1:] or CHECKS):
        with tempfile.TemporaryDirectory() as directory:
            result, detail = outcome(name, directory)
        counts[result] += 1
        print(f"{CHECKS[name][0]:9} {name:60} {result} {detail[:300]}", flush=True)
    print(dict(counts), "of", sum(counts.values()))
