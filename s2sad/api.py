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
import os
from typing import Any, Callable, Sequence, Union

import numpy as np

from .rules.helpers import write_back
from .runtime import blocks
from .runtime.calls import held_call
from .runtime.finiteness import has_nan, refuse_nan
from .runtime.isolation import arrays_in, detached, unshared, unshared_from
from .errors import MissingRuleError
from .runtime.projection import check_differentiable
from .registry import registry_generation, rule_for
from .frontend.resolve import is_library, transform_kind
from .frontend.resolve import unwrap as _unwrap
from .runtime.tangents import NO_TANGENT, ZERO
from .transform import generated_rrule, transformed_call
from .transformed import repeatable
from .lanes import array_lane, entry, float_lane, warm_up
from .higher import derivative
from .arguments import bind_arguments, collects_arguments, differentiated_positions, hand_over, hand_to_rule, seed_for, split_aux
from .runtime.projection import is_float_like
from .cache.validity import definition, same_definition
from .compositions import composable, uses_gradient
from .containers import as_tangent
from .holomorphic import check_complex_inputs, conjugated
from .tracebacks import point_at_user_source


Argnums = Union[int, Sequence[int]]  # an int gives one gradient, a tuple a tuple
_ndarray, _float64 = np.ndarray, np.float64


def _is_library_function(function) -> bool:
    return inspect.isfunction(function) and is_library(function)


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
        self.names = None    # the parameter names, when every call in order binds them (see bind_arguments)
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


def _run(function, args, kwargs, positions, typed=False):
    """Run the primal of ``function``: (output, pullback, parameter names, values).

    A function with a registered rule (``np.sin``, a user's rule) is differentiated by that
    rule; any other function by the code s2sad generates for it (``typed``: by its version
    typed for these arguments, where there is one: ``grad`` and ``value_and_grad``, whose
    pullback is seeded with 1.0). A bound method or a ``functools.partial`` is its function
    called with the arguments it holds first, which are not differentiated.
    """
    held = held_call(function)
    if held is not None:
        target, held_args, held_keywords = held
        count = len(held_args)
        y, pullback, names, values = _run(target, tuple(held_args) + tuple(args), {**held_keywords, **kwargs},
                                          tuple(position + count for position in positions), typed)

        def held_pullback(cotangent):
            cotangents = pullback(cotangent)
            return (cotangents[0],) + tuple(cotangents[1 + count:])

        return y, held_pullback, names[count:], list(values[count:])
    plan = _plan(function)
    original, rule = plan.original, plan.rule
    if rule is not None:
        names = [f"argument {i}" for i in range(len(args))]
        for position in positions:
            check_differentiable(args[position], names[position])
        try:
            y, pullback = rule.rrule(*args, **kwargs)
        except BaseException as error:
            point_at_user_source(error)
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
        names, values = bind_arguments(original, args, kwargs, plan)
        if plan.names is None and collects_arguments(original):
            return _run_collecting(original, args, kwargs, positions)
    for position in positions:
        check_differentiable(values[position], names[position])
    generated = plan.rrules.get(positions)
    if generated is None or not generated[0].__s2sad_current__(original):
        rrule = generated_rrule(original, tuple(names[p] for p in sorted(positions)))
        generated = plan.rrules[positions] = (rrule, bool(rrule.__globals__.get("PULLBACK_RUNS_ONCE")))
    rrule, runs_once = generated
    if rrule.__globals__.get("ELEMENTWISE_SUM"):  # np.sum of an elementwise expression: large arrays in blocks
        try:
            done = blocks.in_blocks(rrule, values)
        except BaseException as error:
            point_at_user_source(error)
            raise
        if done is not None:
            return done[0], _seeded(done[1]), names, values
    if typed and not runs_once and rrule.__globals__.get("GRADIENT_FOR_FLOATS") is None:
        typed_rrule = _typed(original, values, tuple(names[p] for p in sorted(positions)))
        if typed_rrule is not None:
            try:
                made = typed_rrule(*values)
            except BaseException as error:
                point_at_user_source(error)
                raise
            if made is not None:
                return made[0], made[1], names, values
    # a function that changes an argument in place leaves the change in it: a rerun starts from the values given
    given = detached(values) if runs_once and rrule.__globals__.get("WRITES_BACK_ARGUMENTS") else values
    try:
        y, pullback = rrule(*values)
    except BaseException as error:
        point_at_user_source(error)
        raise
    if runs_once:
        pullback = repeatable(pullback, lambda: rrule(*(detached(given) if given is not values else values))[1])
    return y, pullback, names, values


