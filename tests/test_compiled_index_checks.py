"""compile=True checks each index the user's code reads or writes, as NumPy does: Numba's compiled
code did not, so an index past the end read whatever lay there and gave a number (``x[i]`` for i up
to 5 of a 3-element array: 14.0 and a gradient) where the plain function raises IndexError. Now the
compiled call raises, the NumPy path runs it again, and the user sees NumPy's IndexError."""
import warnings

import numpy as np
import pytest

import s2sad

numba = pytest.importorskip("numba")


def squares_up_to(x, n):
    total = 0.0
    for i in range(n):
        total += x[i] ** 2
    return total


def written_past_the_end(x, k):
    y = np.zeros(3)
    y[k] = x[0]
    return np.sum(y * x)


@pytest.mark.parametrize("f, args", [(squares_up_to, (np.array([1.0, 2.0, 3.0]), 5)),
                                     (squares_up_to, (np.array([1.0, 2.0, 3.0]), 4)),
                                     (written_past_the_end, (np.array([1.0, 2.0, 3.0]), 5)),
                                     (written_past_the_end, (np.array([1.0, 2.0, 3.0]), -4))],
                         ids=["read-5", "read-4", "write-5", "write-minus-4"])
def test_an_index_past_the_end_raises_numpys_index_error(f, args):
    with pytest.raises(IndexError, match="out of bounds"):
        f(*args)
    gradient = s2sad.value_and_grad(f, compile=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        with pytest.raises(IndexError, match="out of bounds"):
            gradient(*args)
        # in range, the compiled gradient (by hand: 2 x for the indices read; x[0] written at k = 2)
        value, dx = gradient(args[0], 3 if f is squares_up_to else 2)
    expected = 2.0 * args[0] if f is squares_up_to else np.array([3.0, 0.0, 1.0])
    np.testing.assert_array_equal(dx, expected)
