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
the staleness check among them, written out too (the registry's generation read where it is
kept, the check's chain of ``is`` tests in the lane's own text). The float lane has the
generated gradient for floats' body written into it, read from the generated module and
compiled under that module's file name and line numbers. The function ``grad`` returns
(``entry``) then takes the first such lane's test and body into its own code (``warm_up``): a
warm scalar call is one Python call, where it was four. A lane
returns what the call returns, or None when the call is not one it serves (an argument of
another type, or code no longer current), before running anything: the general lane, or
the long way, then serves it. The array lane calls the typed rrule and its pullback itself,
and writes out the cheap cases of handing the gradient over (an array that no accumulator
owns and no argument shares; a vector's NaN test), calling the general helpers otherwise. A gradient of
another kind than the lane expects is handed over as the general lane does
(``handed_back``), from what was computed: nothing runs twice.
"""
from __future__ import annotations

import threading

FLOAT_LANE_TEMPLATE = """\
def make(refuse, handed_back, registry, generation, function, gradient_for_floats{check_params}):
    def gradient_of_floats({params}):
        if {floats} and registry["_generation"] == generation:
            try:
                current = {check}
            except Exception:  # a name or attribute the code depends on is gone
                current = False
            if current:
                GRADIENT_FOR_FLOATS_BODY
                {gradients} = {slots}
                if {gradient_floats}:
                    if {nan}:
                        refuse({gradient}, {value})
                    return {result}
                return handed_back({value}, None, {cotangents}, ({params},), {positions!r})
        return None
    return gradient_of_floats
"""

# The gradient for floats called, where its body is not written into the lane (see _inlined)
CALLED_BODY = """\
done = gradient_for_floats({params})
if done is None:
    return None
value, cotangents = done
"""


def float_lane(gradient_for_floats, count: int, positions: tuple, with_value: bool, single: bool,
               refuse, handed_back, current=None):
    """The lane for calls of ``count`` positional arguments whose arguments at ``positions`` are
    Python floats: ``gradient_for_floats(*args)`` gives ``(value, cotangents)`` (cotangents[0]
    the function's own), or None for arguments it does not serve. ``refuse(gradient, value)``
    is called with a gradient holding a NaN (api: refuse_nan); ``handed_back(value, None,
    cotangents, args, positions)`` hands back cotangents that are not all floats. ``current``:
    ``(check, function, registry_generation, generation)``, the test that the code is current
    (``check(function)`` under the registry's ``generation``), run in the lane before anything
    else (None: the caller runs it, and the lane tests nothing more).

    The check's tests are written into the lane where the check has them in words
    (validity.py: ``__s2sad_tests__``), and so is the body of a generated gradient for floats
    (``GRADIENT_FOR_FLOATS``), its lines keeping their file and numbers (an error raised in
    them points at the user's line as before): a scalar call's three Python calls become one."""
    from . import registry as registry_module

    _, function, _, generation = current or (None, None, None, None)
    inlined = _inlined(gradient_for_floats, count)
    values = (refuse, handed_back, vars(registry_module), generation, function, gradient_for_floats,
              *_check_values(current))
    if inlined is not None:
        made = _spliced(_float_lane_text(inlined, count, positions, with_value, single, current), inlined)
        if made is not None:
            make, tree, namespace = made
            lane = make(*values)
            if current is not None and not _returns(inlined.body):  # (a `return` in it would return from grad's function)
                names = [argument.arg for argument in tree.body[0].args.args]
                lane.__s2sad_warm__ = _Warm(tree.body[0].body[0].body[0], count, inlined.params,
                                            {**namespace, **dict(zip(names, values))},
                                            inlined.function.__code__.co_filename)
            return lane
    return _made(_float_lane_text(None, count, positions, with_value, single, current), *values)


def _float_lane_text(inlined, count: int, positions: tuple, with_value: bool, single: bool, current) -> str:
    """FLOAT_LANE_TEMPLATE filled in: for ``inlined``'s body written in (its parameters' names, its
    value and cotangents read where it left them), or, with None, for the gradient called."""
    params = inlined.params if inlined else [f"a{i}" for i in range(count)]
    gradients = [f"lane_gradient_{position}" for position in positions]
    gradient = gradients[0] if single else f"({', '.join(gradients)},)"
    slots = [inlined.cotangents[1 + p] if inlined else f"cotangents[{1 + p}]" for p in positions]
    value = inlined.value if inlined else "value"
    text = FLOAT_LANE_TEMPLATE.format(
        params=", ".join(params),
        **_check_words(current, count),
        floats=" and ".join(_kinds_tested(params, positions, inlined)),
        gradients=", ".join(gradients) + ("," if len(gradients) == 1 else ""),
        slots=", ".join(slots) + ("," if len(slots) == 1 else ""),
        gradient_floats=" and ".join(f"{g}.__class__ is float" for g in gradients),
        nan=" or ".join(f"{g} != {g}" for g in gradients),  # only NaN is not equal to itself
        gradient=gradient,
        value=value,
        result=f"{value}, {gradient}" if with_value else gradient,
        cotangents=f"({', '.join(inlined.cotangents)})" if inlined else "cotangents",
        positions=tuple(positions))
    if current is None:  # nothing to test but the arguments' kinds
        text = text.replace(' and registry["_generation"] == generation', "")
    if inlined is None:
        text = text.replace(" " * 16 + "GRADIENT_FOR_FLOATS_BODY\n",
                            _indented(CALLED_BODY.format(params=", ".join(params)), 4))
    return text


def _kinds_tested(params, positions, inlined) -> list[str]:
    """The lane's tests of its arguments' classes: the differentiated ones are floats, and whatever the
    body's entry test wanted (left to the lane: see _floats_tested)."""
    tests = [f"{params[p]}.__class__ is float" for p in positions]
    return tests + [test for test in (inlined.tested if inlined else ()) if test not in tests]


def _check_words(current, count: int | None = None) -> dict:
    """The template's ``check`` (the test that the code is current, an expression) and
    ``check_params`` (the names it reads besides ``function``), from ``current``: the check's
    tests written out where it has them in words (validity.py: ``__s2sad_tests__``), else a call.
    ``count``: the lane serves calls of that many positional arguments and no keywords (see _all_given)."""
    if current is None:
        return {"check": "True", "check_params": ""}
    tests = getattr(current[0], "__s2sad_tests__", None)
    if tests is None:
        return {"check": "check(function)", "check_params": ", check"}
    words = tests[0]
    if count is not None and _all_given(current[1], count):
        words = " and ".join(test for test in tests[2] if test not in tests[3]) or "True"
    return {"check": f"({words})", "check_params": "".join(f", {name}" for name in tests[1])}


def check_namespace(check, function, count: int) -> tuple[str, dict]:
    """``(words, values)``: the test that code ``check(function)`` says is current, as an expression
    (``_check_words``) over the names in ``values`` (``function`` among them), for a lane serving calls
    of ``count`` positional arguments and no keywords."""
    current = (check, function, None, None)
    words = _check_words(current, count)
    names = [name.strip() for name in words["check_params"].split(",") if name.strip()]
    return words["check"], {"function": function, **dict(zip(names, _check_values(current)))}


def _all_given(function, count: int) -> bool:
    """Whether a call of ``count`` positional arguments gives ``function`` every parameter it has:
    then its defaults are never read, and a lane's check need not test that they are still the
    ones its code was made with (the test of its code stays, so a code with other parameters is
    noticed). Two of the six tests of a scalar function's check, a sixth of a warm call."""
    import inspect

    code = getattr(function, "__code__", None)
    return code is not None and count == code.co_argcount and not code.co_kwonlyargcount \
        and not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)


def _check_values(current) -> tuple:
    """The values of ``_check_words(current)``'s names, in their order."""
    if current is None:
        return ()
    tests = getattr(current[0], "__s2sad_tests__", None)
    return (current[0],) if tests is None else tuple(tests[1].values())


class _Inlined:
    """What of a generated gradient for floats a lane writes into itself: its parameters, its
    statements but the last, and what that last returns (the value, the cotangents)."""

    def __init__(self, function, definition, params, value, cotangents, tested=(), body=None):
        self.function, self.definition = function, definition
        self.params, self.value, self.cotangents = params, value, cotangents
        # the tests of its entry test (each a parameter's class), where that test is left to the lane
        self.tested, self.body = tested, body if body is not None else definition.body[:-1]


def _inlined(gradient_for_floats, count: int):
    """``gradient_for_floats``'s body to write into a lane, or None where it cannot go in as it
    is: not the generated module's ``GRADIENT_FOR_FLOATS``, its source not to be had, parameters
    other than ``count`` plain ones, a ``return`` of anything but None before the last statement
    (a lane's None: not served), nested definitions or generators, or a last statement that is
    not ``return value, (NO_TANGENT, cotangent, ...)`` of names and constants."""
    import ast
    import inspect

    if getattr(gradient_for_floats, "__globals__", {}).get("GRADIENT_FOR_FLOATS") is not gradient_for_floats:
        return None
    try:
        source = inspect.getsource(inspect.getmodule(gradient_for_floats))
    except (OSError, TypeError):
        return None
    code = gradient_for_floats.__code__
    tree = ast.parse(source)
    definition = next((node for node in tree.body if isinstance(node, ast.FunctionDef)
                       and node.name == code.co_name and node.lineno == code.co_firstlineno), None)
    if definition is None or definition.decorator_list or not _same_code(tree, code):
        return None
    arguments = definition.args
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.defaults or arguments.posonlyargs \
            or len(arguments.args) != count:
        return None
    *body, last = definition.body
    for node in (inner for statement in body for inner in ast.walk(statement)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.Yield, ast.YieldFrom,
                             ast.Await, ast.Global, ast.Nonlocal)):
            return None
        if isinstance(node, ast.Return) and not (node.value is None or
                                                 isinstance(node.value, ast.Constant) and node.value.value is None):
            return None
    simple = (ast.Name, ast.Constant)
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Tuple) and len(last.value.elts) == 2
            and isinstance(last.value.elts[0], simple) and isinstance(last.value.elts[1], ast.Tuple)
            and len(last.value.elts[1].elts) == count + 1
            and all(isinstance(element, simple) for element in last.value.elts[1].elts)):
        return None
    params = [argument.arg for argument in arguments.args]
    tested = _floats_tested(body[0], params) if body else None
    return _Inlined(gradient_for_floats, definition, params, ast.unparse(last.value.elts[0]),
                    [ast.unparse(element) for element in last.value.elts[1].elts],
                    tested or (), body[1:] if tested else body)


