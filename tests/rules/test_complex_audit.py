"""Every registered rule, at complex inputs: checked, or listed as real-only with a reason that is checked.

The walk covers ``all_rules()`` and the method rules. Each rule is in exactly one table:

* ``CHECKED``: NumPy accepts complex arguments; ``check_rrule`` compares the pullback with
  central finite differences of the real loss ``Re <ct, f(z)>`` (random complex cotangent
  and direction, complex128), and the forward rule, where there is one, is compared with
  the central difference along a random complex tangent. Functions whose outputs have a
  free phase (eigenvectors, singular vectors) get a cotangent blind to it.
* ``REAL_ONLY``: NumPy (or SciPy, ``math``) raises on complex arguments: checked by calling
  it on complex arguments (it must raise) and on their real parts (it must not).
* ``REFUSED``: NumPy computes something at complex arguments, but the rule refuses them
  with a located ``S2SADError``: checked by asking for the derivative.
* ``NO_GRADIENT``: rules declared nondifferentiable. At complex arguments (where NumPy
  takes them) their output must carry no gradient: not a float, or unmoved along random
  complex directions (piecewise constant).
* ``NOT_NUMERIC``: rules of s2sad's own generated code, or of functions of no number.

A rule registered later and not listed fails ``test_every_rule_is_listed``.
"""
import warnings

import numpy as np
import pytest

scipy_special = pytest.importorskip("scipy.special")
import scipy.integrate  # noqa: E402
import scipy.linalg  # noqa: E402
import scipy.signal  # noqa: E402
import scipy.stats  # noqa: E402

import s2sad  # noqa: E402
from s2sad import registry  # noqa: E402
from s2sad.registry.forward import forward_method_rule, forward_rule  # noqa: E402
from s2sad.runtime.tangents import ZERO, is_zero, unthunk  # noqa: E402
from s2sad.testing import inner, random_like, shifted_by, widened, check_rrule  # noqa: E402

registry.load_optional_rules()  # the SciPy tables, imported above


# ------------------------------------------------------------------ argument makers: rng -> (args, kwargs[, cotangent])
def z(rng, *shape):
    """A complex number (no shape) or array with random real and imaginary parts."""
    if not shape:
        return complex(rng.standard_normal(), rng.standard_normal())
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def x(rng, *shape):
    return rng.standard_normal(shape)


def well_conditioned(rng, *shape):
    return z(rng, *shape) + 3 * np.eye(shape[-1])


def hermitian_positive(rng, n):
    a = z(rng, n, n)
    return a @ a.conj().T + n * np.eye(n)


def calls(*args, **kwargs):
    return args, kwargs


def unary(rng):
    return calls(z(rng, 2, 3))


def binary(rng):
    return calls(z(rng, 2, 3), z(rng, 3))  # broadcasting: the second operand's cotangent is summed


def square(rng):
    return calls(well_conditioned(rng, 3, 3))


def vector(rng):
    return calls(z(rng, 4))


def scalar(rng):
    return calls(z(rng))


def order_and_complex(rng):
    return calls(np.array([0, 1, 2]), z(rng, 2, 3))


def eigenvalues_and_phase_blind_vectors(function, hermitian=False):
    """eig/eigh: a cotangent for the values and 2 D V for the vectors (the gradient of <D, |V|^2>)."""
    def make(rng):
        a = hermitian_positive(rng, 3) + np.tril(z(rng, 3, 3)) if hermitian else well_conditioned(rng, 3, 3)
        w, v = function(a)
        g_w = x(rng, *w.shape) if hermitian else z(rng, *w.shape)
        return (a,), {}, (g_w, 2 * x(rng, *v.shape) * v)
    return make


def svd_phase_blind(rng):
    a = z(rng, 3, 2)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return (a,), {"full_matrices": False}, (2 * x(rng, *u.shape) * u, x(rng, *s.shape), 2 * x(rng, *vh.shape) * vh)


def group(names, maker):
    return {name: maker for name in names.split()}


