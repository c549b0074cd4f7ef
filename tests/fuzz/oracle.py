"""Checking one program: s2sad's derivatives against finite differences and against each other.

``check_program(program, directory)`` writes the program to a real ``.py`` file (s2sad reads
source files), imports it, and runs :func:`check_function` on its ``f``:

* reverse mode: ``value_and_grad`` (scalar output) or ``vjp`` with a cotangent ``u``
  (array output) equals central finite differences of ``<u, f(x)>`` (a 4-point stencil in
  float64, its step made smaller while the estimate still moves, so the reference is good to
  ~1e-10; tolerance rtol 1e-5, atol 1e-6);
* the value s2sad returns is the function's own; each gradient has its input's type,
  shape and dtype;
* a ``vjp`` pullback called a second time (with ``-u/2``) gives ``-1/2`` of the first;
* forward mode: ``jvp`` with tangents ``v`` gives ``<u, J v>`` equal to ``<J^T u, v>`` from
  reverse mode, and ``J v`` equal to a finite-difference directional derivative; a
  ``MissingRuleError`` is recorded as a missing forward rule, not as a failure;
* second order, for a scalar ``f`` with float64 or complex inputs: ``hvp`` along ``v`` equals
  central differences along ``v`` of the finite-difference gradient (nested stencils, never
  s2sad's own gradient; tolerance rtol 1e-4, atol 1e-5); where the nested differences do not
  settle the program is not judged at second order (``Outcome.second_order`` says why);
* compiled, with Numba installed: ``compile=True`` gives the NumPy path's value and gradient
  (rtol 1e-10), whether it compiled or fell back (programs of floats, ints and arrays);
* the inputs are left as ``f`` itself leaves them (values, types, shapes): unchanged, or
  changed as Python changes them when ``f`` writes into an argument (each s2sad call gets
  its own copy of the arguments, so one call's change does not move the next one's point);
* the value has NumPy's dtype (float32 inputs mixed with float64 constants included).

Inputs may be float32 (the reference is still float64 finite differences of the plain
function, at the inputs widened to float64; the tolerance is float32's) or complex (steps
along the real and the imaginary part: the gradient is dL/dRe + 1j dL/dIm, and cotangents
pair with tangents through Re(sum(conj(a) * b))). An input may be structured, as users'
parameters are: a list of ``(W, b)`` tuples, a dict of named arrays, a namedtuple or a
dataclass (``trees.py``). Every float and array inside is differenced on its own, and each
gradient s2sad gives (value_and_grad, vjp's pullback, hvp, compile=True) must come in the
input's own container, as the README promises (same type, keys, order and length; None for
an int inside): a mismatch is a failure (``gradient-structure``, ``cotangent-structure``,
``hvp-structure``, ``compiled-structure``); then it is compared leaf by leaf.

An ``S2SADError`` is a REFUSAL, not a failure: recorded in ``Outcome.refusals`` by
construct (its message, normalised), and checked to name the program's file and a line
(``refusal-without-location`` otherwise; a refusal inside a rule's source, met in hvp,
names the program's line it was reached from, which counts). Any other exception is a failure. A module that
defines ``helper_redefined`` is checked a second time after ``helper`` is rebound to it
(as a notebook cell run again would): failures then are ``after-redefinition-...``.

The finite differences run the program's probed twin, which records the path every
evaluation takes: if a step crosses a branch condition the program is reported
``invalid`` (not smooth at those inputs) instead of compared.
"""
from __future__ import annotations

import copy
import hashlib
import importlib.util
import os
import re
import sys
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

import s2sad
from s2sad.errors import MissingRuleError, S2SADError

from . import trees

MODES = ("reverse", "forward", "second", "compiled")   # what a check runs, all by default
RTOL, ATOL = 1e-5, 1e-6          # gradient against finite differences
EXACT_RTOL = 1e-9                # the same number computed two ways (<u, Jv> both ways, values)
FLOAT32_RTOL = 1e-3             # float32 programs: against float64 finite differences, relative to the largest entry
# float32 programs under compile=True against the NumPy path: a few float32 ulps of the largest entry (Numba's
# exp, log, tanh and its BLAS round in float32 as NumPy's own loops do, not always to the same last bit)
FLOAT32_COMPILED_ULPS = 8
STEPS = (1e-3, 2.5e-4, 6.25e-5, 1.5625e-5)   # finite-difference steps, tried in turn (4-point stencil: error ~ h**4)


