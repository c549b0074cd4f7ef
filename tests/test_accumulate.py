"""accumulate (add!!): in place only into buffers the AD owns and nobody else sees.

Calls are written `r = accumulate(d, c)`: while the call runs, `d` is held by one local
variable, exactly as in the generated `d = accumulate(d, c)`, so `r is d` tells whether
the buffer was overwritten.
"""
import sys
import threading
import time
import tracemalloc
import weakref
from dataclasses import dataclass

import numpy as np
import pytest

from s2sad.runtime import accumulate as accumulate_module
from s2sad.runtime.accumulate import accumulate, add, is_owned, own, release
from s2sad.runtime.tangents import NO_TANGENT, ZERO, InplaceableThunk, Tangent, Thunk

needs_refcount = pytest.mark.skipif(not hasattr(sys, "getrefcount"), reason="no sys.getrefcount: never in place")


@dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray


class Counter:
    def __init__(self, make):
        self.make, self.calls = make, 0

    def __call__(self):
        self.calls += 1
        return self.make()


def one_hot_thunk(n, i, value=1.0, dtype=np.float64):
    """The cotangent of `X[i]` for an X of length n, as seed 002's getindex rule gives it."""

    def add_at(buffer):
        buffer[i] += value
        return buffer

    def value_form():
        out = np.zeros(n, dtype)
        out[i] = value
        return out

    return InplaceableThunk(add_at, Counter(value_form))


# ---------------------------------------------------------------- calibration


@needs_refcount
def test_calibration_found_the_counts():
    assert accumulate_module._TOP_COUNT > 0
    assert accumulate_module._FIELD_COUNT > 0
    assert accumulate_module._ITEM_COUNT > 0


# ---------------------------------------------------------------- never touching what is not ours