CHECKED = {
    **group("""numpy.negative numpy.positive numpy.sin numpy.cos numpy.tan numpy.arcsin numpy.arccos numpy.arctan
               numpy.sinh numpy.cosh numpy.tanh numpy.arcsinh numpy.arccosh numpy.arctanh numpy.exp numpy.exp2
               numpy.expm1 numpy.log numpy.log2 numpy.log10 numpy.log1p numpy.sqrt numpy.square numpy.reciprocal
               numpy.absolute numpy.sinc numpy.nan_to_num numpy.sign numpy.conjugate numpy.real numpy.imag
               numpy.angle numpy.real_if_close numpy.ravel numpy.transpose numpy.squeeze numpy.atleast_1d
               numpy.atleast_2d numpy.atleast_3d numpy.flip numpy.fliplr numpy.flipud numpy.copy numpy.asarray
               numpy.ascontiguousarray numpy.asfortranarray
               numpy.array numpy.triu numpy.tril numpy.sort numpy.diff numpy.gradient numpy.cumprod numpy.cumsum
               numpy.average numpy.sum numpy.mean numpy.prod numpy.max numpy.min numpy.amax numpy.amin numpy.var
               numpy.std numpy.diag numpy.diagonal numpy.trace numpy.linalg.norm numpy.linalg.vector_norm
               numpy.linalg.matrix_norm numpy.linalg.svdvals numpy.linalg.pinv numpy.fft.fft numpy.fft.ifft
               numpy.fft.irfft numpy.fft.hfft numpy.fft.fft2 numpy.fft.ifft2 numpy.fft.irfft2 numpy.fft.fftn
               numpy.fft.ifftn numpy.fft.irfftn numpy.fft.fftshift numpy.fft.ifftshift builtins.abs operator.neg
               operator.pos s2sad.rules.ndarray_methods.ndarray_transpose s2sad.rules.ndarray_methods.ndarray_T
               s2sad.rules.ndarray_methods.ndarray_mT s2sad.rules.ndarray_methods.ndarray_flatten
               s2sad.rules.ndarray_methods.ndarray_copy s2sad.rules.ndarray_methods.ndarray_tolist s2sad.rules.ndarray_methods.ndarray_flat scipy.special.erf scipy.special.erfc scipy.special.erfcx
               scipy.special.dawsn scipy.special.erfi scipy.special.exp1 scipy.special.expi scipy.special.ndtr scipy.special.log_ndtr scipy.special.gamma scipy.special.rgamma
               scipy.special.softmax scipy.special.log_softmax scipy.special.logsumexp
               numpy.add.reduce numpy.multiply.reduce numpy.maximum.reduce numpy.minimum.reduce
               numpy.add.accumulate numpy.multiply.accumulate numpy.maximum.accumulate
               numpy.minimum.accumulate s2sad.rules.helpers.array_like""", unary),
    **group("""numpy.add numpy.subtract numpy.multiply numpy.divide numpy.power numpy.float_power numpy.maximum
               numpy.minimum numpy.fmax numpy.fmin operator.add operator.sub operator.mul operator.truediv
               operator.pow builtins.pow scipy.special.xlogy scipy.special.xlog1py s2sad.rules.helpers.safe_divide
               numpy.kron numpy.outer numpy.inner numpy.add.outer numpy.subtract.outer numpy.multiply.outer""", binary),
    **group("""numpy.linalg.inv numpy.linalg.det numpy.linalg.slogdet numpy.linalg.eigvals numpy.linalg.cond
               numpy.linalg.qr scipy.linalg.expm""", square),
    **group("numpy.fft.fftfreq numpy.fft.rfftfreq", lambda rng: calls(5, z(rng))),  # k / (n d), complex d
    **group("scipy.special.jv scipy.special.yv scipy.special.iv scipy.special.kv scipy.special.kve",
            order_and_complex),
    **group("builtins.max builtins.min builtins.list builtins.tuple", vector),
    **group("copy.copy copy.deepcopy", unary),
    "builtins.sum": lambda rng: calls([z(rng, 3), z(rng, 3)]),
    "cmath.log": lambda rng: calls(z(rng), 2.0 + 0.5j),
    "numpy.linalg.eig": eigenvalues_and_phase_blind_vectors(np.linalg.eig),
    "numpy.linalg.eigh": eigenvalues_and_phase_blind_vectors(np.linalg.eigh, hermitian=True),
    "numpy.linalg.svd": svd_phase_blind,
    "numpy.linalg.eigvalsh": lambda rng: calls(z(rng, 3, 3)),  # not Hermitian: one triangle is read
    "numpy.linalg.cholesky": lambda rng: calls(hermitian_positive(rng, 3) + np.triu(z(rng, 3, 3), 1)),
    "numpy.linalg.matrix_power": lambda rng: calls(well_conditioned(rng, 3, 3), -2),
    "numpy.linalg.solve": lambda rng: calls(well_conditioned(rng, 3, 3), z(rng, 3, 2)),
    "numpy.linalg.lstsq": lambda rng: calls(z(rng, 4, 3), z(rng, 4)),
    "numpy.einsum": lambda rng: calls("ij,jk->ik", z(rng, 2, 3), z(rng, 3, 2)),
    "numpy.dot": lambda rng: calls(z(rng, 2, 3), z(rng, 3)),
    "numpy.matmul": lambda rng: calls(z(rng, 2, 3), z(rng, 3, 2)),
    "numpy.linalg.multi_dot": lambda rng: calls([z(rng, 3), z(rng, 3, 2), z(rng, 2, 2), z(rng, 2)]),
    "operator.matmul": lambda rng: calls(z(rng, 2, 3), z(rng, 3, 2)),
    "operator.concat": lambda rng: calls((z(rng, 2), z(rng)), (z(rng, 3),)),
    "s2sad.rules.helpers.repeated": lambda rng: calls(3, (z(rng, 2), z(rng))),  # `3 * (a, b)`: a repetition
    "numpy.convolve": lambda rng: calls(z(rng, 5), z(rng, 3), "same"),
    "numpy.correlate": lambda rng: calls(z(rng, 5), z(rng, 3), "full"),
    "numpy.vdot": lambda rng: calls(z(rng, 3), z(rng, 3)),
    "numpy.tensordot": lambda rng: calls(z(rng, 2, 3), z(rng, 3, 2), 1),
    "numpy.cross": lambda rng: calls(z(rng, 2, 3), z(rng, 3)),
    "numpy.where": lambda rng: calls(np.array([True, False, True]), z(rng, 2, 3), z(rng, 3)),
    "numpy.clip": lambda rng: calls(z(rng, 2, 3), -0.5, 0.5),
    "numpy.select": lambda rng: calls([np.array([True, False, True]), np.array([False, True, True])],
                                      [z(rng, 3), z(rng, 3)], z(rng)),
    "numpy.reshape": lambda rng: calls(z(rng, 2, 3), (3, 2)),
    "numpy.polyval": lambda rng: calls(z(rng, 4), z(rng, 2, 3)),
    "numpy.vander": lambda rng: calls(z(rng, 4), 3),
    "numpy.polyfit": lambda rng: calls(np.linspace(-1.0, 1.0, 7) + 0.1 * x(rng, 7), z(rng, 7), 2),  # real knots
    # median and ptp order complex numbers lexicographically, as np.sort and np.max do
    "numpy.median": lambda rng: calls(z(rng, 3, 4), axis=1),
    "numpy.ptp": lambda rng: calls(z(rng, 3, 4), axis=0),
    # complex fp (and left, right) at real x and knots: NumPy's interp refuses a complex x or xp
    "numpy.interp": lambda rng: calls(1.5 * x(rng, 2, 3), np.array([-1.0, -0.2, 0.5, 1.3]), z(rng, 4),
                                      left=z(rng), right=z(rng)),
    "scipy._lib._array_api.xp_promote": lambda rng: calls(z(rng, 2, 3), force_floating=True, xp=np),
    "numpy.swapaxes": lambda rng: calls(z(rng, 2, 3), 0, 1),
    "numpy.moveaxis": lambda rng: calls(z(rng, 2, 3, 2), 0, -1),
    "numpy.rollaxis": lambda rng: calls(z(rng, 2, 3, 2), 2),
    "numpy.expand_dims": lambda rng: calls(z(rng, 2, 3), 1),
    "numpy.roll": lambda rng: calls(z(rng, 2, 3), 1, 1),
    "numpy.rot90": lambda rng: calls(z(rng, 2, 3)),
    "numpy.broadcast_to": lambda rng: calls(z(rng, 3), (2, 3)),
    "numpy.broadcast_arrays": lambda rng: calls(z(rng, 2, 3), z(rng, 3)),
    "numpy.astype": lambda rng: calls(z(rng, 2, 3), np.complex128),
    "numpy.concatenate": lambda rng: calls([z(rng, 2, 3), z(rng, 1, 3)]),
    "numpy.stack": lambda rng: calls([z(rng, 2, 3), z(rng, 2, 3)], 1),
    "numpy.vstack": lambda rng: calls([z(rng, 2, 3), z(rng, 3)]),
    "numpy.row_stack": lambda rng: calls([z(rng, 2, 3), z(rng, 3)]),
    "numpy.hstack": lambda rng: calls([z(rng, 2, 3), z(rng, 2, 1)]),
    "numpy.column_stack": lambda rng: calls([z(rng, 3), z(rng, 3, 2)]),
    "numpy.dstack": lambda rng: calls([z(rng, 3), z(rng, 1, 3, 2)]),
    "numpy.append": lambda rng: calls(z(rng, 2, 3), z(rng, 1, 3), 0),
    "numpy.ediff1d": lambda rng: calls(z(rng, 2, 3), z(rng, 2), z(rng)),  # ends (to_end, to_begin) too
    "numpy.tile": lambda rng: calls(z(rng, 2, 3), (2, 1)),
    "numpy.repeat": lambda rng: calls(z(rng, 2, 3), 2, 1),
    "numpy.pad": lambda rng: calls(z(rng, 2, 3), 1, "reflect"),
    "numpy.split": lambda rng: calls(z(rng, 4, 3), 2),
    "numpy.array_split": lambda rng: calls(z(rng, 5, 3), 2),
    "numpy.hsplit": lambda rng: calls(z(rng, 2, 4), 2),
    "numpy.vsplit": lambda rng: calls(z(rng, 4, 3), 2),
    "numpy.dsplit": lambda rng: calls(z(rng, 2, 3, 4), 2),
    "numpy.partition": lambda rng: calls(x(rng, 2, 4) + 1j * x(rng, 2, 4), 1),
    "numpy.take_along_axis": lambda rng: calls(z(rng, 2, 3), np.array([[2, 0], [1, 1]]), 1),
    "numpy.take": lambda rng: calls(z(rng, 2, 3), np.array([2, 0, 2, -1]), 1),
    "numpy.compress": lambda rng: calls(np.array([True, False, True]), z(rng, 2, 3), 1),
    "numpy.extract": lambda rng: calls(np.array([[True, False, True], [False, True, True]]), z(rng, 2, 3)),
    "numpy.choose": lambda rng: calls(np.array([[0, 1, 1], [1, 0, 2]]), [z(rng, 2, 3), z(rng, 3), z(rng, 2, 1)]),
    # the NaN-ignoring reductions at numbers without NaNs (tests/rules/test_numpy_reductions.py puts NaNs in)
    **group("numpy.nansum numpy.nanmean numpy.nanprod numpy.nanvar numpy.nanstd", lambda rng: calls(z(rng, 2, 3), axis=1)),
    **group("numpy.nanmax numpy.nanmin", lambda rng: calls(z(rng, 2, 3), axis=0)),  # lexicographic, as np.max
    "numpy.trapezoid": lambda rng: calls(z(rng, 2, 5), z(rng, 5)),
    "numpy.linspace": lambda rng: calls(z(rng), z(rng), 5),
    "numpy.full": lambda rng: calls((2, 3), z(rng)),
    "numpy.full_like": lambda rng: calls(z(rng, 2, 3), z(rng)),
    "numpy.fft.rfft": None, "numpy.fft.rfft2": None, "numpy.fft.rfftn": None, "numpy.fft.ihfft": None,
    "operator.getitem": lambda rng: calls(z(rng, 3, 4), (slice(None), [0, 2, 2])),
    "s2sad.rules.ndarray_methods.ndarray_reshape": lambda rng: calls(z(rng, 2, 3), 3, 2),
    "s2sad.rules.ndarray_methods.ndarray_astype": lambda rng: calls(z(rng, 2, 3), np.complex128),
    "s2sad.rules.ndarray_methods.ndarray_item": lambda rng: calls(z(rng, 2, 3), 4),
    "scipy.special.polygamma": None,
    "scipy.signal.convolve": lambda rng: calls(z(rng, 5), z(rng, 3), "same"),
    "scipy.signal.correlate": lambda rng: calls(z(rng, 5), z(rng, 3), "valid"),
    "scipy.signal.convolve2d": lambda rng: calls(z(rng, 3, 4), z(rng, 2, 2), "same"),
    "scipy.signal.fftconvolve": lambda rng: calls(z(rng, 2, 5), z(rng, 2, 3)),
    "scipy.signal.lfilter": lambda rng: calls(z(rng, 3), np.array([1.0, 0.3 + 0.2j]), z(rng, 6)),
    "scipy.linalg.solve_triangular": lambda rng: calls(well_conditioned(rng, 3, 3), z(rng, 3, 2), 2, True),
    "scipy.linalg.cho_solve": lambda rng: calls((np.linalg.cholesky(hermitian_positive(rng, 3)), True), z(rng, 3)),
    "scipy.linalg.cho_factor": lambda rng: calls(hermitian_positive(rng, 3) + np.triu(z(rng, 3, 3), 1), True),
    "scipy.linalg.cholesky": lambda rng: calls(hermitian_positive(rng, 3) + np.tril(z(rng, 3, 3), -1)),  # reads the upper
    "scipy.linalg.solve_banded": lambda rng: calls((1, 1), z(rng, 3, 5) + np.array([[0], [4], [0]]), z(rng, 5)),
    "scipy.linalg.solve_sylvester": lambda rng: calls(well_conditioned(rng, 3, 3), well_conditioned(rng, 2, 2) + 2,
                                                      z(rng, 3, 2)),
    "scipy.linalg.sqrtm": lambda rng: calls(0.3 * z(rng, 3, 3) + 3 * np.eye(3)),
    "s2sad.rules.helpers.added_at": lambda rng: calls(z(rng, 3), np.array([0, 2, 2, 1]), z(rng, 4)),
    "s2sad.rules.helpers.subtracted_at": lambda rng: calls(z(rng, 3), np.array([0, 2, 2, 1]), z(rng, 4)),
    "s2sad.rules.helpers.written_into": lambda rng: calls(z(rng, 2, 3), z(rng, 2, 3)),
    "s2sad.rules.helpers.sorted_in_place": lambda rng: calls(z(rng, 2, 3)),  # `y.sort()`: np.sort's rules
    "s2sad.rules.helpers.filled_in_place": lambda rng: calls(z(rng), z(rng, 3)),  # `y.fill(v)`: the value checked
    # `np.fill_diagonal(a, val)`: a value shorter than the diagonal is repeated along it
    "s2sad.rules.helpers.diagonal_filled": lambda rng: calls(z(rng, 2), z(rng, 3, 3)),
    # NumPy 2's array-API names (rules/numpy_array_api.py); vecdot and vecmat conjugate their vector x1
    **group("numpy.vecdot numpy.linalg.vecdot numpy.matvec numpy.linalg.cross", binary),
    "numpy.meshgrid": lambda rng: calls(z(rng, 2), z(rng, 3)),
    **group("numpy.matrix_transpose numpy.linalg.matrix_transpose numpy.unstack numpy.linalg.trace "
            "numpy.linalg.diagonal", unary),
    **group("numpy.cumulative_sum numpy.cumulative_prod", lambda rng: calls(z(rng, 2, 3), axis=1, include_initial=True)),
    "numpy.vecmat": lambda rng: calls(z(rng, 2), z(rng, 2, 3)),
    "numpy.linalg.matmul": lambda rng: calls(z(rng, 2, 3), z(rng, 3, 2)),
    "numpy.linalg.outer": lambda rng: calls(z(rng, 2), z(rng, 3)),
    "numpy.linalg.tensordot": lambda rng: calls(z(rng, 2, 3), z(rng, 3, 2), axes=1),
    "numpy.add.reduceat": lambda rng: calls(z(rng, 5, 2), np.array([0, 3, 1])),
    "numpy.multiply.reduceat": lambda rng: calls(z(rng, 5, 2), np.array([0, 3, 1])),
    "numpy.roots": lambda rng: calls(z(rng, 4)),
    # each slice's call differentiated by its callee's own rule (here np.cumsum's, linear)
    "numpy.apply_along_axis": lambda rng: calls(np.cumsum, 0, z(rng, 2, 3)),
    "math.prod": lambda rng: calls([z(rng), z(rng), z(rng)], start=z(rng)),
}
# the FFTs of real input (rfft, ihfft and their n-d forms) and polygamma: real-only below
for _name in [name for name, maker in CHECKED.items() if maker is None]:
    del CHECKED[_name]


