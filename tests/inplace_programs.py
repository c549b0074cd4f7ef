"""Programs that change arrays in place, as users write them: scatters with repeated
indices, histogram-like accumulation with np.add.at, writes through views, augmented
assignment. Each is checked against central finite differences of the plain NumPy code,
or must be refused at the line that writes."""
import numpy as np

WEIGHTS3 = np.array([1.0, 2.0, 3.0])


# ---------------------------------------------------------------- repeated indices: NumPy keeps one write per element
def scatter_with_repeated_indices(x):
    y = np.zeros(3)
    y[[0, 2, 2]] += x  # y[2] gets x[2] only: y[idx] = y[idx] + x, the last write wins
    return np.sum(y * WEIGHTS3)


def assign_with_repeated_indices(w):
    b = np.zeros(3)
    b[[0, 2, 0]] = w
    return np.sum(np.sin(b) * WEIGHTS3)


def negative_index_aliasing_a_positive_one(w):
    b = np.zeros(3)
    b[[2, -1]] = w  # -1 is 2
    return np.sum(b * WEIGHTS3)


def scatter_from_index_variable(w):
    slots = np.array([1, 0, 1, 1])  # known only when the function runs
    b = np.ones(3)
    b[slots] = w * 2.0
    return np.sum(b ** 2)


def accumulate_from_index_variable(w):
    slots = np.array([1, 0, 1, 1])
    b = np.ones(3)
    b[slots] += w * 2.0
    return np.sum(b ** 2)


def scatter_without_repeats(w):
    slots = np.array([2, 0, 1])
    b = np.zeros(3)
    b[slots] = w
    return np.sum(b ** 2 * WEIGHTS3)


def assign_through_a_mask(w):
    b = np.linspace(-1.0, 1.0, 4)
    b[b > 0] = w * 3.0
    return np.sum(b ** 2 * np.arange(4))


def fancy_index_in_two_dimensions(w):
    b = np.zeros((3, 3))
    b[[0, 1, 0], [2, 2, 2]] = w  # (0, 2) written twice
    return np.sum(np.cos(b) * np.arange(9.0).reshape(3, 3))


def fancy_index_and_slice(w):
    b = np.zeros((3, 2))
    b[[0, 2, 0], :] = w  # rows: w broadcast over the three rows, row 0 twice
    return np.sum(b * np.arange(6.0).reshape(3, 2))


def fancy_rows_from_a_variable(m):
    rows = np.array([[0, 1], [1, 2]])
    b = np.zeros((3, 2))
    b[rows] = m  # a 2-D index array: writes (2, 2, 2) values into rows 0, 1, 1, 2
    return np.sum(b * np.arange(1.0, 7.0).reshape(3, 2))


def scatter_in_a_loop(x):
    y = np.zeros(3)
    for k in range(2):
        y[[0, 1, 1]] = x * (k + 1.0) + y[[2, 2, 0]]
    return np.sum(y * WEIGHTS3)


# ---------------------------------------------------------------- ufunc.at: every occurrence counts
def histogram_like(x):
    bins = np.array([0, 2, 2, 1, 2])
    counts = np.zeros(3)
    np.add.at(counts, bins, x)
    return np.sum(counts ** 2)


def subtract_at_2d(x):
    y = np.ones((2, 3))
    np.subtract.at(y, (np.array([0, 1, 0]), np.array([2, 2, 2])), x)
    return np.sum(y ** 3)


def add_at_a_scalar(s):
    y = np.ones(4)
    np.add.at(y, [0, 0, 3], s)
    return np.sum(np.exp(y))


def multiply_at(x):
    y = np.ones(3)
    np.multiply.at(y, [0, 0], x)
    return np.sum(y)


# ---------------------------------------------------------------- views of the function's own arrays
def write_through_reshape(x):
    b = np.zeros(4)
    r = b.reshape(2, 2)
    r[0, 0] = 3 * x[1]
    return np.sum(b * x)


def write_through_transpose(x):
    b = np.ones((2, 3))
    t = b.T
    t[0] -= x[0]
    return np.sum(b * b)


def scale_a_slice_view(x):
    b = np.ones((2, 4))
    v = b[:, 1:3]
    v *= x[0]
    return np.sum(b ** 2)


def write_then_read_through_the_view(x):
    b = np.zeros((2, 2))
    flat = b.ravel()
    b[1, 1] = x[0]
    return np.sum(flat * x)


