"""A helper called for its effect or a test, its result not differentiated, that writes into what
its argument holds (``state.buf[0] = ...``, ``d["w"][0] = ...``, or through an alias ``b = state.buf``):
s2sad follows what a function returns, not what it writes into its arguments, so the call is
refused at its line. Before, only a write into the parameter itself was seen, and these gave
wrong gradients (2.4 where central differences give 1.2; 0 where they give -7.2). A helper that
only reads (``state.buf.shape[0]``, ``np.sum(state.buf)``) is differentiated through. A helper
keeping the value it is given (in a global dict or buffer the function reads after) is refused
too, even when nothing else reads that value."""
import numpy as np
import pytest

from tests.finite_differences import assert_every_mode_matches, refusal_in


class Box:
    def __init__(self, buf):
        self.buf = buf


def scale_first(state):
    state.buf[0] = state.buf[0] * 2.0


def write_through_an_item(d):
    d["w"][0] = d["w"][1] * 3.0


def write_through_an_alias(state):
    b = state.buf
    b[0] = 7.0


def fill_a_field(state):
    state.buf.fill(0.5)


def field_written_by_a_helper(x):
    s = Box(x * 1.0)
    scale_first(s)
    return np.sum(s.buf * s.buf)


def item_written_by_a_helper(x):
    d = {"w": x * 1.0}
    write_through_an_item(d)
    return np.sum(d["w"] ** 2)


def helper_result_tested(x):
    d = {"w": x * 1.0}
    if write_through_an_item(d) is None:
        return np.sum(d["w"] ** 2)
    return 0.0


def alias_written_by_a_helper(x):
    s = Box(x * 1.0)
    write_through_an_alias(s)
    return np.sum(s.buf * x)


def field_filled_by_a_helper(x):
    s = Box(x * 1.0)
    fill_a_field(s)
    return np.sum(s.buf * x)


@pytest.mark.parametrize("f", [field_written_by_a_helper, item_written_by_a_helper, helper_result_tested,
                               alias_written_by_a_helper, field_filled_by_a_helper])
@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_a_helper_writing_into_what_its_argument_holds_is_refused(f, mode):
    x = np.array([0.3, -1.2, 0.7])
    refused = refusal_in(mode, f, x, "may write into its arguments")
    assert refused.location.filename == __file__


def mean_of_field(state):
    n = state.buf.shape[0]
    total = np.sum(state.buf) * 2.0
    return total / n


def helper_that_only_reads_in_a_test(x):
    s = Box(x * 1.0)
    if mean_of_field(s) > -100.0:
        return np.sum(s.buf * x)
    return 0.0


def test_a_helper_that_only_reads_what_its_argument_holds_is_differentiated_through():
    x = np.array([0.3, -1.2, 0.7])
    assert_every_mode_matches(helper_that_only_reads_in_a_test, x, np.array([1.0, -0.5, 0.25]),
                              np.array([0.2, 0.4, -1.0]))


RECORDED = {}
BUFFER = np.zeros(3)


def record(v):
    RECORDED["last"] = v


def set_buffer(v):
    BUFFER[:] = v


def kept_in_a_global_dict(x):
    record(x * 2.0)  # a value nothing else reads, kept where the function reads it
    return np.sum(RECORDED["last"] * x)


def kept_in_a_global_buffer(x):
    set_buffer(x * 2.0)
    return np.sum(BUFFER * x)


@pytest.mark.parametrize("f", [kept_in_a_global_dict, kept_in_a_global_buffer])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_helper_keeping_a_value_it_is_given_is_refused(f, mode):
    # before: 0.6 where central differences give 1.2 (the kept value's path was a constant's)
    x = np.array([0.3, -1.2, 0.7])
    refused = refusal_in(mode, f, x, "may write into its arguments or keep them")
    assert refused.location.filename == __file__
