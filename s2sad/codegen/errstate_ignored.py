"""``with np.errstate(divide="ignore"):`` in compiled code: its body alone.

Generated code runs a ``with`` block inside the user's manager (``with unsuppressed(manager,
where):``, runtime/contexts.py), which Numba cannot compile. NumPy's errstate set to "ignore"
for each kind it names changes no number, only whether NumPy warns of a division by zero, an
overflow, an underflow or an invalid result; compiled code never warns (and a call whose answer
is not finite is run again on the NumPy path, compiled.py). So such a block compiles as if the
``with`` were not there. Any other setting ("raise": NumPy raises FloatingPointError where
Numba goes on; "warn", "call", "print", a value not written out) is left as it is, and keeps
the function on the NumPy path.
"""
from __future__ import annotations

import libcst as cst
from libcst.helpers import get_full_name_for_node

from .nodes import called_name

ERRSTATE_KINDS = frozenset({"all", "divide", "over", "under", "invalid"})


def errstate_ignored(module: cst.Module) -> cst.Module:
    """``module`` (compiled code) with its ``with`` blocks of errstates that ignore everything
    they name written as their bodies."""
    found = _Managers()
    module.visit(found)
    ignoring = {name for name in found.ignoring if found.reads.get(name, 0) == 1}
    return module.visit(_BodiesAlone(ignoring)) if ignoring else module


def _ignoring(value) -> bool:
    """``np.errstate(divide="ignore", ...)``: keywords alone, each a kind set to "ignore"."""
    return isinstance(value, cst.Call) and get_full_name_for_node(value.func) in ("np.errstate", "numpy.errstate") \
        and bool(value.args) and all(a.keyword is not None and a.keyword.value in ERRSTATE_KINDS
                                     and isinstance(a.value, cst.SimpleString) and a.value.evaluated_value == "ignore"
                                     for a in value.args)


def _manager_of(node: cst.With) -> str | None:
    """``name`` of ``with unsuppressed(name, where):``, the one item of the ``with``."""
    if len(node.items) != 1 or node.items[0].asname is not None:
        return None
    call = node.items[0].item
    if isinstance(call, cst.Call) and called_name(call) == "unsuppressed" and call.args \
            and isinstance(call.args[0].value, cst.Name):
        return call.args[0].value.value
    return None


class _Managers(cst.CSTVisitor):
    """The names bound once to an errstate ignoring everything it names, and how often each name
    is read other than as its own binding's target."""

    def __init__(self):
        self.ignoring: set = set()
        self.bound: dict = {}
        self.reads: dict = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                name = target.target.value
                self.bound[name] = self.bound.get(name, 0) + 1
                if _ignoring(node.value) and len(node.targets) == 1 and self.bound[name] == 1:
                    self.ignoring.add(name)
                elif name in self.ignoring:
                    self.ignoring.discard(name)
                self.reads[name] = self.reads.get(name, 0) - 1  # (its visit_Name below is no read)

    def visit_Name(self, node: cst.Name) -> None:
        self.reads[node.value] = self.reads.get(node.value, 0) + 1


class _BodiesAlone(cst.CSTTransformer):
    def __init__(self, ignoring: set):
        super().__init__()
        self.ignoring = ignoring

    def leave_With(self, original: cst.With, updated: cst.With):
        if _manager_of(updated) in self.ignoring and isinstance(updated.body, cst.IndentedBlock):
            return cst.FlattenSentinel(updated.body.body)
        return updated

    def leave_SimpleStatementLine(self, original, updated: cst.SimpleStatementLine):
        kept = [s for s in updated.body if not (isinstance(s, cst.Assign) and len(s.targets) == 1
                                                and isinstance(s.targets[0].target, cst.Name)
                                                and s.targets[0].target.value in self.ignoring)]
        if len(kept) == len(updated.body):
            return updated
        return updated.with_changes(body=kept) if kept else cst.RemoveFromParent()