@dataclass
class Failure:
    category: str        # grad-mismatch, jvp-vjp-mismatch, reverse-exception, input-mutated, ...
    signature: str       # category plus, for exceptions, the type and normalised message
    message: str

    def __str__(self):
        return f"[{self.signature}] {self.message}"


@dataclass
class Outcome:
    failures: list = field(default_factory=list)
    missing_forward: list = field(default_factory=list)   # qualified names of functions without a forward rule
    invalid: str | None = None                             # why the program cannot be judged at these inputs
    forward_checked: bool = False
    second_order: str | None = None                        # "checked", or why not
    compiled_checked: bool = False                         # compile=True compared with the NumPy path
    compiled_ran: bool = False                             # ... and it ran compiled (no fallback)
    compiled_fallback: str = ""                            # ... or why it ran on the NumPy path
    refusals: list = field(default_factory=list)           # (construct, message) of each S2SADError

    @property
    def failed(self) -> bool:
        return bool(self.failures)

    def fail(self, category, message, signature=None):
        self.failures.append(Failure(category, signature or category, message))


class TimeLimit(BaseException):
    """Raised by ``time_limit`` when the time is up (a BaseException: nothing on the way catches it)."""


class time_limit:
    """``with time_limit(seconds):`` raises TimeLimit when the process has used ``seconds`` of
    CPU time (SIGPROF; only in the main thread of a process with setitimer, elsewhere it does
    nothing). CPU time, not wall time: on a shared machine (five engineers on two cores) a
    check of 25 s of CPU took 104 s of wall time, and a wall-clock limit reported it as a
    "timeout" failure. A program that never ends uses CPU all the while."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def __enter__(self):
        import signal
        import threading

        self.active = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        if self.active:
            def alarm(signum, frame):
                raise TimeLimit()

            self.previous = signal.signal(signal.SIGPROF, alarm)
            signal.setitimer(signal.ITIMER_PROF, self.seconds)
        return self

    def __exit__(self, *exc):
        if self.active:
            import signal

            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, self.previous)
        return False


class _Skipped(Exception):
    """A mode left out of this check."""


class NotConverged(Exception):
    """Finite differences still move at the smallest step: too steep to be a reference."""


class PathChanged(Exception):
    """A finite-difference step took another branch: the function has a kink nearby."""


# ------------------------------------------------------------------ loading programs

_counter = [0]


def load(source: str, directory: str, stem: str | None = None):
    """Write ``source`` to ``directory/<stem>.py`` and import it under a unique module name."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    stem = stem or f"fuzz_{digest}"
    path = os.path.join(directory, stem + ".py")
    if not os.path.exists(path):
        with open(path, "w") as stream:
            stream.write(source)
    _counter[0] += 1
    name = f"{stem}_m{_counter[0]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def unload(module) -> None:
    sys.modules.pop(module.__name__, None)


class _forget_generated_modules:
    """Drop from sys.modules the modules s2sad generated meanwhile (a long run makes thousands)."""

    def __enter__(self):
        self.before = {name for name in sys.modules if name.startswith("s2sad_generated.")}

    def __exit__(self, *exc):
        for name in [n for n in sys.modules if n.startswith("s2sad_generated.") and n not in self.before]:
            del sys.modules[name]
        return False


def check_program(program, directory: str) -> Outcome:
    u, tangents = program.directions()
    return check_source(program.source, program.args(), program.output_kind, u, tangents, directory)


def check_source(source: str, args, output_kind: str, u, tangents, directory: str, stem: str | None = None,
                 modes=MODES) -> Outcome:
    """Write ``source`` to a file, import it, and check its ``f`` at ``args`` (the probed twin
    of the same text guards the finite differences)."""
    from .analysis import Probe

    module = load(source, directory, stem)
    try:
        probe = Probe(source)
        # a program's own namedtuples and dataclasses, made now that its module exists (trees.Record)
        args, tangents = trees.materialise(tuple(args), vars(module)), trees.materialise(list(tangents), vars(module))
        with _forget_generated_modules():
            return check_module(module, probe, args, output_kind, u, tangents, modes)
    finally:
        unload(module)


