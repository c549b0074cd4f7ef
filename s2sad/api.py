"""The public API: grad, value_and_grad, vjp, rrule and the @differentiate decorator.

Conventions follow JAX: ``argnums`` an int gives one gradient, a tuple gives a tuple;
``has_aux`` means the function returns ``(output, aux)`` and only ``output`` is
differentiated. Every cotangent handed to the user is projected onto its input's type,
shape and dtype, and released from the accumulator's ownership, so s2sad never writes
into an array the user holds.
"""
from __future__ import annotations

import functools
import inspect
import linecache
import os
import re
import weakref

import numpy as np

from .runtime.accumulate import release
from .runtime.finiteness import has_nan, refuse_nan
from .runtime.isolation import arrays_in, detached, unshared
from .errors import ArgumentError, MissingRuleError, S2SADError, SourceLocation
from .runtime.projection import check_differentiable, plainly_differentiable, project
from .registry import registry_generation, rule_for
from .frontend.resolve import mark_transform, transform_kind
from .frontend.resolve import signature as _signature_of, unwrap as _unwrap
from .runtime.tangents import NO_TANGENT, ZERO
from .transform import generated_rrule, generated_source
from .cache.validity import definition, same_definition

_BLOCK_COMMENT = re.compile(r"^\s*# (?P<file>[^:]+):(?P<line>\d+): (?P<text>.*)$")


# ---------------------------------------------------------------------- running generated code
_known_positions: dict = {}


def _positions(argnums, count: int, name: str) -> tuple[int, ...]:
    key = (argnums.__class__, argnums, count)  # 1.0 == 1, but is no argnums
    try:
        return _known_positions[key]
    except (KeyError, TypeError):
        pass
    positions = _checked_positions(argnums, count, name)
    try:
        _known_positions[key] = positions
    except TypeError:  # argnums given as a list: fine, just not remembered
        pass
    return positions


def _checked_positions(argnums, count: int, name: str) -> tuple[int, ...]:
    single = isinstance(argnums, (int, np.integer)) and not isinstance(argnums, bool)
    numbers = (argnums,) if single else argnums
    try:
        numbers = tuple(numbers)
    except TypeError:
        raise ArgumentError(f"argnums must be an int or a tuple of ints, not {argnums!r}") from None
    positions = []
    for number in numbers:
        if isinstance(number, bool) or not isinstance(number, (int, np.integer)):
            raise ArgumentError(f"argnums must be an int or a tuple of ints, not {argnums!r}")
        if not -count <= number < count:
            raise ArgumentError(
                f"argnums={argnums!r} is out of range: {name} was called with {count} positional argument(s)",
                hint=f"use argnums between 0 and {count - 1}, or pass the argument to differentiate positionally")
        positions.append(number % count)
    if len(set(positions)) != len(positions):
        raise ArgumentError(f"argnums={argnums!r} names an argument twice")
    return tuple(positions)


_signatures: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # function -> (definition, signature)


def _bind(function, args, kwargs, plan=None):
    known = _signatures.get(function)
    if known is not None and same_definition(function, known[0]):  # a signature holds the defaults of its time
        signature = known[1]
    else:
        try:
            signature = _signature_of(function)
        except (TypeError, ValueError):
            from .frontend.source import read_function

            read_function(function)  # raises the error that says why there is no source
            raise
        if inspect.isfunction(function):
            _signatures[function] = (definition(function), signature)
    parameters = signature.parameters
    if all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in parameters.values()):
        if plan is not None:
            plan.names = list(parameters)
        if not kwargs and len(args) == len(parameters):
            return list(parameters), args  # the common call: every parameter given in order
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as error:
        raise ArgumentError(f"cannot call {getattr(function, '__qualname__', function)}: {error}") from None
    bound.apply_defaults()
    return list(bound.arguments), list(bound.arguments.values())


def _is_library_function(function) -> bool:
    module = getattr(function, "__module__", "") or ""
    return inspect.isfunction(function) and module.split(".")[0] in ("numpy", "scipy")


