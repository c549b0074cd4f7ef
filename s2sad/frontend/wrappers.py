"""Decorators that hand their function's result back unchanged: timing, logging, counting.

A decorator's wrapper is code, differentiated as written (see ``resolve.unwrap``). One kind
of wrapper s2sad cannot translate, ``fn(*args, **kwargs)`` forwarding, is also the most
common, and often it does nothing to the value: it times the call, logs it, counts it,
and returns what ``fn`` returned. Its derivative is then ``fn``'s own. ``forwarded_function``
recognises that shape from the wrapper's source, strictly:

* the wrapper's parameters are ``*args`` and optionally ``**kwargs``, nothing else;
* its ``__wrapped__`` is the function a closure variable ``fn`` holds;
* exactly one call ``fn(*args)`` or ``fn(*args, **kwargs)``, run once (in the body, or
  the body of a ``with`` or of a ``try`` with no ``except``; not in a loop or a condition),
  either returned directly or assigned to
  a name ``result`` that is assigned nowhere else;
* every ``return`` returns that call or ``result``; the names ``args``, ``kwargs``,
  ``fn`` and ``result`` appear nowhere else (so no other code reads or changes the
  arguments or the result), but for ``fn.__name__`` and the like.

Anything else is left to the general path (which refuses ``*`` unpacking, naming the
decorator). The wrapper's other statements (the timing, the log line) do not run when s2sad
differentiates the wrapped function in its place.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import weakref

_NAMES_OF_A_FUNCTION = {"__name__", "__qualname__", "__module__", "__doc__"}
_verdicts: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # wrapper code -> wrapped or None


def forwarded_function(function):
    """The function ``function`` forwards to unchanged, or None (see the module's docstring)."""
    if not inspect.isfunction(function):
        return None
    wrapped = function.__dict__.get("__wrapped__")
    if wrapped is None or not callable(wrapped):
        return None
    code = function.__code__
    try:
        verdict = _verdicts[code]
    except KeyError:
        verdict = _verdicts[code] = _forwarding_names(function)
    if verdict is None:
        return None
    fn_name = verdict
    cells = dict(zip(code.co_freevars, function.__closure__ or ()))
    try:
        held = cells[fn_name].cell_contents
    except (KeyError, ValueError):
        return None
    return wrapped if held is wrapped else None


def _forwarding_names(function) -> str | None:
    """The closure name of the function forwarded to, when the source has the shape above."""
    code = function.__code__
    if code.co_argcount or code.co_kwonlyargcount or code.co_posonlyargcount \
            or not code.co_flags & inspect.CO_VARARGS:
        return None
    definition = function_definition(function)
    if definition is None:
        return None
    arguments = definition.args
    star = arguments.vararg.arg if arguments.vararg else None
    double_star = arguments.kwarg.arg if arguments.kwarg else None
    if star is None:
        return None
    body = ast.Module(body=definition.body, type_ignores=[])  # not the decorators: @functools.wraps(fn) names fn
    calls = [node for node in ast.walk(body) if isinstance(node, ast.Call) and _is_forwarding(node, star, double_star)]
    if len(calls) != 1:
        return None
    call = calls[0]
    fn_name = call.func.id
    if fn_name not in code.co_freevars:
        return None
    result = _where_the_result_goes(definition.body, call)
    if result is False:
        return None
    allowed = {id(node) for node in ast.walk(call)}
    for node in ast.walk(body):
        if isinstance(node, ast.Return):
            if node.value is call or (result is not None and isinstance(node.value, ast.Name) and node.value.id == result):
                allowed.add(id(node.value))
                continue
            return None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return None  # a nested scope could read the names in ways this walk does not follow
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return None
    for node in ast.walk(body):  # print(f"calling {fn.__name__}"): reading fn's names leaves everything alone
        if isinstance(node, ast.Attribute) and node.attr in _NAMES_OF_A_FUNCTION and isinstance(node.value, ast.Name) \
                and node.value.id == fn_name:
            allowed.add(id(node.value))
    names = {star, double_star, fn_name, result} - {None}
    for node in ast.walk(body):
        if isinstance(node, ast.Name) and node.id in names and id(node) not in allowed:
            if result is not None and node.id == result and id(node) in _assignment_targets(definition.body, call):
                continue
            return None
    return fn_name


def _is_forwarding(node: ast.Call, star: str, double_star: str | None) -> bool:
    """``fn(*args)`` or ``fn(*args, **kwargs)``, exactly."""
    if not isinstance(node.func, ast.Name) or len(node.args) != 1 or not isinstance(node.args[0], ast.Starred):
        return False
    if not (isinstance(node.args[0].value, ast.Name) and node.args[0].value.id == star):
        return False
    if double_star is None:
        return not node.keywords
    return (len(node.keywords) == 1 and node.keywords[0].arg is None and isinstance(node.keywords[0].value, ast.Name)
            and node.keywords[0].value.id == double_star)


def _where_the_result_goes(body, call):
    """None: the call is returned directly; a name: ``name = call``; False: anything else.
    The statement must run once: at the top level of the body or of a ``try``'s body."""
    for statement in body:
        if isinstance(statement, ast.Return) and statement.value is call:
            return None
        if isinstance(statement, ast.Assign) and statement.value is call:
            if len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                return statement.targets[0].id
            return False
        if isinstance(statement, (ast.With, ast.Try)) and not getattr(statement, "handlers", None):
            found = _where_the_result_goes(statement.body, call)  # try/finally, with timer(): the timing idioms
            if found is not False:
                return found
    return False


def _assignment_targets(body, call) -> set:
    """The ``result`` name node of ``result = call`` (the one assignment allowed)."""
    targets = set()
    for node in ast.walk(ast.Module(body=list(body), type_ignores=[])):
        if isinstance(node, ast.Assign) and node.value is call:
            targets.update(id(target) for target in node.targets)
    return targets


def function_definition(function) -> ast.FunctionDef | None:
    """The ``def`` statement of ``function``'s source, parsed by ``ast``; None for a lambda or
    where there is no source."""
    try:
        lines, _ = source_lines(function)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    definition = tree.body[0] if tree.body else None
    return definition if isinstance(definition, ast.FunctionDef) else None


def source_lines(function):
    """``inspect.getsourcelines`` of the function itself (``inspect`` follows ``__wrapped__``
    and would give the wrapped function's lines for a decorator's wrapper). A function wrapping
    nothing is given as it is: ``inspect`` finds its module by its name, where for its code it
    would look up the file of every module imported (30 ms with Numba's, in a cold first call)."""
    if inspect.isfunction(function) and not hasattr(function, "__wrapped__"):
        return inspect.getsourcelines(function)
    return inspect.getsourcelines(function.__code__ if inspect.isfunction(function) else function)