def write_after_the_view_was_read(x):
    b = np.ones(3)
    head = b[0:2]
    product = head * x[:2]  # the reverse pass reads `head` as it was here
    b[0] = 5.0 * x[2]
    return np.sum(product) + np.sum(b ** 2)


def view_taken_after_the_write(x):
    b = np.zeros(4)
    b[1] = x[0] * x[1]
    square = b.reshape(2, 2)
    return np.sum(square * x.reshape(2, 2))


def same_array_under_two_names(x):
    y = x * 2.0
    z = y
    y += x
    return np.sum(z ** 2)


def write_to_an_asarray_of_an_argument(x):
    a = np.asarray(x)
    a[0] = 0.0
    return np.sum(a)


def row_of_a_loop_written(x):
    m = np.outer(x, x)
    for row in m:
        row[0] = 1.0
    return np.sum(m)


# ---------------------------------------------------------------- augmented assignment with no alias
def running_sum(x):
    total = 0.0
    for value in x:
        total += value * value
    return total


def accumulate_in_float32(x):
    y = np.zeros(3, dtype=np.float32)
    y += x
    return y


def accumulate_into_integers(x):
    y = np.zeros(3, dtype=np.int64)
    y += x  # NumPy refuses to write floats into an int array in place
    return np.sum(y)


def grow_by_broadcasting(x):
    y = np.zeros(3)
    y += np.outer(x, x)  # (3,) += (3, 3): NumPy cannot grow y in place
    return np.sum(y)


def replace_a_slot_of_a_list(x):
    parts = [np.ones(3)]
    parts.append(x)
    parts[0] = x * x  # rebinds the list's slot: x itself is untouched
    return np.sum(parts[0]) + np.sum(np.sin(parts[1]) * x)


def number_under_two_names(s):
    before = s
    s += s * 2.0  # a float is rebound, not changed: `before` keeps the old value
    return before * s


def list_under_two_names(x):
    xs = [x]
    ys = xs
    xs += [x * 2.0]  # a list is extended in place: ys sees it
    return np.sum(ys[-1])


class Params:
    def __init__(self, W):
        self.W = W

    def weights(self):
        return self.W  # the array the object holds, not a copy


def write_into_an_arguments_field(params, x):
    w = params.W
    w[0] = x[0]  # changes the caller's params.W
    return np.sum(params.W * x)


def write_into_what_a_method_returns(params, x):
    w = params.weights()
    w[0] = x[0]  # changes the caller's params.W too
    return np.sum(params.W * x)


# ---------------------------------------------------------------- NumPy functions that write into an array
def ufunc_with_out(x):
    y = np.zeros(3)
    z = np.multiply(x, 2.0, out=y)  # z is y
    return np.sum(z * x) + np.sum(y)


def broadcast_into_out(x):
    y = np.ones((2, 3))
    np.add(x, 1.0, out=y)  # x (3,) broadcast over y's two rows
    return np.sum(y ** 2)


def put_into(x):
    y = x * 2.0
    np.put(y, [0], 5.0)
    return np.sum(y * x)


def fill_the_diagonal(x):
    y = np.outer(x, x)
    np.fill_diagonal(y, 0.0)
    return np.sum(y)


def method_with_out(x):
    y = np.zeros(3)
    np.outer(x, x).sum(axis=0, out=y)
    return np.sum(y * x)


def write_into_what_a_dict_holds(x):
    d = {"k": x * 2.0}
    w = d.get("k")
    w[0] = 1.0  # d["k"] is w
    return np.sum(d["k"] * x)


def accumulate_integers_at_an_index(x):
    y = np.zeros(3, dtype=np.int64)
    y[[0, 1]] += x[:2]  # NumPy refuses: y[[0, 1]] is an int array, and `+=` keeps its dtype
    return np.sum(y * x)


def variables_named_like_the_code_they_become(x):
    written_into = x * 2.0
    written_into += x  # generated as `... = written_into(... + x, ...)`: the user's name is renamed
    added_at = np.zeros(3)
    np.add.at(added_at, [0, 0], x[:2])
    return np.sum(written_into * added_at)


def write_into_what_a_list_slot_was_given(x):
    a, c = x * 1.0, x * 2.0
    slots = [a, a]
    slots[0] = c  # the list now holds c itself
    first, second = slots
    first += x
    return np.sum(c * x)


def tuple_swap_then_write(x):
    prev, cur = x * 1.0, x * 2.0
    for _ in range(3):
        nxt = cur.copy()
        nxt[0] = 2.0 * cur[0] - prev[0]
        prev, cur = cur, nxt  # each name is the item it took: nxt is a new array
    return np.sum(cur ** 2 + prev)


