"""Programs where a value is changed by an effect: methods changing their object, closures,
views and aliases, library calls with state (tests/test_effect_programs.py). Each takes float64
arrays and returns a float; several change their arguments in place, as users' code does."""
import bisect
import collections
import copy
import dataclasses
import functools
import heapq
import random
import operator

import numpy as np
import numpy.random as npr
from numpy.random import randn as standard_draws


# ---------------------------------------------------------------- 1. objects

class Accumulator:
    def __init__(self, start):
        self.total = start * 1.0

    def add(self, value):
        self.total += value          # in place on the array field
        return self

    def scaled(self, k):
        self.total = self.total * k  # rebinding the field
        return self


def method_in_place_chained(x, y):
    acc = Accumulator(x)
    acc = acc.add(y).add(x * y)
    return float(np.sum(acc.total ** 2))


def method_rebinding_then_read(x, y):
    acc = Accumulator(x)
    acc = acc.scaled(3.0)
    acc = acc.add(y)
    return float(np.sum(np.sin(acc.total)))


class Box:
    def __init__(self, w):
        self.w = w


def setattr_field(x, y):
    box = Box(x)
    setattr(box, "w", box.w * y)
    return float(np.sum(box.w ** 2))


def dict_of_object(x, y):
    box = Box(x * 1.0)
    box.__dict__["w"] = box.w + y
    return float(np.sum(box.w * x))


class Scaled:
    def __init__(self, base):
        self._base = base
        self._k = 1.0

    @property
    def k(self):
        return self._k

    @k.setter
    def k(self, value):
        self._k = value

    @property
    def value(self):
        return self._base * self._k


def property_setter(x, y):
    s = Scaled(x)
    s.k = np.sum(y)
    return float(np.sum(s.value ** 2))


class Vec:
    def __init__(self, data):
        self.data = data

    def __iadd__(self, other):
        self.data = self.data + other.data
        return self


def user_iadd(x, y):
    v = Vec(x)
    v += Vec(y)
    v += Vec(x * y)
    return float(np.sum(v.data ** 2))


def objects_in_a_list_changed_through_one_name(x, y):
    layers = [Box(x * 1.0), Box(y * 1.0)]
    first = layers[0]
    first.w = first.w * y
    return float(sum(np.sum(layer.w ** 2) for layer in layers))


def objects_in_a_list_changed_in_place_through_one_name(x, y):
    layers = [Box(x * 1.0), Box(y * 1.0)]
    first = layers[0]
    first.w *= y
    return float(sum(np.sum(layer.w ** 2) for layer in layers))


def object_in_a_dict_changed(x, y):
    d = {"a": Box(x * 1.0), "b": Box(y)}
    a = d["a"]
    a.w = a.w + d["b"].w
    return float(np.sum(d["a"].w ** 2))


class Config:
    scale = 2.0


def class_attribute_read(x):
    return float(np.sum((x * Config.scale) ** 2))


def shallow_copied_object_written_in_place(x, y):
    box = Box(x * 1.0)
    other = copy.copy(box)
    other.w += y                   # the same array as box.w
    return float(np.sum(box.w ** 2))


def shallow_copied_object_rebound(x, y):
    box = Box(x * 1.0)
    other = copy.copy(box)
    other.w = other.w + y          # box keeps its array
    return float(np.sum(box.w ** 2) + np.sum(other.w))


def deep_copied_object_written_in_place(x, y):
    box = Box(x * 1.0)
    other = copy.deepcopy(box)
    other.w += y
    return float(np.sum(box.w ** 2) + np.sum(other.w ** 3))


@dataclasses.dataclass
class State:
    pos: np.ndarray
    vel: np.ndarray


def dataclass_replace_then_in_place(x, y):
    s = State(x * 1.0, y * 1.0)
    t = dataclasses.replace(s, vel=y * 2.0)
    t.pos += t.vel                 # t.pos is s.pos
    return float(np.sum(s.pos ** 2))


Pair = collections.namedtuple("Pair", "a b")


def namedtuple_replace_then_in_place(x, y):
    p = Pair(x * 1.0, y)
    q = p._replace(b=y * 3.0)
    q.a[0] += q.b[1]               # q.a is p.a
    return float(np.sum(p.a ** 2))


def make_box(x):
    return Box(x * 2.0)


def object_returned_from_helper(x, y):
    box = make_box(x)
    box.w = box.w * y
    return float(np.sum(box.w ** 2))


def grow(box, k):
    box.w = box.w * k


def helper_rebinding_a_field(x, y):
    box = Box(x * 1.0)
    grow(box, y)
    return float(np.sum(box.w ** 2))


def bump(box, v):
    box.w += v


def helper_changing_a_field_in_place(x, y):
    box = Box(x * 1.0)
    bump(box, y)
    return float(np.sum(box.w ** 2))


class RunningSum:
    def __init__(self):
        self.total = 0.0

    def __call__(self, value):
        self.total = self.total + np.sum(value)
        return self.total


def callable_with_state(x, y):
    running = RunningSum()
    a = running(x)
    b = running(y * x)
    return float(a * b + running.total)


class Rows:
    def __init__(self, m):
        self.m = m
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= len(self.m):
            raise StopIteration
        row = self.m[self.i]
        self.i += 1
        return row


