"""A module whose own function is named ``abs``: compiled code must call it, not Python's
(tests/test_compiled_ml_programs.py)."""
import numpy as np


def abs(x):  # noqa: A001 (the point: a user's function shadowing the builtin)
    return x * x


def scaled_by_own_abs(w, c):
    return np.sum(w * abs(c))
