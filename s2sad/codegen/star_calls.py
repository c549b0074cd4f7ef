"""Calls given ``*args`` (and no keywords) as Numba compiles them (compile=True on arrays).

The normaliser packs ``np.ones(*w.shape)`` and ``x.reshape(*shape)`` as::

    args_shape = tuple(shape)
    keywords = {}
    prior = np.ones(*args_shape, **keywords)
    y, y_pullback = packed_rrule(x, 'reshape', args_shape, keywords)
    ...
    _, dx, _, _ = y_pullback(dy)

Numba unpacks a tuple into a call's arguments, but has no ``tuple()`` of a tuple, no empty dict
and no ``packed_rrule``. Here, before for_numba's other rewrites:

* ``tuple(t)`` is ``as_tuple(t)``, an overload that is ``t`` itself for a tuple and has no
  implementation for anything else (a list: Numba's typing fails, and the NumPy path runs);
* a dict ``{}`` read only as ``**keywords`` (or as a packed call's keywords) is no argument at all;
* ``packed_rrule(x, 'reshape', args, {})`` (and ``'transpose'``) is
  ``method_rrule(x, 'reshape', *args)``, whose helper ``array_reshape`` takes the ints as they
  come; its pullback's cotangents of the ints are zeros, which the unpacking must discard
  (``_``): the receiver's alone is kept. Any other packed call is left, and refused by name.
"""
from __future__ import annotations

import libcst as cst

from ..errors import NotCompiledError
from .nodes import called_name

# the array methods whose packed arguments are ints alone (a shape, axes): no cotangent reaches them
INT_ARGUMENT_METHODS = ("reshape", "transpose")


def star_calls_unpacked(module: cst.Module, location=None) -> cst.Module:
    """``module`` with the rewrites above."""
    empty = _EmptyDicts()
    module.visit(empty)
    dicts = {name for name in empty.assigned if empty.reads.get(name, 0) == empty.as_keywords.get(name, 0)}
    packed = _PackedMethods(dicts)
    module.visit(packed)
    return module.visit(_Unpacked(dicts, packed.pullbacks, location))


class _EmptyDicts(cst.CSTVisitor):
    """The names bound once, to ``{}``; how often each name is read, and how often as a call's
    ``**`` or as a packed call's keywords (its fourth argument)."""

    def __init__(self):
        super().__init__()
        self.assigned: set = set()
        self.bound: dict = {}
        self.reads: dict = {}
        self.as_keywords: dict = {}

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        if isinstance(node.target, cst.Name):
            self.bound[node.target.value] = self.bound.get(node.target.value, 0) + 1
        else:
            node.target.visit(self)  # `k["a"] = v` reads `k`
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
                and isinstance(node.value, cst.Dict) and not node.value.elements:
            self.assigned.add(node.targets[0].target.value)

    def leave_Module(self, original: cst.Module) -> None:
        self.assigned = {name for name in self.assigned if self.bound.get(name) == 1}

    def visit_Call(self, node: cst.Call) -> None:
        for position, argument in enumerate(node.args):
            value = argument.value
            if isinstance(value, cst.Name) and (argument.star == "**" or position == 3 and called_name(node) == "packed_rrule"):
                self.as_keywords[value.value] = self.as_keywords.get(value.value, 0) + 1

    def visit_Name(self, node: cst.Name) -> None:
        self.reads[node.value] = self.reads.get(node.value, 0) + 1


class _PackedMethods(cst.CSTVisitor):
    """The pullbacks of ``y, y_pullback = packed_rrule(x, 'reshape', args, k)`` (``k`` an empty dict)."""

    def __init__(self, dicts: set):
        super().__init__()
        self.dicts = dicts
        self.pullbacks: set = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        if _packed_method(node.value, self.dicts) and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Tuple) and len(node.targets[0].target.elements) == 2:
            pullback = node.targets[0].target.elements[1].value
            if isinstance(pullback, cst.Name):
                self.pullbacks.add(pullback.value)


def _packed_method(value, dicts: set) -> bool:
    if not (isinstance(value, cst.Call) and called_name(value) == "packed_rrule" and len(value.args) == 4):
        return False
    name, _, keywords = (a.value for a in value.args[1:])
    return isinstance(name, cst.SimpleString) and name.evaluated_value in INT_ARGUMENT_METHODS \
        and isinstance(keywords, cst.Name) and keywords.value in dicts


class _Unpacked(cst.CSTTransformer):
    def __init__(self, dicts: set, pullbacks: set, location):
        super().__init__()
        self.dicts, self.pullbacks, self.location = dicts, pullbacks, location

    def leave_SimpleStatementLine(self, original, updated: cst.SimpleStatementLine):
        kept = [s for s in updated.body if not (isinstance(s, cst.Assign) and len(s.targets) == 1
                                                and isinstance(s.targets[0].target, cst.Name)
                                                and s.targets[0].target.value in self.dicts)]
        if len(kept) == len(updated.body):
            return updated
        return updated.with_changes(body=kept) if kept else cst.RemoveFromParent()

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        value = updated.value
        if _packed_method(value, self.dicts):  # `method_rrule(x, 'reshape', *args)`
            receiver, name, positional, _ = value.args
            return updated.with_changes(value=value.with_changes(
                func=cst.Name("method_rrule"), args=[receiver, name, cst.Arg(positional.value, star="*")]))
        target = updated.targets[0].target if len(updated.targets) == 1 else None
        if isinstance(value, cst.Call) and called_name(value) in self.pullbacks and isinstance(target, cst.Tuple):
            names = [e.value for e in target.elements]
            if len(names) != 4 or not all(isinstance(n, cst.Name) and n.value == "_" for n in (names[2], names[3])):
                raise NotCompiledError("its gradient reads the cotangents of a method's packed arguments "
                                       "(`*args`), which compiled code does not compute", self.location)
            kept = cst.Tuple([cst.Element(names[0]), cst.Element(names[1])])
            sliced = cst.Subscript(value, [cst.SubscriptElement(cst.Slice(None, cst.Integer("2")))])
            return updated.with_changes(targets=[cst.AssignTarget(kept)], value=sliced)
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        if called_name(updated) == "tuple" and len(updated.args) == 1 and not updated.args[0].star:
            return updated.with_changes(func=cst.Name("as_tuple"))
        args = [a for a in updated.args if not (a.star == "**" and isinstance(a.value, cst.Name)
                                                and a.value.value in self.dicts)]
        if len(args) == len(updated.args):
            return updated
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(args=args)