def iterator_class(x, y):
    total = 0.0
    for row in Rows(np.outer(x, y)):
        total = total + np.sum(np.tanh(row))
    return float(total)


def generator_with_state(x, y):
    def steps(v):
        acc = v * 1.0
        for _ in range(3):
            acc = acc * y
            yield acc
    return float(sum(np.sum(s) for s in steps(x)))


class Scope:
    def __init__(self, box, k):
        self.box, self.k = box, k

    def __enter__(self):
        self.box.w = self.box.w * self.k
        return self.box

    def __exit__(self, *exc):
        self.box.w = self.box.w + 1.0
        return False


def context_manager_changing_an_object(x, y):
    box = Box(x * 1.0)
    with Scope(box, y) as inside:
        mid = np.sum(inside.w ** 2)
    return float(mid + np.sum(box.w ** 3))


# ---------------------------------------------------------------- 2. closures

def nonlocal_counter(x, y):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + np.sum(v)

    add(x)
    add(x * y)
    return float(total ** 2)


def lambda_sees_a_later_write_in_place(x, y):
    z = y * 1.0
    f = lambda t: t * z
    z *= 3.0
    return float(np.sum(f(x) ** 2))


def lambda_sees_a_later_rebinding(x, y):
    z = y * 1.0
    f = lambda t: t * z
    z = z * x
    return float(np.sum(f(x) ** 2))


def nested_function_sees_a_write_in_place(x, y):
    z = y * 1.0

    def g(t):
        return np.sum(t * z)

    z[0] = x[1] * 2.0
    return float(g(x) ** 2)


def nested_function_writes_a_captured_array(x, y):
    z = y * 1.0

    def g(t):
        z[1] = t[0] * 3.0
        return np.sum(t)

    a = g(x)
    return float(a * np.sum(z ** 2))


def helper_with_a_buffer_default(t, buf=np.zeros(6)):
    buf[:] = t * 2.0
    return buf


def default_buffer_written_into(x, y):
    a = helper_with_a_buffer_default(x)
    first = np.sum(a * y)
    b = helper_with_a_buffer_default(y)
    return float(first + np.sum(a * b))      # a is b: the buffer holds 2y


def partial_holding_a_changed_array(x, y):
    z = y * 1.0
    f = functools.partial(np.multiply, z)
    z += x
    return float(np.sum(f(x) ** 2))


def counting(fn):
    calls = [0]

    @functools.wraps(fn)
    def wrapper(*args):
        calls[0] += 1
        return fn(*args) * calls[0]
    return wrapper


@counting
def counted_square(t):
    return t * t


def decorator_with_state(x, y):
    return float(np.sum(counted_square(x) * y))


# ---------------------------------------------------------------- 3. values reached two ways

def reshape_view_written(x, y):
    z = x * 1.0
    r = z.reshape(2, 3)
    r[0] *= y[:3]
    return float(np.sum(z ** 2))


def transpose_view_written(x, y):
    z = np.outer(x, y)
    t = z.T
    t[0] += 1.0
    t[1] *= x
    return float(np.sum(np.sin(z)))


def slice_view_written(x, y):
    z = x * y
    s = z[1:]
    s *= z[0]
    return float(np.sum(z ** 2))


def asarray_view_written(x, y):
    z = x * 1.0
    a = np.asarray(z)
    a += y
    return float(np.sum(z ** 2))


def real_view_written(x, y):
    z = x * 1.0
    z.real[:] = z * y
    return float(np.sum(z ** 2))


def broadcast_to_read(x, y):
    b = np.broadcast_to(x, (3, x.size))
    return float(np.sum(b * y.sum()) ** 2)


def sliding_window_read(x, y):
    w = np.lib.stride_tricks.sliding_window_view(x * y, 3)
    return float(np.sum(w ** 2))


def list_holding_one_array_twice(x, y):
    z = x * 1.0
    for a in [z, z]:
        a *= y
    return float(np.sum(z ** 2))


def write_both(a, b):
    a += b
    return np.sum(a * b)


def one_array_as_two_arguments(x, y):
    z = x * y
    s = write_both(z, z)
    return float(s + np.sum(z ** 2))


def out_argument_aliases_an_input(x, y):
    a = x * 1.0
    b = y * 1.0
    np.add(a, b, out=b)
    return float(np.sum(b ** 2) + np.sum(a * b))


def overlapping_slice_copy(x, y):
    z = x * y
    z[1:] = z[:-1]
    return float(np.sum(z ** 2 * x))


def overlapping_index_copy(x, y):
    z = x * y
    z[[0, 1]] = z[[1, 0]]
    return float(np.sum(z * x))


def reversed_self_assignment(x, y):
    z = x * y
    z[...] = z[::-1]
    return float(np.sum(z * x))


def put_values(x, y):
    z = x * 1.0
    np.put(z, [0, 2], y[:2])
    return float(np.sum(z ** 2 * y))


def place_values(x, y):
    z = x * 1.0
    np.place(z, z > 0, y[: int(np.sum(z > 0))])
    return float(np.sum(z ** 2 * y))


def copyto_values(x, y):
    z = x * 1.0
    np.copyto(z, y * 2.0)
    return float(np.sum(z * x))


