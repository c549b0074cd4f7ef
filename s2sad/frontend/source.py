"""Reading a user function's source and pointing back into it.

The function's text is dedented before parsing; positions are mapped back to the user's
file (line offset of the ``def``, columns shifted by the removed indentation), so every
error names the real file, line and column.
"""
from __future__ import annotations

import inspect
import linecache
import re
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import SourceLocation, SourceUnavailableError, UnsupportedSyntaxError
from .lambdas import find_lambda
from .resolve import describe_decorated, unwrap as _unwrap
from .source_current import check_source_is_current
from .wrappers import source_lines as _source_lines

if TYPE_CHECKING:  # libcst is imported only when a function is parsed (see read_function)
    import libcst as cst


@dataclass
class FunctionSource:
    function: object
    filename: str
    text: str                     # dedented source of the whole ``def`` (decorators included)
    first_line: int               # file line of the first line of ``text``
    indent: int                   # columns removed by dedenting
    funcdef: cst.FunctionDef
    positions: dict = field(repr=False)

    def alias(self, made: cst.CSTNode, original: cst.CSTNode) -> None:
        """Give a node s2sad made (a comprehension's loop) the position of the one it stands for."""
        if not isinstance(self.positions, dict):
            self.positions = dict(self.positions)
        self.positions[made] = self.positions.get(original)

    def location(self, node: cst.CSTNode) -> SourceLocation:
        position = self.positions.get(node)
        if position is None:
            return SourceLocation(self.filename, self.first_line, 1, self.line_text(self.first_line))
        line = self.first_line + position.start.line - 1
        return SourceLocation(self.filename, line, position.start.column + self.indent + 1, self.line_text(line))

    def line_text(self, line: int) -> str:
        text = linecache.getline(self.filename, line).rstrip("\n")
        if text:
            return text
        local = self.text.splitlines()
        index = line - self.first_line
        return (" " * self.indent + local[index]) if 0 <= index < len(local) else ""

    @property
    def name(self) -> str:
        return self.funcdef.name.value


def read_function(function) -> FunctionSource:
    function = _unwrap(function)
    name = getattr(function, "__qualname__", None) or repr(function)
    if not inspect.isfunction(function):
        if inspect.isbuiltin(function) or type(function).__name__ in ("ufunc", "builtin_function_or_method"):
            kind, hint = "a builtin or C function", \
                "register a rule for it (s2sad.defvjp / s2sad.defrrule) or differentiate a Python function that calls it"
        elif describe_decorated(function) is not None:
            kind, hint = describe_decorated(function), \
                "differentiate the undecorated function, or register a rule for the decorated one (s2sad.defvjp)"
        elif callable(function):
            name = type(function).__qualname__
            kind, hint = f"a callable `{name}` object, not a function", \
                "differentiate its method (s2sad.grad(obj.__call__)) or a function that calls it"
        else:
            kind, hint = f"a {type(function).__name__}, not a function", "pass the function itself"
        raise SourceUnavailableError(f"cannot differentiate {name}: it is {kind}, with no Python source to transform",
                                     hint=hint)
    filename = function.__code__.co_filename
    try:
        lines, first_line = _source_lines(function)
    except (OSError, TypeError) as error:
        raise SourceUnavailableError(
            f"cannot read the source of {name} (defined in {filename}): {error}",
            hint="define the function in a .py file (functions typed at the REPL or made with exec have no source file)",
        ) from None
    found_lambda = None
    if function.__name__ == "<lambda>":
        found_lambda = find_lambda(function)
        if found_lambda is None:
            raise UnsupportedSyntaxError(
                f"cannot find the lambda {name} in {filename}: its file cannot be read or parsed",
                SourceLocation(filename, first_line, 1, lines[0].rstrip("\n")), hint="write it as a def")
        lines, first_line = found_lambda.statement_lines, found_lambda.first_line
    else:
        check_source_is_current(function, lines, first_line)  # a file edited since: its text is not what runs
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = len(raw.splitlines()[0]) - len(text.splitlines()[0])
    # The front end is imported here, not at module level: the warm path (a cache key,
    # then a module loaded from the disk cache) never needs it.
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        # The module was just parsed and nothing else holds it: no need for the wrapper's
        # defensive deep copy (a third of the time of reading a function).
        wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    except cst.ParserSyntaxError as error:
        raise SourceUnavailableError(
            f"cannot parse the source of {name} in {filename}: {error.message}",
            SourceLocation(filename, first_line + error.raw_line - 1, error.raw_column + indent + 1),
        ) from None
    positions = dict(wrapper.resolve(PositionProvider))
    module = wrapper.module
    if _has_one_line_body(text):
        module = _one_line_bodies_expanded(module, positions, cst)
    if found_lambda is not None:
        return FunctionSource(function, filename, text, first_line, indent,
                              _lambda_as_def(module, found_lambda, first_line, indent, positions, cst), positions)
    funcdef = next((s for s in module.body if isinstance(s, cst.FunctionDef)), None)
    if funcdef is None:
        raise SourceUnavailableError(f"the source of {name} in {filename} does not start with a def")
    return FunctionSource(function, filename, text, first_line, indent, funcdef, positions)