class _Plan:
    """What a call of ``function`` needs besides its arguments, found once per registry state
    and definition of the function: its rule or, for each ``wrt``, its generated rrule (whose
    own dependencies are checked before each use: see validity.py)."""

    __slots__ = ("original", "rule", "generation", "definition", "library", "names", "rrules")

    def __init__(self, function):
        self.original = _unwrap(function)
        self.rule = rule_for(function) or rule_for(self.original)
        self.generation = registry_generation()
        self.definition = definition(self.original) if inspect.isfunction(self.original) else None
        self.library = _is_library_function(self.original)
        self.names = None    # the parameter names, when every call in order binds them (see _bind)
        self.rrules = {}     # positions differentiated -> (rrule, whether its pullback runs once)


_plans: dict = {}  # id(function) -> (function, plan); functions a user differentiates live long


def _plan(function) -> _Plan:
    entry = _plans.get(id(function))
    if entry is not None and entry[0] is function and entry[1].generation == registry_generation() and (
            entry[1].definition is None or same_definition(entry[1].original, entry[1].definition)):
        return entry[1]
    plan = _Plan(function)
    if len(_plans) > 4096:
        _plans.clear()
    _plans[id(function)] = (function, plan)
    return plan


def _run(function, args, kwargs, positions):
    """Run the primal of ``function``: (output, pullback, parameter names, values).

    A function with a registered rule (``np.sin``, a user's rule) is differentiated by that
    rule; any other function by the code s2sad generates for it.
    """
    plan = _plan(function)
    original, rule = plan.original, plan.rule
    if rule is not None:
        names = [f"argument {i}" for i in range(len(args))]
        for position in positions:
            check_differentiable(args[position], names[position])
        try:
            y, pullback = rule.rrule(*args, **kwargs)
        except BaseException as error:
            _point_at_user_source(error)
            raise
        return y, pullback, names, list(args)
    if plan.library:
        name = f"{getattr(original, '__module__', '')}.{getattr(original, '__qualname__', original)}"
        raise MissingRuleError(f"no rule for {name}: s2sad does not differentiate the source of library code",
                               hint="register a rule for it (s2sad.defvjp), or differentiate your own function that calls it")
    names = plan.names
    if names is not None and not kwargs and len(args) == len(names):
        values = args  # the common call: every parameter given in order
    else:
        names, values = _bind(original, args, kwargs, plan)
        if plan.names is None and _collects_arguments(original):
            return _run_collecting(original, args, kwargs, positions)
    for position in positions:
        check_differentiable(values[position], names[position])
    generated = plan.rrules.get(positions)
    if generated is None or not generated[0].__s2sad_current__(original):
        rrule = generated_rrule(original, tuple(names[p] for p in sorted(positions)))
        generated = plan.rrules[positions] = (rrule, bool(rrule.__globals__.get("PULLBACK_RUNS_ONCE")))
    rrule, runs_once = generated
    try:
        y, pullback = rrule(*values)
    except BaseException as error:
        _point_at_user_source(error)
        raise
    if runs_once:
        pullback = _repeatable(pullback, lambda: rrule(*values)[1])
    return y, pullback, names, values


def _collects_arguments(function) -> bool:
    """Whether ``function`` has ``*args`` or ``**kwargs``: argnums then count the call's
    arguments, not the function's parameters."""
    return any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in _signature_of(function).parameters.values())


def _run_collecting(original, args, kwargs, positions):
    """``_run`` for a function with ``*args``/``**kwargs`` (a decorator's forwarding wrapper):
    differentiated as a call is, so each positional argument gets its own cotangent."""
    from .transform import TransformedCall, generated_rrule

    names = [f"argument {i}" for i in range(len(args))]
    for position in positions:
        check_differentiable(args[position], names[position])
    call = TransformedCall(original, positions, ())
    try:
        y, pullback = call(*args, **kwargs)
    except BaseException as error:
        _point_at_user_source(error)
        raise
    if generated_rrule(original, call.wrt).__globals__.get("PULLBACK_RUNS_ONCE"):
        pullback = _repeatable(pullback, lambda: call(*args, **kwargs)[1])
    return y, pullback, names, list(args)