def write_first(v):
    v[0] *= 2.0


def helper_writes_an_argument_view(x, y):
    z = x * y
    write_first(z[1:])
    return float(np.sum(z ** 2))


def ravel_view_written(x, y):
    z = np.outer(x, y)
    r = z.ravel()
    r[0] = 5.0 * x[0]
    return float(np.sum(z ** 2))


def flat_written(x, y):
    z = x * 1.0
    z.flat[1] = y[0] * 2.0
    return float(np.sum(z ** 2))


def fill_diagonal_in_place(x, y):
    z = np.outer(x, y)
    np.fill_diagonal(z, x)
    return float(np.sum(z ** 2))


def transposed_row_written(x, y):
    z = np.outer(x, y)
    z.T[0] = y * 2.0
    return float(np.sum(z * np.outer(y, x)))


def negative_out_self(x, y):
    z = x * y
    np.negative(z, out=z)
    return float(np.sum(z ** 3))


def view_method_written(x, y):
    z = x * 1.0
    v = z.view()
    v *= y
    return float(np.sum(z ** 2))


def squeeze_view_written(x, y):
    z = (x * 1.0)[None, :]
    s = np.squeeze(z)
    s += y
    return float(np.sum(z ** 2))


def swapaxes_view_written(x, y):
    z = np.outer(x, y)
    s = np.swapaxes(z, 0, 1)
    s[0, :] = 0.0
    return float(np.sum(z ** 2))


def atleast_2d_view_written(x, y):
    z = x * 1.0
    m = np.atleast_2d(z)
    m[0, 0] = y[0] * 4.0
    return float(np.sum(z ** 2))


def newaxis_view_written(x, y):
    z = x * 1.0
    m = z[None]
    m[0] *= y
    return float(np.sum(z ** 2))


def np_ravel_view_written(x, y):
    z = x * 1.0
    r = np.ravel(z)
    r += y
    return float(np.sum(z ** 2))


def argument_changed_in_place(x, y):
    x *= y                        # the caller's array changes
    return float(np.sum(x ** 2))


def argument_view_changed_in_place(x, y):
    v = x[:2]
    v += y[:2]
    return float(np.sum(x ** 2) + np.sum(v))


def diagonal_read(x, y):
    z = np.outer(x, y)
    d = np.diagonal(z)
    return float(np.sum(d ** 2))


def matmul_out(x, y):
    a = np.outer(x, y)
    out = np.zeros((x.size, x.size))
    np.matmul(a, a.T, out=out)
    return float(np.sum(out))


def split_views_written(x, y):
    z = x * y
    a, b = np.split(z, 2)
    a += b
    return float(np.sum(z ** 2))


def iterated_rows_written(x, y):
    z = np.outer(x, y)
    for row in z:
        row *= 2.0
        row[0] = row[1]
    return float(np.sum(z ** 2))


# ---------------------------------------------------------------- 4. library calls with effects

def seeded_generator_noise(x, y):
    rng = np.random.default_rng(7)
    noise = rng.normal(size=x.shape)
    more = rng.normal(size=x.shape)
    return float(np.sum((x + noise) * y * more))


def seeded_global_noise(x, y):
    np.random.seed(3)
    return float(np.sum((x + np.random.randn(x.size)) * y))


def generator_shuffle(x, y):
    rng = np.random.default_rng(1)
    z = x * y
    rng.shuffle(z)
    return float(np.sum(z * np.arange(z.size)))


def global_shuffle(x, y):
    np.random.seed(2)
    z = x * y
    np.random.shuffle(z)
    return float(np.sum(z * np.arange(z.size)))


def permutation_of_values(x, y):
    rng = np.random.default_rng(4)
    z = rng.permutation(x * y)
    return float(np.sum(z * np.arange(z.size)))


def sort_in_place(x, y):
    z = x * y
    z.sort()
    return float(np.sum(z * np.arange(z.size)))


def sort_rows_in_place(x, y):
    z = np.outer(x, y)
    z.sort(axis=1)
    return float(np.sum(z * np.arange(z.shape[1])))


def list_sort_with_key(x, y):
    items = [x[0] * y[0], x[1] * y[1], x[2] * y[2]]
    items.sort(key=lambda t: -t)
    return float(items[0] * 3.0 + items[1] * 2.0 + items[2])


def heap_of_floats(x, y):
    h = []
    for a, b in zip(x, y):
        heapq.heappush(h, a * b)
    first = heapq.heappop(h)
    second = heapq.heappop(h)
    return float(first * 3.0 + second)


def insort_floats(x, y):
    ordered = []
    for a, b in zip(x, y):
        bisect.insort(ordered, a * b)
    return float(ordered[0] * 3.0 + ordered[-1])


def deque_rotation(x, y):
    d = collections.deque([x * 1.0, y * 1.0, x * y])
    d.rotate(1)
    first = d.popleft()
    return float(np.sum(first ** 2) + np.sum(d[0]))


def array_resize(x, y):
    z = x * y
    z.resize((2, 3), refcheck=False)
    return float(np.sum(z[0] * z[1]))


# ---------------------------------------------------------------- more of each kind, as users write them

def object_made_here_changed_through_an_alias(x, y):
    box = Box(x * 1.0)
    same = box
    same.w = same.w * y
    same.w += x
    return float(np.sum(box.w ** 2))


