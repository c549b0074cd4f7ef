"""The language users write around their maths: containers, classes, helper functions.

Each gradient is checked against central finite differences; gradients with respect to a
container or object come back as structural tangents read by the same keys or attributes."""
import numpy as np
import pytest

import language_programs as programs
import s2sad
from finite_differences import assert_gradients_match, numerical_gradient
from s2sad.runtime.tangents import Tangent

rng = np.random.default_rng(8)


def r(*shape):
    return rng.standard_normal(shape)


ARRAY_CASES = {
    "uses_helper": (programs.uses_helper, (r(3),), (0,)),
    "uses_varargs": (programs.uses_varargs, (r(2), r(2)), (0, 1)),
    "fact_like": (programs.fact_like, (1.3, 4), (0,)),
    "uses_tuple_return": (programs.uses_tuple_return, (r(3),), (0,)),
    "nested_unpack": (programs.nested_unpack, (r(3),), (0,)),
    "list_append": (programs.list_append, (r(3),), (0,)),
    "star_unpack": (programs.star_unpack, (r(3),), (0,)),
    "list_unpacked_and_indexed": (programs.list_unpacked_and_indexed, (r(4),), (0,)),
    "one_line_def": (programs.cube, (r(3),), (0,)),
    "one_line_def_of_two_statements": (programs.two_statements, (r(3),), (0,)),
    "one_line_branch_and_loop_bodies": (programs.one_line_branches_and_loops, (r(3), 4), (0,)),
    "one_line_nested_def": (programs.calls_a_one_line_helper, (r(3),), (0,)),
}


def test_a_one_line_body_is_refused_at_its_own_line_and_column():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as raised:
        s2sad.grad(programs.one_line_del)(1.0)
    location = raised.value.location
    assert location.filename.endswith("language_programs.py")
    assert location.text.lstrip().startswith("def one_line_del(x): y = [x]; del y[0:]")
    assert location.column == location.text.index("y[0:]") + 1


@pytest.mark.parametrize("name", sorted(ARRAY_CASES))
def test_gradient_matches_finite_differences(name):
    function, args, argnums = ARRAY_CASES[name]
    value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*args)
    assert np.allclose(value, function(*args))
    assert_gradients_match(function, list(args), argnums, gradients)


def _field_gradient(function, args, position, read, write):
    """The finite-difference gradient of ``function`` in one field of argument ``position``."""
    def along(value):
        changed = list(args)
        changed[position] = write(args[position], value)
        return function(*changed)
    return numerical_gradient(along, [read(args[position])], 0)


def test_a_method_of_a_dataclass_layer_gives_the_dataclass():
    layer, x = programs.Layer(r(3, 2), r(3)), r(2)
    dlayer, dx = s2sad.grad(programs.layer_loss, argnums=(0, 1))(layer, x)
    assert type(dlayer) is programs.Layer
    for field in ("W", "b"):
        expected = _field_gradient(programs.layer_loss, [layer, x], 0, lambda l: getattr(l, field),
                                   lambda l, v: programs.Layer(**{**vars(l), field: v}))
        np.testing.assert_allclose(getattr(dlayer, field), expected, rtol=1e-5, atol=1e-7)
    assert_gradients_match(programs.layer_loss, [layer, x], (1,), (dx,))


def test_a_dict_of_parameters_gives_a_tangent_read_by_key():
    params, x = {"W1": r(3, 2), "W2": r(2, 3)}, r(2)
    dparams = s2sad.grad(programs.dict_loss)(params, x)
    for key in params:
        expected = _field_gradient(programs.dict_loss, [params, x], 0, lambda p: p[key], lambda p, v: {**p, key: v})
        np.testing.assert_allclose(dparams[key], expected, rtol=1e-5, atol=1e-7)


def test_a_namedtuple_gives_a_tangent_read_by_attribute():
    pair = programs.Pair(r(2), r(2))
    dpair = s2sad.grad(programs.namedtuple_loss)(pair)
    np.testing.assert_allclose(dpair.a, pair.b)
    np.testing.assert_allclose(dpair.b, pair.a)


