"""s2sad/reference.py: docs/rules.md is generated from the registry, and kept up to date."""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.linalg  # noqa: F401  (imported first: the scipy rules register once their module is imported)
import scipy.signal  # noqa: F401
import scipy.special  # noqa: F401
import scipy.stats  # noqa: F401

import s2sad
from s2sad import reference
from s2sad.registry import unregister

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs", "rules.md")


def test_docs_rules_md_is_up_to_date(tmp_path):
    """Regenerating in a fresh interpreter gives docs/rules.md exactly (else: run `python -m s2sad.reference`)."""
    output = tmp_path / "rules.md"
    result = subprocess.run([sys.executable, "-m", "s2sad.reference", "--output", str(output)],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    with open(DOCS, encoding="utf-8") as stream:
        committed = stream.read()
    assert output.read_text(encoding="utf-8") == committed, \
        "docs/rules.md is out of date with the registry: regenerate it with `python -m s2sad.reference`"


def test_check_mode_reports_an_outdated_file(tmp_path, capsys):
    stale = tmp_path / "rules.md"
    stale.write_text("# Rules reference\n\nold\n", encoding="utf-8")
    assert reference.main(["--check", "--output", str(stale)]) == 1
    assert "out of date: run `python -m s2sad.reference`" in capsys.readouterr().err
    assert stale.read_text(encoding="utf-8") == "# Rules reference\n\nold\n"   # --check writes nothing
    assert reference.main(["--output", str(stale)]) == 0
    assert reference.main(["--check", "--output", str(stale)]) == 0


@pytest.fixture(scope="module")
def entries():
    reference.load_optional_libraries()
    return reference.collect()


def by_name(entries, qualified):
    found = [e for e in entries if e.qualified == qualified]
    assert len(found) == 1, (qualified, found)
    return found[0]


def test_entries_cover_every_namespace_by_public_name(entries):
    namespaces = {e.namespace for e in entries}
    for namespace, _ in reference.NAMESPACES:
        assert namespace in namespaces, namespace
    tanh = by_name(entries, "numpy.tanh")
    assert tanh.gradients == "x" and "ans" in tanh.how and tanh.signature == "(x)"
    assert by_name(entries, "numpy.abs").alias_of == "absolute"          # one rule, two names
    assert by_name(entries, "numpy.absolute").alias_of is None
    assert by_name(entries, "numpy.random.rand").namespace == "numpy.random"   # not RandomState.rand
    assert by_name(entries, "scipy.stats.norm.logpdf").namespace == "scipy.stats"
    assert by_name(entries, "scipy.special.gammaln").differentiable
    assert not by_name(entries, "numpy.argmax").differentiable
    sum_method = by_name(entries, "ndarray.sum")
    assert sum_method.namespace == reference.METHODS and sum_method.owners[0] == "ndarray"
    assert sum_method.rule is s2sad.registry.rule_for(np.sum)
    assert not any(e.name.startswith("ndarray_") for e in entries)   # method carriers appear as methods


def test_gradient_arguments_and_rule_text(entries):
    assert by_name(entries, "operator.getitem").gradients == "a, index"     # the index: np.r_[x, y], np.c_[x, y]
    assert by_name(entries, "numpy.arctan2").how.startswith("x1: unbroadcast(")
    assert by_name(entries, "numpy.linalg.eigh").how == "rrule rules.numpy_linalg.eigh_rrule"


def test_defderivative_rules_show_their_derivatives():
    def bump(x, y):
        return x * y

    s2sad.defderivative(bump, "x, y", "y", None)
    try:
        entry = next(e for e in reference.collect() if e.rule.function is bump)
        assert entry.namespace == reference.OTHER
        assert entry.gradients == "x" and entry.how == "x: d/dx = y"
    finally:
        unregister(bump)


AUTOGRAD_VJPS = """# test lists, in the format of docs/autograd
numpy.tanh\t0
numpy.fft.truncate_pad\t0
numpy._primitive_mean\t0
autograd.internal.VSpace.add\t0,1,2
numpy.lib.stride_tricks.as_strided\t0
numpy.argmax\t0
"""
AUTOGRAD_NOGRAD = "# comment\nnumpy.argsort\nnumpy.frompyfunc\n"
AUTOGRAD_COMPOSITES = "# comment\nnumpy.mean\tnumpy._primitive_mean\nndarray.__getitem__\tArrayBox.__getitem__\n"


@pytest.fixture
def autograd_lists(tmp_path):
    (tmp_path / "autograd_vjps.txt").write_text(AUTOGRAD_VJPS)
    (tmp_path / "autograd_nograd.txt").write_text(AUTOGRAD_NOGRAD)
    (tmp_path / "autograd_composites.txt").write_text(AUTOGRAD_COMPOSITES)
    return str(tmp_path)


def test_autograd_lists_are_read_by_public_name(autograd_lists):
    names, helpers = reference.read_autograd(autograd_lists)
    listed = {n.name: n for n in names}
    assert set(listed) == {"numpy.tanh", "numpy.lib.stride_tricks.as_strided", "numpy.argmax", "numpy.argsort",
                           "numpy.frompyfunc", "numpy.mean", "ndarray.__getitem__"}
    assert helpers == ["autograd.internal.VSpace.add", "numpy._primitive_mean", "numpy.fft.truncate_pad"]
    assert listed["ndarray.__getitem__"].namespace == reference.METHODS
    assert not listed["numpy.argsort"].differentiable


def test_not_covered_lists_what_s2sad_lacks(autograd_lists):
    names, _ = reference.read_autograd(autograd_lists)
    missing = {item.name: ours for item, ours in reference.not_covered(names)}
    # as_strided and frompyfunc have no rule; argmax is differentiable in this list but not in s2sad;
    # tanh, mean, argsort and indexing (operator.getitem) are covered
    assert missing == {"numpy.lib.stride_tricks.as_strided": "no rule", "numpy.frompyfunc": "no rule",
                       "numpy.argmax": "non-differentiable"}


def test_render_summary_and_determinism(entries, autograd_lists):
    text = reference.render(entries, autograd_lists)
    assert text == reference.render(list(reversed(entries)), autograd_lists)   # sorted, whatever the order given
    lines = text.splitlines()
    ours = [e for e in entries if e.namespace == "numpy"]
    with_gradient = sum(e.differentiable for e in ours)
    row = next(line for line in lines if line.startswith("| numpy |"))
    # autograd: tanh, as_strided, argmax, mean with a gradient; argsort, frompyfunc without; 3 lacking
    assert row == f"| numpy | {with_gradient} | {len(ours) - with_gradient} | 4 | 2 | 3 |"
    assert any(line.startswith("| operator |") and line.endswith("| - | - | - |") for line in lines)
    assert "| `numpy.frompyfunc` | non-differentiable | no rule | not covered |" in lines
    assert "`numpy.fft.truncate_pad`" in text
    numpy_section = lines[lines.index("## numpy"):lines.index("## numpy.linalg")]
    names = [line.split("`")[1] for line in numpy_section if line.startswith("| `")]
    assert names == sorted(names, key=lambda n: (n.lower(), n))


def test_the_committed_file_counts_the_real_lists():
    with open(DOCS, encoding="utf-8") as stream:
        text = stream.read()
    assert "| namespace | s2sad: with a gradient |" in text
    for namespace in ("numpy", "numpy.linalg", "numpy.fft", "ndarray methods", "operator", "math", "builtins",
                      "scipy.special", "scipy.stats", "scipy.signal", "scipy.linalg"):
        assert f"\n| {namespace} |" in text and f"\n## {namespace}\n" in text
    assert "## autograd functions s2sad does not cover" in text


def test_matching_globs_and_substrings(entries):
    assert {e.qualified for e in reference.matching(entries, "numpy.linalg.*")} >= {"numpy.linalg.det",
                                                                                   "numpy.linalg.norm"}
    assert all(e.namespace == "numpy.linalg" for e in reference.matching(entries, "numpy.linalg.*"))
    assert {e.qualified for e in reference.matching(entries, "TANH")} >= {"numpy.tanh", "math.tanh"}
    assert [e.qualified for e in reference.matching(entries, "tanh")] == \
        [e.qualified for e in entries if "tanh" in e.qualified.lower()]
    assert {e.qualified for e in reference.matching(entries, "log?p")} >= {"numpy.log1p", "math.log1p"}
    assert reference.matching(entries, "no such rule") == []


def test_a_user_class_method_rule_is_listed_apart_from_array_methods():
    class Gate:
        def open(self, x):
            return 2.0 * x

    rule = s2sad.defderivative(Gate.open, "self, x", None, "2.0")
    s2sad.defmethod(Gate, "open")
    try:
        listed = [e for e in reference.collect() if e.rule is rule]
        assert {e.namespace for e in listed} == {reference.OTHER}
        assert any(e.qualified.endswith("Gate.open") for e in listed)
    finally:
        s2sad.differentiate_source(Gate.open)
    assert not [e for e in reference.collect() if e.rule is rule]
