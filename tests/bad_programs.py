"""Functions the fence must refuse. Each offending line is marked with `# refused: <what>`."""
import numpy as np


def uses_attribute_assignment(x):
    holder = Holder()
    holder.inner.value = x  # refused: nested attribute assignment
    return holder.value


class Holder:
    value = 0.0


def uses_walrus_after_and(x):
    if x > 0.0 and (y := x * 2.0) > 1.0:  # refused: walrus after and
        return y
    return x


def uses_walrus_in_a_conditional_expression(x):
    return (y := x * 2.0) if x > 0.0 else -x  # refused: walrus in a conditional expression


def uses_walrus_in_a_comprehension(x):
    return sum([(y := x * k) for k in range(3)])  # refused: walrus in a comprehension


def uses_walrus_not_first_in_the_test(x):
    if x < (y := x * 2.0):  # refused: walrus not first
        return y
    return x


def uses_nonlocal_in_a_branch(x):
    total = 0.0

    def add(v):
        if v > 0.0:
            nonlocal total  # refused: nonlocal in a branch
            total = total + v
    add(x)
    return total


def _closure_over_total():
    total = 1.0

    def uses_nonlocal_in_the_function_itself(x):
        nonlocal total  # refused: nonlocal in the differentiated function
        total = total * x
        return total
    return uses_nonlocal_in_the_function_itself


uses_nonlocal_in_the_function_itself = _closure_over_total()


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
    y = [x, x * 2]
    del y[1:]  # refused: del of a slice
    return x


def mutates_nested_element(x):
    y = x * 2
    y[0][1] = 1.0  # raises as Python does (y[0] is a float): tests/test_nested_element_writes.py
    return y.sum()


def uses_set_comprehension(x):
    return len({v for v in x})  # refused: set comprehension


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
