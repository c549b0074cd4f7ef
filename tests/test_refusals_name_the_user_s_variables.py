"""A refusal names the user's variables, not the ones s2sad makes (``params_own``, the function's
own copy of an argument it changes in place)."""
import numpy as np
import pytest

import s2sad


def updated_in_place(x, params):
    for i in range(len(params)):
        W, b = params[i]
        params[i] = (W - 0.1 * W * x, b)  # an array's row here would change W: refused for one
    return sum(np.sum(W * b) for W, b in params)


def test_a_write_into_an_argument_names_the_argument():
    params = np.array([[[1.0, 2.0], [0.5, 0.1]]])  # an array: a list of tuples is differentiated (test_slots_of_argument_lists.py)
    with pytest.raises(s2sad.UnsupportedSyntaxError) as caught:
        s2sad.grad(updated_in_place)(np.array([0.3, 0.7]), params)
    assert "`params[...] = ...`" in str(caught.value) and "params_own" not in str(caught.value)
    assert "test_refusals_name_the_user_s_variables.py:12:9" in str(caught.value)
