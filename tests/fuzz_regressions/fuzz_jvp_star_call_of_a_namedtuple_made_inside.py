"""Fuzz regression: forward mode through ``dense(x, *layer)`` of a namedtuple made inside ``f``.

The tangent of a namedtuple made in forward code is a structural ``Tangent``; ``*layer``
becomes ``tuple(layer)``, whose forward rule was ``tuple(g)``: TypeError "a Tangent is not
iterable" from ``jvp``. (A namedtuple given as an argument has a namedtuple tangent and
worked.)

Found by the fuzzer's structured-parameter idioms (``namedtuple-keyword-only-helper``, the
namedtuple made inside; fuzz21), reduced by hand. Fixed: the forward rule of ``list`` and
``tuple`` reads a ``Tangent`` field by field (rules/builtins.py, ``sequence_jvp``).
"""
import collections
import math

import numpy as np

CATEGORY = "forward-exception"
FEATURES = ("namedtuple-keyword-only-helper",)
OUTPUT = "S"
DIRECTION_SEED = 0

Linear = collections.namedtuple("Linear", ["W", "b"])


def dense(x, W, b, *, act=np.tanh, scale=1.0):
    return act(W @ x + b) * scale


def f(x, s):
    layer = Linear(np.outer(np.cos(x[:2]), x), np.tanh(x[:2]) * s)
    return np.sum(dense(x, *layer, act=np.sin))


def inputs():
    return (np.array([0.3, -0.7, 1.1]), 0.4)