def decay(y, t):
    return -y


REAL_ONLY = {  # name: (why, maker of complex arguments: NumPy must raise there and not at their real parts)
    "numpy.unwrap": ("its jumps are taken modulo the period", lambda rng: calls(z(rng, 6))),
    "numpy.i0": ("np.i0 has no complex loop", lambda rng: calls(z(rng, 2, 3))),
    "numpy.kaiser": ("np.i0 has no complex loop", lambda rng: calls(6, z(rng))),
    "numpy.bincount": ("its weights are cast to float64", lambda rng: calls(np.array([0, 1, 1]), z(rng, 3))),
    **{name: ("math works on real numbers (cmath is not math)", lambda rng: calls(0.3 + 0.4j)) for name in """math.sin math.cos math.tan
        math.asin math.acos math.atan math.sinh math.cosh math.tanh math.asinh math.atanh math.exp
        math.expm1 math.log math.log2 math.log10 math.log1p math.sqrt math.fabs math.degrees math.radians
        math.erf math.erfc math.cbrt math.exp2 builtins.float math.lgamma math.gamma
        s2sad.rules.polygamma.digamma""".split()},
    "math.dist": ("math works on real numbers", lambda rng: calls([0.3 + 0.4j, 0.1], [0.7 - 0.2j, 0.5])),
    **{name: ("NumPy's quantiles take real numbers", lambda rng: calls(z(rng, 5), 0.3)) for name in
       "numpy.quantile numpy.percentile".split()},
    **{name: ("math works on real numbers", lambda rng: calls(0.3 + 0.4j, 0.7 - 0.2j)) for name in
       "math.atan2 math.pow math.hypot math.copysign math.fmod".split()},
    "math.ldexp": ("math works on real numbers", lambda rng: calls(0.3 + 0.4j, 2)),
    "math.fsum": ("math works on real numbers", lambda rng: calls([0.3 + 0.4j, 0.7 - 0.2j])),
    "builtins.divmod": ("complex numbers have no floor division", lambda rng: calls(0.3 + 0.4j, 0.7 - 0.2j)),
    "numpy.divmod": ("the ufunc has no complex loop", binary),
    "numpy.copysign": ("the ufunc has no complex loop", binary),
    "numpy.ldexp": ("the ufunc has no complex loop", lambda rng: calls(z(rng, 2, 3), np.array([1, -2, 0]))),
    **{name: ("the ufunc has no complex loop", unary) for name in ("numpy.frexp", "numpy.modf")},
    "numpy.logaddexp.reduce": ("the ufunc has no complex loop", unary),
    **{name: ("the ufunc has no complex loop", unary) for name in """numpy.cbrt numpy.fabs numpy.deg2rad
        numpy.rad2deg numpy.radians numpy.degrees scipy.special.erfinv scipy.special.erfcinv scipy.special.ndtri
        scipy.special.expit scipy.special.logit scipy.special.log_expit scipy.special.entr scipy.special.gammaln
        scipy.special.i0 scipy.special.i1 scipy.special.i0e scipy.special.i1e scipy.special.j0 scipy.special.j1
        scipy.special.y0 scipy.special.y1 scipy.special.k0 scipy.special.k1 scipy.special.k0e
        scipy.special.k1e""".split()},
    **{name: ("the ufunc has no complex loop", binary) for name in """numpy.remainder numpy.fmod numpy.arctan2
        numpy.hypot numpy.logaddexp numpy.logaddexp2 numpy.heaviside operator.mod scipy.special.rel_entr scipy.special.kl_div
        scipy.special.beta scipy.special.betaln scipy.special.gammainc scipy.special.gammaincc""".split()},
    "scipy.special.hyp2f1": ("complex z only: a, b, c are real parameters without a derivative "
                             "(tests/rules/test_scipy_special.py checks complex z)",
                             lambda rng: calls(z(rng, 3), 2.0, 3.0, 0.1 + 0.2j)),
    "scipy.special.betainc": ("the ufunc has no complex loop", lambda rng: calls(z(rng, 3), z(rng, 3), z(rng, 3))),
    "scipy.special.polygamma": ("the ufunc has no complex loop", lambda rng: calls(1, z(rng, 3))),
    "scipy.integrate.odeint": ("LSODA integrates real equations: SciPy refuses complex y0",
                               lambda rng: calls(decay, z(rng, 2), np.linspace(0.0, 1.0, 3))),
    "scipy.special.multigammaln": ("SciPy refuses complex a", lambda rng: calls(z(rng) + 3, 2)),
    "scipy.special.yn": ("the ufunc has no complex loop", order_and_complex),
    "math.acosh": ("math works on real numbers (cmath is not math)", lambda rng: calls(1.3 + 0.4j)),
    **{name: ("NumPy's draws take real parameters", lambda rng: calls(z(rng), 2.0)) for name in
       "numpy.random.RandomState.normal numpy.random.RandomState.uniform".split()},
    **{name: ("the SciPy ufunc behind it has no complex loop", lambda rng: calls(z(rng, 3) * 0.1 + 0.5, 2.0, 3.0))
       for name in "scipy.stats.beta.pdf scipy.stats.beta.cdf".split()},
    **{name: ("the SciPy ufunc behind it has no complex loop", lambda rng: calls(z(rng, 3) + 2, 3.0)) for name in
       "scipy.stats.t.cdf scipy.stats.t.logcdf scipy.stats.gamma.cdf scipy.stats.chi2.cdf".split()},
    **{name: ("the SciPy ufunc behind it has no complex loop", lambda rng: calls(np.array([1, 2, 3]), z(rng) + 3))
       for name in "scipy.stats.poisson.logpmf scipy.stats.poisson.pmf scipy.stats.poisson.cdf".split()},
    **{name: ("NumPy casts to a real scalar type: complex input is an error", scalar) for name in
       "numpy.float64 numpy.float32 numpy.float16".split()},
    **{name: ("the FFT of real input rejects complex input", unary) for name in
       "numpy.fft.rfft numpy.fft.rfft2 numpy.fft.rfftn numpy.fft.ihfft".split()},
}

