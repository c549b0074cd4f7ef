"""One-pass iterators: ``map``, ``filter``, ``reversed`` and ``itertools.chain`` (and ``chain.from_iterable``).

Each gives an iterator, used up by the first pass over it. Generated code reads a value more
than once (the primal, the rule, the tangent), so s2sad makes the list of the iterator's
items instead: ``reversed(xs)`` is ``reversed_items(xs)``, ``chain(a, b)`` is ``chained((a, b))``
(rules/python_containers.py gives their derivatives), ``map(f, xs, ys)`` is the
generator expression ``(f(x, y) for x, y in zip(xs, ys))`` and ``filter(f, xs)`` is
``(v for v in xs if f(v))`` (``if v`` for ``filter(None, xs)``), which the normaliser writes as
the loop it stands for (``f`` a lambda, a nested or module function, a ufunc, an argument).

The list and the iterator hold the same items in the same order, so this is right wherever
the iterator is consumed once, at once: the iterable of a ``for`` loop or of a comprehension,
the argument of ``list``, ``tuple``, ``sum``, ``sorted``, ``min``/``max`` (of one iterable),
``set``, ``any``/``all``, the iterable of ``functools.reduce``, the value of an unpacking assignment (``a, b = map(f, xs)``), a
``*`` in a call or a display, and an iterable of ``zip``/``enumerate``/``map``/``chain`` that is
itself so consumed. ``consumed_once`` finds these places in a function's tree; elsewhere
(``m = map(f, xs)`` stored, ``next(m)``, ``return reversed(xs)``) the call is refused, naming
its line: a list would be read whole again where the iterator would be empty.
"""
from __future__ import annotations

import builtins
import functools
import itertools

import libcst as cst

from ..rules.helpers import chained, reversed_items
from .normalize_syntax import dotted_name

# builtins that use their first argument up in one pass, and give back something that is not an iterator
CONSUMERS = {"list", "tuple", "sum", "sorted", "set", "frozenset", "any", "all"}
ONE_ITERABLE_CONSUMERS = {"min", "max"}  # min(xs): consumed; min(a, b): values compared, not iterated


def written_as(value) -> tuple | None:
    """``(helper, its spelling)`` generated code calls for the one-pass ``value``, or None."""
    if value is builtins.reversed:
        return reversed_items, "reversed_items"
    if value is itertools.chain or is_from_iterable(value):
        return chained, "chained"  # chain(a, b) is given the tuple (a, b): CallNormalizer.chained
    return None


def is_from_iterable(value) -> bool:
    """``itertools.chain.from_iterable`` (a bound classmethod: a new object at each lookup)."""
    return getattr(value, "__self__", None) is itertools.chain and getattr(value, "__name__", None) == "from_iterable"


def is_one_pass(value) -> bool:
    return value is builtins.map or value is builtins.filter or written_as(value) is not None


def consumed_once(funcdef: cst.CSTNode, resolve) -> set[int]:
    """The ids of the expressions in ``funcdef`` consumed in one pass, at once (see the module's
    docstring); ``resolve(dotted)`` gives what a dotted name refers to (None when it is a variable)."""
    finder = _Consumed(resolve)
    funcdef.visit(finder)
    return finder.consumed


def generators_used_where_made(funcdef: cst.CSTNode, resolve) -> set[int]:
    """The ids of the generator expressions in ``funcdef`` used up where they are written: those
    :func:`consumed_once` finds, and those given to a call as an argument (``np.stack(g for ...)``:
    the callee runs it before anything else in the function does). A generator stored
    (``parts = (z[i] for i in ...)``) runs when it is read, and reads its variables then, after any
    change made in between; the list s2sad makes of it is made where it is written."""
    finder = _Consumed(resolve)
    funcdef.visit(finder)
    return finder.consumed | finder.given_to_calls


class _Consumed(cst.CSTVisitor):
    def __init__(self, resolve):
        self.resolve = resolve
        self.consumed: set[int] = set()
        self.given_to_calls: set[int] = set()

    def mark(self, node) -> None:
        self.consumed.add(id(node))

    def visit_For(self, node: cst.For) -> None:
        self.mark(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.mark(node.iter)

    def visit_Assign(self, node: cst.Assign) -> None:
        if all(isinstance(t.target, (cst.Tuple, cst.List)) for t in node.targets):
            self.mark(node.value)  # a, b = map(f, xs): unpacked, which uses it up

    def visit_StarredElement(self, node: cst.StarredElement) -> None:
        self.mark(node.value)  # [*map(f, xs)], (*reversed(xs),)

    def visit_Call(self, node: cst.Call) -> None:
        self.given_to_calls.update(id(arg.value) for arg in node.args if isinstance(arg.value, cst.GeneratorExp))
        for arg in node.args:
            if arg.star == "*":
                self.mark(arg.value)  # f(*map(g, xs)): gathered into one tuple
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        dotted = dotted_name(node.func)
        value = self.resolve(dotted) if dotted is not None else None
        if value is None or not positional:
            return
        name = getattr(value, "__name__", None)
        if getattr(builtins, name or "", None) is value and (
                name in CONSUMERS or (name in ONE_ITERABLE_CONSUMERS and len(positional) == 1)):
            self.mark(positional[0])
        elif value is functools.reduce and len(positional) >= 2:
            self.mark(positional[1])  # reduce(f, map(g, xs)): walked once, in order
        elif id(node) in self.consumed:  # passes its iterables on, one pass over each
            if value is builtins.zip or value is builtins.enumerate or value is itertools.chain:
                for item in (positional if value is not builtins.enumerate else positional[:1]):
                    self.mark(item)
            elif value is builtins.map or value is builtins.filter:
                for item in positional[1:]:
                    self.mark(item)
            elif is_from_iterable(value):
                self.mark(positional[0])


def as_generator(call: cst.Call, names: list[str]) -> cst.GeneratorExp:
    """``map(f, xs, ys)`` as ``(f(a, b) for a, b in zip(xs, ys))``, ``names`` the loop's variables."""
    function, iterables = call.args[0].value, [arg.value for arg in call.args[1:]]
    element = cst.Call(function, [cst.Arg(cst.Name(name)) for name in names])
    if len(iterables) == 1:
        target, iterable = cst.Name(names[0]), iterables[0]
    else:
        target = cst.Tuple([cst.Element(cst.Name(name)) for name in names])
        iterable = cst.Call(cst.Name("zip"), [cst.Arg(item) for item in iterables])
    return cst.GeneratorExp(element, cst.CompFor(target, iterable))


def as_filtering_generator(call: cst.Call, name: str) -> cst.GeneratorExp:
    """``filter(f, xs)`` as ``(v for v in xs if f(v))`` (``filter(None, xs)``: ``if v``), ``name`` the loop's variable."""
    function, iterable = call.args[0].value, call.args[1].value
    kept = cst.Name(name) if isinstance(function, cst.Name) and function.value == "None" \
        else cst.Call(function, [cst.Arg(cst.Name(name))])
    return cst.GeneratorExp(cst.Name(name), cst.CompFor(cst.Name(name), iterable, ifs=[cst.CompIf(kept)]))


def is_plain_function(node: cst.CSTNode) -> bool:
    """``f``, ``np.sin``, ``self.act``, a lambda: read again for each item with the same result
    (``map`` reads its function once; the loop calls it once per item)."""
    return isinstance(node, cst.Lambda) or dotted_name(node) is not None
