"""``for_numba`` skips the passes that can find nothing in a gradient's code: where the words they
look for are missing (an RNN's gradient has no ``random``, ``.flat``, ``math``, ``errstate``,
``tuple(``, ``{}``, ``.format``, join or ``item_cotangent``), none of them walks the tree. Each walk
was 2-3 ms of a compiled gradient's cold first call (benchmarks/cold_call.py); the passes' own
tests show them still applied where the words are there."""
import libcst
import pytest

from s2sad.codegen import for_numba as passes

# the RNN's gradient (benchmarks/workloads.py), as the generator hands it to for_numba
RNN = '''\
def rnn_grad_compiled(W, h, x):
    range_100 = range(100)
    step_tape = []
    for step in range_100:
        W_matmul_h = W @ h
        W_matmul_h_add_x = W_matmul_h + x
        h_2 = np.tanh(W_matmul_h_add_x)
        step_tape.append((W_matmul_h, h_2, h))
        h = h_2
    result = np.sum(h)
    dresult = 1.0
    dh = expand_reduced(dresult, h, None, False, True)
    dW = ZERO
    for step_tape_position in range(len(step_tape) - 1, -1, -1):
        W_matmul_h, h_2, h_before = step_tape[step_tape_position]
        dh_2 = dh
        dW_matmul_h_add_x = dh_2 * conj(1 - h_2 ** 2)
        dW_matmul_h = unbroadcast(dW_matmul_h_add_x, W_matmul_h)
        dW = accumulate(dW, matmul_vjp_x1(dW_matmul_h, W, h_before))
        dh = matmul_vjp_x2(dW_matmul_h, W, h_before)
    return result, (dW,)
'''
# a gradient of floats: x * y squared
FLOATS = '''\
def square_grad_compiled(x, y):
    z = x * y
    result = z * z
    dresult = 1.0
    dz = dresult * (z + z)
    dx = dz * y
    return result, (dx,)
'''
PRIMAL_OF = {"dresult": "result", "dh": "h", "dW": "W", "dh_2": "h_2", "dW_matmul_h_add_x": "W_matmul_h_add_x",
             "dW_matmul_h": "W_matmul_h"}
# the visitors of the passes that look for those words (errstate_ignored's `_Managers`, star_calls' `_EmptyDicts`)
SKIPPED = {"_RandomDraws", "_FlatIndices", "_MathAsNumpy", "_Managers", "_EmptyDicts", "_Joins", "_ItemCotangents",
           "_Messages", "_UnformattedMessages"}


def _compiled(arrays: bool) -> str:
    if arrays:
        return passes.for_numba(RNN, {"range": ("global", "range")}, None, primal_of=dict(PRIMAL_OF))
    return passes.for_numba(FLOATS, {}, None)


@pytest.mark.parametrize("arrays", [True, False], ids=["arrays", "floats"])
def test_passes_whose_words_are_missing_walk_nothing(monkeypatch, arrays):
    visitors = []
    walk = libcst.Module.visit

    def recorded(module, visitor):
        visitors.append(type(visitor).__name__)
        return walk(module, visitor)

    monkeypatch.setattr(libcst.Module, "visit", recorded)
    compiled = _compiled(arrays)
    assert ("numpy_tanh(W_matmul_h_add_x)" if arrays else "dx = dz * y") in compiled
    assert not SKIPPED & set(visitors), visitors
    if arrays:  # (the array code's names and their occurrences, read by three passes, are walked for once)
        assert visitors.count("_Assigned") == visitors.count("_Occurrences") == 1
        assert "_Scattered" not in visitors  # (the float version's alone)