REFUSED = {  # name: (why, maker): NumPy/SciPy accept complex arguments, the rule refuses a derivative there
    **{name: ("scipy.stats compares arguments with the support's bounds: its real derivatives do not hold",
              lambda rng: calls(z(rng, 3) + 2, 3.0)) for name in """scipy.stats.t.logpdf scipy.stats.t.pdf
        scipy.stats.gamma.logpdf scipy.stats.gamma.pdf scipy.stats.chi2.logpdf scipy.stats.chi2.pdf""".split()},
    **{name: ("scipy.stats compares arguments with the support's bounds: its real derivatives do not hold",
              lambda rng: calls(z(rng, 3))) for name in """scipy.stats.norm.logpdf scipy.stats.norm.pdf
        scipy.stats.norm.cdf scipy.stats.norm.logcdf scipy.stats.norm.sf scipy.stats.norm.logsf""".split()},
    "scipy.stats.beta.logpdf": ("scipy.stats compares arguments with the support's bounds: its real derivatives "
                                "do not hold", lambda rng: calls(z(rng, 3) * 0.1 + 0.5, 2.0, 3.0)),
    **{name: ("scipy.stats: real derivatives only", lambda rng: calls(z(rng, 3), z(rng, 3), np.eye(3))) for name in
       "scipy.stats.multivariate_normal.logpdf scipy.stats.multivariate_normal.pdf".split()},
    "scipy.stats.multivariate_normal.entropy": ("scipy.stats: real derivatives only",
                                                lambda rng: calls(None, hermitian_positive(rng, 3))),
    **{name: ("scipy.stats: real derivatives only", lambda rng: calls(np.array([0.2 + 0.01j, 0.3 - 0.01j, 0.5]),
                                                                      np.array([1.5, 2.0, 3.0])))
       for name in "scipy.stats.dirichlet.logpdf scipy.stats.dirichlet.pdf".split()},
    "scipy.special.psi": ("SciPy has no complex polygamma, the derivative of digamma", unary),
    "scipy.linalg.lu_factor": ("its factors move with A but have no rule (at any dtype)", square),
    "numpy.fromiter": ("an iterator is read once: no rule (at any dtype)", lambda rng: calls(z(rng, 4), complex)),
    "scipy.special.ive": ("ive(v, z) = iv(v, z) exp(-|Re z|) is not holomorphic: no rule", order_and_complex),
    "numpy.random.RandomState.choice": ("a draw moves with its parameters: no rule", vector),
    "numpy.random.RandomState.permutation": ("a draw moves with its parameters: no rule", vector),
}

