"""Loading an optional library's rules (s2sad.registry.load_optional_rules) leaves warm gradients warm.

The rules of SciPy's modules are registered at the first rule lookup that misses after the user
(or a library, Numba among them) imported the module they are for. A registration makes a new
registry generation, which sends every warm gradient the long way once and makes its code
again. For these rules that was wasted work: they are loaded before the lookup that set them
off answers, so no code made before can have asked for them. They are registered quietly now,
unless a lookup did miss one of their functions before (a rule for it then changes what code
made since would be), or they replace a rule: those still make a new generation.

Gradients are checked against central differences or hand-derived formulas.
"""
import importlib
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import s2sad
from s2sad import registry
from finite_differences import numerical_gradient as central
from test_lane_staleness import long_way_calls  # noqa: F401  (the fixture: calls that took the long way, api._run)

X, Y = 0.7, 1.3


def product(x, y):
    return np.sin(x) * y + x ** 2 / y


def product_gradient(x, y):
    return np.cos(x) * y + 2 * x / y


@pytest.fixture()
def library(tmp_path, monkeypatch):
    """``library.module(text)``: a new module in a file of its own, imported; ``library.rules(text)``: a
    rules module listed among the optional ones, for a new library module of ``trigger_text`` (not yet
    imported): its name, to import."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_pending_optional", list(registry._pending_optional))
    monkeypatch.setattr(registry, "_missed", set())
    names = []

    def written(text):
        name = f"speed16_module_{os.getpid()}_{len(names)}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
        names.append(name)
        return name

    def module(text):
        return importlib.import_module(written(text))

    def rules(trigger_text, rules_text):
        trigger = written(trigger_text)
        registry._pending_optional.append(("speed16", trigger, written(rules_text.replace("LIBRARY", trigger))))
        return trigger

    yield types.SimpleNamespace(module=module, rules=rules)
    for name in names:
        sys.modules.pop(name, None)


def no_rule():
    """A function without a rule: looking its rule up loads the optional rules of libraries imported."""


CUBE = """
def cube(x):
    return x * x * x
"""

CUBE_RULE = """
import s2sad
from LIBRARY import cube

