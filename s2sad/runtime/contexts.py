"""Context managers around differentiated code, held to what s2sad differentiates.

Generated code runs a ``with`` block's primal inside the user's manager, as written, and
differentiates the block as a path always taken to its end. A manager that swallows an
exception (``contextlib.suppress``, a user's ``__exit__`` returning True) would end the block
early and go on after it, a path s2sad has not differentiated: that is refused as it happens.
"""
from __future__ import annotations

from ..errors import UnsupportedSyntaxError


class unsuppressed:
    """``with unsuppressed(manager, "file:line"):``: ``with manager:``, except that an exception
    the manager would swallow is refused instead, naming the ``with`` at ``where``."""

    __slots__ = ("manager", "where")

    def __init__(self, manager, where: str):
        self.manager, self.where = manager, where

    def __enter__(self):
        return self.manager.__enter__()

    def __exit__(self, kind, value, traceback):
        if not self.manager.__exit__(kind, value, traceback) or kind is None:
            return False
        raise UnsupportedSyntaxError(
            f"{kind.__name__}: {value} was raised inside the `with` at {self.where}, and its context manager "
            "swallowed it: s2sad differentiates a `with` block run to its end, not one left part way",
            hint="test the condition before the `with`, so that each path runs to its end") from value