def _floats_tested(statement, params) -> list | None:
    """The tests of a generated entry test ``if not (x.__class__ is float and (n.__class__ is float or
    n.__class__ is int) ...): return None`` (each a parameter's class), which the lane makes instead:
    once, not twice; None for any other statement."""
    import ast

    if not (isinstance(statement, ast.If) and not statement.orelse and len(statement.body) == 1
            and isinstance(statement.body[0], ast.Return) and isinstance(statement.body[0].value, ast.Constant)
            and statement.body[0].value.value is None
            and isinstance(statement.test, ast.UnaryOp) and isinstance(statement.test.op, ast.Not)):
        return None
    test = statement.test.operand
    tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    tested = []
    for one in tests:
        kinds = one.values if isinstance(one, ast.BoolOp) and isinstance(one.op, ast.Or) else [one]
        owners = {_class_tested(kind, params) for kind in kinds}  # (one parameter's classes)
        if len(owners) != 1 or None in owners:
            return None
        tested.append(f"({ast.unparse(one)})" if len(kinds) > 1 else ast.unparse(one))
    return tested


def _class_tested(node, params) -> str | None:
    """``p`` for a test ``p.__class__ is float`` (or ``int``) of a parameter ``p``, else None."""
    import ast

    if (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Is)
            and isinstance(node.left, ast.Attribute) and node.left.attr == "__class__"
            and isinstance(node.left.value, ast.Name) and node.left.value.id in params
            and isinstance(node.comparators[0], ast.Name) and node.comparators[0].id in ("float", "int")):
        return node.left.value.id
    return None


