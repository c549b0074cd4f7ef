"""``compile=True``: the gradient of a function of Python floats and float64 (or float32) arrays, compiled by Numba.

s2sad generates, for such a function, one closure-free function computing the value and the
gradients (``transform.generated_compiled``, written like every generated module to the disk
cache, so that Numba's own cache keeps the machine code beside it); Numba compiles it on the
first call of each argument type and loads it from its cache in later processes (keyword
arguments bound by name, then passed by position). Calls it
does not cover (other dtypes, ``**kwargs``), functions it cannot compile, and a machine
without Numba take the NumPy path: the same numbers, with one ``CompiledFallbackWarning``
per function saying why.

The compiled answer is handed back only when the compiled code returns finite numbers.
Where Numba and Python part ways, they part on non-finite numbers (``math.exp`` overflowing
returns inf under Numba and raises in Python; a float divided by zero raises under Numba where
NumPy's float64 gives inf), on the NumPy path's NaN checks, and on errors (a value unset on the
path taken is None to Numba). So a call whose compiled value or gradient is not finite, or
that raises (a case the compiled helpers do not cover raises ``NotCompiledCase``), is run
again on the NumPy path, whose answer, or error (the user's own ``raise``), is the one given.

A call with float32 arrays is served once the typed code for its argument types is found to
compute what NumPy does (``compiled_float32``); argument types found otherwise take the NumPy
path from then on, while the function's other calls stay compiled.

Once a call of Python floats and float64 arrays has passed all that, later calls of the same
kinds take a fast lane written out for them (``compiled_lanes``), which keeps of the checks
those a right answer needs; the function returned runs the newest such lane in its own code
(``compiled_lanes.warm_up``): a warm call is one Python frame around the machine code.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import operator
import os
import sys
import threading
import warnings

import numpy as np

from . import ahead_of_time, bounded_integers, compiled_lanes, numba_cache
from .arguments import bind_arguments, differentiated_positions
from .codegen.entry_options import ENTRY_OPTIONS
from .compiled_float32 import VERSION as FLOAT32_CHECK, has_float32, widening_in
from .errors import ArgumentError, CompiledFallbackWarning, NotCompiledError
from .frontend.flat_parameters import function_flat_parameters, names_used, written_star
from .frontend.object_layouts import is_user_object, layout_for, objects_in, written_out
from .frontend.resolve import signature, unwrap
from .optimisation_level import compiled_level
from .registry import registry_generation
from .runtime import blocks
from .runtime.finiteness import all_finite
from .specialisation import specialised
from .transform import generated_compiled, plain_parameter, rebound_names, static_default

__all__ = ["compiled_first"]

_lock = threading.Lock()
_dispatchers: dict = {}   # (function, wrt) -> (the generated entry, its Numba dispatcher or None when it failed)
_warned: set = set()       # (function, reason) already said


def compiled_first(numpy_path, f, argnums, with_value: bool):
    """``numpy_path`` (what grad or value_and_grad returned) behind the compiled gradient, which
    calls of Python floats take."""
    if inspect.ismethod(f) and inspect.isfunction(f.__func__) and is_user_object(f.__self__):
        return _bound_method(numpy_path, f, argnums, with_value)
    if isinstance(f, functools.partial) and inspect.isfunction(f.func):
        return _partial(numpy_path, f, argnums, with_value)
    function = unwrap(f)
    name = getattr(f, "__qualname__", repr(f))
    single = isinstance(argnums, int)
    # number of arguments -> (registry generation, generated entry, dispatcher, positions, wrt, accepts,
    # trusted argument types), or (registry generation, None): no compiled gradient for such calls, which
    # is not looked for again (making the generated code would be tried, and refused, on every call)
    lanes: dict = {}
    refused: set = set()   # float32 argument kinds whose typed code computes otherwise than NumPy (compiled_float32)
    float32_values: dict = {}   # float32 argument kinds -> whether the value is a float32 (Numba returns a float)

    def lane_for(args, objects, nones, count):
        """The compiled gradient calls with these many arguments, objects of these classes and
        fields at these positions (``objects``: object_layouts.objects_in) and None at the
        positions ``nones`` take, or None (the NumPy path). ``count``: how many of the arguments
        were given by position, from which negative argnums count (the rest were given by keyword)."""
        key = (len(args), objects, nones, count)
        lane = lanes.get(key)
        if lane is not None and lane[0] == registry_generation():
            if lane[1] is None:
                return None
            if lane[1].__s2sad_current__(lane[9]):
                return lane
        lanes[key] = (registry_generation(), None)
        positions = differentiated_positions(argnums, count, name)
        if not inspect.isfunction(function):  # a functools.partial (whose keywords are keyword-only parameters)
            _fall_back(function, "it is not a plain function (a bound method, a functools.partial), which compiled "
                                 "code is made from")
            return None
        try:  # all by position: keyword-only ones last, *args written out as the arguments given (flat_parameters.py)
            parameters = function_flat_parameters(function, len(args))
        except NotCompiledError as error:
            _fall_back(function, f"it {error.message}")
            return None
        names = [p.name for p in parameters]
        missing = parameters[len(args):]
        if count > len([p for p in parameters if p.kind is not p.KEYWORD_ONLY]) \
                or any(p.default is p.empty for p in missing):
            _fall_back(function, "it was not given parameters that have no default, or given too many: the NumPy "
                                 "path raises Python's TypeError")
            return None
        star = written_star(function, parameters)
        # the parameters not given that default to a function (`cov_func=rbf_covariance`): the code is made
        # for that function, called by name, as a callee's split form is (specialisation.py)
        statics = _function_defaults(function, missing, len(args))
        static_names = {name for _, name, _ in statics}
        # what Python binds to the others; None is written into the text (nones_written_in.py)
        defaults = tuple(p.default for p in missing if p.default is not None and p.name not in static_names)
        nones = nones + tuple(len(args) + i for i, p in enumerate(missing) if p.default is None)
        if any(p in nones for p in positions):
            _fall_back(function, f"it was given None for a parameter it differentiates "
                                 f"(`{names[next(p for p in positions if p in nones)]}`)")
            return None
        try:  # each object given written out as its fields (frontend/object_layouts.py)
            layouts, groups = _objects_written_out(function, parameters, objects, positions, nones)
        except NotCompiledError as error:
            _fall_back(function, f"it {error.message}", error.location)
            return None
        none_names = tuple(names[p] for p in nones)
        if layouts:
            names = [name for group in _flat_groups(names, layouts, objects) for name in group]
        names = [name for name in names if name not in none_names and name not in static_names]
        flat_positions = tuple(p for _, group, _ in groups for p in group)
        try:  # the objects it builds itself, written out as their fields too (frontend/built_classes.py)
            built = _classes_built(function, layouts)
        except NotCompiledError as error:
            _fall_back(function, f"it {error.message}", error.location)
            return None
        # its *args, objects and Nones written out
        target = function if star is None and not layouts and not none_names and not built and not statics \
            else specialised(function, statics, star, layouts, none_names, built)
        wrt = tuple(names[p] for p in flat_positions)
        found = _dispatcher(target, wrt)
        if found is None:
            return None
        accepts = found[0].__s2sad_module__.ACCEPTS
        trusted = set()  # the arrays' dtypes (the argument types Numba tells apart) _integer_products passed
        # np.sum of an elementwise expression: large arrays take the NumPy path's blocks (see below)
        elementwise = getattr(found[0].__s2sad_module__, "ELEMENTWISE_SUM", False)
        # the machine code kept ahead of time for this entry (ahead_of_time.py), when there is some
        kept = ahead_of_time.Loaded(found[0]) if ahead_of_time.kept(found[0]) else None
        lanes[key] = lane = (registry_generation(), found[0], found[1], flat_positions, wrt, accepts,
                                              trusted, defaults, elementwise, target, kept, groups if layouts else None)
        return lane

    fast_lanes: dict = {}   # number of arguments -> (the fast lane for calls of one kind of them, its lane)

    def forget_fast_lanes():
        fast_lanes.clear()
        compiled_lanes.cool_down(compiled_f)

    def long_way(args, kwargs):
        """A call the fast lane does not serve: every check, then the compiled code or the NumPy path."""
        given = args
        if kwargs:  # all by position, in the order of the compiled code's parameters (keyword-only ones last)
            args = _by_position(function, args, kwargs)
            if args is None:
                _fall_back(function, "it was called with keyword arguments that do not bind to its own parameters "
                                     "one by one (it takes *args or **kwargs, or Python raises): the NumPy path binds them")
                return numpy_path(*given, **kwargs)
        try:
            objects = objects_in(args)
        except NotCompiledError as error:
            _fall_back(function, f"it {error.message}")
            return numpy_path(*given, **kwargs)
        nones = tuple(i for i, a in enumerate(args) if a is None)
        key = (len(args), objects, nones, len(given))
        lane = lane_for(args, objects, nones, len(given))
        if lane is None:
            return numpy_path(*given, **kwargs)
        bound = args
        if objects:
            args = written_out(args, objects)
        if nones:  # written into the text (frontend/nones_written_in.py)
            args = tuple(a for a in args if a is not None)
        if lane[7]:
            args = args + lane[7]
        if not lane[5](*args):
            _fall_back(function, f"it was called with arguments its compiled gradient does not serve "
                                 f"({', '.join(map(_kind_of, args))}; it serves Python floats and float64 and float32 arrays, "
                                 "lists of (W, b) tuples of them; a function computing on floats alone, floats "
                                 "and 1-d float arrays it reads by element)")
            return numpy_path(*given, **kwargs)
        if lane[8] and any(a.__class__ is np.ndarray and a.size >= blocks.SMALLEST for a in args):
            # large arrays: one pass over the elements (compiled_elementwise.py), or the NumPy path's blocks
            return one_pass(args, given, kwargs, lane, not objects and not nones)
        kinds = []  # the argument types Numba tells apart: a float is always one
        listed = False
        for a in args:
            kind = a.__class__
            if kind is float:
                continue
            if kind is int and not -2 ** 31 < a < 2 ** 31:  # sums of such ints stay within 64 bits
                _fall_back(function, "it was called with an int past 2**31 (Numba's ints are 64-bit)")
                return numpy_path(*given, **kwargs)
            if kind is list:  # of (W, b) tuples (ACCEPTS): handed over as a tuple, which Numba unboxes fast; or of
                # floats a vector parameter reads by element: handed over as the float64 array of them
                kinds.append("d1" if _of_floats(a) else "list " + ",".join(str(item.ndim) for item in a[0]))
                listed = True
            else:
                kinds.append(f"{a.dtype.char}{a.ndim}" if kind is np.ndarray else kind.__name__)
        kinds = tuple(kinds)
        if kinds in refused:
            return numpy_path(*given, **kwargs)
        if listed:
            args = tuple((np.array(a, dtype=np.float64) if _of_floats(a) else tuple(a)) if a.__class__ is list else a
                         for a in args)
        # (function, uses BLAS), or None: Numba's dispatcher (float32 calls always: their check reads its typed code)
        machine = None if lane[10] is None or has_float32(kinds) else lane[10].function_for(args, not kinds)
        try:
            run = lane[2] if machine is None else machine[0]
            # its first call (Numba compiles, or the machine code kept ahead of time looks up its BLAS
            # functions): BLAS found without importing scipy.linalg (0.2 s of CPU of a cold first call:
            # Numba's set-up checks for BLAS by importing it, whether the code multiplies matrices or not)
            if kinds not in lane[6] and (machine is None or machine[1]):
                with ahead_of_time.blas_nearby(), compiled_level():
                    value, gradients = run(*args)
            else:
                value, gradients = run(*args)
        except Exception as error:  # noqa: BLE001 - Numba's own errors say what it could not type
            return after_error(error, given, kwargs, key, lane, kinds)
        if kinds not in lane[6]:  # new argument types: the typed code's integers checked first
            if machine is None:  # (machine code kept ahead of time was made after they passed)
                passed = _passed_before(lane[1], kinds)
                unsafe = None if passed else _integer_products(lane[1], lane[2], args)
                if unsafe:
                    lanes[key] = (registry_generation(), None)
                    forget_fast_lanes()
                    _failed(lane[9], lane[4], unsafe)
                    return numpy_path(*given, **kwargs)
                if has_float32(kinds):
                    unlike = _float32_unlike_numpy(lane[1], lane[2], args, gradients, lane[3], passed)
                    if unlike:
                        refused.add(kinds)
                        _fall_back(function, f"for float32 arguments, {unlike}: such calls run on the NumPy path")
                        return numpy_path(*given, **kwargs)
                    float32_values[kinds] = _returns_float32(lane[2], args)
                _remember_passed(lane[1], kinds)
                if passed and not has_float32(kinds) and _verdict_path(lane[1], kinds) not in _verdicts_written:
                    # a second process calls it (another wrote the verdict): worth machine code that loads
                    # without Numba (float32 calls keep Numba: their own check reads its typed code)
                    ahead_of_time.build_at_exit(lane[1], lane[2], args)
            lane[6].add(kinds)
        if not _all_finite(value, gradients):  # see above: the NumPy path decides
            return numpy_path(*given, **kwargs)
        if kinds:  # not all floats: a gradient may be an argument's memory, or another gradient's
            gradients = _unshared(gradients, args)
        if float32_values.get(kinds):  # a float32 scalar, which Numba hands back as a Python float
            value = np.float32(value)
        if lane[11] is not None:  # an object's fields' gradients as the NumPy path gives the object's
            gradients = _regrouped(gradients, lane[11], bound, lane[3])
        # calls of these kinds again take the fast lane (one kind per number of arguments: the first served,
        # or the one served after the lane was made again, the function having changed)
        if not kwargs and not objects and not nones and not listed and not has_float32(kinds) \
                and fast_lanes.get(len(bound), (None, None))[1] is not lane \
                and compiled_lanes.servable(bound, value, gradients):
            fast = fast_lanes[len(bound)] = (_fast_lane(bound, lane, machine, key, kinds, gradients), lane)
            compiled_lanes.warm_up(compiled_f, fast[0])  # its test and body in compiled_f's own code
        gradient = gradients[0] if single else gradients
        return (value, gradient) if with_value else gradient

    def one_pass(args, given, kwargs, lane, plain: bool):
        """The gradient at large arrays of an ``ELEMENTWISE_SUM`` function: its compiled gradient of one
        element in a loop over the elements where the call is float64 arrays and floats alone (``plain``: no
        object or None given), else, or on inf or NaN, or where that raised, the NumPy path's blocks."""
        calls = getattr(lane[1].__s2sad_module__, "ONE_PASS", None)
        if calls is None or not plain or lane[1] in one_pass_refused:
            return numpy_path(*given, **kwargs)
        from . import compiled_elementwise

        shape = compiled_elementwise.served(args, lane[3])
        if shape is None or not all(compiled_elementwise.same_as_numpy(name) for name in calls):
            return numpy_path(*given, **kwargs)
        dispatcher = lane[2]._made() if isinstance(lane[2], _NumbaWhenNeeded) else lane[2]
        try:
            with compiled_level():  # (its loop is compiled at its first call)
                done = compiled_elementwise.gradient(lane[1], dispatcher, args, lane[3], shape)
        except Exception as error:  # noqa: BLE001 - a division by zero, or Numba could not compile the loop
            if _is_numba_error(error):
                one_pass_refused.add(lane[1])
                _fall_back(function, f"Numba could not compile its one-pass gradient of large arrays "
                                     f"({_numba_says(error)}): such calls run block by block on the NumPy path")
            return numpy_path(*given, **kwargs)
        if done is None:  # inf or NaN: the NumPy path decides
            return numpy_path(*given, **kwargs)
        value, gradients = done
        gradient = gradients[0] if single else gradients
        return (value, gradient) if with_value else gradient

    one_pass_refused: set = set()   # generated entries whose one-pass loop Numba could not compile

    def _fast_lane(args, lane, machine, key, kinds, gradients):
        """The fast lane for calls of the kinds of ``args`` (``kinds``: as the long way spells them), which
        the long way just served with ``lane`` and ``machine`` (kept ahead of time, or None: the dispatcher)."""
        def on_error(error, given):
            return after_error(error, given, {}, key, lane, kinds)

        dispatcher = lane[2]
        if isinstance(dispatcher, _NumbaWhenNeeded) and dispatcher.made is not None:
            dispatcher = dispatcher.made  # (not two Python calls more on each call)
        return compiled_lanes.fast_lane(
            args, lane[7], gradients, single=single, with_value=with_value,
            layouts=machine is not None and bool(kinds), smallest=blocks.SMALLEST if lane[8] else None,
            current=lane[1].__s2sad_current__, target=lane[9], registry_generation=registry_generation,
            generation=lane[0], machine=dispatcher if machine is None else machine[0], on_error=on_error,
            numpy_path=numpy_path, finite_array=_finite_compiled or _finite_checker())

    def after_error(error, given, kwargs, key, lane, kinds):
        """The answer to a call whose compiled code raised ``error``: the NumPy path's, and the
        compiled gradient given up for such calls where Numba could not compile it."""
        if isinstance(error, ZeroDivisionError):  # Numba's float division; NumPy's float64 may give inf
            return numpy_path(*given, **kwargs)
        if _not_covered(error):
            _fall_back(function, f"a call met a case its compiled gradient does not cover ({error}): that call "
                                 "ran on the NumPy path")
            return numpy_path(*given, **kwargs)
        if not _is_numba_error(error):
            # the function's own exception, or Numba's at run time (a value unset on the path taken
            # read as None): the NumPy path says which, raising the first or answering
            answer = numpy_path(*given, **kwargs)
            _fall_back(function, f"its compiled gradient raised {type(error).__name__} ({error}) where the "
                                 "NumPy path did not: that call ran on the NumPy path")
            return answer
        if has_float32(kinds):  # (its float64 calls may still compile: only these argument types are refused)
            refused.add(kinds)
            _fall_back(function, f"Numba could not compile its generated gradient for float32 arguments "
                                 f"({_numba_says(error)})")
            return numpy_path(*given, **kwargs)
        lanes[key] = (registry_generation(), None)
        forget_fast_lanes()  # no compiled gradient for these calls any more
        _failed(lane[9], lane[4], f"Numba could not compile its generated gradient: {_numba_says(error)}")
        return numpy_path(*given, **kwargs)

    # the fast lane of the kinds of calls last served, written into it once there is one (compiled_lanes.warm_up)
    compiled_f = functools.wraps(function)(compiled_lanes.entry(fast_lanes, long_way))
    return compiled_f


