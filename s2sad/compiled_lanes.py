"""The fast lane of ``compile=True``: a warm compiled gradient's calls of the argument kinds it has served.

The first call of each kind of arguments takes the long way through ``compiled.compiled_f``:
the lane found (the generated entry, its dispatcher, ``ACCEPTS``), the typed code's integers
checked, the verdict written. Once a call of Python floats and float64 arrays alone (no keyword
arguments, no objects, no None) has passed all that, what is left of a later call of the same
kinds is what a right answer needs:

- the staleness check (the registry's generation and the entry's ``__s2sad_current__``: a
  function, global or helper redefined since is noticed, and the long way makes the code again);
  written out test by test where the check has them in words (lanes._check_words);
- the argument kinds: each argument's class, and an array's dtype and rank, as in the first
  call (``ACCEPTS`` tests classes, dtypes and ranks alone, so a call of the same kinds is one it
  accepted); for machine code kept ahead of time, also the array's layout flags its kind names;
  for an ``ELEMENTWISE_SUM`` function, arrays too small for the NumPy path's blocks;
- the machine call, an error of which goes where the long way sends it (``on_error``); for floats
  alone, the version Numba compiled for floats, called without its dispatcher (``_entry_point``);
- the finiteness check (on inf or NaN the NumPy path decides, as in the long way), the floats'
  in one sum;
- unsharing: an array gradient sharing memory with an argument or another gradient is copied.

Written out from LANE_BODY for one call's kinds, as lanes.py writes the NumPy path's lanes: a
loop over the arguments would cost more than the tests. The lane returns None for a call it
does not serve, before running anything: the long way serves it.

The function ``grad(f, compile=True)`` returns (``entry``) then takes the newest such lane's body
into its own code (``warm_up``), as lanes.warm_up does for the NumPy path: a warm call is one
Python frame around the machine code, where it was two. The values the body reads are put in
the entry's namespace under names of that warm-up's own (``lane1_machine``, ...), so a thread
still running an earlier warm-up's code reads the values that code was made with.
"""
from __future__ import annotations

import ast
import threading

import numpy as np

from .lanes import check_namespace

# The lane's test and body: the names it reads are fast_lane's ``values`` (the machine, the checked objects, ...),
# or the call's own (a0, ..., served, value, gradients, g0, ..., error)
LANE_BODY = '''\
try:  # the kinds, then the staleness check
    served = {kinds} and registry["_generation"] == generation and {check}
except Exception:  # a name or attribute the code depends on is gone
    served = False
if served:
    try:
        value, gradients = machine({call})
    except Exception as error:  # noqa: BLE001 - the long way's handling says what it means
        return on_error(error, ({params},))
    {gradients} = gradients
    if {finite}:
{unshare}        return {result}
    return numpy_path({params})  # inf or NaN: the NumPy path decides
'''

LANE_TEMPLATE = '''\
def compiled_fast_lane({params}):
{body}    return None
'''

# The function grad(f, compile=True) returns: a frame of its own, with no cells, in a namespace of its own, so
# that its code can become WARM_TEMPLATE's (warm_up)
ENTRY_TEMPLATE = '''\
def compiled_f(*args, **kwargs):
    if not kwargs:
        fast = fast_lanes.get(len(args))
        if fast is not None:  # a warm call of kinds already served
            done = fast[0](*args)
            if done is not None:
                return done
    return long_way(args, kwargs)
'''

# The entry with a lane's test and body ahead of its own code (entry_body: ENTRY_TEMPLATE's), which serves what
# the lane does not
WARM_TEMPLATE = '''\
def compiled_f(*args, **kwargs):
    if not kwargs and len(args) == {count}:
        {params}, = args
{body}{entry_body}'''

_ENTRY_CODE = compile(ENTRY_TEMPLATE, "<s2sad compiled grad>", "exec").co_consts[0]
_ENTRY_NAMES = ("fast_lanes", "long_way", "args", "kwargs", "fast", "done")
_MOST_WARM_UPS = 16  # an entry whose function keeps being redefined stops being warmed up (see warm_up)

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


class _Lane:
    """A fast lane's body (LANE_BODY filled in), its parameters and the values its names read."""

    def __init__(self, body: str, params: list, values: dict):
        self.body, self.params, self.values = body, params, values