def test_user_arrays_are_never_mutated():
    d, c = np.ones(3), np.ones(3)
    r = accumulate(d, c)
    assert r is not d
    np.testing.assert_array_equal(d, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(r, [2.0, 2.0, 2.0])
    assert not is_owned(d)


@needs_refcount
def test_only_fresh_sums_worth_writing_into_are_owned():
    # registering a small array costs more than allocating it again: it is left unowned,
    # so it is never written into later (the value is a + b either way)
    small, shared = accumulate_module.SMALL_SUM, accumulate_module.SMALL_SHARED_SUM
    for n in (small, small + 1):
        d = np.ones(n)  # held by this variable only: the next sum would go in place
        d = accumulate(d, np.ones(n))
        assert is_owned(d) == (n > small) and d[0] == 2.0
    for n in (shared, shared + 1):
        d = np.ones(n)
        alias = d  # aliased: the next sum will likely be a new array again
        d = accumulate(d, np.ones(n))
        assert is_owned(d) == (n > shared) and d[0] == 2.0 and alias[0] == 1.0
        alias = d
        again = accumulate(d, np.ones(n))
        assert again is not alias and alias[0] == 2.0 and again[0] == 3.0
    assert not is_owned(accumulate(np.ones(3), 1.0)) and not is_owned(accumulate(np.ones(3), np.float64(1.0)))


def test_numpy_float64_scalars_add_as_numbers():
    for a, b in ((np.float64(1.5), 2.0), (1.5, np.float64(2.0)), (np.float64(1.5), np.float64(2.0))):
        r = accumulate(a, b)
        assert r == 3.5 and type(r) is type(a + b)


def test_an_owned_array_with_another_reference_is_not_mutated():
    d = own(np.ones(3))
    alias = d  # the pullback of x + y hands the same dy to both operands
    r = accumulate(d, np.ones(3))
    assert r is not alias
    np.testing.assert_array_equal(alias, [1.0, 1.0, 1.0])


def test_accumulating_an_owned_array_into_itself_allocates():
    d = own(np.ones(3))
    r = accumulate(d, d)
    assert r is not d and d[0] == 1.0 and r[0] == 2.0


def test_an_owned_array_with_a_live_view_is_not_mutated():
    d = own(np.ones(3))
    view = d[1:]
    r = accumulate(d, np.ones(3))
    assert r is not d
    np.testing.assert_array_equal(view, [1.0, 1.0])


def test_an_owned_array_cached_in_a_thunk_is_not_mutated():
    thunk = Thunk(lambda: own(np.ones(2)))
    assert is_owned(thunk.unthunk())
    r = accumulate(thunk, np.ones(2))
    np.testing.assert_array_equal(thunk.unthunk(), [1.0, 1.0])
    np.testing.assert_array_equal(r, [2.0, 2.0])


def test_read_only_and_integer_arrays_are_never_mutated():
    d = own(np.ones(3))
    d.setflags(write=False)
    r = accumulate(d, np.ones(3))
    assert r is not d and d[0] == 1.0
    integers = own(np.ones(3, dtype=np.int64))
    assert not is_owned(integers)
    r = accumulate(integers, np.ones(3, dtype=np.int64))
    assert r is not integers and integers[0] == 1


def test_released_arrays_are_never_mutated_again():
    d = own(np.ones(3))
    inner = own(np.ones(2))
    release(Tangent(dict, {"x": (1.0, inner)}))
    release(d)
    assert not is_owned(d) and not is_owned(inner)
    assert accumulate(d, np.ones(3)) is not d


def test_owned_arrays_are_held_weakly_and_ids_are_not_trusted():
    d = own(np.ones(3))
    ref = weakref.ref(d)
    del d
    assert ref() is None and len(accumulate_module._owned) == len(accumulate_module._owned.data)
    assert not is_owned(np.ones(3))  # may reuse the dead array's id: identity is checked


def test_add_never_mutates():
    d = own(np.ones(3))
    r = add(d, np.ones(3))
    assert r is not d and d[0] == 1.0


# ---------------------------------------------------------------- in place where allowed


@needs_refcount
def test_accumulates_in_place_into_an_owned_exclusive_array():
    d = own(np.zeros(3))
    r = accumulate(d, np.ones(3))
    assert r is d
    np.testing.assert_array_equal(d, [1.0, 1.0, 1.0])


@needs_refcount
def test_the_generated_pattern_allocates_once():
    n = 100_000
    c = np.ones(n)
    d = accumulate(np.zeros(n), c)  # the first sum is a fresh, owned array
    assert is_owned(d)
    first = weakref.ref(d)
    tracemalloc.start()
    for _ in range(10):
        d = accumulate(d, c)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert first() is d
    assert peak < n * 8 // 2  # not one array allocated
    assert d[0] == 11.0


@needs_refcount
def test_float32_is_preserved_in_place():
    d = own(np.zeros(3, np.float32))
    original = weakref.ref(d)
    d = accumulate(d, np.ones(3, np.float32))
    d = accumulate(d, 1.5)  # a Python float is weak: float32 stays float32
    assert d is original() and d.dtype == np.float32 and d[0] == np.float32(2.5)


@needs_refcount
def test_promotion_allocates_a_promoted_result():
    d = own(np.zeros(3, np.float32))
    r = accumulate(d, np.full(3, 0.1))
    assert r is not d and r.dtype == np.float64 and is_owned(r)
    np.testing.assert_array_equal(d, 0.0)
    r = accumulate(d, 1j)
    assert r is not d and r.dtype == np.complex64
    np.testing.assert_array_equal(d, 0.0)


@needs_refcount
def test_broadcasting_into_a_takes_place_in_place_but_growing_a_allocates():
    d = own(np.zeros((2, 3)))
    assert accumulate(d, np.ones(3)) is d
    small = own(np.zeros(3))
    r = accumulate(small, np.ones((2, 3)))
    assert r is not small and r.shape == (2, 3)
    np.testing.assert_array_equal(small, 0.0)
    with pytest.raises(ValueError):
        accumulate(own(np.zeros(3)), np.ones(2))  # numpy's own error for incompatible shapes


@needs_refcount
def test_complex_arrays_accumulate_in_place():
    d = own(np.zeros(2, np.complex128))
    assert accumulate(d, np.array([1j, 2.0])) is d


def test_scalars_add_normally():
    assert accumulate(1.0, 2.0) == 3.0
    r = accumulate(np.float32(1.0), np.float32(2.0))
    assert r == 3.0 and type(r) is np.float32
    assert accumulate(1.0, Thunk(lambda: 2.0)) == 3.0


# ---------------------------------------------------------------- zeros and thunks


def test_zeros_vanish_on_either_side():
    x = np.ones(2)
    assert accumulate(ZERO, x) is x and accumulate(x, ZERO) is x
    assert accumulate(NO_TANGENT, x) is x and accumulate(x, NO_TANGENT) is x
    assert accumulate(NO_TANGENT, NO_TANGENT) is NO_TANGENT
    assert accumulate(ZERO, NO_TANGENT) is ZERO and accumulate(NO_TANGENT, ZERO) is ZERO


def test_unused_thunks_are_not_evaluated():
    fn = Counter(lambda: np.ones(2))
    thunk = Thunk(fn)
    assert accumulate(ZERO, thunk) is thunk
    assert accumulate(thunk, ZERO) is thunk
    assert fn.calls == 0
    np.testing.assert_array_equal(accumulate(thunk, np.ones(2)), [2.0, 2.0])
    assert fn.calls == 1


@needs_refcount
def test_a_thunk_added_to_an_owned_array_is_evaluated_once_and_added_in_place():
    fn = Counter(lambda: np.ones(2))
    d = own(np.zeros(2))
    assert accumulate(d, Thunk(fn)) is d and fn.calls == 1


# ---------------------------------------------------------------- InplaceableThunk


@needs_refcount
def test_inplaceable_thunk_acts_on_an_owned_buffer_without_materialising():
    d = own(np.zeros(4))
    thunk = one_hot_thunk(4, 2)
    r = accumulate(d, thunk)
    assert r is d and thunk._val.calls == 0
    np.testing.assert_array_equal(d, [0.0, 0.0, 1.0, 0.0])


def test_inplaceable_thunk_into_zero_takes_over_the_fresh_value_form():
    thunk = one_hot_thunk(4, 1)
    r = accumulate(ZERO, thunk)
    assert thunk._val.calls == 1 and is_owned(r)
    assert not thunk.val.evaluated  # the thunk keeps no reference to the value it handed over
    np.testing.assert_array_equal(r, [0.0, 1.0, 0.0, 0.0])


def test_inplaceable_thunk_into_a_user_array_acts_on_a_copy():
    user = np.ones(3)
    thunk = one_hot_thunk(3, 0)
    r = accumulate(user, thunk)
    assert r is not user and thunk._val.calls == 0 and is_owned(r)
    np.testing.assert_array_equal(user, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(r, [2.0, 1.0, 1.0])
    integers = np.ones(2, dtype=np.int64)
    r = accumulate(integers, one_hot_thunk(2, 0, 0.5))
    assert r.dtype == np.float64 and r[0] == 1.5 and integers[0] == 1


def test_inplaceable_thunk_as_first_argument_and_two_thunks():
    r = accumulate(one_hot_thunk(3, 0), one_hot_thunk(3, 1))
    np.testing.assert_array_equal(r, [1.0, 1.0, 0.0])
    r = accumulate(one_hot_thunk(3, 0), np.ones(3))
    np.testing.assert_array_equal(r, [2.0, 1.0, 1.0])


def test_an_already_evaluated_value_form_is_not_taken_over():
    thunk = one_hot_thunk(2, 0)
    seen = thunk.unthunk()
    r = accumulate(ZERO, thunk)
    assert r is seen and not is_owned(r)


@needs_refcount
def test_mysum_allocates_one_output_array():
    """Seed 002's mysum: n calls of getindex's InplaceableThunk, one output-sized allocation."""
    n = 20_000
    thunks = [one_hot_thunk(n, i, float(i)) for i in range(n)]  # built outside the measurement
    tracemalloc.start()
    dX = ZERO
    for thunk in thunks:
        dX = accumulate(dX, thunk)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    np.testing.assert_array_equal(dX, np.arange(n, dtype=float))
    assert sum(thunk._val.calls for thunk in thunks) == 1
    assert n * 8 <= peak < n * 8 * 1.5  # one array, not two


def test_mysum_time_per_element_is_small():
    n = 10_000
    start = time.perf_counter()
    dX = ZERO
    for i in range(n):
        dX = accumulate(dX, one_hot_thunk(n, i))
    per_element = (time.perf_counter() - start) / n
    assert dX.sum() == n
    print(f"mysum: {per_element * 1e6:.2f} us per element")  # reported, not asserted: timing flakes


# ---------------------------------------------------------------- structures


@needs_refcount
def test_structural_tangents_accumulate_field_by_field_in_place():
    W = own(np.zeros(2))
    t = Tangent(dict, {"W": W, "pair": (own(np.zeros(2)), 1.0)})
    w_ref = weakref.ref(W)
    del W
    r = accumulate(t, Tangent(dict, {"W": np.ones(2), "pair": (np.ones(2), 2.0), "new": 3.0}))
    assert r is t and r["W"] is w_ref()  # the tangent and its field were updated in place
    np.testing.assert_array_equal(r["W"], [1.0, 1.0])
    np.testing.assert_array_equal(r["pair"][0], [1.0, 1.0])
    assert r["pair"][1] == 3.0 and r["new"] == 3.0


def test_a_shared_structural_tangent_is_not_mutated():
    W = own(np.zeros(2))
    t = Tangent(Layer, W=W)
    alias = t
    del W
    r = accumulate(t, Tangent(Layer, W=np.ones(2), b=np.ones(1)))
    assert r is not alias and alias.W[0] == 0.0 and alias.b is ZERO
    assert r == Tangent(Layer, W=np.ones(2), b=np.ones(1))


def test_a_field_referenced_elsewhere_is_not_mutated():
    W = own(np.zeros(2))
    t = Tangent(Layer, W=W)
    r = accumulate(t, Tangent(Layer, W=np.ones(2)))
    assert r.W is not W and W[0] == 0.0


def test_nested_structures_accumulate():
    a = Tangent(dict, {"layer": Tangent(Layer, W=np.ones(2)), "items": (1.0, Tangent(tuple, (1.0,)))})
    b = Tangent(dict, {"layer": Tangent(Layer, b=np.ones(1)), "items": (2.0, Tangent(tuple, (Thunk(lambda: 2.0),)))})
    expected = Tangent(dict, {
        "layer": Tangent(Layer, W=np.ones(2), b=np.ones(1)),
        "items": (3.0, Tangent(tuple, (3.0,))),
    })
    assert accumulate(a, b) == expected


def test_inplaceable_thunks_inside_structures_act_in_place():
    t = Tangent(dict, {"x": ZERO})
    for i in range(3):
        t = accumulate(t, Tangent(dict, {"x": one_hot_thunk(3, i)}))
    np.testing.assert_array_equal(t["x"], [1.0, 1.0, 1.0])


def test_the_two_kinds_of_one_tangent_values_cotangent_add_as_its_primals():
    """In hvp a tangent value's cotangent is named by the tangent's class (a field of it read:
    Tangent(Tangent, ...)) or by its primal's (``t[0]`` of a namedtuple's tangent); the same fields,
    so they add, keeping the primal's kind (by field and by position). Other kinds still refuse."""
    import collections

    Pair = collections.namedtuple("Pair", ["lo", "hi"])
    by_field = Tangent(Tangent, {"hi": 2.0, "lo": 0.5})
    for total in (accumulate(Tangent(Pair, lo=1.0), by_field), accumulate(by_field, Tangent(Pair, lo=1.0))):
        assert total.primal_type is Pair and total[0] == 1.5 and total.hi == 2.0
    with pytest.raises(TypeError, match="different kinds of value"):
        accumulate(Tangent(Pair, lo=1.0), Tangent(dict, {"lo": 1.0}))


def test_structure_mismatches_are_errors():
    with pytest.raises(TypeError, match="different kinds of value"):
        accumulate(Tangent(Layer, W=1.0), Tangent(dict, {"W": 1.0}))
    with pytest.raises(TypeError):
        accumulate(Tangent(Layer, W=1.0), np.ones(2))
    with pytest.raises(ValueError, match="structures differ"):
        accumulate((1.0, 2.0), (1.0,))


def test_tuples_of_cotangents_accumulate_elementwise():
    assert accumulate((1.0, ZERO, np.ones(1)), (2.0, 3.0, ZERO)) == (3.0, 3.0, np.ones(1))
    assert accumulate([1.0], [2.0]) == [3.0]


@needs_refcount
def test_items_of_an_exclusive_tuple_accumulate_in_place():
    item = own(np.zeros(2))
    item_ref = weakref.ref(item)
    pair = (item, 1.0)
    del item
    r = accumulate(pair, (np.ones(2), 1.0))
    assert r[0] is item_ref() and r[1] == 2.0


# ---------------------------------------------------------------- threads


def test_concurrent_accumulation_and_release():
    errors = []

    def work(seed):
        try:
            c = np.full(4, float(seed))
            for _ in range(300):
                d = ZERO
                for _ in range(10):
                    d = accumulate(d, c)
                    d = accumulate(d, one_hot_thunk(4, seed % 4))
                release(d)
                expected = np.full(4, 10.0 * seed)
                expected[seed % 4] += 10
                if not np.array_equal(d, expected):
                    errors.append((seed, d))
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


# ---------------------------------------------------------------------- add_at: x[i] read in a loop
def test_add_at_writes_into_the_buffer_it_owns_and_never_into_an_alias():
    from s2sad.runtime.accumulate import add_at

    x = np.arange(4.0)
    d, ids = ZERO, set()
    for i in range(4):
        d = add_at(d, float(i) + 1.0, i, x)   # (the old d is alive while the new one is made: equal ids, same array)
        ids.add(id(d))
    assert len(ids) == 1 and is_owned(d)                # one buffer, written in place from the 2nd item on
    np.testing.assert_array_equal(d, [1.0, 2.0, 3.0, 4.0])
    users = np.ones(4)                                  # not owned by accumulation: never written
    out = add_at(users, 5.0, 2, x)
    assert out is not users and np.array_equal(users, np.ones(4)) and np.array_equal(out, [1, 1, 6, 1])
    alias = d
    again = add_at(d, 1.0, 0, x)                        # a second reference: a copy, the alias unchanged
    assert again is not alias and alias[0] == 1.0 and again[0] == 2.0


def test_add_at_takes_rows_fancy_indices_and_zeros():
    from s2sad.runtime.accumulate import add_at

    x = np.zeros((3, 2))
    d = add_at(ZERO, np.array([1.0, 2.0]), 1, x)
    d = add_at(d, np.array([1.0, 1.0]), 1, x)
    np.testing.assert_array_equal(d, [[0, 0], [2, 3], [0, 0]])
    assert add_at(d, ZERO, 0, x) is d
    v = add_at(ZERO, np.array([1.0, 1.0]), (np.array([0, 0]),), np.zeros(3))   # repeated fancy index adds twice
    np.testing.assert_array_equal(np.asarray(v if isinstance(v, np.ndarray) else v.unthunk()), [2.0, 0.0, 0.0])


def test_add_at_leaves_a_read_only_owned_value_alone():
    from s2sad.runtime.accumulate import add_at

    frozen = own(np.broadcast_to(np.ones(1), (4,)))   # a thunk's value form may be a read-only view
    out = add_at(frozen, 2.0, 1, np.zeros(4))
    assert out is not frozen and np.array_equal(out, [1, 3, 1, 1]) and np.array_equal(frozen, np.ones(4))


def test_add_at_into_an_element_reads_thunk():
    """``dy = untake(g1, 1, y); dy = add_at(dy, g0, 0, y)``, as the pullback of ``y[0], y[1]``
    reads: the thunk's value form is taken over (computed once) and takes ``g0`` in place; a
    value form that is not ours (seen before), read-only or of integers is never written."""
    from s2sad.runtime.accumulate import add_at
    from s2sad.runtime.indexing import untake

    y = np.array([2.0, 3.0, 5.0])
    d = add_at(untake(0.5, 1, y), 0.25, 0, y)
    assert d.dtype == np.float64 and is_owned(d)
    np.testing.assert_array_equal(d, [0.25, 0.5, 0.0])
    d = add_at(untake(np.float64(0.5), 2, y.astype(np.float32)), np.float64(1.5), 2, y.astype(np.float32))
    assert d.dtype == np.float32
    np.testing.assert_array_equal(d, [0.0, 0.0, 2.0])
    thunk = one_hot_thunk(3, 1)
    d = add_at(thunk, 2.0, 1, y)
    assert thunk._val.calls == 1
    np.testing.assert_array_equal(d, [0.0, 3.0, 0.0])
    seen = one_hot_thunk(3, 2)
    value = seen.unthunk()                              # someone saw the value form: a copy takes the sum
    d = add_at(seen, 1.0, 0, y)
    assert d is not value and np.array_equal(value, [0.0, 0.0, 1.0]) and np.array_equal(d, [1.0, 0.0, 1.0])
    frozen = InplaceableThunk(lambda buffer: buffer, lambda: np.broadcast_to(np.ones(1), (3,)))
    d = add_at(frozen, 2.0, 1, y)
    np.testing.assert_array_equal(d, [1.0, 3.0, 1.0])
