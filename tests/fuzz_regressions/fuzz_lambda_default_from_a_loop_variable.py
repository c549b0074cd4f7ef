"""Fuzz regression: a lambda made in a loop with ``k=k`` (the late-binding idiom), kept in a list.

``fs = [(lambda z, k=k: z * k) for k in (s, 2.0 * s)]; sum(g(x) for g in fs)``: a lambda used as
a value is written into the generated code as the user wrote it, and its default ``k=k`` was
read there as a plain value: its derivative was lost. Gradient in ``s``: s2sad 0.0, central
differences 2.1 (= 3 * sum(x)); jvp 0.9 against 1.95. A WRONG NUMBER, no error. (Reading ``k``
in the body instead is refused: the lambda would read its value when called. A lambda called
where it is made, ``g = lambda z, k=s: z * k; g(x)``, is written out there and was right.)

Found by hand while the session-15 structure families ran (closures from factories, lambdas in
containers), then made an idiom (``lambda-defaults-bound-in-a-loop``). Fixed: a lambda used as a
value whose default reads a variable of the function is refused at its line
(s2sad/frontend/normalize_expressions.py, ``lambda_value``; ``names_read_in_defaults``).
"""
import math

import numpy as np

CATEGORY = "grad-mismatch"
FEATURES = ("lambda", "list-comprehension")
OUTPUT = "S"
DIRECTION_SEED = 0


def f(x, s):
    fs = [(lambda z, k=k: z * k) for k in (s, 2.0 * s)]
    return np.sum(sum(g(x) for g in fs))


def inputs():
    return (np.array([0.3, -0.7, 1.1]), 0.4)
