"""The published-style corpus (tests/published_programs.py) with its arguments, and one checker per
mode: grad, value_and_grad, vjp, jvp, hvp and grad(compile=True), each against central finite
differences in float64 of the plain NumPy function along random directions (hvp: the mixed second
difference along two directions). Shared by tests/test_published_programs.py and a tally run
(``python tests/published_cases.py`` prints right / refused / wrong / crash per program and mode)."""
import copy
import warnings

import numpy as np

import published_programs as p
import s2sad
from s2sad.runtime.projection import is_float_like
from test_idiom_programs import _along, _second_along
from trees import combine, direction, inner

MODES = ("grad", "value_and_grad", "vjp", "jvp", "hvp", "grad_compiled")


def _data(seed):
    rs = np.random.RandomState(seed)
    return rs


def _mlp():
    rs = _data(1)
    params = [(rs.randn(4, 5) * 0.5, rs.randn(5) * 0.1), (rs.randn(5, 3) * 0.5, rs.randn(3) * 0.1)]
    return params, rs.randn(6, 4), rs.randint(0, 3, 6)


def _logistic():
    rs = _data(2)
    return rs.randn(3) * 0.5, rs.randn(8, 3), (rs.randn(8) > 0).astype(float)


def _gp():
    rs = _data(3)
    return np.array([0.1, -0.2, -1.5]), rs.randn(6, 2), rs.randn(6)


def _rnn():
    rs = _data(4)
    params = {"W_xh": rs.randn(3, 2) * 0.5, "W_hh": rs.randn(3, 3) * 0.5, "b_h": rs.randn(3) * 0.1,
              "W_hy": rs.randn(2, 3) * 0.5, "b_y": rs.randn(2) * 0.1}
    return params, rs.randn(4, 2), rs.randn(4, 2)


def _lstm():
    rs = _data(5)
    weights = p.LSTMWeights(*(rs.randn(5, 3) * 0.4 for _ in range(4)), rs.randn(4, 3) * 0.1)
    return weights, rs.randn(3, 2)


def _mdn():
    rs = _data(6)
    params = {"W1": rs.randn(2, 6) * 0.5, "b1": rs.randn(6) * 0.1, "W2": rs.randn(6, 9) * 0.3, "b2": rs.randn(9) * 0.1}
    return params, rs.randn(7, 2), rs.randn(7)


def _blr():
    rs = _data(7)
    return p.Prior(0.3, -0.2), rs.randn(9, 3), rs.randn(9)


def _nbody():
    rs = _data(8)
    return rs.randn(4, 3), rs.randn(4, 3) * 0.3, np.abs(rs.randn(4)) + 0.5


def _spring():
    rs = _data(9)
    return np.arange(5.0) * 1.1 + rs.randn(5) * 0.05, np.abs(rs.randn(4)) + 1.0


def _huber():
    rs = _data(10)
    return rs.randn(3) * 0.5, rs.randn(9, 3), rs.randn(9)


def _softmax():
    rs = _data(11)
    return rs.randn(4, 3) * 0.5, rs.randn(6, 4), np.eye(3)[rs.randint(0, 3, 6)]


def _line_search():
    rs = _data(12)
    M = rs.randn(3, 3)
    return rs.randn(3) * 0.5, M @ M.T + np.eye(3), rs.randn(3)


def _fir():
    rs = _data(13)
    return rs.randn(3), rs.randn(12), rs.randn(12)


def _mvn():
    rs = _data(14)
    return rs.randn(3), rs.randn(3, 3) * 0.5, rs.randn(7, 3)


def _slogdet():
    rs = _data(15)
    return rs.randn(9) * 0.5, rs.randn(6, 3)


def _kde():
    return -0.3, _data(16).randn(7, 2)


def _ridge():
    rs = _data(17)
    return rs.randn(3), rs.randn(8, 3), rs.randn(8)


def _ridge_validation():
    rs = _data(18)
    return -0.5, rs.randn(8, 3), rs.randn(8), rs.randn(5, 3), rs.randn(5)


def _zip():
    rs = _data(19)
    return rs.randn(3, 2) * 0.3, rs.randn(10, 3), rs.poisson(1.0, 10).astype(float)


def _attention():
    rs = _data(20)
    return rs.randn(4, 3), rs.randn(3, 3) * 0.5, rs.randn(3, 3) * 0.5, rs.randn(3, 3) * 0.5


def _flows():
    rs = _data(21)
    flows = [{"u": rs.randn(2) * 0.3, "w": rs.randn(2) * 0.5, "b": rs.randn() * 0.1} for _ in range(2)]
    return flows, rs.randn(5, 2)