def fresh_each_iteration_but_named_twice(x):
    cur = x * 1.0
    total = 0.0
    for _ in range(3):
        nxt = cur.copy()
        keep = nxt
        nxt[0] = 2.0 * cur[0]  # keep is nxt: it sees the write
        total = total + np.sum(keep)
        cur = nxt
    return total


def augmented_item_of_a_list_shared(x):
    a = x * 1.0
    items = [a, a * 2.0]
    items[0] += 1.0  # Python's += changes the array `a` holds too: a wrong gradient before
    return np.sum(items[0] * a)


def augmented_item_of_a_dict_shared(x):
    weights = {"w": x * 1.0}
    w = weights["w"]
    for _ in range(2):
        weights["w"] -= 0.1 * np.tanh(weights["w"])
    return np.sum(weights["w"]) + np.sum(w ** 2)


def augmented_item_of_a_dict_fresh(x):
    weights = {"w": x * 1.0, "b": x[:2] ** 2}
    for _ in range(2):
        weights["w"] -= 0.1 * np.tanh(weights["w"])
        weights["b"] *= 1.5
    return np.sum(weights["w"] ** 2) + np.sum(weights["b"])


def augmented_item_of_a_list_of_numbers(x):
    totals = [0.0, 1.0]
    totals[0] += np.sum(x)  # a float: rebinding, nothing else changes
    first = totals[0]
    totals[0] *= 2.0
    return first * totals[0]


# ---------------------------------------------------------------- chained assignment: one value, two names
def one_array_bound_to_two_names(x):
    a = b = np.zeros(4)  # one array: the write through `a` is seen through `b`
    a[0] = x[1]
    return np.sum(b * x)


def one_number_bound_to_two_names(x):
    total = count = 0.0  # numbers cannot change in place: two names, no sharing to fear
    for v in x:
        total = total + v * v
        count = count + 1.0
    return total / count


def chained_assignment_evaluates_its_call_once(x):
    a = b = np.sin(x)
    a = a * 2.0
    return np.sum(a * b)


# ---------------------------------------------------------------- a list changed while another name sees it
def list_appended_through_another_name(x):
    a = [x, x * 2.0]
    b = a
    b.append(x * 3.0)  # `a` is the same list: a[-1] is x * 3
    return np.sum(a[-1] ** 2)


def list_appended_after_a_tuple_holds_it(x):
    xs = [x]
    t = (xs, 2)
    xs.append(x * 5.0)
    return np.sum(t[0][-1])


def list_appended_after_a_dict_holds_it(x):
    xs = [x]
    d = {"h": xs}
    xs.append(x * 5.0)
    return np.sum(d["h"][-1])


def list_slot_written_after_a_tuple_holds_it(x):
    xs = [x, x]
    t = (xs, 2)
    xs[0] = x * 5.0
    return np.sum(t[0][0])


def list_popped_through_another_name(x):
    a = [x, x * 2.0, x * 3.0]
    b = a
    b.pop()
    return np.sum(a[-1])


def list_extended_through_another_name(x):
    a = [x]
    b = a
    b.extend([x * 4.0])
    return np.sum(a[-1])


def history_appended_through_an_alias_in_a_loop(x):
    history = []
    current = history
    for k in range(3):
        current.append(x * k)
    return np.sum(sum(history))


def inner_list_taken_out_and_appended(x):
    rows = [[x], [x * 2.0]]
    first = rows[0]
    first.append(x * 7.0)
    return np.sum(rows[0][-1])


# lists built under one name and held elsewhere once complete: differentiated
def outputs_returned_with_the_state(x):
    outs = []
    h = x
    for k in range(3):
        h = np.tanh(h * 0.5 + k)
        outs.append(h)
    both = (outs, h)
    return np.sum(np.stack(both[0])) + np.sum(both[1])


def rows_of_a_grid(x):
    grid = []
    for i in range(3):
        row = []
        for j in range(2):
            row.append(x[i] * x[j])
        grid.append(row)
    return np.sum(np.array(grid) ** 2)


def previous_state_read_after_the_append(x):
    states = [x]
    total = 0.0
    for _ in range(3):
        previous = states[-1]
        states.append(np.tanh(previous * 0.9))
        total = total + np.sum(previous ** 2)
    return total + np.sum(states[-1])


