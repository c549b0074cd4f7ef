"""In-place writes as NumPy performs them (issue 15, item 3).

Every gradient is checked against central finite differences of the plain NumPy function,
in reverse mode (grad) and forward mode (jvp along a fixed direction); a write s2sad cannot
differentiate exactly must be refused at the line that writes."""
import inspect
import os

import numpy as np
import pytest

import inplace_programs as programs
import s2sad
from finite_differences import numerical_gradient
from s2sad.errors import S2SADError, UnsupportedSyntaxError

rng = np.random.default_rng(15)


def r(*shape):
    return rng.standard_normal(shape)


EXACT = {
    "scatter_with_repeated_indices": r(3),
    "assign_with_repeated_indices": r(3),
    "negative_index_aliasing_a_positive_one": r(2),
    "scatter_from_index_variable": r(4),
    "accumulate_from_index_variable": r(4),
    "scatter_without_repeats": r(3),
    "assign_through_a_mask": 0.7,
    "fancy_index_in_two_dimensions": r(3),
    "fancy_index_and_slice": r(2),
    "fancy_rows_from_a_variable": r(2, 2, 2),
    "scatter_in_a_loop": r(3),
    "histogram_like": r(5),
    "subtract_at_2d": r(3),
    "add_at_a_scalar": 0.3,
    "write_after_the_view_was_read": r(3),
    "view_taken_after_the_write": r(4),
    "running_sum": r(4),
    "replace_a_slot_of_a_list": r(3),
    "number_under_two_names": 0.4,
    "ufunc_with_out": r(3),
    "broadcast_into_out": r(3),
    "variables_named_like_the_code_they_become": r(3),
    "tuple_swap_then_write": r(3),
    "augmented_item_of_a_dict_fresh": r(3),
    "augmented_item_of_a_list_of_numbers": r(3),
    "one_number_bound_to_two_names": r(3),
    "chained_assignment_evaluates_its_call_once": r(3),
    "outputs_returned_with_the_state": r(3),
    "rows_of_a_grid": r(3),
    "previous_state_read_after_the_append": r(3),
    "parameters_updated_over_their_keys": r(3),  # refused before: the key seemed to share the arrays
    "slot_of_a_list_copy_given_a_new_array": r(3),
    "entry_of_a_dict_copy_given_a_new_array": r(3),
    "parameters_updated_over_their_items": r(3),
}


def _direction(x):
    return np.linspace(0.5, 1.5, np.size(x)).reshape(np.shape(x)) if np.ndim(x) else 0.8


