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
positions, from the templates below: the same tests as the general lane, named one by one.
It returns what the call returns, or None when the call is not one it serves (an argument
of another type), before running anything: the general lane then serves it. A gradient of
another kind than the lane expects is handed over as the general lane does
(``handed_back``), from what was computed: nothing runs twice.
"""
from __future__ import annotations

FLOAT_LANE_TEMPLATE = '''\
def make(gradient_for_floats, refuse, handed_back):
    def {name}({params}):
        if {floats}:
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


def float_lane(gradient_for_floats, count: int, positions: tuple, with_value: bool, single: bool,
               refuse, handed_back):
    """The lane for calls of ``count`` positional arguments whose arguments at ``positions`` are
    Python floats: ``gradient_for_floats(*args)`` gives ``(value, cotangents)`` (cotangents[0]
    the function's own), or None for arguments it does not serve. ``refuse(gradient, value)``
    is called with a gradient holding a NaN (api: refuse_nan); ``handed_back(value, None,
    cotangents, args, positions)`` hands back cotangents that are not all floats."""
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
        positions=tuple(positions))
    return _made(text, gradient_for_floats, refuse, handed_back)


ARRAY_LANE_TEMPLATE = '''\
def make(typed_gradient, refuse, handed_back, release, unshared_from, has_nan, ndarray):
    def gradient_of_array({params}):
        if {argument}.__class__ is ndarray:
            done = typed_gradient({params})
            if done is not None:
                cotangents = done[1]
                gradient = cotangents[{slot}]
                if gradient.__class__ is ndarray and gradient.shape == {argument}.shape \\
                        and gradient.dtype == {argument}.dtype:
                    gradient = unshared_from(release(gradient), ({params},))
                    if has_nan(gradient):
                        refuse(gradient, done[0])
                    return {result}
                return handed_back(done[0], None, cotangents, ({params},), ({position},))
        return None
    return gradient_of_array
'''


def array_lane(typed_gradient, count: int, position: int, with_value: bool, refuse, handed_back):
    """The lane for calls of ``count`` positional arguments differentiated with respect to the one
    at ``position``, an ndarray: ``typed_gradient(*args)`` (api._typed_gradient) gives ``(value,
    cotangents)``, or None for arguments it does not serve. A cotangent of the argument's shape
    and dtype is handed over as ``hand_over`` does it: released by the accumulator, copied if it
    shares memory with an argument (``unshared_from``), refused if it holds a NaN."""
    from .runtime.accumulate import release
    from .runtime.finiteness import has_nan
    from .runtime.isolation import unshared_from
    import numpy as np

    params = [f"a{i}" for i in range(count)]
    text = ARRAY_LANE_TEMPLATE.format(params=", ".join(params), argument=params[position], slot=1 + position,
                                      position=position, result="done[0], gradient" if with_value else "gradient")
    return _made(text, typed_gradient, refuse, handed_back, release, unshared_from, has_nan, np.ndarray)


def _made(text: str, *values):
    namespace = {}
    exec(compile(text, "<s2sad lane>", "exec"), namespace)
    return namespace["make"](*values)
