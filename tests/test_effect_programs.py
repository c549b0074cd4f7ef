"""The effect corpus (tests/effect_programs.py): programs whose values are changed by effects
(methods changing their object, closures, views and aliases, library calls with state), each
differentiated in grad, jvp and hvp, and a few with compile=True.

Every result is checked against the plain NumPy function in float64, evaluated on copies of the
arguments: the value; the caller's arrays changed exactly as the plain function changes them;
NumPy's global random state (a module-level Generator's, Python's random module's) left as the plain call leaves it;
and the derivative along random directions against central differences (second differences
for hvp), each evaluation from the same random state.

A program s2sad refuses is listed in REFUSED with a fragment of the message, per mode; the test
checks the refusal is an s2sad error naming this corpus's file and line, so a refusal cannot
pass for a crash, and a refusal that lifts fails until its numbers are checked here.
"""
import copy
import inspect
import random
import warnings

import numpy as np
import pytest

import effect_programs as p
import s2sad
from s2sad.errors import S2SADError

MODES = ("grad", "jvp", "hvp")

HELPERS = {"make_box", "grow", "bump", "write_both", "write_first", "counting", "helper_with_a_buffer_default",
           "counted_square", "first_half", "same", "pack", "cached_scale", "apply"}
PROGRAMS = sorted(name for name, value in vars(p).items()
                  if inspect.isfunction(value) and value.__module__ == p.__name__ and name not in HELPERS)

# compile=True as well: the programs whose compiled code could differ from the NumPy path's
COMPILED = ("seeded_global_noise", "unseeded_global_noise", "numpy_random_under_another_name",
            "numpy_random_function_imported", "python_random_seeded", "python_random_unseeded", "seeded_generator_noise", "module_generator_consumed",
            "random_permutation_index", "out_multiply_into_first", "running_sum_in_place", "overlapping_slice_copy",
            "nonlocal_counter", "nested_default_keeps_its_array", "sort_in_place", "copyto_values")

