"""Functions held in values, `*`/`**` calls, lambdas, `raise` and `with` (issue 16): gradients
(reverse) and tangents (forward) against central finite differences, and the refusals."""
import numpy as np
import pytest

import python_programs as programs
import s2sad
from finite_differences import assert_gradients_match, numerical_gradient

rng = np.random.default_rng(16)


def r(*shape):
    return rng.standard_normal(shape)


LAYERS = [(r(3, 4) * 0.5, r(4) * 0.1), (r(4, 2) * 0.5, r(2) * 0.1)]
INPUTS, TARGETS = r(5, 3), r(5, 2)


def first_layer_loss(W, b):
    return programs.mlp_loss([(W, b)] + LAYERS[1:], INPUTS, TARGETS)


def first_layer_loss_softplus(W, b):
    return programs.mlp_loss_softplus([(W, b)] + LAYERS[1:], INPUTS, TARGETS)


def adds_to_a_tuple(x):
    args = (x,)
    args = args + (np.ones(3),)
    args += (2.0 * x,)
    return np.sum(args[0] * args[1] * args[2])

CASES = {
    # name: (function, args, argnums)
    "default_function_argument": (first_layer_loss, LAYERS[0], (0, 1)),
    "function_passed_by_keyword": (first_layer_loss_softplus, LAYERS[0], (0, 1)),
    "tuple_joined_with_plus": (adds_to_a_tuple, (r(3),), (0,)),
    "list_grown_with_plus": (programs.grows_a_list, (r(3),), (0,)),
    "function_from_a_dict": (programs.activation_by_name, (r(4),), (0,)),
    "functions_in_a_list": (programs.chain_of_functions, (r(4),), (0,)),
    "function_argument_in_a_loop": (programs.solves_a_fixed_point, (r(3) * 0.3,), (0,)),
    "partial_as_a_value": (programs.calls_a_partial, (r(3),), (0,)),
    "function_an_object_holds": (programs.calls_a_function_an_object_holds, (r(3, 2), r(4, 3)), (0, 1)),
    "function_applied_twice": (programs.composes, (r(4),), (0,)),
    "star_shape": (programs.ones_by_shape, (r(3, 2),), (0,)),
    "star_args_and_kwargs_forwarded": (programs.forwards_star_args, (r(3), r(3)), (0, 1)),
    "star_in_reshape": (programs.reshapes_with_star, (r(2, 3), r(2, 3)), (0, 1)),
    "star_of_a_list_and_tuple": (programs.unpacks_a_list_into_a_call, (r(3), r(3)), (0, 1)),
    "star_into_varargs": (programs.star_over_layers, (r(3),), (0,)),
    "raise_on_untaken_paths": (programs.validated_loss, (r(4),), (0,)),
    "raise_on_untaken_paths_sum": (lambda x: programs.validated_loss(x, "sum"), (r(4),), (0,)),
    "raise_inside_a_loop": (programs.guards_inside_a_loop, (r(5),), (0,)),
    "raise_from": (programs.raises_from, (r(3),), (0,)),
    "with_errstate": (programs.log_likelihood_quietly, (r(4),), (0,)),
    "nested_with_break_and_return": (programs.nested_managers_in_a_loop, (np.abs(r(3)) + 0.5, 5), (0,)),
    "with_as_errstate": (programs.log_likelihood_with_state, (r(4),), (0,)),
    "imports_in_the_body": (programs.imports_in_its_body, (r(3),), (0,)),
    "import_inside_a_branch": (programs.imports_inside_a_branch, (r(3), True), (0,)),
    "with_as_generator_and_class_managers": (programs.uses_entered_constants, (r(3),), (0,)),
    "class_built_inside": (programs.builds_layers, (r(3, 2), r(2), r(4, 3)), (0, 1, 2)),
    "dataclass_built_inside": (programs.builds_a_dataclass, (r(3), r(3) * 0.2, r(3)), (0, 1, 2)),
    "namedtuple_built_inside": (programs.builds_a_namedtuple, (r(3),), (0,)),
    "generator_of_layers": (programs.generator_mlp, (r(3, 4) * 0.5, r(4), r(4, 2) * 0.5, r(2), r(5, 3)), (0, 1, 2, 4)),
    "generator_with_branches": (programs.sums_over_windows, (r(3),), (0,)),
    "sorted_with_key_and_reverse": (programs.smallest_two_costs, (r(3),), (0,)),
    "zip_of_pairs": (programs.transposes_pairs, (r(3),), (0,)),
    "dict_constructed_and_get": (programs.config_dicts, (r(3), 0.7), (0, 1)),
    "lambdas_passed_as_values": (programs.decays_with_a_lambda, (r(3),), (0,)),
    "array_unpacked_into_names": (programs.unpacks_an_array, (r(3), 0.7), (0, 1)),
    "slice_bound_carried_by_a_loop": (programs.slices_by_a_carried_bound, (r(9), r(3)), (0, 1)),
    "try_except_else_finally": (programs.logdet_with_a_fallback, (np.eye(3) * 2.0 + 0.3,), (0,)),
    "try_inside_a_loop": (programs.guarded_steps, (np.abs(r(3)) + 0.5,), (0,)),
    "module_level_lambda": (programs.square_norm, (r(3),), (0,)),
    "lambda_over_a_closure": (programs.lambda_objective_factory(r(3)), (r(3),), (0,)),
    "inline_lambda": (lambda x, y: np.sum(np.tanh(x) * y ** 2), (r(3), r(3)), (0, 1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    function, args, argnums = CASES[name]
    value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*args)
    np.testing.assert_allclose(value, function(*args), rtol=1e-12)
    assert any(np.any(np.asarray(g) != 0) for g in gradients)
    assert_gradients_match(function, list(args), argnums, gradients)


@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_matches_finite_differences(name):
    function, args, argnums = CASES[name]
    tangents = [r(*np.shape(a)) if i in argnums else (0 if isinstance(a, int) else np.zeros_like(a))
                for i, a in enumerate(args)]
    value, tangent = s2sad.jvp(function, args, tangents)
    np.testing.assert_allclose(value, function(*args), rtol=1e-12)
    expected = sum(np.sum(numerical_gradient(function, list(args), i) * tangents[i]) for i in argnums)
    np.testing.assert_allclose(tangent, expected, rtol=1e-5, atol=1e-7)


def test_a_raise_that_runs_raises_the_users_exception():
    with pytest.raises(ValueError, match="expected a vector"):
        s2sad.grad(programs.validated_loss)(r(2, 2))
    with pytest.raises(ValueError, match="unknown reduction median"):
        s2sad.grad(programs.validated_loss)(r(3), "median")
    with pytest.raises(OverflowError):
        s2sad.jvp(programs.guards_inside_a_loop, (r(3) * 1000,), (r(3),))
    with pytest.raises(AssertionError, match="two points"):
        s2sad.grad(programs.validated_loss)(r(1))


def test_the_error_state_is_restored_after_a_with_block():
    before = np.geterr()
    s2sad.grad(programs.log_likelihood_quietly)(r(3))
    assert np.geterr() == before


def closes_over_a_differentiated_value(x):
    scale = lambda v: v * 2.0  # noqa: E731
    g = np.sum
    h = (x * 2).sum
    return g(scale(x)) + h()


def calls_a_method_value_of_a_differentiated_array(x):
    total = x.sum
    return total() * 2.0


def test_calling_a_value_computed_from_a_differentiated_input_is_refused():
    for run in (lambda: s2sad.grad(calls_a_method_value_of_a_differentiated_array)(r(3)),
                lambda: s2sad.jvp(calls_a_method_value_of_a_differentiated_array, (r(3),), (r(3),))):
        with pytest.raises(s2sad.MissingRuleError) as raised:
            run()
        assert "computed from a differentiated input" in str(raised.value)
        assert raised.value.location.text.strip() == "return total() * 2.0"


def test_a_rule_less_builtin_called_through_a_value_is_refused_at_the_call():
    def uses_cov(x, f=np.cov):
        return np.sum(f(x, -x)) * 2.0
    with pytest.raises(s2sad.MissingRuleError, match="no rule for numpy.cov, called through a value"):
        s2sad.grad(uses_cov)(r(3))


def test_a_bare_raise_is_refused_with_a_hint():
    def bare_raise(x):
        if x > 1.0:
            raise
        return x * 2.0

    with pytest.raises(s2sad.UnsupportedSyntaxError) as raised:
        s2sad.grad(bare_raise)(1.5)  # the bare raise is refused only on the calls that reach it
    assert "bare `raise`" in str(raised.value) and raised.value.hint


def test_with_open_as_reads_data_in_both_modes(tmp_path):
    path = tmp_path / "weights.txt"
    weights = r(3)
    np.savetxt(path, weights)
    x = r(3)
    gradient = s2sad.grad(programs.weighted_by_a_file)(x, str(path))
    np.testing.assert_allclose(gradient, weights * (1 - np.tanh(x) ** 2), rtol=1e-8)
    v = r(3)
    tangent = s2sad.jvp(programs.weighted_by_a_file, (x, str(path)), (v, None))[1]
    np.testing.assert_allclose(tangent, np.sum(weights * (1 - np.tanh(x) ** 2) * v), rtol=1e-8)


class Holding:
    def __init__(self, value):
        self.value = value

    def __enter__(self):
        return self.value

    def __exit__(self, *exception):
        return False


def enters_a_differentiated_value(x):
    with Holding(x * 2.0) as held:  # refused: differentiated as
        return np.sum(held ** 2)


def enters_into_an_attribute(x):
    with np.errstate(all="ignore") as x.state:  # refused: as attribute
        return np.sum(x)


def test_a_differentiated_value_given_by_with_as_is_refused_at_the_with():
    x = r(3)
    for run in (lambda: s2sad.grad(enters_a_differentiated_value)(x),
                lambda: s2sad.jvp(enters_a_differentiated_value, (x,), (x,))):
        with pytest.raises(s2sad.MissingRuleError) as raised:
            run()
        assert "`with ... as name`" in str(raised.value) and raised.value.hint
        assert raised.value.location.text.strip().endswith("# refused: differentiated as")


def test_with_as_an_attribute_is_refused_at_its_target():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="binds only names") as raised:
        s2sad.grad(enters_into_an_attribute)(r(3))
    assert raised.value.location.text.strip().endswith("# refused: as attribute")


def imports_expit(x):
    from scipy.special import expit
    return np.sum(expit(x))


def test_what_an_import_inside_binds_is_checked_before_each_call(monkeypatch):
    import scipy.special
    x, original = r(3), scipy.special.expit
    s2sad.grad(imports_expit)(x)
    monkeypatch.setattr(scipy.special, "expit", lambda v: 2.0 * original(v))
    np.testing.assert_allclose(s2sad.grad(imports_expit)(x), 2.0 * original(x) * (1 - original(x)), rtol=1e-12)


def imports_a_missing_module(x):
    import a_module_that_is_not_installed as missing  # refused: missing module
    return missing.f(x)


def imports_one_name_two_ways(x, fast):
    if fast:
        import numpy as backend  # refused: two ways
    else:
        import math as backend
    return backend.sin(x)


def imports_in_a_nested_function(x):
    def inner(v):
        import math  # refused: nested import
        return v * math.pi
    return inner(x)


@pytest.mark.parametrize("function, marker, words", [
    (imports_a_missing_module, "missing module", "No module named 'a_module_that_is_not_installed'"),
    (imports_one_name_two_ways, "two ways", "two import statements bind this name differently"),
    (imports_in_a_nested_function, "nested import", "an `import` inside a nested function"),
])
def test_an_import_that_cannot_be_resolved_now_is_refused_at_its_line(function, marker, words):
    for run in (lambda: s2sad.grad(function)(0.5, *([True] if function is imports_one_name_two_ways else [])),
                lambda: s2sad.jvp(function, (0.5, *([True] if function is imports_one_name_two_ways else [])),
                                  (1.0, *([None] if function is imports_one_name_two_ways else [])))):
        with pytest.raises(s2sad.UnsupportedSyntaxError) as raised:
            run()
        assert words in str(raised.value) and raised.value.hint
        assert raised.value.location.text.strip().endswith(f"# refused: {marker}")


def adds_two_list_variables(x):
    first, second = [x], [2.0 * x]
    both = first + second
    return np.sum(both[0] * both[1])


def test_two_list_variables_joined_with_plus_are_refused_not_wrong():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="joined with `\\+`"):
        s2sad.grad(adds_two_list_variables)(r(3))