def _bound_method(numpy_path, method, argnums, with_value: bool):
    """``model.loss`` (a method bound to an object of the user's class): its function's compiled
    gradient, given the object first (written out as its fields like any object argument)."""
    receiver = method.__self__
    shifted = argnums + 1 if isinstance(argnums, int) and argnums >= 0 else argnums if isinstance(argnums, int) \
        else tuple(a + 1 if a >= 0 else a for a in argnums)  # (negative ones count from the end: the same)

    def numpy_path_of_the_function(given_receiver, *args, **kwargs):
        return numpy_path(*args, **kwargs)

    compiled = compiled_first(numpy_path_of_the_function, method.__func__, shifted, with_value)

    @functools.wraps(method)
    def compiled_method(*args, **kwargs):
        return compiled(receiver, *args, **kwargs)

    return compiled_method


def _partial(numpy_path, partial, argnums, with_value: bool):
    """``functools.partial(f, *held, **keywords)`` of a plain function: ``f``'s compiled gradient,
    given the held arguments first and the keywords (the call's own over the partial's), with
    argnums counting from the call's first argument, as the NumPy path counts them."""
    held, keywords = partial.args, partial.keywords
    shifted = argnums + len(held) if isinstance(argnums, int) and argnums >= 0 else argnums \
        if isinstance(argnums, int) else tuple(a + len(held) if a >= 0 else a for a in argnums)
    name = getattr(partial.func, "__qualname__", repr(partial.func))

    def numpy_path_of_the_function(*args, **kwargs):
        return numpy_path(*args[len(held):], **kwargs)

    compiled = compiled_first(numpy_path_of_the_function, partial.func, shifted, with_value)

    @functools.wraps(partial)
    def compiled_partial(*args, **kwargs):
        differentiated_positions(argnums, len(args), name)  # out of range for the call: the NumPy path's error
        return compiled(*held, *args, **{**keywords, **kwargs})

    return compiled_partial


