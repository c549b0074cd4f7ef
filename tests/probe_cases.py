"""The probe corpus (tests/probe_programs.py) with its arguments, and one checker per mode: grad,
value_and_grad, vjp, jvp, hvp and grad(compile=True), each against central finite differences in
float64 of the plain NumPy function along random directions (tests/published_cases.py's checker),
plus two checks of what a caller sees: the caller's arrays are unchanged by differentiating, and
float32 arguments give float32 gradients. ``python tests/probe_cases.py`` prints a tally of
right / refused / wrong / crash per program and mode."""
import copy
import warnings

import numpy as np

import probe_programs as p
import published_cases
import s2sad

MODES = published_cases.MODES


def _rs(seed):
    return np.random.RandomState(seed)


def _spd_ish(seed, n):
    M = _rs(seed).randn(n, n)
    return M + n * np.eye(n)


CORPUS = {
    # name: (program, arguments, argnums)
    # 1: indexing
    "gather_repeated_indices": (p.gather_repeated_indices, (_rs(1).randn(4),), (0,)),
    "scatter_add_with_duplicates_once": (p.scatter_add_with_duplicates_once, (_rs(2).randn(5), _rs(3).randn(4)), (0, 1)),
    "scatter_add_at_with_duplicates": (p.scatter_add_at_with_duplicates, (_rs(4).randn(5), _rs(5).randn(4)), (0, 1)),
    "boolean_mask_read": (p.boolean_mask_read, (_rs(6).randn(7),), (0,)),
    "boolean_mask_write_zero": (p.boolean_mask_write_zero, (_rs(7).randn(6), _rs(8).randn(6)), (0, 1)),
    "where_with_both_branches": (p.where_with_both_branches, (_rs(9).randn(6),), (0,)),
    "negative_steps": (p.negative_steps, (_rs(10).randn(7),), (0,)),
    "new_axes_and_ellipsis": (p.new_axes_and_ellipsis, (_rs(11).randn(3), _rs(12).randn(4)), (0, 1)),
    "two_axis_integer_arrays": (p.two_axis_integer_arrays, (_rs(13).randn(3, 3),), (0,)),
    "ix_block": (p.ix_block, (_rs(14).randn(3, 3),), (0,)),
    "take_along_axis_of_argsort": (p.take_along_axis_of_argsort, (_rs(15).randn(3, 4),), (0,)),
    "argmax_selected_items": (p.argmax_selected_items, (_rs(16).randn(4, 3), _rs(17).randn(4, 3)), (0, 1)),
    "zero_d_items": (p.zero_d_items, (_rs(18).randn(3),), (0,)),
    "item_of_an_array": (p.item_of_an_array, (_rs(19).randn(3),), (0,)),
    "take_with_repeats": (p.take_with_repeats, (_rs(20).randn(4),), (0,)),
    "mask_and_fancy_assign": (p.mask_and_fancy_assign, (_rs(21).randn(6),), (0,)),
    # 2: views and in place
    "reshape_view_written": (p.reshape_view_written, (_rs(22).randn(6),), (0,)),
    "transpose_view_plus_equals": (p.transpose_view_plus_equals, (_rs(23).randn(2, 3),), (0,)),
    "slice_view_of_a_copy": (p.slice_view_of_a_copy, (_rs(24).randn(5),), (0,)),
    "ravel_view_written": (p.ravel_view_written, (_rs(25).randn(2, 3),), (0,)),
    "asarray_is_the_same_object": (p.asarray_is_the_same_object, (_rs(26).randn(4),), (0,)),
    "add_out_into_first": (p.add_out_into_first, (_rs(27).randn(4), _rs(28).randn(4)), (0, 1)),
    "multiply_out_into_fresh": (p.multiply_out_into_fresh, (_rs(29).randn(4), _rs(30).randn(4)), (0, 1)),
    "put_and_place": (p.put_and_place, (_rs(31).randn(4),), (0,)),
    "put_values_from_x": (p.put_values_from_x, (_rs(32).randn(4),), (0,)),
    "place_values": (p.place_values, (_rs(33).randn(6),), (0,)),
    "shape_assignment": (p.shape_assignment, (_rs(34).randn(6),), (0,)),
    "resize_method": (p.resize_method, (_rs(35).randn(6),), (0,)),
    "empty_like_buffer_filled_in_loop": (p.empty_like_buffer_filled_in_loop, (_rs(36).randn(5),), (0,)),
    "view_of_argument_written": (p.view_of_argument_written, (_rs(37).randn(4),), (0,)),
    "reshape_of_a_slice_written": (p.reshape_of_a_slice_written, (_rs(38).randn(3, 3),), (0,)),
    # 3: linear algebra
    "solve_and_inv": (p.solve_and_inv, (_spd_ish(39, 3), _rs(40).randn(3)), (0, 1)),
    "det_and_slogdet": (p.det_and_slogdet, (_rs(41).randn(3, 3),), (0,)),
    "cholesky_log_det": (p.cholesky_log_det, (_rs(42).randn(3, 3),), (0,)),
    "eigh_spectrum": (p.eigh_spectrum, (_rs(43).randn(3, 3),), (0,)),
    "svd_nuclear_and_top": (p.svd_nuclear_and_top, (_rs(44).randn(4, 3),), (0,)),
    "qr_r_diagonal": (p.qr_r_diagonal, (_rs(45).randn(4, 3),), (0,)),
    "lstsq_residual": (p.lstsq_residual, (_rs(46).randn(5, 3), _rs(47).randn(5)), (0, 1)),
    "norms_all_orders": (p.norms_all_orders, (_rs(48).randn(3, 4), _rs(49).randn(5)), (0, 1)),
    "pinv_and_matrix_power": (p.pinv_and_matrix_power, (_spd_ish(50, 3) * 0.4, _rs(51).randn(4, 3)), (0, 1)),
    "kron_outer_tensordot": (p.kron_outer_tensordot, (_rs(52).randn(2), _rs(53).randn(2), _rs(54).randn(3, 3)), (0, 1, 2)),
    "einsum_with_ellipsis": (p.einsum_with_ellipsis, (_rs(55).randn(2, 3, 4), _rs(56).randn(4, 2)), (0, 1)),
    "complex_solve_real_loss": (p.complex_solve_real_loss, (_rs(57).randn(3, 3), _rs(58).randn(3)), (0, 1)),
    "complex_eigh_hermitian": (p.complex_eigh_hermitian, (_rs(59).randn(3, 3), _rs(60).randn(3, 3)), (0, 1)),
    "complex_svd_and_norm": (p.complex_svd_and_norm, (_rs(61).randn(3, 2), _rs(62).randn(3, 2)), (0, 1)),
    "near_singular_solve": (p.near_singular_solve, (np.array([[1.0, 2.0], [2.0, 4.0001]]), 0.01), (0, 1)),
    "repeated_eigenvalue_trace": (p.repeated_eigenvalue_trace, (np.eye(3),), (0,)),
    # 4: ML code
    "softmax_cross_entropy_logsumexp": (p.softmax_cross_entropy_logsumexp, (_rs(63).randn(4, 3), _rs(64).randn(5, 4),
                                                                            _rs(65).randint(0, 3, 5)), (0, 1)),
    "label_smoothing_loss": (p.label_smoothing_loss, (_rs(66).randn(5, 4), _rs(67).randint(0, 4, 5)), (0,)),
    "scaled_dot_attention_with_mask": (p.scaled_dot_attention_with_mask, (_rs(68).randn(2, 4, 3), _rs(69).randn(2, 4, 3),
                                                                          _rs(70).randn(2, 4, 3)), (0, 1, 2)),
    "multi_head_attention_masked_fill": (p.multi_head_attention_masked_fill, (_rs(71).randn(4, 3), _rs(72).randn(3, 4),
                                                                              _rs(73).randn(3, 4)), (0, 1, 2)),
    "layer_norm": (p.layer_norm, (_rs(74).randn(3, 4), _rs(75).randn(4), _rs(76).randn(4)), (0, 1, 2)),
    "batch_norm_training": (p.batch_norm_training, (_rs(77).randn(5, 3), _rs(78).randn(3), _rs(79).randn(3)), (0, 1, 2)),
    "dropout_fixed_random_state": (p.dropout_fixed_random_state, (_rs(80).randn(3, 4), _rs(81).randn(5, 3)), (0, 1)),
    "conv1d_loops": (p.conv1d_loops, (_rs(82).randn(7), _rs(83).randn(3)), (0, 1)),
    "conv2d_slicing": (p.conv2d_slicing, (_rs(84).randn(5, 5), _rs(85).randn(2, 3)), (0, 1)),
    "max_pool_reshape": (p.max_pool_reshape, (_rs(86).randn(4, 6), _rs(87).randn(4, 6)), (0, 1)),
    "lstm_cell_dict_params": (p.lstm_cell_dict_params, ({"Wx": _rs(88).randn(3, 8) * 0.5, "Wh": _rs(89).randn(2, 8) * 0.5,
                                                         "b": _rs(90).randn(8) * 0.1}, _rs(91).randn(4, 3), _rs(92).randn(4, 2),
                                                        _rs(93).randn(4, 2)), (0, 1, 2, 3)),
    "gru_cell_sequence": (p.gru_cell_sequence, ({k: _rs(94 + i).randn(3, 3 if k[0] == "U" else 2) * 0.5
                                                 for i, k in enumerate(["Wz", "Uz", "Wr", "Ur", "Wh", "Uh"])},
                                                [_rs(100).randn(2), _rs(101).randn(2), _rs(102).randn(2)]), (0, 1)),
    "adam_steps_in_a_loop": (p.adam_steps_in_a_loop, (_rs(103).randn(3), _rs(104).randn(6, 3), _rs(105).randn(6)), (0, 1, 2)),
    "clipped_gradient_step": (p.clipped_gradient_step, (_rs(106).randn(3), _rs(107).randn(6, 3), _rs(108).randn(6)), (0, 1, 2)),
    "one_hot_eye_labels": (p.one_hot_eye_labels, (_rs(109).randn(4, 3), _rs(110).randn(5, 4), _rs(111).randint(0, 3, 5)), (0, 1)),
    # 5: numerics
    "sort_gather": (p.sort_gather, (_rs(112).randn(6),), (0,)),
    "cumprod_with_a_zero": (p.cumprod_with_a_zero, (_rs(113).randn(5),), (0,)),
    "cumsum_and_diff": (p.cumsum_and_diff, (_rs(114).randn(6),), (0,)),
    "numpy_gradient_stencil": (p.numpy_gradient_stencil, (_rs(115).randn(6), 0.3), (0, 1)),
    "numpy_gradient_2d_edge_order": (p.numpy_gradient_2d_edge_order, (_rs(116).randn(4, 5),), (0,)),
    "pad_all_modes": (p.pad_all_modes, (_rs(117).randn(5),), (0,)),
    "roll_tile_repeat": (p.roll_tile_repeat, (_rs(118).randn(4),), (0,)),
    "clip_inside_and_outside": (p.clip_inside_and_outside, (_rs(119).randn(6),), (0,)),
    "sign_round_floor_are_flat": (p.sign_round_floor_are_flat, (_rs(120).randn(6),), (0,)),
    "negative_base_integer_power": (p.negative_base_integer_power, (_rs(121).randn(5) * 0.5,), (0,)),
    "power_of_sum_at_zero_exponent": (p.power_of_sum_at_zero_exponent, (_rs(122).randn(5),), (0,)),
    "sqrt_and_half_power_away_from_zero": (p.sqrt_and_half_power_away_from_zero, (_rs(123).randn(5),), (0,)),
    "complex_square_vs_product": (p.complex_square_vs_product, (_rs(124).randn(4), _rs(125).randn(4)), (0, 1)),
    "abs_max_min_with_margins": (p.abs_max_min_with_margins, (_rs(126).randn(6),), (0,)),
    "searchsorted_interpolation": (p.searchsorted_interpolation, (_rs(127).randn(6), np.array([-3.0, -1.0, -0.2, 0.5, 1.4, 3.0])),
                                   (0, 1)),
    "triangular_and_diagonal": (p.triangular_and_diagonal, (_rs(128).randn(4, 4),), (0,)),
    "stack_concatenate_split": (p.stack_concatenate_split, (_rs(129).randn(4), _rs(130).randn(4)), (0, 1)),
    "percentile_free_robust_scale": (p.percentile_free_robust_scale, (_rs(131).randn(7),), (0,)),
    "logsumexp_with_minus_inf_entries": (p.logsumexp_with_minus_inf_entries, (_rs(132).randn(7),), (0,)),
    "nan_aware_reductions": (p.nan_aware_reductions, (_rs(133).randn(7),), (0,)),
    "var_std_with_ddof": (p.var_std_with_ddof, (_rs(134).randn(5, 3),), (0,)),
    # a second round
    "scatter_active_values_duplicates": (p.scatter_active_values_duplicates, (_rs(135).randn(5), _rs(136).randn(3)), (0, 1)),
    "zero_d_array_argument": (p.zero_d_array_argument, (np.array(0.7), _rs(137).randn(3)), (0, 1)),
    "eig_nonsymmetric": (p.eig_nonsymmetric, (_rs(138).randn(3, 3) + np.diag([0.0, 2.0, 4.0]),), (0,)),
    "det_of_singular": (p.det_of_singular, (_rs(139).randn(3, 3),), (0,)),
    "log_softmax_neg_inf_mask": (p.log_softmax_neg_inf_mask, (_rs(140).randn(4),), (0,)),
    "maxpool_with_argmax_scatter": (p.maxpool_with_argmax_scatter, (_rs(141).randn(8),), (0,)),
    "diff_and_gradient_with_coordinates": (p.diff_and_gradient_with_coordinates,
                                           (_rs(142).randn(6), np.cumsum(np.abs(_rs(143).randn(6))) + 0.1), (0, 1)),
}