def two_objects_sharing_one_array(x, y):
    z = x * 1.0
    first, second = Box(z), Box(z)
    first.w += y                   # second.w is the same array
    return float(np.sum(second.w ** 2))


def field_array_changed_through_its_first_name(x, y):
    z = x * 1.0
    box = Box(z)
    z += y
    return float(np.sum(box.w ** 2))


def field_then_first_name_rebound(x, y):
    z = x * 1.0
    box = Box(z)
    z = z * y
    return float(np.sum(box.w ** 2) + np.sum(z))


def object_in_a_list_rebound_through_its_name(x, y):
    box = Box(x * 1.0)
    boxes = [box]
    box.w = box.w * y
    return float(np.sum(boxes[0].w ** 2))


def dataclass_field_in_place(x, y):
    s = State(x * 1.0, y * 1.0)
    s.pos += s.vel
    s.vel *= 0.5
    return float(np.sum(s.pos ** 2 + s.vel))


def instance_shadows_class_attribute(x, y):
    c = Config()
    c.scale = y[0]
    return float(np.sum((x * c.scale) ** 2) + Config.scale)


class Holder:
    k = 1.0


def class_attribute_written(x, y):
    Holder.k = float(x[0] * 2.0)
    return float(Holder.k * np.sum(y))


LOG = []


def module_list_appended(x, y):
    LOG.clear()
    LOG.append(x * y)
    return float(np.sum(LOG[0] ** 2))


class Grid:
    def __init__(self, data):
        self.data = data

    def __getitem__(self, i):
        return self.data[i]

    def __setitem__(self, i, v):
        self.data[i] = v


def user_setitem(x, y):
    g = Grid(x * 1.0)
    g[0] = y[1] * 3.0
    return float(np.sum(g.data ** 2))


def late_binding_lambdas(x, y):
    fs = [lambda t: t * k for k in (1.0, 2.0, 3.0)]
    return float(sum(np.sum(f(x) * y) for f in fs))


def nonlocal_array_rebound(x, y):
    z = x * 1.0

    def step(t):
        nonlocal z
        z = z * t

    step(y)
    step(x)
    return float(np.sum(z))


def nested_function_augments_a_captured_array(x, y):
    z = y * 1.0

    def g(t):
        z[:] += t
        return np.sum(t)

    a = g(x)
    b = g(x * 2.0)
    return float(a * b + np.sum(z ** 2))


def nested_function_appends_to_a_captured_list(x, y):
    seen = []

    def g(t):
        seen.append(t * 2.0)
        return np.sum(t)

    a = g(x) + g(y)
    return float(a * np.sum(seen[0] * seen[1]))


def closure_called_before_and_after_a_write(x, y):
    z = x * 1.0

    def g():
        return np.sum(z * y)

    before = g()
    z[1] = y[0] * 5.0
    after = g()
    return float(before * after)


def generator_expression_sees_a_later_write(x, y):
    z = x * 1.0
    parts = (z[i] * y[i] for i in range(3))
    z *= 2.0
    return float(sum(parts))


def map_sees_a_later_write(x, y):
    z = x * 1.0
    m = map(lambda t: t * z[0], y)
    z[0] = y[1] * 4.0
    return float(sum(m))


def default_captures_the_array_not_the_name(x, y):
    z = x * 1.0

    def g(t, w=z):
        return np.sum(t * w)

    z *= 3.0                       # w is this array: it sees the change
    z = z + y                      # a new array: w does not
    return float(g(y) ** 2)


def reduce_with_a_lambda(x, y):
    return float(functools.reduce(lambda a, b: a * b + 1.0, list(x * y), 1.0))


def partial_of_a_users_function(x, y):
    z = y * 1.0
    f = functools.partial(np.multiply, 1.0)
    g = functools.partial(write_both, z)
    s = g(x)                       # z += x
    return float(s + np.sum(z ** 2) + np.sum(f(x)))


def list_item_augmented(x, y):
    z = x * 1.0
    pair = [z, y * 1.0]
    pair[0] += y                   # in place: z changes
    return float(np.sum(z ** 2))


def dict_item_augmented(x, y):
    z = x * 1.0
    d = {"a": z}
    d["a"] += y
    return float(np.sum(z ** 2))


def tuple_item_written(x, y):
    z = x * 1.0
    t = (z, y)
    t[0][1] = y[2] * 2.0
    return float(np.sum(z ** 2))


def unpacked_twice_then_augmented(x, y):
    z = x * 1.0
    a, b = z, z
    a += y
    return float(np.sum(b ** 2))


def conditional_alias_augmented(x, y):
    z = x * 1.0
    w = z if np.sum(x) > -100.0 else y
    w += y
    return float(np.sum(z ** 2))


def column_written_in_a_loop(x, y):
    z = np.outer(x, y)
    for j in range(z.shape[1]):
        col = z[:, j]
        col[0] = col[1] * 2.0
    return float(np.sum(z ** 2))


def running_sum_in_place(x, y):
    z = x * y
    for i in range(1, z.size):
        z[i] += z[i - 1]
    return float(np.sum(z ** 2))


def overlapping_augmented(x, y):
    z = x * y
    z[1:] += z[:-1]
    return float(np.sum(z ** 2))


