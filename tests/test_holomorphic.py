"""``holomorphic=True`` on grad, value_and_grad, jacfwd and jacrev, and the TypeError for a
complex output without it (JAX's behaviour).

Every derivative is checked against hand-derived formulas and against central differences
of the function along the real axis, ``(f(z + h) - f(z - h)) / 2h``, which for a holomorphic
``f`` is ``f'(z)``. JAX, when installed, is compared too (CI does not need it).
"""
import dataclasses

import numpy as np
import pytest

import s2sad

H = 1e-6


def holomorphic_difference(f, z, h=H):
    """``f'(z)`` by central differences along the real axis, element by element of an array ``z``."""
    if np.ndim(z) == 0:
        return (f(z + h) - f(z - h)) / (2 * h)
    result = np.zeros(np.shape(z), complex)
    for index in np.ndindex(np.shape(z)):
        step = np.zeros(np.shape(z))
        step[index] = h
        result[index] = (f(z + step) - f(z - step)) / (2 * h)
    return result


def real_part_difference(f, z, h=H):
    """``d Re f/dx - 1j d Re f/dy`` of a scalar ``z``: what holomorphic=True gives for any ``f``."""
    d_dx = (np.real(f(z + h)) - np.real(f(z - h))) / (2 * h)
    d_dy = (np.real(f(z + 1j * h)) - np.real(f(z - 1j * h))) / (2 * h)
    return d_dx - 1j * d_dy


def cube(z):
    return z ** 3


def exponential(z):
    return np.exp(z)


def sine_times_z(z):
    return np.sin(z) * z


def sum_of_square_matrix(Z):
    return np.sum(Z @ Z)


def sum_of_exp_times(Z):
    return np.sum(np.exp(Z) * Z)


Z0 = np.array([[0.3 + 0.4j, -1.0 + 0.2j], [0.5 - 0.7j, 1.2 + 0.1j]])


@pytest.mark.parametrize("f, derivative", [
    (cube, lambda z: 3 * z ** 2),
    (exponential, np.exp),
    (sine_times_z, lambda z: np.cos(z) * z + np.sin(z)),
])
@pytest.mark.parametrize("z", [0.7 - 1.3j, np.complex128(-0.4 + 0.9j), np.array(1.5 + 0.5j)])
def test_scalar_functions_give_the_complex_derivative(f, derivative, z):
    expected = derivative(z)
    got = s2sad.grad(f, holomorphic=True)(z)
    assert np.allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert np.allclose(got, holomorphic_difference(f, z), rtol=1e-7, atol=1e-7)
    assert type(got) is type(z) if not isinstance(z, np.ndarray) else got.shape == ()
    value, again = s2sad.value_and_grad(f, holomorphic=True)(z)
    assert np.allclose(value, f(z)) and np.allclose(again, expected, rtol=1e-12, atol=1e-12)


def test_matrix_functions_summed_over_elements():
    # d/dZ_ij sum(Z @ Z) = (row sums of Z)_j + (column sums of Z)_i, no conjugation
    expected = Z0.sum(axis=1)[None, :] + Z0.sum(axis=0)[:, None]
    got = s2sad.grad(sum_of_square_matrix, holomorphic=True)(Z0)
    assert np.allclose(got, expected, rtol=1e-12)
    assert np.allclose(got, holomorphic_difference(sum_of_square_matrix, Z0), rtol=1e-7, atol=1e-7)
    got = s2sad.grad(sum_of_exp_times, holomorphic=True)(Z0)
    assert np.allclose(got, np.exp(Z0) * (Z0 + 1), rtol=1e-12)


def test_complex64_keeps_its_dtype():
    z = np.array([0.5 + 0.5j, -1.0 + 0.25j], np.complex64)
    got = s2sad.grad(lambda_free_sum_cube, holomorphic=True)(z)
    assert got.dtype == np.complex64
    assert np.allclose(got, 3 * z.astype(complex) ** 2, rtol=1e-5)


