"""The generator and the normaliser stay in pieces a newcomer can read: no class or function
over 300 lines (issue 20). A construct that needs more is a new module, not a longer method."""
from __future__ import annotations

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "s2sad"
LIMIT = 300
CHECKED = sorted([*PACKAGE.joinpath("codegen").glob("*.py"), *PACKAGE.joinpath("analysis").glob("*.py"),
                  *PACKAGE.joinpath("frontend").glob("normaliz*.py")])


def _definitions(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node


@pytest.mark.parametrize("path", CHECKED, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_no_class_or_function_over_the_limit(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    too_long = [f"{node.name} (line {node.lineno}): {node.end_lineno - node.lineno + 1} lines"
                for node in _definitions(tree) if node.end_lineno - node.lineno + 1 > LIMIT]
    assert not too_long, f"{path.name}: " + "; ".join(too_long)


def test_the_checked_files_exist():
    names = {path.name for path in CHECKED}
    assert {"core.py", "reverse.py", "forward.py", "normalize.py", "activity.py"} <= names
