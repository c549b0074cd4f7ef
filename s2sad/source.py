"""Reading a user function's source and pointing back into it.

The function's text is dedented before parsing; positions are mapped back to the user's
file (line offset of the ``def``, columns shifted by the removed indentation), so every
error names the real file, line and column.
"""
from __future__ import annotations

import inspect
import linecache
import textwrap
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .errors import SourceLocation, SourceUnavailableError, UnsupportedSyntaxError
from .resolve import unwrap as _unwrap


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
        lines, first_line = inspect.getsourcelines(function)
    except (OSError, TypeError) as error:
        raise SourceUnavailableError(
            f"cannot read the source of {name} (defined in {filename}): {error}",
            hint="define the function in a .py file (functions typed at the REPL or made with exec have no source file)",
        ) from None
    if function.__name__ == "<lambda>":
        raise UnsupportedSyntaxError(
            f"cannot differentiate the lambda {name}: lambdas are not supported yet",
            SourceLocation(filename, first_line, 1, lines[0].rstrip("\n")),
            hint="write it as a def",
        )
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = len(raw.splitlines()[0]) - len(text.splitlines()[0])
    try:
        wrapper = MetadataWrapper(cst.parse_module(text))
    except cst.ParserSyntaxError as error:
        raise SourceUnavailableError(
            f"cannot parse the source of {name} in {filename}: {error.message}",
            SourceLocation(filename, first_line + error.raw_line - 1, error.raw_column + indent + 1),
        ) from None
    positions = wrapper.resolve(PositionProvider)
    module = wrapper.module
    funcdef = next((s for s in module.body if isinstance(s, cst.FunctionDef)), None)
    if funcdef is None:
        raise SourceUnavailableError(f"the source of {name} in {filename} does not start with a def")
    return FunctionSource(function, filename, text, first_line, indent, funcdef, positions)