def test_a_0d_array_gets_a_0d_array():
    """The gradient of a 0-d complex array was a NumPy scalar (its .conjugate() is one), where a
    real 0-d array's is a 0-d array: the type follows the argument's kind, as for real inputs."""
    z = np.array(0.5 + 0.25j)
    for got in (s2sad.grad(cube, holomorphic=True)(z), s2sad.value_and_grad(cube, holomorphic=True)(z)[1]):
        assert isinstance(got, np.ndarray) and got.shape == () and got.dtype == np.complex128
        assert got == pytest.approx(3 * complex(z) ** 2)


def lambda_free_sum_cube(z):
    return np.sum(z ** 3)


def weighted(params, scale):
    return params["a"] ** 2 * np.sum(params["b"] ** 3) * scale


def test_containers_of_complex_inputs_and_several_argnums():
    params = {"a": 0.5 + 1.0j, "b": np.array([1.0 - 0.5j, 0.25j])}
    scale = 2.0 - 1.0j
    gradient, d_scale = s2sad.grad(weighted, argnums=(0, 1), holomorphic=True)(params, scale)
    s = np.sum(params["b"] ** 3)
    assert list(gradient) == ["a", "b"] and type(gradient["a"]) is complex
    assert np.allclose(gradient["a"], 2 * params["a"] * s * scale, rtol=1e-12)
    assert np.allclose(gradient["b"], params["a"] ** 2 * 3 * params["b"] ** 2 * scale, rtol=1e-12)
    assert np.allclose(d_scale, params["a"] ** 2 * s, rtol=1e-12)
    # and by differences, one leaf at a time
    assert np.allclose(gradient["a"], holomorphic_difference(lambda a: weighted({**params, "a": a}, scale), params["a"]))
    assert np.allclose(gradient["b"], holomorphic_difference(lambda b: weighted({**params, "b": b}, scale), params["b"]))


@dataclasses.dataclass
class Layer:
    z: complex
    w: np.ndarray
    count: int


def layer_energy(layer):
    return layer.z ** 2 * np.sum(layer.w) * layer.count


class Box:  # a plain class: its gradient would be a structural Tangent, not conjugated in place
    def __init__(self, z):
        self.z = z


def boxed_square(box):
    return box.z ** 2


def test_dataclasses_and_lists_and_a_plain_object_refused():
    layer = Layer(1.0 + 1.0j, np.array([1j, 2.0 + 0j]), 3)
    gradient = s2sad.grad(layer_energy, holomorphic=True)(layer)
    assert isinstance(gradient, Layer) and gradient.count is None
    assert np.isclose(gradient.z, 2 * layer.z * np.sum(layer.w) * 3)
    assert np.allclose(gradient.w, layer.z ** 2 * 3)
    assert np.allclose(s2sad.grad(sum_of_first_squared, holomorphic=True)([1j, 2.0 + 0j]), [2j, 1.0])
    with pytest.raises(TypeError, match="takes complex numbers and arrays, in dicts, .* not a Box object"):
        s2sad.grad(boxed_square, holomorphic=True)(Box(1.0 + 1.0j))


def sum_of_first_squared(zs):
    return zs[0] ** 2 + zs[1]


def with_aux(z):
    return z ** 2, "note"


def test_has_aux():
    gradient, aux = s2sad.grad(with_aux, has_aux=True, holomorphic=True)(1.0 + 2.0j)
    assert aux == "note" and np.isclose(gradient, 2 * (1.0 + 2.0j))


def conjugate(z):
    return np.conj(z)


def squared_modulus(z):
    return z * np.conj(z)