def _kfold():
    rs = _data(22)
    return -0.4, rs.randn(9, 3), rs.randn(9)


def _svm():
    rs = _data(23)
    return rs.randn(4) * 0.3, rs.randn(8, 3), np.sign(rs.randn(8))


def _lj():
    base = np.array([[0.0, 0, 0], [1.1, 0, 0], [0, 1.15, 0], [0.8, 0.8, 0.9], [5.0, 0.0, 0.0]])
    return (base + _data(24).randn(5, 3) * 0.03,)


CORPUS = {
    # name: (program, arguments, argnums)
    "mlp_list_of_W_b_star_unpacking": (p.mlp_cross_entropy, _mlp(), (0, 1)),
    "logistic_regression_with_validation": (p.logistic_nll, _logistic(), (0, 1)),
    "gp_marginal_likelihood_kernel_default": (p.gp_negative_log_marginal, _gp(), (0, 1, 2)),
    "rnn_dict_params_list_of_outputs": (p.rnn_sequence_loss, _rnn(), (0, 1, 2)),
    "lstm_namedtuple_weights": (p.lstm_final_state_norm, _lstm(), (0, 1)),
    "mixture_density_network_split": (p.mdn_negative_log_likelihood, _mdn(), (0, 1, 2)),
    "bayesian_linear_regression_dataclass_prior": (p.blr_log_evidence, _blr(), (0, 1, 2)),
    "bbvi_fixed_seed_star_shape": (p.bbvi_objective, (np.array([0.5, 1.5, -0.7, -0.4]),), (0,)),
    "nbody_energy_triu_indices": (p.nbody_total_energy, _nbody(), (0, 1, 2)),
    "pendulum_rk4_lambda_rhs": (p.pendulum_final_angle, (np.array([9.8, 0.3]), np.array([0.6, 0.0])), (0, 1)),
    "heat_equation_in_place_slices": (p.heat_equation_1d, (_data(25).randn(9), 0.2), (0, 1)),
    "spring_chain_force_buffer": (p.spring_chain_energy, _spring(), (0, 1)),
    "rosenbrock_vectorised": (p.rosenbrock, (_data(26).randn(5),), (0,)),
    "rosenbrock_loop_accumulator": (p.rosenbrock_loop, (_data(27).randn(5),), (0,)),
    "huber_regression_branch_per_sample": (p.huber_regression_loop, _huber(), (0, 1, 2)),
    "huber_regression_where": (p.huber_regression_vectorised, _huber(), (0, 1, 2)),
    "softmax_cross_entropy_scipy_logsumexp": (p.softmax_cross_entropy, _softmax(), (0, 1)),
    "line_search_loop_calling_a_lambda_loss": (p.descend_with_line_search, _line_search(), (0, 1, 2)),
    "fir_filter_np_convolve": (p.fir_filter_mse, _fir(), (0, 1, 2)),
    "fft_band_power_ratio": (p.band_power_ratio, (_data(28).randn(16),), (0,)),
    "mvn_log_likelihood_cholesky": (p.mvn_log_likelihood, _mvn(), (0, 1, 2)),
    "gaussian_nll_slogdet_sign_check": (p.gaussian_nll_slogdet, _slogdet(), (0, 1)),
    "kde_leave_one_out_minus_inf_diagonal": (p.kde_loo_log_likelihood, _kde(), (0, 1)),
    "decorated_ridge_objective": (p.ridge_objective, _ridge(), (0, 1, 2)),
    "star_shape_init_inside": (p.two_layer_with_own_init, (_data(29).randn(5, 3), 0.4), (0, 1)),
    "early_return_barrier": (p.barrier_or_quadratic, (np.abs(_data(30).randn(4)) + 0.3,), (0,)),
    "early_return_penalty_branch": (p.barrier_or_quadratic, (_data(31).randn(4),), (0,)),
    "unrolled_descent_dict_params": (p.unrolled_linear_fit, ({"w": _data(32).randn(3), "b": 0.2},
                                                             _data(33).randn(7, 3), _data(34).randn(7)), (0, 1, 2)),
    "lambda_default_activation": (p.gated_features, (_data(35).randn(4, 3), _data(36).randn(3, 2)), (0, 1)),
    "image_smoothness_slices_and_buffer": (p.smoothness_penalty, (_data(37).randn(5, 6), 0.3), (0, 1)),
    "closed_form_ridge_validation": (p.ridge_validation_error, _ridge_validation(), (0, 1, 2, 3, 4)),
    "pca_reconstruction_eigh": (p.pca_reconstruction_error, (_data(38).randn(8, 4),), (0,)),
    "zero_inflated_poisson_expit_gammaln": (p.zero_inflated_poisson_nll, _zip(), (0, 1)),
    "welford_scalar_accumulators": (p.welford_coefficient_of_variation, (_data(39).randn(6) + 3.0,), (0,)),
    "causal_attention_mask": (p.masked_self_attention, _attention(), (0, 1, 2, 3)),
    "verlet_trajectory_list": (p.verlet_trajectory_action, (_data(40).randn(3), _data(41).randn(3)), (0, 1)),
    "planar_flow_list_of_dicts": (p.planar_flow_log_density, _flows(), (0, 1)),
    "kfold_ridge_boolean_masks": (p.kfold_ridge_score, _kfold(), (0, 1, 2)),
    "svm_callable_class": (p.svm_objective, _svm(), (0, 1)),
    "lennard_jones_pair_loop_continue": (p.lj_cluster_energy, _lj(), (0,)),
    "sir_namedtuple_history_dict": (p.sir_peak_infected, (p.SIRParams(0.9, 0.2),), (0,)),
    "projectile_range_python_floats": (p.projectile_range, (12.0, 0.7, 0.05), (0, 1, 2)),
    "kepler_newton_early_return": (p.orbit_radius, (1.1, 0.3), (0, 1)),
    "spectral_diffusion_fft_ifft": (p.spectral_diffusion, (_data(42).randn(8), 0.3), (0, 1)),
    "padded_stencil_pad_edge_roll": (p.padded_stencil_energy, (_data(43).randn(7), 0.4), (0, 1)),
    "relu_by_boolean_mask_in_place": (p.masked_relu_network, (_data(44).randn(3, 4), _data(45).randn(5, 3)), (0, 1)),
    "student_t_gammaln_of_a_parameter": (p.student_t_nll, (1.2, -0.3, _data(46).randn(8)), (0, 1, 2)),
    "polynomial_fit_vander_lstsq": (p.polynomial_fit_residual, (np.linspace(-1, 1, 7) + _data(47).randn(7) * 0.05,
                                                                _data(48).randn(7)), (0, 1)),
    "dataclass_policy_property_staticmethod": (p.policy_objective, (p.SoftmaxPolicy(_data(49).randn(4), 0.8),
                                                                    _data(50).randn(4)), (0, 1)),
    "activations_by_name_star_unpacked_layers": (p.configurable_net, ([_data(51 + i).randn(3, 3) * 0.6 for i in range(3)],
                                                                      _data(54).randn(4, 3)), (0, 1)),
    "trapezoid_normaliser_array_default": (p.normalised_density_nll, (np.array([0.5, 0.2, 0.05]), _data(55).randn(9)), (0, 1)),
    "dropout_default_rng_inside": (p.dropout_regression, (_data(56).randn(3), _data(57).randn(6, 3), _data(58).randn(6)), (0, 1, 2)),
    "power_iteration_tolerance_break": (p.top_eigenvalue, (_data(62).randn(4, 4) * 0.5,), (0,)),
    "gauss_seidel_2d_grid_in_place": (p.poisson_gauss_seidel, (_data(63).randn(5, 5), 0.7), (0, 1)),
    "cholesky_try_except_jitter": (p.robust_gaussian_logdet, (_data(64).randn(4, 2), 0.3), (0, 1)),
    "keyword_only_and_kwargs_forwarding": (p.elastic_net_objective, (_data(65).randn(3), _data(66).randn(7, 3), _data(67).randn(7)),
                                           (0, 1, 2)),
    "generator_batches_sum_with_start": (p.batched_squared_loss, (_data(68).randn(3), _data(69).randn(8, 3), _data(70).randn(8)),
                                         (0, 1, 2)),
    "sort_cumsum_maximum_accumulate": (p.sorted_quantile_risk, (_data(71).randn(10),), (0,)),
    "momentum_sgd_dict_in_place_on_a_copy": (p.momentum_sgd_final_loss, ({"w": _data(72).randn(3), "b": 0.1},
                                                                          _data(73).randn(6, 3), _data(74).randn(6)), (0, 1, 2)),
    "add_at_soft_histogram": (p.soft_histogram_entropy, (_data(75).randn(12), np.linspace(-2, 2, 5)), (0, 1)),
    "recursive_tree_of_parameters": (p.tree_energy, ({"a": _data(59).randn(3), "b": {"c": _data(60).randn(3)}}, _data(61).randn(3)),
                                     (0, 1)),
}