def _repeatable(pullback, fresh):
    """A pullback callers may run more than once (``vjp``'s, for several cotangents).

    Code generated for a function that changes arrays or lists in place undoes the changes
    as its pullback runs, so that pullback runs once; each further call gets a fresh one,
    from running the primal again.
    """
    used = []

    def repeatable_pullback(cotangent):
        if used:
            return fresh()(cotangent)
        used.append(True)
        return pullback(cotangent)

    return repeatable_pullback


def _pull(pullback, cotangent):
    try:
        return pullback(cotangent)
    except BaseException as error:
        _point_at_user_source(error)
        raise


def _hand_over(primal, cotangent):
    """The cotangent the user receives: projected onto the primal, owned by nobody."""
    if primal.__class__ is float and cotangent.__class__ is float:
        return cotangent
    result = project(primal, cotangent)
    release(result)
    return result


def _point_at_user_source(error) -> None:
    """Annotate an exception raised inside generated code with the user's source line.

    Called from ``except`` clauses rather than a context manager: ``try`` costs nothing
    when no exception is raised, and the common call is cheap enough for that to count."""
    location = _user_location(error.__traceback__)
    if location is None:
        return
    if isinstance(error, S2SADError):
        if error.location is None:
            error.location = location
            error.args = (error.render(),)
    elif hasattr(error, "add_note"):
        error.add_note(f"s2sad: raised by the code generated for {location}: {location.text.strip()}")


class _pointing_at_user_source:
    """The same, as a context manager, for callers outside the hot path."""

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if error is not None:
            _point_at_user_source(error)
        return False


_POINTING = _pointing_at_user_source()  # stateless: one serves every call


def _user_location(traceback) -> SourceLocation | None:
    found = None
    while traceback is not None:
        frame = traceback.tb_frame
        filename = frame.f_code.co_filename
        if "s2sad_" in filename or filename.startswith("<s2sad generated"):
            found = (filename, traceback.tb_lineno, frame.f_globals.get("__s2sad_source_file__"))
        traceback = traceback.tb_next
    if found is None:
        return None
    filename, line, source_file = found
    lines = linecache.getlines(filename)
    for index in range(min(line, len(lines)) - 1, -1, -1):
        match = _BLOCK_COMMENT.match(lines[index])
        if match:
            user_file, user_line = match["file"], int(match["line"])
            if source_file and os.path.basename(source_file) == os.path.basename(user_file):
                user_file = source_file
            line_text = linecache.getline(user_file, user_line).rstrip("\n")
            if not line_text.strip():  # the file is not readable here: the comment's copy of the line
                return SourceLocation(user_file, user_line, 1, match["text"])
            return SourceLocation(user_file, user_line, len(line_text) - len(line_text.lstrip()) + 1, line_text)
    return None


def _seed_for(output, name: str):
    kind = output.__class__
    if kind is float:
        return 1.0
    if kind is np.float64:  # np.sum's result, the common case: a Python float seeds it at the same precision,
        return 1.0          # and rules compute faster with it than with a NumPy scalar
    if kind is np.float32:
        return kind(1.0)
    from .runtime.projection import is_duck_array

    if is_duck_array(output):  # a lazy scalar (Dask): its seed is a plain one
        if output.ndim != 0:
            raise ArgumentError(f"grad of {name} needs a scalar output, but it returned an array of shape {output.shape}",
                                hint="reduce it to a scalar (np.sum, np.mean)")
        return np.ones((), dtype=output.dtype if output.dtype.kind in "fc" else np.float64)
    if isinstance(output, (bool, np.bool_)) or not isinstance(output, (int, float, complex, np.number, np.ndarray)):
        raise ArgumentError(
            f"grad of {name} needs a scalar float output, but it returned {type(output).__name__}",
            hint="use s2sad.vjp(f, *args) for non-scalar outputs, or has_aux=True to return extra values")
    if np.ndim(output) != 0:
        raise ArgumentError(
            f"grad of {name} needs a scalar output, but it returned an array of shape {np.shape(output)}",
            hint="reduce it to a scalar (np.sum, np.mean), or use s2sad.vjp(f, *args) / s2sad.jacobian for a non-scalar output")
    if isinstance(output, np.ndarray):
        return np.ones((), dtype=output.dtype if output.dtype.kind in "fc" else np.float64)
    if isinstance(output, np.number):
        return type(output)(1) if output.dtype.kind in "fc" else 1.0
    return 1.0