def _seeded(cotangents):
    """The pullback of a scalar function whose cotangents for the seed 1.0 are known: linear in the seed."""
    def blocked_pullback(seed):
        if seed.__class__ in (float, _float64) and seed == 1.0:
            return cotangents
        return tuple(c if c is NO_TANGENT or c is ZERO else c * seed for c in cotangents)
    return blocked_pullback


def _run_collecting(original, args, kwargs, positions):
    """``_run`` for a function with ``*args``/``**kwargs`` (a decorator's forwarding wrapper):
    differentiated as a call is, so each positional argument gets its own cotangent."""
    names = [f"argument {i}" for i in range(len(args))]
    for position in positions:
        check_differentiable(args[position], names[position])
    call = transformed_call(original, positions, ())
    try:
        y, pullback = call(*args, **kwargs)
    except BaseException as error:
        point_at_user_source(error)
        raise
    if generated_rrule(original, call.wrt).__globals__.get("PULLBACK_RUNS_ONCE"):
        pullback = repeatable(pullback, lambda: call(*args, **kwargs)[1])
    return y, pullback, names, list(args)


def _pull(pullback, cotangent):
    try:
        return pullback(cotangent)
    except BaseException as error:
        point_at_user_source(error)
        raise


# ---------------------------------------------------------------------- public functions
def value_and_grad(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False,
                   holomorphic: bool = False, compile: bool = False) -> Callable[..., tuple[Any, Any]]:
    """``f`` -> a function returning ``(f(*args), gradient)`` (``((out, aux), gradient)`` with has_aux).

    The arguments are ``grad``'s; the value costs nothing extra, since the gradient runs ``f``.

    >>> import numpy as np, s2sad
    >>> def loss(w, x):
    ...     return np.sum((x @ w) ** 2)
    >>> value, dw = s2sad.value_and_grad(loss)(np.array([1.0, 2.0]), np.eye(2))
    >>> value, dw                                       # |w|**2 and 2 w
    (np.float64(5.0), array([2., 4.]))
    """
    return _differentiated(f, argnums, has_aux, with_value=True, holomorphic=holomorphic, compile=compile)