def _same_code(tree, code) -> bool:
    """Whether the module ``tree`` compiles ``code``'s function to the same bytecode, names and
    constants: the text read is the text that runs."""
    module = compile(tree, code.co_filename, "exec")
    made = next((constant for constant in module.co_consts if hasattr(constant, "co_code")
                 and constant.co_name == code.co_name and constant.co_firstlineno == code.co_firstlineno), None)
    return made is not None and (made.co_code, made.co_names, made.co_varnames, made.co_consts) == \
        (code.co_code, code.co_names, code.co_varnames, code.co_consts)


def _spliced(text: str, inlined: _Inlined):
    """``(make, its tree, the generated module's namespace)``: the lane's ``make``, with the body of
    ``inlined`` where the template says GRADIENT_FOR_FLOATS_BODY; compiled in the generated module's name and a copy of its
    namespace (the values its body reads were bound when it was loaded, and do not change), the
    lane's own lines numbered as the gradient's ``def`` line. None if a name of the lane's is
    one the body reads or assigns."""
    import ast
    import copy

    lane = ast.parse(text)
    body = [node for statement in inlined.definition.body for node in ast.walk(statement) if isinstance(node, ast.Name)]
    # the lane's own names: make's parameters (the values it holds) and what the lane assigns; its parameters
    # are the body's on purpose, and the builtins it reads the body may read too, but not assign
    made, written_in = lane.body[0], lane.body[0].body[0]
    own = {argument.arg for argument in made.args.args} | \
        {node.id for node in ast.walk(written_in) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    builtins_read = {"float", "Exception"}
    if (own - set(inlined.params)) & {node.id for node in body} or \
            builtins_read & {node.id for node in body if not isinstance(node.ctx, ast.Load)}:
        return None
    line = inlined.definition.lineno
    for node in ast.walk(lane):
        if "lineno" in node._attributes:
            node.lineno = node.end_lineno = line
            node.col_offset = node.end_col_offset = 0
    for node in ast.walk(lane):
        for field, statements in ast.iter_fields(node):
            if isinstance(statements, list):
                for index, statement in enumerate(statements):
                    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Name) \
                            and statement.value.id == "GRADIENT_FOR_FLOATS_BODY":
                        statements[index:index + 1] = copy.deepcopy(inlined.body)
                        namespace = dict(inlined.function.__globals__)
                        exec(compile(lane, inlined.function.__code__.co_filename, "exec"), namespace)
                        return namespace["make"], lane, inlined.function.__globals__
    return None