def _split_aux(output, has_aux: bool, name: str):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise ArgumentError(f"{name} was differentiated with has_aux=True, so it must return a pair (output, aux)")
    return output[0], output[1]


# ---------------------------------------------------------------------- public functions
def value_and_grad(f, argnums=0, has_aux: bool = False):
    """``f`` -> a function returning ``(f(*args), gradient)`` (``((out, aux), gradient)`` with has_aux)."""
    return _differentiated(f, argnums, has_aux, with_value=True)


def _differentiated(f, argnums, has_aux: bool, with_value: bool):
    """The function ``value_and_grad`` (``with_value``) or ``grad`` returns: one closure, no
    wrapper around another, since a scalar gradient costs a few microseconds in all."""
    name = getattr(f, "__qualname__", repr(f))
    single = isinstance(argnums, (int, np.integer))
    # number of arguments -> (registry generation, rrule, positions, fused gradient, function, the check that
    # the rrule is current for it): see _lane
    lanes = {}

    @functools.wraps(_unwrap(f))
    def differentiated_f(*args, **kwargs):
        lane = None if kwargs else lanes.get(len(args))
        done = None
        if lane is not None and lane[0] == registry_generation() and lane[5](lane[4]) and _plain(args, lane[2]):
            rrule, positions, fused = lane[1], lane[2], lane[3]
            try:
                done = fused(*args) if fused is not None else None  # value and cotangents, or None
                if done is None:
                    y, pullback = rrule(*args)
            except BaseException as error:
                _point_at_user_source(error)
                raise
            values = args
        else:
            positions = _positions(argnums, len(args), name)
            y, pullback, names, values = _run(f, args, kwargs, positions)
            if not kwargs:
                rrule = _lane(f, len(args), positions)
                if rrule is not None:
                    fused = None if has_aux else rrule.__globals__.get("GRADIENT_FOR_FLOATS")
                    lanes[len(args)] = (registry_generation(), rrule, positions, fused, _unwrap(f),
                                        rrule.__s2sad_current__)
        if done is not None:
            output, cotangents = done
            aux = None
        else:
            output, aux = _split_aux(y, has_aux, name) if has_aux else (y, None)
            seed = _seed_for(output, name)
            cotangents = _pull(pullback, (seed, ZERO) if has_aux else seed)
        if single:
            position = positions[0]
            gradient = _hand_over(values[position], cotangents[1 + position])
            if gradient.__class__ is not float:  # a rule may pull back an input itself: never hand that over
                gradient = unshared(gradient, arrays_in(values))
        else:
            held = arrays_in(values)
            gradients = []  # a loop, not a comprehension: cheaper for the two or three arguments of a call
            for position in positions:
                gradients.append(unshared(_hand_over(values[position], cotangents[1 + position]), held))
            gradient = tuple(gradients)
        if (gradient != gradient) if gradient.__class__ is float else has_nan(gradient):
            refuse_nan(gradient, output, (), _unwrap(f))
        if with_value:
            return ((output, aux) if has_aux else output), gradient
        return (gradient, aux) if has_aux else gradient

    return mark_transform(differentiated_f, "value_and_grad" if with_value else "grad")