def out_multiply_into_first(x, y):
    a = x * 1.0
    np.multiply(a, y, out=a)
    np.add(a, a, out=a)
    return float(np.sum(a ** 2))


def exp_out_self(x, y):
    z = x * y
    np.exp(z, out=z)
    return float(np.sum(z))


def cumsum_out_self(x, y):
    z = x * y
    np.cumsum(z, out=z)
    return float(np.sum(z ** 2))


def copyto_reversed_self(x, y):
    z = x * y
    np.copyto(z, z[::-1].copy())
    return float(np.sum(z * x))


def fancy_write_from_itself(x, y):
    z = x * y
    idx = np.array([0, 1, 2])
    z[idx] = z[idx + 1]
    return float(np.sum(z * x))


def add_at_from_itself(x, y):
    z = x * y
    np.add.at(z, [0, 0, 1], z[3:])
    return float(np.sum(z ** 2))


def sort_a_reversed_view(x, y):
    z = x * y
    z[::-1].sort()
    return float(np.sum(z * np.arange(z.size)))


def sort_a_slice(x, y):
    z = x * y
    z[:3].sort()
    return float(np.sum(z * np.arange(z.size)))


def partition_in_place(x, y):
    z = x * y
    z.partition(2)
    return float(np.sum(z[:3] * 2.0))


def fill_in_place(x, y):
    z = x * y
    w = z
    w.fill(1.5)
    return float(np.sum(z * x))


def clip_out_self(x, y):
    z = x * y
    z.clip(-0.2, 0.3, out=z)
    return float(np.sum(z * x))


def list_reverse_in_place(x, y):
    items = [x[0] * y[0], x[1], x[2] * y[1]]
    items.reverse()
    return float(items[0] * 3.0 + items[1] * 2.0 + items[2])


def list_pop_and_insert(x, y):
    items = [x * 1.0, y * 1.0]
    last = items.pop()
    items.insert(0, last * 2.0)
    return float(np.sum(items[0] * items[1]))


def iter_next_twice(x, y):
    it = iter([x * 2.0, y * 3.0, x * y])
    a = next(it)
    b = next(it)
    return float(np.sum(a * b) + sum(np.sum(c) for c in it))


def zip_one_iterator_twice(x, y):
    it = iter(x * y)
    return float(sum(a * b for a, b in zip(it, it)))


def map_consumed_twice(x, y):
    m = map(np.sin, [x, y])
    first = sum(np.sum(v) for v in m)
    second = sum(np.sum(v) for v in m)      # empty: the map is spent
    return float(first * 2.0 + second)


def unseeded_global_noise(x, y):
    return float(np.sum((x + np.random.randn(x.size)) * y))


def normal_with_loc(x, y):
    rng = np.random.default_rng(11)
    return float(np.sum(rng.normal(x, np.abs(y) + 0.5) ** 2))


def global_normal_with_loc(x, y):
    np.random.seed(5)
    return float(np.sum(np.random.normal(x, 1.0) * y))


def random_permutation_index(x, y):
    rng = np.random.default_rng(3)
    perm = rng.permutation(x.size)
    return float(np.sum(x[perm] * y))


def choice_of_values(x, y):
    rng = np.random.default_rng(9)
    picked = rng.choice(x * y, size=4)
    return float(np.sum(picked ** 2))


MODULE_RNG = np.random.default_rng(21)


def module_generator_consumed(x, y):
    return float(np.sum(x * MODULE_RNG.normal(size=x.size) + y))


def deque_append_popleft(x, y):
    d = collections.deque()
    d.append(x * 2.0)
    d.append(y * 1.0)
    first = d.popleft()
    return float(np.sum(first * d[0]))


# ---------------------------------------------------------------- views and the same array, handed back by calls

def first_half(a):
    return a[:3]


def same(a):
    return a


def pack(a):
    return [a, a * 2.0]


def helper_returns_a_view(x, y):
    z = x * 1.0
    h = first_half(z)
    h *= y[:3]
    return float(np.sum(z ** 2))


def helper_returns_its_argument(x, y):
    z = x * 1.0
    w = same(z)
    w += y
    return float(np.sum(z ** 2))


def helper_returns_a_list_holding_its_argument(x, y):
    z = x * 1.0
    p = pack(z)
    p[0] += y
    return float(np.sum(z ** 2) + np.sum(p[1]))


class Holds:
    def __init__(self, w):
        self.w = w

    def get(self):
        return self.w

    @property
    def value(self):
        return self.w


def method_returns_a_field_written(x, y):
    h = Holds(x * 1.0)
    w = h.get()
    w += y
    return float(np.sum(h.w ** 2))


def property_returns_a_field_written(x, y):
    h = Holds(x * 1.0)
    w = h.value
    w *= y
    return float(np.sum(h.w ** 2))


def dict_get_written(x, y):
    d = {"a": x * 1.0}
    v = d.get("a")
    v += y
    return float(np.sum(d["a"] ** 2))


def array_no_copy_written(x, y):
    z = x * 1.0
    w = np.array(z, copy=None)
    w += y
    return float(np.sum(z ** 2))


def astype_no_copy_written(x, y):
    z = x * 1.0
    w = z.astype(np.float64, copy=False)
    w *= y
    return float(np.sum(z ** 2))