def _differentiated(f, argnums, has_aux: bool, with_value: bool, holomorphic: bool = False, compile: bool = False):
    """The function ``value_and_grad`` (``with_value``) or ``grad`` returns: one closure, no
    wrapper around another, since a scalar gradient costs a few microseconds in all.
    ``holomorphic``: complex inputs and output, and the conjugate of the pullback of 1 (holomorphic.py)."""
    name = getattr(f, "__qualname__", repr(f))
    transform = "value_and_grad" if with_value else "grad"
    single = isinstance(argnums, (int, np.integer))
    # number of arguments -> (registry generation, rrule, positions, fused gradient, function, the check that
    # the rrule is current for it, the lane written out or None): see _lane and lanes.py
    lanes = {}
    written_lanes = {}  # number of arguments -> the lane written out (lanes[count][6]) where there is one

    def called(args, kwargs):
        """A call the lane written out did not serve: the general lane, or the long way."""
        lane = None if kwargs else lanes.get(len(args))
        if lane is not None and not (lane[0] == registry_generation() and lane[5](lane[4])):
            lane = None  # made under another registry, or for a definition no longer current: the long way
        if lane is not None:
            positions = lane[2]
            if single:  # _plain, written out: a call's microsecond is mostly this function's own work
                value = args[positions[0]]
                kind = value.__class__
                plain = kind is float or (kind is _ndarray and value.dtype.kind in "fc")
            else:
                plain = _plain(args, positions)
            if not plain:
                lane = None  # the long way checks them, and says what is wrong
            elif lane[3] is not None:  # the gradient for floats, or typed (never with has_aux or holomorphic)
                try:
                    done = lane[3](*args)  # value and cotangents when the arguments are numbers, else None
                except BaseException as error:
                    point_at_user_source(error)
                    raise
                if done is not None:
                    output, cotangents = done
                    # a float's cotangent, a float, is handed over as it is (hand_over's and unshared's answer)
                    if single:
                        gradient = cotangents[1 + positions[0]]
                        floats = kind is float and gradient.__class__ is float
                        nan = floats and gradient != gradient
                    else:
                        gradients = []
                        nan = False
                        for position in positions:
                            gradient = cotangents[1 + position]
                            if gradient.__class__ is not float or args[position].__class__ is not float:
                                break
                            nan = nan or gradient != gradient
                            gradients.append(gradient)
                        floats = len(gradients) == len(positions)
                        gradient = tuple(gradients)
                    if floats:
                        if nan:
                            refuse_nan(gradient, output, (), _unwrap(f))
                        return (output, gradient) if with_value else gradient
                    return _handed_back(output, None, cotangents, args, positions)
        if lane is not None:
            positions = lane[2]
            if holomorphic:
                check_complex_inputs([args[p] for p in positions], transform, name)
            try:
                y, pullback = lane[1](*args)
            except BaseException as error:
                point_at_user_source(error)
                raise
            values = args
        else:
            positions = differentiated_positions(argnums, len(args), name)
            if holomorphic:
                check_complex_inputs([args[p] for p in positions], transform, name)
            y, pullback, names, values = _run(f, args, kwargs, positions, typed=not (has_aux or holomorphic))
            if not kwargs:
                rrule = _lane(f, len(args), positions)
                if rrule is not None:
                    fused = None if has_aux or holomorphic else rrule.__globals__.get("GRADIENT_FOR_FLOATS")
                    written = None  # the lane written out for these calls (lanes.py), if any
                    current = (rrule.__s2sad_current__, _unwrap(f), registry_generation, registry_generation())
                    if positions and fused is not None:
                        written = float_lane(fused, len(args), positions, with_value, single, _refuse, _handed_back,
                                             current)
                    if fused is None and not (has_aux or holomorphic) and rrule.__globals__.get("ELEMENTWISE_SUM"):
                        fused = blocks.blockwise(rrule)  # large arrays block by block (runtime/blocks.py)
                    if not (has_aux or holomorphic) and (fused is None or rrule.__globals__.get("ELEMENTWISE_SUM")):
                        typed = _typed(f, args, tuple(names[p] for p in sorted(positions)))
                        if typed is not None:  # its arguments' types first (then blocks, for the arguments it refuses)
                            otherwise = fused
                            fused = _typed_gradient(typed, otherwise, name, transform)
                            if single:
                                written = array_lane(typed, otherwise, _seed, len(args), positions[0], with_value,
                                                     _refuse, _handed_back, current)
                    lanes[len(args)] = (registry_generation(), rrule, positions, fused, _unwrap(f),
                                        rrule.__s2sad_current__, written)
                    if written is not None:
                        written_lanes[len(args)] = written
                        warm_up(entry_f, written)  # a float lane's test and body in grad's function itself, once
                    else:
                        written_lanes.pop(len(args), None)
        output, aux = split_aux(y, has_aux, name) if has_aux else (y, None)
        kind = output.__class__
        # seed_for's answer for the common outputs, without the call
        seed = 1.0 if (kind is _float64 or kind is float) and not holomorphic else \
            seed_for(output, name, holomorphic, transform)
        try:
            cotangents = pullback((seed, ZERO) if has_aux else seed)
        except BaseException as error:
            point_at_user_source(error)
            raise
        return _handed_back(output, aux, cotangents, values, positions)

    def _refuse(gradient, output):
        refuse_nan(gradient, output, (), _unwrap(f))

    def _seed(output):
        return seed_for(output, name, False, transform)

    def _handed_back(output, aux, cotangents, values, positions):
        """What the call returns, from the pullback's ``cotangents`` of ``values``."""
        if single:
            position = positions[0]
            gradient = hand_over(values[position], cotangents[1 + position])
            kind = gradient.__class__
            if kind is _ndarray:  # a rule may pull back an input itself: never hand that over
                gradient = unshared_from(gradient, values)
            elif kind is not float:
                gradient = unshared(gradient, arrays_in(values))
        else:
            held = arrays_in(values)
            gradients = []  # a loop, not a comprehension: cheaper for the two or three arguments of a call
            for position in positions:
                gradients.append(unshared(hand_over(values[position], cotangents[1 + position]), held))
            gradient = tuple(gradients)
        if (gradient != gradient) if gradient.__class__ is float else has_nan(gradient):
            refuse_nan(gradient, output, (), _unwrap(f))
        if holomorphic:
            gradient = conjugated(gradient)  # f'(z) from s2sad's conj(f'(z)): JAX's answer
        if with_value:
            return ((output, aux) if has_aux else output), gradient
        return (gradient, aux) if has_aux else gradient

    # the function returned: the lane written out for the call's number of arguments (which checks that it is
    # current), else `called`; a frame of its own, small, with no cells (lanes.entry), whose code becomes a float
    # lane's once one is made (lanes.warm_up)
    entry_f = functools.wraps(_unwrap(f))(entry(written_lanes, called, point_at_user_source))
    differentiated_f = entry_f
    if compile and not (has_aux or holomorphic):  # Numba for calls of Python floats (compiled.py)
        from .compiled import compiled_first
        differentiated_f = compiled_first(differentiated_f, f, argnums, with_value)
    # a holomorphic derivative is not differentiated again (as with has_aux): the compositions'
    # rules compute real derivatives, and would miss its conjugation
    if with_value:
        return composable(differentiated_f, "value_and_grad", value_and_grad, f, argnums, has_aux or holomorphic)
    return composable(differentiated_f, "grad", grad, f, argnums, has_aux or holomorphic)


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


