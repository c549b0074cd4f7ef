"""The programs in examples/ are documented and installable: checked without running them.

CI runs every example (see .ci/run); these fast checks make sure each one says what it
shows and how to run it, exits with a status CI can read, and imports nothing that the
project's `examples` extra does not install.
"""
import ast
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
NAMES = sorted(name for name in os.listdir(EXAMPLES) if name.endswith(".py"))


def parsed(name):
    with open(os.path.join(EXAMPLES, name)) as stream:
        return ast.parse(stream.read(), name)


def test_the_examples_the_issue_asks_for_are_there():
    for name in ("quickstart.py", "logistic_regression.py", "mlp.py", "mass_spring.py", "custom_rule.py",
                 "emit_files.py"):
        assert name in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_docstring_says_what_it_shows_and_how_to_run_it(name):
    docstring = ast.get_docstring(parsed(name))
    assert docstring, f"examples/{name} has no module docstring"
    summary = docstring.splitlines()[0]
    assert len(summary) > 20 and summary.endswith("."), f"examples/{name}: the first line should say what it shows"
    assert f"Run: python examples/{name}" in docstring, f"examples/{name}: the docstring should say how to run it"


@pytest.mark.parametrize("name", NAMES)
def test_runs_only_as_a_script(name):
    """Importing an example does nothing; run as a script, it calls main()."""
    guards = [node for node in parsed(name).body if isinstance(node, ast.If)
              and ast.unparse(node.test) in ("__name__ == '__main__'", '__name__ == "__main__"')]
    assert guards, f"examples/{name} has no `if __name__ == \"__main__\":`"


def _examples_extra():
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as stream:
        extras = tomllib.load(stream)["project"]["optional-dependencies"]
    return extras["examples"]


# The module each distribution of the `examples` extra is imported as.
IMPORT_NAMES = {"scikit-learn": "sklearn", "matplotlib": "matplotlib"}
# dask[array,distributed] installs the packages dask and distributed
ALSO_INSTALLED = {"dask": {"distributed"}}


@pytest.mark.parametrize("name", NAMES)
def test_imports_only_what_the_examples_extra_installs(name):
    installed = {"numpy", "s2sad"}
    for requirement in _examples_extra():
        distribution = requirement.split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip()
        installed.add(IMPORT_NAMES.get(distribution, distribution))
        installed |= ALSO_INSTALLED.get(distribution, set())
    imported = set()
    for node in ast.walk(parsed(name)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            imported.add(node.module.split(".")[0])
    missing = sorted(imported - installed - set(sys.stdlib_module_names))
    assert not missing, f"examples/{name} imports {missing}: add them to the `examples` extra in pyproject.toml"


def test_ci_runs_every_example_with_the_examples_extra():
    with open(os.path.join(ROOT, ".ci", "run")) as stream:
        script = stream.read()
    assert ".[test,examples]" in script
    assert "for example in examples/*.py" in script