NOT_NUMERIC = {  # name: why no complex check applies (s2sad's own helpers, and Python's value movers)
    "builtins.sorted": "a permutation of its items, no arithmetic (complex numbers sort only by a key); "
                       "tests/test_python_constructs.py checks it against finite differences",
    "builtins.dict": "copies a dict's values, no arithmetic (tests/test_python_constructs.py)",
    "functools.reduce": "applies its callee's own rule step by step, no arithmetic of its own "
                        "(tests/test_library_code.py checks it against finite differences)",
    "s2sad.rules.helpers.merged_keywords": "the keywords of a call with ** merged into one dict: values move, "
                                           "no arithmetic (tests/test_python_constructs.py)",
    "s2sad.rules.helpers.zipped": "zip as a list of tuples: items move, no arithmetic (tests/test_python_constructs.py)",
    "s2sad.rules.helpers.reversed_items": "reversed as a list of the items: items move, no arithmetic "
                                          "(tests/test_one_pass_iterators.py)",
    "s2sad.rules.helpers.chained": "itertools.chain as a list of the items: items move, no arithmetic "
                                   "(tests/test_one_pass_iterators.py)",
    "s2sad.rules.helpers.deep_copied": "copy.deepcopy as generated code calls it: values copied, no arithmetic "
                                       "(tests/test_deep_copies.py)",
    "s2sad.rules.python_objects.deep_copied_tangent": "deep_copied's tangent, a copy of its argument's: values "
                                                      "copied, no arithmetic (tests/test_deep_copies.py)",
    "s2sad.runtime.closures.closure": "a lambda with the values it reads held (lambda v: v * s): values move, no "
                                      "arithmetic (tests/test_closures.py)",
    "s2sad.rules.helpers.with_attribute": "an object with one attribute set (p.w = v): values move, no arithmetic "
                                          "(tests/test_attribute_writes.py)",
    "s2sad.rules.python_containers.dict_get": "reads one value of a dict, no arithmetic "
                                              "(tests/test_python_constructs.py)",
    "s2sad.rules.python_containers.dict_values": "a dict's values, moved, no arithmetic (tests/rules/test_builtins.py)",
    "s2sad.rules.helpers.dict_without": "`del d[key]`: a dict's other values, moved, no arithmetic "
                                        "(tests/test_refusals_users_meet.py)",
    "s2sad.rules.helpers.dict_merged": "`{**a, **b}`, `dict(a, **b)`: two dicts' values, moved, no arithmetic "
                                       "(tests/test_dict_merges.py)",
    "s2sad.rules.python_containers.dict_copy": "`d.copy()` of a dict given: its values, moved, no arithmetic "
                                               "(tests/test_given_copies.py)",
    "s2sad.rules.python_containers.list_copy": "`xs.copy()` of a list given: its items, moved, no arithmetic "
                                               "(tests/test_given_copies.py)",
    "s2sad.rules.helpers.or_merged": "`a | b`: two dicts' values moved, no arithmetic; anything else no gradient "
                                     "(tests/test_dict_merges.py)",
    "s2sad.rules.python_containers.dict_items": "a dict's items, moved, no arithmetic (tests/rules/test_builtins.py)",
    "s2sad.runtime.tangents.fit": "generated forward code's broadcast of a tangent (linear; tests/test_forward.py)",
    "s2sad.runtime.structure.tangent_item": "an element of a structural tangent (generated code; tests/test_forward.py)",
    "s2sad.runtime.structure.tangent_filled": "a structural tangent with zeros filled in (generated code)",
    "s2sad.runtime.structure.tangent_field": "a field of a structural tangent (generated code)",
    "s2sad.runtime.structure.tangent_append": "forward code's list.append of a tangent: items move, no arithmetic "
                                              "(tests/test_compositions.py, hvp through list.append)",
    "s2sad.runtime.structure.tangent_setitem": "forward code's element write of a tangent: values move, no arithmetic "
                                               "(tests/test_compositions.py, compositions of in-place code)",
    "s2sad.runtime.structure.tangent_extend": "forward code's list.extend of tangents: items move, no arithmetic "
                                              "(tests/test_compositions.py, hvp through list.extend)",
    "s2sad.runtime.structure.tangent_without": "forward code's list.pop of a tangent: items move, no arithmetic "
                                               "(tests/test_compositions.py, hvp through list.pop)",
    "s2sad.runtime.structure.tangent_insert": "forward code's list.insert of a tangent: items move, no arithmetic "
                                              "(tests/test_list_insert.py, hvp through list.insert)",
    "s2sad.rules.python_objects.closure_jvp_held": "the tangent of a lambda's held values, moved into the lambda's: "
                                                   "no arithmetic (tests/test_compositions.py, hvp through a lambda)",
    **{f"s2sad.rules.python_objects.with_attribute_jvp_{part}": "an attribute's tangent moved into or out of an "
       "object's: no arithmetic (tests/test_compositions.py, hvp through attribute assignment)" for part in ("obj", "value")},
    "s2sad.rules.helpers.owned_copy": "a copy of an argument the function changes in place; its cotangent "
                                      "passes through (tests/test_python_constructs.py)",
    "s2sad.rules.helpers.entered_value": "what `with ... as name` binds: passed on to the entry, no arithmetic "
                                        "(tests/test_python_constructs.py)",
    "s2sad.rules.helpers.entering": "a context manager entered for `with ... as name`: refuses a derivative "
                                    "(tests/test_python_constructs.py)",
    "s2sad.rules.helpers.written_into_argument": "written_into behind a check that refuses an argument changed in "
                                                 "place (generated code; tests/test_python_constructs.py)",
    "s2sad.rules.helpers.written_into_shared": "written_into behind a check that refuses arrays (generated code; "
                                               "tests/test_inplace_semantics.py)",
    **{name: "a helper rules' jvps call, given a rule so that forward code differentiates again "
             "(tests/test_second_order_rules.py checks every rule's second derivative through it)" for name in """
        s2sad.runtime.structure.add_tangents s2sad.rules.helpers.expand_reduced s2sad.rules.numpy_shapes.as_tangent_of
        s2sad.registry.slopes.like_output s2sad.registry.slopes.times s2sad.runtime.tangents.unthunk
        s2sad.runtime.structure.split_cotangent s2sad.runtime.structure.field_cotangent
        s2sad.runtime.methods.method_jvp s2sad.runtime.methods.attribute_jvp s2sad.runtime.methods.packed_jvp
        s2sad.runtime.calls.call_jvp s2sad.runtime.initializers.initialized""".split()},
}