def inner_list_reached_through_zip(x):
    rows = [[x], [x * 2.0]]
    for row, k in zip(rows, [1.0, 2.0]):
        row.append(x * k)  # each row is a list of `rows`: rows[0][-1] is x
    return np.sum(rows[0][-1])


def item_unpacked_before_its_list_is_appended(x):
    xs = [x]
    outer = [xs, [x * 3.0]]
    for first, second in zip(outer[:1], outer[1:]):
        pass
    xs.append(x * 5.0)
    return np.sum(first[-1])


def inner_list_reached_through_reversed(x):
    rows = [[x], [x * 2.0]]
    for row in reversed(rows):
        row.append(x * 3.0)
    return np.sum(rows[0][-1])


def list_appended_after_reversed_read_it(x):
    xs = [x]
    outer = [xs]
    backwards = list(reversed(outer))
    xs.append(x * 5.0)
    return np.sum(backwards[0][-1])


# ---------------------------------------------------------------- a dict of parameters updated over its own keys
def parameters_updated_over_their_keys(x):
    params = {"w": x * 1.0, "b": np.sum(x)}
    for _ in range(2):
        grads = {"w": 2.0 * params["w"], "b": 0.5 * params["b"]}
        for k in params:
            params[k] -= 0.1 * grads[k]  # a key is a string: it shares no memory with the arrays
    return np.sum(params["w"] ** 2) + params["b"]


def parameters_updated_while_a_name_holds_one(x):
    first = x * 1.0
    params = {"w": first, "b": np.sum(x)}
    for k in params:
        params[k] -= 0.1 * params[k]  # changes `first` too
    return np.sum(first * x) + params["b"]


def list_extended_with_plus_equals_after_a_tuple_holds_it(x):
    xs = [x]
    t = (xs, 1)
    xs += [x * 2.0]  # extends the list the tuple holds
    return np.sum(t[0][-1])


# ---------------------------------------------------------------- a shallow copy holds the very arrays
def item_of_a_list_copy_changed(x):
    a = [x * 1.0, x * 2.0]
    b = list(a)
    v = b[0]
    v += 1.0  # a[0] is that array too
    return np.sum(a[0] * x)


def item_of_a_dict_copy_changed(x):
    d = {"w": x * 1.0}
    e = dict(d)
    w = e["w"]
    w *= 3.0
    return np.sum(d["w"] * x)


def item_of_a_sorted_copy_changed(x):
    a = [x * 1.0, x * 2.0]
    b = sorted(a, key=lambda v: v[0])
    b[0] += 1.0
    return np.sum(a[0] * x)


def item_of_a_tuple_copy_written(x):
    a = [x * 1.0, x * 2.0]
    c = tuple(a)[0]
    c[2] = -1.0
    return np.sum(a[0] * x)


def item_unpacked_from_a_list_copy_written(x):
    a = [x * 1.0, x * 2.0]
    first, second = list(a)
    first[0] = 9.0
    return np.sum(a[0] * x)


def row_of_a_list_of_rows_changed(x):
    m = np.outer(x, x)
    rows = list(m)  # views of m's rows
    r = rows[0]
    r += 1.0
    return np.sum(m * x)


def slot_of_a_list_copy_given_a_new_array(x):
    a = [x * 1.0, x * 2.0]
    b = list(a)
    b[0] = b[0] + 1.0  # the copy's slot: `a` is unchanged
    return np.sum(a[0] * x) + np.sum(b[0] * b[1])


def entry_of_a_dict_copy_given_a_new_array(x):
    d = {"w": x * 1.0, "b": x[0]}
    new = dict(d)
    new["w"] = d["w"] - 0.1 * x
    return np.sum(new["w"] ** 2) + np.sum(d["w"]) * new["b"]


def value_of_a_dict_walked_by_items_changed(x):
    params = {"w": x * 1.0}
    for k, v in params.items():
        v *= 2.0  # params["w"] is that array
    return np.sum(params["w"] * x)


def value_of_a_dict_comprehension_copy_written(x):
    a = {"w": x * 1.0}
    b = {k: v for k, v in a.items()}
    w = b["w"]
    w[0] = 5.0
    return np.sum(a["w"] * x)


def parameters_updated_over_their_items(x):
    params = {"w": x * 1.0, "b": x[0] * 2.0}
    grads = {"w": x * 0.5, "b": 1.0}
    for k, v in params.items():
        params[k] = v - 0.1 * grads[k]
    return np.sum(params["w"] ** 2) + params["b"]
