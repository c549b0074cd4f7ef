"""The written-out lanes: a warm ``grad``'s call of Python floats, or of one float array,
as a function made for its arguments.

Once a derivative's first call has taken the long way (api._run: every check, the code
generated and typed), later calls with the same number of positional arguments go to its
lane (api._differentiated), which first checks that the code is still current for the
function (cache/validity.py: its code, defaults and every dependency ``is`` what it was).
For a function with a gradient for floats (``GRADIENT_FOR_FLOATS``) or a version typed for
its arrays, what is left of such a call is a few tests, the generated code, and handing the
gradient over; written as loops and calls over the differentiated positions, those tests
cost more than the arithmetic of a small function.

So such a lane is a function made for one number of arguments and the differentiated
positions, from the templates below: the same tests as the general lane, named one by one,
the staleness check among them (one call fewer than the caller's running it first). It
returns what the call returns, or None when the call is not one it serves (an argument of
another type, or code no longer current), before running anything: the general lane, or
the long way, then serves it. The array lane calls the typed rrule and its pullback itself,
and writes out the cheap cases of handing the gradient over (an array that no accumulator
owns and no argument shares; a vector's NaN test), calling the general helpers otherwise. A gradient of
another kind than the lane expects is handed over as the general lane does
(``handed_back``), from what was computed: nothing runs twice.
"""
from __future__ import annotations

FLOAT_LANE_TEMPLATE = '''\
def make(gradient_for_floats, refuse, handed_back{current_params}):
    def {name}({params}):
        if {floats}{current}:
            done = gradient_for_floats({params})
            if done is not None:
                cotangents = done[1]
                {gradients} = {slots}
                if {gradient_floats}:
                    if {nan}:
                        refuse({gradient}, done[0])
                    return {result}
                return handed_back(done[0], None, cotangents, ({params},), {positions!r})
        return None
    return {name}
'''

# the staleness check, written into a lane given ``current``: (check, function, registry_generation, generation)
CURRENT_PARAMS = ", check, function, registry_generation, generation"
CURRENT_TEST = " and registry_generation() == generation and check(function)"


def float_lane(gradient_for_floats, count: int, positions: tuple, with_value: bool, single: bool,
               refuse, handed_back, current=None):
    """The lane for calls of ``count`` positional arguments whose arguments at ``positions`` are
    Python floats: ``gradient_for_floats(*args)`` gives ``(value, cotangents)`` (cotangents[0]
    the function's own), or None for arguments it does not serve. ``refuse(gradient, value)``
    is called with a gradient holding a NaN (api: refuse_nan); ``handed_back(value, None,
    cotangents, args, positions)`` hands back cotangents that are not all floats. ``current``:
    ``(check, function, registry_generation, generation)``, the test that the code is current
    (``check(function)`` under the registry's ``generation``), run in the lane before anything
    else: one call fewer than the caller's running it (None: the caller runs it)."""
    params = [f"a{i}" for i in range(count)]
    gradients = [f"g{position}" for position in positions]
    gradient = gradients[0] if single else f"({', '.join(gradients)},)"
    text = FLOAT_LANE_TEMPLATE.format(
        name="gradient_of_floats",
        params=", ".join(params),
        floats=" and ".join(f"{params[p]}.__class__ is float" for p in positions),
        gradients=", ".join(gradients) + ("," if len(gradients) == 1 else ""),
        slots=", ".join(f"cotangents[{1 + p}]" for p in positions) + ("," if len(positions) == 1 else ""),
        gradient_floats=" and ".join(f"{g}.__class__ is float" for g in gradients),
        nan=" or ".join(f"{g} != {g}" for g in gradients),  # only NaN is not equal to itself
        gradient=gradient,
        result=f"done[0], {gradient}" if with_value else gradient,
        positions=tuple(positions),
        current_params=CURRENT_PARAMS if current else "",
        current=CURRENT_TEST if current else "")
    return _made(text, gradient_for_floats, refuse, handed_back, *(current or ()))


ARRAY_LANE_TEMPLATE = '''\
def make(typed, otherwise, seed, refuse, handed_back, release, owned, unshared_from, has_nan, ndarray, float64{current_params}):
    def gradient_of_array({params}):
        if {argument}.__class__ is ndarray{current}:
            made = typed({params})
            if made is not None:
                output, pullback = made
                kind = output.__class__
                cotangents = pullback(1.0 if kind is float64 or kind is float else seed(output))
            else:
                done = otherwise({params}) if otherwise is not None else None
                if done is None:
                    return None
                output, cotangents = done
            gradient = cotangents[{slot}]
            if gradient.__class__ is ndarray and gradient.shape == {argument}.shape \\
                    and gradient.dtype == {argument}.dtype:
                if not (gradient.base is None and owned(id(gradient)) is None and {unowned}):
                    # (else: the accumulator does not own it, and it is no argument's memory: nothing to do)
                    gradient = unshared_from(release(gradient), ({params},))
                if gradient.ndim == 1 and gradient.dtype.kind == "f":
                    # has_nan's own test, written out: a real vector's sum of squares is NaN only where an
                    # element is (squares are never negative: no inf - inf); only then is it looked at closely
                    total = gradient.dot(gradient)
                    nan = total != total and has_nan(gradient)
                else:
                    nan = has_nan(gradient)
                if nan:
                    refuse(gradient, output)
                return {result}
            return handed_back(output, None, cotangents, ({params},), ({position},))
        return None
    return gradient_of_array
'''


def array_lane(typed, otherwise, seed, count: int, position: int, with_value: bool, refuse, handed_back,
               current=None):
    """The lane for calls of ``count`` positional arguments differentiated with respect to the one
    at ``position``, an ndarray: ``typed(*args)`` (api._typed) gives the typed rrule's ``(value,
    pullback)``, or None for arguments it does not serve, which ``otherwise(*args)`` (the blocks,
    or None) may serve, giving ``(value, cotangents)``; ``seed(value)`` is the pullback's seed for a
    value that is no float. A cotangent of the argument's shape and dtype is handed over as
    ``hand_over`` does it: released by the accumulator, copied if it shares memory with an
    argument (``unshared_from``), refused if it holds a NaN. ``current``: as for float_lane."""
    from .runtime.accumulate import owned_reference, release
    from .runtime.finiteness import has_nan
    from .runtime.isolation import unshared_from
    import numpy as np

    params = [f"a{i}" for i in range(count)]
    text = ARRAY_LANE_TEMPLATE.format(params=", ".join(params), argument=params[position], slot=1 + position,
                                      position=position, result="output, gradient" if with_value else "gradient",
                                      # each argument a float or an array owning its memory, not the gradient
                                      unowned=" and ".join(f"({p}.__class__ is float or {p}.__class__ is ndarray "
                                                           f"and {p}.base is None and {p} is not gradient)"
                                                           for p in params),
                                      current_params=CURRENT_PARAMS if current else "",
                                      current=CURRENT_TEST if current else "")
    return _made(text, typed, otherwise, seed, refuse, handed_back, release, owned_reference, unshared_from, has_nan,
                 np.ndarray, np.float64, *(current or ()))


def _made(text: str, *values):
    namespace = {}
    exec(compile(text, "<s2sad lane>", "exec"), namespace)
    return namespace["make"](*values)
