"""Python language features in differentiated code: user classes, dataclasses, namedtuples, dicts of
parameters, helper calls with defaults, keywords, *args and **kwargs, recursion, unpacking."""
import numpy as np
from dataclasses import dataclass
from collections import namedtuple

@dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    def apply(self, x):
        return np.tanh(self.W @ x + self.b)

Pair = namedtuple("Pair", "a b")

def helper(x, scale=2.0, *, shift=0.0):
    return x * scale + shift

def uses_helper(x):
    return np.sum(helper(x, shift=1.0) + helper(x, 3.0))

def varargs_helper(*xs):
    total = 0.0
    for v in xs:
        total = total + np.sum(v)
    return total

def uses_varargs(x, y):
    return varargs_helper(x, y * 2.0)

def fact_like(x, n):
    if n == 0:
        return 1.0
    return x * fact_like(x, n - 1)

def layer_loss(layer, x):
    return np.sum(layer.apply(x) ** 2)

def dataclass_fields(layer, x):
    return np.sum((layer.W @ x + layer.b) ** 2)

def namedtuple_loss(p):
    return np.sum(p.a * p.b)

def dict_loss(params, x):
    h = np.tanh(params["W1"] @ x)
    return np.sum((params["W2"] @ h) ** 2)

def tuple_return(x):
    return x * 2.0, np.sum(x)

def uses_tuple_return(x):
    a, s = tuple_return(x)
    return np.sum(a) * s

def nested_unpack(x):
    (a, b), c = (x, x * 2.0), x * 3.0
    return np.sum(a * b * c)

def list_append(x):
    values = []
    for i in range(3):
        values.append(x * i)
    return np.sum(values[1] + values[2])

def star_unpack(x):
    first, *rest = [x, x * 2.0, x * 3.0]
    return np.sum(first * rest[1])


def list_unpacked_and_indexed(x):
    # a list's item read both ways: the two cotangents of `parts` add up (a tuple and a list did not)
    parts = np.split(x, 2)
    a, b = parts
    return np.sum(a * b) + np.sum(parts[0] ** 2)


def parameters_unpacked_and_indexed(params):
    W, b = params
    return np.sum(W * params[0]) + np.sum(b * params[1])


# ---------------------------------------------------------------- bodies written on the header's line
def cube(x): return np.sum(x ** 3)


def two_statements(x): y = np.sin(x) * 2.0; return np.sum(y * x)


def one_line_branches_and_loops(x, n):
    y = x
    if np.sum(x) > 0: y = x * 2.0
    else: y = -x
    for i in range(n): y = y * x
    while n > 2: n = n - 1; y = y + x
    return np.sum(y)


def calls_a_one_line_helper(x):
    def scaled(v): return 3.0 * v
    return np.sum(scaled(x) ** 2)


def one_line_del(x): y = [x]; del y[0:]; return x