def test_recursion_depth_follows_the_argument():
    for n in (0, 1, 5):
        assert s2sad.grad(programs.fact_like)(1.1, n) == pytest.approx(n * 1.1 ** (n - 1) if n else 0.0)


# ---------------------------------------------------------------- values nobody reads
# A value passed to a helper's parameter the helper never uses, or left in a tuple or list
# and never read, gets the symbolic ZERO as its cotangent. The reverse pass must not hand
# that ZERO to the rule of whatever made the value (matmul's, np.reshape's, np.array's...),
# which would fail on it or give it the wrong shape: the generated code skips the rule.

W23 = np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]])


def _reads_only_the_first(h0, h1):
    return np.sum(h0)


def _reads_nothing(h0, h1):
    return 2.0


def unused_matmul(u):
    return _reads_only_the_first(u, u @ W23)


def unused_dot(u):
    return _reads_only_the_first(u, np.dot(u, W23))


def unused_reshape(u):
    return _reads_only_the_first(u, np.reshape(u, (2, 1)))


def unused_trace(u):
    return _reads_only_the_first(u, np.trace(np.outer(u, u)))


def unused_array_of_scalars(u):
    s = np.sum(u)
    return _reads_only_the_first(u, np.array([s, 1.0, 2.0 * s]))


def unused_stack(u):
    return _reads_only_the_first(u, np.stack([u, 2.0 * u]))


def unused_concatenate(u):
    return _reads_only_the_first(u, np.concatenate([u, u[:1]]))


def unused_method(u):
    return _reads_only_the_first(u, u.sum())


def unused_attribute(u):
    return _reads_only_the_first(u, np.outer(u, u).T)


def unused_tuple(u):
    return _reads_only_the_first(u, (u @ W23, np.sin(u)))


def unused_dict(u):
    return _reads_only_the_first(u, {"a": np.dot(u, W23), "b": u})


def unused_by_every_parameter(u):
    return np.sum(u) + _reads_nothing(np.dot(u, W23), np.reshape(u, (1, 2)))


def unused_in_a_chain(u):
    # the unused value feeds a helper that itself ignores it: two levels of ZERO
    return _reads_only_the_first(np.sum(u), _reads_only_the_first(u, u @ W23) * np.tanh(u))


UNUSED_PARAMETER_CASES = [unused_matmul, unused_dot, unused_reshape, unused_trace, unused_array_of_scalars,
                          unused_stack, unused_concatenate, unused_method, unused_attribute, unused_tuple,
                          unused_dict, unused_by_every_parameter, unused_in_a_chain]


@pytest.mark.parametrize("function", UNUSED_PARAMETER_CASES, ids=lambda f: f.__name__)
def test_a_value_passed_to_an_unused_parameter_has_a_zero_cotangent(function):
    u = np.array([-0.4, 0.6])
    value, (du,) = s2sad.value_and_grad(function, argnums=(0,))(u)
    assert np.allclose(value, function(u))
    assert isinstance(du, np.ndarray) and du.shape == u.shape
    assert_gradients_match(function, [u], (0,), (du,))


def unread_list_item_np_array_of_arrays(c):
    items = [np.array([c, c]), np.array([c, 2.0 * c])]
    return np.sum(items[1])


def unread_list_item_np_stack(c):
    items = [np.stack([c, c]), np.stack([c, 2.0 * c])]
    return np.sum(items.pop())


def unread_list_item_np_concatenate(c):
    items = [np.concatenate([c, c[:1]]) for i in range(2)]
    return np.sum(items[1])


def unread_list_item_np_hstack_and_vstack(c):
    items = [np.hstack([c, c]), np.vstack([c, 3.0 * c])]
    return np.sum(items[1])


def unread_list_item_transpose_after_pop(c):
    items = [c.T, np.sin(c)]
    last = items.pop()
    return np.sum(last[1])


def unread_list_item_scalar_after_pop(c):
    s = np.dot(c[:, 0], W23)[1]
    items = [np.ones((2, 1)), s, np.tanh(c)]
    return np.mean(items.pop())