# Nondifferentiable rules whose output at complex arguments moves for a reason other than a gradient.
MOVES_WITHOUT_A_GRADIENT = {
    "numpy.empty_like": "its output is uninitialised memory",
    "s2sad.conveniences.stop_gradient": "its output is its argument, with a derivative of zero by design",
}

# Arguments tried for the nondifferentiable rules (the first NumPy accepts is used).
PATTERNS = [unary, lambda rng: calls(z(rng, 2, 3), z(rng, 2, 3)), square, scalar,
            lambda rng: calls(z(rng), z(rng)), lambda rng: calls(z(rng, 2, 3), 1)]

METHOD_CHECKED = {  # method name: rng, receiver -> (args, kwargs); None: the method takes no arguments
    "sum": None, "mean": None, "prod": None, "max": None, "min": None, "std": None, "var": None,
    "cumsum": None, "cumprod": None, "squeeze": None, "trace": None, "diagonal": None, "ravel": None,
    "conj": None, "conjugate": None, "real": None, "imag": None, "T": None, "mT": None, "flatten": None,
    "copy": None, "flat": None, "clip": lambda rng, a: calls(-0.5, 0.5),
    "dot": lambda rng, a: calls(z(rng, *np.shape(a)[-1:])),
    "swapaxes": lambda rng, a: calls(0, -1), "repeat": lambda rng, a: calls(2),
    "reshape": lambda rng, a: calls(-1), "transpose": lambda rng, a: calls(),
    "astype": lambda rng, a: calls(np.complex128), "item": lambda rng, a: calls(0), "tolist": None,
    "take": lambda rng, a: calls(np.array([2, 0, 2]), 1) if np.ndim(a) == 2 else calls(np.array([0, 0])),
}
METHOD_RECEIVERS = {np.ndarray: lambda rng: z(rng, 2, 3), np.generic: lambda rng: np.complex128(z(rng)),
                    complex: lambda rng: z(rng), float: lambda rng: float(rng.standard_normal())}
