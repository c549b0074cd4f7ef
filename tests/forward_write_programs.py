"""Programs writing into an array whose tangent a rule handed on unchanged from another array
(test_forward_writes.py): `z = y + 1.0` has y's tangent, and forward code wrote z's change into it."""
import numpy as np


def after_adding_a_constant(x):
    y = x * 1.0
    z = y + 1.0
    z[0] = 10.0
    return np.sum(y * z) + np.sum(y ** 2)


def after_subtracting_a_constant(x):
    y = x * 1.0
    z = np.subtract(y, 1.0)
    z[0] = 10.0
    return np.sum(y * z) + np.sum(y ** 2)


def after_adding_zeros(x):
    y = x * 1.0
    z = y + np.zeros(3)
    z[0] = 10.0
    return np.sum(y * z) + np.sum(y ** 2)


def after_taking_the_real_part(x):
    y = x * 1.0
    z = y.real + 0
    z[0] = 10.0
    return np.sum(y * z) + np.sum(y ** 2)


def after_a_squeeze(x):
    y = x * 1.0
    z = np.squeeze(y[None]) + 0
    z[0] = 10.0
    return np.sum(y * z) + np.sum(y ** 2)


def after_or(x):
    y = x * 1.0
    z = (None or y) + 0.0
    z[0] = 10.0
    return np.sum(y * z) + np.sum(y ** 2)


def written_before_and_after(x):
    y = x * 1.0
    y[1] = y[0] * 3.0
    z = y + 1.0
    z[0] = 10.0
    return np.sum(y * z) + np.sum(y ** 2)


def written_in_loops(x):
    y = np.zeros(4)
    for i in range(4):
        y[i] = x[i % 3] * i
    z = y - 0.0
    for i in range(4):
        z[i] = z[i] ** 2
    return np.sum(y) + np.sum(z * y)


def an_einsum_view_written(x):
    y = x * 1.0
    z = np.einsum("i->i", y)  # NumPy hands back a view of y
    z[0] = 10.0
    return np.sum(y * z)


def writes_its_argument(x):
    x[0] = x[1] * 2.0
    return np.sum(x ** 2)


def a_joined_list_written(x):
    a = [x[0] * 1.0, x[1] * 1.0, x[2] * 1.0]
    b = a + []
    b[0] = 7.0 * b[2]
    return a[0] * b[1] + b[0] * a[2] + a[0] ** 2


def a_sorted_list_written(x):
    a = [x[0] * 1.0, x[1] * 1.0, x[2] * 1.0]
    b = sorted(a, key=lambda v: 0)
    b[0] = 7.0 * b[2]
    return a[0] * b[1] + b[0] * a[2] + a[0] ** 2