# name -> the fragment of the refusal in every mode, or {mode: fragment} for the modes refused
REFUSED = {
    'alias_carried_by_a_loop': 'this augmented assignment changes the ndarray `w` ',
    'alias_made_in_a_branch': 'this augmented assignment changes the ndarray `w` ',
    'argument_changed_in_place': 'this augmented assignment changes the argument `x`',
    'argument_view_changed_in_place': 'this changes `v` in place, and it is the caller\'s `x`',
    'array_no_copy_written': 'this augmented assignment changes the ndarray `w` ',
    'array_resize': '`.resize(...)` changes a value in place, which s2s',
    'array_split_written': '`parts[...] = ...` changes memory that `z` shares ',
    'as_strided_written': 'no rule for `np.lib.stride_tricks.as_strided` (num',
    'asanyarray_written': '`w[...] = ...` changes memory that `z` shares (a v',
    'asarray_view_written': 'this augmented assignment changes the ndarray `a` ',
    'ascontiguousarray_written': 'this augmented assignment changes the ndarray `w` ',
    'astype_no_copy_written': 'this augmented assignment changes the ndarray `w` ',
    'atleast_1d_written': 'this augmented assignment changes the ndarray `w` ',
    'atleast_2d_view_written': '`m[...] = ...` changes memory that `z` shares (a v',
    'cached_property_stale_after_a_rebinding': 's2sad cannot differentiate reading `Lazy.energy`: ',
    'callable_with_state': '`self.total = ...` changes an object the function ',
    'choice_of_values': {'grad': 'no rule for the method `Generator.choice`', 'jvp': 'no forward rule for the method `Generator.choice`', 'hvp': 'no rule for the method `Generator.choice`'},
    'class_attribute_through_an_instance': '`Holder.k = ...` changes `Holder`, an object the f',
    'class_attribute_written': '`Holder.k = ...` changes `Holder`, an object the f',
    'clip_out_self': '`.clip(..., out=...)` writes into an array in plac',
    'colon_view_written': 'this augmented assignment changes the ndarray `w` ',
    'column_written_in_a_loop': '`col[...] = ...` changes memory that `z` shares (a',
    'conditional_alias_augmented': 'this augmented assignment changes the ndarray `w` ',
    'conditional_view_written': '`w[...] = ...` changes memory that `z` shares (a v',
    'context_manager_changing_an_object': {'grad': 'no rule for the derivative of the value `with ... ', 'jvp': 'no rule for the derivative of the value `with ... ', 'hvp': 'no rule for `unsuppressed` (s2sad.runtime.contexts'},
    'copyto_one_half_from_the_other': '`np.copyto(...)` is differentiated only as `np.cop',
    'dataclass_replace_then_in_place': '`t.pos = ...` changes an object the function did n',
    'decorator_with_state': "only a local variable's elements can be assigned (",
    'default_buffer_written_into': '`helper_with_a_buffer_default` changes its argumen',
    'default_captures_the_array_not_the_name': 'this augmented assignment changes the ndarray `z` ',
    'deque_append_popleft': '`d` is a list, dict or array the function did not make it',
    'deque_rotation': '`d.rotate(1)` calls `.rotate` on a differentiated ',
    'dict_get_written': 'changes the ndarray `v` in place, and `d` shares it',
    'dict_item_augmented': 'this augmented assignment changes the ndarray `d["',
    'dict_of_object': "only a variable's elements can be assigned (`y[i] ",
    'dict_update_and_pop': '`.update(...)` changes a value in place, which s2s',
    'ellipsis_view_written': 'this augmented assignment changes the ndarray `w` ',
    'expand_dims_written': '`w[...] = ...` changes memory that `z` shares (a v',
    'explicit_dunder_iadd': {'grad': 'no rule for the method `ndarray.__iadd__`', 'jvp': 'no forward rule for the method `ndarray.__iadd__`', 'hvp': 'no rule for the method `ndarray.__iadd__`'},
    'field_array_changed_through_its_first_name': 'this augmented assignment changes the ndarray `z` ',
    'fill_in_place': '`w[...] = ...` changes memory that `z` shares (a v',
    'flat_written': "only a variable's elements can be assigned (`y[i] ",
    'flip_written': '`w[...] = ...` changes memory that `z` shares (a v',
    'flipud_written': '`w[...] = ...` changes memory that `z` shares (a v',
    'generator_consumed_twice': 'a generator expression stored to be read later: it',
    'generator_expression_sees_a_later_write': 'a generator expression stored to be read later: it',
    'generator_shuffle': '`rng.shuffle(z)` calls the method `.shuffle` with ',
    'generator_with_state': 'a nested generator is not supported',
    'getattr_fallback_read': 's2sad cannot differentiate reading `Fallback.anyth',
    'getattr_returns_a_field': 'no rule for `getattr` (builtins.getattr), and it h',
    'global_normal_with_loc': {'grad': 'no rule for the derivative of a random draw in its', 'jvp': 'no rule for the derivative of a random draw in its', 'hvp': 'no rule for the derivative of a random draw in its'},
    'global_shuffle': '`np.random.shuffle(...)` changes an array in place',
    'heap_of_floats': 'no rule for `heapq.heappush` (_heapq.heappush), an',
    'helper_changing_a_field_in_place': '`bump(box, y)` gives bump a differentiated value, ',
    'helper_rebinding_a_field': '`grow(box, y)` gives grow a differentiated value, ',
    'helper_returns_a_list_holding_its_argument': '`p[...] = ...` changes memory that `z` shares (a v',
    'helper_returns_a_view': 'this augmented assignment changes the ndarray `h` ',
    'helper_returns_its_argument': 'this augmented assignment changes the ndarray `w` ',
    'helper_writes_an_argument_view': '`write_first(z[1:])` gives write_first a different',
    'insort_floats': 'no rule for `bisect.insort` (_bisect.insort_right)',
    'itemgetter_returns_an_item': '`first = operator.itemgetter(0)([z, y])` calls the',
    'iter_next_twice': '`iter(...)` of differentiated values is not differentiated',
    'iterated_rows_written': 'this augmented assignment changes the ndarray `row',
    'iterator_class': '`for v in xs` is given an object of `Rows`, whose ',
    'lambda_given_to_a_helper_after_a_write': 'a lambda used as a value reads `z`, which the func',
    'lambda_value_sees_a_write_in_place': 'a lambda used as a value reads `z`, which the func',
    'late_binding_lambdas': 'a lambda used as a value reads `k`, which the func',
    'list_holding_one_array_twice': 'this augmented assignment changes the ndarray `a` ',
    'list_item_augmented': 'this augmented assignment changes the ndarray `pai',
    'list_reverse_in_place': '`.reverse(...)` changes a value in place, which s2',
    'list_sort_with_key': '`.sort(key=..., reverse=...)` of a list changes it',
    'loop_over_a_view_written_ahead': '`z[...] = ...` changes memory that `z_slice` share',
    'loop_over_rows_writing_the_next': '`m[...] = ...` changes memory that `m_slice` share',
    'loop_over_zip_of_an_array_and_its_shift': '`z[...] = ...` changes memory that `z_slice` share',
    'map_consumed_twice': '`map(...)` gives an iterator, which its first pass',
    'map_sees_a_later_write': '`map(...)` gives an iterator, which its first pass',
    'max_returns_one_of_its_arguments': 'this augmented assignment changes the ndarray `m` ',
    'method_in_place_chained': '`self.total = ...` changes an object the function ',
    'method_rebinding_then_read': '`self.total = ...` changes an object the function ',
    'method_returns_a_field_written': 'changes the ndarray `w` in place, and `h` shares it',
    'min_of_two_arrays_by_key': 'this augmented assignment changes the ndarray `m` ',
    'module_buffer_overwritten': "only a local variable's elements can be assigned (",
    'module_dict_cache': "only a local variable's elements can be assigned (",
    'module_list_appended': '`.clear(...)` changes a value in place, which s2sa',
    'moveaxis_written': '`w[...] = ...` changes memory that `z` shares (a v',
    'namedtuple_replace_then_in_place': "only a variable's elements can be assigned (`y[i] ",
    'nditer_readwrite': '`v[...] = ...` changes memory that `it` shares (a ',
    'nested_default_written_in_place_later': 'this augmented assignment changes the ndarray `z` ',
    'nested_function_given_to_a_helper_after_a_rebinding': 'the nested function `g` used as a value reads `z`, which',
    'newaxis_view_written': '`m[...] = ...` changes memory that `z` shares (a v',
    'next_of_iter_returns_an_item': '`iter(...)` of differentiated values is not differentiated',
    'normal_with_loc': {'grad': 'no rule for the method `Generator.normal`', 'jvp': 'no forward rule for the method `Generator.normal`', 'hvp': 'no rule for the method `Generator.normal`'},
    'np_ravel_view_written': 'this augmented assignment changes the ndarray `r` ',
    'object_in_a_dict_changed': '`a.w = ...` changes an object the function did not',
    'object_in_a_list_rebound_through_its_name': '`box.w = ...` changes the object `boxes` also name',
    'object_made_here_changed_through_an_alias': '`same.w = ...` changes the object `box` also names',
    'object_returned_from_helper': '`box.w = ...` changes an object the function did n',
    'objects_in_a_list_changed_in_place_through_one_name': '`first.w = ...` changes an object the function did',
    'objects_in_a_list_changed_through_one_name': '`first.w = ...` changes an object the function did',
    'one_array_as_two_arguments': 'this augmented assignment changes the argument `a`',
    'operator_iadd': 'no rule for `operator.iadd` (_operator.iadd), and ',
    'out_into_a_slice_of_itself': '`np.add(..., out=...)` is differentiated only with',
    'overridden_method_through_named_super': {'grad': 'no rule for `super` (builtins.super), and it has n', 'jvp': 'no forward rule for `super` (builtins.super)', 'hvp': 'no rule for `super` (builtins.super), and it has n'},
    'partial_holding_a_changed_array': 'a `functools.partial(...)` holding a differentiated value',
    'partial_of_a_users_function': 'this augmented assignment changes the argument `a`',
    'partition_in_place': '`.partition(...)` changes a value in place, which ',
    'permutation_of_values': {'grad': 'no rule for the method `Generator.permutation`', 'jvp': 'no forward rule for the method `Generator.permutat', 'hvp': 'no rule for the method `Generator.permutation`'},
    'place_values': '`np.place(...)` changes an array in place, which s',
    'pop_returns_the_held_array': 'this augmented assignment changes the ndarray `las',
    'post_init_value_stale_after_a_rebinding': 'constructing `Normed` is not differentiated: it is',
    'property_returns_a_field_written': 'this augmented assignment changes the ndarray `w` ',
    'property_setter': 's2sad cannot differentiate assigning `Scaled.k`: i',
    'put_values': '`np.put(...)` changes an array in place, which s2s',
    'ravel_view_written': '`r[...] = ...` changes memory that `z` shares (a v',
    'real_function_written': 'this augmented assignment changes the ndarray `w` ',
    'real_view_written': "only a variable's elements can be assigned (`y[i] ",
    'reduce_returns_an_item': 'this augmented assignment changes the ndarray `fir',
    'reshape_minus_one_written': '`w[...] = ...` changes memory that `z` shares (a v',
    'reshape_view_written': '`r[...] = ...` changes memory that `z` shares (a v',
    'rot90_written': '`w[...] = ...` changes memory that `z` shares (a v',
    'setattr_field': 'no rule for `setattr` (builtins.setattr), and it h',
    'setdefault_returns_the_held_array': '`.setdefault(...)` changes a value in place, which',
    'shallow_copied_object_written_in_place': 'this augmented assignment changes the ndarray `w_o',
    'slice_view_written': 'this augmented assignment changes the ndarray `s` ',
    'sliding_window_read': {'grad': 'no rule for `np.lib.stride_tricks.sliding_window_v', 'jvp': 'no forward rule for `np.lib.stride_tricks.sliding_', 'hvp': 'no forward rule for `np.lib.stride_tricks.sliding_'},
    'sort_a_reversed_view': '`.sort(...)` changes a value in place, which s2sad',
    'sort_a_slice': '`.sort(...)` changes a value in place, which s2sad',
    'split_views_written': 'this augmented assignment changes the ndarray `a` ',
    'squeeze_view_written': 'this augmented assignment changes the ndarray `s` ',
    'swapaxes_view_written': '`s[...] = ...` changes memory that `z` shares (a v',
    'transpose_view_written': '`t[...] = ...` changes memory that `z` shares (a v',
    'transposed_row_written': "only a variable's elements can be assigned (`y[i] ",
    'tuple_item_written': 'changes memory that `z` shares',
    'two_objects_sharing_one_array': 'this augmented assignment changes the ndarray `w_f',
    'unpacked_twice_then_augmented': 'this augmented assignment changes the ndarray `a` ',
    'user_iadd': '`+` is given an object of `Vec`, whose class defin',
    'user_setitem': '`x[i] = v` is given an object of `Grid`, whose cla',
    'view_dtype_written': 'this augmented assignment changes the ndarray `w` ',
    'view_method_written': 'this augmented assignment changes the ndarray `v` ',
    'zip_one_iterator_twice': '`iter(...)` of differentiated values is not differentiated',
}