def _indented(text: str, levels: int) -> str:
    return "".join(" " * (4 * levels) + line + "\n" for line in text.splitlines())


# The function grad and value_and_grad return. Its globals are a namespace of its own, so that once a
# float lane is made its code can become the lane's (warm_up): one Python call for a warm scalar call.
ENTRY_TEMPLATE = '''\
def differentiated_f(*args, **kwargs):
    # the lane written out, which checks that it is current; else the general lane, or the long way (api)
    written = None if kwargs else written_lanes.get(len(args))
    if written is not None:
        try:
            done = written(*args)
        except BaseException as error:
            point_at_user_source(error)
            raise
        if done is not None:
            return done
    return called(args, kwargs)
'''

# The entry with a float lane's test and body written into it, ahead of the entry's own code (ENTRY_BODY),
# which serves what the lane does not (LANE falls through when it does not serve the call).
WARM_TEMPLATE = '''\
def differentiated_f(*args, **kwargs):
    if not kwargs and len(args) == COUNT:
        PARAMS = args
        try:
            LANE
        except BaseException as error:
            point_at_user_source(error)
            raise
    ENTRY_BODY
'''

_ENTRY_CODE = compile(ENTRY_TEMPLATE, "<s2sad grad>", "exec").co_consts[0]
_ENTRY_NAMES = ("written_lanes", "called", "point_at_user_source", "args", "kwargs", "written", "done", "error")


def entry(written_lanes: dict, called, point_at_user_source):
    """The function ``grad(f)`` returns, before ``functools.wraps``: ENTRY_TEMPLATE's, in a namespace of
    its own. ``written_lanes``: number of arguments -> lane (returns what the call returns, or None);
    ``called(args, kwargs)``: the rest."""
    import builtins
    import types

    namespace = {"__builtins__": builtins, "__name__": __name__, "written_lanes": written_lanes, "called": called,
                 "point_at_user_source": point_at_user_source}
    return types.FunctionType(_ENTRY_CODE, namespace, "differentiated_f")


class _Warm:
    """What ``warm_up`` writes into an entry: a float lane's test-and-body statement (its tree), the
    number and names of the parameters it reads, the values of the names it reads, its file name."""

    def __init__(self, statement, count: int, params: list, values: dict, filename: str):
        self.statement, self.count, self.params, self.values, self.filename = statement, count, params, values, filename