def test_an_object_whose_constructor_computes_is_differentiated_from_its_source():
    # (refused before session 13; now its __init__ is differentiated: tests/test_computing_constructors.py)
    x = r(3)
    np.testing.assert_allclose(s2sad.grad(programs.builds_a_computing_object)(x),
                               numerical_gradient(programs.builds_a_computing_object, [x], 0), rtol=1e-5, atol=1e-7)


def reads_a_namedtuple_by_position_and_name(pair):
    return np.sum(pair[0] * pair.right) + np.sum(np.sin(pair[1]))


def test_a_namedtuple_read_by_position_and_by_name_in_both_modes():
    # pair[0] is pair.left: its tangent and cotangent are the same field's
    pair = programs.Pair(r(3), r(3))
    gradient = s2sad.grad(reads_a_namedtuple_by_position_and_name)(pair)
    np.testing.assert_allclose(gradient.left, pair.right, rtol=1e-12)
    np.testing.assert_allclose(gradient.right, pair.left + np.cos(pair.right), rtol=1e-12)
    tangent = programs.Pair(r(3), r(3))
    _, forward = s2sad.jvp(reads_a_namedtuple_by_position_and_name, (pair,), (tangent,))
    expected = np.sum(tangent.left * pair.right + pair.left * tangent.right + np.cos(pair.right) * tangent.right)
    np.testing.assert_allclose(forward, expected, rtol=1e-12)


