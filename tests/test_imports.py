"""Every module of s2sad imports on its own, first, in a fresh interpreter: no module works only
when another was imported before it (an import-order dependence hides a cycle). And no module
takes another's private names: what modules share is public where it lives."""
from __future__ import annotations

import ast
import pathlib
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

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


def _import_alone(name: str) -> tuple[str, int, str]:
    result = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True, cwd=ROOT)
    return name, result.returncode, result.stderr[-1500:]


def test_every_module_imports_first_in_a_fresh_interpreter():
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(_import_alone, MODULES))
    failed = [f"{name}:\n{error}" for name, code, error in results if code != 0]
    assert not failed, "\n\n".join(failed)
    assert len(results) > 50  # the walk found the package


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
