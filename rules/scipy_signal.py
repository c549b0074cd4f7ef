"""Rules for ``scipy.signal`` (registered once the user imports ``scipy.signal``).

Convolution is bilinear: the cotangent of each input is the output cotangent correlated
with the other input. A ``same`` or ``valid`` output is the centre of the ``full`` one, so
its cotangent is first placed back into a ``full``-shaped array of zeros; the cotangent of
``in1`` is then the ``valid`` convolution of that with ``in2`` reversed, which has exactly
``in1``'s shape. ``correlate(in1, in2)`` is ``convolve(in1, in2 reversed)`` (real inputs).
Cotangents are computed with the method the call used (``direct``, ``fft`` or ``auto``).

``convolve2d(in1, in2, mode)`` with ``boundary='fill'`` and ``fillvalue=0`` is ``convolve``
(direct) of two 2-D arrays: its rules are convolve's. Another boundary ('wrap', 'symm') or a
nonzero fill value convolves with a padded copy of ``in1`` whose padding depends on ``in1``
(or on the fill value): refused.

``lfilter(b, a, x)`` is a causal linear filter: the cotangent of ``x`` is the same filter
run backwards in time over the cotangent; those of ``b`` and ``a`` correlate the
backward-filtered cotangent with ``x`` and with the output. Initial conditions
(``zi``) are not supported by the rule.

Forward rules: convolution and correlation are linear in each input, so the tangent of
each is the same call with the tangent in that input's place (``correlate`` conjugates
``in2``, which is linear over the reals: the same holds for complex inputs). ``lfilter`` is
linear in ``b`` and ``x``; from ``a * y = b * x`` (convolutions), a tangent of ``a`` gives
``a * dy = -da * y``, that is ``dy = -lfilter(da, a, y)``.
"""
import numpy as np
from scipy import signal

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry.forward import LINEAR, defjvp
from s2sad.registry import defvjp

from .helpers import conj, unbroadcast


def _convolution_axes(ndim, axes):
    if axes is None:
        return tuple(range(ndim))
    axes = (axes,) if np.ndim(axes) == 0 else axes
    return tuple(sorted(int(axis) % ndim for axis in axes))