def applies_a_layer(layer, x):
    return np.sum(layer(x) ** 2)


def test_a_differentiated_callable_object_is_differentiated_as_its_method():
    layer, x = programs.Affine(r(3, 2), r(2)), r(4, 3)
    gradient = s2sad.grad(applies_a_layer)(layer, x)

    def along_W(W):
        return applies_a_layer(programs.Affine(W, layer.b), x)

    np.testing.assert_allclose(gradient.W, numerical_gradient(along_W, [layer.W], 0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(s2sad.grad(applies_a_layer, argnums=1)(layer, x),
                               numerical_gradient(lambda v: applies_a_layer(layer, v), [x], 0), rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------- arguments changed in place
def _on_a_copy(function, position):
    """``function`` with its argument ``position`` copied first: what finite differences read."""
    def copied(*args):
        args = list(args)
        args[position] = args[position].copy() if hasattr(args[position], "copy") else args[position]
        return function(*args)
    return copied


IN_PLACE = {
    "slice_updates_of_a_grid": (programs.relaxes_in_place, lambda: (r(6), r(6)), (0, 1)),
    "rows_normalised_in_place": (programs.normalises_rows_in_place, lambda: (r(3, 2),), (0,)),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_an_argument_changed_in_place_is_differentiated_at_its_value_on_entry(name):
    function, make, argnums = IN_PLACE[name]
    args = make()
    plain = [a.copy() for a in args]
    expected_value = function(*plain)  # the change a plain call leaves in the caller's array
    given = [a.copy() for a in args]
    value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*given)
    np.testing.assert_allclose(value, expected_value, rtol=1e-12)
    np.testing.assert_allclose(given[0], plain[0], rtol=1e-12)  # the caller sees the same change
    for position, gradient in zip(argnums, gradients):
        expected = numerical_gradient(_on_a_copy(function, 0), [a.copy() for a in args], position)
        np.testing.assert_allclose(gradient, expected, rtol=1e-5, atol=1e-7)
    # forward mode: the same change, the tangent at the value on entry
    given = [a.copy() for a in args]
    tangents = [r(*a.shape) for a in args]
    _, tangent = s2sad.jvp(function, given, tangents)
    np.testing.assert_allclose(given[0], plain[0], rtol=1e-12)
    expected = sum(np.sum(numerical_gradient(_on_a_copy(function, 0), [a.copy() for a in args], i) * tangents[i])
                   for i in range(len(args)))
    np.testing.assert_allclose(tangent, expected, rtol=1e-5, atol=1e-7)


def test_a_vjp_pullback_run_twice_starts_from_the_value_on_entry():
    u, source = r(6), r(6)
    plain = u.copy()
    programs.relaxes_in_place(plain, source)
    given = u.copy()
    _, pullback = s2sad.vjp(programs.relaxes_in_place, given, source)
    first, second = pullback(1.0), pullback(1.0)
    np.testing.assert_allclose(given, plain, rtol=1e-12)  # changed once, as a plain call changes it
    expected = numerical_gradient(_on_a_copy(programs.relaxes_in_place, 0), [u.copy(), source], 0)
    np.testing.assert_allclose(first[0], expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(second[0], first[0], rtol=1e-12)


def test_a_list_argument_grown_in_place():
    history, x = [r(3)], r(3)
    plain = list(history)
    expected_value = programs.records_in_a_list(plain, x)
    given = list(history)
    value, gradient = s2sad.value_and_grad(programs.records_in_a_list, argnums=1)(given, x)
    np.testing.assert_allclose(value, expected_value, rtol=1e-12)
    assert len(given) == 2 and np.allclose(given[0], plain[0]) and np.allclose(given[1], plain[1])
    expected = numerical_gradient(lambda v: programs.records_in_a_list(list(history), v), [x], 0)
    np.testing.assert_allclose(gradient, expected, rtol=1e-5, atol=1e-7)


def test_an_argument_changed_in_place_and_passed_twice_is_refused():
    x = r(3)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="shares memory with another argument"):
        s2sad.grad(programs.relaxes_in_place)(x, x)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="shares memory with another argument"):
        s2sad.grad(programs.relaxes_in_place)(x, x[::-1])


def test_a_helper_that_changes_its_argument_is_refused_where_it_is_called():
    for run in (lambda: s2sad.grad(programs.calls_a_helper_that_changes_its_argument)(r(3)),
                lambda: s2sad.jvp(programs.calls_a_helper_that_changes_its_argument, (r(3),), (r(3),))):
        with pytest.raises(s2sad.UnsupportedSyntaxError) as raised:
            run()
        assert "changes its argument `a` in place" in str(raised.value)
        assert "changes_its_argument(y)" in raised.value.location.text


def test_a_read_only_argument_that_is_not_changed_is_not_written():
    def copies_first(x):
        x = x.copy()
        x[0] = 2.0 * x[1]
        return np.sum(x ** 2)
    x = r(3)
    x.setflags(write=False)
    gradient = s2sad.grad(copies_first)(x)
    np.testing.assert_allclose(gradient, numerical_gradient(copies_first, [x], 0), rtol=1e-5, atol=1e-7)


def test_a_lambda_passed_as_a_value_that_reads_a_local_holds_it_and_differentiates_it():
    # `integrate(lambda y, t: -k * y, y0)`: the lambda holds k; the helper calling it hands k's
    # cotangent back through the lambda's own (see tests/test_closures.py)
    y0, k = r(3), 0.5
    gradients = s2sad.grad(programs.lambda_over_a_local, argnums=(0, 1))(y0, k)
    assert_gradients_match(programs.lambda_over_a_local, (y0, k), (0, 1), gradients)
    value, tangent = s2sad.jvp(programs.lambda_over_a_local, (y0, k), (np.ones(3), 1.0))
    step = 1e-6
    expected = (programs.lambda_over_a_local(y0 + step, k + step) - programs.lambda_over_a_local(y0 - step, k - step)) / (2 * step)
    np.testing.assert_allclose(tangent, expected, rtol=1e-6)


def test_an_exception_the_users_except_would_handle_is_refused_at_the_except():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as raised:
        s2sad.grad(programs.logdet_with_a_fallback)(-np.eye(3))
    assert "LinAlgError" in str(raised.value) and "would handle it" in str(raised.value)
    assert raised.value.location.text.strip() == "except np.linalg.LinAlgError:"


def test_an_exception_the_users_except_would_handle_under_hvp_names_the_user_s_except():
    # hvp transforms generated forward code again: the message named s2sad's file (s2sad_..._jvp_....py:19)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="would handle it") as raised:
        s2sad.hvp(programs.logdet_with_a_fallback, (-np.eye(3),), (np.eye(3),))
    line = programs.logdet_with_a_fallback.__code__.co_firstlineno + 3
    assert f"the `except` at {programs.__file__}:{line} would" in str(raised.value)


def forwards_a_differentiated_keyword(x, s):
    options = {"scale": s}
    return programs.helper(x, x, **options, power=3) + programs.helper(x, 2.0, **options)


def test_a_differentiated_value_passed_through_double_star_gets_its_gradient():
    # it was silently ZERO before: the keywords a ** call passes on were not differentiated
    x, s = r(3), 0.7
    gx, gs = s2sad.grad(forwards_a_differentiated_keyword, argnums=(0, 1))(x, s)
    np.testing.assert_allclose(gx, numerical_gradient(forwards_a_differentiated_keyword, [x, s], 0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gs, numerical_gradient(forwards_a_differentiated_keyword, [x, s], 1), rtol=1e-5, atol=1e-7)
    # forward mode: the keyword's tangent reaches the callee too (it was refused; tests/test_keyword_methods.py)
    v, h = r(3), 1e-6
    _, tangent = s2sad.jvp(forwards_a_differentiated_keyword, (x, s), (v, 1.0))
    expected = (forwards_a_differentiated_keyword(x + h * v, s + h) - forwards_a_differentiated_keyword(x - h * v, s - h)) / (2 * h)
    np.testing.assert_allclose(tangent, expected, rtol=1e-5, atol=1e-7)


def keyword_to_a_rule_through_a_value(x, s, f=np.clip):
    bounds = {"a_max": s}
    return np.sum(f(x, -1.0, **bounds))


def test_a_float_passed_by_keyword_to_a_rule_through_a_value_is_refused():
    with pytest.raises(s2sad.MissingRuleError, match="`a_max` is passed by keyword"):
        s2sad.grad(keyword_to_a_rule_through_a_value, argnums=(0, 1))(r(3), 0.5)


def adds_into_its_argument(x, v):
    x += v * 2.0  # an array argument: the caller's array would change
    return np.sum(x ** 2)


def adds_into_a_number(t, dt):
    t += dt  # a number: += makes a new value, the caller's is untouched
    return t * t


def test_plus_equals_on_an_array_argument_is_refused_and_on_a_number_differentiated():
    x = r(3)
    before = x.copy()
    for run in (lambda: s2sad.grad(adds_into_its_argument)(x, r(3)),
                lambda: s2sad.jvp(adds_into_its_argument, (x, r(3)), (r(3), r(3)))):
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="changes the argument `x`") as raised:
            run()
        assert raised.value.location.text.strip().startswith("x += v * 2.0")
    np.testing.assert_array_equal(x, before)
    assert s2sad.grad(adds_into_a_number, argnums=(0, 1))(0.5, 0.25) == (pytest.approx(1.5), pytest.approx(1.5))


def starred_displays(x, a, shape=(2, 3)):
    grid = np.zeros((x.shape[0], *shape[1:]))         # a shape: the display joined, not differentiated
    stacked = np.stack([a, *x[:2], a * 2])            # differentiated items on both sides of the star
    head_and_tail = (*x[1:], a)
    return np.sum((x[:, None] + grid) ** 2) + np.sum(stacked ** 3) + sum(head_and_tail) * a


def test_starred_items_in_tuple_and_list_displays():
    x, a = r(3), 0.7
    gradients = s2sad.grad(starred_displays, argnums=(0, 1))(x, a)
    assert_gradients_match(starred_displays, [x, a], (0, 1), gradients)
    v, h = r(3), 1e-6
    _, tangent = s2sad.jvp(starred_displays, (x, a), (v, 0.3))
    expected = (starred_displays(x + h * v, a + 0.3 * h) - starred_displays(x - h * v, a - 0.3 * h)) / (2 * h)
    np.testing.assert_allclose(tangent, expected, rtol=1e-6)


def star_in_a_loop_target(x):
    total = 0.0
    for first, *rest in [(x, x, x)]:
        total = total + np.sum(first)
    return total


def test_a_starred_loop_target_is_still_refused_at_its_line():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="starred expressions are not supported yet") as error:
        s2sad.grad(star_in_a_loop_target)(r(3))
    assert error.value.location.text.strip().startswith("for first, *rest in")
