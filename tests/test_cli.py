"""The command line: `s2sad --help`, `s2sad show FILE.py:FUNC`, compiler-style errors."""
import ast
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*arguments):
    return subprocess.run([sys.executable, os.path.join(ROOT, "cli.py"), *arguments],
                          capture_output=True, text=True, cwd=ROOT)


def test_help_has_an_example():
    result = run("--help")
    assert result.returncode == 0
    assert "show" in result.stdout and "example:" in result.stdout
    assert "example:" in run("show", "--help").stdout


def test_show_prints_the_generated_code():
    result = run("show", "examples/quickstart.py:loss", "--wrt", "W,b")
    assert result.returncode == 0, result.stderr
    assert "def loss_rrule(W, b, X, y):" in result.stdout
    assert "def loss_pullback(dresult):" in result.stdout
    assert "return NO_TANGENT, dW, db, ZERO, ZERO" in result.stdout


TRY_LINE = next(number for number, line in enumerate(open(os.path.join(ROOT, "tests", "bad_programs.py")), 1)
                if "# refused: try" in line)


def test_errors_are_compiler_style_without_traceback():
    result = run("show", "tests/bad_programs.py:uses_try")
    assert result.returncode == 1
    first = result.stderr.splitlines()[0]
    assert first.endswith("error: `try ... except*` is not supported")
    assert f"bad_programs.py:{TRY_LINE}:5:" in first
    assert "Traceback" not in result.stderr


def test_missing_file_and_function():
    assert "no such file" in run("show", "nowhere.py:f").stderr
    assert "defines no function named 'nothing'" in run("show", "examples/quickstart.py:nothing").stderr
    assert run("show", "examples/quickstart.py").returncode == 1


def test_console_script_entry_point_is_declared():
    with open(os.path.join(ROOT, "pyproject.toml")) as stream:
        assert 's2sad = "s2sad.command_line:main"' in stream.read()


# ---------------------------------------------------------------- s2sad rules


def test_rules_help_has_examples():
    result = run("rules", "--help")
    assert result.returncode == 0
    assert "example" in result.stdout and "s2sad rules 'numpy.linalg.*'" in result.stdout
    assert "rules" in run("--help").stdout


def test_rules_lists_matches_by_substring_with_namespace_signature_and_gradients():
    result = run("rules", "tanh")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "NAMESPACE", "GRADIENT", "FOR", "SIGNATURE"]
    rows = {line.split()[0]: line.split() for line in lines[1:-1]}
    assert rows["numpy.tanh"] == ["numpy.tanh", "numpy", "x", "(x)"]
    assert rows["math.tanh"][1] == "math"
    assert all("tanh" in name for name in rows)
    assert lines[-1].startswith(f"{len(rows)} of ") and "names with a rule match 'tanh'" in lines[-1]


def test_rules_glob_and_how():
    result = run("rules", "numpy.linalg.*", "--how")
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines()[1:-1]]
    assert rows and all(line.startswith("numpy.linalg.") for line in rows)
    assert any(line.startswith("numpy.linalg.inv ") and "np.matmul(" in line for line in rows)  # the template
    assert "RULE" in result.stdout.splitlines()[0]


def test_rules_without_a_match_exits_1(capsys):
    from s2sad.command_line import main

    assert main(["rules", "no_such_rule_anywhere"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("0 of ") and "match 'no_such_rule_anywhere'" in out


# ---------------------------------------------------------------------- emit, check, cache, show --mode
def run_in(directory, *arguments, env=None):
    environment = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, os.path.join(ROOT, "cli.py"), *arguments],
                          capture_output=True, text=True, cwd=directory, env=environment)