def _of_floats(a: list) -> bool:
    """Whether a list ACCEPTS let through is of floats (else of (W, b) tuples, never empty)."""
    return not a or a[0].__class__ is not tuple


def _by_position(function, args: tuple, kwargs: dict) -> tuple | None:
    """The arguments of ``function(*args, **kwargs)`` all by position, in its parameters' order
    (keyword-only ones last, as function_flat_parameters orders them), the parameters not given
    their defaults; None when it is not a plain function, takes ``*args`` or ``**kwargs``, or
    the call does not bind (the NumPy path raises Python's TypeError)."""
    if not inspect.isfunction(function):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature(function).parameters.values()):
        return None
    try:
        _, values = bind_arguments(function, args, kwargs)
    except ArgumentError:
        return None
    return tuple(values)


def _function_defaults(function, missing: list, first: int) -> tuple:
    """``((position, name, function), ...)``: the parameters not given (``missing``, from position
    ``first``) whose default is a function the code may be made for (a module-level one of the
    user's, or a library's with a rule), plain ones the function does not assign."""
    rebound = rebound_names(function)
    return tuple((first + i, p.name, p.default) for i, p in enumerate(missing)
                 if plain_parameter(p, rebound) and static_default(p.default))


def _objects_written_out(function, parameters: list, objects: tuple, positions, nones: tuple = ()) -> tuple:
    """``(layouts, groups)``: the layouts of the parameters given ``objects``
    (object_layouts.objects_in), and for each differentiated position (``positions``): (it, the
    positions of the flat arguments it became (an object's fields, or its own), an object's
    (fields, fields holding functions) or None)."""
    taken = names_used(function) | {p.name for p in parameters}
    layouts = tuple(layout_for(function, parameters[position].name, cls, fields, taken, statics)
                    for position, cls, fields, statics in objects)
    widths = {position: len(fields) for position, _, fields, _ in objects}
    widths.update((position, 0) for position in nones)  # (None is no argument of the compiled code)
    held = {position: (fields, tuple(name for name, _ in statics)) for position, _, fields, statics in objects}
    starts, start = [], 0
    for position in range(len(parameters)):
        starts.append(start)
        start += widths.get(position, 1)
    groups = tuple((p, tuple(range(starts[p], starts[p] + widths.get(p, 1))), held.get(p)) for p in positions)
    return layouts, groups