SCALARS_WITHOUT_TWO_AXES = {"trace", "diagonal", "swapaxes", "mT"}  # a 0-d receiver has no axes to use


def _rule_names():
    return sorted({rule.name for rule in registry.all_rules()})


def _rule(name):
    return next(rule for rule in registry.all_rules() if rule.name == name)


def _rng(name):
    return np.random.default_rng(sum(name.encode()))


def _unpack(made):
    args, kwargs = made[0], made[1]
    return args, kwargs, (made[2] if len(made) > 2 else None)


def _quietly(function, *args, **kwargs):
    """``function(*args)``, with NumPy's warning that it drops imaginary parts made an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        return function(*args, **kwargs)


def _has_complex(value):
    if isinstance(value, dict):
        return _has_complex(list(value.values()))
    if isinstance(value, (list, tuple)):
        return any(_has_complex(item) for item in value)
    return not isinstance(value, str) and np.iscomplexobj(value)


# ------------------------------------------------------------------ completeness
def test_every_rule_is_listed():
    no_gradient = {rule.name for rule in registry.all_rules() if rule.nondifferentiable}
    tables = [CHECKED, REAL_ONLY, REFUSED, NOT_NUMERIC]
    listed = [name for table in tables for name in table]
    assert len(listed) == len(set(listed)), "a rule is in two tables"
    missing = sorted(set(_rule_names()) - set(listed) - no_gradient)
    assert not missing, f"rules with no entry in the complex audit (add them to a table): {missing}"
    assert not set(listed) - set(_rule_names()), "the audit lists rules that are not registered"
    assert not set(listed) & no_gradient, "a nondifferentiable rule is listed as differentiable"
    unknown_methods = {name for (owner, name) in registry.all_method_rules() if owner not in METHODS_OF_CONTAINERS}
    unknown_methods -= set(METHOD_CHECKED)
    assert not unknown_methods, f"method rules with no entry in the complex audit: {sorted(unknown_methods)}"


# ------------------------------------------------------------------ checked rules
def _forward_matches(rule, forward, args, kwargs, rng):
    """The pushforward of each argument's random complex tangent against the central difference."""
    ans = rule.function(*args, **kwargs)
    parameters = list(forward.signature.parameters.values())
    for i, value in enumerate(args):
        tangent = random_like(value, rng)
        if tangent is None:
            continue
        variadic = next((p for p in parameters if p.kind is p.VAR_POSITIONAL), None)
        if variadic is not None and i >= parameters.index(variadic):
            position = i - parameters.index(variadic)
            count = len(args) - parameters.index(variadic)
            tangents = {variadic.name: tuple(tangent if j == position else ZERO for j in range(count))}
        else:
            tangents = {parameters[i].name: tangent}
        pushed = forward.pushforward(args, kwargs, tangents, ans)
        h = 1e-6
        wide = [widened(a) for a in args]
        up, down = list(wide), list(wide)
        up[i], down[i] = shifted_by(wide[i], h, tangent), shifted_by(wide[i], -h, tangent)
        hi, lo = rule.function(*up, **kwargs), rule.function(*down, **kwargs)
        several = isinstance(ans, (tuple, list))
        outputs = tuple(ans) if several else (ans,)
        his, los = (tuple(hi), tuple(lo)) if several else ((hi,), (lo,))
        pushes = outputs if is_zero(pushed) else (tuple(pushed) if several else (pushed,))
        for out, push, up_value, down_value in zip(outputs, pushes, his, los):
            numeric = (np.asarray(up_value, dtype=complex) - np.asarray(down_value, dtype=complex)) / (2 * h)
            got = np.zeros(np.shape(out)) if is_zero(pushed) or is_zero(push) else np.asarray(unthunk(push))
            np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6,
                                       err_msg=f"forward rule of {rule.name}, argument {i}")