def _full_cotangent(g, in1, in2, mode, axes):
    """The cotangent of the ``full`` output, given that of the ``mode`` output (its centre)."""
    g = np.asarray(g)
    if mode == "full":
        return g
    # along axes not convolved, the full output has the broadcast length (which ``same``
    # crops to in1's, as SciPy does)
    full_shape = tuple(n1 + n2 - 1 if axis in axes else max(n1, n2)
                       for axis, (n1, n2) in enumerate(zip(np.shape(in1), np.shape(in2))))
    full = np.zeros(full_shape, dtype=g.dtype)
    centre = tuple(slice((n - m) // 2, (n - m) // 2 + m) for n, m in zip(full_shape, g.shape))
    full[centre] = g
    return full


def _reversed(x, axes):
    return np.flip(np.asarray(x), axis=axes)


def _convolve_cotangent(g, mine, other, mode, axes, convolve_valid):
    """Cotangent of ``mine`` in the convolution of ``mine`` with ``other`` (either order): the
    adjoint of convolving with ``other`` is correlating with it, conjugated."""
    if np.size(mine) == 0 or np.size(other) == 0:  # an empty operand: an empty output, nothing flows back
        return unbroadcast(np.zeros(np.shape(mine)), mine)
    axes = _convolution_axes(np.ndim(mine), axes)
    full = _full_cotangent(g, mine, other, mode, axes)
    return unbroadcast(convolve_valid(full, _reversed(conj(other), axes), axes), mine)


def _direct_or_fft(method):
    def convolve_valid(a, b, axes):
        return signal.convolve(a, b, mode="valid", method=method)

    return convolve_valid


def _fft(a, b, axes):
    return signal.fftconvolve(a, b, mode="valid", axes=axes)


def convolve_vjp_in1(g, ans, in1, in2, mode, method):
    return _convolve_cotangent(g, in1, in2, mode, None, _direct_or_fft(method))


def convolve_vjp_in2(g, ans, in1, in2, mode, method):
    return _convolve_cotangent(g, in2, in1, mode, None, _direct_or_fft(method))


def correlate_vjp_in1(g, ans, in1, in2, mode, method):
    # correlate(in1, in2) = convolve(in1, reversed conj(in2)): SciPy conjugates in2
    return _convolve_cotangent(g, in1, _reversed(conj(in2), None), mode, None, _direct_or_fft(method))


def correlate_vjp_in2(g, ans, in1, in2, mode, method):
    axes = tuple(range(np.ndim(in2)))
    partner = _reversed(conj(in2), axes)  # in2 = conj(reversed partner): an antilinear map, so conj its cotangent
    cotangent = _convolve_cotangent(g, partner, in1, mode, None, _direct_or_fft(method))
    return unbroadcast(conj(_reversed(cotangent, axes)), in2)


def fftconvolve_vjp_in1(g, ans, in1, in2, mode, axes):
    return _convolve_cotangent(g, in1, in2, mode, axes, _fft)


def fftconvolve_vjp_in2(g, ans, in1, in2, mode, axes):
    return _convolve_cotangent(g, in2, in1, mode, axes, _fft)


# ------------------------------------------------------------------ lfilter
def _backward_in_time(g, b, a, axis):
    """The adjoint of the causal filter ``b / a`` applied to ``g``: the conjugate filter run from the end."""
    return np.flip(signal.lfilter(conj(np.asarray(b)), conj(np.asarray(a)), np.flip(g, axis=axis), axis=axis), axis=axis)


def _lagged_products(u, v, taps, axis):
    """``sum over n of u[n] * conj(v[n - k])`` along ``axis`` (and over every other axis), for k < taps."""
    u, v = np.moveaxis(u, axis, -1), np.moveaxis(conj(v), axis, -1)
    n = u.shape[-1]
    return np.array([np.sum(u[..., k:] * v[..., :n - k]) if k < n else 0.0 for k in range(taps)])


def _refuse_initial_conditions(zi):
    if zi is not None:
        raise UnsupportedArgumentsError("the rule for scipy.signal.lfilter does not support initial conditions (zi)")


def lfilter_vjp_b(g, ans, b, a, x, axis, zi):
    _refuse_initial_conditions(zi)
    backward = _backward_in_time(np.asarray(g, dtype=np.result_type(g, np.float64)), [1.0], a, axis)
    return unbroadcast(_lagged_products(backward, np.asarray(x, dtype=np.result_type(x, np.float64)), np.size(b), axis), b)


def lfilter_vjp_a(g, ans, b, a, x, axis, zi):
    _refuse_initial_conditions(zi)
    backward = _backward_in_time(np.asarray(g, dtype=np.result_type(g, np.float64)), [1.0], a, axis)
    return unbroadcast(-_lagged_products(backward, np.asarray(ans, dtype=np.result_type(ans, np.float64)), np.size(a), axis), a)


def lfilter_vjp_x(g, ans, b, a, x, axis, zi):
    _refuse_initial_conditions(zi)
    return unbroadcast(_backward_in_time(g, b, a, axis), x)


# ------------------------------------------------------------------ convolve2d
def _zero_fill_only(boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise UnsupportedArgumentsError(
            f"the rule for scipy.signal.convolve2d covers boundary='fill' with fillvalue=0, not "
            f"boundary={boundary!r}, fillvalue={fillvalue!r}",
            hint="pad in1 yourself (np.pad with mode='wrap' / 'symmetric' / 'constant', which s2sad "
                 "differentiates), then call convolve2d with mode='valid'")


def convolve2d_vjp_in1(g, ans, in1, in2, mode, boundary, fillvalue):
    _zero_fill_only(boundary, fillvalue)
    return convolve_vjp_in1(g, ans, in1, in2, mode, "direct")


def convolve2d_vjp_in2(g, ans, in1, in2, mode, boundary, fillvalue):
    _zero_fill_only(boundary, fillvalue)
    return convolve_vjp_in2(g, ans, in1, in2, mode, "direct")


def convolve2d_vjp_fillvalue(g, ans, in1, in2, mode, boundary, fillvalue):
    raise UnsupportedArgumentsError("no rule for scipy.signal.convolve2d's derivative in fillvalue",
                                    hint="pad in1 with np.pad(..., mode='constant', constant_values=v) instead")


def defsignal(function, signature, *vjps):
    return defvjp(function, signature, *vjps, name=f"scipy.signal.{function.__name__}")


# ------------------------------------------------------------------ the table
defsignal(signal.convolve,    "in1, in2, mode='full', method='auto'", convolve_vjp_in1, convolve_vjp_in2)
defsignal(signal.correlate,   "in1, in2, mode='full', method='auto'", correlate_vjp_in1, correlate_vjp_in2)
defsignal(signal.fftconvolve, "in1, in2, mode='full', axes=None",     fftconvolve_vjp_in1, fftconvolve_vjp_in2)
defsignal(signal.lfilter,     "b, a, x, axis=-1, zi=None",            lfilter_vjp_b, lfilter_vjp_a, lfilter_vjp_x)
defsignal(signal.convolve2d,  "in1, in2, mode='full', boundary='fill', fillvalue=0", convolve2d_vjp_in1,
          convolve2d_vjp_in2, None, None, convolve2d_vjp_fillvalue)


# ------------------------------------------------------------------ jvps
def _like_output(term, ans):
    return term if term.dtype == ans.dtype else term.astype(ans.dtype)


def lfilter_jvp_b(g, ans, b, a, x, axis, zi):
    _refuse_initial_conditions(zi)
    return _like_output(signal.lfilter(g, a, x, axis=axis), ans)


def lfilter_jvp_a(g, ans, b, a, x, axis, zi):
    _refuse_initial_conditions(zi)
    return _like_output(-signal.lfilter(g, a, ans, axis=axis), ans)


def lfilter_jvp_x(g, ans, b, a, x, axis, zi):
    _refuse_initial_conditions(zi)
    return _like_output(signal.lfilter(b, a, g, axis=axis), ans)


def convolve2d_jvp_in1(g, ans, in1, in2, mode, boundary, fillvalue):
    _zero_fill_only(boundary, fillvalue)
    return _like_output(np.asarray(signal.convolve2d(g, in2, mode)), ans)


def convolve2d_jvp_in2(g, ans, in1, in2, mode, boundary, fillvalue):
    _zero_fill_only(boundary, fillvalue)
    return _like_output(np.asarray(signal.convolve2d(in1, g, mode)), ans)


# ---- forward rules
defjvp(signal.convolve,    LINEAR, LINEAR)
defjvp(signal.correlate,   LINEAR, LINEAR)
defjvp(signal.fftconvolve, LINEAR, LINEAR)
defjvp(signal.lfilter,     lfilter_jvp_b, lfilter_jvp_a, lfilter_jvp_x)
defjvp(signal.convolve2d,  convolve2d_jvp_in1, convolve2d_jvp_in2, None, None, convolve2d_vjp_fillvalue)