def ascontiguousarray_written(x, y):
    z = x * 1.0
    w = np.ascontiguousarray(z)
    w += y
    return float(np.sum(z ** 2))


def asanyarray_written(x, y):
    z = x * 1.0
    w = np.asanyarray(z)
    w[0] = y[0] * 3.0
    return float(np.sum(z ** 2))


def atleast_1d_written(x, y):
    z = x * 1.0
    w = np.atleast_1d(z)
    w += y
    return float(np.sum(z ** 2))


def flip_written(x, y):
    z = x * 1.0
    w = np.flip(z)
    w[0] = y[0] * 3.0
    return float(np.sum(z ** 2 * y))


def flipud_written(x, y):
    z = np.outer(x, y)
    w = np.flipud(z)
    w[0] *= 2.0
    return float(np.sum(z ** 2))


def rot90_written(x, y):
    z = np.outer(x, y)
    w = np.rot90(z)
    w[0] += 1.0
    return float(np.sum(np.sin(z)))


def moveaxis_written(x, y):
    z = np.outer(x, y)
    w = np.moveaxis(z, 0, 1)
    w[0] *= 3.0
    return float(np.sum(z ** 2))


def expand_dims_written(x, y):
    z = x * 1.0
    w = np.expand_dims(z, 0)
    w[0, 1] = y[1] * 2.0
    return float(np.sum(z ** 2))


def real_function_written(x, y):
    z = x * 1.0
    w = np.real(z)
    w += y
    return float(np.sum(z ** 2))


def array_split_written(x, y):
    z = x * y
    parts = np.array_split(z, 3)
    parts[0] *= 2.0
    return float(np.sum(z ** 2))


def as_strided_written(x, y):
    z = x * 1.0
    w = np.lib.stride_tricks.as_strided(z, shape=(3,), strides=(2 * z.itemsize,))
    w += y[:3]
    return float(np.sum(z ** 2))


def view_dtype_written(x, y):
    z = x * 1.0
    w = z.view(np.float64)
    w *= y
    return float(np.sum(z ** 2))


def reshape_minus_one_written(x, y):
    z = np.outer(x, y)
    w = z.reshape(-1)
    w[:6] = x
    return float(np.sum(z ** 2))


def ellipsis_view_written(x, y):
    z = x * 1.0
    w = z[...]
    w *= y
    return float(np.sum(z ** 2))


def colon_view_written(x, y):
    z = x * 1.0
    w = z[:]
    w += y
    return float(np.sum(z ** 2))


def operator_iadd(x, y):
    z = x * 1.0
    operator.iadd(z, y)
    return float(np.sum(z ** 2))


def explicit_dunder_iadd(x, y):
    z = x * 1.0
    w = z.__iadd__(y)
    return float(np.sum(z ** 2) + np.sum(w))


def repeated_fancy_augmented(x, y):
    z = x * 1.0
    z[[0, 0, 1]] += y[:3]          # NumPy adds once per element: the last of the repeats
    return float(np.sum(z ** 2))


def repeated_fancy_assigned_from_itself(x, y):
    z = x * y
    z[[0, 0]] = z[[1, 2]]
    return float(np.sum(z * x))


def mask_augmented(x, y):
    z = x * y
    z[z > 0] *= 2.0
    return float(np.sum(z * x))


def add_to_itself(x, y):
    z = x * y
    z += z
    z *= z
    return float(np.sum(z))


def subtract_reversed_self(x, y):
    z = x * y
    z -= z[::-1]
    return float(np.sum(z * x))


def shifted_subtract(x, y):
    z = x * y
    z[1:] -= z[:-1]
    return float(np.sum(z ** 2))


def out_into_a_slice_of_itself(x, y):
    z = x * y
    np.add(z[:3], z[3:], out=z[3:])
    return float(np.sum(z ** 2))


def copyto_one_half_from_the_other(x, y):
    z = x * y
    np.copyto(z[:3], z[3:])
    return float(np.sum(z * x))


BUFFER = np.zeros(6)


def module_buffer_overwritten(x, y):
    BUFFER[:] = x * y
    return float(np.sum(BUFFER ** 2))


CACHE = {}


def module_dict_cache(x, y):
    CACHE["k"] = x * 2.0
    return float(np.sum(CACHE["k"] * y))


@functools.lru_cache(maxsize=None)
def cached_scale(k):
    return 2.0 * k


def lru_cached_helper(x, y):
    return float(np.sum(x * cached_scale(3.0)) * np.sum(y))


def nditer_readwrite(x, y):
    z = x * y
    with np.nditer(z, op_flags=[["readwrite"]]) as it:
        for v in it:
            v[...] = v * 2.0
    return float(np.sum(z ** 2))


def lambda_default_keeps_its_array(x, y):
    z = x * 1.0
    f = lambda t, w=z: np.sum(t * w)
    z = z * y
    return float(f(y) ** 2 + np.sum(z))


def nested_default_written_in_place_later(x, y):
    z = x * 1.0

    def g(t, w=z):
        return np.sum(t * w)

    z *= 3.0
    return float(g(y) ** 2)


