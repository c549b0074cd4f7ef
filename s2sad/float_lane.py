"""The float lane: a warm ``grad``'s call of Python floats, written out for its arguments.

Once a derivative's first call has taken the long way (api._run: every check, the code
generated and typed), later calls with the same number of positional arguments go to its
lane (api._differentiated), which first checks that the code is still current for the
function (cache/validity.py: its code, defaults and every dependency ``is`` what it was).
For a function with a gradient for floats (``GRADIENT_FOR_FLOATS``), what is left of such a
call is a few tests and the generated function's own arithmetic; written as a loop over the
differentiated positions, those tests cost more than the arithmetic of a small function.

So the lane for floats is a function made for one number of arguments and one tuple of
differentiated positions, from the template below: the same tests as the general lane,
named one by one. It returns what the call returns, or None when the call is not one it
serves (an argument that is not a float, or a gradient the generated code gave that is not
a float), before or without running anything twice: the general lane then serves it.
"""
from __future__ import annotations

LANE_TEMPLATE = '''\
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
    text = LANE_TEMPLATE.format(
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
    namespace = {}
    exec(compile(text, "<s2sad float lane>", "exec"), namespace)
    return namespace["make"](gradient_for_floats, refuse, handed_back)
