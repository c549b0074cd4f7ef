"""Rules for ``numpy.fft``, and s2sad's convention for complex numbers.

Complex numbers. A complex array of n elements is treated as a vector of R^2n, and the
cotangent of a complex value is complex, of the same shape and dtype: the gradient of a
real loss ``L`` with respect to ``z`` is ``dL/dRe(z) + 1j * dL/dIm(z)`` (PyTorch's
convention; JAX's ``grad`` gives its conjugate). Cotangents pair with tangents through
``<a, b> = Re(sum(conj(a) * b))``, so a pullback is the adjoint of the derivative in that
real sense:

* a holomorphic ``f`` pulls ``g`` back to ``g * conj(f'(z))``; a complex-linear map
  ``A`` pulls back with its conjugate transpose ``A^H``;
* a real input of a function with a complex output (``rfft``, ``fft`` of a real array)
  gets the real part of that, in its own dtype;
* a complex input of a function with a real output (``abs``, ``irfft``) gets a complex
  cotangent built from the real ``g``.

The transforms. Every function of ``numpy.fft`` is a chain of one-axis transforms, each
of which first cuts or zero-pads its axis to the length ``n`` (``s[i]`` in the n-D forms).
The pullback walks the chain backwards; the adjoint of each step is:

* ``fft``/``ifft`` with ``norm``: ``ifft``/``fft`` with the dual ``norm`` (``"backward"``
  and ``"forward"`` swap, ``"ortho"`` is its own dual), then zero-padded (where the input
  was cut) or cut (where it was padded) back to the input's length;
* ``rfft``: the half spectrum stands for the whole one, each bin other than DC (and
  Nyquist, for even ``n``) for itself and its mirror image. Its adjoint is ``irfft`` with
  the dual norm after halving those bins (``irfft`` counts them twice, and drops the
  imaginary parts of DC and Nyquist, which no real input can reach);
* ``irfft``: reads each non-DC, non-Nyquist bin twice, so its adjoint is ``rfft`` with
  the dual norm with those bins doubled; DC and Nyquist come out real, so the imaginary
  parts ``irfft`` ignores get zero gradient;
* ``hfft(a)`` is ``irfft(conj(a))`` and ``ihfft(x)`` is ``conj(rfft(x))``, both with the
  dual norm.

The n-D forms follow NumPy's own order (``fftn`` transforms the last axis in ``axes``
first; ``rfftn`` does its real transform on ``axes[-1]`` first, ``irfftn`` last), so
repeated axes and ``s`` entries of ``-1`` are covered too. ``fftshift`` and ``ifftshift``
undo each other. ``fftfreq``/``rfftfreq`` give ``k / (n * d)``: no gradient for ``n``,
``-sum(g * ans) / d`` for the sample spacing ``d``. The ``out`` argument is not
differentiated through.

Forward rules: every transform is linear over the reals (``hfft`` and ``ihfft`` conjugate,
``irfft`` drops the imaginary parts of DC and Nyquist: still real-linear), so each pushes
a tangent forward by transforming it with the same ``n``/``s``, ``axes`` and ``norm``
(never into ``out``, which holds the primal). A real input's tangent is real and comes
out complex, as the output does; float32 stays float32 (complex64).
"""
import numpy as np

from s2sad.registry.forward import LINEAR, defjvp
from s2sad.registry import defvjp
from s2sad.runtime.tangents import ZERO

from .helpers import unbroadcast

_DUAL_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}

# ------------------------------------------------------------------ one axis at a time


def _along(axis, index):
    """An index applying ``index`` on ``axis`` and ``:`` on the axes before it."""
    return (slice(None),) * axis + (index,)


def _fit(a, size, axis):
    """``a`` cut or zero-padded to ``size`` along ``axis``, as the transforms fit their input to ``n``."""
    have = a.shape[axis]
    if have > size:
        return a[_along(axis, slice(0, size))]
    if have < size:
        widths = [(0, 0)] * a.ndim
        widths[axis] = (0, size - have)
        return np.pad(a, widths)
    return a


