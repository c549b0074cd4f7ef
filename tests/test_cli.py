"""The command line: `s2sad --help`, `s2sad show FILE.py:FUNC`, compiler-style errors."""
import os
import subprocess
import sys

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
    assert first.endswith("error: `try` blocks are not supported")
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