def warm_up(made_by_entry, lane) -> bool:
    """Make ``made_by_entry`` (``entry``'s function) run ``lane``'s test and body itself, a float lane
    ``float_lane`` made with its body written in: a warm scalar call is then one Python call. Once per
    entry (its namespace then holds the lane's values, which are never replaced: a thread running it
    reads the values its code was made with); False where it does not go (no lane body to write in, a
    name of the lane's that the entry's own code uses, or an entry already warmed up). The lane's test
    is the lane's: a call it does not serve, or code no longer current, runs the entry's own code."""
    warm = getattr(lane, "__s2sad_warm__", None)
    if warm is None:
        return False
    with _warming:  # (two threads warming one entry up: the values and the code are one lane's)
        return _warmed(made_by_entry, warm)


_warming = threading.Lock()


def _warmed(made_by_entry, warm) -> bool:
    import ast
    import copy

    namespace = made_by_entry.__globals__
    if made_by_entry.__code__ is not _ENTRY_CODE or "__s2sad_warm__" in namespace:
        return False
    read = {node.id for node in ast.walk(warm.statement) if isinstance(node, ast.Name)}
    if read & set(_ENTRY_NAMES) or any(name in namespace and namespace[name] is not warm.values[name]
                                       for name in read if name in warm.values):
        return False
    tree = ast.parse(WARM_TEMPLATE)
    function = tree.body[0]
    served = function.body[0]
    served.test.values[1].comparators[0] = ast.Constant(warm.count)
    served.body[0].targets[0] = ast.Tuple([ast.Name(p, ast.Store()) for p in warm.params], ast.Store())
    function.body[1:] = ast.parse(ENTRY_TEMPLATE).body[0].body
    line = warm.statement.lineno  # (the lane's own lines are numbered so: the gradient's `def` line)
    for node in ast.walk(tree):
        if "lineno" in node._attributes:
            node.lineno = node.end_lineno = line
            node.col_offset = node.end_col_offset = 0
    served.body[1].body[0] = copy.deepcopy(warm.statement)  # the body's lines keep their numbers
    code = next(constant for constant in compile(tree, warm.filename, "exec").co_consts
                if hasattr(constant, "co_code") and constant.co_name == "differentiated_f")
    for name, value in warm.values.items():
        namespace.setdefault(name, value)
    namespace["__s2sad_warm__"] = True
    made_by_entry.__code__ = code
    return True


def _returns(statements) -> bool:
    import ast

    return any(isinstance(node, ast.Return) for statement in statements for node in ast.walk(statement))


ARRAY_LANE_TEMPLATE = '''\
def make(typed, otherwise, seed, refuse, handed_back, release, owned, unshared_from, has_nan, ndarray, float64,
         float64_dtype, registry, generation, function{check_params}):
    def gradient_of_array({params}):
        if {argument}.__class__ is ndarray and registry["_generation"] == generation:
            try:
                current = {check}
            except Exception:  # a name or attribute the code depends on is gone
                current = False
        else:
            current = False
        if current:
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
            dtype = gradient.dtype if gradient.__class__ is ndarray else None  # (`is` first: dtypes are mostly shared)
            if dtype is not None and gradient.shape == {argument}.shape \\
                    and (dtype is {argument}.dtype or dtype == {argument}.dtype):
                if not (gradient.base is None and owned(id(gradient)) is None and {unowned}):
                    # (else: the accumulator does not own it, and it is no argument's memory: nothing to do)
                    gradient = unshared_from(release(gradient), ({params},))
                if gradient.ndim == 1 and (dtype is float64_dtype or dtype.kind == "f"):
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
    from . import registry as registry_module
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
                                      **_check_words(current))
    if current is None:  # nothing to test but the argument's kind
        text = text.replace(' and registry["_generation"] == generation', "")
    _, function, _, generation = current or (None, None, None, None)
    return _made(text, typed, otherwise, seed, refuse, handed_back, release, owned_reference, unshared_from, has_nan,
                 np.ndarray, np.float64, np.dtype(np.float64), vars(registry_module), generation, function,
                 *_check_values(current))


def _made(text: str, *values):
    namespace = {}
    exec(compile(text, "<s2sad lane>", "exec"), namespace)
    return namespace["make"](*values)
