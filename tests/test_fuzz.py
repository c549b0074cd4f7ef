"""Differential fuzzing in the test suite: a short, deterministic profile, and every regression.

``test_short_fuzz_profile`` runs the fuzzer of ``tests/fuzz`` (see its ``__init__``) on
``SHORT_PROGRAMS`` programs, split over up to two processes, each a hypothesis run with a
fixed seed: the same programs on every run of the same code. A failure that is not a known
bug (a regression file still marked ``XFAIL``) fails the test, after hypothesis and
``fuzz/reduce.py`` have shrunk it; the message holds the program, ready to be saved as a
regression file. The long profile is ``python -m tests.fuzz --programs 10000``.

``test_regression`` runs each program of ``tests/fuzz_regressions/`` through the same
oracle: those marked ``XFAIL`` are s2sad bugs still open (``xfail(strict=True)``: when the
bug is fixed, the test says so, and the marker goes).
"""
import multiprocessing
import os

import numpy as np
import pytest

from corpus_cases import FULL
from fuzz import regressions
from fuzz import run as fuzz_run
from fuzz.analysis import features_of, instrument
from fuzz.generator import programs

SHORT_PROGRAMS = 32   # ~6 s on 2 idle cores (kept short for CI time); the long profile (python -m tests.fuzz) is the on-demand command
SHRINK_BUDGET, REDUCE_BUDGET = 60, 60   # a new failure costs at most ~40 s more to shrink
SEED = 20261122
JOBS = min(2, os.cpu_count() or 1)


