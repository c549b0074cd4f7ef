"""Every module of s2sad imports on its own, first, in a fresh interpreter: no module works only
when another was imported before it (an import-order dependence hides a cycle). And no module
takes another's private names: what modules share is public where it lives."""
from __future__ import annotations

import ast
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE, RULES = ROOT / "s2sad", ROOT / "rules"


def _modules() -> list[str]:
    names = []
    for base, prefix in ((PACKAGE, "s2sad"), (RULES, "s2sad.rules")):
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if parts[-1:] == ["__main__"]:
                continue
            names.append(".".join([prefix, *parts]))
    return names


MODULES = _modules()


# One interpreter loads the third-party libraries once, then forks a child per module: the child
# imports that module before any other of s2sad's (what is checked), without paying again for
# NumPy, libcst and Numba (a new interpreter per module took ~40 s of the suite's CPU).
_FORKING_IMPORTER = """
import importlib, os, sys, traceback
for library in ("numpy", "libcst", "pygments", "numba", "scipy"):
    try:
        importlib.import_module(library)
    except ImportError:
        pass
assert not any(name == "s2sad" or name.startswith("s2sad.") for name in sys.modules)
for name in sys.argv[1:]:
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        try:
            importlib.import_module(name)
            status = 0
        except BaseException:
            os.write(write_end, traceback.format_exc()[-1500:].encode())
            status = 1
        os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        error = pipe.read().decode()
    _, status = os.waitpid(child, 0)
    print(repr((name, os.waitstatus_to_exitcode(status), error)))
"""


def _import_each_alone(names: list[str]) -> list[tuple[str, int, str]]:
    environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", _FORKING_IMPORTER, *names], capture_output=True, text=True,
                          cwd=ROOT, env=environment)
    assert done.returncode == 0, done.stderr[-3000:]
    return [ast.literal_eval(line) for line in done.stdout.splitlines() if line.startswith("(")]


def test_every_module_imports_first_in_a_fresh_interpreter():
    results = _import_each_alone(MODULES)
    failed = [f"{name}:\n{error}" for name, code, error in results if code != 0]
    assert not failed, "\n\n".join(failed)
    assert len(results) == len(MODULES) > 50  # the walk found the package, and each child answered


def test_the_importer_reports_a_module_that_fails_to_import():
    (name, code, error), = _import_each_alone(["s2sad.no_such_module"])
    assert code == 1 and "ModuleNotFoundError" in error


def _private_imports(path: pathlib.Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        internal = node.level > 0 or (node.module or "").startswith("s2sad")
        if not internal:
            continue
        for alias in node.names:
            if alias.name.startswith("_") and not alias.name.startswith("__"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {alias.name}")
    return found


@pytest.mark.parametrize("base", [PACKAGE, RULES], ids=["s2sad", "rules"])
def test_no_module_imports_another_modules_private_names(base):
    found = [hit for path in sorted(base.rglob("*.py")) for hit in _private_imports(path)]
    assert not found, "\n".join(found)


def test_no_module_reads_another_modules_private_attributes():
    """``registry._generation += 1`` from another module: what it changes must be a function."""
    modules = {name.rsplit(".", 1)[-1] for name in MODULES}
    found = []
    for path in sorted([*PACKAGE.rglob("*.py"), *RULES.rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and isinstance(node.value, ast.Name) and node.value.id in modules and node.value.id != "self"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value.id}.{node.attr}")
    assert not found, "\n".join(found)
