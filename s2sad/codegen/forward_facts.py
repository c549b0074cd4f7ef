"""What forward mode knows of each tangent variable as the code is written.

For each variable: whether its tangent variable holds a value (``tangents``), and what is
known of that value when the code runs: it may be ZERO, it stands for an array rather than
a number written in the source, it is a container some items of which may be ZERO. Rules
are never handed a symbolic zero, so what may be ZERO is guarded where it is read.
"""
from __future__ import annotations

from ..frontend.ir import Var

# What the generator knows of a tangent variable's value when the code runs (sets of variables):
ZERO_FLAG = "zero"       # it may be ZERO
SHAPED_FLAG = "shaped"   # ... standing for an array, not for a number written in the source (`total = 0.0`)
ITEMS_FLAG = "items"     # it is a container some items of which may be ZERO
FLAGS = (ZERO_FLAG, SHAPED_FLAG, ITEMS_FLAG)


class TangentFacts:
    def __init__(self, derivative):
        self.derivative = derivative           # variable -> its tangent variable's name
        self.tangents: set[str] = set()        # variables whose tangent variable holds a value
        self.flags: dict[str, set[str]] = {flag: set() for flag in FLAGS}   # ... what is known of that value
        self.numbers: set[str] = set()         # variables holding a number written in the source
        # tuples built here and assigned once: per item, whether it has a tangent, whether that
        # may be ZERO, and whether its items may be (what unpacking or indexing them reads is known)
        self.static_items: dict[str, dict[int, tuple[bool, bool, bool]]] = {}
        self.flag_log: set[tuple[str, str]] = set()   # every (flag, name) set so far: what a loop's body left

    def tangent_of(self, atom) -> str:
        """The tangent of an atom as code: its tangent variable, or ZERO."""
        if isinstance(atom, Var) and atom.name in self.tangents:
            return self.derivative(atom.name)
        return "ZERO"

    def has_tangent(self, atom) -> bool:
        return isinstance(atom, Var) and atom.name in self.tangents

    @property
    def zero_tangents(self) -> set[str]:
        return self.flags[ZERO_FLAG]

    @property
    def zero_items(self) -> set[str]:
        return self.flags[ITEMS_FLAG]

    def may_be_zero(self, atom) -> bool:
        return self.has_tangent(atom) and atom.name in self.zero_tangents

    def items_may_be_zero(self, atom) -> bool:
        """Whether an item read from the tangent of ``atom`` may be ZERO (all of a ZERO's are)."""
        return self.has_tangent(atom) and (atom.name in self.zero_tangents or atom.name in self.zero_items)

    def flag(self, name: str, maybe_zero: bool, zero_items: bool, shaped: bool = True) -> None:
        """``name``'s tangent variable is assigned: whether the value may be ZERO (standing for
        an array, unless ``shaped`` is false), or hold ZERO items."""
        self.tangents.add(name)
        for flag, flagged in ((ZERO_FLAG, maybe_zero), (SHAPED_FLAG, maybe_zero and shaped), (ITEMS_FLAG, zero_items)):
            if flagged:
                self.flags[flag].add(name)
                self.flag_log.add((flag, name))
            else:
                self.flags[flag].discard(name)

    def static_item(self, container, key):
        """``(has a tangent, may be ZERO, items may be ZERO)`` of item ``key`` of a tuple built in
        this function, or None when that is not known here."""
        if not isinstance(container, Var) or not isinstance(key, int) or isinstance(key, bool):
            return None
        items = self.static_items.get(container.name)
        if items is None:
            return None
        return items.get(key if key >= 0 else key + len(items))

    def copy_of_flags(self) -> dict[str, set[str]]:
        return {flag: set(names) for flag, names in self.flags.items()}
