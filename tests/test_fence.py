"""The fence and the front end refuse what they cannot differentiate, pointing at the user's code."""
import os
import re

import numpy as np
import pytest

import bad_programs
import s2sad
from s2sad.errors import S2SADError, SourceUnavailableError, UnsupportedSyntaxError

FILE = bad_programs.__file__


def marked_line(what: str) -> int:
    with open(FILE) as stream:
        for number, line in enumerate(stream, start=1):
            if line.rstrip().endswith(f"# refused: {what}"):
                return number
    raise AssertionError(f"no line marked {what!r}")


def column_of(line: int, text: str) -> int:
    with open(FILE) as stream:
        return stream.read().splitlines()[line - 1].index(text) + 1


CASES = [
    ("uses_attribute_assignment", "nested attribute assignment", "holder.inner.value",
     "assignment to a nested attribute is not supported yet"),
    ("uses_walrus_after_and", "walrus after and", "y := x", "not in the right operand of `and`/`or`"),
    ("uses_walrus_in_a_conditional_expression", "walrus in a conditional expression", "y := x", "the walrus operator"),
    ("uses_walrus_in_a_comprehension", "walrus in a comprehension", "y := x", "the walrus operator"),
    ("uses_walrus_not_first_in_the_test", "walrus not first", "y := x", "where it runs first in the test"),
    ("uses_nonlocal_in_a_branch", "nonlocal in a branch", "nonlocal", "on the first lines of a nested function's body"),
    ("uses_nonlocal_in_the_function_itself", "nonlocal in the differentiated function", "nonlocal",
     "on the first lines of a nested function's body"),
    ("uses_yield", "yield", "yield", "`yield` is differentiated only as a statement of its own"),
    ("uses_try", "try", "try", "`try ... except*` is not supported"),
    ("uses_with", "with", "handle.name", "`with ... as` binds only names here"),
    ("uses_global", "global", "global", "`global` declarations are not supported"),
    ("uses_del", "del of a slice", "y[1:]", "`del` is differentiated for a name (`del y`) or one element"),
    ("uses_set_comprehension", "set comprehension", "{v for", "set comprehensions are not supported"),
    ("uses_walrus", "walrus", "y := x", "the walrus operator"),
    ("uses_recursive_nested_def", "recursive nested def", "inner(v * 2.0", "a nested function that calls itself"),
    ("uses_async", "async", "async def", "async functions cannot be differentiated"),
    ("uses_undefined_name", "undefined", "not_defined_anywhere", "name `not_defined_anywhere` is not defined"),
    ("uses_unknown_attribute", "unresolvable", "np.no_such_function", "`np.no_such_function` cannot be resolved"),
]


@pytest.mark.parametrize("function_name, marker, text, message", CASES, ids=[c[0] for c in CASES])
def test_refused_with_file_line_column_and_hint(function_name, marker, text, message):
    function = getattr(bad_programs, function_name)
    with pytest.raises(UnsupportedSyntaxError) as caught:
        s2sad.grad(function)(1.0)
    error = caught.value
    line = marked_line(marker)
    assert error.location.filename == FILE
    assert error.location.line == line
    assert error.location.column == column_of(line, text)
    rendered = str(error)
    assert rendered.startswith(f"{FILE}:{line}:{error.location.column}: error: ")
    assert message in rendered
    assert text in rendered.splitlines()[1]              # the source line is shown
    assert rendered.splitlines()[2].strip() == "^"       # with a caret under the column
    assert "hint: " in rendered or function_name in ("uses_undefined_name",)


def test_error_renders_compiler_style():
    with pytest.raises(UnsupportedSyntaxError) as caught:
        s2sad.grad(bad_programs.uses_try)(1.0)
    lines = str(caught.value).splitlines()
    assert re.match(rf"^{re.escape(FILE)}:\d+:5: error: `try ... except\*` is not supported$", lines[0])
    assert lines[1] == "        try:  # refused: try"
    assert lines[2] == "        ^"
    assert lines[3].startswith("hint: ")


def test_builtin_function_without_rule_has_no_source():
    import math

    with pytest.raises(SourceUnavailableError, match="builtin or C function"):
        s2sad.grad(math.ulp)(1.5)


def test_function_with_a_rule_is_differentiated_by_its_rule():
    assert s2sad.grad(np.sin)(1.0) == pytest.approx(np.cos(1.0))


def test_function_made_with_exec_has_no_source():
    namespace = {}
    exec("def made_by_exec(x):\n    return x * x\n", namespace)
    with pytest.raises(SourceUnavailableError, match="cannot read the source") as caught:
        s2sad.grad(namespace["made_by_exec"])(1.0)
    assert "hint: define the function in a .py file" in str(caught.value)


def test_every_error_is_an_s2sad_error():
    for name, *_ in CASES:
        with pytest.raises(S2SADError):
            s2sad.grad(getattr(bad_programs, name))(1.0)


def test_node_kinds_from_the_mro_agree_with_isinstance():
    """The fence decides each node type from its MRO (libcst's ABC isinstance checks cost
    most of a first transform): that is right only while libcst registers no virtual
    subclasses, which this checks for every node class against every class the fence tests."""
    import inspect

    import libcst as cst

    from s2sad.frontend import fence

    nodes = [value for value in vars(cst).values() if inspect.isclass(value) and issubclass(value, cst.CSTNode)]
    tested = [*fence.REFUSED, *fence.SUPPORTED, cst.BaseStatement, cst.BaseSmallStatement, cst.BaseExpression,
              cst.Decorator, cst.FunctionDef, cst.StarredDictElement, cst.Arg]
    assert len(nodes) > 100
    assert [(node, kind) for node in nodes for kind in tested if issubclass(node, kind) != (kind in node.__mro__)] == []
