"""The science corpus (tests/science_programs.py) with its arguments, and one checker per mode:
grad, value_and_grad, vjp, jvp, hvp and grad(compile=True), each against central finite
differences in float64 of the plain NumPy function along random directions (hvp: the mixed
second difference), the caller's arguments checked unchanged after every call; and float32:
float32 arrays in give float32 gradients out, near the float64 ones. Shared by
tests/test_science_programs.py and a tally run (``python tests/science_cases.py [names]`` prints
right / refused / wrong / crash per program and mode)."""
import copy
import dataclasses
import warnings

import numpy as np

import science_programs as p
import s2sad
from published_cases import _check_gradients, _check_hvp, check_jvp, print_tally

MODES = ("grad", "value_and_grad", "vjp", "jvp", "hvp", "grad_compiled", "float32")


def _rs(seed):
    return np.random.RandomState(100 + seed)


def _spd(rs, n):
    M = rs.randn(n, n)
    return M @ M.T / n + np.eye(n)


def _diagonally_dominant(rs, n):
    return rs.randn(n, n) * 0.3 + 3.0 * np.eye(n)


CORPUS = {
    # ---- 1. scientific computing
    "logistic_growth_euler_python_floats": (p.logistic_growth_euler, (0.8, 2.5), (0, 1)),
    "lotka_volterra_rk4_state_tuple": (p.lotka_volterra_final, (np.array([1.1, 0.4, 0.9, 0.3]), (1.2, 0.8)), (0,)),
    "leapfrog_oscillator_state_tuple": (p.leapfrog_oscillator_energy, (_rs(1).randn(3), _rs(2).randn(3), 1.3), (0, 1, 2)),
    "velocity_verlet_force_default_argument": (p.velocity_verlet, (_rs(3).randn(4), _rs(4).randn(4), 1.5, 0.2), (0, 1, 2, 3)),
    "nbody_broadcast_fill_diagonal_euler": (p.nbody_euler_kinetic, (_rs(5).randn(4, 3), _rs(6).randn(4, 3) * 0.2,
                                                                     np.abs(_rs(7).randn(4)) + 0.5), (0, 1, 2)),
    "coulomb_triu_indices_norm": (p.pairwise_coulomb_energy, (_rs(8).randn(5, 3), _rs(9).randn(5)), (0, 1)),
    "heat_equation_slice_in_place_on_copy": (p.heat_equation_explicit, (_rs(10).randn(9), 0.2), (0, 1)),
    "heat_equation_2d_pad_edge": (p.heat_equation_2d_padded, (_rs(11).randn(5, 6), 0.15), (0, 1)),
    "wave_equation_leapfrog_buffers_swap": (p.wave_equation_leapfrog, (_rs(12).randn(8), 1.2), (0, 1)),
    "newton_sqrt_tolerance_break": (p.newton_sqrt_objective, (2.7,), (0,)),
    "fixed_point_while_true_return": (p.fixed_point_cosine, (0.8,), (0,)),
    "implicit_euler_nested_newton_break": (p.implicit_euler_newton, (np.array([0.9, -0.5, 1.3]), 0.7), (0, 1)),
    "horner_loop_over_coefficients": (p.horner_loss, (_rs(13).randn(4), _rs(14).randn(6)), (0, 1)),
    "polyval_least_squares": (p.polyval_fit_loss, (_rs(15).randn(3), _rs(16).randn(7), _rs(17).randn(7)), (0, 1, 2)),
    "clenshaw_chebyshev_reversed_slice": (p.clenshaw_chebyshev, (_rs(18).randn(5), np.linspace(-0.9, 0.8, 6)), (0, 1)),
    "linear_spline_searchsorted_clip": (p.linear_spline_loss, (_rs(19).randn(6), np.array([0.05, 0.33, 0.5, 0.71, 0.93]),
                                                               _rs(20).randn(5)), (0, 1, 2)),
    "hermite_spline_searchsorted_right": (p.hermite_spline_energy, (_rs(21).randn(5), _rs(22).randn(5),
                                                                    np.array([0.3, 1.4, 2.6, 3.2])), (0, 1, 2)),
    "np_interp_table": (p.interp_loss, (_rs(23).randn(6), np.array([-0.85, -0.3, 0.12, 0.55, 0.9])), (0, 1)),
    "trapezoid_moment_ratio": (p.trapezoid_moment, (np.array([0.7, 1.3]),), (0,)),
    "simpson_by_hand_strided_slices": (p.simpson_integral, (1.3, 2.1), (0, 1)),
    "gauss_legendre_leggauss_nodes": (p.gauss_legendre_expectation, (0.3, -0.2), (0, 1)),
    "cumulative_trapezoid_concatenate": (p.cumulative_trapezoid_final, (np.abs(_rs(24).randn(8)),), (0,)),
    "jacobi_iteration_norm_inf_return": (p.jacobi_objective, (_diagonally_dominant(_rs(25), 4), _rs(26).randn(4)), (0, 1)),
    "midpoint_while_time_min_step": (p.midpoint_while_time, (1.3, _rs(27).randn(3)), (0, 1)),
    "projectile_drag_vector_state": (p.projectile_with_drag, (11.0, 0.8, 0.03), (0, 1, 2)),
    # ---- 2. statistics
    "gaussian_log_likelihood_module_constant": (p.gaussian_log_likelihood, (0.3, -0.2, _rs(30).randn(9)), (0, 1, 2)),
    "student_t_gammaln_log1p": (p.student_t_log_likelihood, (0.1, 0.2, 1.1, _rs(31).randn(8)), (0, 1, 2, 3)),
    "poisson_regression_gammaln_counts": (p.poisson_regression_nll, (_rs(32).randn(3) * 0.3, _rs(33).randn(9, 3),
                                                                     _rs(34).poisson(2.0, 9).astype(float)), (0, 1)),
    "negative_binomial_gammaln": (p.negative_binomial_nll, (_rs(35).randn(6) * 0.3 + 1.0, 0.4,
                                                             _rs(36).poisson(3.0, 6).astype(float)), (0, 1)),
    "gmm_scipy_logsumexp_broadcast": (p.gmm_log_likelihood, (_rs(37).randn(3), _rs(38).randn(3), _rs(39).randn(3) * 0.2,
                                                             _rs(40).randn(10)), (0, 1, 2, 3)),
    "gmm_2d_own_logsumexp_keepdims": (p.gmm_2d_own_logsumexp, (_rs(41).randn(3, 2), 0.2, _rs(42).randn(3),
                                                               _rs(43).randn(8, 2)), (0, 1, 2, 3)),
    "gmm_em_step_then_likelihood": (p.gmm_em_step_then_likelihood, (np.array([-1.0, 1.2]), _rs(44).randn(10) * 1.5), (0, 1)),
    "kalman_filter_inv_loop": (p.kalman_filter_log_likelihood, (0.3, 0.5, _rs(45).randn(6, 1)), (0, 1, 2)),
    "scalar_kalman_list_of_means": (p.scalar_kalman_smoother_mean, (0.9, 0.2, 0.4, _rs(46).randn(7)), (0, 1, 2, 3)),
    "gp_cholesky_solve_triangular": (p.gp_nlml_cholesky, (np.array([0.1, 0.2, -1.0]), _rs(47).randn(6, 2), _rs(48).randn(6)),
                                     (0, 1, 2)),
    "gp_solve_slogdet": (p.gp_nlml_solve, (np.array([-0.1, 0.3, -1.2]), _rs(49).randn(6, 2), _rs(50).randn(6)), (0, 1, 2)),
    "gp_cho_factor_cho_solve": (p.gp_predictive_mean, (0.2, _rs(51).randn(5, 2), _rs(52).randn(5), _rs(53).randn(3, 2)),
                                (0, 1, 2, 3)),
    "kde_logsumexp_bandwidth": (p.kde_log_density, (-0.4, _rs(54).randn(9), _rs(55).randn(4)), (0, 1, 2)),
    "metropolis_fixed_randomstate_accept": (p.metropolis_mean, (0.9, 0.6), (0, 1)),
    "importance_sampling_reparameterised": (p.importance_sampled_evidence, (0.2, -0.3), (0, 1)),
    "logistic_logaddexp_l2": (p.logistic_nll_logaddexp, (_rs(56).randn(3), _rs(57).randn(9, 3),
                                                         (_rs(58).randn(9) > 0).astype(float)), (0, 1)),
    "softmax_take_along_axis": (p.softmax_regression_take_along, (_rs(59).randn(3, 4) * 0.5, _rs(60).randn(7, 3),
                                                                  _rs(61).randint(0, 4, 7)), (0, 1)),
    "beta_binomial_betaln": (p.beta_binomial_nll, (0.3, -0.1, np.array([2.0, 5.0, 1.0, 7.0]), np.array([8.0, 9.0, 6.0, 10.0])),
                             (0, 1)),
    "ar2_loop_augmented_python_float": (p.ar2_conditional_nll, (np.array([0.5, -0.2]), 0.1, _rs(62).randn(10)), (0, 1, 2)),
    "bayesian_linreg_evidence_slogdet": (p.bayesian_linreg_evidence, (0.2, 0.5, _rs(63).randn(8, 3), _rs(64).randn(8)),
                                         (0, 1, 2, 3)),
    "hierarchical_dict_params_group_list": (p.hierarchical_normal_nll, ({"mu": 0.2, "log_tau": -0.3, "theta": _rs(65).randn(3)},
                                                                         [_rs(66 + j).randn(4) for j in range(3)]), (0, 1)),
    "pinball_where_tuple_default": (p.pinball_quantile_loss, (_rs(69).randn(3, 3), _rs(70).randn(9, 3), _rs(71).randn(9)),
                                    (0, 1, 2)),
    "weighted_lstsq_star_rest": (p.weighted_lstsq_residual, (_rs(72).randn(8) * 0.3, _rs(73).randn(8, 3), _rs(74).randn(8)),
                                 (0, 1, 2)),
    # ---- 3. code structure
    "class_validation_property_classmethod": (p.validated_model_nll, (_rs(80).randn(3), _rs(81).randn(3) * 0.3,
                                                                      _rs(82).randn(5, 3)), (0, 1, 2)),
    "dataclass_default_factory_call": (p.dataclass_factory_mlp_loss, (_rs(83).randn(3, 4) * 0.5, _rs(84).randn(4) * 0.1,
                                                                      _rs(85).randn(4, 2) * 0.5, _rs(86).randn(5, 3)),
                                       (0, 1, 2, 3)),
    "default_function_argument_act": (p.default_function_argument_net, (_rs(87).randn(3, 4) * 0.5, _rs(88).randn(4, 2),
                                                                        _rs(89).randn(5, 3)), (0, 1, 2)),
    "decorator_factory_wraps": (p.decorated_squared_error, (_rs(90).randn(3), _rs(91).randn(6, 3), _rs(92).randn(6)),
                                (0, 1, 2)),
    "star_shape_and_keyword_forwarding": (p.star_shape_forwarding, (_rs(93).randn(4, 3), 0.6), (0, 1)),
    "kwargs_forwarding_to_helper": (p.kwargs_forwarding_caller, (_rs(94).randn(3), _rs(95).randn(6, 3), _rs(96).randn(6)),
                                    (0, 1, 2)),
    "closure_returned_by_factory": (p.closure_from_factory, (_rs(97).randn(3), _rs(98).randn(6, 3), _rs(99).randn(6)),
                                    (0, 1, 2)),
    "generator_function_sum": (p.generator_sum_loss, (_rs(100).randn(3), _rs(101).randn(8, 3), _rs(102).randn(8)), (0, 1, 2)),
    "functools_partial_keyword": (p.partial_helper_loss, (_rs(103).randn(3), _rs(104).randn(6, 3)), (0, 1)),
    "lambdas_in_dict_config_default": (p.lambda_dict_activation_net, (_rs(105).randn(3, 3) * 0.5, _rs(106).randn(4, 3)),
                                       (0, 1)),
    "module_config_dict_solver": (p.config_dict_solver, (0.7, _rs(107).randn(4)), (0, 1)),
    "recursive_horner_slices": (p.recursive_polynomial_loss, (_rs(108).randn(4), _rs(109).randn(5)), (0, 1)),
    "recursive_expression_tree_module_constant": (p.recursive_tree_expression, (_rs(110).randn(5),), (0,)),
    "recursive_pairwise_sum": (p.recursive_pairwise_sum, (_rs(111).randn(9),), (0,)),
    "inheritance_super_call_dunder_call": (p.inherited_layers, (_rs(112).randn(3, 4) * 0.5, _rs(113).randn(4) * 0.1,
                                                                _rs(114).randn(4, 2), _rs(115).randn(5, 3)), (0, 1, 2, 3)),
    "namedtuple_replace_in_loop": (p.namedtuple_replace_integrator, (1.4, _rs(116).randn(3)), (0, 1)),
    "map_lambda_weight_decay": (p.map_lambda_weight_decay, ((_rs(117).randn(3, 4) * 0.5, _rs(118).randn(4, 2)),
                                                            _rs(119).randn(5, 3)), (0, 1)),
    "try_except_linalgerror": (p.try_except_fallback_loss, (_rs(120).randn(3, 3), _rs(121).randn(3)), (0, 1)),
    "nonlocal_call_counter": (p.counting_calls, (_rs(122).randn(3), _rs(123).randn(5, 3)), (0, 1)),
    "star_args_pairs_helper": (p.star_args_pairs, (_rs(124).randn(3), [(_rs(125).randn(2, 3), _rs(126).randn(2)),
                                                                      (_rs(127).randn(3), _rs(128).randn(2))]), (0, 1)),
    "sorted_by_key_dict": (p.sorted_by_key_penalty, ({"w": _rs(129).randn(3), "bias": _rs(130).randn(2), "gamma": 0.4},), (0,)),
    "dict_comprehension_update": (p.dict_comprehension_update, ({"W": _rs(131).randn(3, 2), "b": _rs(132).randn(2)},
                                                                _rs(133).randn(4, 3)), (0, 1)),
    # ---- 4. signal processing and images
    "np_convolve_same": (p.convolve_same_denoise, (_rs(140).randn(3), _rs(141).randn(10), _rs(142).randn(10)), (0, 1, 2)),
    "np_convolve_valid_chain": (p.convolve_valid_chain, (_rs(143).randn(3), _rs(144).randn(2), _rs(145).randn(9)), (0, 1, 2)),
    "fft_convolution_rfft_irfft_n": (p.fft_convolution_real, (_rs(146).randn(3), _rs(147).randn(8)), (0, 1)),
    "fft_convolution_complex_real_part": (p.fft_convolution_complex, (_rs(148).randn(3), _rs(149).randn(7)), (0, 1)),
    "hann_window_rfft_power": (p.hann_power_spectrum, (_rs(150).randn(16),), (0,)),
    "power_spectrum_times_conj": (p.power_spectrum_conj, (_rs(151).randn(12),), (0,)),
    "spectral_centroid_blackman_real_imag": (p.spectral_centroid, (_rs(152).randn(16),), (0,)),
    "box_blur_pad_reflect_accumulate": (p.box_blur_reflect, (_rs(153).randn(5, 6),), (0,)),
    "sobel_pad_constant_magnitude": (p.sobel_edge_energy, (_rs(154).randn(5, 5),), (0,)),
    "total_variation_isotropic_diff": (p.total_variation_isotropic, (_rs(155).randn(5, 6),), (0,)),
    "total_variation_anisotropic_abs": (p.total_variation_anisotropic, (_rs(156).randn(4, 5), _rs(157).randn(4, 5), 0.3),
                                        (0, 1, 2)),
    "tv_denoise_unrolled_diff_append_prepend": (p.tv_denoise_unrolled, (_rs(158).randn(4, 5), 0.4), (0, 1)),
    "autocorrelation_np_correlate": (p.autocorrelation_peak, (_rs(159).randn(10),), (0,)),
    "wiener_deconvolution_conj_abs": (p.wiener_deconvolution, (_rs(160).randn(10), _rs(161).randn(3), 5.0), (0, 1, 2)),
    "fft2_low_pass_mask": (p.fft2_low_pass, (_rs(162).randn(6, 6),), (0,)),
    "moving_average_cumsum": (p.moving_average_cumsum, (_rs(163).randn(10),), (0,)),
    "framed_spectrogram_stack": (p.framed_spectrogram_energy, (_rs(164).randn(20),), (0,)),
    "conv2d_valid_kernel_loop": (p.image_conv2d_valid, (_rs(165).randn(3, 3), _rs(166).randn(6, 6)), (0, 1)),
    "gaussian_window_from_parameter": (p.gaussian_window_smoothing, (-0.2, _rs(167).randn(12)), (0, 1)),
    "lfilter_list_denominator_pole": (p.ar1_filtered_residual, (_rs(168).randn(3), -0.5, _rs(169).randn(12),
                                                                 _rs(170).randn(12)), (0, 1, 2, 3)),
}