def _arrays(tree):
    """Every ndarray leaf of an argument tree, for checking that the caller's arrays are unchanged."""
    if isinstance(tree, dict):
        return [a for v in tree.values() for a in _arrays(v)]
    if isinstance(tree, (list, tuple)):
        return [a for v in tree for a in _arrays(v)]
    return [tree] if isinstance(tree, np.ndarray) else []


def check(name, mode):
    """``mode`` of ``name`` against central differences (published_cases' checker over this corpus),
    then: the arrays the caller passed are unchanged (differentiating a function that writes into
    its own argument must leave the caller's copy as NumPy's own call would)."""
    f, args, argnums = CORPUS[name]
    saved = published_cases.CORPUS.get(name)
    published_cases.CORPUS[name] = (f, args, argnums)
    try:
        published_cases.check(name, mode)
    finally:
        if saved is None:
            del published_cases.CORPUS[name]
        else:
            published_cases.CORPUS[name] = saved


def check_caller_unchanged(name):
    f, args, argnums = CORPUS[name]
    mine = copy.deepcopy(args)
    before = [a.copy() for a in _arrays(mine)]
    plain = copy.deepcopy(args)
    f(*plain)
    numpy_changes = [not np.array_equal(a, b) for a, b in zip(_arrays(plain), before)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        s2sad.grad(f, argnums=argnums)(*mine)
    for changed, a, b in zip(numpy_changes, _arrays(mine), before):
        if not changed:
            np.testing.assert_array_equal(a, b, err_msg=f"{name}: grad changed an argument the function leaves alone")


def _to32(tree):
    if isinstance(tree, dict):
        return {k: _to32(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_to32(v) for v in tree]
    if isinstance(tree, tuple):
        return tuple(_to32(v) for v in tree)
    if isinstance(tree, np.ndarray) and tree.dtype == np.float64:
        return tree.astype(np.float32)
    return tree


def check_float32(name):
    """float32 arguments give float32 gradients (every float leaf), as NumPy keeps float32."""
    f, args, argnums = CORPUS[name]
    args32 = _to32(copy.deepcopy(args))
    if not any(a.dtype == np.float32 for a in _arrays(args32)):
        return
    gradients = s2sad.grad(f, argnums=argnums)(*args32)
    for i, g in zip(argnums, gradients):
        for leaf, primal in zip(_arrays(g), _arrays(args32[i])):
            if primal.dtype == np.float32:
                assert leaf.dtype == np.float32, f"{name}: argument {i} is float32, its gradient {leaf.dtype}"


def classify(name, mode):
    try:
        if mode == "caller_unchanged":
            check_caller_unchanged(name)
        elif mode == "float32":
            check_float32(name)
        else:
            check(name, mode)
    except AssertionError as error:
        return "wrong", str(error).strip().splitlines()[:6]
    except s2sad.S2SADError as error:
        return "refused", f"{type(error).__name__}: {error}"
    except Exception as error:
        return "crash", f"{type(error).__name__}: {error}"
    return "right", ""


def tally(names, modes):
    """Each program in each mode, classified; what is not right is printed as it comes."""
    outcomes = {}
    for name, mode in ((n, m) for n in names for m in modes):
        outcomes[name, mode], detail = classify(name, mode)
        if outcomes[name, mode] != "right":
            print(f"{outcomes[name, mode]:8s} {name} [{mode}]: {str(detail)[:500]}", flush=True)
    return outcomes


if __name__ == "__main__":
    import collections
    import sys
    chosen = sys.argv[1:] or list(CORPUS)
    all_modes = MODES + ("caller_unchanged", "float32")
    counts = collections.Counter(tally(chosen, all_modes).values())
    print(dict(counts), f"{len(chosen)} programs x {len(all_modes)} modes")