def _import(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("emitted_" + os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _quickstart_inputs():
    import numpy as np

    rng = np.random.default_rng(0)
    return rng.standard_normal((4, 3)), rng.standard_normal(3), rng.standard_normal((32, 4)), rng.standard_normal((32, 3))


def test_emit_writes_an_importable_derivative_file_and_refuses_to_overwrite(tmp_path):
    import numpy as np

    import s2sad

    out = tmp_path / "loss_derivatives.py"
    quickstart_path = os.path.join(ROOT, "examples", "quickstart.py")
    result = run_in(tmp_path, "emit", f"{quickstart_path}:loss", "--wrt", "W,b", "-o", str(out))
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert text.startswith("# Derivatives of `loss` from quickstart.py (source sha256 ")
    assert "# Defines: loss_rrule (value, pullback), loss_grad (the gradient)." in text
    module = _import(str(out))
    W, b, X, y = _quickstart_inputs()
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import quickstart
    finally:
        sys.path.pop(0)
    expected = s2sad.grad(quickstart.loss.__s2sad_original__, argnums=(0, 1))(W, b, X, y)
    for got, want in zip(module.loss_grad(W, b, X, y), expected):
        np.testing.assert_allclose(got, want)

    before = out.read_text()
    again = run_in(tmp_path, "emit", f"{quickstart_path}:loss", "-o", str(out))
    assert again.returncode == 1 and "exists: not overwritten" in again.stderr and "--force" in again.stderr
    assert out.read_text() == before  # untouched
    forced = run_in(tmp_path, "emit", f"{quickstart_path}:loss", "-o", str(out), "--force")
    assert forced.returncode == 0 and out.read_text() != ""
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".s2sad-emit-")]  # no half-written files left


def test_an_emitted_gradient_keeps_the_function_s_defaults(tmp_path):
    import numpy as np

    source = tmp_path / "model.py"
    source.write_text("import numpy as np\n\nW0 = np.array([1.0, 2.0])\n\n\ndef act(z):\n    return np.tanh(z)\n\n\n"
                      "def loss(x, w=W0, k=2, f=act, *, scale=0.5, name='a', bias=np.zeros(2)):\n"
                      "    return scale * np.sum(f(x * w) ** k + bias)\n")
    result = run_in(tmp_path, "emit", "model.py:loss", "-o", "loss_derivatives.py")
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "loss_derivatives.py").read_text()
    assert "def loss_grad(x, w=_source.__defaults__[0], k=2, f=_source.__defaults__[2], *, scale=0.5, name='a', " \
           "bias=_source.__kwdefaults__['bias']):" in text
    module = _import(str(tmp_path / "loss_derivatives.py"))
    x = np.array([0.3, -0.2])
    for scale in (0.5, 2.0):  # d/dx scale * sum(tanh(x w)^2) = scale * 2 tanh(x w) (1 - tanh(x w)^2) w, by hand
        t = np.tanh(x * np.array([1.0, 2.0]))
        gradient = module.loss_grad(x) if scale == 0.5 else module.loss_grad(x, scale=scale)
        np.testing.assert_allclose(gradient, scale * 2 * t * (1 - t ** 2) * np.array([1.0, 2.0]), rtol=1e-12)


def test_an_emitted_jvp_keeps_the_function_s_defaults(tmp_path):
    """The tangents come after the arguments; arguments left out take the function's defaults."""
    from s2sad.emit import emitted_text

    source = tmp_path / "jvp_defaults_model.py"
    source.write_text("import numpy as np\n\n\ndef f(x, scale=2.0, *, power=3):\n    return np.sum(scale * x ** power)\n")
    model = _import(str(source))
    out = tmp_path / "f_jvp.py"
    out.write_text(emitted_text(model.f, ("x",), "forward", str(out), "jvp_defaults_model.py:f"))
    module = _import(str(out))
    x, dx = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    for call, scale, power in [(lambda: module.f_jvp(x, dx), 2.0, 3), (lambda: module.f_jvp(x, 2.0, 3, dx), 2.0, 3),
                               (lambda: module.f_jvp(x, dx, power=2), 2.0, 2),
                               (lambda: module.f_jvp(x, 3.0, dx=dx), 3.0, 3)]:
        value, tangent = call()  # by hand: d/dx scale sum(x^p) . dx = scale p sum(x^(p-1) dx)
        assert value == scale * np.sum(x ** power) and tangent == scale * power * np.sum(x ** (power - 1) * dx)
    with pytest.raises(TypeError, match="too many positional"):  # dx named: the last 2.0 is no tangent
        module.f_jvp(x, 2.0, dx, dx=dx)


