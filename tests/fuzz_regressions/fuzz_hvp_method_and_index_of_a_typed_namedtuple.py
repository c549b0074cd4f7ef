"""Fuzz regression: hvp of a typing.NamedTuple made inside ``f``, read by a method and by position.

``t = Interval(s, 2 * s); t.width() * t[0]``: in hvp (reverse mode over the forward code) the
tangent ``dt`` of ``t`` gets two cotangents: one from ``dt[0]`` (``untake``: a structural
Tangent of ``Interval``, position 0 being the field ``lo``) and one from the method's forward
code reading ``dself.hi`` (a structural Tangent of the class ``Tangent``). Adding them raised
TypeError "cannot add a tangent of Tangent to a tangent of Interval"; grad and jvp were right.

Found by the session-15 idiom ``typed-namedtuple-method`` (family classes-and-records), reduced
by hand. Fixed: ``Tangent.__add__`` adds the two kinds of one tangent value's cotangent (the
same fields), as the primal's kind (s2sad/runtime/tangents.py, ``_one_tangent_values_kind``).
hvp along s: f = s ** 3 + s, so 6 s v (2.4 at s = 0.4, v = 1).
"""
import math
import typing

import numpy as np

CATEGORY = "second-exception"
FEATURES = ("typed-namedtuple-method",)
OUTPUT = "S"
DIRECTION_SEED = 0


class Interval(typing.NamedTuple):
    lo: object
    hi: object

    def width(self):
        return (self.hi - self.lo) ** 2 + 1.0


def f(x, s):
    t = Interval(s, s * 2.0)
    return t.width() * t[0] + np.sum(np.sin(x)) * 0.0


def inputs():
    return (np.array([0.3, -0.7, 1.1]), 0.4)