def _classes_built(function, layouts: tuple) -> tuple:
    """frontend/built_classes.classes_built of ``function``, its new names apart from those of the
    objects it is given (``layouts``)."""
    from .frontend.built_classes import classes_built, may_build

    if not may_build(function):
        return ()
    taken = names_used(function) | {name for layout in layouts
                                     for name in (*layout.written, *dict(layout.methods).values(), *layout.passed_names())}
    return classes_built(function, taken)


def _flat_groups(names: list, layouts: tuple, objects: tuple) -> list:
    """The names of the flat parameters, grouped by the parameter they come from."""
    by_position = {position: layout.written for (position, *_), layout in zip(objects, layouts)}
    return [by_position.get(position, (name,)) for position, name in enumerate(names)]


def _regrouped(gradients: tuple, groups: tuple, given: tuple, flat_positions: tuple) -> tuple:
    """The gradients of the flat arguments as those of the arguments ``given``: an object's as
    the NumPy path hands it over (arguments.hand_over of its fields' ``Tangent``, which gives the
    fields holding functions what the NumPy path gives them)."""
    from .arguments import hand_over
    from .runtime.tangents import Tangent

    by_flat = dict(zip(flat_positions, gradients))
    regrouped = []
    for position, group, held in groups:
        if held is None:
            regrouped.append(by_flat[group[0]])
            continue
        primal = given[position]
        if primal.__class__ is tuple:  # a tuple of arrays and floats: the tuple of their gradients
            regrouped.append(tuple(by_flat[p] for p in group))
            continue
        fields = dict(zip(held[0], (by_flat[p] for p in group)))
        regrouped.append(hand_over(primal, Tangent._of(type(primal), fields)))
    return tuple(regrouped)


