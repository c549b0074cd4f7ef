"""The realistic corpus (tests/realistic_programs.py), differentiated untouched.

Each program's gradient (reverse mode) and tangent (forward mode) are compared with central
finite differences of the plain NumPy function along random directions in float64: for a
gradient ``g`` and direction ``v``, ``<g, v>`` must equal ``(f(x + hv) - f(x - hv)) / 2h``,
and so must the jvp along ``v``. Gradients with respect to a container come back in that
container (a list of ``(W, b)``, a dict, a dataclass). Programs s2sad refuses today stay in the
corpus as strict xfails (REFUSED), each checked to fail with the error and message listed."""
import contextlib
import copy
import dataclasses
import functools
import re

import numpy as np
import pytest

import realistic_programs as p
import s2sad
from corpus_cases import corpus_cases
from trees import combine as _combine, direction, inner as _inner, same_type as _same_type, scaled as _scaled

rs = np.random.RandomState(2026)


def randn(*shape):
    return rs.randn(*shape)


# ---------------------------------------------------------------- trees of arrays (tests/trees.py)
def _direction(x):
    return direction(x, randn)


# ---------------------------------------------------------------- the corpus: program, arguments, argnums
def _mlp_data():
    inputs = randn(6, 4)
    targets = np.eye(3)[rs.randint(0, 3, 6)]
    return p.init_random_params(0.3, [4, 5, 3], rs), inputs, targets


def _rnn_params():
    return {"init_hidden": randn(1, 3) * 0.3, "change": randn(2 + 3, 3) * 0.3, "predict": randn(3, 2) * 0.3}


def _lstm_params():
    return {name: randn(2 + 3, 3) * 0.3 for name in ("forget", "ingate", "change", "outgate")}


def _gmm_params():
    return {"log_proportions": randn(3) * 0.1, "means": randn(3, 2), "log_stds": randn(3, 2) * 0.1}


def _regressor_loss():
    model = p.Regressor(randn(6, 3), randn(6))
    return model.loss


def _partial_objective():
    return functools.partial(p.weighted_loss, X=randn(5, 3), y=randn(5), weights=np.abs(randn(5)))


def _lambda_objective():
    X, y = randn(5, 3), randn(5)
    return lambda w: p.weighted_loss(w, X, y, loss_fn=lambda r: np.log(np.cosh(r)))


def _elbo():
    noise = randn(8, 2)
    return lambda params: p.black_box_elbo(params, noise, p.banana_log_density)


def _flat_net_params():
    return randn(3 * 4 + 4 + 4 * 2 + 2) * 0.5


def _lotka_volterra():
    return lambda theta: p.lotka_volterra_final_prey(theta, np.array([1.0, 0.5]))