# ---------------------------------------------------------------- the reference: central differences along directions
# (tests/test_idiom_programs.py's: the first and the mixed second difference along directions)
slope, curvature = _along, _second_along


def _directions(args, argnums, seed):
    rs = np.random.RandomState(seed)
    return {i: direction(args[i], lambda *shape: rs.randn(*shape)) for i in argnums}


def _zero_like(x):
    return combine(x, x, -1.0) if not isinstance(x, (int, np.integer)) else 0 * x


def _check_gradients(f, args, argnums, gradients, name):
    for seed in (0, 1):
        directions = _directions(args, argnums, seed)
        slopes = [inner(g, directions[i], args[i]) for i, g in zip(argnums, gradients)]
        expected = slope(f, args, argnums, directions)
        np.testing.assert_allclose(sum(slopes), expected, rtol=1e-5, atol=1e-6, err_msg=f"{name}: {slopes}")
        assert any(s != 0.0 for s in slopes), f"{name}: every gradient is zero along a random direction"


def check(name, mode):
    """Run ``name`` in ``mode``; raise AssertionError on a wrong number, and let s2sad's errors through."""
    f, args, argnums = CORPUS[name]
    expected_value = f(*copy.deepcopy(args))
    if mode in ("grad", "grad_compiled"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
            gradients = s2sad.grad(f, argnums=argnums, compile=(mode == "grad_compiled"))(*copy.deepcopy(args))
        _check_gradients(f, args, argnums, gradients, name)
    elif mode == "value_and_grad":
        value, gradients = s2sad.value_and_grad(f, argnums=argnums)(*copy.deepcopy(args))
        np.testing.assert_allclose(value, expected_value, rtol=1e-10)
        _check_gradients(f, args, argnums, gradients, name)
    elif mode == "vjp":
        value, pullback = s2sad.vjp(f, *copy.deepcopy(args))
        np.testing.assert_allclose(value, expected_value, rtol=1e-10)
        cotangents = pullback(1.0)
        _check_gradients(f, args, argnums, [cotangents[i] for i in argnums], name)
    elif mode == "jvp":
        check_jvp(f, args, argnums, name, copy.deepcopy(args), expected_value)
    elif mode == "hvp":
        _check_hvp(f, args, argnums, name)
    else:
        raise ValueError(mode)


def check_jvp(f, args, argnums, name, given, expected_value):
    """jvp at ``given`` (a copy of ``args``) along random directions, zero for the arguments not in argnums."""
    directions = _directions(args, argnums, 2)
    tangents = [directions[i] if i in argnums else _zero_like(a) for i, a in enumerate(args)]
    value, tangent = s2sad.jvp(f, given, tangents)
    np.testing.assert_allclose(value, expected_value, rtol=1e-10)
    np.testing.assert_allclose(tangent, slope(f, args, argnums, directions), rtol=1e-5, atol=1e-6)
    assert tangent != 0.0, f"{name}: the tangent is zero along a random direction"


def _check_hvp(f, args, argnums, name):
    """hvp along ``v`` (zero for the arguments not in argnums) read along ``u``: one product comes
    back per float or container-of-floats argument, in that argument's container."""
    v, u = _directions(args, argnums, 3), _directions(args, argnums, 4)
    tangents = [v[i] if i in argnums else _zero_like(a) for i, a in enumerate(args)]
    products = s2sad.hvp(f, copy.deepcopy(args), tangents)
    positions = [i for i, a in enumerate(args) if is_float_like(a)]
    products = products if len(positions) > 1 else (products,)
    by_position = dict(zip(positions, products))
    along_u = sum(inner(by_position[i], u[i], args[i]) for i in argnums)
    expected = curvature(f, args, argnums, v, u)
    np.testing.assert_allclose(along_u, expected, rtol=2e-4, atol=1e-5, err_msg=name)


def classify(name, mode, check_one=None):
    """``("right" | "refused" | "wrong" | "crash", detail)`` of ``check_one(name, mode)`` (default: this corpus')."""
    try:
        (check_one or check)(name, mode)
    except AssertionError as error:
        return "wrong", str(error).strip().splitlines()[:6]
    except s2sad.S2SADError as error:  # refused: an s2sad error naming where
        return "refused", f"{type(error).__name__}: {error}"
    except Exception as error:
        return "crash", f"{type(error).__name__}: {error}"
    return "right", ""


def print_tally(names, modes, check_one=None):
    """Each program in each mode: what is not right printed, then the counts."""
    import collections
    tally = collections.Counter()
    for name in names:
        for mode in modes:
            outcome, detail = classify(name, mode, check_one)
            tally[outcome] += 1
            if outcome != "right":
                print(f"{outcome:8s} {name} [{mode}]: {str(detail)[:600]}", flush=True)
    print(dict(tally), f"{len(names)} programs x {len(modes)} modes")


if __name__ == "__main__":
    import sys
    print_tally(sys.argv[1:] or list(CORPUS), MODES)