def _dispatcher(function, wrt):
    """``(generated entry, its Numba dispatcher)``, or None when there is none (a warning says why)."""
    key = (function, wrt)
    try:
        with ahead_of_time.helpers_deferred(function, wrt):  # no Numba where machine code was kept
            entry = generated_compiled(function, wrt)
    except NotCompiledError as error:
        _fall_back(function, error.message, error.location)
        return None
    with _lock:
        found = _dispatchers.get(key)
        if found is None or found[0] is not entry:
            if ahead_of_time.deferred(entry.__globals__) or ahead_of_time.kept(entry):  # Numba when a call needs it
                dispatcher = _NumbaWhenNeeded(entry)
            else:
                try:
                    numba = numba_cache.numba_module()  # (its disk cache locked for processes filling it at once)
                except ImportError:
                    _fall_back(function, "Numba is not installed (pip install 's2sad[jit]')")
                    dispatcher = None
                else:
                    ahead_of_time.realise(entry.__globals__)
                    dispatcher = numba.njit(**ENTRY_OPTIONS)(entry)  # compiled at the first call, per argument types
            _dispatchers[key] = found = (entry, dispatcher)
    return found if found[1] is not None else None


class _NumbaWhenNeeded:
    """The Numba dispatcher of an entry loaded without Numba (ahead_of_time.helpers_deferred),
    made at its first use: a call the machine code kept ahead of time does not serve."""

    def __init__(self, entry):
        self.py_func = entry
        self.made = None

    def _made(self):
        if self.made is None:
            numba = numba_cache.numba_module()

            ahead_of_time.realise(self.py_func.__globals__)
            self.made = numba.njit(**ENTRY_OPTIONS)(self.py_func)
        return self.made

    def __call__(self, *args):
        return self._made()(*args)

    def __getattr__(self, name):  # overloads, ...
        return getattr(self._made(), name)


