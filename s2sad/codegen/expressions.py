"""Rule expressions: a rule's one-line template with a call's arguments in place of its free names.

A template (``unbroadcast(g * conj(np.cos(x)), x)``) is parsed once. Substituting builds the
expression's tree: each free name the call gives an argument for becomes that argument's own
tree; attribute names (``np.cos``) and keyword names (``axis=axis``) are not names of the
tree and stay as written; ``conj`` of a real constant is the constant. The optimisation passes
(expression_passes.py) then rewrite the tree, each on its own, and the text is written once:

* an expression no pass changed reads as its template reads, each argument as the user wrote
  it (``1e-3`` stays ``1e-3``), in parentheses where it is an operand and not an atom
  (``(-0.3) ** 2``, ``g * (-0.3)``, but ``np.sum(g, axis=-1)``);
* one a pass rewrote is written by ``ast.unparse``.
"""
from __future__ import annotations

import ast
import functools
from typing import Callable, Iterable, Mapping, Protocol

from ..analysis.scalars import real_number


class Pass(Protocol):
    """A rewrite of a rule expression's tree (expression_passes.py holds them)."""

    def applies(self, callees: frozenset[str]) -> bool:
        """Whether an expression calling ``callees`` (``unbroadcast``, ``np.cos``) may be
        rewritten: a cheap test, so that most expressions are never built as a tree."""

    def __call__(self, tree: ast.expr) -> ast.expr | None:
        """The tree rewritten (it may be changed in place), or None when nothing was."""


class Code(str):
    """The text of a rule expression, which also gives its tree. It goes wherever generated
    text goes (f-strings, sets of cotangent names), and a later question about the expression
    (``add_at_arguments``) reads the tree instead of parsing the text again. The tree of an
    expression no pass rewrote is built when it is first asked for."""

    def __new__(cls, text: str, template: Template, arguments: Mapping[str, str], tree: ast.expr | None):
        code = super().__new__(cls, text)
        code._template, code._arguments, code._tree = template, arguments, tree
        return code

    @property
    def tree(self) -> ast.expr:
        if self._tree is None:
            self._tree = self._template.substituted(self._arguments)
        return self._tree


# Where a free name stands, which decides how an argument's code is written in its place:
ALONE = "alone"        # a call's argument or keyword value: as written (``axis=-1``)
OWNER = "owner"        # before an attribute: an atom, a number in parentheses (``(2).conjugate()``)
OPERAND = "operand"    # anywhere else: an atom, or in parentheses (``(-0.3) ** 2``)


class _Occurrence:
    """A free name of a template: the span of text it covers, where it stands, and the span of
    ``conj(name)`` when the name is the whole argument of a ``conj`` call."""

    __slots__ = ("name", "span", "place", "conj_span")

    def __init__(self, name: str, span: tuple[int, int], place: str, conj_span: tuple[int, int] | None = None):
        self.name, self.span, self.place, self.conj_span = name, span, place, conj_span


class Template:
    """A rule template, parsed: its text, its tree, where its free names are and the functions
    it calls. (Plain classes here: a dataclass costs a cold transform a millisecond or more.)"""

    __slots__ = ("text", "tree", "occurrences", "callees")

    def __init__(self, text: str, tree: ast.expr, occurrences: tuple[_Occurrence, ...], callees: frozenset[str]):
        self.text, self.tree, self.occurrences, self.callees = text, tree, occurrences, callees

    def written(self, arguments: Mapping[str, str]) -> str:
        """The template's own text with the arguments in place of its free names."""
        pieces, cursor = [], 0
        for occurrence in self.occurrences:
            code = arguments.get(occurrence.name)
            if code is None:
                continue
            if occurrence.conj_span is not None and _real_number(code):
                (start, end), text = occurrence.conj_span, code.strip()  # conj(2.0) is 2.0
            else:
                (start, end), text = occurrence.span, _written_at(occurrence.place, code)
            pieces += [self.text[cursor:start], text]
            cursor = end
        pieces.append(self.text[cursor:])
        return "".join(pieces)

    def substituted(self, arguments: Mapping[str, str]) -> ast.expr:
        """A new tree: the template's, with each argument's tree in place of its name."""
        return _instantiated(self.tree, arguments)