@pytest.mark.parametrize("f, expected", [(conjugate, lambda z: 1.0), (squared_modulus, lambda z: 2 * np.conj(z))])
def test_a_function_that_is_not_holomorphic_is_not_detected(f, expected):
    """As in JAX: the flag is trusted. The result is d Re f/dx - 1j d Re f/dy (JAX's number),
    not a derivative of f (it has none); the docs say so."""
    z = 0.8 - 0.6j
    got = s2sad.grad(f, holomorphic=True)(z)
    assert np.allclose(got, expected(z), rtol=1e-12)
    assert np.allclose(got, real_part_difference(f, z), rtol=1e-7, atol=1e-7)


# ---------------------------------------------------------------- the refusals, as JAX's


def real_output(z):
    return np.abs(z) ** 2


@pytest.mark.parametrize("transform", [s2sad.grad, s2sad.value_and_grad])
def test_a_complex_output_without_the_flag_is_a_type_error(transform):
    for z in (1.0 + 1.0j, np.array(1.0 + 1.0j), np.complex64(1.0 + 1.0j)):
        with pytest.raises(TypeError, match="pass holomorphic=True") as caught:
            transform(cube)(z)
        assert isinstance(caught.value, s2sad.ComplexDtypeError) and isinstance(caught.value, s2sad.S2SADError)
        assert "np.real" in str(caught.value)
    with pytest.raises(TypeError, match="needs a real output"):  # a real input, a complex output: the same
        transform(complex_of_real)(2.0)
    with pytest.raises(TypeError, match="needs a real output"):
        transform(complex_of_real)(2.0)  # the second call goes the fast way: refused all the same


def complex_of_real(x):
    return (x * 1j) ** 2


def test_the_real_part_is_differentiated_when_asked_for():
    z = 0.3 + 0.9j
    got = s2sad.grad(real_part_of_cube)(z)  # PyTorch's convention: d/dx + 1j d/dy of Re(z**3)
    assert np.allclose(got, np.conj(3 * z ** 2))


def real_part_of_cube(z):
    return np.real(z ** 3)


@pytest.mark.parametrize("transform", [s2sad.grad, s2sad.value_and_grad])
def test_the_flag_needs_complex_inputs_and_outputs(transform):
    with pytest.raises(TypeError, match="with holomorphic=True needs complex inputs"):
        transform(cube, holomorphic=True)(2.0)
    with pytest.raises(TypeError, match="with holomorphic=True needs complex inputs"):
        transform(weighted, holomorphic=True)({"a": 1j, "b": np.ones(2)}, 1.0 + 0j)
    with pytest.raises(TypeError, match="with holomorphic=True needs a complex output"):
        transform(real_output, holomorphic=True)(1.0 + 1.0j)
    f = transform(cube, holomorphic=True)
    f(1.0 + 1.0j)
    f(np.array(1.0 + 1.0j))
    with pytest.raises(TypeError, match="needs complex inputs"):  # after calls that set up the fast way
        f(np.array(1.0))


def test_a_holomorphic_gradient_is_not_differentiated_again():
    """The compositions' rules compute real derivatives: a second derivative through the flag
    would miss its conjugation, so it is refused rather than computed."""
    first = s2sad.grad(cube, holomorphic=True)
    with pytest.raises(s2sad.S2SADError, match="holomorphic=True .*differentiated again"):
        s2sad.grad(first, holomorphic=True)(1.0 + 1.0j)
    with pytest.raises(s2sad.S2SADError, match="holomorphic=True .*differentiated again"):
        s2sad.grad(twice_the_derivative, holomorphic=True)(1.0 + 1.0j)
    with pytest.raises(s2sad.S2SADError, match="holomorphic=True .*differentiated again"):
        s2sad.jacfwd(s2sad.jacrev(cube, holomorphic=True), holomorphic=True)(np.array([1.0 + 1.0j]))


def twice_the_derivative(z):
    return 2.0 * HOLOMORPHIC_DERIVATIVE(z)


HOLOMORPHIC_DERIVATIVE = s2sad.grad(cube, holomorphic=True)


# ---------------------------------------------------------------- Jacobians