def test_emit_forward_mode_and_every_decorated_function_into_a_directory(tmp_path):
    source = tmp_path / "model.py"
    source.write_text("import numpy as np\nimport s2sad\n\n\n@s2sad.differentiate\ndef energy(x):\n"
                      "    return np.sum(np.sin(x) * x)\n\n\n@s2sad.differentiate\ndef spread(x):\n"
                      "    return np.sum((x - np.mean(x)) ** 2)\n")
    (tmp_path / "out").mkdir()
    result = run_in(tmp_path, "emit", "model.py", "-o", "out/")
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(tmp_path / "out")) == ["energy_derivatives.py", "spread_derivatives.py"]
    forward = run_in(tmp_path, "emit", "model.py:energy", "--mode", "forward", "-o", "out/")
    assert forward.returncode == 0, forward.stderr
    text = (tmp_path / "out" / "energy_jvp.py").read_text()
    assert "def energy_jvp(x, dx):" in text
    unwritable = run_in(tmp_path, "emit", "model.py:energy", "-o", "missing/dir/file.py")
    assert unwritable.returncode == 1 and "no such directory" in unwritable.stderr and "Traceback" not in unwritable.stderr


def test_check_passes_a_right_gradient_and_fails_a_wrong_rule(tmp_path):
    quickstart = os.path.join(ROOT, "examples", "quickstart.py")
    good = run_in(tmp_path, "check", f"{quickstart}:loss", "--wrt", "W,b", "--shapes", "W=4,3", "b=3", "X=32,4", "y=32,3")
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.startswith("PASS loss")
    source = tmp_path / "wrong.py"
    source.write_text("import numpy as np\nimport s2sad\n\n\ndef square(x):\n    return x * x\n\n\n"
                      "s2sad.defvjp(square, 'x', 'g * x')  # wrong: the derivative is 2 x\n\n\n"
                      "def loss(x):\n    return np.sum(square(x))\n")
    bad = run_in(tmp_path, "check", "wrong.py:loss", "--shapes", "x=5")
    assert bad.returncode == 1 and bad.stdout.startswith("FAIL loss")
    missing = run_in(tmp_path, "check", "wrong.py:loss")
    assert missing.returncode == 1 and "no shape for x" in missing.stderr and "usage: s2sad check" in missing.stderr


def test_cache_info_and_clear(tmp_path):
    quickstart = os.path.join(ROOT, "examples", "quickstart.py")
    env = {"S2SAD_CACHE_DIR": str(tmp_path / "cache")}
    assert run_in(tmp_path, "show", f"{quickstart}:loss", env=env).returncode == 0
    info = run_in(tmp_path, "cache", "info", env=env)
    assert info.returncode == 0 and "entries:   1" in info.stdout
    cleared = run_in(tmp_path, "cache", "clear", env=env)
    assert "removed 1 entries" in cleared.stdout
    assert "entries:   0" in run_in(tmp_path, "cache", "info", env=env).stdout


def test_show_forward_mode_is_plain_when_piped():
    result = run("show", "examples/quickstart.py:loss", "--wrt", "W,b", "--mode", "forward")
    assert result.returncode == 0, result.stderr
    assert "def loss_jvp(W, b, X, y, dW, db):" in result.stdout
    assert "\x1b[" not in result.stdout  # no colour codes when not a terminal


def test_every_command_has_an_example_in_its_help():
    for command in ("show", "emit", "check", "cache", "rules"):
        assert "example" in run(command, "--help").stdout, command


def test_check_without_shapes_gives_a_usage_line(tmp_path):
    quickstart = os.path.join(ROOT, "examples", "quickstart.py")
    result = run_in(tmp_path, "check", f"{quickstart}:loss", "--shapes", "W=4,3")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "no shape for b, X, y" in result.stderr
    assert f"usage: s2sad check {quickstart}:loss --shapes W=SIZES b=SIZES X=SIZES y=SIZES" in result.stderr