_split_halves: dict = {}  # (function, wrt) -> (its split entry, (forward dispatcher, reverse dispatcher))


def split_dispatchers(function, wrt):
    """``(split entry, (forward, reverse))``: the Numba dispatchers of the split form of a user
    function compiled code calls (transform.generated_split), bound in the caller's module for
    Numba to compile with it. One pair per entry: a caller made again after the function
    changed gets the new entry's. NotCompiledError when there is none."""
    from .frontend.flat_parameters import split_defaults
    from .transform import generated_split

    entry = generated_split(function, wrt)
    with _lock:
        found = _split_halves.get((function, wrt))
        if found is None or found[0] is not entry:
            try:
                numba = numba_cache.numba_module()
            except ImportError:
                raise NotCompiledError("Numba is not installed (pip install 's2sad[jit]')") from None
            forward, reverse = entry.__s2sad_module__.SPLIT
            ahead_of_time.realise(forward.__globals__)
            forward.__defaults__ = split_defaults(function)  # a call leaving parameters to them (Numba's Omitted)
            found = _split_halves[(function, wrt)] = (entry, (numba.njit(**ENTRY_OPTIONS)(forward),
                                                               numba.njit(**ENTRY_OPTIONS)(reverse)))
    return found


def _failed(function, wrt, reason: str) -> None:
    """No compiled gradient for ``function`` any more; ``reason`` is said once."""
    with _lock:
        entry = _dispatchers.get((function, wrt), (None, None))[0]
        _dispatchers[(function, wrt)] = (entry, None)
    _fall_back(function, reason)


_INTEGER_PRODUCTS = {operator.mul, operator.imul, operator.pow, operator.ipow, operator.lshift, operator.ilshift}


def _verdict_path(entry, kinds) -> str:
    """Beside the generated module in the disk cache: that its typed code passed
    ``_integer_products`` for these argument types, with this Numba (a new process need not
    run Numba's type inference again; the module's name holds the hash of what it was made from)."""
    import numba

    # (the check's own version: since it reads the split callees' typed code too, older verdicts do not count)
    # (and float32 kinds: compiled_float32's check of the same typed code)
    digest = hashlib.sha256(repr((kinds, numba.__version__, "and callees", "float32", FLOAT32_CHECK)).encode()) \
        .hexdigest()[:16]
    return f"{entry.__code__.co_filename}.{digest}.integers-checked"


def _passed_before(entry, kinds) -> bool:
    return os.path.exists(_verdict_path(entry, kinds))


_verdicts_written: set = set()  # the verdicts this process wrote (ahead_of_time's builds wait for a second process)


def _remember_passed(entry, kinds) -> None:
    path = _verdict_path(entry, kinds)
    try:
        with open(path, "x"):
            pass
        _verdicts_written.add(path)
    except OSError:  # there already, or a cache that cannot be written: checked again next time
        pass


def _integer_products(entry, dispatcher, args) -> str | None:
    """Why the compiled gradient may compute another number than Python at these arguments, or
    None: Numba's integers are 64-bit and wrap where Python's grow, so a product, power or
    shift that Numba types as an integer (``i * i * i`` of a loop counter) is not trusted.
    (Sums and differences of loop counters cannot reach 2**63.) The types are Numba's own, of
    the version compiled for these argument types; one loaded from Numba's disk cache keeps
    none, so the function is compiled again to see them (once: the verdict is kept on disk).
    A check that cannot run (an error while typing) does not pass."""
    for function, compiled, types_given in _typed_functions(entry, dispatcher, args):
        # (the entry's int arguments are the call's, below 2**31; a split form's may be any product)
        unsafe = _integer_products_in(function, compiled, types_given, arguments_small=function is entry)
        if unsafe:
            return unsafe
    return None