def _lambda_as_def(module, found, first_line, indent, positions, cst):
    """``def name(params): return body`` for the lambda ``found`` in ``module`` (its statement),
    named after the variable it is assigned to or its line; each new node at the lambda's position."""
    line, column = found.line - first_line + 1, found.column - indent
    lam = next(node for node, position in positions.items()
               if isinstance(node, cst.Lambda) and (position.start.line, position.start.column) == (line, column))
    returned = cst.Return(value=lam.body)
    statement = cst.SimpleStatementLine(body=[returned])
    body = cst.IndentedBlock(body=[statement])
    name = found.assigned_to or f"lambda_line{found.line}"
    funcdef = cst.FunctionDef(name=cst.Name(name), params=lam.params, body=body)
    for node in (returned, statement, body, funcdef, funcdef.name):
        positions[node] = positions[lam]
    return funcdef


def _one_line_bodies_expanded(module, positions, cst):
    """``module`` with every body written on the line of its header (``def f(x): return x ** 3``,
    ``if c: y = 2``) as the indented block it stands for; each new node takes the position of
    the node it replaces, so errors still point at the user's line and column."""

    class Expand(cst.CSTTransformer):
        def on_leave(self, original, updated):
            result = updated
            if isinstance(original, cst.SimpleStatementSuite):
                line = cst.SimpleStatementLine(body=updated.body)
                result = cst.IndentedBlock(body=[line])
                if original in positions:
                    positions[line] = positions[original]
            if result is not original and original in positions:
                positions[result] = positions[original]
            return result

    return module.visit(Expand())


_HEADER = re.compile(r"^[ \t]*(?:def|if|elif|else|for|while)\b", re.MULTILINE)


def _has_one_line_body(text: str) -> bool:
    """Whether some header (``def``, ``if``, ``for`` ...) has code after its colon on the same
    line. Brackets are skipped, so annotations and slices do not count; a cheap test, so the
    tree is walked only for the functions that need it (the walk costs a millisecond a line)."""
    for match in _HEADER.finditer(text):
        end = text.find("\n", match.end())
        line = text[match.end():end if end >= 0 else len(text)]
        depth = 0
        for index, char in enumerate(line):
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
            elif char == "#" or char in "'\"" and depth == 0:
                break  # a comment, or a string in the header itself: no body worth finding here
            elif char == ":" and depth == 0:
                rest = line[index + 1:].strip()
                if rest and not rest.startswith("#"):
                    return True
    return False


# ``inspect.findsource``'s test for the line a function's source starts on.
_DEF_START = re.compile(r"^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)")


def source_lines_for_key(function) -> tuple[list[str], int]:
    """The lines of ``function``'s source, for a cache key: ``(lines, first line number)``.

    A superset of what ``inspect.getsourcelines`` (and so ``read_function``) returns,
    found without tokenizing (which costs several milliseconds on a warm start): from
    the line ``inspect`` starts at (decorators included) to the last line of any code
    of the function or of the functions and comprehensions nested in it, then on over
    the lines indented deeper than the ``def`` (trailing comments, closing brackets) and
    the blank lines between them. Whatever changes in the function's text changes these
    lines (tests/test_cache.py checks they start with ``inspect``'s).
    Raises OSError (or TypeError) where ``inspect`` would: no source to read.
    """
    code = function.__code__
    filename = code.co_filename
    if filename.startswith("<") and filename.endswith(">") or code.co_firstlineno < 1:
        lines, first_line = _source_lines(function)  # notebooks, exec: inspect knows best
        return list(lines), first_line
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, function.__globals__)
    start = code.co_firstlineno - 1
    if not lines or start >= len(lines):
        lines, first_line = _source_lines(function)  # raises the error that says why
        return list(lines), first_line
    while start > 0 and not _DEF_START.match(lines[start]):
        start -= 1
    last = _last_line(code)
    head = lines[start]
    indent = len(head) - len(head.lstrip())
    end = max(last, start + 1)
    while end < len(lines):
        line = lines[end]
        stripped = line.strip()
        if stripped and len(line) - len(line.lstrip()) <= indent:
            break
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1  # the blank lines before what follows are not the function's
    return lines[start:end], start + 1


def _last_line(code) -> int:
    """The last source line (1-based) of any instruction of ``code`` or of the code nested in it."""
    last = code.co_firstlineno
    for _, _, line in code.co_lines():
        if line is not None and line > last:
            last = line
    positions = getattr(code, "co_positions", None)
    if positions is not None:
        for _, end_line, _, _ in positions():
            if end_line is not None and end_line > last:
                last = end_line
    for constant in code.co_consts:
        if hasattr(constant, "co_lines"):
            last = max(last, _last_line(constant))
    return last


def without_parameters(source: FunctionSource, names: set[str]) -> FunctionSource:
    """``source`` with the parameters ``names`` removed from its ``def``: the text a function
    specialised to the functions those parameters receive is read from (specialisation.py);
    in its body they are then module-level names."""
    import dataclasses

    import libcst as cst

    params = source.funcdef.params
    kept = [p for p in params.params if p.name.value not in names]
    if kept:
        kept[-1] = kept[-1].with_changes(comma=_no_comma())
    keyword_only = [p for p in params.kwonly_params if p.name.value not in names]  # `activation=np.tanh` after `*`
    star = params.star_arg if keyword_only or not isinstance(params.star_arg, cst.ParamStar) else _no_comma()
    funcdef = source.funcdef.with_changes(params=params.with_changes(params=kept, kwonly_params=keyword_only,
                                                                     star_arg=star))
    specialised = dataclasses.replace(source, funcdef=funcdef, positions=dict(source.positions))
    specialised.alias(funcdef, source.funcdef)
    specialised.alias(funcdef.name, source.funcdef.name)
    return specialised


def _no_comma():
    import libcst as cst

    return cst.MaybeSentinel.DEFAULT