def _lane(function, count: int, positions):
    """The generated rrule that calls of ``function`` with ``count`` positional arguments can
    go straight to, or None: when it has no rule of its own, its arguments bind in order,
    and its pullback may run more than once. ``value_and_grad`` keeps it for such calls
    whose differentiated arguments are plain (``_plain``); the first call took the long
    way, which checked everything else."""
    plan = _plan(function)
    if plan.rule is not None or plan.names is None or len(plan.names) != count:
        return None
    generated = plan.rrules.get(positions)
    if generated is None or generated[1]:
        return None
    return generated[0]


def _plain(args, positions) -> bool:
    """Whether the differentiated arguments pass ``check_differentiable`` at a glance."""
    for position in positions:
        if not plainly_differentiable(args[position]):
            return False
    return True


def grad(f, argnums=0, has_aux: bool = False):
    """``f`` -> a function returning the gradient of ``f`` (and ``aux`` with has_aux).

    ``grad(grad(f))`` (a scalar argument) is the second derivative, and so on: see
    s2sad.jacobians.derivative.
    """
    inner = getattr(f, "__s2sad_derivative__", None) if transform_kind(f) == "grad" else None
    if inner is not None and not has_aux and argnums == inner[2]:
        from .jacobians import derivative

        return derivative(inner[0], inner[1] + 1, inner[2])
    grad_f = _differentiated(f, argnums, has_aux, with_value=False)
    if isinstance(argnums, (int, np.integer)) and not has_aux:
        grad_f.__s2sad_derivative__ = (_unwrap(f), 1, int(argnums))
    return grad_f


def vjp(f, *primals, has_aux: bool = False):
    """``(f(*primals), pullback)`` where ``pullback(ct)`` returns one cotangent per primal."""
    positions = tuple(i for i, value in enumerate(primals) if _is_float_like(value))
    # The pullback outlives this call: it reads copies of the caller's arrays, and the
    # caller gets copies of the values it reads (see s2sad.runtime.isolation).
    y, pullback, names, values = _run(f, detached(primals), {}, positions)
    output, aux = _split_aux(y, has_aux, getattr(f, "__qualname__", repr(f)))
    output, aux = detached(output), detached(aux)

    def vjp_pullback(cotangent):
        cotangents = _pull(pullback, (cotangent, ZERO) if has_aux else cotangent)
        gradients = tuple(_hand_over(values[i], cotangents[1 + i]) if i in positions else NO_TANGENT
                          for i in range(len(primals)))
        if has_nan(gradients):
            refuse_nan(gradients, output, cotangent, f)
        return _unshared_from(gradients, cotangent, primals, values)

    return (output, vjp_pullback, aux) if has_aux else (output, vjp_pullback)


def rrule(f, *args, **kwargs):
    """ChainRules form: ``(y, pullback)`` with ``pullback(dy) -> (dself, *dargs)``.

    Uses the registered rule of ``f`` when it has one, else the code s2sad generates.
    """
    given = args
    args, kwargs = detached(args), detached(kwargs)  # as in vjp: the pullback outlives the call
    rule = rule_for(f)
    if rule is not None:
        y, pullback = rule.rrule(*args, **kwargs)

        def rule_pullback(dy):
            held = arrays_in(dy, arrays_in(given, arrays_in(args)))
            return unshared(pullback(dy), held)

        return detached(y), rule_pullback
    positions = tuple(i for i, value in enumerate(args) if _is_float_like(value))
    y, pullback, names, values = _run(f, args, kwargs, positions)

    def rrule_pullback(dy):
        cotangents = _pull(pullback, dy)
        gradients = tuple(_hand_over(values[i], cotangents[1 + i]) if i in positions else NO_TANGENT
                          for i in range(len(args)))
        if has_nan(gradients):
            refuse_nan(gradients, y, dy, f)
        return (NO_TANGENT,) + _unshared_from(gradients, dy, given, values)

    return detached(y), rrule_pullback