def test_short_fuzz_profile(tmp_path):
    known = regressions.known_bugs()
    share = SHORT_PROGRAMS // JOBS
    tasks = []
    for worker in range(JOBS):
        directory = tmp_path / f"programs-{worker}"
        directory.mkdir()
        tasks.append((worker, share, SEED, share, float("inf"), str(directory), known, False,
                      str(tmp_path / f"cache-{worker}"), SHRINK_BUDGET, REDUCE_BUDGET))
    if JOBS == 1:
        results = [fuzz_run._worker(tasks[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(JOBS) as pool:
            results = pool.map(fuzz_run._worker, tasks)
    tried = sum(stats["programs"] for stats, *_ in results)
    judged = sum(stats["judged"] for stats, *_ in results)
    found = [item for *_, items, _ in results for item in items]
    reports = []
    for signature, program, failure in found:
        text = regressions.text_of(program, failure, f"{failure.category}", xfail=f"not triaged yet: {signature}")
        reports.append(f"--- {signature}\n{failure.message}\n\nas a regression file (tests/fuzz_regressions/):\n{text}")
    assert not reports, f"the fuzzer found {len(reports)} new failure(s) in {tried} programs:\n\n" + "\n\n".join(reports)
    assert tried >= SHORT_PROGRAMS * 0.75   # (hypothesis may end a batch early)
    assert judged >= tried * 0.8, "most programs must be smooth at their inputs, or the profile checks little"


@pytest.mark.parametrize("path", [
    pytest.param(path, id=os.path.basename(path)[:-3], marks=[pytest.mark.xfail(strict=True, reason=reason)]
                 if (reason := regressions.load_file(path).__dict__.get("XFAIL")) else [])
    for path in regressions.files()])
def test_regression(path):
    outcome = regressions.check_file(path)
    assert outcome.invalid is None, outcome.invalid
    assert not outcome.failures, "\n".join(str(failure) for failure in outcome.failures)


# ---------------------------------------------------------------- the fuzzer's own parts

def test_the_generator_writes_valid_smooth_programs():
    """Every generated program runs, and its branch conditions keep their margin."""
    from hypothesis import HealthCheck, given, settings

    from fuzz import trees
    from fuzz.analysis import Probe
    from fuzz.generator import MARGIN

    @settings(max_examples=60 if FULL else 20, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def check(program):
        compile(program.source, "<program>", "exec")
        probe = Probe(program.source)   # structured inputs are made of the program's own classes
        value, records = probe.run(trees.materialise(tuple(program.args()), probe.namespace))
        assert all(abs(difference) >= MARGIN - 1e-9 for _, difference in records)
        assert program.features

    check()


def test_instrument_and_features():
    source = ("import numpy as np\n\ndef f(x):\n    y = np.zeros(3)\n    for i in range(3):\n        y[i] = x[i]\n"
              "        if np.sum(x) > 0.5 and not x[0] > -0.5:\n            break\n"
              "    z = 1.0 if x[1] > 0.0 else 2.0\n    return np.sum(y) * z\n")
    probed, thresholds = instrument(source)
    assert thresholds == {0: 0.5, 1: -0.5, 2: 0.0}
    assert "_probe_(0, np.sum(x)) > 0.5" in probed and "_probe_(2, x[1]) > 0.0" in probed
    features = features_of(source)
    assert {"fill-array", "for-range", "setitem", "if", "and", "not", "break-in-loop", "conditional-expression",
            "np.sum", "np.zeros"} <= features


def test_a_failure_is_matched_to_a_known_bug_by_category_and_constructs():
    from fuzz.oracle import Failure

    class Program:
        features = frozenset({"while", "break-in-loop", "mul"})

    known = [("grad-mismatch", frozenset({"break-in-loop"}), "fuzz_break.py")]
    assert fuzz_run.matches(Failure("grad-mismatch", "grad-mismatch", ""), Program, known) == "fuzz_break.py"
    assert fuzz_run.matches(Failure("jvp-mismatch", "jvp-mismatch", ""), Program, known) is None
    known = [("grad-mismatch", frozenset({"fill-array"}), "fuzz_fill.py")]
    assert fuzz_run.matches(Failure("grad-mismatch", "grad-mismatch", ""), Program, known) is None


def test_the_oracle_catches_a_wrong_rule(tmp_path):
    """A planted bug (a user rule with the wrong sign) is found: the oracle is not vacuous."""
    import numpy as np

    import s2sad
    from fuzz.oracle import check_source

    source = "import numpy as np\nimport planted\n\ndef f(x):\n    return np.sum(planted.wrong(x) * x)\n"
    (tmp_path / "planted.py").write_text("import numpy as np\n\ndef wrong(x):\n    return np.sin(x)\n")
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        import planted

        s2sad.defvjp(planted.wrong, "x", "-g * np.cos(x)")   # the sign is wrong on purpose
        x = np.array([0.3, -0.2, 0.5])
        outcome = check_source(source, (x,), "S", 1.0, [np.ones(3)], str(tmp_path))
        assert {failure.category for failure in outcome.failures} >= {"grad-mismatch"}
    finally:
        s2sad.unregister(planted.wrong)
        sys.path.remove(str(tmp_path))
        sys.modules.pop("planted", None)


def test_a_function_too_steep_for_finite_differences_is_not_judged(tmp_path):
    """sin(s**4 * 532) has a fifth derivative of ~1e14: no finite-difference step gives a
    reference good to the tolerance, so the oracle says so rather than report a mismatch
    (the long profile found this one; s2sad's gradient was right to 4e-12)."""
    from fuzz.oracle import check_source

    source = ("import math\nimport numpy as np\n\ndef f(s):\n"
              "    t = np.sum((s + s * np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]])) ** 2)\n"
              "    return math.sin(t * t)\n")
    outcome = check_source(source, (-1.3,), "S", 1.0, [1.0], str(tmp_path))
    assert outcome.invalid and "do not converge" in outcome.invalid
    assert not outcome.failures


# ---------------------------------------------------------------- user idioms, number types, refusals

def test_masks_and_kinks_are_probed_element_by_element():
    """A mask ``x[x > 0.0]`` and ``np.maximum(x, 0.0)``/``np.clip``/``np.abs`` have kinks: each element's
    distance to them is recorded like a branch condition's, so inputs keep the margin there too."""
    from fuzz.analysis import Probe

    source = ("import numpy as np\n\ndef f(x):\n    y = np.maximum(x, 0.5) + np.clip(x, -0.5, 0.5) + np.abs(x)\n"
              "    return np.sum(y[x > 0.0])\n")
    probed, thresholds = instrument(source)
    assert sorted(thresholds.values()) == [-0.5, 0.0, 0.0, 0.5, 0.5]
    _, records = Probe(source).run([np.array([0.3, -0.7, 1.25])])
    assert len(records) == 15   # five sites, three elements each
    assert min(abs(difference) for _, difference in records) == pytest.approx(0.2)


def test_complex_inputs_are_differenced_along_both_parts(tmp_path):
    """A rule without its conjugate is right for real inputs and wrong for complex ones: the
    oracle's complex finite differences (dL/dRe + 1j dL/dIm) catch it, and pass the true rule.
    (Two functions, not one rule registered twice: s2sad keeps the code generated with the
    first rule, see the report of the fuzz branch.)"""
    import sys

    import s2sad
    from fuzz.oracle import check_source

    (tmp_path / "planted_square.py").write_text("def wrong(z):\n    return z * z\n\n\ndef right(z):\n    return z * z\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import planted_square

        s2sad.defvjp(planted_square.wrong, "z", "g * 2 * z")   # no conjugate: wrong for complex z
        s2sad.defvjp(planted_square.right, "z", "g * 2 * np.conj(z)")
        z = np.array([0.3 + 0.2j, -0.7 + 0.4j, 1.1 - 0.5j])
        u, tangents = 1.0, [np.array([1.0 + 0.5j, -0.3j, 0.2])]
        outcomes = {}
        for name in ("wrong", "right"):
            source = ("import numpy as np\nimport planted_square\n\n"
                      f"def f(z):\n    return np.sum(np.real(planted_square.{name}(z) * (1.0 - 0.5j)))\n")
            outcomes[name] = check_source(source, (z,), "S", u, tangents, str(tmp_path))
            real = check_source(source, (z.real.copy(),), "S", u, [t.real for t in tangents], str(tmp_path))
            assert not real.failures and not real.invalid
        assert {failure.category for failure in outcomes["wrong"].failures} >= {"grad-mismatch"}
        assert not outcomes["right"].failures and not outcomes["right"].invalid
    finally:
        s2sad.unregister(planted_square.wrong)
        s2sad.unregister(planted_square.right)
        sys.path.remove(str(tmp_path))
        sys.modules.pop("planted_square", None)


def test_float32_inputs_are_judged_against_float64_differences(tmp_path):
    """float32 inputs mixed with float64 constants: the value keeps NumPy's dtype (float64 here,
    float32 when the constant is a Python float), the gradient its input's (float32)."""
    from fuzz.oracle import check_source

    source = ("import numpy as np\n\ndef f(x, s):\n"
              "    return np.sum(np.sin(x) * np.array([0.5, -1.0, 1.5])) + np.sum(x * 0.5) * s\n")
    args = (np.array([0.3, -0.7, 1.1], dtype=np.float32), np.float32(0.4))
    tangents = [np.array([1.0, 0.5, -0.5], dtype=np.float32), np.float32(1.0)]
    outcome = check_source(source, args, "S", 1.0, tangents, str(tmp_path))
    assert not outcome.invalid and not outcome.failures, outcome.failures


def test_a_program_that_writes_into_its_argument_is_judged_as_python_runs_it(tmp_path):
    """Each s2sad call gets its own copy of the arguments, which it must leave as f itself
    leaves them (here x halved); finite differences run f on copies too, so the reference
    is f's derivative at the values on entry. Before session 14 every such program was an
    input-mutated failure; hvp left x unchanged (fixed with this check)."""
    from fuzz.oracle import check_source

    source = ("import numpy as np\n\ndef f(x, s):\n    np.multiply(x, 0.5, out=x)\n    x[1] += s\n"
              "    return np.sum(np.sin(x) * x) * s\n")
    x = np.array([0.3, -0.7, 1.1])
    outcome = check_source(source, (x, 0.4), "S", 1.0, [np.array([1.0, -0.5, 0.25]), 0.5], str(tmp_path))
    assert not outcome.invalid and not outcome.failures and not outcome.refusals, (outcome.failures, outcome.refusals)
    assert outcome.second_order == "checked"
    np.testing.assert_array_equal(x, [0.3, -0.7, 1.1])   # the oracle's own input is never handed over


def test_a_refusal_is_counted_by_construct_and_located(tmp_path):
    """An S2SADError is not a failure: it is recorded with the construct it names, and it
    must point at the program's own file and line."""
    from fuzz.oracle import check_source

    source = ("import numpy as np\n\ndef f(x):\n    total = 0.0\n    for first, *rest in [(x, x)]:\n"
              "        total = total + np.sum(first ** 2)\n    return total\n")
    outcome = check_source(source, (np.array([0.3, -0.7, 1.1]),), "S", 1.0, [np.ones(3)], str(tmp_path))
    assert not outcome.failures, outcome.failures
    assert outcome.refusals and all("starred" in construct for construct, _ in outcome.refusals)
    assert all(".py:5:" in message for _, message in outcome.refusals)


def test_the_generator_writes_each_idiom_and_number_type():
    """Over a fixed sample (1000 programs: with 300, half the idioms was a matter of the draw), programs use user
    idioms, float32 and complex inputs, and helper redefinitions. The sample is five hypothesis runs of 200
    with their own seeds: one run's programs are variations of its first ones. (Four runs saw 146 of the 296
    idioms once session 15 added four families, under the half asked for; five see 166. Session 14 saw a family
    of 7 idioms unseen in a run of 600 only after the oracle had run in the same process: hypothesis drew the
    direction seed from imported modules' constants, see test_a_seed_draws_the_same_programs_...)"""
    from fuzz.generator import sample

    seen = set()
    for number in (1, 2, 3, 4, 5):
        for program in sample(number, 200):
            seen.update(program.features)
    assert {"number-type:float32", "number-type:complex128", "number-type:float64"} <= seen
    from fuzz.idioms import IDIOM_FAMILIES, IDIOMS, PARAMETER_IDIOMS

    assert len({idiom.feature for idiom in IDIOMS} & seen) >= len(IDIOMS) // 2
    # every family of idioms (two names for one value, for/while-else and :=, constructors, ...)
    unseen = [family for family, idioms in IDIOM_FAMILIES.items() if not {idiom.feature for idiom in idioms} & seen]
    assert not unseen, unseen
    # structured parameters: each kind, read by the idioms (and the idioms used without them too)
    assert len({"input:layers", "input:params", "input:linear", "input:net"} & seen) >= 3   # ~6% of programs each
    assert len({idiom.feature for idiom in PARAMETER_IDIOMS} & seen) >= len(PARAMETER_IDIOMS) // 2


def test_a_seed_draws_the_same_programs_after_other_fuzz_code_and_in_a_fresh_process(tmp_path):
    """``--seed S`` means the same programs wherever it runs. Hypothesis sometimes answers an integer
    draw with a constant read from a module the process has imported (not one in (-100, 100)); the
    direction seed was drawn over 0..65536, so an oracle run (which imports s2sad's modules and the
    program files) changed the programs drawn after it: in session 14, 63 of 300 were the same.
    Here: a seed's programs, then the oracle and a module of large constants, then the same seed
    again, and the same seed in a new process (another hash seed): the same text, inputs and directions."""
    import subprocess
    import sys

    from fuzz.generator import sample
    from fuzz.oracle import check_program

    def fingerprint(drawn):
        return [repr(program) for program in drawn]

    first = sample(11, 150)
    (tmp_path / "many_constants.py").write_text("VALUES = [" + ", ".join(str(2 ** k + k) for k in range(7, 17)) + "]\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import many_constants   # noqa: F401 - its constants are what hypothesis could draw
        for program in first[:3]:
            check_program(program, str(tmp_path))
        again = sample(11, 150)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("many_constants", None)
    assert fingerprint(again) == fingerprint(first)
    script = ("import sys; sys.path.insert(0, 'tests'); from fuzz.generator import sample\n"
              "print('\\n=====\\n'.join(repr(program) for program in sample(11, 150)), end='')\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    fresh = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert fresh.stdout.split("\n=====\n") == fingerprint(first)


def test_an_idiom_drawn_in_the_helper_makes_its_own_structured_value():
    """The helper cannot see ``f``'s parameters: an idiom drawn in its body that reads LAYERS
    makes the layers there (a session-13 campaign stopped on ``NameError: name 'layers'``)."""
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from fuzz.generator import _Var, _Writer

    @settings(max_examples=20, derandomize=True, database=None, deadline=None)
    @given(st.data())
    def draw_in_the_helper(data):
        writer = _Writer(data.draw)
        writer.structured = {"LAYERS": "layers"}
        writer.in_helper, writer.vars = True, [_Var("h0", "V"), _Var("h1", "S")]
        writer.s_idiom(1, reading="LAYERS")
        assert not any(re.search(r"\blayers\b", line) for line in writer.lines), writer.lines

    draw_in_the_helper()


def test_a_campaign_aimed_at_some_families_draws_its_idioms_there():
    """``python -m tests.fuzz --families linear-algebra,ml-blocks``: the writer's idioms come from
    those groups only (parameter idioms too are left out, but for the structured hole's own read)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from fuzz.generator import _Var, _Writer
    from fuzz.idioms import IDIOMS

    aimed = frozenset({"linear-algebra", "ml-blocks"})
    allowed = {idiom.feature for idiom in IDIOMS if idiom.family in aimed}

    @settings(max_examples=30, derandomize=True, database=None, deadline=None)
    @given(st.data())
    def draw(data):
        writer = _Writer(data.draw)
        writer.families = aimed
        writer.vars = [_Var("x", "V"), _Var("s", "S"), _Var("A", "M")]
        writer.s_idiom(0)
        idioms = writer.features & {idiom.feature for idiom in IDIOMS}
        # (an expression drawn for a hole may call np.outer, np.trace...: callees are no evidence)
        assert idioms & allowed and not {name for name in idioms - allowed if not name.startswith("np.")}, idioms

    draw()


# ---------------------------------------------------------------- structured parameters

def _parameter_idiom_source(idiom, parameter: str | None) -> str:
    """A module whose ``f(x, s[, parameter])`` runs one of ``PARAMETER_IDIOMS`` and returns the
    sum of what it makes; its structured hole is the parameter, or (None) a value made inside."""
    from fuzz.generator import HEADER, STRUCTURED
    from fuzz.idioms import LIBRARY, STRUCTURED_HOLES

    shapes = {"{S}": "s", "{V}": "x", "{U}": "np.tanh(x[:2])", "{M}": "np.outer(np.cos(x[:2]), x)"}
    names = {"{out}": "out", "{t}": "t1", "{t2}": "t2", "{i}": "i1"}
    needs, lines = list(idiom.needs), []
    for hole, (made, need) in STRUCTURED_HOLES.items():
        if any("{" + hole + "}" in line for line in idiom.lines):
            needs += [need] if need else []
            if parameter is None:
                names["{" + hole + "}"] = "made"
                lines.append(f"made = {made}")
            else:
                names["{" + hole + "}"] = parameter
                needs += [STRUCTURED[parameter][2]] if STRUCTURED[parameter][2] else []
    lines += list(idiom.lines)
    for old, new in {**names, **shapes}.items():
        lines = [line.replace(old, new) for line in lines]
    signature = "x, s" + (f", {parameter}" if parameter else "")
    library = "".join(f"\n{LIBRARY[name]}\n" for name in dict.fromkeys(needs))
    body = "".join(f"    {line}\n" for line in lines)
    return f"{HEADER}{library}\n\ndef f({signature}):\n{body}    return np.sum(out)\n"


def _structured_input(kind):
    from fuzz import trees

    W, b, s = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]]), np.array([0.2, -0.3]), 0.7
    return {"layers": [(W, b), (np.array([[0.5, -0.1], [0.2, 0.3]]), b[::-1].copy())],
            "params": {"W": W, "b": b, "s": s, "steps": 2},
            "linear": trees.Record("Linear", (("W", W), ("b", b))),
            "net": trees.Record("Net", (("W", W), ("b", b), ("scale", s)))}[kind]


# Idioms s2sad refuses, with a located error (what it says): not differentiated yet.
REFUSED_IDIOMS: dict = {}   # idiom -> a fragment of its refusal (p._replace(b=...) was one: differentiated now)


def test_each_parameter_idiom_is_differentiated_with_its_parameter_and_without(tmp_path):
    """Every idiom of ``PARAMETER_IDIOMS`` with the structured parameter it reads (the gradient
    in the parameter's own container, leaf by leaf against central differences, forward mode,
    second order, compile=True) and with the value made inside the function instead."""
    from fuzz.generator import STRUCTURED
    from fuzz.idioms import PARAMETER_IDIOMS
    from fuzz.oracle import MODES, check_source

    kind_of_hole = {hole: kind for kind, (hole, _, _) in STRUCTURED.items()}
    x, s = np.array([0.3, -0.7, 1.1]), 0.4
    problems = []
    for idiom in PARAMETER_IDIOMS:
        holes = [hole for hole in kind_of_hole if any("{" + hole + "}" in line for line in idiom.lines)]
        for parameter in ([kind_of_hole[holes[0]]] if holes else []) + [None]:
            source = _parameter_idiom_source(idiom, parameter)
            args = (x, s) + ((_structured_input(parameter),) if parameter else ())
            rng = np.random.default_rng(len(problems))
            tangents = [rng.standard_normal(3), 0.5] + ([_tangent_of(args[2])] if parameter else [])
            # all the checks with the parameter; the value made inside: reverse and forward mode (seconds, not minutes)
            outcome = check_source(source, args, "S", 1.0, tangents, str(tmp_path),
                                   modes=MODES if parameter else ("reverse", "forward"))
            refused = REFUSED_IDIOMS.get(idiom.feature)
            if refused and outcome.refusals and all(refused in message for _, message in outcome.refusals):
                continue   # refused as expected, at its line (check_source checks the location)
            if outcome.invalid or outcome.failures or outcome.refusals or refused:
                problems.append(f"{idiom.feature} ({parameter or 'made inside'}): {outcome.invalid} "
                                f"{[str(f) for f in outcome.failures]} {[m for _, m in outcome.refusals]}\n{source}")
    assert not problems, "\n\n".join(problems)


def _tangent_of(value):
    from fuzz import trees

    return trees.tree_map(lambda leaf: 0.5 * np.ones_like(leaf) if isinstance(leaf, np.ndarray) else 0.5, value,
                          static=lambda item: None)


def test_a_wrong_rule_on_a_leaf_of_a_structured_parameter_is_found_there(tmp_path):
    """The planted sign error of ``test_the_oracle_catches_a_wrong_rule``, applied to one entry of
    a dict parameter: the oracle differences every leaf and names the wrong one."""
    import sys

    import s2sad
    from fuzz.oracle import check_source

    source = ("import numpy as np\nimport planted_leaf\n\ndef f(params, x):\n"
              "    return np.sum(planted_leaf.wrong(params['W'] @ x) + params['b'] * params['s'])\n")
    (tmp_path / "planted_leaf.py").write_text("import numpy as np\n\ndef wrong(x):\n    return np.sin(x)\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import planted_leaf

        s2sad.defvjp(planted_leaf.wrong, "x", "-g * np.cos(x)")   # the sign is wrong on purpose
        params = {"W": np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]]), "b": np.array([0.2, -0.3]), "s": 0.7, "steps": 2}
        x = np.array([0.3, -0.7, 1.1])
        tangents = [{"W": np.ones((2, 3)), "b": np.ones(2), "s": 1.0, "steps": None}, np.ones(3)]
        outcome = check_source(source, (params, x), "S", 1.0, tangents, str(tmp_path), modes=("reverse",))
        wrong = {failure.message.split(":")[0] for failure in outcome.failures if failure.category == "grad-mismatch"}
        assert wrong == {"gradient of <u, f> (u=1.0) in argument 0['W']", "gradient of <u, f> (u=1.0) in argument 1"}
    finally:
        s2sad.unregister(planted_leaf.wrong)
        sys.path.remove(str(tmp_path))
        sys.modules.pop("planted_leaf", None)


def test_a_gradient_in_another_structure_than_its_parameter_is_a_failure():
    """README: containers come back as themselves; None for an int inside."""
    import collections

    from fuzz.trees import structure_mismatch

    Layer = collections.namedtuple("Layer", ["W", "b"])
    params = {"a": np.ones(2), "n": 3, "layer": Layer(np.ones(2), 1.0)}
    assert structure_mismatch({"a": np.ones(2), "n": None, "layer": Layer(np.ones(2), 0.5)}, params) is None
    assert "not None" in structure_mismatch({"a": np.ones(2), "n": 0.0, "layer": Layer(np.ones(2), 0.5)}, params)
    assert "items" in structure_mismatch({"a": np.ones(2), "layer": Layer(np.ones(2), 0.5), "n": None}, params)
    assert "is a Layer but its gradient a tuple" in structure_mismatch(
        {"a": np.ones(2), "n": None, "layer": (np.ones(2), 0.5)}, params)
    assert "is a list but its gradient a tuple" in structure_mismatch(((np.ones(2),),), [(np.ones(2),)])


# ---------------------------------------------------------------- the structure of published programs

STRUCTURE_FAMILIES = ("params-in-training-loops", "classes-and-records", "functions-as-values", "control-and-collections")


def test_each_structure_idiom_gives_right_numbers_or_a_located_refusal(tmp_path):
    """Every idiom of the session-15 families in a small ``f(x, s)``, its shape holes filled with
    x, s and values made from them, through every check of the oracle (gradient and jvp against
    central differences, hvp, compile=True): no failure. A refusal is a fine outcome if it names
    the program's line (check_source checks that); a wrong number or a crash is not. At the time
    of writing 12 of the 44 are refused somewhere (closures returned by factories, a decorated
    nested def, methods that change their object, writes through a second name...)."""
    from fuzz.generator import HEADER
    from fuzz.idioms import IDIOMS, LIBRARY
    from fuzz.oracle import MODES, check_source

    holes = {"{S}": "s", "{V}": "x", "{U}": "np.tanh(x[:2])", "{M}": "np.outer(np.cos(x[:2]), x)",
             "{C}": "np.cos(x[:2])[:, None]", "{out}": "out", "{t}": "t1", "{t2}": "t2", "{i}": "i1"}
    x, s = np.array([0.3, -0.7, 1.1]), 0.4
    problems, checked = [], 0
    for idiom in IDIOMS:
        if idiom.family not in STRUCTURE_FAMILIES:
            continue
        lines = list(idiom.lines)
        for hole, text in holes.items():
            lines = [line.replace(hole, text) for line in lines]
        library = "".join(f"\n{LIBRARY[name]}\n" for name in dict.fromkeys(idiom.needs))
        body = "".join(f"    {line}\n" for line in lines)
        source = f"{HEADER}import functools\n{library}\n\ndef f(x, s):\n{body}    return np.sum(np.sin(out))\n"
        # compile=True (the costliest check, Numba compiling each program) on every other idiom; all with S2SAD_TESTS=full
        modes = MODES if FULL or checked % 2 == 0 else tuple(mode for mode in MODES if mode != "compiled")
        outcome = check_source(source, (x, s), "S", 1.0, [np.array([1.0, -0.5, 0.25]), 0.5], str(tmp_path), modes=modes)
        checked += 1
        if outcome.invalid or outcome.failures:
            problems.append(f"{idiom.feature}: {outcome.invalid} {[str(f) for f in outcome.failures]}\n{source}")
    assert checked >= 40
    assert not problems, "\n\n".join(problems)