@functools.lru_cache(maxsize=4096)
def template(text: str) -> Template:
    """``text`` parsed: the same few hundred templates are substituted again and again."""
    text = text.strip()
    tree = ast.parse(text, mode="eval").body
    offset = _offsets(text)

    def span(node: ast.AST) -> tuple[int, int]:
        return offset(node.lineno, node.col_offset), offset(node.end_lineno, node.end_col_offset)

    occurrences, called, pending = [], set(), [(tree, OPERAND)]
    while pending:
        node, place = pending.pop()
        if isinstance(node, ast.Name):
            occurrences.append(_Occurrence(node.id, span(node), place))
        elif isinstance(node, ast.Call):
            called.add(callee_spelling(node.func))
            pending.append((node.func, OPERAND))
            if _conj_of_name(node):
                occurrences.append(_Occurrence(node.args[0].id, span(node.args[0]), ALONE, span(node)))
            else:
                pending += [(value, ALONE) for value in [*node.args, *(k.value for k in node.keywords)]]
        elif isinstance(node, ast.Attribute):
            pending.append((node.value, OWNER))
        else:
            pending += [(child, OPERAND) for child in ast.iter_child_nodes(node)]
    occurrences.sort(key=lambda occurrence: occurrence.span)
    return Template(text, tree, tuple(occurrences), frozenset(called - {None}))


def substitute(template_text: str, arguments: Mapping[str, str], passes: Iterable[Pass] = ()) -> Code:
    """The rule expression ``template_text`` states for a call whose arguments are ``arguments``
    (free name -> code), rewritten by ``passes`` in order."""
    parsed = template(template_text)
    tree, rewritten, called = None, False, parsed.callees
    for rewrite in passes:
        if not rewrite.applies(called):
            continue
        if tree is None:
            tree = parsed.substituted(arguments)
        result = rewrite(tree)
        if result is not None:
            tree, rewritten, called = result, True, callees(result)
    return Code(ast.unparse(tree) if rewritten else parsed.written(arguments), parsed, arguments, tree)


def callees(tree: ast.expr) -> frozenset[str]:
    """How the functions ``tree`` calls are spelt, where they are names (``conj``, ``np.cos``)."""
    spellings = (callee_spelling(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call))
    return frozenset(spelling for spelling in spellings if spelling is not None)


def callee_spelling(node: ast.expr) -> str | None:
    """``np.cos`` for the callee ``np.cos``; None for a callee that is not a (dotted) name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = callee_spelling(node.value)
        return f"{owner}.{node.attr}" if owner is not None else None
    return None


def _conj_of_name(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "conj"
            and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and not node.keywords)


def _instantiated(node: ast.AST, arguments: Mapping[str, str]) -> ast.AST:
    if isinstance(node, ast.Name) and node.id in arguments:
        return _copied(_argument_tree(arguments[node.id]))
    if _conj_of_name(node) and node.args[0].id in arguments and _real_number(arguments[node.args[0].id]):
        return _copied(_argument_tree(arguments[node.args[0].id]))  # conj(2.0) is 2.0
    kind = type(node)
    copy = kind.__new__(kind)
    for name in node._fields:
        value = getattr(node, name)
        if isinstance(value, ast.AST) and not isinstance(value, ast.expr_context):
            value = _instantiated(value, arguments)
        elif isinstance(value, list):
            value = [_instantiated(item, arguments) if isinstance(item, ast.AST) else item for item in value]
        setattr(copy, name, value)
    return copy


def _copied(node: ast.AST) -> ast.AST:
    return _instantiated(node, {})


@functools.lru_cache(maxsize=4096)
def _real_number(code: str) -> bool:
    return not code.isidentifier() and real_number(code)  # most codes are names: no parse for them


@functools.lru_cache(maxsize=4096)
def _argument_tree(code: str) -> ast.expr:
    """The tree of an argument's code; shared between calls, so only ever copied."""
    return ast.parse(code.strip(), mode="eval").body


def _written_at(place: str, code: str) -> str:
    if place == ALONE:
        return code.strip()
    text = _parenthesised(code)
    if place == OWNER and text.replace(".", "").replace("_", "").isdigit():
        return f"({text})"  # `2.conjugate()` would not parse
    return text


@functools.lru_cache(maxsize=4096)
def _parenthesised(code: str) -> str:
    """``code`` as it can stand for a name in any expression: parenthesised unless it is an
    atom (a name, a call, a subscript, a display, a non-negative number)."""
    stripped = code.strip()
    if stripped.isidentifier() or stripped.replace(".", "").replace("_", "").isalnum():
        return stripped
    try:
        node = ast.parse(stripped, mode="eval").body
    except SyntaxError:
        return f"({stripped})"
    if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Tuple, ast.List, ast.Dict)):
        return stripped
    if isinstance(node, ast.Constant) and not (isinstance(node.value, (int, float, complex)) and stripped.startswith("-")):
        return stripped
    return f"({stripped})"


def _offsets(text: str) -> Callable[[int, int], int]:
    """(line, UTF-8 column) as ``ast`` gives them -> an index into ``text``."""
    if text.isascii() and "\n" not in text:
        return lambda line, column: column  # nearly every template: one line of ASCII
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + len(lines[line - 1].encode()[:column].decode())

    return offset
