"""Calls of one-pass iterators (``map``, ``reversed``, ``itertools.chain``), where they are
consumed at once: one_pass.py says where that is and what each is written as."""
from __future__ import annotations

import builtins

import libcst as cst

from ..errors import UnsupportedSyntaxError
from ..rules.helpers import chained
from .ir import Atom, Callee, Operation
from .normalize_state import NormalizerState, atom_name
from .one_pass import as_filtering_generator, as_generator, consumed_once, generators_used_where_made, is_plain_function
from .resolve import found


class OnePassCallNormalizer(NormalizerState):
    def _resolver(self):
        code = getattr(self.source.function, "__code__", None)
        local = set(code.co_varnames) | set(code.co_cellvars) if code is not None else set()

        def resolve(name):
            value = self.env.resolve_dotted(name) if name.split(".")[0] not in local else None
            return value if found(value) else None
        return resolve

    def generators_used_where_made(self) -> set[int]:
        if self.generators_at_once is None:
            self.generators_at_once = generators_used_where_made(self.source.funcdef, self._resolver())
        return self.generators_at_once

    def check_generator_used_where_made(self, node: cst.GeneratorExp) -> None:
        """Refuse a generator expression stored to be read later: it would read its variables
        then, and the list s2sad makes of it reads them here (one_pass.py)."""
        if id(node) not in self.generators_used_where_made():
            raise UnsupportedSyntaxError(
                "a generator expression stored to be read later: it runs when it is read, reading its variables "
                "then (after any change made in between), and once only; s2sad differentiates one used where "
                "it is written (a for loop, a call's argument, unpacking)", self.source.location(node),
                "write a list comprehension `[...]` instead, which is made at once, or write the generator "
                "where it is used")

    def check_consumed_once(self, node: cst.Call, dotted: str) -> None:
        """Refuse a one-pass iterator (``map``, ``reversed``, ``itertools.chain``) except where it is
        used up at once, in one pass (one_pass.py): there the list of its items is the same."""
        if self.consumed is None:
            self.consumed = consumed_once(self.source.funcdef, self._resolver())
        if id(node) not in self.consumed:
            raise UnsupportedSyntaxError(
                f"`{dotted}(...)` gives an iterator, which its first pass uses up: s2sad differentiates it where it is "
                "consumed at once, in one pass (a for loop, a comprehension, list(...), tuple(...), sum(...), "
                "unpacking), not stored, returned or read with next()", self.source.location(node),
                f"make the list at once, `list({dotted}(...))`, and read that")

    def chained(self, node: cst.Call, want) -> Atom:
        """``itertools.chain(a, *rest)``, consumed at once: ``chained((a, *rest))``, the list of the items."""
        if any(arg.keyword is not None or arg.star == "**" for arg in node.args):
            raise UnsupportedSyntaxError("`chain(...)` takes its iterables by position", self.source.location(node))
        iterables = self.packed_positional(node)
        callee = Callee("static", "chained", chained)
        return self.operation(want, "chained", [atom_name(iterables)], Operation("", "call", callee, [iterables]))

    def mapped(self, node: cst.Call, dotted: str, want) -> Atom:
        """``map(f, xs, ys)``, consumed at once: the generator ``(f(x, y) for x, y in zip(xs, ys))``."""
        location = self.source.location(node)
        if len(node.args) < 2 or any(arg.keyword is not None for arg in node.args):
            raise UnsupportedSyntaxError(f"`{dotted}(...)` takes a function and one or more iterables, by position",
                                         location)
        if not is_plain_function(node.args[0].value):
            raise UnsupportedSyntaxError(f"the function `{dotted}(...)` applies is computed by an expression, which "
                                         "the loop s2sad writes for it would evaluate once per item", location,
                                         "assign the function to a name first, and map that")
        if len(node.args) > 2 and ("zip" in self.current or self.env.lookup("zip") is not builtins.zip):
            raise UnsupportedSyntaxError(f"`{dotted}(...)` over several iterables, where `zip` is not the builtin",
                                         location)
        names = [f"_s2sad_{self.namer.fresh('mapped')}" for _ in node.args[1:]]
        generator = as_generator(node, names)
        made = [generator, generator.elt, generator.for_in, generator.for_in.target, generator.for_in.iter]
        made += [arg.value for arg in generator.elt.args] + list(getattr(generator.for_in.target, "elements", []))
        return self.written_as_generator(node, generator, made, want)

    def filtered(self, node: cst.Call, dotted: str, want) -> Atom:
        """``filter(f, xs)``, consumed at once: the generator ``(v for v in xs if f(v))``."""
        if len(node.args) != 2 or any(arg.keyword is not None or arg.star for arg in node.args):
            raise UnsupportedSyntaxError(f"`{dotted}(...)` takes a function (or None) and one iterable, by position",
                                         self.source.location(node))
        if not is_plain_function(node.args[0].value):
            raise UnsupportedSyntaxError(f"the function `{dotted}(...)` tests with is computed by an expression, which "
                                         "the loop s2sad writes for it would evaluate once per item",
                                         self.source.location(node), "assign the function to a name first, and filter with that")
        generator = as_filtering_generator(node, f"_s2sad_{self.namer.fresh('kept')}")
        condition = generator.for_in.ifs[0].test
        made = [generator, generator.elt, generator.for_in, generator.for_in.target, generator.for_in.ifs[0], condition]
        made += [arg.value for arg in getattr(condition, "args", [])]
        return self.written_as_generator(node, generator, made, want)

    def written_as_generator(self, node: cst.Call, generator: cst.GeneratorExp, made: list, want) -> Atom:
        """The generator ``node`` (a ``map`` or a ``filter``) is written as, consumed where the call was."""
        given = {id(arg.value) for arg in node.args}  # the user's own nodes keep their positions
        for made_node in made:
            if id(made_node) not in given:
                self.source.alias(made_node, node)
        self.consumed.add(id(generator.for_in.iter))  # (zip(xs, ys) made here: its iterables were marked with the map)
        self.generators_used_where_made().add(id(generator))  # consumed where the map was
        return self.comprehension(generator, want)