CORPUS = {
    # name: (maker of the function to differentiate, or None for the program itself; program; arguments; argnums)
    "mlp_list_of_W_b_tuples": (None, p.mlp_log_posterior, _mlp_data(), (0, 1)),
    "rnn_dict_params": (None, p.rnn_loss, (_rnn_params(), randn(4, 2, 2), np.eye(2)[rs.randint(0, 2, (4, 2))]), (0,)),
    "lstm_dict_params": (None, p.lstm_loss, (_lstm_params(), randn(4, 2, 2)), (0, 1)),
    "gmm_dict_params": (None, p.gmm_log_likelihood, (_gmm_params(), randn(7, 2)), (0, 1)),
    "gp_marginal_likelihood_cholesky": (None, p.gp_log_marginal_likelihood,
                                        (np.array([-2.0, 0.1, 0.0, -0.3]), randn(6, 1), randn(6)), (0, 1, 2)),
    "bayesian_linear_regression_slogdet": (None, p.bayesian_linear_regression_evidence,
                                           (0.2, -0.1, randn(8, 3), randn(8)), (0, 1, 2, 3)),
    "variational_elbo_lambda": (_elbo, None, (np.array([0.1, -0.2, -0.5, -0.3]),), (0,)),
    "logistic_regression_with_validation": (None, p.logistic_regression_loss,
                                            (randn(3) * 0.3, randn(7, 3), (randn(7) > 0).astype(float)), (0, 1)),
    "huber_regression_branches": (None, p.huber_regression, (randn(3), randn(9, 3), randn(9)), (0, 1, 2)),
    "poisson_glm_scipy_gammaln": (None, p.poisson_glm_nll, (randn(3) * 0.2, randn(6, 3), rs.poisson(2.0, 6).astype(float)), (0, 1)),
    "softmax_regression_dict_fancy_index": (None, p.softmax_regression,
                                            ({"W": randn(4, 3), "b": randn(3)}, randn(5, 4), rs.randint(0, 3, 5)), (0, 1)),
    "euler_loop": (None, p.euler_decay, (0.7, randn(3)), (0, 1)),
    "rk4_lotka_volterra_function_argument": (_lotka_volterra, None, (np.array([1.0, 0.4, 0.3, 0.8]),), (0,)),
    "leapfrog_with_lambda_force": (None, p.leapfrog_energy_drift, (randn(3), randn(3)), (0, 1)),
    "heat_equation_copy_then_slices": (None, p.heat_equation, (randn(8), 0.2), (0, 1)),
    "gauss_seidel_in_place_on_the_argument": (None, p.relax_in_place, (randn(6), randn(6)), (0, 1)),
    "nbody_pairwise_loops": (None, p.nbody_potential, (randn(4, 3), np.abs(randn(4)) + 0.5), (0, 1)),
    "damped_spring_errstate": (None, p.damped_spring, (1.3, randn(3), randn(3)), (0, 1, 2)),
    "attention": (None, p.attention, (randn(3, 4), randn(5, 4), randn(5, 2)), (0, 1, 2)),
    "conv1d_loop_writes": (None, p.conv1d_valid, (randn(9), randn(3)), (0, 1)),
    "layer_norm_residual": (None, p.layer_norm_residual, (randn(4, 5), randn(5), randn(5), randn(5, 5) * 0.3), (0, 1, 2, 3)),
    "batchnorm_relu": (None, p.batchnorm_mlp, (randn(3, 4), randn(8, 3)), (0, 1)),
    "tied_autoencoder": (None, p.tied_autoencoder, (randn(4, 2) * 0.5, randn(6, 4)), (0, 1)),
    "sinkhorn_iterations": (None, p.sinkhorn_cost, (randn(4) * 0.3, np.abs(randn(4, 3))), (0, 1)),
    "matrix_factorization_dataclass_built_inside": (None, p.matrix_factorization,
                                                    (randn(4, 2), randn(5, 2), randn(4, 5), (randn(4, 5) > 0).astype(float)),
                                                    (0, 1)),
    "dataclass_argument": (None, lambda model, r, m: model.loss(r, m),
                           (p.FactorModel(randn(3, 2), randn(4, 2)), randn(3, 4), np.ones((3, 4))), (0,)),
    "bound_method_with_activation_attribute": (_regressor_loss, None, (randn(3) * 0.5,), (0,)),
    "partial_objective": (_partial_objective, None, (randn(3),), (0,)),
    "lambda_objective_with_lambda_loss": (_lambda_objective, None, (randn(3),), (0,)),
    "namedtuple_layers": (None, p.namedtuple_network, ([p.Layer(randn(3, 4) * 0.5, randn(4)), p.Layer(randn(4, 2) * 0.5, randn(2))],
                                                       randn(5, 3)), (0, 1)),
    "mixture_density_network": (None, p.mixture_density_nll,
                                ([(randn(2, 5) * 0.5, randn(5) * 0.1), (randn(5, 9) * 0.3, randn(9) * 0.1)], randn(6, 2), randn(6)),
                                (0, 1, 2)),
    "black_scholes_scipy_ndtr": (None, p.black_scholes_call, (100.0, np.array([90.0, 100.0, 110.0]), 0.03, 0.2, 1.5),
                                 (0, 1, 2, 3, 4)),
    "kalman_filter_scalar_loop": (None, p.kalman_log_likelihood, (-1.0, -0.5, list(randn(6))), (0, 1)),
    "minibatches_from_a_generator": (None, p.minibatch_objective, (randn(3), randn(10, 3), randn(10)), (0, 1, 2)),
    "star_shape_random_noise": (None, p.noisy_features, (randn(2, 3), 0.1), (0, 1)),
    "sir_epidemic_fit_with_odeint": (None, p.sir_fit_loss, (np.log(np.array([1.5, 0.3])), np.abs(randn(5)) * 0.1,
                                                            np.linspace(0.0, 4.0, 5)), (0, 1)),
    "log_barrier_catch_warnings": (None, p.quiet_log_barrier, (np.abs(randn(4)) + 0.5,), (0,)),
    "activation_looked_up_in_a_dict": (None, p.activation_table_mlp,
                                       ([(randn(3, 4) * 0.5, randn(4)), (randn(4, 2) * 0.5, randn(2))], randn(5, 3)), (0, 1)),
    "generator_unpacking_a_flat_vector": (None, p.flat_parameter_net, (_flat_net_params(), randn(5, 3)), (0, 1)),
    "zip_star_pairs": (None, p.unzip_pairs_loss, ([(randn(3), randn(3)) for _ in range(4)], 1.3), (0, 1)),
    "ones_star_shape": (None, p.ones_like_shape_prior, (randn(4), 1.5), (0, 1)),
    "reparameterised_elbo_fixed_noise": (None, p.reparameterised_elbo, (randn(3), randn(3) * 0.1, randn(6, 3), randn(2)), (0, 1)),
    "unrolled_sgd_learning_rate": (None, p.unrolled_sgd_validation,
                                   (-1.0, randn(3), randn(8, 3), randn(8), randn(5, 3), randn(5)), (0, 1, 2)),
    "jax_style_dict_update_inner_loop": (None, p.sgd_dict_inner_loop, ({"w": randn(3), "b": 0.3}, randn(8, 3), randn(8)), (0, 1)),
    "np_convolve_smoothness": (None, p.convolve_smoothness, (randn(10), randn(3)), (0, 1)),
    "conv2d_nested_loops": (None, p.conv2d_loops, (randn(5, 5), randn(2, 2)), (0, 1)),
    "wave_equation_copies_and_swap": (None, p.wave_equation, (randn(8), 0.4), (0, 1)),
    "pendulum_symplectic_euler": (None, p.pendulum_energy_error, (randn(3), randn(3)), (0, 1)),
    "errstate_divide_ignore": (None, p.safe_log_likelihood, (np.abs(randn(4)) + 0.1, np.abs(randn(4))), (0, 1)),
    "try_except_fallback": (None, p.robust_mean_loss, (randn(3), randn(4, 3)), (0, 1)),
    "kwargs_forwarding_to_asserting_helper": (None, lambda w, X, y: p.ridge_forwarding_kwargs(w, X, y, alpha=0.3),
                                              (randn(3), randn(6, 3), randn(6)), (0, 1, 2)),
    "list_of_functions_with_closure_lambda": (None, p.composed_transforms, (randn(4), 0.7), (0, 1)),
    "functools_reduce_matmul": (None, p.reduce_products, ([randn(3, 3) * 0.5 for _ in range(3)], randn(3)), (0, 1)),
    "class_with_init_built_inside": (None, p.class_built_inside, (randn(3), randn(3) * 0.1, randn(5, 3)), (0, 1, 2)),
    "nested_closures": (None, p.nested_closure_loss, (randn(3), randn(6, 3), randn(6)), (0, 1, 2)),
    "bivariate_normal_correlation": (None, p.bivariate_normal_correlation, (0.3, randn(6, 2)), (0, 1)),
    "class_defined_inside_the_function": (None, p.local_class_regression, (randn(3), randn(5, 3), randn(5)), (0, 1)),
    "dataclass_defined_inside_the_function": (None, p.local_dataclass_state, (randn(3), randn(3)), (0, 1)),
    "multi_head_attention_reshape_star_shape": (None, p.multi_head_attention,
                                                (randn(4, 6), randn(6, 6) * 0.3, randn(6, 6) * 0.3, randn(6, 6) * 0.3),
                                                (0, 1, 2, 3)),
    "gru_tuple_of_weights": (None, p.gru_loss, ((randn(5, 3) * 0.3, randn(5, 3) * 0.3, randn(5, 3) * 0.3), randn(4, 2, 2)),
                             (0, 1)),
    "star_args_forwarding_to_a_lambda": (None, p.star_args_forwarding, (randn(3), randn(5, 3), randn(5)), (0, 1, 2)),
    "sorted_penalties": (None, p.sorted_penalties, (randn(4),), (0,)),
    "lennard_jones_sliced_pairs": (None, p.lennard_jones,
                                   (np.array([[0.0, 0, 0], [1.1, 0, 0], [0, 1.2, 0], [0.9, 0.8, 0.7]]) + randn(4, 3) * 0.05,),
                                   (0,)),
    "raise_on_non_finite": (None, p.finite_check_loss, (randn(3), randn(5, 3)), (0, 1)),
    "strided_slices_from_a_cycling_index": (None, p.multiplexed_channel_gains, (randn(9), randn(3)), (0, 1)),
    # loops and scalars, as scientists write them (accumulators with +=, min/max, an early return, math)
    "rk4_oscillator_energy_accumulated": (None, p.rk4_oscillator_energy, (1.3, 0.7, -0.2), (0, 1, 2)),
    "euler_logistic_growth_area": (None, p.euler_logistic_growth, (0.8, 5.0, 0.4), (0, 1, 2)),
    "damped_spring_on_floats": (None, p.damped_spring_scalar, (2.0, 0.3, 0.9), (0, 1, 2)),
    "newton_cube_root_early_return": (None, p.newton_cube_root, (2.7,), (0,)),
    "horner_polynomial": (None, p.horner_polynomial, (randn(5), 0.6), (0, 1)),
    "logistic_map_average": (None, p.logistic_map_average, (3.2, 0.3), (0, 1)),
    "welford_running_variance": (None, p.welford_variance, (randn(7), 0.4), (0, 1)),
    "projectile_with_drag_atan2_hypot": (None, p.projectile_range_with_drag, (12.0, 0.7, 0.02), (0, 1, 2)),
    "wrapped_rotor_phase_fmod": (None, p.wrapped_pendulum_phase, (0.4, 2.5, 0.05), (0, 1, 2)),
    "clipped_gradient_descent_min_max": (None, p.clipped_gradient_descent, (2.5, 0.3), (0, 1)),
    "discounted_cash_flow_in_place_products": (None, p.discounted_cash_flow, (0.05, 0.02, 100.0), (0, 1, 2)),
    "trapezoid_rule_accumulator": (None, p.trapezoid_gaussian_integral, (0.9, 0.2), (0, 1)),
    "soft_threshold_max_of_floats": (None, p.soft_threshold_path, (1.4, 0.3), (0, 1)),
    "moving_average_accumulated_loss": (None, p.array_recurrence_with_accumulators, (randn(3), randn(6, 3)), (0, 1)),
    # deep learning as ML users write it in NumPy (loops over cells, slices, lists of (W, b), batches)
    "gru_states_concatenated_from_a_list": (None, p.gru_sequence_states,
                                            ((randn(5, 3) * 0.3, randn(5, 3) * 0.3, randn(5, 3) * 0.3), randn(4, 2, 2)), (0, 1)),
    "lstm_cell_tuple_state": (None, p.lstm_tuple_state_loss, ((randn(5, 12) * 0.3, randn(12) * 0.1), randn(4, 2, 2), randn(4, 2, 3)),
                              (0, 1)),
    "conv2d_by_slicing": (None, p.conv2d_by_slicing, (randn(2, 6, 6), randn(2, 3, 3)), (0, 1)),
    "softmax_cross_entropy_batch": (None, p.softmax_cross_entropy, (randn(4, 3), randn(3), randn(6, 4), np.eye(3)[rs.randint(0, 3, 6)]),
                                    (0, 1, 2)),
    "relu_mlp_list_of_W_b": (None, p.relu_mlp_mse, ([(randn(3, 5) * 0.5, randn(5) * 0.1 + 0.3), (randn(5, 4) * 0.5, randn(4) * 0.1 + 0.3),
                                                     (randn(4, 2) * 0.5, randn(2) * 0.1)], randn(6, 3), randn(6, 2)), (0, 1)),
    "batched_attention_3d_matmul": (None, p.batched_attention, (randn(2, 3, 4), randn(2, 5, 4), randn(2, 5, 3)), (0, 1, 2)),
    "squeeze_with_axis_regression_head": (None, p.squeezed_regression_head, (randn(4, 1) * 0.5, randn(6, 4), randn(6)), (0, 1)),
    "l1_logistic_builtin_abs": (None, p.l1_regularised_logistic, (randn(3) + 0.2, randn(7, 3), np.sign(randn(7))), (0, 1)),
    "rnn_states_stacked": (None, p.rnn_states_stacked, (randn(2, 3) * 0.5, randn(3, 3) * 0.5, randn(5, 2)), (0, 1, 2)),
}