# refusals that name s2sad's rules, not this corpus's line: hvp of forward code that reaches a rule
# written in Python (a gap in where the error points, listed so that its fix shows here)
NOT_NAMING_THE_LINE: set = set()  # (each refusal names the user's line, hvp's inside a rule with "reached from")


def _arguments(name):
    rs = np.random.RandomState(sum(map(ord, name)))
    count = len(inspect.signature(getattr(p, name)).parameters)
    return [rs.randn(6) * 0.7 + 0.1 for _ in range(count)]


_GENERATOR_START = copy.deepcopy(p.MODULE_RNG.bit_generator.state)


def _reset_random_state():
    np.random.seed(99)
    random.seed(98)
    p.MODULE_RNG.bit_generator.state = copy.deepcopy(_GENERATOR_START)


def _random_states():
    return np.random.get_state()[1].copy(), copy.deepcopy(p.MODULE_RNG.bit_generator.state), random.getstate()


def _from_the_same_state(function):
    def evaluated(*args):
        _reset_random_state()
        return function(*copy.deepcopy(args))
    return evaluated


def _plain(function, args):
    given = copy.deepcopy(args)
    _reset_random_state()
    value = function(*given)
    return value, given, _random_states()


def _slope(f, args, v, h=1e-6):
    return (f(*[a + h * d for a, d in zip(args, v)]) - f(*[a - h * d for a, d in zip(args, v)])) / (2 * h)


