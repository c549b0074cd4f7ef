"""What the spectral rules (``eigh``, ``eigvalsh``, ``eig``, ``svd``, the 2-norms) do where a
spectrum repeats: two eigenvalues or singular values equal to rounding, or a singular value 0.

There an individual value has no derivative (it is a kink, like ``abs`` at 0: the values split
one way or the other), and the vectors of a repeated value are any basis of its space. Only a
function that treats the repeated values alike and is blind to the basis has a derivative, and
the rule, which sees one call, cannot tell. Its formulas divide by the gap between the values;
taking ``1 / 0`` as 0 there (as the rules did) drops a term whose limit is not 0: the gradient
of ``sum(V @ diag(exp(w)) @ V.T)`` at the identity came out half of the central difference's.

So, at such a point:

* a reverse rule raises when what flows back depends on the choice: the values' cotangents
  differ within a repeated block, or the vectors' cotangent reaches a vector of a repeated value
  (or of a zero singular value; a zero singular value itself keeps its subgradient, as
  ``abs`` keeps one at 0);
* a forward rule, which cannot know what will read its tangents, makes NaN the tangents that
  have no value (a value that would split, a vector of a repeated pair): s2sad refuses a NaN
  derivative of a finite value (runtime/finiteness.py), and tangents nobody reads do not matter.

A function of the values alone that treats them alike (``sum(w)``, ``sum(log(w))``, the nuclear
norm of a full-rank matrix) keeps its gradient: its cotangents are equal within each block.
"""
import numpy as np

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry import nondifferentiable


def _tolerance(values):
    """Values closer than this are equal to rounding: 16 n eps times the largest magnitude, per matrix
    (LAPACK returns the values of an exactly repeated one a few n eps apart, and such close values
    would put a factor of 1 / gap, over 1e13, in the derivative anyway)."""
    magnitude = np.abs(values)
    eps = np.finfo(np.result_type(magnitude.dtype, np.float32)).eps
    return 16 * values.shape[-1] * eps * np.max(magnitude, axis=-1, keepdims=True)


def repeated_pairs(values):
    """``pairs[..., i, j]``: ``i != j`` and ``values[i]`` equals ``values[j]`` to rounding."""
    values = np.asarray(values)
    gaps = np.abs(values[..., None, :] - values[..., :, None])
    close = gaps <= _tolerance(values)[..., None]
    return close & ~np.eye(values.shape[-1], dtype=bool)


def zero_values(values):
    """Singular values that are 0 to rounding (a rank-deficient matrix)."""
    values = np.asarray(values)
    return np.abs(values) <= _tolerance(values)


def _refuse(function, why):
    raise UnsupportedArgumentsError(
        f"{function} at a matrix whose {why}: there the function has no derivative unless it treats "
        "the repeated values alike and does not depend on the choice of vectors, and this one does",
        hint="differentiate at a point where the values are distinct (an identity or diagonal starting "
             "point is the usual culprit: add a small asymmetric perturbation), or write the function of "
             "the values alone and alike for all of them (np.sum(np.log(np.linalg.eigvalsh(S))))")


def refuse_split_values(values, g_values, function, kind="eigenvalues"):
    """Reverse: the values' cotangents must be equal within each repeated block."""
    if g_values is None or not np.any(np.asarray(g_values) != 0):
        return
    pairs = repeated_pairs(values)
    g = np.asarray(g_values)
    if np.any(pairs & (g[..., None, :] != g[..., :, None])):
        _refuse(function, f"{kind} repeat (to rounding), with cotangents that differ between the repeated ones")


def refuse_reached_vectors(values, g_vectors, function, kind="eigenvalues"):
    """Reverse: the vectors' cotangent ``g_vectors`` (a column per value) must be 0 in every column of a
    repeated value. Those vectors are any basis of their space, and which one the function sees decides
    its slope: even where the cotangent meets the other vectors of the block with weight 0 at this point
    (``sum(abs(V) ** 2 * W)`` at a diagonal matrix), the limit of that weight over the gap is not 0."""
    undefined = np.any(repeated_pairs(values), axis=-1)
    if np.any(undefined & np.any(np.asarray(g_vectors)[..., :undefined.shape[-1]] != 0, axis=-2)):
        _refuse(function, f"{kind} repeat (to rounding), and the result depends on the vectors of the repeated ones")


def refuse_zero_singular_values(s, g_columns, function):
    """Reverse, ``svd``: the vectors of a singular value 0 have no derivative: as the value passes through 0
    the pair ``u_i v_i^H`` changes sign (the value stays >= 0), and in a matrix that is not square they
    are any basis of a space of two or more dimensions. (The value itself is a kink, like ``abs`` at 0,
    and keeps its subgradient, as ``abs`` does: the nuclear norm's ``U @ Vh``.) ``g_columns``:
    cotangents of U or V. ``det``'s Hessian at a singular matrix (its cofactors through the SVD) meets this."""
    zero = zero_values(s)
    if not np.any(zero):
        return
    for g in g_columns:
        if g is not None and np.any(zero & np.any(np.asarray(g) != 0, axis=-2)):
            _refuse(function, "singular values include 0 (to rounding), and the result depends on their vectors "
                             "(which flip sign as the value passes through 0)")


# masks and checks: constants where a rule's own code is differentiated again (hvp)
nondifferentiable(repeated_pairs, zero_values, refuse_split_values, refuse_reached_vectors, refuse_zero_singular_values)


def nan_where_values_split(d_values, values, projected):
    """Forward: a repeated block's values move by the eigenvalues of ``projected`` (the tangent seen
    in the block's basis, Hermitian); unless that block is a multiple of the identity they split, and
    each has only one-sided derivatives: NaN."""
    pairs = repeated_pairs(values)
    if not np.any(pairs):
        return d_values
    diagonal = np.diagonal(projected, axis1=-2, axis2=-1)
    splits = pairs & ((projected != 0) | (diagonal[..., None, :] != diagonal[..., :, None]))
    return np.where(np.any(splits, axis=-1), np.nan, d_values)


def nan_columns_of_repeated(d_vectors, values, extra=None):
    """Forward: the vectors of a repeated value (or of ``extra``, a mask over the values) have no tangent."""
    undefined = np.any(repeated_pairs(values), axis=-1)
    if extra is not None:
        undefined = undefined | extra
    if not np.any(undefined):
        return d_vectors
    return np.where(undefined[..., None, :], np.nan, d_vectors)
