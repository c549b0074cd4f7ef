"""Keyword calls of the user's functions, written positionally for compiled code (compile=True).

Numba passes arguments by position. A call ``dense(h, W, b, activation=np.sin)`` of a function
compiled split is bound here, once, as Python would bind it: each keyword goes to its parameter's
position, a parameter skipped on the way gets its default written as a literal (numbers and
bools; any other default leaves the call as it is, and it does not compile). The positions are
those of the callee's flat parameters (frontend/flat_parameters.py): its keyword-only
parameters come after its positional ones and its ``*args`` (``shifted(x, by=k)`` of ``def
shifted(x, *, by=0.5)`` is ``shifted(x, k)``). Its pullback's
keyword cotangents (``cotangents.keywords['activation']``) become reads by position: the split
reverse gives one cotangent per parameter, after the function's own.

This runs before the split calls are found (reverse.split_calls), which then see positional
calls only: the functions passed by keyword are specialised to as those passed by position are.
"""
from __future__ import annotations

import libcst as cst

from ..errors import NotCompiledError
from ..frontend.flat_parameters import flat_parameters
from .nodes import called_name

LITERAL_DEFAULTS = (bool, int, float)


class KeywordCalls:
    """``parameters_of(spelling)``: the parameters (inspect.Parameter) of the user function a
    call's binding names, or None when it is not one compiled code calls split."""

    def __init__(self, bindings: dict, parameters_of):
        self.bindings = bindings
        self.parameters_of = parameters_of
        # a keyword call's pullback -> (its callee's parameter names, how many arguments it gave by position)
        self.pullbacks: dict = {}

    def positional(self, text: str) -> str:
        """``text`` with its keyword calls of split functions written positionally, and their
        bindings' differentiated keywords made positions."""
        if "=" not in text:
            return text
        return cst.parse_module(text).visit(_Positional(self)).code

    def keywords_read(self, text: str) -> str:
        """``text`` with the keyword cotangents of those calls' pullbacks read by position."""
        if not self.pullbacks or ".keywords[" not in text:
            return text
        return cst.parse_module(text).visit(_ReadByPosition(self)).code

    def parameters(self, called: str) -> list | None:
        recipe = self.bindings.get(called)
        if recipe is None:
            return None
        if recipe[0] == "transformed" and recipe[1][0] == "env":
            spelling = recipe[1][1]
        elif recipe == ("global", called):
            spelling = called
        else:
            return None
        return self.parameters_of(spelling)


class _Positional(cst.CSTTransformer):
    def __init__(self, calls: KeywordCalls):
        super().__init__()
        self.calls = calls
        self.rebound: dict = {}  # binding -> its differentiated keywords' positions

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        # `y, y_pullback = f_rrule(a, k=b)`: the pullback's keyword cotangents are read by position later
        value = updated.value
        if isinstance(value, cst.Call) and isinstance(original.value, cst.Call) and original.value.args != value.args \
                and len(updated.targets) == 1 and isinstance(updated.targets[0].target, cst.Tuple):
            elements = updated.targets[0].target.elements
            declared = self.calls.parameters(called_name(value))
            if len(elements) == 2 and isinstance(elements[1].value, cst.Name) and declared is not None \
                    and not any(p.kind is p.VAR_KEYWORD for p in declared):
                given = sum(1 for a in original.value.args if a.keyword is None)
                names = [p.name if p.kind is not p.POSITIONAL_ONLY else None  # (what a keyword can name)
                         for p in flat_parameters(declared, given)]
                self.calls.pullbacks[elements[1].value.value] = (names, given)
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        called = called_name(updated)
        if called is None or not any(a.keyword is not None for a in updated.args):
            return updated
        if any(a.star for a in updated.args):
            return updated
        declared = self.calls.parameters(called)
        if declared is None or any(p.kind is p.VAR_POSITIONAL for p in declared):
            # (a callee's *args is written out for the number of arguments its call gives by position:
            # keyword-only ones written as positions would be taken for more of them)
            return updated
        positional = [a.value for a in updated.args if a.keyword is None]
        try:  # keyword-only parameters and those *args is written out as are positions too
            parameters = flat_parameters(declared, len(positional))
        except NotCompiledError:  # **kwargs: it does not compile
            return updated
        by_keyword = [p.name if p.kind is not p.POSITIONAL_ONLY else None for p in parameters]
        keyword_only = sum(1 for p in parameters if p.kind is p.KEYWORD_ONLY)
        if len(positional) > len(parameters) - keyword_only:
            return updated  # Python's TypeError: the NumPy path raises it
        slots: list = positional + [None] * (len(parameters) - len(positional))
        for argument in updated.args:
            if argument.keyword is None:
                continue
            if argument.keyword.value not in by_keyword or slots[by_keyword.index(argument.keyword.value)] is not None:
                return updated  # Python's TypeError: the NumPy path raises it
            slots[by_keyword.index(argument.keyword.value)] = argument.value
        last = max(position for position, value in enumerate(slots) if value is not None)
        for position in range(last):
            if slots[position] is None:
                default = parameters[position].default
                if default.__class__ not in LITERAL_DEFAULTS:
                    return updated  # a default Python holds as an object: not written into the call
                slots[position] = cst.parse_expression(repr(default))
        recipe = self.calls.bindings[called]
        if recipe[0] == "transformed" and recipe[3]:  # the differentiated keywords are positions now
            positions = tuple(sorted(set(recipe[2]) | {by_keyword.index(k) for k in recipe[3]}))
            self.calls.bindings[called] = (recipe[0], recipe[1], positions, ())
        arguments = [cst.Arg(value) for value in slots[:last + 1]]
        return updated.with_changes(args=arguments)


class _ReadByPosition(cst.CSTTransformer):
    """``cotangents = y_pullback(g)`` then ``cotangents.keywords['k']``: ``cotangents[1 + k's position]``."""

    def __init__(self, calls: KeywordCalls):
        super().__init__()
        self.calls = calls
        self.results: dict = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        target = node.targets[0].target if len(node.targets) == 1 else None
        if isinstance(target, cst.Name) and isinstance(node.value, cst.Call) \
                and called_name(node.value) in self.calls.pullbacks:
            self.results[target.value] = self.calls.pullbacks[called_name(node.value)][0]

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        owner = updated.value
        if not (isinstance(owner, cst.Attribute) and owner.attr.value == "keywords"
                and isinstance(owner.value, cst.Name) and owner.value.value in self.results
                and len(updated.slice) == 1 and isinstance(updated.slice[0].slice, cst.Index)
                and isinstance(updated.slice[0].slice.value, cst.SimpleString)):
            return updated
        names = self.results[owner.value.value]
        keyword = updated.slice[0].slice.value.evaluated_value
        if keyword not in names:
            return updated
        index = cst.Index(cst.Integer(str(1 + names.index(keyword))))
        return updated.with_changes(value=owner.value, slice=[cst.SubscriptElement(index)])