def matrix_times_square(z):
    A = np.array([[1.0 + 2.0j, -0.5j, 0.3], [2.0, 1.0 - 1.0j, 0.5j]])
    return A @ z ** 2


def test_jacobians_of_a_holomorphic_function():
    z = np.array([0.5 + 0.1j, -1.0 + 0.7j, 0.2 - 0.3j])
    A = np.array([[1.0 + 2.0j, -0.5j, 0.3], [2.0, 1.0 - 1.0j, 0.5j]])
    expected = A * (2 * z)[None, :]  # A diag(2 z)
    columns = np.stack([holomorphic_difference(lambda t: matrix_times_square(z + t * e), 0.0)
                        for e in np.eye(3)], axis=1)
    for jacobian in (s2sad.jacfwd, s2sad.jacrev, s2sad.jacobian):
        got = jacobian(matrix_times_square, holomorphic=True)(z)
        assert got.shape == (2, 3) and got.dtype == complex
        assert np.allclose(got, expected, rtol=1e-12)
        assert np.allclose(got, columns, rtol=1e-7, atol=1e-7)


def test_jacobian_refusals_as_jax():
    z = np.array([1.0 + 1.0j, 2.0j])
    with pytest.raises(TypeError, match="jacfwd of .* needs real inputs"):
        s2sad.jacfwd(cube)(z)
    with pytest.raises(TypeError, match="jacrev of .* needs a real output"):
        s2sad.jacrev(cube)(z)
    with pytest.raises(TypeError, match="jacrev of .* needs a real output"):
        s2sad.jacrev(complex_of_real)(np.array([1.0, 2.0]))
    for jacobian in (s2sad.jacfwd, s2sad.jacrev):
        with pytest.raises(TypeError, match="holomorphic=True needs complex inputs"):
            jacobian(cube, holomorphic=True)(np.array([1.0, 2.0]))
        with pytest.raises(TypeError, match="holomorphic=True needs a complex output"):
            jacobian(real_output, holomorphic=True)(z)
    # what JAX allows stays: a complex output of real inputs forward, a real output of complex inputs in reverse
    assert np.allclose(s2sad.jacfwd(complex_of_real)(np.array([1.0, 2.0])), np.diag([-2.0, -4.0]))
    assert np.allclose(s2sad.jacrev(real_output)(z), np.diag(2 * z))  # grad's convention: 2 z


# ---------------------------------------------------------------- JAX, where installed


def test_the_same_numbers_as_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    z = 0.7 - 1.3j
    for ours, theirs in [(cube, lambda z: z ** 3), (sine_times_z, lambda z: jnp.sin(z) * z),
                         (conjugate, jnp.conj), (squared_modulus, lambda z: z * jnp.conj(z))]:
        assert np.allclose(s2sad.grad(ours, holomorphic=True)(z), jax.grad(theirs, holomorphic=True)(z), rtol=1e-12)
    zs = np.array([0.5 + 0.1j, -1.0 + 0.7j, 0.2 - 0.3j])
    A = np.array([[1.0 + 2.0j, -0.5j, 0.3], [2.0, 1.0 - 1.0j, 0.5j]])
    for ours, theirs in [(s2sad.jacfwd, jax.jacfwd), (s2sad.jacrev, jax.jacrev)]:
        assert np.allclose(ours(matrix_times_square, holomorphic=True)(zs),
                           theirs(lambda z: A @ z ** 2, holomorphic=True)(zs), rtol=1e-12)
    for theirs in (jax.grad, jax.value_and_grad):
        with pytest.raises(TypeError, match="holomorphic=True"):
            theirs(lambda z: z ** 3)(z)
        with pytest.raises(TypeError, match="holomorphic=True requires inputs with complex"):
            theirs(lambda z: z ** 3, holomorphic=True)(2.0)
    with pytest.raises(TypeError):
        jax.jacrev(lambda z: z ** 3)(zs)
    with pytest.raises(TypeError):
        jax.jacfwd(lambda z: z ** 3)(zs)