def _unshared_from(gradients: tuple, cotangent, given, values) -> tuple:
    """The gradients, none sharing memory with the caller's cotangent, the caller's arrays,
    the pullback's own copies of them, or each other (floats share nothing: no look)."""
    for gradient in gradients:
        if gradient.__class__ is not float and gradient is not NO_TANGENT:
            return unshared(gradients, arrays_in(cotangent, arrays_in(given, arrays_in(values))))
    return gradients


def _is_float_like(value) -> bool:
    try:
        check_differentiable(value, "value")
        return True
    except ArgumentError:
        return False


# ---------------------------------------------------------------------- the decorator
class Differentiated:
    """A function marked with ``@differentiate``: calls behave exactly like the original."""

    def __init__(self, function, argnums=0):
        self.__s2sad_original__ = function
        self.argnums = argnums
        self._value_and_grad = None
        functools.update_wrapper(self, function)

    def __call__(self, *args, **kwargs):
        return self.__s2sad_original__(*args, **kwargs)

    def __get__(self, instance, owner):
        return self if instance is None else functools.partial(self, instance)

    def grad(self, *args, **kwargs):
        value, gradient = self.value_and_grad(*args, **kwargs)
        return gradient

    def value_and_grad(self, *args, **kwargs):
        if self._value_and_grad is None:
            self._value_and_grad = value_and_grad(self.__s2sad_original__, self.argnums)
        return self._value_and_grad(*args, **kwargs)

    def vjp(self, *args):
        return vjp(self.__s2sad_original__, *args)

    def rrule(self, *args, **kwargs):
        return rrule(self.__s2sad_original__, *args, **kwargs)

    def jvp(self, primals, tangents):
        from .jacobians import jvp

        return jvp(self.__s2sad_original__, primals, tangents)

    @property
    def wrt(self) -> tuple[str, ...]:
        names = list(_signature_of(self.__s2sad_original__).parameters)
        numbers = (self.argnums,) if isinstance(self.argnums, int) else tuple(self.argnums)
        return tuple(names[n] for n in sorted(n % len(names) for n in numbers))

    @property
    def source(self) -> str:
        """The generated primal-plus-pullback code for the default ``argnums`` (renders
        highlighted in Jupyter)."""
        from .display import GeneratedCode

        return GeneratedCode(generated_source(self.__s2sad_original__, self.wrt))

    def _repr_html_(self) -> str:
        return self.source._repr_html_()

    def show(self, file=None, mode: str = "reverse") -> None:
        """Print the generated code (highlighted on a terminal; HTML in Jupyter)."""
        from .display import present

        present(generated_source(self.__s2sad_original__, self.wrt, mode), file)

    def __repr__(self):
        return f"<s2sad.differentiate {self.__s2sad_original__.__qualname__} argnums={self.argnums}>"


def differentiate(function=None, *, argnums=0):
    """Mark a function for differentiation: ``@differentiate`` or ``@differentiate(argnums=(0, 1))``."""
    if function is None:
        return lambda f: Differentiated(f, argnums)
    return Differentiated(function, argnums)


def show(function, argnums=0, mode: str = "reverse", file=None, unoptimized: bool = False) -> None:
    """Print the code s2sad generates for ``function`` (``mode="forward"``: its pushforward).

    ``unoptimized=True`` prints first the plain translation (every value differentiated, every
    rule called rather than inlined), then the code s2sad runs, to read one next to the other.
    """
    from .display import present

    if isinstance(function, Differentiated):
        argnums, function = function.argnums, function.__s2sad_original__
    names = list(_signature_of(_unwrap(function)).parameters)
    numbers = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    wrt = tuple(names[n] for n in sorted(numbers))
    if unoptimized and mode == "reverse":
        from .transform import transform

        present("# ---- before optimisation: every value differentiated, every rule called as a function\n"
                + transform(_unwrap(function), wrt, mode, optimize=False).source, file)
        present("# ---- after optimisation: the code s2sad runs\n", file)
    present(generated_source(function, wrt, mode), file)