s2sad.defderivative(cube, "x", "3.0 * x ** 2")
"""


def cube_times_sin_gradient(x):
    return 3 * x ** 2 * np.sin(x) + x ** 3 * np.cos(x)


def test_rules_loaded_for_a_library_imported_later_leave_warm_gradients_warm(library, long_way_calls):
    trigger = library.rules(CUBE, CUBE_RULE)
    gradient = s2sad.grad(product)
    gradient(X, Y)
    np.testing.assert_allclose(gradient(X, Y), product_gradient(X, Y), rtol=1e-14)
    generation, version = registry.registry_generation(), registry.registry_version()
    warm_calls = len(long_way_calls)

    module = importlib.import_module(trigger)
    assert registry.rule_for(no_rule) is None  # a lookup that misses: loads the rules of the library imported
    assert registry.rule_for(module.cube) is not None and registry.rule_for(module.cube).library == "speed16"
    assert registry.registry_generation() == generation, "loading rules nobody asked for made a new generation"
    assert registry.registry_version() > version  # what summaries of the rules (the disk cache's keys) follow

    np.testing.assert_allclose(gradient(X, Y), product_gradient(X, Y), rtol=1e-14)
    assert len(long_way_calls) == warm_calls, "the warm gradient took the long way after the rules were loaded"

    def through_the_rule(x):
        return module.cube(x) * np.sin(x)

    np.testing.assert_allclose(s2sad.grad(through_the_rule)(X), cube_times_sin_gradient(X), rtol=1e-14)
    np.testing.assert_allclose(s2sad.grad(through_the_rule)(X), central(through_the_rule, (X,), 0), rtol=1e-7)


def test_a_rule_for_a_function_whose_lookup_missed_before_makes_a_new_generation(library):
    """The function was in use (its module imported) before the module that triggers its rules:
    code made since may have differentiated its source, which the rule now stands in for."""
    helper = library.module(CUBE)
    # (listed first: with no optional rules left to load, as after a test that loaded them all in this
    # process, a lookup that misses is not recorded, and need not be)
    trigger = library.rules("TRIGGERED = True\n", CUBE_RULE.replace("LIBRARY", helper.__name__))

    def through_the_helper(x):
        return helper.cube(x) * np.sin(x)

    np.testing.assert_allclose(s2sad.grad(through_the_helper)(X), cube_times_sin_gradient(X), rtol=1e-14)
    assert registry.rule_for(helper.cube) is None  # (its source was differentiated: a lookup missed)
    generation = registry.registry_generation()
    importlib.import_module(trigger)
    assert registry.rule_for(no_rule) is None  # loads the rules
    assert registry.rule_for(helper.cube) is not None
    assert registry.registry_generation() > generation, "a rule for a function looked up before made no new generation"
    np.testing.assert_allclose(s2sad.grad(through_the_helper)(X), cube_times_sin_gradient(X), rtol=1e-14)


def test_a_rule_replaced_by_an_optional_module_makes_a_new_generation(library):
    helper = library.module(CUBE)
    s2sad.defderivative(helper.cube, "x", "3.0 * x * x")
    trigger = library.rules("TRIGGERED = True\n", CUBE_RULE.replace("LIBRARY", helper.__name__))
    generation = registry.registry_generation()
    first = registry.rule_for(helper.cube)
    importlib.import_module(trigger)
    assert registry.rule_for(no_rule) is None  # loads the rules
    assert registry.rule_for(helper.cube) is not first  # replaced
    assert registry.registry_generation() > generation, "a replaced rule made no new generation"
    np.testing.assert_allclose(s2sad.grad(helper.cube)(X), 3 * X ** 2, rtol=1e-14)


NUMBA_THEN_NUMPY = """
import math, sys
import numpy as np
import s2sad
from s2sad import compiled, registry

def exp_times(x, y):
    return math.exp(x) * y

def other(x):
    return np.sum(np.tanh(x) ** 2)

calls = []
found = compiled.objects_in
compiled.objects_in = lambda args: (calls.append(args), found(args))[1]
gradient = s2sad.grad(exp_times, argnums=(0, 1), compile=True)
gradient(0.7, 1.3)
gradient(0.7, 1.3)
warm = len(calls)
generation = registry.registry_generation()
import scipy.linalg, scipy.special  # (Numba imports some of SciPy itself)
x = np.array([0.3, -0.8, 1.4])
dx = s2sad.grad(other)(x)  # the first NumPy-path transform in the process: the SciPy rules are loaded
assert np.allclose(dx, 2 * np.tanh(x) * (1 - np.tanh(x) ** 2), rtol=1e-14)
assert registry.rule_for(scipy.linalg.solve_triangular) is not None and registry.rule_for(scipy.special.betaln) is not None
dx, dy = gradient(0.7, 1.3)
assert abs(dx - math.exp(0.7) * 1.3) < 1e-14 and abs(dy - math.exp(0.7)) < 1e-14
print(len(calls) - warm, registry.registry_generation() - generation)
"""


def test_a_warm_compiled_gradient_stays_warm_through_the_first_numpy_path_transform(tmp_path):
    """In a new process, as the order-dependent test of session 15 found it: the NumPy path's first
    transform after a compiled gradient was warm loaded SciPy's rules, a new generation."""
    pytest.importorskip("numba")
    pytest.importorskip("scipy")
    script = tmp_path / "numba_then_numpy.py"  # (a file: s2sad reads the functions' source)
    script.write_text(NUMBA_THEN_NUMPY)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache")), timeout=600)
    assert done.returncode == 0, done.stderr
    long_way, generations = map(int, done.stdout.split()[-2:])
    assert (long_way, generations) == (0, 0)