def _typed(function, args, wrt):
    """The rrule of ``function`` differentiated with respect to the parameters ``wrt``,
    specialised to the types of ``args`` (codegen/reverse.generate_typed: float64 arrays by
    their numbers of dimensions and equal lengths, Python floats and ints), or None when they
    are of other types or the function has no such version. It returns None for calls of other types."""
    from .analysis.array_types import ARRAY, signature_of  # (the analysis, not the front end: no libcst)
    from .transform import generated_typed

    if os.environ.get("S2SAD_TYPED_VERSIONS", "1") == "0":  # the general rrule for every call
        return None
    signature = signature_of(args)
    if signature is None or not any(kind[0] == ARRAY for kind in signature):
        return None
    return generated_typed(_unwrap(function), wrt, signature)


def _typed_gradient(typed, otherwise, name: str, transform: str):
    """The lane's gradient through the typed rrule ``typed``: ``(value, cotangents)`` of its pullback
    seeded with 1 for the arguments it serves; for the others, ``otherwise``'s answer (the blocks,
    or None: the general rrule). (Primal and pullback in one function, as for floats, saved 3% of
    a 10-element gradient and cost a 256x64 MLP 16%: every intermediate array lives to the end.)"""
    def typed_gradient(*args):
        made = typed(*args)
        if made is None:
            return otherwise(*args) if otherwise is not None else None
        output, pullback = made
        kind = output.__class__
        return output, pullback(1.0 if kind is _float64 or kind is float else seed_for(output, name, False, transform))
    return typed_gradient


def _plain(args, positions) -> bool:
    """Whether the differentiated arguments pass ``check_differentiable`` at a glance
    (``plainly_differentiable``, written out: this runs on every call)."""
    for position in positions:
        value = args[position]
        kind = value.__class__
        if kind is not float and not (kind is _ndarray and value.dtype.kind in "fc"):
            return False
    return True


def grad(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False,
         holomorphic: bool = False, compile: bool = False) -> Callable[..., Any]:
    """``f`` -> a function returning the gradient of ``f`` (and ``aux`` with has_aux), as JAX's ``grad``.

    ``f`` returns a real scalar. ``argnums``: an int gives one gradient, shaped like that
    argument (a dict for a dict, ...); a tuple gives a tuple. ``has_aux``: ``f`` returns
    ``(output, aux)``, and the call returns ``(gradient, aux)``. ``grad(grad(f))`` (a scalar
    argument) is the second derivative, and so on (s2sad.higher.derivative).

    Complex numbers: the gradient of a real ``f`` with respect to ``z = x + 1j y`` is
    ``df/dx + 1j df/dy`` (PyTorch's convention, the conjugate of JAX's). A complex output
    raises ``TypeError`` (``s2sad.ComplexDtypeError``), as in JAX, unless ``holomorphic=True``:
    then the inputs must be complex and the result is the complex derivative ``f'(z)``.
    Whether ``f`` is holomorphic is not checked (nor is it in JAX); for any other ``f`` that
    result is ``d Re f/dx - 1j d Re f/dy``, JAX's number, which is no derivative of ``f``.

    ``compile=True``: calls with Python floats run a gradient Numba compiled (``pip install
    's2sad[jit]'``; loops and branches included, the machine code cached on disk); any other
    call, or a function it cannot compile, runs the NumPy path with the same numbers and one
    ``s2sad.CompiledFallbackWarning`` saying why (s2sad/compiled.py).

    >>> import numpy as np, s2sad
    >>> def f(x, y):
    ...     return np.sum(np.sin(x) * y)
    >>> s2sad.grad(f)(np.zeros(2), np.array([2.0, 3.0]))       # cos(x) * y
    array([2., 3.])
    >>> s2sad.grad(f, argnums=(0, 1))(np.zeros(2), np.ones(2))
    (array([1., 1.]), array([0., 0.]))
    >>> def cube(z):
    ...     return z ** 3
    >>> s2sad.grad(cube, holomorphic=True)(1 + 1j)             # f'(z) = 3 z**2
    6j
    """
    if holomorphic:  # no shortcut to forward mode: its derivative is the conjugate of the pullback's
        grad_f = _differentiated(f, argnums, has_aux, with_value=False, holomorphic=True)
        grad_f.__s2sad_derivative__ = None
        return grad_f
    inner = getattr(f, "__s2sad_derivative__", None) if transform_kind(f) == "grad" else None
    if inner is not None and not has_aux and argnums == inner[2] and not compile:
        return derivative(inner[0], inner[1] + 1, inner[2], (grad, f, _differentiated(f, argnums, False, with_value=False)))
    grad_f = _differentiated(f, argnums, has_aux, with_value=False, compile=compile)
    # always set: functools.wraps copied the mark of what f was made from, if it has one; a
    # transform's function is differentiated again through its rule (s2sad.compositions), not its source
    grad_f.__s2sad_derivative__ = (_unwrap(f), 1, int(argnums)) if isinstance(argnums, (int, np.integer)) \
        and not has_aux and transform_kind(f) is None else None
    return grad_f


