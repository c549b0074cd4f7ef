"""A user function specialised to the functions some of its parameters receive (compile=True).

``rk4_step(lotka_volterra, y, dt, params)`` passes a function as a value; inside, ``f(y, params)``
calls whatever it was given. Numba cannot take a Python function as an argument, but when the
caller names a module-level function of the user's, the callee can be compiled *for* it: its
split form is made from its own text with ``f`` removed from its parameters and read as a
module-level name that means ``lotka_volterra``. The call ``f(...)`` then compiles as any call of
a user function by name does (through ``lotka_volterra``'s split form).

The specialised function is a real function object (``types.FunctionType``) sharing the callee's
code, defaults and closure, so every part of the pipeline that reads a function reads it as it
reads any other; only its globals differ: a live view of the callee's module globals with the
static parameters laid over them. Nothing runs it: it is read, never called.
"""
import types
import weakref

# callee -> {its statics: the specialised function}: one object per specialisation, so that the
# caches keyed by function (transform._memory, compiled._split_halves) find it again
_made: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class StaticGlobals(dict):
    """The callee's module globals, read live, with its static parameters' functions laid over
    them (a dict, as ``types.FunctionType`` requires, holding only the statics itself)."""

    def __init__(self, statics: dict, module_globals: dict):
        super().__init__(statics)
        self.module_globals = module_globals

    def __getitem__(self, name):
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        return self.module_globals[name]

    def __contains__(self, name) -> bool:
        return dict.__contains__(self, name) or name in self.module_globals

    def get(self, name, default=None):
        return self[name] if name in self else default


def specialised(callee, statics: tuple, star: tuple | None = None):
    """``callee`` specialised to ``statics``: ((position, parameter name, function), ...); and,
    ``star`` not None, to calls giving its ``*args`` as many arguments as ``star`` names: the
    parameters they are written out as (frontend/flat_parameters.py)."""
    per_callee = _made.setdefault(callee, {})
    # the callee's code and defaults are part of what it is: a redefinition in place makes a new one
    key = (callee.__code__, callee.__defaults__, statics, star)
    found = per_callee.get(key)
    if found is None:
        found = types.FunctionType(callee.__code__, StaticGlobals({name: value for _, name, value in statics},
                                                                  callee.__globals__),
                                   callee.__name__, callee.__defaults__, callee.__closure__)
        found.__qualname__, found.__module__, found.__kwdefaults__ = \
            callee.__qualname__, callee.__module__, callee.__kwdefaults__
        found.__s2sad_statics__ = statics
        found.__s2sad_star__ = star
        found.__s2sad_origin__ = callee
        per_callee[key] = found
    return found


def statics_of(function) -> tuple:
    """The ((position, parameter name, function), ...) a function was specialised to; () if none."""
    return getattr(function, "__s2sad_statics__", ())


def origin_of(function):
    """The user's own function a specialisation was made from (itself if it is not one)."""
    return getattr(function, "__s2sad_origin__", function)


def star_written_out(function) -> tuple | None:
    """The parameters a function's ``*args`` is written out as; None when it is not."""
    return getattr(function, "__s2sad_star__", None)