def _mirrored_bins(n):
    """The bins of a length-``n`` real transform's half spectrum that also stand for their mirror image."""
    return slice(1, (n + 1) // 2)


def _fft_adjoint(g, n, axis, norm, size):
    return _fit(np.fft.ifft(g, axis=axis, norm=_DUAL_NORM[norm]), size, axis)


def _ifft_adjoint(g, n, axis, norm, size):
    return _fit(np.fft.fft(g, axis=axis, norm=_DUAL_NORM[norm]), size, axis)


def _rfft_adjoint(g, n, axis, norm, size):
    halved = np.array(g, dtype=np.result_type(g, np.complex64))
    halved[_along(axis, _mirrored_bins(n))] *= 0.5
    return _fit(np.fft.irfft(halved, n=n, axis=axis, norm=_DUAL_NORM[norm]), size, axis)


def _irfft_adjoint(g, n, axis, norm, size):
    doubled = np.fft.rfft(g, n=n, axis=axis, norm=_DUAL_NORM[norm])
    doubled[_along(axis, _mirrored_bins(n))] *= 2
    return _fit(doubled, size, axis)


def _hfft_adjoint(g, n, axis, norm, size):
    return np.conjugate(_irfft_adjoint(g, n, axis, _DUAL_NORM[norm], size))


def _ihfft_adjoint(g, n, axis, norm, size):
    return _rfft_adjoint(np.conjugate(g), n, axis, _DUAL_NORM[norm], size)


_ADJOINTS = {"fft": _fft_adjoint, "ifft": _ifft_adjoint, "rfft": _rfft_adjoint, "irfft": _irfft_adjoint,
             "hfft": _hfft_adjoint, "ihfft": _ihfft_adjoint}
_HALF_SPECTRUM_OUT = ("rfft", "ihfft")  # these shorten their axis to n // 2 + 1
_HALF_SPECTRUM_IN = ("irfft", "hfft")   # these default to n = 2 * (length - 1)

# ------------------------------------------------------------------ chains of one-axis transforms


def _pull_back(g, a, steps, norm):
    """The cotangent of ``a`` through the one-axis transforms ``steps`` = ``[(kind, n, axis), ...]``.

    The steps are replayed on ``a``'s shape to learn each one's ``n`` (``None``: the
    default) and input length, then their adjoints run in reverse order; the result is
    cast to ``a``'s dtype, keeping only the real part for a real ``a``.
    """
    if g is ZERO:
        return ZERO
    shape = list(np.shape(a))
    plan = []
    for kind, n, axis in steps:
        axis = axis % len(shape)
        size = shape[axis]
        if n is None:
            n = 2 * (size - 1) if kind in _HALF_SPECTRUM_IN else size
        plan.append((kind, n, axis, size))
        shape[axis] = n // 2 + 1 if kind in _HALF_SPECTRUM_OUT else n
    for kind, n, axis, size in reversed(plan):
        g = _ADJOINTS[kind](g, n, axis, norm, size)
    if not np.iscomplexobj(a):
        g = np.real(g)
    return unbroadcast(g, a)


def _lengths_and_axes(a, s, axes, real_inverse=False):
    """``s`` and ``axes`` of an n-D transform as NumPy resolves them (``-1`` in ``s``: the whole axis)."""
    shape = np.shape(a)
    if axes is None:
        axes = range(len(shape)) if s is None else range(-len(s), 0)
    axes = list(axes)
    if s is None:
        s = [shape[axis] for axis in axes]
        if real_inverse and axes:
            s[-1] = 2 * (shape[axes[-1]] - 1)
    return [shape[axis] if n == -1 else n for n, axis in zip(s, axes)], axes


def _complex_steps(kind, a, s, axes):
    s, axes = _lengths_and_axes(a, s, axes)
    return [(kind, s[i], axes[i]) for i in reversed(range(len(axes)))]


def _rfftn_steps(a, s, axes):
    s, axes = _lengths_and_axes(a, s, axes)
    return [("rfft", s[-1], axes[-1])] + [("fft", s[i], axes[i]) for i in reversed(range(len(axes) - 1))]


def _irfftn_steps(a, s, axes):
    s, axes = _lengths_and_axes(a, s, axes, real_inverse=True)
    return [("ifft", s[i], axes[i]) for i in range(len(axes) - 1)] + [("irfft", s[-1], axes[-1])]

# ------------------------------------------------------------------ numpy.fft


def fft_vjp(g, ans, a, n, axis, norm, out):
    return _pull_back(g, a, [("fft", n, axis)], norm)


def ifft_vjp(g, ans, a, n, axis, norm, out):
    return _pull_back(g, a, [("ifft", n, axis)], norm)


def rfft_vjp(g, ans, a, n, axis, norm, out):
    return _pull_back(g, a, [("rfft", n, axis)], norm)


def irfft_vjp(g, ans, a, n, axis, norm, out):
    return _pull_back(g, a, [("irfft", n, axis)], norm)


def hfft_vjp(g, ans, a, n, axis, norm, out):
    return _pull_back(g, a, [("hfft", n, axis)], norm)


def ihfft_vjp(g, ans, a, n, axis, norm, out):
    return _pull_back(g, a, [("ihfft", n, axis)], norm)


def fftn_vjp(g, ans, a, s, axes, norm, out):
    return _pull_back(g, a, _complex_steps("fft", a, s, axes), norm)


def ifftn_vjp(g, ans, a, s, axes, norm, out):
    return _pull_back(g, a, _complex_steps("ifft", a, s, axes), norm)


def rfftn_vjp(g, ans, a, s, axes, norm, out):
    return _pull_back(g, a, _rfftn_steps(a, s, axes), norm)


def irfftn_vjp(g, ans, a, s, axes, norm, out):
    return _pull_back(g, a, _irfftn_steps(a, s, axes), norm)


def fftfreq_vjp_d(g, ans, n, d, device):
    if g is ZERO:
        return ZERO
    return unbroadcast(-np.sum(g * np.conj(ans)) / np.conj(d), d)  # d ans = -ans dd / d


_ONE_AXIS = "a, n=None, axis=-1, norm=None, out=None"
_TWO_AXES = "a, s=None, axes=(-2, -1), norm=None, out=None"
_ALL_AXES = "a, s=None, axes=None, norm=None, out=None"

defvjp(np.fft.fft,       _ONE_AXIS, fft_vjp)
defvjp(np.fft.ifft,      _ONE_AXIS, ifft_vjp)
defvjp(np.fft.rfft,      _ONE_AXIS, rfft_vjp)
defvjp(np.fft.irfft,     _ONE_AXIS, irfft_vjp)
defvjp(np.fft.hfft,      _ONE_AXIS, hfft_vjp)
defvjp(np.fft.ihfft,     _ONE_AXIS, ihfft_vjp)
defvjp(np.fft.fft2,      _TWO_AXES, fftn_vjp)
defvjp(np.fft.ifft2,     _TWO_AXES, ifftn_vjp)
defvjp(np.fft.rfft2,     _TWO_AXES, rfftn_vjp)
defvjp(np.fft.irfft2,    _TWO_AXES, irfftn_vjp)
defvjp(np.fft.fftn,      _ALL_AXES, fftn_vjp)
defvjp(np.fft.ifftn,     _ALL_AXES, ifftn_vjp)
defvjp(np.fft.rfftn,     _ALL_AXES, rfftn_vjp)
defvjp(np.fft.irfftn,    _ALL_AXES, irfftn_vjp)
defvjp(np.fft.fftshift,  "x, axes=None", "unbroadcast(np.fft.ifftshift(g, axes), x)")
defvjp(np.fft.ifftshift, "x, axes=None", "unbroadcast(np.fft.fftshift(g, axes), x)")
defvjp(np.fft.fftfreq,   "n, d=1.0, device=None", None, fftfreq_vjp_d)
defvjp(np.fft.rfftfreq,  "n, d=1.0, device=None", None, fftfreq_vjp_d)


# ---- forward rules
defjvp(np.fft.fft,       "np.fft.fft(g, n, axis, norm)")
defjvp(np.fft.ifft,      "np.fft.ifft(g, n, axis, norm)")
defjvp(np.fft.rfft,      "np.fft.rfft(g, n, axis, norm)")
defjvp(np.fft.irfft,     "np.fft.irfft(g, n, axis, norm)")
defjvp(np.fft.hfft,      "np.fft.hfft(g, n, axis, norm)")
defjvp(np.fft.ihfft,     "np.fft.ihfft(g, n, axis, norm)")
defjvp(np.fft.fft2,      "np.fft.fft2(g, s, axes, norm)")
defjvp(np.fft.ifft2,     "np.fft.ifft2(g, s, axes, norm)")
defjvp(np.fft.rfft2,     "np.fft.rfft2(g, s, axes, norm)")
defjvp(np.fft.irfft2,    "np.fft.irfft2(g, s, axes, norm)")
defjvp(np.fft.fftn,      "np.fft.fftn(g, s, axes, norm)")
defjvp(np.fft.ifftn,     "np.fft.ifftn(g, s, axes, norm)")
defjvp(np.fft.rfftn,     "np.fft.rfftn(g, s, axes, norm)")
defjvp(np.fft.irfftn,    "np.fft.irfftn(g, s, axes, norm)")
defjvp(np.fft.fftshift,  LINEAR)
defjvp(np.fft.ifftshift, LINEAR)
defjvp(np.fft.fftfreq,   None, "np.asarray(-ans * (g / d), dtype=ans.dtype)")
defjvp(np.fft.rfftfreq,  None, "np.asarray(-ans * (g / d), dtype=ans.dtype)")
