"""Dicts built from others: ``{**a, "k": v, **b}``, ``dict(a, k=v, **b)`` and ``a | b``.

Python makes each a new dict holding the very objects its parts hold. The normaliser writes
them as ``dict(a)`` (a shallow copy), ``dict_merged((built, b))`` (``{**built, **b}``: a new dict)
and assignments ``built["k"] = v`` into the dict built so far, in the order Python evaluates
them; ``a | b`` is ``or_merged((a, b))``, which merges two dicts and is ``|`` on anything else.
The aliasing analysis knows what each holds (aliasing._ITEM_HANDLERS); the rules
(rules/python_containers.py) give each value's cotangent back to the one dict Python took it from.
"""
from __future__ import annotations

import libcst as cst

from ..errors import UnsupportedSyntaxError
from ..rules.helpers import dict_merged
from .ir import Atom, Callee, Const, Operation
from .normalize_state import NormalizerState, atom_name


class DictNormalizer(NormalizerState):
    def dictionary(self, node: cst.Dict, want) -> Atom:
        if any(isinstance(element, cst.StarredDictElement) for element in node.elements):
            return self.unpacked_dictionary(node, want)
        entries = [self.dict_entry(element) for element in node.elements]
        return self.operation(want, "dict", [], Operation("", "dict", None, kwargs=entries))

    def dict_entry(self, element: cst.DictElement) -> tuple[str, Atom]:
        key = self.expression(element.key)
        if not isinstance(key, Const):
            raise UnsupportedSyntaxError("dict keys must be constants", self.source.location(element.key),
                                         "use string or number literals as keys")
        return key.code, self.expression(element.value)

    def unpacked_dictionary(self, node: cst.Dict, want) -> Atom:
        """``{**d, "k": v, **e}``, built as Python builds the display, left to right: the entries
        before the first ``**`` as a display (or the first ``**`` as the shallow copy ``dict(d)``),
        each later ``**e`` as ``dict_merged(built, e)`` (a new dict), each later entry assigned
        into the dict built so far (a key already there keeps its place and takes the new value).
        Each new dict holds the very objects its parts hold, as the aliasing analysis knows."""
        elements = list(node.elements)
        leading = []
        while not isinstance(elements[0], cst.StarredDictElement):
            leading.append(self.dict_entry(elements.pop(0)))
        last_made = max(i for i, element in enumerate(elements) if isinstance(element, cst.StarredDictElement))
        built = None
        if leading:
            built = self.operation(None, "dict", [], Operation("", "dict", None, kwargs=leading))
        for position, element in enumerate(elements):
            name = want if position == last_made else None
            if isinstance(element, cst.StarredDictElement):
                mapping = self.expression(element.value)
                if built is None:
                    convert = Callee("static", "dict", dict)
                    built = self.operation(name, "dict", [atom_name(mapping)], Operation("", "call", convert, [mapping]))
                else:
                    built = self.merged(dict_merged, built, mapping, name)
            else:
                key, value = self.dict_entry(element)
                self.mutate(node, "setitem", built, [Const(key), value])
        return built

    def merged(self, function, first: Atom, second: Atom, want) -> Atom:
        """``function((first, second))``: ``dict_merged`` (``{**first, **second}``) or ``or_merged``
        (``first | second``), given its two operands as one tuple, which its forward rule reads whole."""
        parts = self.operation(None, "parts", [], Operation("", "tuple", args=[first, second]))
        callee = Callee("static", function.__name__, function)
        return self.operation(want, "merged", [atom_name(first), atom_name(second)],
                              Operation("", "call", callee, [parts]))

    @staticmethod
    def merges_keywords(node: cst.Call) -> bool:
        """Whether ``dict(...)`` written with ``**`` is one :meth:`dict_with_keywords` writes out: at most
        one mapping given by position, no ``*``."""
        return not any(arg.star == "*" for arg in node.args) \
            and len([arg for arg in node.args if arg.keyword is None and arg.star == ""]) <= 1

    def dict_with_keywords(self, node: cst.Call, want) -> Atom:
        """``dict(mapping, k=v, **more)``: the copy ``dict(mapping)`` (or ``{}``) merged with the call's
        keywords in order, each ``**more`` and each run of keywords written out as ``{**built, **more}``
        (``dict_merged``), whose rule gives each value's cotangent back to the one place Python
        took it from. (A key given twice is not the TypeError Python raises: the last one wins.)"""
        given = [arg.value for arg in node.args if arg.keyword is None and arg.star == ""]
        if given:
            mapping = self.expression(given[0])
            convert = Callee("static", "dict", dict)
            copied = self.operation(None, "dict", [atom_name(mapping)], Operation("", "call", convert, [mapping]))
        else:
            copied = self.operation(None, "dict", [], Operation("", "dict", None, kwargs=[]))
        pieces, written = [], []  # the dicts merged in, in order: keywords written out since the last `**` as one
        for arg in node.args:
            if arg.keyword is not None:
                written.append((repr(arg.keyword.value), self.expression(arg.value)))
            elif arg.star == "**":
                if written:
                    pieces.append(self.keywords_written(written))
                    written = []
                pieces.append(self.expression(arg.value))
        if written:
            pieces.append(self.keywords_written(written))
        for position, piece in enumerate(pieces, 1):
            copied = self.merged(dict_merged, copied, piece, want if position == len(pieces) else None)
        return copied

    def keywords_written(self, written) -> Atom:
        return self.operation(None, "keywords", [], Operation("", "dict", None, kwargs=written))
