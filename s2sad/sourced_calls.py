"""Python source for a call of a function that has none of its own, so that a transform of it
can be differentiated again: ``hessian(np.prod)``, ``jacfwd(jacrev(np.linalg.det))``,
``hvp(model.loss, ...)``.

Derivatives of derivatives differentiate generated forward code, which needs a Python function
to generate it from. For ``np.prod`` (a rule), a bound method or a partial, that function is

    def prod(a, axis=None, dtype=None):
        return function(a, axis=axis, dtype=dtype)

with ``function`` a global of its own namespace holding the callable (for a bound method or a
partial, the function it holds, called with what it holds, ``held_0``, ...), and its text kept in
``linecache`` under a name that says what it is (no file is written), where ``inspect`` and
s2sad's front end read it. Parameters whose defaults are not literals (NumPy's ``<no value>``)
and ``out`` are left out: the callee's own defaults apply.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import linecache
import threading

__all__ = ["sourced_call"]

_LITERALS = (type(None), bool, int, float, str)
_made: dict = {}   # id(library function) -> (it, its sourced function); the function is kept alive with it
_lock = threading.Lock()


def sourced_call(function):
    """A Python function with source that calls ``function`` with its parameters, or None when
    its signature cannot be written out (``*args``, no signature)."""
    if inspect.ismethod(function) or isinstance(function, functools.partial):
        return _make(function)  # made anew each time (one is made per attribute read): not kept
    with _lock:
        found = _made.get(id(function))
        if found is not None and found[0] is function:
            return found[1]
        made = _make(function)
        if made is not None:
            _made[id(function)] = (function, made)
        return made


def _make(function):
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    # a bound method or a partial calls its function with what it holds first, as globals: a rule
    # for the function held is looked up (or its source differentiated), not one for the holder
    callee, held, held_keywords = function, [], {}
    if inspect.ismethod(function):
        callee, held = function.__func__, [function.__self__]
    elif isinstance(function, functools.partial):
        callee, held, held_keywords = function.func, list(function.args), dict(function.keywords)
    name = getattr(function, "__name__", None)
    name = name if isinstance(name, str) and name.isidentifier() else "called"
    parameters, arguments = [], []
    by_keyword = False  # once a parameter is left out, the ones after it are passed by keyword
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            return None  # einsum(*operands): no fixed arity to write out
        if parameter.kind not in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            continue  # keyword-only parameters and **kwargs keep the callee's defaults
        default = parameter.default
        if parameter.name == "out" or (default is not parameter.empty and type(default) not in _LITERALS):
            if parameter.kind is parameter.POSITIONAL_ONLY:
                return None
            by_keyword = True
            continue
        if default is parameter.empty:
            if by_keyword:
                return None  # a required parameter after one left out: cannot be passed by position
            parameters.append(parameter.name)
            arguments.append(parameter.name)
        else:
            parameters.append(f"{parameter.name}={default!r}")
            keyword = by_keyword or parameter.kind is parameter.POSITIONAL_OR_KEYWORD
            arguments.append(f"{parameter.name}={parameter.name}" if keyword else parameter.name)
    described = getattr(function, "__qualname__", None) or type(function).__qualname__
    passed = [f"held_{i}" for i in range(len(held))] + arguments + [f"{key}=held_{key}" for key in held_keywords]
    text = f"def {name}({', '.join(parameters)}):\n    return function({', '.join(passed)})\n"
    # a stable name (the disk cache's key holds it), told apart by its text's hash
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    filename = f"<s2sad: a call of {getattr(function, '__module__', None) or ''}.{described} {digest}>"
    # its module's name is not a library's: s2sad differentiates this function from its source
    namespace = {"function": callee, "__name__": "s2sad_sourced_call",
                 **{f"held_{i}": value for i, value in enumerate(held)},
                 **{f"held_{key}": value for key, value in held_keywords.items()}}
    exec(compile(text, filename, "exec"), namespace)
    made = namespace[name]
    made.__doc__ = f"Calls {described} (s2sad made this function to differentiate it again)."
    # mtime None: linecache.checkcache keeps an entry with no file behind it
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    return made