def _float32_unlike_numpy(entry, dispatcher, args, gradients, positions, passed: bool) -> str | None:
    """Why the compiled gradient may compute other dtypes or numbers than the NumPy path at these
    arguments, some float32 (compiled_float32 says what is looked for), or None. Each array's
    gradient must have its array's dtype, as the NumPy path's (its cotangents are cast to their
    values' dtypes); and, unless a verdict on disk says it ``passed`` already, the typed code of the
    entry and of the split functions it calls is read."""
    for k, position in enumerate(positions):
        a, g = args[position], gradients[k]
        if a.__class__ is np.ndarray and not (g.__class__ is np.ndarray and g.dtype == a.dtype):
            return f"the compiled gradient of argument {position + 1} is not a {a.dtype} array"
    if passed:
        return None
    for function, compiled, types_given in _typed_functions(entry, dispatcher, args):
        try:
            blocks, typemap = typed_code(function, compiled, types_given)
        except Exception as error:  # noqa: BLE001 - a check that cannot run does not pass
            return f"its typed code could not be checked ({_numba_says(error)})"
        unlike = widening_in(function.__name__, blocks, typemap)
        if unlike:
            return unlike
    return None


def _returns_float32(dispatcher, args) -> bool:
    """Whether the value the compiled gradient returns at these arguments is a float32 scalar."""
    import numba
    from numba.core import types

    signature = dispatcher.overloads[tuple(numba.typeof(a) for a in args)].signature
    return signature.return_type[0] == types.float32


def _typed_functions(entry, dispatcher, args) -> list:
    """``(function, its dispatcher, argument types)`` of the entry compiled for these arguments, and
    of the split forms of the functions it calls, as Numba typed them for this call (compiling it
    did): the code the checks on typed code read."""
    import numba

    typed = [(entry, dispatcher, tuple(numba.typeof(a) for a in args))]
    typed += [(d.py_func, d, signature) for d in _called_halves(entry.__s2sad_module__.__dict__)
              for signature in d.overloads]
    return typed


def _called_halves(namespace: dict, seen: set | None = None) -> list:
    """The Numba dispatchers of the split forms a generated module (its globals) calls, and of
    those they call."""
    seen = set() if seen is None else seen
    found = []
    for name, recipe in namespace.get("BINDINGS", {}).items():
        dispatcher = namespace.get(name)
        if recipe[0] in ("compiled_forward", "compiled_reverse") and id(dispatcher) not in seen:
            seen.add(id(dispatcher))
            found.append(dispatcher)
            found += _called_halves(dispatcher.py_func.__globals__, seen)
    return found


def _integer_products_in(entry, dispatcher, argument_types, arguments_small: bool = False) -> str | None:
    """``_integer_products`` for one compiled function and its argument types; ``arguments_small``:
    its int arguments are below 2**31 (bounded_integers.py)."""
    from numba.core import ir, types

    try:
        blocks, typemap = typed_code(entry, dispatcher, argument_types)
    except Exception as error:  # noqa: BLE001 - a check that cannot run does not pass
        return f"its typed code could not be checked for integer products ({_numba_says(error)})"
    assigned = bounded_integers.definitions(blocks, arguments_small)
    for block in blocks.values():
        for instruction in block.body:
            value = getattr(instruction, "value", None)
            if isinstance(instruction, ir.Assign) and isinstance(value, ir.Expr) \
                    and value.op in ("binop", "inplace_binop") and value.fn in _INTEGER_PRODUCTS \
                    and isinstance(typemap.get(instruction.target.name), types.Integer) \
                    and not bounded_integers.bounded_product(value, assigned):
                return (f"its gradient multiplies integers (line {instruction.loc.line} of the generated "
                        f"`{entry.__name__}`), "
                        "which Numba computes in 64 bits where Python's integers grow")
    return None


def typed_code(entry, dispatcher, argument_types):
    """``(blocks, typemap)``: Numba's typed IR of ``entry`` compiled for ``argument_types``. One
    loaded from Numba's disk cache keeps no types: it is compiled again (the callers keep their
    verdicts on disk, so this happens once)."""
    import numba

    annotation = getattr(dispatcher.overloads.get(argument_types), "type_annotation", None)
    if getattr(annotation, "typemap", None) is None:
        fresh = numba.njit(entry)  # (its types alone are read: not kept, no index checks)
        with compiled_level():
            fresh.compile(argument_types)
        annotation = fresh.overloads[argument_types].type_annotation
    return annotation.blocks, annotation.typemap


