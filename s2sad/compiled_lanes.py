"""The fast lane of ``compile=True``: a warm compiled gradient's calls of the argument kinds it has served.

The first call of each kind of arguments takes the long way through ``compiled.compiled_f``:
the lane found (the generated entry, its dispatcher, ``ACCEPTS``), the typed code's integers
checked, the verdict written. Once a call of Python floats and float64 arrays alone (no keyword
arguments, no objects, no None) has passed all that, what is left of a later call of the same
kinds is what a right answer needs:

- the staleness check (the registry's generation and the entry's ``__s2sad_current__``: a
  function, global or helper redefined since is noticed, and the long way makes the code again);
- the argument kinds: each argument's class, and an array's dtype and rank, as in the first
  call (``ACCEPTS`` tests classes, dtypes and ranks alone, so a call of the same kinds is one it
  accepted); for machine code kept ahead of time, also the array's layout flags its kind names;
  for an ``ELEMENTWISE_SUM`` function, arrays too small for the NumPy path's blocks;
- the machine call, an error of which goes where the long way sends it (``on_error``);
- the finiteness check (on inf or NaN the NumPy path decides, as in the long way);
- unsharing: an array gradient sharing memory with an argument or another gradient is copied.

Written out from the template below for one call's kinds, as lanes.py writes the NumPy path's
lanes: a loop over the arguments would cost more than the tests. The lane returns None for a
call it does not serve, before running anything: the long way serves it.
"""
from __future__ import annotations

import numpy as np

FAST_LANE_TEMPLATE = '''\
def make(current, target, registry_generation, generation, machine, on_error, numpy_path, finite_array,
         may_share_memory, ndarray, FLOAT64{defaults_params}):
    def compiled_fast_lane({params}):
        if {kinds} and registry_generation() == generation and current(target):
            try:
                value, gradients = machine({call})
            except Exception as error:  # noqa: BLE001 - the long way's handling says what it means
                return on_error(error, ({params},))
            {gradients} = gradients
            if {finite}:
{unshare}                return {result}
            return numpy_path({params})  # inf or NaN: the NumPy path decides
        return None
    return compiled_fast_lane
'''

# the bits of ndarray.flags.num that machine code kept ahead of time tells apart (ahead_of_time.call_kind):
# C_CONTIGUOUS, F_CONTIGUOUS, ALIGNED, WRITEABLE
_LAYOUT_BITS = 0x1 | 0x2 | 0x100 | 0x400
_FLOAT64 = np.dtype(np.float64)


def servable(args: tuple, value, gradients: tuple) -> bool:
    """Whether calls like this one (its arguments and what the compiled code returned) can have a
    fast lane: Python floats and float64 arrays in, a float value and at least one gradient, each
    a float or a float64 array, out."""
    if value.__class__ is not float or not gradients:
        return False
    return all(v.__class__ is float or v.__class__ is np.ndarray and v.dtype == _FLOAT64 for v in (*args, *gradients))


def fast_lane(args: tuple, defaults: tuple, gradients: tuple, *, single: bool, with_value: bool,
              layouts: bool, smallest: int | None, current, target, registry_generation, generation: int,
              machine, on_error, numpy_path, finite_array):
    """The fast lane for calls of the kinds of ``args`` (``servable``), the ``defaults`` appended.
    ``gradients``: what the first call's compiled code returned (their kinds are those of every
    call of these kinds). ``layouts``: test the arrays' layout flags (``machine`` is machine code
    kept for one layout); ``smallest``: only arrays of fewer elements are served (ELEMENTWISE_SUM)."""
    params = [f"a{i}" for i in range(len(args))]
    tests = []
    for name, a in zip(params, args):
        if a.__class__ is float:
            tests.append(f"{name}.__class__ is float")
            continue
        # (NumPy's float64 dtype is one object; an array Numba made has its own, equal to it)
        test = (f"{name}.__class__ is ndarray and ({name}.dtype is FLOAT64 or {name}.dtype == FLOAT64) "
                f"and {name}.ndim == {a.ndim}")
        if layouts:
            test += f" and {name}.flags.num & {_LAYOUT_BITS:#x} == {a.flags.num & _LAYOUT_BITS:#x}"
        if smallest is not None:
            test += f" and {name}.size < {smallest}"
        tests.append(test)
    names = [f"g{k}" for k in range(len(gradients))]
    finite = ["value - value == 0.0"]
    # (finite_array reads a vector: compiled._finite_elements, one version per dtype and layout)
    finite += [f"{g} - {g} == 0.0" if v.__class__ is float else f"finite_array({g})" if v.ndim == 1
               else f"finite_array({g}.reshape(-1))" for g, v in zip(names, gradients)]
    # an array gradient is copied when it may share memory with an array argument or an earlier gradient
    held = [name for name, a in zip(params, args) if a.__class__ is np.ndarray]
    held += [f"d{i}" for i, d in enumerate(defaults) if d.__class__ is np.ndarray]
    unshare = []
    for g, v in zip(names, gradients):
        if v.__class__ is np.ndarray:
            if held:
                shared = " or ".join(f"may_share_memory({g}, {other})" for other in held)
                unshare.append(f"                if {shared}:\n                    {g} = {g}.copy()\n")
            held.append(g)
    gradient = names[0] if single else f"({', '.join(names)},)"
    defaults_params = [f"d{i}" for i in range(len(defaults))]
    text = FAST_LANE_TEMPLATE.format(
        params=", ".join(params),
        defaults_params="".join(f", {d}" for d in defaults_params),
        kinds=" and ".join(tests) or "True",
        call=", ".join(params + defaults_params),
        gradients=", ".join(names) + ("," if len(names) == 1 else ""),
        finite=" and ".join(finite),
        unshare="".join(unshare),
        result=f"value, {gradient}" if with_value else gradient)
    namespace: dict = {}
    exec(compile(text, "<s2sad compiled fast lane>", "exec"), namespace)
    return namespace["make"](current, target, registry_generation, generation, machine, on_error, numpy_path,
                             finite_array, np.may_share_memory, np.ndarray, _FLOAT64, *defaults)