def check_module(module, probe, args, output_kind, u, tangents, modes=MODES) -> Outcome:
    """``check_function`` on the module's ``f``; again after a redefinition, if it defines ``helper_redefined``."""
    outcome = check_function(module.f, args, output_kind, u, tangents, probe, modes)
    if hasattr(module, "helper_redefined") and not outcome.invalid:
        redefine(module.__dict__, probe.namespace)
        again = check_function(module.f, args, output_kind, u, tangents, probe, modes)
        merge_redefined(outcome, again)
    return outcome


def redefine(*namespaces) -> None:
    """Bind ``helper`` to ``helper_redefined``, named ``helper``: the cell defining it, run again."""
    for namespace in namespaces:
        new = namespace["helper_redefined"]
        new.__name__ = new.__qualname__ = "helper"
        namespace["helper"] = new


def merge_redefined(outcome, again) -> None:
    """The second check's findings, told apart from the first's."""
    if again.invalid:
        return
    for failure in again.failures:
        outcome.failures.append(Failure(f"after-redefinition-{failure.category}",
                                        f"after-redefinition-{failure.signature}",
                                        f"after helper was redefined: {failure.message}"))
    outcome.refusals += again.refusals


# ------------------------------------------------------------------ finite differences

def _objective(function, u, base_path=None, probe=None):
    """``args -> <u, f(*args)>``; with a probe, also checks the path stays ``base_path``."""

    def phi(args):
        args = copy.deepcopy(args)   # f may write into an argument: each evaluation gets its own
        if probe is not None:
            value, records = probe.run(args)
            if probe.path(records) != base_path:
                raise PathChanged()
        else:
            with np.errstate(all="ignore"):
                value = function(*args)
        return float(np.sum(np.asarray(u) * np.asarray(value, dtype=np.float64)))

    return phi