def _all_finite(value, gradients) -> bool:
    """Whether the value and every gradient are finite: ``x - x`` is 0 for a finite float and NaN
    for inf or NaN. A float64 (or float32) array is read by ``_finite_elements`` compiled (0.1 us for a small
    array where NumPy's ``sum`` takes 0.7 us)."""
    for v in (value, *gradients):
        kind = v.__class__
        if kind is float:
            if not v - v == 0.0:
                return False
        elif kind is np.ndarray and (v.dtype == _FLOAT64 or v.dtype == _FLOAT32):
            # read as a vector (a view where it can be): one compiled version per dtype and layout, not per
            # number of dimensions too (Numba's ravel of a matrix alone was 0.23 s of an RNN's cold first call)
            if not (_finite_compiled or _finite_checker())(v if v.ndim == 1 else v.reshape(-1)):
                return False
        elif not all_finite(v):
            return False
    return True


def _finite_elements(a) -> bool:
    """Whether every element of the float vector ``a`` is finite (an ``and`` over the elements, not
    a loop that stops at the first: LLVM vectorises it). Read by index: Numba's iterator over an
    array took 3-4 times as long (1.7-2.2 us per 1024 elements against 0.5-0.7), compiled as fast."""
    finite = True
    for i in range(a.shape[0]):
        finite &= a[i] - a[i] == 0.0
    return finite


_FLOAT64 = np.dtype(np.float64)  # compared with a dtype (not the type np.float64): 30 ns against 50
_FLOAT32 = np.dtype(np.float32)
_finite_compiled = None


def _finite_checker():
    """``_finite_elements`` compiled, once Numba is imported; before that (machine code kept
    ahead of time runs without it), NumPy's ``isfinite``: not worth Numba's import."""
    global _finite_compiled
    if "numba" not in sys.modules:
        return _finite_by_numpy
    numba = numba_cache.numba_module()

    _finite_compiled = numba.njit(cache=True)(_finite_elements)
    return _finite_compiled


def _finite_by_numpy(a) -> bool:
    if a.ndim == 1:  # a finite sum of squares proves it (0.3 us against 1 us); inf, NaN or overflow: isfinite says
        total = a.dot(a)
        if total - total == 0.0:
            return True
    return bool(np.isfinite(a).all())


def _unshared(gradients, args) -> tuple:
    """The gradients, none of them an argument's memory or another gradient's (a cotangent passed
    through unchanged is the array it came from; ``x + y`` gives both operands one cotangent):
    the caller may change a gradient in place. By memory, not by owner as runtime/isolation's
    ``unshared``: Numba hands one buffer back as two arrays with different owner objects."""
    held = [a for a in _arrays_in(args)]

    def unshared(g):
        if g.__class__ is np.ndarray:
            for other in held:
                if np.may_share_memory(g, other):
                    g = g.copy()
                    break
            held.append(g)
        elif g.__class__ is list or g.__class__ is tuple:  # the cotangent of a list of (W, b) tuples
            g = g.__class__(map(unshared, g))
        return g

    return tuple(map(unshared, gradients))


def _arrays_in(values):
    for value in values:
        if value.__class__ is np.ndarray:
            yield value
        elif value.__class__ is list or value.__class__ is tuple:
            yield from _arrays_in(value)


def _kind_of(value) -> str:
    """What an argument is, as the warning about a call not served says it (``float32 1-d array``:
    by rank, not shape, so that one warning serves a function's calls of one kind)."""
    if isinstance(value, np.ndarray):
        return f"{value.dtype} {value.ndim}-d array"
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__} of {len(value)}" + (f" ({_kind_of(value[0])}, ...)" if value else "")
    return type(value).__name__


def _numba_says(error) -> str:
    """The first line of a Numba error, and the call it found no implementation for, if it says
    (``zero_like(list(float64))``): what to look for in the generated code."""
    lines = [line.strip() for line in str(error).strip().splitlines()]
    if not lines:
        return type(error).__name__
    missing = next((line[3:].strip() for line in lines if line.startswith(">>>")), None)
    return lines[0] + (f": no implementation of {missing}" if missing else "")


def _not_covered(error) -> bool:
    """Whether ``error`` is compiled_basics.NotCompiledCase (without importing Numba to ask)."""
    kind = type(error)
    return kind.__name__ == "NotCompiledCase" and kind.__module__ == "s2sad.compiled_basics"


def _is_numba_error(error) -> bool:
    """Whether Numba failed to compile: one of its errors, or any other raised in its own Python code
    (its lowering has raised AttributeError on generated code it had typed). An exception of the
    compiled code itself reaches the caller from machine code: no Numba frame is innermost."""
    if any(kind.__module__.startswith("numba") for kind in type(error).__mro__):
        return True
    numba = sys.modules.get("numba")
    trace, innermost = error.__traceback__, None
    while trace is not None:
        innermost, trace = trace, trace.tb_next
    return numba is not None and innermost is not None \
        and innermost.tb_frame.f_code.co_filename.startswith(os.path.dirname(numba.__file__) + os.sep)


def _fall_back(function, reason: str, location=None) -> None:
    key = (function, reason)
    if key in _warned:
        return
    _warned.add(key)
    where = f" ({location})" if location is not None else ""
    warnings.warn(f"s2sad: compile=True: {getattr(function, '__qualname__', function)}{where} runs on the NumPy "
                  f"path (the same numbers): {reason}", CompiledFallbackWarning, stacklevel=3)
