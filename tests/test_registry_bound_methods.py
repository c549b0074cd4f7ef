"""Rules for bound methods (``scipy.stats.norm.logpdf``), and the optional rules of SciPy's modules."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad import registry
from s2sad.registry import all_rules, defvjp, nondifferentiable, registry_generation, rule_for, unregister

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def apply(self, x):
        return self.factor * x


@pytest.fixture
def doubler():
    scaler = Scaler(2.0)
    defvjp(scaler.apply, "x", "g * 2.0")
    yield scaler
    unregister(scaler.apply)


def test_a_fresh_bound_method_finds_the_rule(doubler):
    assert doubler.apply is not doubler.apply  # each read makes a new bound-method object
    rule = rule_for(doubler.apply)
    assert rule is not None and rule is rule_for(doubler.apply)
    assert rule_for(Scaler(2.0).apply) is None          # another instance: not its rule
    assert rule_for(Scaler.apply) is None               # nor the plain function
    y, pullback = rule.rrule(np.array([1.0, 3.0]))
    np.testing.assert_array_equal(y, [2.0, 6.0])
    np.testing.assert_array_equal(pullback(np.ones(2))[1], [2.0, 2.0])
    assert rule.name.endswith("Scaler.apply")
    assert rule.fingerprint == rule_for(doubler.apply).fingerprint


def test_registering_again_through_another_bound_method_replaces_the_rule(doubler):
    before = len(all_rules())
    defvjp(doubler.apply, "x", "g * 2.0 + 0.0")
    assert len(all_rules()) == before
    assert rule_for(doubler.apply).template("x") == "g * 2.0 + 0.0"


def test_unregister_through_a_fresh_bound_method():
    scaler = Scaler(3.0)
    defvjp(scaler.apply, "x", "g * 3.0")
    generation, count = registry_generation(), len(all_rules())
    unregister(scaler.apply)
    assert rule_for(scaler.apply) is None
    assert registry_generation() > generation and len(all_rules()) == count - 1
    unregister(scaler.apply)  # forgetting twice is harmless


def test_builtin_methods_of_an_instance():
    rng, other = np.random.default_rng(0), np.random.default_rng(1)
    assert rng.normal is not rng.normal
    nondifferentiable(rng.normal)
    try:
        assert rule_for(rng.normal).nondifferentiable
        assert rule_for(other.normal) is None and rule_for(rng.uniform) is None
    finally:
        unregister(rng.normal)
    assert rule_for(rng.normal) is None


def test_functions_are_still_found_by_identity_alone(monkeypatch):
    def refuse(function):
        raise AssertionError("the bound-method path was taken for a plain function")

    monkeypatch.setattr(registry, "_bound_key", refuse)
    assert rule_for(np.sin) is not None and rule_for(np.random.rand) is not None


def test_scipy_distribution_methods():
    stats = pytest.importorskip("scipy.stats")
    norm_rule, t_rule = rule_for(stats.norm.logpdf), rule_for(stats.t.logpdf)
    assert norm_rule is not None and t_rule is not None and norm_rule is not t_rule
    assert (norm_rule.name, t_rule.name) == ("scipy.stats.norm.logpdf", "scipy.stats.t.logpdf")
    assert norm_rule.library == "scipy"
    assert norm_rule.function(0.0) == stats.norm.logpdf(0.0)


def test_cache_keys_tell_two_distributions_apart():
    stats = pytest.importorskip("scipy.stats")
    from s2sad.transform import cache_key

    module = sys.modules[__name__]
    module.logpdf = stats.norm.logpdf
    try:
        first = cache_key(_model_reading_logpdf, ("x",))
        module.logpdf = stats.t.logpdf
        second = cache_key(_model_reading_logpdf, ("x",))
    finally:
        del module.logpdf
    assert first != second


def _model_reading_logpdf(x):
    return logpdf(x, 3.0).sum()  # noqa: F821  (a global the test above binds)


def test_each_scipy_rules_module_loads_with_its_own_submodule():
    script = textwrap.dedent("""
        import sys
        import s2sad
        from s2sad.registry import rule_for
        assert not any(name == "scipy" or name.startswith("scipy.") for name in sys.modules), "s2sad imported scipy"
        import scipy.special
        assert rule_for(scipy.special.erf).library == "scipy"
        assert "s2sad.rules.scipy_special" in sys.modules
        loaded = {name for name in sys.modules if name.startswith("s2sad.rules.scipy_")}
        # scipy_array_api is for the plumbing every SciPy module imports
        assert loaded == {"s2sad.rules.scipy_special", "s2sad.rules.scipy_array_api"}, loaded
        assert "scipy.stats" not in sys.modules and "scipy.signal" not in sys.modules
        import scipy.linalg
        assert rule_for(scipy.linalg.expm) is not None
        assert "scipy.stats" not in sys.modules and "scipy.signal" not in sys.modules
        import scipy.stats
        assert rule_for(scipy.stats.norm.pdf) is not None
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr

