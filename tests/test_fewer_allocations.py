"""s2sad/codegen/fewer_allocations.py: each pass as source before and after, and the cases it must
leave alone (where the rewrite could change what the code computes)."""
import textwrap

import libcst as cst
import pytest

from s2sad.codegen.fewer_allocations import fewer_allocations


def rewritten(source: str) -> str:
    return fewer_allocations(cst.parse_module(textwrap.dedent(source))).code


def same(source: str) -> None:
    assert rewritten(source) == textwrap.dedent(source)


# ---------------------------------------------------------------- lists made for np.array
def test_a_list_made_only_for_np_array_is_a_tuple():
    before = textwrap.dedent("""
        def f_forward(a, b):
            elements = [a * b, b, 2]
            result = np.array(elements)
            return result, (elements, result,)
        def f_reverse(saved, dresult):
            elements, result, = saved
            delements = array_vjp_object(dresult, result, elements, None, True, 'K', False, 0, 0, None)
            return 0.0, delements
    """)
    assert rewritten(before) == before.replace("[a * b, b, 2]", "(a * b, b, 2)").replace(
        "(elements, result,)", "(elements, shape_like(result),)")   # `result`: array_vjp_object reads no value of it


def test_a_one_element_list_is_a_one_element_tuple():
    assert "elements = (a,)" in rewritten("""
        def f(a):
            elements = [a]
            return np.array(elements)
    """)


def test_a_list_read_any_other_way_stays_a_list():
    same("""
        def f(a, b):
            elements = [a, b]
            elements.append(a)
            return np.array(elements)
    """)
    same("""
        def f(a, b):
            elements = [a, b]
            return np.array(elements) * len(elements)
    """)
    same("""
        def f(a, b):
            elements = [a, *b]
            return np.array(elements)
    """)


# ---------------------------------------------------------------- zeros the block replaces
def test_zeros_a_block_replaces_move_to_its_else():
    assert rewritten("""
        def f(g, x, y):
            dx = zero_like(x)
            dy = zero_like(y)
            if nonzero(g):
                dx = unbroadcast(g, x)
                dy = unbroadcast(-g, y)
                dy = accumulate(dy, g)
            return dx, dy
    """) == textwrap.dedent("""
        def f(g, x, y):
            if nonzero(g):
                dx = unbroadcast(g, x)
                dy = unbroadcast(-g, y)
                dy = accumulate(dy, g)
            else:
                dx = zero_like(x)
                dy = zero_like(y)
            return dx, dy
    """)


# blocks after `dx = zero_like(x)` that must see (or may leave) the zeros: they stay where they are
ZEROS_KEPT = {
    "read_by_the_block": "if nonzero(g):\n    dx = accumulate(dx, g)",
    "assigned_in_a_nested_block": "if nonzero(g):\n    if g > 0:\n        dx = g",
    "read_by_the_test": "if nonzero(dx):\n    dx = g",
    "an_else_already": "if nonzero(g):\n    dx = g\nelse:\n    g = 1.0",
    "a_break_before": "if nonzero(g):\n    break\n    dx = g",
}


@pytest.mark.parametrize("name", sorted(ZEROS_KEPT))
def test_zeros_the_block_may_read_or_leave_unassigned_stay_before_it(name):
    same("def f(g, x):\n    for i in range(3):\n        dx = zero_like(x)\n"
         + textwrap.indent(ZEROS_KEPT[name], " " * 8) + "\n    return dx\n")


# ---------------------------------------------------------------- shapes handed over
def test_an_array_the_reverse_reads_only_for_its_shape_is_handed_over_as_its_shape():
    before = textwrap.dedent("""
        def f_forward(a, b):
            a_mul_b = a * b
            result = a_mul_b + b
            return result, (a, b, a_mul_b,)
        def f_reverse(saved, dresult):
            a, b, a_mul_b, = saved
            da_mul_b = unbroadcast(dresult, a_mul_b)
            db = unbroadcast(dresult, b)
            da = unbroadcast(da_mul_b * conj(b), a)
            db = accumulate(db, unbroadcast(da_mul_b * conj(a), b))
            return 0.0, da, db
    """)
    assert rewritten(before) == before.replace("(a, b, a_mul_b,)", "(a, b, shape_like(a_mul_b),)")


def test_nothing_is_handed_over_as_a_shape_where_its_values_may_be_read():
    same("""
        def f_forward(a):
            return a, (a,)
        def f_reverse(saved, dresult):
            a, = saved
            da = unbroadcast(dresult, a) * len(a)
            return 0.0, da
    """)
    same("""
        def f_forward(a):
            return a, (a,)
        def f_reverse(saved, dresult):
            a, = saved
            a = a * 2.0
            return 0.0, unbroadcast(dresult, a)
    """)
    # a `return` whose tuple names other values than a reverse unpacks (a fused function's gradients)
    same("""
        def f_forward(a):
            return a, (a, 1.0,)
        def f_reverse(saved, dresult):
            b, c, = saved
            return 0.0, unbroadcast(dresult, b)
        def g(b, db):
            return b, (db,)
    """)