uses_gradient(grad)  # s2sad.hvp called in a differentiated function is differentiated through grad's rule


def vjp(f: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(f(*primals), pullback)`` where ``pullback(ct)`` returns one cotangent per primal, as JAX's ``vjp``.

    ``ct`` has the output's shape (any output: an array, a container); each cotangent has its
    primal's (an int primal gets ``s2sad.NO_TANGENT``). With ``has_aux``, ``f`` returns
    ``(output, aux)`` and so does this: ``(output, pullback, aux)``. The pullback may be
    called more than once.

    >>> import numpy as np, s2sad
    >>> def f(x, y):
    ...     return x * y
    >>> y, pullback = s2sad.vjp(f, np.array([1.0, 2.0]), 3.0)
    >>> y
    array([3., 6.])
    >>> pullback(np.array([1.0, 1.0]))                  # (ct * y, sum(ct * x))
    (array([3., 3.]), 3.0)
    """
    positions = tuple(i for i, value in enumerate(primals) if is_float_like(value))
    # The pullback outlives this call: it reads copies of the caller's arrays, and the
    # caller gets copies of the values it reads (see s2sad.runtime.isolation).
    y, pullback, names, values = _run(f, detached(primals), {}, positions)
    _write_back(f, positions, names, primals, values)
    output, aux = split_aux(y, has_aux, getattr(f, "__qualname__", repr(f)))
    output, aux = detached(output), detached(aux)

    def vjp_pullback(cotangent):
        given = as_tangent(output, cotangent)  # a dict for a dict output, as the gradients come back
        cotangents = _pull(pullback, (given, ZERO) if has_aux else given)
        gradients = tuple(hand_over(values[i], cotangents[1 + i]) if i in positions else NO_TANGENT
                          for i in range(len(primals)))
        if has_nan(gradients):
            refuse_nan(gradients, output, cotangent, f)
        return _unshared_from(gradients, cotangent, primals, values)

    return (output, vjp_pullback, aux) if has_aux else (output, vjp_pullback)


def _write_back(function, positions, names, given, values) -> None:
    """Leave in the caller's arguments the changes ``function`` made in place to the copies
    ``vjp`` ran it on, as a plain call would have."""
    if held_call(function) is not None:
        return
    generated = _plan(function).rrules.get(positions)
    written = generated[0].__globals__.get("WRITES_BACK_ARGUMENTS", ()) if generated is not None else ()
    # code s2sad generated (hvp's forward code) ends with its own write_back, run on the copies
    written += getattr(getattr(function, "__s2sad_module__", None), "WRITES_BACK_ARGUMENTS", ())
    for name in written:
        if name in names and names.index(name) < len(given):
            write_back(given[names.index(name)], values[names.index(name)])


def rrule(f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """ChainRules form: ``(y, pullback)`` with ``pullback(dy) -> (dself, *dargs)``, a
    container's cotangent a ``Tangent`` as rules give them (a rule may return it as its own).

    Uses the registered rule of ``f`` when it has one, else the code s2sad generates. The
    first cotangent is the function's own (``NO_TANGENT``: a function holds nothing to
    differentiate); a rule written with ``defrrule`` can call it to reuse a derivative.

    >>> import numpy as np, s2sad
    >>> def f(x, y):
    ...     return x * y
    >>> y, pullback = s2sad.rrule(f, np.array([1.0, 2.0]), 3.0)
    >>> pullback(np.ones(2))
    (NO_TANGENT, array([3., 3.]), 3.0)
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
    positions = tuple(i for i, value in enumerate(args) if is_float_like(value))
    y, pullback, names, values = _run(f, args, kwargs, positions)

    def rrule_pullback(dy):
        cotangents = _pull(pullback, dy)
        gradients = tuple(hand_to_rule(values[i], cotangents[1 + i]) if i in positions else NO_TANGENT
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