def unread_tuple_item_unpacked(c):
    p = (np.inner(c[:, 0], c[:, 0]), np.zeros((2, 3)), np.sum(c))
    unread, zeros, total = p
    return zeros[0][1] + total


def unread_tuple_item_from_matmul_in_a_loop(c):
    a = c * 1.0
    for i in range(2):
        pair = (W23.T @ c, a)
        unread, kept = pair
        a = kept * 2.0
    return np.sum(a)


def unread_tuple_item_from_np_dot(c):
    pair = (np.dot(W23.T, c), np.array([0.7, 1.0]))
    return np.mean(pair[1]) + np.sum(c)


def unread_dict_entry(c):
    d = {"product": W23.T @ c, "sine": np.sin(c)}
    return np.sum(d["sine"])


def unread_item_of_a_list_built_by_list(c):
    items = list((c @ np.ones((1, 3)), np.cos(c)))
    return np.sum(items[1])


def unread_item_of_np_split(c):
    top, bottom = np.split(c, 2)
    return np.sum(bottom)


UNREAD_ITEM_CASES = [unread_list_item_np_array_of_arrays, unread_list_item_np_stack, unread_list_item_np_concatenate,
                     unread_list_item_np_hstack_and_vstack, unread_list_item_transpose_after_pop,
                     unread_list_item_scalar_after_pop, unread_tuple_item_unpacked,
                     unread_tuple_item_from_matmul_in_a_loop, unread_tuple_item_from_np_dot, unread_dict_entry,
                     unread_item_of_a_list_built_by_list, unread_item_of_np_split]


@pytest.mark.parametrize("function", UNREAD_ITEM_CASES, ids=lambda f: f.__name__)
def test_an_unread_container_item_has_a_zero_cotangent(function):
    c = np.array([[0.1], [-0.3]])
    value, (dc,) = s2sad.value_and_grad(function, argnums=(0,))(c)
    assert np.allclose(value, function(c))
    assert isinstance(dc, np.ndarray) and dc.shape == c.shape
    assert_gradients_match(function, [c], (0,), (dc,))


def fill_value_array(x):
    return np.sum(np.full((2, 3), x) * np.arange(6.0).reshape(2, 3)) + np.sum(np.full_like(W23, x[::-1]) ** 2)


def test_an_array_fill_value_broadcasts_like_an_operand():
    """np.full(shape, x) with an array x: the cotangent of x sums over the broadcast axes only."""
    x = np.array([1.2, 0.8, 0.2])
    (dx,) = s2sad.grad(fill_value_array, argnums=(0,))(x)
    assert_gradients_match(fill_value_array, [x], (0,), (dx,))


# A vjp function may return ZERO when the derivative is zero at this call (the imaginary
# part or the angle of a real value): the rule that made its argument is skipped too.

def imaginary_part_of_a_real_product(u):
    return np.sum(np.imag(u @ W23)) + np.sum(u)


def angle_of_a_real_reshape(u):
    return np.sum(np.angle(np.reshape(u, (2, 1)) + 2.0)) + np.sum(u * u)


@pytest.mark.parametrize("function", [imaginary_part_of_a_real_product, angle_of_a_real_reshape],
                         ids=lambda f: f.__name__)
def test_a_vjp_that_returns_zero_skips_the_rules_before_it(function):
    u = np.array([-0.4, 0.6])
    (du,) = s2sad.grad(function, argnums=(0,))(u)
    assert_gradients_match(function, [u], (0,), (du,))


@pytest.mark.parametrize("container", [list, tuple])
def test_a_list_or_tuple_of_parameters_unpacked_and_indexed(container):
    W, b = r(3), r(2)
    gradient = s2sad.grad(programs.parameters_unpacked_and_indexed)(container([W, b]))
    assert type(gradient) is container
    np.testing.assert_allclose(gradient[0], 2.0 * W)     # d/dW sum(W * W)
    np.testing.assert_allclose(gradient[1], 2.0 * b)