# ---------------------------------------------------------------- the caller's arguments stay as they were
def _same_tree(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_tree(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same_tree(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(_same_tree(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return a == b


def _unchanged(args, before, name, mode):
    assert _same_tree(args, before), f"{name} ({mode}) changed the caller's arguments"


# ---------------------------------------------------------------- float32 in, float32 out
def _to_float32(x):
    if isinstance(x, dict):
        return {k: _to_float32(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(_to_float32(a) for a in x))
    if isinstance(x, (list, tuple)):
        return type(x)(_to_float32(a) for a in x)
    if isinstance(x, np.ndarray) and x.dtype == np.float64:
        return x.astype(np.float32)
    return x


def _float32_leaves(g, x, out):
    if isinstance(x, dict):
        for k in x:
            _float32_leaves(g[k], x[k], out)
    elif isinstance(x, (list, tuple)):
        for a, b in zip(g, x):
            _float32_leaves(a, b, out)
    elif isinstance(x, np.ndarray) and x.dtype == np.float32:
        out.append((g, x))


def _check_float32(f, args, argnums, name):
    args32 = _to_float32(args)
    before = copy.deepcopy(args32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        gradients32 = s2sad.grad(f, argnums=argnums)(*args32)
    _unchanged(args32, before, name, "float32")
    gradients64 = s2sad.grad(f, argnums=argnums)(*copy.deepcopy(args))
    pairs = []
    for i, g in zip(argnums, gradients32):
        _float32_leaves(g, args32[i], pairs)
    for g, x in pairs:
        assert isinstance(g, np.ndarray) and g.dtype == np.float32 and g.shape == x.shape, (
            f"{name}: the gradient of a float32 {x.shape} array is {type(g).__name__} "
            f"{getattr(g, 'dtype', '')} {getattr(g, 'shape', '')}")
    pairs64 = []
    for i, g in zip(argnums, gradients64):
        _float32_leaves(g, _to_float32(args)[i], pairs64)
    for (g32, _), (g64, _) in zip(pairs, pairs64):
        scale = max(1.0, float(np.max(np.abs(g64))) if np.size(g64) else 1.0)
        np.testing.assert_allclose(g32, g64, rtol=2e-3, atol=2e-3 * scale, err_msg=f"{name}: float32 gradient far from float64")


def check(name, mode):
    """Run ``name`` in ``mode``; raise AssertionError on a wrong number, and let s2sad's errors through."""
    f, args, argnums = CORPUS[name]
    if mode == "float32":
        _check_float32(f, args, argnums, name)
        return
    expected_value = f(*copy.deepcopy(args))
    given = copy.deepcopy(args)
    before = copy.deepcopy(args)
    if mode in ("grad", "grad_compiled"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
            gradients = s2sad.grad(f, argnums=argnums, compile=(mode == "grad_compiled"))(*given)
        _unchanged(given, before, name, mode)
        _check_gradients(f, args, argnums, gradients, name)
    elif mode == "value_and_grad":
        value, gradients = s2sad.value_and_grad(f, argnums=argnums)(*given)
        _unchanged(given, before, name, mode)
        np.testing.assert_allclose(value, expected_value, rtol=1e-10)
        _check_gradients(f, args, argnums, gradients, name)
    elif mode == "vjp":
        value, pullback = s2sad.vjp(f, *given)
        np.testing.assert_allclose(value, expected_value, rtol=1e-10)
        cotangents = pullback(1.0)
        _unchanged(given, before, name, mode)
        _check_gradients(f, args, argnums, [cotangents[i] for i in argnums], name)
    elif mode == "jvp":
        check_jvp(f, args, argnums, name, given, expected_value)
        _unchanged(given, before, name, mode)
    elif mode == "hvp":
        _check_hvp(f, args, argnums, name)
    else:
        raise ValueError(mode)


if __name__ == "__main__":
    import sys
    print_tally(sys.argv[1:] or list(CORPUS), MODES, check)
