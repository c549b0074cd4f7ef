"""Functions with branches, while loops, jumps and the iteration forms, for test_control_flow.py."""
import numpy as np

def relu_sum(x, w):
    if np.sum(x) > 0:
        y = x * w
    else:
        y = -x
    return np.sum(y ** 2)

def early_return(x):
    if x > 1.0:
        return x * x
    y = np.sin(x)
    return y * 3.0

def elif_chain(x):
    if x > 1.0:
        y = x ** 3
    elif x > 0.0:
        y = x * 2.0
    else:
        y = np.exp(x)
    return y

def loop_with_branch(x):
    total = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            total = total + x[i] ** 2
        else:
            total = total - x[i]
    return total

def loop_with_continue(x):
    total = 0.0
    for i in range(len(x)):
        if x[i] < 0:
            continue
        v = x[i] * 3.0
        total = total + v * v
    return total

def loop_with_break(x):
    total = 0.0
    for i in range(len(x)):
        total = total + np.sin(x[i])
        if total > 1.0:
            break
        total = total * 1.5
    return total

def newton_sqrt(a):
    x = a
    while np.abs(x * x - a) > 1e-10:
        x = 0.5 * (x + a / x)
    return x

def while_count(x):
    i = 0
    y = x
    while i < 5:
        y = y * np.cos(y)
        i = i + 1
    return y

def enumerate_zip(xs, ys):
    total = 0.0
    for i, (a, b) in enumerate(zip(xs, ys)):
        total = total + (i + 1) * np.sum(a * b)
    return total

def dict_items(params, x):
    total = 0.0
    for name, value in params.items():
        total = total + np.sum(value * x)
    return total

def ifexp(x):
    y = x * 2.0 if x > 0 else -x
    return y * y

def boolean_ops(x, y):
    if x > 0 and y > 0:
        return x * y
    return x + y


def nested_loops_with_break(A):
    total = 0.0
    for row in A:
        for value in row:
            if value > 1.0:
                break
            total = total + value ** 2
    return total


def while_with_continue(x):
    k = 0
    y = 0.0
    while k < 6:
        k = k + 1
        if k % 2 == 0:
            continue
        y = y + np.sin(x * k)
    return y


def values_of_dict(params):
    total = 0.0
    for value in params.values():
        total = total + np.sum(value ** 2)
    return total


def or_default(x, scale):
    factor = scale or 1.0
    return np.sum(x * factor)


def branch_in_loop_only_one_side_assigns(x):
    y = x
    for i in range(4):
        if i % 2 == 0:
            y = y * x
    return np.sum(y)


def not_condition(x):
    if not x > 0:
        x = -x
    return x ** 3


def safe_log(x):
    return np.log(x) if x > 0 else 2.0 * x


def first_large(x):
    for i in range(len(x)):
        if x[i] > 1.0:
            return x[i] ** 2
    return np.sum(x)


def return_from_nested_loops(A):
    total = 0.0
    for row in A:
        for value in row:
            total = total + np.sin(value)
            if total > 1.5:
                return total * 2.0
    return total


def conv1d(x, w):
    n = len(x) - len(w) + 1
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.sum(x[i:i + len(w)] * w)
    return np.sum(out ** 2)


def copy_then_set(x):
    y = x.copy()
    y[0] = 0.0
    y[1:3] += x[0] * 2.0
    return np.sum(y * y)


def read_then_overwrite(x):
    y = x * 2.0
    s = np.sum(y ** 2)
    y[0] = 5.0
    return s + np.sum(y * x)


def list_append(x):
    values = []
    for i in range(3):
        values.append(x * i)
    return np.sum(values[1] + values[2] * values[1])


def list_pop(x):
    values = [x, x * 2.0, np.sin(x)]
    last = values.pop()
    first = values.pop(0)
    return np.sum(last * first + values[0])


def list_extend_and_set(x):
    values = [x]
    values.extend([x * 2.0, x * 3.0])
    values[1] = np.cos(x)
    return np.sum(values[0] * values[1] * values[2])


def dict_assign(x):
    d = {"a": x}
    d["b"] = x * 3.0
    d["a"] = d["a"] + d["b"]
    return np.sum(d["a"] * d["b"])


def mutates_argument(x):
    x[0] = 1.0
    return np.sum(x)


def comprehension_sum(xs, w):
    return sum(np.sum(np.tanh(w * x)) for x in xs)


def list_comprehension_with_condition(x):
    squares = [x[i] ** 2 for i in range(len(x)) if i % 2 == 0]
    return np.sum(np.array(squares)) + len(squares)


def nested_comprehension(A):
    products = [np.sum(a * b) for a in A for b in A[0]]
    return sum(products)


def dict_comprehension(x):
    scaled = {k: x * k for k in (1.0, 2.0, 3.0)}
    return np.sum(scaled[2.0] * scaled[3.0])


def comprehension_variable_does_not_leak(x):
    v = x * 2.0
    values = [v * 3.0 for v in (x, x * x)]
    return np.sum(v * values[1])


def nested_function_closure(x, W):
    scale = np.sum(x)

    def layer(h, bias=0.5):
        z = W @ h * scale + bias
        if np.sum(z) > 0:
            return np.tanh(z)
        return z * 0.5

    return np.sum(layer(layer(x)) ** 2)


def lambda_closure(x):
    k = np.cos(x)
    f = lambda v: v * k + 1.0
    return np.sum(f(x) * f(2.0 * x))


def nested_function_with_loop(xs):
    def total(values):
        acc = 0.0
        for v in values:
            acc = acc + np.sum(v ** 2)
        return acc

    return total(xs) + total([xs[0]])


def weighted_total(scale, *values, offset=0.0, **named):
    total = offset
    for v in values:
        total = total + scale * np.sum(v ** 2)
    for key, v in named.items():
        total = total + np.sum(np.sin(v))
    return total


def calls_varargs(x, y):
    return weighted_total(2.0, x, y * 3.0, offset=1.0, extra=x * y)


# A helper whose pullback undoes its in-place change (it runs once per primal call), called
# in four ways a caller does not mark its own pullback for: through a value, an object's
# __call__, a method, a `*` call. sum(y * y) with y = x, y[0] = x[0] ** 2.
def squares_after_overwrite(x):
    y = x * 1.0
    y[0] = y[0] ** 2
    return np.sum(y * y)


class SquaresAfterOverwrite:
    def __call__(self, x):
        return squares_after_overwrite(x * 1.0)

    def total(self, x):
        y = x * 1.0
        y[0] = y[0] ** 2
        return np.sum(y * y)


def overwrite_through_a_list(x):
    functions = [squares_after_overwrite, np.sum]
    return functions[0](x)


def overwrite_through_an_object(x):
    return SquaresAfterOverwrite()(x)


def overwrite_through_a_method(x):
    return SquaresAfterOverwrite().total(x)


def overwrite_through_a_star_call(x):
    arguments = (x,)
    return squares_after_overwrite(*arguments)