@pytest.mark.parametrize("name", sorted(EXACT))
def test_reverse_mode_matches_finite_differences(name):
    function, x = getattr(programs, name), EXACT[name]
    value, gradient = s2sad.value_and_grad(function)(x)
    assert value == pytest.approx(function(x), rel=1e-12)
    np.testing.assert_allclose(gradient, numerical_gradient(function, [x], 0), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", sorted(EXACT))
def test_forward_mode_matches_finite_differences(name):
    function, x = getattr(programs, name), EXACT[name]
    direction = _direction(x)
    value, tangent = s2sad.jvp(function, (x,), (direction,))
    assert value == pytest.approx(function(x), rel=1e-12)
    expected = np.sum(numerical_gradient(function, [x], 0) * direction)
    assert tangent == pytest.approx(expected, rel=1e-5, abs=1e-7)


def test_a_repeated_index_gets_the_cotangent_of_the_last_write_only():
    # by hand: y = [x0, 0, x2] (x1 is overwritten by x2), so d sum(y * [1, 2, 3]) = [1, 0, 3]
    gradient = s2sad.grad(programs.scatter_with_repeated_indices)(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(gradient, [1.0, 0.0, 3.0])


def test_add_at_counts_every_occurrence():
    # by hand: counts = [x0, x3, x1 + x2 + x4], d sum(counts ** 2) = 2 * counts[bin of each x]
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    gradient = s2sad.grad(programs.histogram_like)(x)
    np.testing.assert_allclose(gradient, [2.0, 20.0, 20.0, 8.0, 20.0])


REFUSED = {  # name -> (the user's text on the refused line, a word the message must hold)
    "write_through_reshape": ("r[0, 0] = 3 * x[1]", "`b`"),
    "write_through_transpose": ("t[0] -= x[0]", "`b`"),
    "scale_a_slice_view": ("v *= x[0]", "`b`"),
    "write_then_read_through_the_view": ("b[1, 1] = x[0]", "`flat`"),
    "same_array_under_two_names": ("y += x", "`z`"),
    "write_to_an_asarray_of_an_argument": ("a[0] = 0.0", "`x`"),
    "row_of_a_loop_written": ("row[0] = 1.0", "`m`"),
    "multiply_at": ("np.multiply.at(y, [0, 0], x)", "np.multiply.at"),
    "list_under_two_names": ("xs += [x * 2.0]", "`ys`"),
    "put_into": ("np.put(y, [0], 5.0)", "np.put"),
    "method_with_out": ("np.outer(x, x).sum(axis=0, out=y)", "out="),
    "write_into_what_a_dict_holds": ("w[0] = 1.0", "`d`"),
    "write_into_what_a_list_slot_was_given": ("first += x", "`c`"),  # gave a wrong gradient before
    "fresh_each_iteration_but_named_twice": ("nxt[0] = 2.0 * cur[0]", "`keep`"),
    "augmented_item_of_a_list_shared": ("items[0] += 1.0", "`a`"),  # gave a wrong gradient before
    "augmented_item_of_a_dict_shared": ('weights["w"] -= 0.1', "`w`"),  # gave a wrong gradient before
    "one_array_bound_to_two_names": ("a[0] = x[1]", "`b`"),  # gave a wrong gradient before
    # a list changed while another name sees it: each crashed or gave a wrong gradient before
    "list_appended_through_another_name": ("b.append(x * 3.0)", "`a`"),
    "list_appended_after_a_tuple_holds_it": ("xs.append(x * 5.0)", "`t`"),
    "list_appended_after_a_dict_holds_it": ("xs.append(x * 5.0)", "`d`"),
    "list_slot_written_after_a_tuple_holds_it": ("xs[0] = x * 5.0", "`t`"),
    "list_popped_through_another_name": ("b.pop()", "`a`"),
    "list_extended_through_another_name": ("b.extend([x * 4.0])", "`a`"),
    "history_appended_through_an_alias_in_a_loop": ("current.append(x * k)", "`history`"),
    "inner_list_taken_out_and_appended": ("first.append(x * 7.0)", "`first`"),
    "inner_list_reached_through_zip": ("row.append(x * k)", "`row`"),
    "item_unpacked_before_its_list_is_appended": ("xs.append(x * 5.0)", "`first`"),
    "inner_list_reached_through_reversed": ("row.append(x * 3.0)", "`row`"),
    "list_appended_after_reversed_read_it": ("xs.append(x * 5.0)", "`backwards`"),
    "parameters_updated_while_a_name_holds_one": ("params[k] -= 0.1 * params[k]", "`first`"),
    "list_extended_with_plus_equals_after_a_tuple_holds_it": ("xs += [x * 2.0]", "`t`"),  # gave a wrong gradient before
    # a shallow copy (`list(a)`, `dict(d)`, `sorted(a)`, `tuple(a)`, `list(m)` of an array's rows) holds the
    # very arrays: each gave a wrong gradient before (errors 0.5 to 8)
    "item_of_a_list_copy_changed": ("v += 1.0", "`a`"),
    "item_of_a_dict_copy_changed": ("w *= 3.0", "`d`"),
    "item_of_a_sorted_copy_changed": ("b[0] += 1.0", "`a`"),
    "item_of_a_tuple_copy_written": ("c[2] = -1.0", "`a`"),
    "item_unpacked_from_a_list_copy_written": ("first[0] = 9.0", "`a`"),
    "row_of_a_list_of_rows_changed": ("r += 1.0", "`m`"),
    # a value walked by `.items()` of a dict keyed by literals was taken for a key (errors 0.5 to 4 before)
    "value_of_a_dict_walked_by_items_changed": ("v *= 2.0", "`params`"),
    "value_of_a_dict_comprehension_copy_written": ("w[0] = 5.0", "`a`"),
}


def _line_of(function, text):
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_write_that_other_names_see_is_refused_at_its_line(name, mode):
    function, (text, word) = getattr(programs, name), REFUSED[name]
    x = np.array([0.3, -1.2, 0.8, 2.0])
    with pytest.raises(UnsupportedSyntaxError) as caught:
        if mode == "reverse":
            s2sad.grad(function)(x)
        else:
            s2sad.jvp(function, (x,), (np.ones(4),))
    error = caught.value
    assert isinstance(error, S2SADError)
    # refused when generated (a file's full path) or, for `y += v` on what turns out to be an
    # array or a list, when it runs (the generated code's comment names the file)
    assert os.path.basename(error.location.filename) == os.path.basename(programs.__file__)
    assert error.location.line == _line_of(function, text)
    assert word in error.message and text in str(error) and error.hint


def test_the_refused_programs_really_change_what_another_name_sees():
    # the reason for refusing: in NumPy the write shows through the other name
    x = np.array([0.3, -1.2, 0.8, 2.0])
    assert programs.write_through_reshape(x) == pytest.approx(3 * x[1] * x[0])
    assert programs.scale_a_slice_view(x) == pytest.approx(4 * 1.0 + 4 * x[0] ** 2)
    assert programs.same_array_under_two_names(x[:2]) == pytest.approx(np.sum((3 * x[:2]) ** 2))
    assert programs.augmented_item_of_a_list_shared(x) == pytest.approx(np.sum((x + 1.0) ** 2))
    assert programs.one_array_bound_to_two_names(x) == pytest.approx(x[1] * x[0])
    assert programs.list_appended_through_another_name(x) == pytest.approx(np.sum((3.0 * x) ** 2))
    assert programs.list_appended_after_a_tuple_holds_it(x) == pytest.approx(5.0 * np.sum(x))
    assert programs.list_slot_written_after_a_tuple_holds_it(x) == pytest.approx(5.0 * np.sum(x))
    assert programs.list_popped_through_another_name(x) == pytest.approx(2.0 * np.sum(x))
    assert programs.history_appended_through_an_alias_in_a_loop(x) == pytest.approx(3.0 * np.sum(x))
    assert programs.inner_list_taken_out_and_appended(x) == pytest.approx(7.0 * np.sum(x))
    assert programs.item_unpacked_before_its_list_is_appended(x) == pytest.approx(5.0 * np.sum(x))
    assert programs.list_extended_with_plus_equals_after_a_tuple_holds_it(x) == pytest.approx(2.0 * np.sum(x))
    assert programs.item_of_a_list_copy_changed(x) == pytest.approx(np.sum((x + 1.0) * x))
    assert programs.item_of_a_dict_copy_changed(x) == pytest.approx(3.0 * np.sum(x * x))
    assert programs.row_of_a_list_of_rows_changed(x) != pytest.approx(np.sum(np.outer(x, x) * x))


def test_augmented_assignment_keeps_the_arrays_dtype_as_numpy_does():
    x = r(3)
    expected = programs.accumulate_in_float32(x)
    assert expected.dtype == np.float32
    value, pullback = s2sad.vjp(programs.accumulate_in_float32, x)
    assert value.dtype == np.float32 and np.array_equal(value, expected)
    (gradient,) = pullback(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    np.testing.assert_allclose(gradient, [1.0, 2.0, 3.0])  # by hand: y = float32(x), the identity
    value, tangent = s2sad.jvp(programs.accumulate_in_float32, (x,), (np.ones(3),))
    assert value.dtype == np.float32 and tangent.dtype == np.float32 and np.array_equal(value, expected)


@pytest.mark.parametrize("function, error", [(programs.accumulate_into_integers, TypeError),
                                             (programs.accumulate_integers_at_an_index, TypeError),
                                             (programs.grow_by_broadcasting, ValueError)],
                         ids=["int += float", "int[index] += float", "grow"])
def test_an_augmented_assignment_numpy_refuses_fails_the_same_way(function, error):
    x = r(3)
    with pytest.raises(error):
        function(x)
    with pytest.raises(error):
        s2sad.grad(function)(x)


@pytest.mark.parametrize("function", [programs.write_into_an_arguments_field, programs.write_into_what_a_method_returns])
def test_a_write_into_an_array_an_argument_holds_is_refused(function):
    """A method of the user's class may return an array its object holds (was a silent wrong gradient)."""
    params, x = programs.Params(np.ones(3)), r(3)
    with pytest.raises(UnsupportedSyntaxError) as caught:
        s2sad.grad(function, argnums=1)(params, x)
    assert caught.value.location.line == _line_of(function, "w[0] = x[0]")
    assert "`params`" in caught.value.message and np.array_equal(params.W, np.ones(3))


def test_an_element_written_in_place_is_named_as_the_user_wrote_it():
    # the refusal named the generated temporary `params_k` before
    with pytest.raises(UnsupportedSyntaxError) as caught:
        s2sad.grad(programs.parameters_updated_while_a_name_holds_one)(np.array([0.3, -1.2, 0.8]))
    assert "`params[k]` in place" in caught.value.message and "params_k" not in str(caught.value)
