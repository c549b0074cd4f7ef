"""hvp left the caller's array as it was where the function writes into it.

``np.multiply(x, 0.5, out=x)`` on an argument changes the caller's ``x``, and s2sad's
value_and_grad, vjp and jvp leave that change as Python does; hvp ran the generated forward
code under vjp, whose write-back went to vjp's copies only, so the caller's ``x`` was left
unchanged (the gradient and the product were right). Found by the session-14 idiom
``argument-out`` run alone through the oracle, which now compares each call's arguments with
what ``f`` itself leaves in them; fixed in ``api._write_back`` (a generated function's own
``WRITES_BACK_ARGUMENTS``).
"""
import numpy as np

CATEGORY = "input-mutated"
FEATURES = ('np.multiply', 'np.sin')
OUTPUT = 'S'
DIRECTION_SEED = 0


def f(x, s):
    np.multiply(x, 0.5, out=x)
    return np.sum(np.sin(x) * x) * s


def inputs():
    return (np.array([0.31, -0.72, 1.13]), 0.43,)