def test_help_says_the_file_is_imported():
    for command in ("show", "emit", "check"):
        text = " ".join(run(command, "--help").stdout.split())
        assert "its top-level code runs" in text, command


def test_show_into_a_closed_pipe_ends_without_a_traceback():
    # `s2sad show FILE:FUNC | head`: the reader here is gone before s2sad writes (it needs
    # a few hundred milliseconds to import), the surest way to meet the broken pipe
    command = f"{sys.executable} {os.path.join(ROOT, 'cli.py')} show examples/quickstart.py:loss --wrt W,b | true"
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0
    assert "BrokenPipeError" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert result.stderr == ""


def test_logistic_regression_example_writes_a_plot_only_when_asked(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    example = os.path.join(ROOT, "examples", "logistic_regression.py")
    environment = dict(os.environ, TMPDIR=str(tmp_path), MPLBACKEND="Agg")
    plain = subprocess.run([sys.executable, example, "--steps", "20"], capture_output=True, text=True, cwd=tmp_path,
                           env=environment, timeout=300)
    assert "loss curve saved" not in plain.stdout and not list(tmp_path.rglob("*.png")), plain.stdout
    plotted = subprocess.run([sys.executable, example, "--steps", "20", "--plot", str(tmp_path / "loss.png")],
                             capture_output=True, text=True, cwd=tmp_path, env=environment, timeout=300)
    assert (tmp_path / "loss.png").exists(), plotted.stdout + plotted.stderr


SPRING = '''
import numpy as np


def spring(k, x0, dt=0.01, steps=50):
    x = x0
    v = 0.0
    for i in range(steps):
        a = -k * x - 0.1 * v
        v = v + dt * a
        x = x + dt * v
    return x * x


def of_an_array(x):
    return np.sum(np.sort(x) ** 2)


def smoothness(x, w):
    return np.sum(np.tanh(w * x[1:] - x[:-1]) ** 2)
'''


def test_emit_compile_writes_a_gradient_that_runs_with_numba_and_without_s2sad(tmp_path):
    pytest.importorskip("numba")
    source = tmp_path / "model.py"
    source.write_text(SPRING)
    result = run_in(tmp_path, "emit", f"{source}:spring", "--wrt", "k,x0", "--compile", "-o", str(tmp_path) + os.sep)
    assert result.returncode == 0, result.stderr
    written = tmp_path / "spring_compiled.py"
    assert "from s2sad" not in written.read_text() and "import s2sad" not in written.read_text()
    # a process loading it by path first (importlib, under a name no import finds): Numba then kept
    # entries naming '<dynamic>', and every later import of the file failed reading them back
    by_path = ("import importlib.util, sys; sys.modules['s2sad'] = None\n"
               "spec = importlib.util.spec_from_file_location('loaded_by_path', 'spring_compiled.py')\n"
               "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
               "print(repr(module.spring_grad(2.0, 1.0)))")
    loaded = subprocess.run([sys.executable, "-c", by_path], capture_output=True, text=True, cwd=tmp_path)
    assert loaded.returncode == 0, loaded.stderr
    check = ("import sys; sys.modules['s2sad'] = None  # s2sad cannot be imported here\n"
             "import spring_compiled as m\n"
             "print(repr((m.spring_grad(2.0, 1.0), m.ACCEPTS(2.0, 1.0))))")
    ran = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    (value, (dk, dx0)), accepted = ast.literal_eval(ran.stdout.strip())
    assert ast.literal_eval(loaded.stdout.strip()) == (value, (dk, dx0))
    namespace = {}
    exec(compile(SPRING, str(source), "exec"), namespace)
    spring, h = namespace["spring"], 1e-6
    assert accepted and value == spring(2.0, 1.0)
    assert abs(dk - (spring(2.0 + h, 1.0) - spring(2.0 - h, 1.0)) / (2 * h)) < 1e-6
    assert abs(dx0 - (spring(2.0, 1.0 + h) - spring(2.0, 1.0 - h)) / (2 * h)) < 1e-6

    refused = run_in(tmp_path, "emit", f"{source}:of_an_array", "--compile", "-o", str(tmp_path) + os.sep)
    assert refused.returncode == 1 and "sort_vjp_a" in refused.stderr and "Traceback" not in refused.stderr


def test_the_helper_modules_an_emitted_file_joins_define_each_name_once():
    """``emit --compile`` copies s2sad's modules of compiled helpers into one file, one namespace: a
    name two of them define would be the last one's in all (compiled_sorting's `_served` was
    compiled_repeats', and an emitted `sorted(...)` raised Numba's TypingError at its first call)."""
    import s2sad
    from s2sad.compiled_helper_modules import HELPER_MODULES

    defined: dict = {}
    for module in HELPER_MODULES:
        with open(os.path.join(os.path.dirname(s2sad.__file__), f"{module}.py"), encoding="utf-8") as handle:
            body = ast.parse(handle.read()).body
        names = [node.name for node in body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
        names += [name.id for node in body if isinstance(node, ast.Assign) for target in node.targets
                  for name in ast.walk(target) if isinstance(name, ast.Name)]
        for name in set(names) - {"__all__"}:  # (__all__ is left out of the copy)
            assert defined.setdefault(name, module) == module, f"`{name}`: {defined[name]} and {module}"


def test_emit_compile_of_an_array_function_carries_its_helpers(tmp_path):
    """A function of arrays: the file defines the Numba overloads its code calls (copied from
    s2sad's modules of compiled helpers), so it too runs without s2sad."""
    pytest.importorskip("numba")
    source = tmp_path / "model.py"
    source.write_text(SPRING)
    result = run_in(tmp_path, "emit", f"{source}:smoothness", "--wrt", "x,w", "--compile", "-o", str(tmp_path) + os.sep)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "smoothness_compiled.py").read_text()
    assert "from s2sad" not in text and "import s2sad" not in text and "@overload(unbroadcast)" in text
    check = ("import sys; sys.modules['s2sad'] = None\n"
             "import numpy as np\n"
             "import smoothness_compiled as m\n"
             "x = np.array([0.3, -0.2, 0.9, 0.4])\n"
             "value, (dx, dw) = m.smoothness_grad(x, 1.7)\n"
             "print(repr((float(value), dx.tolist(), float(dw), m.ACCEPTS(x, 1.7))))")
    ran = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    value, dx, dw, accepted = ast.literal_eval(ran.stdout.strip())
    namespace = {}
    exec(compile(SPRING, str(source), "exec"), namespace)
    smoothness, h, x = namespace["smoothness"], 1e-6, np.array([0.3, -0.2, 0.9, 0.4])
    assert accepted and abs(value - smoothness(x, 1.7)) < 1e-12
    for i in range(4):
        step = np.eye(4)[i] * h
        assert abs(dx[i] - (smoothness(x + step, 1.7) - smoothness(x - step, 1.7)) / (2 * h)) < 1e-6
    assert abs(dw - (smoothness(x, 1.7 + h) - smoothness(x, 1.7 - h)) / (2 * h)) < 1e-6


def test_precompile_keeps_the_helpers_in_numba_s_cache_and_leaves_the_user_s_cache_alone(tmp_path, monkeypatch,
                                                                                        capsys):
    pytest.importorskip("numba")
    numba_cache, user_cache = tmp_path / "numba", tmp_path / "s2sad"
    user_cache.mkdir()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(numba_cache))
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(user_cache))
    from s2sad.command_line import main

    assert main(["precompile", "--jobs", "1", "--only", "reductions"]) == 0
    out = capsys.readouterr().out
    assert "reductions" in out and "float64[5], float64[5]" in out and "compiled" in out and "done" in out
    kept = {path.name.split(".")[0] for path in numba_cache.rglob("*.nbi")}
    assert any(name.startswith("compiled_helpers") for name in kept), kept  # the helpers' machine code
    assert list(user_cache.iterdir()) == []  # the programs' own code went with a directory of its own