@pytest.mark.parametrize("name", sorted(CHECKED))
def test_checked_at_complex_arguments(name):
    rule, rng = _rule(name), _rng(name)
    args, kwargs, cotangent = _unpack(CHECKED[name](rng))
    _quietly(rule.function, *args, **kwargs)  # NumPy takes these arguments without a warning
    assert _has_complex(args), f"{name}: no complex argument"
    check_rrule(rule.function, *args, cotangent=cotangent, **kwargs)
    forward = forward_rule(rule.function)
    if forward is not None and cotangent is None:  # phase-free outputs are checked in reverse mode only
        _forward_matches(rule, forward, args, kwargs, rng)


# dict's and list's methods move values, no arithmetic: their functions' rules (dict_get, list_copy, ...) are in
# NOT_NUMERIC
METHODS_OF_CONTAINERS = {dict, list}


@pytest.mark.parametrize("owner, name", sorted((key for key in registry.all_method_rules() if key[0] not in METHODS_OF_CONTAINERS),
                                               key=lambda key: (key[0].__name__, key[1])),
                         ids=lambda v: getattr(v, "__name__", v))
def test_methods_at_complex_receivers(owner, name):
    rng = np.random.default_rng(len(name))
    receiver = METHOD_RECEIVERS[owner](rng)
    if owner is np.generic and name in SCALARS_WITHOUT_TWO_AXES:
        with pytest.raises(Exception):  # NumPy itself has nothing to compute here
            _quietly(lambda: getattr(receiver, name)() if name != "swapaxes" else receiver.swapaxes(0, -1))
        return
    args, kwargs = METHOD_CHECKED[name](rng, receiver) if METHOD_CHECKED[name] else calls()
    check_rrule(name, receiver, *args, **kwargs)
    forward = forward_method_rule(owner, name)
    if forward is not None and owner is np.ndarray:
        rule = registry.method_rule(owner, name)
        value = getattr(receiver, name)
        if callable(value):
            _forward_matches(rule, forward, (receiver,) + args, kwargs, rng)


# ------------------------------------------------------------------ real-only and refused rules
@pytest.mark.parametrize("name", sorted(REAL_ONLY))
def test_real_only_rules_really_are(name):
    rule, rng = _rule(name), _rng(name)
    reason, maker = REAL_ONLY[name]
    args, kwargs, _ = _unpack(maker(rng))
    real_args = [np.real(a) if np.iscomplexobj(a) else a for a in args]
    real_args = [float(a) if isinstance(a, np.floating) and isinstance(b, complex) else a
                 for a, b in zip(real_args, args)]
    with pytest.raises((TypeError, ValueError)):
        _quietly(rule.function, *args, **kwargs)
    rule.function(*real_args, **kwargs)  # the same call at real arguments runs


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_rules_refuse(name):
    rule, rng = _rule(name), _rng(name)
    _, maker = REFUSED[name]
    args, kwargs, _ = _unpack(maker(rng))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y, pullback = rule.rrule(*args, **kwargs)
        cotangent = random_like(tuple(y) if isinstance(y, tuple) else y, rng)
        with pytest.raises(s2sad.S2SADError):
            pullback(cotangent)


def test_not_numeric_rules_are_s2sads_own():
    for name in NOT_NUMERIC:
        assert name.startswith(("s2sad.", "builtins.sorted", "builtins.dict", "functools.reduce")), name


# ------------------------------------------------------------------ nondifferentiable rules
def _moves(function, args, kwargs, rng):
    """Whether the output changes along a random complex direction of some argument."""
    out = function(*args, **kwargs)
    if not isinstance(out, (np.ndarray, np.generic, float, complex)) or np.asarray(out).dtype.kind not in "fc":
        return False
    for i, value in enumerate(args):
        direction = random_like(value, rng)
        if direction is None:
            continue
        h = 1e-7
        up, down = list(args), list(args)
        up[i], down[i] = shifted_by(value, h, direction), shifted_by(value, -h, direction)
        change = np.asarray(function(*up, **kwargs), dtype=complex) - np.asarray(function(*down, **kwargs), dtype=complex)
        if np.any(np.abs(change) > 1e-9):
            return True
    return False


@pytest.mark.parametrize("name", sorted(rule.name for rule in registry.all_rules() if rule.nondifferentiable))
def test_nondifferentiable_rules_carry_no_gradient_at_complex_arguments(name):
    rule, rng = _rule(name), _rng(name)
    if name in MOVES_WITHOUT_A_GRADIENT:
        return
    for pattern in PATTERNS:
        args, kwargs, _ = _unpack(pattern(rng))
        try:
            with np.errstate(all="ignore"):
                _quietly(rule.function, *args, **kwargs)
        except Exception:
            continue  # NumPy does not take these arguments
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert not _moves(rule.function, args, kwargs, rng), f"{name} moves at complex arguments"