def fast_lane(args: tuple, defaults: tuple, gradients: tuple, *, single: bool, with_value: bool,
              layouts: bool, smallest: int | None, current, target, registry_generation, generation: int,
              machine, on_error, numpy_path, finite_array):
    """The fast lane for calls of the kinds of ``args`` (``servable``), the ``defaults`` appended.
    ``gradients``: what the first call's compiled code returned (their kinds are those of every
    call of these kinds). ``layouts``: test the arrays' layout flags (``machine`` is machine code
    kept for one layout); ``smallest``: only arrays of fewer elements are served (ELEMENTWISE_SUM).
    ``current(target)``: whether the code is current (under the registry's ``generation``)."""
    from . import registry as registry_module

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
    floats = [g for g, v in zip(names, gradients) if v.__class__ is float]
    # the floats in one test: a sum of finite floats times 0.0 is 0.0, and an inf or NaN among them makes it
    # NaN (a sum past the largest float is taken for an inf: the NumPy path then answers, as it may)
    finite = [f"({' + '.join(['value', *floats])}) * 0.0 == 0.0"]
    # (finite_array reads a vector: compiled._finite_elements, one version per dtype and layout)
    finite += [f"finite_array({g})" if v.ndim == 1 else f"finite_array({g}.reshape(-1))"
               for g, v in zip(names, gradients) if v.__class__ is not float]
    # an array gradient is copied when it may share memory with an array argument or an earlier gradient
    held = [name for name, a in zip(params, args) if a.__class__ is np.ndarray]
    held += [f"d{i}" for i, d in enumerate(defaults) if d.__class__ is np.ndarray]
    unshare = []
    for g, v in zip(names, gradients):
        if v.__class__ is np.ndarray:
            if held:
                shared = " or ".join(f"may_share_memory({g}, {other})" for other in held)
                unshare.append(f"        if {shared}:\n            {g} = {g}.copy()\n")
            held.append(g)
    gradient = names[0] if single else f"({', '.join(names)},)"
    if not single and all(v.__class__ is float for v in gradients):
        gradient = "gradients"  # (the tuple the machine code made: no one else holds it)
    defaults_params = [f"d{i}" for i in range(len(defaults))]
    check, check_values = check_namespace(current, target, len(args))
    body = LANE_BODY.format(
        params=", ".join(params),
        kinds=" and ".join(tests) or "True",
        check=check,
        call=", ".join(params + defaults_params),
        gradients=", ".join(names) + ("," if len(names) == 1 else ""),
        finite=" and ".join(finite),
        unshare="".join(unshare),
        result=f"value, {gradient}" if with_value else gradient)
    values = {"registry": vars(registry_module), "generation": generation, "machine": _entry_point(machine, args + defaults),
              "compiled_by": machine,  # (whose overloads own the machine code an entry point runs)
              "on_error": on_error,
              "numpy_path": numpy_path, "finite_array": finite_array, "may_share_memory": np.may_share_memory,
              "ndarray": np.ndarray, "FLOAT64": _FLOAT64, **check_values, **dict(zip(defaults_params, defaults))}
    namespace = dict(values)
    text = LANE_TEMPLATE.format(params=", ".join(params), body=_indented(body, 1))
    exec(compile(text, "<s2sad compiled fast lane>", "exec"), namespace)
    lane = namespace["compiled_fast_lane"]
    lane.__s2sad_warm__ = _Lane(body, params, values)
    return lane


def _entry_point(machine, args: tuple):
    """What a lane calls for arguments of the kinds of ``args``: for Python floats alone, the machine
    code Numba compiled for them, called without its dispatcher's typing of each argument (a third of
    a warm scalar call; the lane has tested that each argument is a float); else ``machine`` itself.
    (An array's version is kept for one layout, which the lane does not test, so arrays go through
    the dispatcher, which picks the version for the layout or compiles one.)"""
    overloads = getattr(machine, "overloads", None)
    if not overloads or not all(a.__class__ is float for a in args):
        return machine
    from numba.core import types

    compiled = overloads.get((types.float64,) * len(args))
    return machine if compiled is None else compiled.entry_point


def _indented(text: str, levels: int) -> str:
    return "".join(" " * (4 * levels) + line + "\n" if line else "\n" for line in text.splitlines())


def entry(fast_lanes: dict, long_way):
    """The function ``grad(f, compile=True)`` returns, before ``functools.wraps``: ENTRY_TEMPLATE's, in a
    namespace of its own. ``fast_lanes``: number of arguments -> (fast lane, ...); ``long_way(args, kwargs)``."""
    import builtins
    import types

    namespace = {"__builtins__": builtins, "__name__": __name__, "fast_lanes": fast_lanes, "long_way": long_way}
    return types.FunctionType(_ENTRY_CODE, namespace, "compiled_f")


def warm_up(made_by_entry, lane) -> bool:
    """Make ``made_by_entry`` (``entry``'s function) run ``lane``'s test and body itself (a lane
    ``fast_lane`` made): a warm call is then one Python frame around the machine code. The newest
    lane made takes the place of one written in before (whose test fails for code no longer
    current anyway), until an entry has been warmed up _MOST_WARM_UPS times (a function redefined
    again and again: its lanes are then called, not written in). False where it does not go."""
    warm = getattr(lane, "__s2sad_warm__", None)
    if warm is None:
        return False
    with _warming:
        return _warmed(made_by_entry, warm)


def cool_down(made_by_entry) -> None:
    """``made_by_entry`` runs its own code again: no lane written in (a thread running one finishes it)."""
    with _warming:
        made_by_entry.__code__ = _ENTRY_CODE


_warming = threading.Lock()


def _warmed(made_by_entry, warm: _Lane) -> bool:
    namespace = made_by_entry.__globals__
    count = namespace.get("__s2sad_warm_ups__", 0)
    if namespace.get("long_way") is None or count >= _MOST_WARM_UPS:
        made_by_entry.__code__ = _ENTRY_CODE
        return False
    prefix = f"lane{count + 1}_"
    text = WARM_TEMPLATE.format(count=len(warm.params), params=", ".join(warm.params),
                                body=_indented(warm.body, 2),
                                entry_body="".join(ENTRY_TEMPLATE.splitlines(keepends=True)[1:]))
    tree = ast.parse(text)
    for node in ast.walk(tree):  # the lane's values under names of this warm-up's own
        if isinstance(node, ast.Name) and node.id in warm.values:
            node.id = prefix + node.id
    code = next(constant for constant in compile(tree, "<s2sad compiled grad>", "exec").co_consts
                if hasattr(constant, "co_code") and constant.co_name == "compiled_f")
    for name, value in warm.values.items():
        namespace[prefix + name] = value
    namespace["__s2sad_warm_ups__"] = count + 1
    made_by_entry.__code__ = code
    return True
