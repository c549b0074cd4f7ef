"""Functions the fence must refuse. Each offending line is marked with `# refused: <what>`."""
import numpy as np


def uses_attribute_assignment(x):
    holder = Holder()
    holder.inner.value = x  # refused: nested attribute assignment
    return holder.value


class Holder:
    value = 0.0


def uses_for_else(x):
    total = 0.0
    for i in range(3):
        total = total + x
    else:  # refused: for-else
        total = total * 2.0
    return total


def uses_while_else(x):
    while x < 1.0:
        x = x * 2.0
    else:  # refused: while-else
        x = x + 1.0
    return x


def uses_yield(x):
    y = yield x * 2  # refused: yield
    return y


def uses_try(x):
    y = x
    try:  # refused: try
        y = np.log(x)
    except* ValueError:
        pass
    return y


def uses_with(x):
    with open("f") as handle.name:  # refused: with
        return x


def uses_global(x):
    global SOMETHING  # refused: global
    return x


def uses_del(x):
    y = x * 2
    del y  # refused: del
    return x


def mutates_nested_element(x):
    y = x * 2
    y[0][1] = 1.0  # refused: nested subscript assignment
    return y.sum()


def uses_set_comprehension(x):
    return len({v for v in x})  # refused: set comprehension


def uses_chained_comparison(x):
    return x * (0.0 < x < 1.0)  # refused: chained comparison


def uses_walrus(x):
    return (y := x * 2) + y  # refused: walrus


def uses_recursive_nested_def(x):
    def inner(v, n):
        return v if n == 0 else inner(v * 2.0, n - 1)  # refused: recursive nested def
    return inner(x, 3)


async def uses_async(x):  # refused: async
    return x


def uses_undefined_name(x):
    return np.sin(x) * not_defined_anywhere  # refused: undefined


def uses_unknown_attribute(x):
    return np.no_such_function(x)  # refused: unresolvable