def nested_default_keeps_its_array(x, y):
    z = x * 1.0

    def g(t, w=z):
        return np.sum(t * w)

    z = z + y
    return float(g(y) ** 2 + np.sum(z))


def generator_consumed_twice(x, y):
    g = (a * b for a, b in zip(x, y))
    first = sum(g)
    second = sum(g)                 # empty: 0
    return float(first * 2.0 + second)


def generator_given_to_a_call(x, y):
    return float(np.sum(np.stack([a * y for a in x[:3]])) + sum(a * b for a, b in zip(x, y)))


def class_attribute_through_an_instance(x, y):
    Holder.k = float(x[0] * 2.0)
    h = Holder()
    return float(h.k * np.sum(y))


def list_slice_assigned(x, y):
    xs = [x * 1.0, y * 1.0, x * y]
    xs[1:2] = [y * 3.0]
    return float(sum(np.sum(v ** 2) for v in xs))


def dict_update_and_pop(x, y):
    d = {"a": x * 1.0, "b": y}
    d.update({"a": d["a"] * y})
    b = d.pop("b")
    return float(np.sum(d["a"] ** 2) + np.sum(b))


# ---------------------------------------------------------------- random states under other names

def python_random_seeded(x, y):
    random.seed(4)
    k = random.gauss(0.0, 1.0)
    return float(np.sum(x * k + y * random.random()))


def python_random_unseeded(x, y):
    return float(np.sum(x * random.random() + y))


def numpy_random_under_another_name(x, y):
    return float(np.sum((x + npr.randn(x.size)) * y))


def numpy_random_function_imported(x, y):
    return float(np.sum((x + standard_draws(x.size)) * y))


# ---------------------------------------------------------------- functions used as values, their variables changed later

def apply(f, v):
    return f(v)


def lambda_value_sees_a_write_in_place(x, y):
    z = y * 1.0
    fs = [lambda t: t * z]
    z *= 2.0
    return float(np.sum(fs[0](x) ** 2))


def lambda_given_to_a_helper_after_a_write(x, y):
    z = y * 1.0
    f = lambda t: t * z
    z[0] = x[1] * 4.0
    return float(np.sum(apply(f, x) ** 2))


def nested_function_given_to_a_helper_after_a_rebinding(x, y):
    z = y * 1.0

    def g(t):
        return t * z

    z = z * x
    return float(np.sum(apply(g, x) ** 2))


def nested_function_given_to_a_helper(x, y):
    z = y * 2.0

    def g(t):
        return np.sin(t) * z

    return float(np.sum(apply(g, x)))


def lambda_list_called_in_a_loop(x, y):
    scale = y * 1.0
    steps = [lambda t: t * scale, lambda t: t + scale, np.tanh]
    v = x
    for step in steps:
        v = step(v)
    return float(np.sum(v ** 2))


# ---------------------------------------------------------------- objects made here, fields read after a change

@dataclasses.dataclass
class Normed:
    w: np.ndarray
    norm: float = 0.0

    def __post_init__(self):
        self.norm = float(np.sum(self.w ** 2))     # computed once: stale after `w` changes


def post_init_value_stale_after_a_rebinding(x, y):
    n = Normed(x * 1.0)
    n.w = n.w * y
    return float(n.norm + np.sum(n.w))


class Lazy:
    def __init__(self, w):
        self.w = w

    @functools.cached_property
    def energy(self):
        return np.sum(self.w ** 2)


def cached_property_stale_after_a_rebinding(x, y):
    obj = Lazy(x * 1.0)
    first = obj.energy
    obj.w = obj.w * y
    return float(first + obj.energy * 2.0 + np.sum(obj.w))


class Total:
    def __init__(self, w):
        self.w = w

    def total(self):
        return np.sum(self.w * 2.0)

    @property
    def doubled(self):
        return self.w * 2.0


def method_reads_a_rebound_field(x, y):
    t = Total(x * 1.0)
    t.w = t.w * y
    return float(t.total() + np.sum(t.doubled ** 2))


class Base:
    def __init__(self, w):
        self.w = w

    def out(self, v):
        return v * self.w


class Child(Base):
    def out(self, v):
        return super().out(v) + self.w ** 2


def overridden_method_through_super(x, y):
    c = Child(x * 1.0)
    return float(np.sum(c.out(y)))


class Slotted:
    __slots__ = ("w", "b")

    def __init__(self, w, b):
        self.w, self.b = w, b


def slots_field_rebound(x, y):
    s = Slotted(x * 1.0, y)
    s.w = s.w * s.b
    return float(np.sum(s.w ** 2))


class Fallback:
    def __init__(self, w):
        self.w = w

    def __getattr__(self, name):
        return self.w * 3.0


def getattr_fallback_read(x, y):
    f = Fallback(x * y)
    return float(np.sum(f.anything ** 2))


class Functional:
    def __init__(self, total):
        self.total = total

    def add(self, v):
        return Functional(self.total + v)


def method_returning_a_new_object(x, y):
    acc = Functional(x * 1.0)
    acc = acc.add(y).add(x * y)
    return float(np.sum(acc.total ** 2))


class NamedChild(Base):
    def out(self, v):
        return super(NamedChild, self).out(v) + self.w ** 2


def overridden_method_through_named_super(x, y):
    c = NamedChild(x * 1.0)
    return float(np.sum(c.out(y)))


