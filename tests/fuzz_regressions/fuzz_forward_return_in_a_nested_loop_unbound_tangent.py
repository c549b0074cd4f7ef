"""Fuzz regression: forward mode left the result's tangent unbound on a path through loops with returns.

Found by tests/fuzz and shrunk by hypothesis. What the oracle reported:

    UnboundLocalError (raised in jacobians.py:jvp): cannot access local variable 'dresult' where it is not associated with a value

The ``while`` loop may return (the primal result starts as None before it, and its ``break``
copies the result out) but here it ends without returning. Only the ``break`` wrote the
result's tangent, so nothing bound it on the way out through the loop's test; the double loop
after it copies the result and its tangent into its own names before it starts, and read the
unbound ``dresult``. Forward mode now sets to ZERO, before a loop, the tangent of every
variable the loop's ``break``s write (``tangent_flow.left_by_breaks``). Reduced by hand to
``reduced_from_the_fuzz_regression`` in tests/test_returns_in_loops.py.
"""
import math

import numpy as np

CATEGORY = "forward-exception:UnboundLocalError:cannot access local variable '<name>' where it is not associated with a value"
FEATURES = ('add', 'and', 'break-in-loop', 'conditional-expression', 'div', 'fill-array', 'for-enumerate', 'for-range', 'helper', 'helper-call', 'helper-unused-parameter', 'if', 'if-without-else', 'index', 'lambda', 'list-literal', 'matmul', 'mul', 'ndarray.expit', 'neg', 'nested-def', 'not', 'np.add', 'np.arctan2', 'np.array', 'np.cos', 'np.dot', 'np.mean', 'np.multiply', 'np.ones', 'np.power', 'np.reshape', 'np.sin', 'np.sinh', 'np.sqrt', 'np.subtract', 'np.sum', 'np.tanh', 'np.trace', 'np.true_divide', 'np.where', 'np.zeros_like', 'pos', 'pow', 'pow-var', 'return-in-loop', 'setitem', 'slice', 'sub', 'transpose', 'tuple', 'tuple-unpack', 'while', 'while-float-condition')
OUTPUT = 'C'
DIRECTION_SEED = 16384
import math
import numpy as np
import scipy.special

def helper(h0, h1):
    return np.add(h1, h1[0])[:, None] * (+np.array([0.5, -1.0, 1.5]))[None, :]

def f(x, A, B):
    acc1 = np.where(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]) > 0.0, B, B)
    v5 = helper(-0.3 * np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]), np.subtract(np.dot(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]), x), np.array([1.0, -0.5])))
    p6 = (np.sum(B, axis=1), v5 @ np.array([0.5, -1.0, 1.5]) / (1.0 + 1.5 ** 2))
    v7, v8 = p6
    y9 = np.zeros_like(np.array([0.5, -1.0, 1.5]))
    y9[0] = np.multiply(np.sum(np.sum(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]) * x, axis=1, keepdims=True)), 1.5 - np.trace(v5 @ np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]).T))
    k11 = 0
    while k11 < 1 and (1.5 + np.sin(np.sum(v5))) ** np.sum(y9) > 0.5:
        t13 = (1.5 + np.sin(x)) ** x
        v12 = t13 * (t13 > 0.25)

        def g16(z, k=2.0):
            return np.tanh(z * k) + 0.5 * z
        v17 = g16(scipy.special.expit(v8))
        if 0.7 > 0.5:
            return 2.0 * np.sum(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]) * np.power(1.5 + np.sin(x), v8[0]), axis=1, keepdims=True) + np.sum(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]) * v12, axis=1, keepdims=True) + np.reshape(v17, (2, 1)) + np.dot(y9, np.array([0.5, -1.0, 1.5])) / (2.0 + np.cos(np.sum(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]) * v12, axis=1, keepdims=True)))
    for j22, e21 in enumerate(y9):
        acc23 = np.power(1.5 + np.sin(v8), e21)
        for i24 in range(1):
            if not np.mean(y9) > 0.5:
                return np.sum(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]) * (v5.T @ acc23), axis=1, keepdims=True) + 2.0 * (e21 * np.array([[0.5], [-1.5]])) + np.reshape(acc23, (2, 1)) + np.arctan2(e21, 1.5 + np.ones((2, 1)) ** 2)
            g25 = lambda z: np.sin(z) * e21 + z ** 2
            v26 = g25(np.true_divide(x, 1.0 + e21 ** 2))
            v27 = np.dot(A, np.sinh(np.tanh(v26)))
            v8 = np.tanh(v8 * acc1[:, 0])
            acc23 = np.mean(acc1, axis=-1) - 0.25 * acc23
    for j35, row34 in enumerate(v5):
        v36 = helper(np.power(1.5 + np.sin(acc33), acc1), np.true_divide(v7, 1.0 + v7 ** 2))
        v37 = np.sin(np.sum(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]) * x, axis=1, keepdims=True)) if acc33 - acc33 > -0.5 else np.sum(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]) * y9, axis=1, keepdims=True)
        v7 = v7 + v8 / (1.0 + acc33 ** 2) / (1.0 + v7 ** 2)
        acc33 = np.tanh(acc33 * np.add(1.5, acc33))
        if not np.sum(v37) > 0.0:
            break
    return 2.0 * v8[:, None] + 0.5 * np.sum(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]) * y9, axis=1, keepdims=True) + 0.5 * (acc33 * np.array([[0.5], [-1.5]])) + 0.5 * np.sqrt(1.0 + np.sum(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]) * x, axis=1, keepdims=True) ** 2)


def inputs():
    return (np.array([-1.1, 0.4, -0.1]), np.array([[-0.9, -0.6, -0.4], [0.0, -1.2, -0.3]]), np.array([[-1.5, 1.5, -0.7], [-0.2, 0.7, -0.3]]),)