def _second_slope(f, args, v, u, h=1e-4):
    def at(s, t):
        return f(*[a + s * h * dv + t * h * du for a, dv, du in zip(args, v, u)])
    return (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h * h)


def _differentiated(function, mode, given, v, u):
    """(value or None, the derivative along ``v`` (and ``u`` for hvp)), s2sad's."""
    _reset_random_state()
    if mode in ("grad", "compiled"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the compiled path may fall back to NumPy's, saying so
            value, gradients = s2sad.value_and_grad(function, argnums=tuple(range(len(given))),
                                                    compile=mode == "compiled")(*given)
        return value, sum(np.sum(g * d) for g, d in zip(gradients, v))
    if mode == "jvp":
        return s2sad.jvp(function, given, v)
    products = s2sad.hvp(function, given, v)
    products = products if isinstance(products, tuple) else (products,)
    return None, sum(np.sum(q * d) for q, d in zip(products, u))


def _refusal(name, mode):
    listed = REFUSED.get(name)
    return listed.get(mode) if isinstance(listed, dict) else listed


def _check(name, mode):
    function, args = getattr(p, name), _arguments(name)
    rs = np.random.RandomState(len(name))
    v, u = [rs.randn(6) for _ in args], [rs.randn(6) for _ in args]
    expected_value, expected_args, expected_states = _plain(function, args)
    given = copy.deepcopy(args)
    refusal = _refusal(name, mode if mode != "compiled" else "grad")
    if refusal is not None:
        with pytest.raises(S2SADError) as raised:
            _differentiated(function, mode, given, v, u)
        assert refusal in str(raised.value), str(raised.value)
        assert ("effect_programs.py:" in str(raised.value)) != ((name, mode) in NOT_NAMING_THE_LINE), str(raised.value)
        return
    value, slope = _differentiated(function, mode, given, v, u)
    assert _random_states()[0].tolist() == expected_states[0].tolist(), "NumPy's global random state"
    assert _random_states()[1] == expected_states[1], "the module's Generator's state"
    assert _random_states()[2] == expected_states[2], "Python's random state"
    if value is not None:
        np.testing.assert_allclose(value, expected_value, rtol=1e-12)
    for changed, expected in zip(given, expected_args):
        np.testing.assert_array_equal(changed, expected, err_msg="the caller's arrays")
    reference = _from_the_same_state(function)
    if mode == "hvp":
        np.testing.assert_allclose(slope, _second_slope(reference, args, v, u), rtol=1e-4, atol=1e-5)
    else:
        np.testing.assert_allclose(slope, _slope(reference, args, v), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", PROGRAMS)
def test_against_central_differences(name, mode):
    _check(name, mode)


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_against_central_differences(name):
    _check(name, "compiled")