class BaseNamedChild(Base):
    def out(self, v):
        return Base.out(self, v) + self.w ** 2


def overridden_method_through_the_base_by_name(x, y):
    c = BaseNamedChild(x * 1.0)
    return float(np.sum(c.out(y)))


# ---------------------------------------------------------------- loops over what they change

def loop_over_a_view_written_ahead(x, y):
    z = x * y
    for i, v in enumerate(z[:-1]):
        z[i + 1] = z[i + 1] + v          # v is read from z when the loop reaches it: the sum so far
    return float(np.sum(z ** 2))


def loop_over_an_array_writing_its_last(x, y):
    z = x * y
    for v in z:
        z[-1] = z[-1] + v
    return float(np.sum(z ** 2))


def loop_over_rows_writing_the_next(x, y):
    m = np.outer(x, y)
    for i, row in enumerate(m[:-1]):
        m[i + 1] = m[i + 1] * 0.5 + row
    return float(np.sum(m ** 2))


def loop_over_a_list_that_grows(x, y):
    xs = [x * 1.0, y * 1.0]
    for v in xs:
        if len(xs) < 5:
            xs.append(v * 2.0)
    return float(sum(np.sum(v ** 2) for v in xs))


def loop_over_a_list_whose_items_are_replaced(x, y):
    xs = [x * 1.0, y * 1.0, x * y]
    for i, v in enumerate(xs):
        if i + 1 < len(xs):
            xs[i + 1] = xs[i + 1] + v
    return float(sum(np.sum(v ** 2) for v in xs))


def loop_over_an_array_rebound_inside(x, y):
    z = x * y
    for v in z:
        z = z * 2.0 + v                  # the loop keeps walking the first array
    return float(np.sum(z))


def loop_over_zip_of_an_array_and_its_shift(x, y):
    z = x * y
    for i, (a, b) in enumerate(zip(z, z[1:])):
        z[i + 1] = a + b
    return float(np.sum(z ** 2))


def while_over_a_list_popping(x, y):
    xs = [x * 1.0, y * 1.0, x * y]
    total = 0.0
    while xs:
        v = xs.pop()
        total = total + np.sum(v) * len(xs)
    return float(total)


def iterate_a_dict_writing_values(x, y):
    d = {"a": x * 1.0, "b": y * 1.0}
    for k in d:
        d[k] = d[k] * d["a"]
    return float(np.sum(d["a"] ** 2) + np.sum(d["b"]))


# ---------------------------------------------------------------- calls handing back one of the arrays they are given

def max_returns_one_of_its_arguments(x, y):
    z, w = x * 1.0, y * 1.0
    m = max([z, w], key=lambda a: a[0])
    m += 1.0
    return float(np.sum(z ** 2) + np.sum(w ** 3))


def min_of_two_arrays_by_key(x, y):
    z, w = x * 1.0, y * 1.0
    m = min(z, w, key=lambda a: a[1])
    m *= 3.0
    return float(np.sum(z ** 2) + np.sum(w ** 3))


def pop_returns_the_held_array(x, y):
    z = x * 1.0
    xs = [y * 1.0, z]
    last = xs.pop()
    last += y
    return float(np.sum(z ** 2))


def swap_then_write(x, y):
    a, b = x * 1.0, y * 1.0
    a, b = b, a
    a += 1.0
    return float(np.sum(a ** 2) + np.sum(b ** 3))


def alias_made_in_a_branch(x, y):
    z = x * 1.0
    w = y * 1.0
    if np.sum(x) > -100.0:
        w = z
    w += y
    return float(np.sum(z ** 2))


def alias_carried_by_a_loop(x, y):
    z = x * 1.0
    w = y * 1.0
    for _ in range(2):
        w, z = z, w
    w += y
    return float(np.sum(z ** 2) + np.sum(w ** 3))


def reduce_returns_an_item(x, y):
    z = x * 1.0
    first = functools.reduce(lambda a, b: a, [z, y * 1.0])
    first *= 2.0
    return float(np.sum(z ** 2))


def itemgetter_returns_an_item(x, y):
    z = x * 1.0
    first = operator.itemgetter(0)([z, y])
    first += y
    return float(np.sum(z ** 2))


def next_of_iter_returns_an_item(x, y):
    z = x * 1.0
    first = next(iter([z, y]))
    first += y
    return float(np.sum(z ** 2))


def getattr_returns_a_field(x, y):
    class Bag:
        pass
    b = Bag()
    b.w = x * 1.0
    w = getattr(b, "w")
    w += y
    return float(np.sum(b.w ** 2))


def setdefault_returns_the_held_array(x, y):
    z = x * 1.0
    d = {"a": z}
    v = d.setdefault("a", y)
    v += y
    return float(np.sum(z ** 2))


def conditional_view_written(x, y):
    z = x * 1.0
    w = z if np.sum(x) > 100.0 else z[::-1]
    w[0] = y[0] * 3.0
    return float(np.sum(z ** 2 * y))


def sorted_with_key_and_reverse(x, y):
    items = [x[0] * y[0], x[1], x[2] * y[1]]
    items = sorted(items, key=lambda t: -t, reverse=True)
    return float(items[0] * 3.0 + items[1] * 2.0 + items[2])