# Programs s2sad refuses (or breaks on) today, per mode: the error class, a fragment its message
# must contain, and why. Each test is a strict xfail, so it turns into a failure to remove from
# here once the construct lands.
REFUSED = {
}


def _cases(mode):
    return corpus_cases(CORPUS, REFUSED, mode)


class UnlistedFailure(Exception):
    """A listed program failed with the listed error class but another message: never an xfail."""


@contextlib.contextmanager
def _refused_as_listed(mode, name):
    """Re-raise a listed refusal only if its message is the one listed, so an xfail cannot pass
    on an unrelated error of the same class."""
    refusal = REFUSED.get((mode, name))
    try:
        yield
    except Exception as error:
        if refusal is not None and isinstance(error, refusal[0]) and not re.search(refusal[1], str(error)):
            raise UnlistedFailure(f"{name} ({mode}) failed, but not as listed: {error}") from error
        raise


def _function(name):
    maker, program, args, argnums = CORPUS[name]
    return (maker() if maker is not None else program), args, argnums


def _along(function, args, argnums, directions, h=1e-6):
    def moved(s):
        return function(*[_combine(a, directions[i], s * h) if i in argnums else copy.deepcopy(a)
                          for i, a in enumerate(args)])
    return (moved(1.0) - moved(-1.0)) / (2 * h)


