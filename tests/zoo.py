"""Small straight-line programs of the kind users write, each with inputs and argnums.

test_end_to_end.py checks every one against central finite differences.
"""
import numpy as np

SCALE = 3.0


class Settings:
    offset = 0.5


SETTINGS = Settings()


def scalar_expression(x, y):
    return np.sin(x) * y + x ** 2 / y + np.exp(-x * y)


def mlp_loss(W1, W2, X, y):
    hidden = np.tanh(X @ W1)
    prediction = hidden @ W2
    return np.mean((prediction - y) ** 2)


def broadcast_bias(W, b, X):
    z = X @ W + b
    return np.sum(z * z)


def reuse(x):
    return np.sum(x * x + x)


def reassignment(x):
    h = x
    h = h * 2.0
    h = np.sin(h)
    h = h + x
    return h.sum()


def methods_and_attributes(A, x):
    y = A.T @ x
    return y.dot(y) + A.sum() + A.mean()


def subscripts(x):
    first = x[0]
    rest = x[1:]
    return first * rest.sum() + x[-1] ** 2


def matrix_subscripts(A):
    return np.sum(A[:, 0] * A[1, :]) + A[0, 1]


def axis_keywords(X):
    column_means = np.mean(X, axis=0)
    row_sums = np.sum(X, axis=1, keepdims=True)
    return np.sum(column_means ** 2) + np.sum(row_sums * X)


def unpacking(x):
    a, b = x[0], x[1]
    c, (d, e) = a * b, (a, b)
    return c + d * e


def elementwise_zoo(x):
    return np.sum(np.sqrt(x) + np.log(x) + np.tan(x) + np.cos(x) + np.abs(x - 1.0))


def global_constant(x):
    return np.sum(x * SCALE)


def global_object_attribute(x):
    return np.sum((x + SETTINGS.offset) ** 2)


def helper(a, b):
    return a * np.tanh(b)


def calls_helper(x, y):
    return np.sum(helper(x, y) + helper(y, 2.0))


def helper_with_keyword(a, scale=2.0):
    return a * scale


def calls_helper_with_keyword(x):
    return np.sum(helper_with_keyword(x, scale=3.0) + helper_with_keyword(x))


def tuple_output(x, y):
    return np.sum(x * y), np.sum(x + y)


def unary_minus_and_division(x, y):
    return np.sum(-x / y + 1.0 / (x * x + 1.0))


def dot_products(u, v, M):
    return np.dot(u, M @ v) + np.dot(u, v) + np.sum(np.matmul(M, M) @ v)


def constant_argument(x, n):
    return np.sum(x ** n) + n


def float_scalar_chain(x):
    y = x * x
    z = y * x - 2.0 * y
    return z / (1.0 + y)


def many_element_reads(x):
    first = x[0] * 2.0 + x[1]
    return first * x[2] + x[3] * x[3] + x[0]


def _rng():
    return np.random.default_rng(12345)


def _positive(shape):
    return _rng().uniform(0.5, 1.5, size=shape)


def _normal(shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape)


# name -> (function, args, argnums)
PROGRAMS = {
    "scalar_expression": (scalar_expression, (0.7, 1.3), (0, 1)),
    "mlp_loss": (mlp_loss, (_normal((6, 8), 1) * 0.3, _normal((8, 2), 2) * 0.3, _normal((5, 6), 3), _normal((5, 2), 4)), (0, 1)),
    "broadcast_bias": (broadcast_bias, (_normal((4, 3), 1), _normal(3, 2), _normal((5, 4), 3)), (0, 1)),
    "reuse": (reuse, (_normal(5, 1),), (0,)),
    "reassignment": (reassignment, (_normal(4, 2),), (0,)),
    "methods_and_attributes": (methods_and_attributes, (_normal((3, 4), 1), _normal(3, 2)), (0, 1)),
    "subscripts": (subscripts, (_normal(5, 3),), (0,)),
    "matrix_subscripts": (matrix_subscripts, (_normal((3, 3), 4),), (0,)),
    "axis_keywords": (axis_keywords, (_normal((4, 3), 5),), (0,)),
    "unpacking": (unpacking, (_normal(3, 6),), (0,)),
    "elementwise_zoo": (elementwise_zoo, (_positive(6),), (0,)),
    "global_constant": (global_constant, (_normal(4, 7),), (0,)),
    "global_object_attribute": (global_object_attribute, (_normal(4, 16),), (0,)),
    "calls_helper": (calls_helper, (_normal(3, 8), _normal(3, 9)), (0, 1)),
    "calls_helper_with_keyword": (calls_helper_with_keyword, (_normal(3, 10),), (0,)),
    "unary_minus_and_division": (unary_minus_and_division, (_normal(4, 11), _positive(4)), (0, 1)),
    "dot_products": (dot_products, (_normal(3, 12), _normal(3, 13), _normal((3, 3), 14)), (0, 1, 2)),
    "constant_argument": (constant_argument, (_positive(3), 3), (0,)),
    "float_scalar_chain": (float_scalar_chain, (0.8,), (0,)),
    "many_element_reads": (many_element_reads, (_normal(5, 15),), (0,)),
}