def widened(value):
    """A float input in float64 (complex in complex128): finite differences run there."""
    if isinstance(value, np.ndarray):
        return value.astype(np.complex128 if np.iscomplexobj(value) else np.float64)
    if isinstance(value, (complex, np.complexfloating)):
        return complex(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return value


def _moved(args, position, index, step):
    """``args`` with one entry moved by ``step`` (real, or imaginary for the 1j direction)."""
    moved = list(args)
    value = args[position]
    if isinstance(value, np.ndarray):
        array = value.copy()
        array[index] += step
        moved[position] = array
    else:
        moved[position] = value + step
    return moved


def _stencil(phi, at):
    """The 4-point central difference, with a smaller step while it keeps moving.

    A program like ``g(s) + sin(g(s))`` with ``g(s) = 31.25 s`` has a fifth derivative of
    ~3e7, so the first step (1e-3) is off by ~1e-6, more than the tolerance; each quarter
    step divides that error by 256. The estimate is taken once two steps agree to within a
    tenth of the tolerance. If the steps run out first (``sin(s**4 * 532)`` has a fifth
    derivative of ~1e14), the function is too steep to judge: NotConverged.
    """
    previous = None
    for h in STEPS:
        estimate = (-np.asarray(phi(at(2 * h))) + 8 * np.asarray(phi(at(h))) - 8 * np.asarray(phi(at(-h)))
                    + np.asarray(phi(at(-2 * h)))) / (12 * h)
        if previous is not None and np.all(np.abs(estimate - previous) <= 0.1 * (ATOL + RTOL * np.abs(estimate))):
            return estimate
        previous = estimate
    raise NotConverged()


def numerical_gradients(phi, args, positions):
    """d phi / d arg, of complex arguments d/dRe + 1j d/dIm (``args`` widened already)."""
    gradients = []
    for position in positions:
        value = args[position]
        directions = (1.0, 1j) if np.iscomplexobj(value) else (1.0,)
        gradient = np.zeros(np.shape(value), dtype=np.complex128 if len(directions) == 2 else np.float64)
        for index in np.ndindex(np.shape(value)):
            for direction in directions:
                gradient[index] += direction * _stencil(
                    phi, lambda step: _moved(args, position, index, direction * step))
        gradients.append(gradient if isinstance(value, np.ndarray) else gradient[()].item())
    return gradients


def _pairing(a, b) -> float:
    """<a, b> = Re(sum(conj(a) * b)): a cotangent against a tangent."""
    return float(np.real(np.sum(np.conj(np.asarray(a)) * np.asarray(b))))


def numerical_directional(function, args, tangents, positions, base_path=None, probe=None):
    """``J v`` by the same stencil along the direction ``v`` (each leaf of a structured argument
    moved along its own tangent)."""

    def at(step):
        moved = list(args)
        for p in positions:
            moved[p] = trees.with_leaves(args[p], [a + step * widened(t) for a, t in
                                                   zip(trees.leaves(args[p]), trees.leaves(tangents[p]))])
        return moved

    def value(moved):
        moved = copy.deepcopy(moved)   # f may write into an argument: each evaluation gets its own
        if probe is not None:
            result, records = probe.run(moved)
            if probe.path(records) != base_path:
                raise PathChanged()
            return np.asarray(result, dtype=np.float64)
        return np.asarray(function(*moved), dtype=np.float64)

    return _stencil(value, at)


# ------------------------------------------------------------------ the checks

def _normalise(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    first = re.sub(r"^.*?:\d+:\d+: error: ", "", first)
    first = re.sub(r"^error: ", "", first)
    first = re.sub(r"/\S+", "<path>", first)
    first = re.sub(r"(variable|name) '[^']*'", r"\1 '<name>'", first)   # generated names differ from program to program
    first = re.sub(r"\b[A-Za-z_]+\d+\b", "<name>", first)
    first = re.sub(r"\d+", "#", first)
    return first[:160]


def _exception_failure(outcome, stage, error):
    where = traceback.extract_tb(error.__traceback__)
    inner = [frame for frame in where if "/s2sad/" in frame.filename.replace("\\", "/") or "/rules/" in frame.filename]
    place = f" (raised in {os.path.basename(inner[-1].filename)}:{inner[-1].name})" if inner else ""
    signature = f"{stage}-exception:{type(error).__name__}:{_normalise(str(error))}"
    frames = " <- ".join(f"{os.path.basename(frame.filename)}:{frame.lineno}:{frame.name}" for frame in reversed(where[-4:]))
    outcome.fail(f"{stage}-exception", f"{type(error).__name__}{place}: {error}\n(innermost frames: {frames})", signature)


def _missing_rule_name(error) -> str:
    message = str(error)
    match = re.search(r"no forward rule for `[^`]*` \(([^)]*)\)", message)
    if match:
        return match.group(1)
    match = re.search(r"no forward rule for the method `([^`]*)`", message)
    if match:
        return f"method {match.group(1)}"
    match = re.search(r"the forward rule of `([^`]*)` cannot be bound", message)
    if match:
        return f"cannot bind {match.group(1)}"
    return _normalise(message)


def _same_inputs(before, after) -> str | None:
    for i, (a, b) in enumerate(zip(before, after)):
        changed = trees.difference(a, b, f"argument {i}")
        if changed:
            return changed
    return None


def _check_type(outcome, gradient, primal, label) -> None:
    """A gradient leaf has its primal's type, shape and dtype (``label``: "argument 0", "argument 1['W']")."""
    if isinstance(primal, np.ndarray):
        if not isinstance(gradient, np.ndarray) or gradient.shape != primal.shape or gradient.dtype != primal.dtype:
            outcome.fail("gradient-type", f"the gradient of {label} (an array {primal.shape} {primal.dtype}) "
                                          f"is {type(gradient).__name__} {getattr(gradient, 'shape', '')} "
                                          f"{getattr(gradient, 'dtype', '')}")
    elif isinstance(primal, (float, complex)) and type(gradient) is not type(primal):
        outcome.fail("gradient-type", f"the gradient of {label} (a {type(primal).__name__}) "
                                      f"is a {type(gradient).__name__}")
    elif isinstance(primal, np.generic) and np.asarray(gradient).dtype != primal.dtype:
        outcome.fail("gradient-type", f"the gradient of {label} (a {type(primal).__name__}) "
                                      f"is a {type(gradient).__name__} of dtype {np.asarray(gradient).dtype}")


class Layout:
    """The leaves (floats and arrays) of the differentiated arguments as one flat list, and
    each gradient s2sad gives for them read the same way, once its structure is checked."""

    def __init__(self, args, positions):
        self.args, self.positions = args, positions
        self.labels = [f"argument {p}{path}" for p in positions for path, _ in trees.flatten(args[p])]

    def flat(self, values) -> list:
        """The leaves of ``values`` (one value per argument) at the differentiated positions."""
        return [leaf for p in self.positions for leaf in trees.leaves(values[p])]

    def unflat(self, flat, like) -> list:
        """``like`` (one value per argument) with the leaves at the differentiated positions replaced by ``flat``."""
        values, start = list(like), 0
        for p in self.positions:
            count = len(trees.leaves(like[p]))
            values[p] = trees.with_leaves(like[p], list(flat[start:start + count]))
            start += count
        return values

    def read(self, outcome, category, given) -> list | None:
        """The leaves of ``given`` (one gradient per differentiated argument, s2sad's); None
        (and a ``category`` failure) where a gradient does not have its argument's structure."""
        flat = []
        for gradient, p in zip(given, self.positions):
            problem = trees.structure_mismatch(gradient, self.args[p], f"argument {p}")
            if problem:
                outcome.fail(category, f"{problem} (README: containers come back as themselves)")
                return None
            flat += trees.leaves_like(gradient, self.args[p])
        return flat


def _close(a, b, rtol, atol, equal_nan=False) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if np.iscomplexobj(a) != np.iscomplexobj(b) and np.any(np.imag(a)) + np.any(np.imag(b)):
        return False
    if a.shape != b.shape:
        return False
    close = np.abs(a - b) <= atol + rtol * np.abs(b)
    if equal_nan:   # a NaN where the other has one too (a rerun of the same pullback)
        close |= np.isnan(a) & np.isnan(b)
    return bool(np.all(close))


def _refusal(outcome, stage, error, path) -> None:
    """An S2SADError: counted by construct; it must point at the program's file and a line."""
    construct = _normalise(getattr(error, "message", None) or str(error))
    outcome.refusals.append((construct, str(error)))
    location = getattr(error, "location", None)
    # an error inside code s2sad differentiates from its source (a rule's, in hvp) names the
    # program's line it was reached from (S2SADError.reached_from): that locates it too
    places = [location, *getattr(error, "reached_from", ())]
    if not any(place is not None and os.path.abspath(place.filename) == path and place.line for place in places):
        outcome.fail("refusal-without-location", f"{stage}: {type(error).__name__} does not name the program's file "
                                                 f"and line ({location}): {error}",
                     f"refusal-without-location:{type(error).__name__}:{construct}")


def modes_for(signature: str) -> tuple:
    """The modes a check must run to see a failure with this signature again (reduce.py)."""
    if signature.startswith(("second-exception", "hvp-mismatch", "hvp-structure")):
        return ("second",)
    if signature.startswith(("compiled-exception", "compiled-mismatch", "compiled-structure")):
        return ("reverse", "compiled")
    if signature.startswith(("forward-exception", "jvp-mismatch", "jvp-value-mismatch")):
        return ("forward",)
    if signature.startswith("jvp-vjp-mismatch"):
        return ("reverse", "forward")
    if signature.startswith("input-mutated"):   # any call may leave the arguments otherwise than f does
        return MODES
    return ("reverse",)


def _tolerances(args, expected):
    """(rtol, atol) of the gradient check: float64's, or float32's relative to the largest entry."""
    if any(np.asarray(a).dtype == np.float32 for a in trees.leaves(list(args)) if isinstance(a, (np.ndarray, np.generic))):
        scale = max([float(np.max(np.abs(g), initial=0.0)) for g in expected] + [1.0])
        return FLOAT32_RTOL, FLOAT32_RTOL * scale
    return RTOL, ATOL


def check_function(f, args, output_kind, u, tangents, probe=None, modes=MODES) -> Outcome:
    """Run every check on ``f`` at ``args`` (see the module docstring); ``modes`` may leave one out.

    An argument is differentiated if it holds a float or an array, itself or inside a list,
    tuple, dict, namedtuple or dataclass (``trees``); finite differences move each leaf on its
    own, and s2sad's gradients are read leaf by leaf (``Layout``) once their structure is checked.
    """
    outcome = Outcome()
    args = tuple(args)
    python_after = copy.deepcopy(args)   # what f itself leaves in its arguments (a write into one changes it)
    handed = []   # the copies given to s2sad calls that returned, compared with python_after at the end

    def own():   # the arguments for one s2sad call: its own copy
        return copy.deepcopy(args)

    path = os.path.abspath(f.__code__.co_filename)
    positions = tuple(i for i, a in enumerate(args) if trees.flatten(a))
    layout = Layout(args, positions)
    wide = tuple(trees.tree_map(widened, a) for a in args)
    flat_tangents = layout.flat(tangents)
    with np.errstate(all="ignore"):
        reference = f(*python_after)
    if np.shape(reference) != np.shape(u):
        outcome.invalid = f"the output has shape {np.shape(reference)}, not {np.shape(u)}"
        return outcome
    if np.iscomplexobj(reference):
        outcome.invalid = "the output is complex (the fuzzer's losses are real)"
        return outcome
    base_path = None
    if probe is not None:
        _, records = probe.run(copy.deepcopy(wide))
        base_path = probe.path(records)
    scalar = output_kind == "S"
    phi = _objective(f, u, base_path, probe)

    def flat_phi(flat):   # phi of the leaves
        return phi(layout.unflat(flat, wide))

    try:
        expected = numerical_gradients(flat_phi, copy.deepcopy(layout.flat(wide)), range(len(layout.labels))) \
            if "reverse" in modes else []   # of <u, f>, leaf by leaf
    except PathChanged:
        outcome.invalid = "a finite-difference step changes a branch"
        return outcome
    except NotConverged:
        outcome.invalid = "finite differences do not converge (the function is too steep here)"
        return outcome
    if any(not np.all(np.isfinite(g)) or np.max(np.abs(g)) > 1e6 for g in expected):
        outcome.invalid = "finite differences are not finite or too large"
        return outcome
    rtol, atol = _tolerances(args, expected)
    loose = rtol > RTOL   # float32: values and pairings agree to float32's precision only
    exact = 1e-5 if loose else EXACT_RTOL
    primals = layout.flat(args)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # ---------------- reverse mode
        gradients = None   # of <u, f>, leaf by leaf
        raw = raw_leaves = None   # value_and_grad's, as s2sad gives them (a scalar program), and their leaves
        try:
            if "reverse" not in modes:
                raise _Skipped()
            if scalar:
                given = own()
                value, raw = s2sad.value_and_grad(f, argnums=positions)(*given)
                handed.append(given)
                read = layout.read(outcome, "gradient-structure", raw)
                gradients = None if read is None else [u * np.asarray(g) for g in read]
                raw_leaves = read
            else:
                given = own()
                value, pullback = s2sad.vjp(f, *given)
                handed.append(given)
                cotangents = pullback(u)
                gradients = raw_leaves = layout.read(outcome, "cotangent-structure", [cotangents[p] for p in positions])
            for label, g, primal in zip(layout.labels, raw_leaves or [], primals):
                _check_type(outcome, g, primal, label)
        except _Skipped:
            pass
        except S2SADError as error:
            _refusal(outcome, "reverse", error, path)
        except Exception as error:  # noqa: BLE001 - every exception is a finding
            _exception_failure(outcome, "reverse", error)
        if gradients is not None:
            if not _close(value, reference, exact, 1e-12):
                outcome.fail("value-mismatch", f"s2sad's value {value!r} differs from f's own {reference!r}")
            elif np.asarray(value).dtype != np.asarray(reference).dtype:
                outcome.fail("value-dtype", f"s2sad's value {value!r} has dtype {np.asarray(value).dtype}, "
                                            f"NumPy's {reference!r} has {np.asarray(reference).dtype}")
            for label, got, want in zip(layout.labels, gradients, expected):
                if not np.all(np.isfinite(got)):   # the reference is finite (checked above)
                    outcome.fail("grad-not-finite", f"gradient of <u, f> in {label}: s2sad "
                                                    f"{np.asarray(got).tolist()}, finite differences "
                                                    f"{np.asarray(want).tolist()}")
                elif not _close(got, want, rtol, atol):
                    outcome.fail("grad-mismatch", f"gradient of <u, f> (u={np.asarray(u).tolist()}) in {label}: "
                                                  f"s2sad {np.asarray(got).tolist()} != finite differences "
                                                  f"{np.asarray(want).tolist()}")
            # a second pullback of the same vjp: linear in the cotangent
            try:
                given = own()
                _, pullback = s2sad.vjp(f, *given)
                handed.append(given)
                first, second = pullback(u), pullback(-0.5 * u)
                first = layout.read(outcome, "cotangent-structure", [first[p] for p in positions])
                second = layout.read(outcome, "cotangent-structure", [second[p] for p in positions])
                for label, one, two in zip(layout.labels, first or [], second or []):
                    if not _close(two, -0.5 * np.asarray(one), exact, 1e-12, equal_nan=True):
                        outcome.fail("pullback-rerun", f"{label}: the pullback called again with -u/2 gives "
                                                       f"{np.asarray(two).tolist()}, not -1/2 of {np.asarray(one).tolist()}")
            except S2SADError as error:
                _refusal(outcome, "reverse", error, path)
            except Exception as error:  # noqa: BLE001
                _exception_failure(outcome, "reverse", error)

        # ---------------- forward mode
        try:
            if "forward" not in modes:
                raise _Skipped()
            given = own()
            y, ydot = s2sad.jvp(f, given, tangents)
            handed.append(given)
        except _Skipped:
            pass
        except MissingRuleError as error:
            outcome.missing_forward.append(_missing_rule_name(error))
        except S2SADError as error:
            _refusal(outcome, "forward", error, path)
        except Exception as error:  # noqa: BLE001
            _exception_failure(outcome, "forward", error)
        else:
            outcome.forward_checked = True
            if not _close(y, reference, exact, 1e-12):
                outcome.fail("jvp-value-mismatch", f"jvp's value {y!r} differs from f's own {reference!r}")
            try:
                directional = numerical_directional(f, copy.deepcopy(wide), tangents, positions, base_path, probe)
            except (PathChanged, NotConverged):
                directional = None
            if directional is not None:
                scale = max(1.0, float(np.max(np.abs(directional), initial=0.0))) if loose else 1.0
                if not _close(ydot, directional, rtol, atol if not loose else rtol * scale):
                    outcome.fail("jvp-mismatch", f"jvp's tangent {np.asarray(ydot).tolist()} != finite differences "
                                                 f"{np.asarray(directional).tolist()}")
            if gradients is not None:
                forward = _pairing(u, ydot)
                backward = sum(_pairing(g, t) for g, t in zip(gradients, flat_tangents))
                scale = 1.0 + abs(forward) + abs(backward)
                if abs(forward - backward) > (1e-4 if loose else 1e-7) * scale:
                    outcome.fail("jvp-vjp-mismatch", f"<u, J v> is {forward!r} by jvp but {backward!r} by vjp")

        if "second" in modes:
            given = own()
            if _check_second_order(outcome, f, given, wide, tangents, layout, scalar and not loose, u, flat_phi, path):
                handed.append(given)
        if "compiled" in modes and scalar and raw is not None and raw_leaves is not None:
            given = own()
            if _check_compiled(outcome, f, given, layout, value, raw_leaves, path):
                handed.append(given)

    for given in handed:
        changed = _same_inputs(python_after, given)
        if changed:
            outcome.fail("input-mutated", f"{changed} (compared with what f itself leaves in its arguments)")
            break
    return outcome


def _compilable(value) -> bool:
    """A call compile=True is tried on: Python floats, ints and arrays, alone or in containers."""
    if trees.is_container(value):
        return all(type(leaf) in (float, np.ndarray) for leaf in trees.leaves(value))
    return type(value) in (float, int, np.ndarray)


def _check_compiled(outcome, f, args, layout, value, gradients, path) -> bool:
    """``compile=True`` gives the NumPy path's value and gradient (to rounding), or takes the
    NumPy path; calls of Python floats, ints and arrays (in containers too) are tried
    (float64 arrays compile). ``gradients``: the NumPy path's, leaf by leaf. True if the
    call returned (``args`` is then as it left them)."""
    if not all(_compilable(a) for a in args) or importlib.util.find_spec("numba") is None:
        return False
    try:
        with warnings.catch_warnings(record=True) as fallbacks:
            warnings.simplefilter("always", s2sad.CompiledFallbackWarning)
            compiled_value, compiled = s2sad.value_and_grad(f, argnums=layout.positions, compile=True)(*args)
        said = [str(w.message) for w in fallbacks if issubclass(w.category, s2sad.CompiledFallbackWarning)]
        outcome.compiled_ran = not said
        if said:  # the reason, as a short key: the names it gives, or its first words
            reason = said[0].split("(the same numbers): ", 1)[-1]
            names = re.findall(r"`([^`]*)`", reason)
            missing = re.search(r"no implementation of (\w+\(.{0,60})", reason)  # Numba's: the overload to write
            outcome.compiled_fallback = missing.group(1) if missing else " ".join(names[:4]) if names else reason[:70]
    except S2SADError as error:
        _refusal(outcome, "compiled", error, path)
        return False
    except Exception as error:  # noqa: BLE001 - every exception is a finding
        _exception_failure(outcome, "compiled", error)
        return False
    outcome.compiled_checked = True
    compiled = layout.read(outcome, "compiled-structure", compiled)
    if compiled is None:
        return True
    if any(isinstance(leaf, np.ndarray) and leaf.dtype == np.float32
           for a in args for leaf in (trees.leaves(a) if trees.is_container(a) else (a,))):
        _check_compiled_float32(outcome, compiled_value, compiled, value, gradients)
        return True
    if not _close(compiled_value, value, EXACT_RTOL, 1e-12) or \
            not all(_close(c, g, 1e-10, 1e-12) for c, g in zip(compiled, gradients)):
        outcome.fail("compiled-mismatch", f"compile=True gives {compiled_value!r}, {list(compiled)!r}; the NumPy "
                                          f"path {value!r}, {list(gradients)!r}")
    return True


def _check_compiled_float32(outcome, compiled_value, compiled, value, gradients) -> None:
    """A float32 call: each value and gradient of the NumPy path's dtype, within
    FLOAT32_COMPILED_ULPS float32 ulps of its largest entry."""
    for name, c, g in [("value", compiled_value, value), *(("gradient", c, g) for c, g in zip(compiled, gradients))]:
        c_dtype, g_dtype = np.asarray(c).dtype, np.asarray(g).dtype
        if c_dtype != g_dtype:
            outcome.fail("compiled-mismatch", f"compile=True gives a {name} of dtype {c_dtype}; the NumPy path {g_dtype}")
            return
        scale = float(np.max(np.abs(np.asarray(g, dtype=np.float64)), initial=0.0))
        if not _close(c, g, 0.0, FLOAT32_COMPILED_ULPS * float(np.finfo(np.float32).eps) * scale):
            outcome.fail("compiled-mismatch", f"compile=True gives the {name} {c!r}; the NumPy path {g!r} (float32: "
                                              f"more than {FLOAT32_COMPILED_ULPS} ulps of its largest entry apart)")
            return


SECOND_RTOL, SECOND_ATOL = 1e-4, 1e-5   # hvp against nested finite differences (each ~1e-7 off)


def _check_second_order(outcome, f, args, wide, tangents, layout, judged: bool, u, flat_phi, path) -> bool:
    """``hvp`` of a scalar ``f`` along the tangents (times ``u``), against central differences
    along them of the finite-difference gradient of ``phi = u * f`` (both nested stencils run on
    the probed twin: a step that changes the path makes the program unjudged here, not failed).
    True if ``hvp`` returned (``args`` is then as it left them)."""
    positions = layout.positions
    if not judged or not positions:
        outcome.second_order = "not a scalar float64 or complex program"
        return False
    try:
        products = s2sad.hvp(f, args, tangents)
    except MissingRuleError as error:
        outcome.missing_forward.append(_missing_rule_name(error))
        outcome.second_order = "a forward rule is missing"
        return False
    except S2SADError as error:
        _refusal(outcome, "second", error, path)
        outcome.second_order = "refused"
        return False
    except Exception as error:  # noqa: BLE001 - every exception is a finding
        _exception_failure(outcome, "second", error)
        return False
    products = layout.read(outcome, "hvp-structure", products if len(positions) > 1 else (products,))
    if products is None:
        return True
    flat_wide, flat_tangents = layout.flat(wide), [widened(t) for t in layout.flat(tangents)]
    leaves = range(len(flat_wide))

    def gradient_along(moved):
        return np.concatenate([np.ravel(g) for g in numerical_gradients(flat_phi, moved, leaves)])

    def at(step):
        return [a + step * t for a, t in zip(flat_wide, flat_tangents)]

    try:
        expected = _stencil(gradient_along, at)
    except (PathChanged, NotConverged):
        outcome.second_order = "nested finite differences do not settle here"
        return True
    got = float(u) * np.concatenate([np.ravel(np.asarray(g)) for g in products])
    outcome.second_order = "checked"
    if got.shape != expected.shape or not _close(got, expected, SECOND_RTOL, SECOND_ATOL):
        outcome.fail("hvp-mismatch", f"hvp along v: s2sad {got.tolist()} != nested finite differences "
                                     f"{expected.tolist()}")
    return True