@pytest.mark.parametrize("name", _cases("reverse"))
def test_gradient_along_random_directions(name):
    function, args, argnums = _function(name)
    expected_value = function(*copy.deepcopy(args))
    with _refused_as_listed("reverse", name):
        value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*copy.deepcopy(args))
        np.testing.assert_allclose(value, expected_value, rtol=1e-10)
        for position, gradient in zip(argnums, gradients):
            _same_type(gradient, args[position])
        for _ in range(2):
            directions = {i: _direction(args[i]) for i in argnums}
            slopes = [_inner(g, directions[i], args[i]) for i, g in zip(argnums, gradients)]
            assert all(slope != 0.0 for slope in slopes), f"a gradient of {name} is zero along a random direction: {slopes}"
            np.testing.assert_allclose(sum(slopes), _along(function, args, argnums, directions), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", _cases("forward"))
def test_tangent_along_a_random_direction(name):
    function, args, argnums = _function(name)
    directions = {i: _direction(args[i]) for i in argnums}
    tangents = [directions[i] if i in argnums else _scaled(_direction(a), 0.0) if isinstance(a, (np.ndarray, float, dict, list))
                else a * 0 for i, a in enumerate(args)]
    with _refused_as_listed("forward", name):
        value, tangent = s2sad.jvp(function, copy.deepcopy(args), tangents)
        np.testing.assert_allclose(value, function(*copy.deepcopy(args)), rtol=1e-10)
        assert np.all(np.asarray(tangent) != 0.0), f"the tangent of {name} is zero along a random direction"
        np.testing.assert_allclose(tangent, _along(function, args, argnums, directions), rtol=1e-5, atol=1e-6)


def test_the_corpus_is_large_enough():
    assert len(CORPUS) >= 30
    assert len([name for name in CORPUS if ("reverse", name) not in REFUSED]) >= 30


def test_every_refusal_names_a_program_of_the_corpus():
    assert {name for _, name in REFUSED} <= set(CORPUS)
