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

A function may also be specialised to the objects of the user's classes some parameters
receive, written out as their fields (frontend/object_layouts.py): its signature is then the
written-out one, and its globals hold, made when first read, the methods the objects may call,
each specialised to its own ``self`` written out the same way.
"""
import inspect
import types
import weakref

# the constants a call may pass that its callee is specialised to, as they are spelt (``keepdims=True``)
STATIC_CONSTANTS = {"True": True, "False": False}

# callee -> {its statics: the specialised function}: one object per specialisation, so that the
# caches keyed by function (transform._memory, compiled._split_halves) find it again
_made: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class StaticGlobals(dict):
    """The callee's module globals, read live, with its static parameters' functions laid over
    them (a dict, as ``types.FunctionType`` requires, holding only the statics itself)."""

    def __init__(self, statics: dict, module_globals: dict, methods: dict | None = None, passed: dict | None = None):
        super().__init__(statics)
        self.module_globals = module_globals
        self.methods = methods or {}  # global name -> (class, method name, its object's fields and statics)
        # global name -> (the callee's global name, its parameter given the object, the object's layout)
        self.passed = passed or {}

    def __getitem__(self, name):
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        if name in self.methods:  # made when first read: methods calling each other would recurse
            self[name] = method = _method_written_out(*self.methods[name])
            return method
        if name in self.passed:
            self[name] = callee = _callee_written_out(self.module_globals, *self.passed[name])
            return callee
        return self.module_globals[name]

    def __contains__(self, name) -> bool:
        return dict.__contains__(self, name) or name in self.methods or name in self.passed \
            or name in self.module_globals

    def get(self, name, default=None):
        return self[name] if name in self else default

    def laid_over(self, name) -> bool:
        """Whether ``name`` is one of the statics, not the module's."""
        return dict.__contains__(self, name)


def specialised(callee, statics: tuple, star: tuple | None = None, objects: tuple = (), nones: tuple = (),
                built: tuple = ()):
    """``callee`` specialised to ``statics``: ((position, parameter name, function), ...); and,
    ``star`` not None, to calls giving its ``*args`` as many arguments as ``star`` names: the
    parameters they are written out as (frontend/flat_parameters.py); and to the objects
    ``objects`` lays out (frontend/object_layouts.ObjectLayout, one per parameter written out);
    and to None given to the parameters ``nones`` (frontend/nones_written_in.py); and to the
    objects of the classes ``built`` (frontend/built_classes.BuiltClass) it builds itself, written
    out as their fields too (frontend/built_objects_written_out.py)."""
    per_callee = _made.setdefault(callee, {})
    # the callee's code and defaults are part of what it is: a redefinition in place makes a new one
    key = (callee.__code__, callee.__defaults__, statics, star, objects, nones, built)
    found = per_callee.get(key)
    if found is None or not methods_current(found):  # (a method replaced on its class: made again)
        methods = {name: (layout.cls, method, layout.fields, layout.statics)
                   for layout in objects for method, name in layout.methods}
        methods.update((name, (b.cls, method, b.fields, ())) for b in built for method, name in b.methods)
        passed = {name: (callee_name, parameter, layout)
                  for layout in objects for callee_name, _, parameter, name in layout.passed}
        found = types.FunctionType(callee.__code__, StaticGlobals({name: value for _, name, value in statics},
                                                                  callee.__globals__, methods, passed),
                                   callee.__name__, callee.__defaults__, callee.__closure__)
        found.__qualname__, found.__module__, found.__kwdefaults__ = \
            callee.__qualname__, callee.__module__, callee.__kwdefaults__
        found.__s2sad_statics__ = statics
        found.__s2sad_star__ = star
        found.__s2sad_objects__ = objects
        found.__s2sad_nones__ = nones
        found.__s2sad_built__ = built
        found.__s2sad_origin__ = callee
        if objects:  # its parameters as calls pass them: each object's fields in its place
            found.__signature__ = _written_out_signature(callee, objects)
        per_callee[key] = found
    return found


def _written_out_signature(callee, objects: tuple) -> inspect.Signature:
    by_name = {layout.parameter: layout for layout in objects}
    parameters = []
    for parameter in inspect.signature(callee, follow_wrapped=False).parameters.values():
        layout = by_name.get(parameter.name)
        if layout is None:
            parameters.append(parameter)
        else:
            # (of the object's own kind: a positional-only one before the others would be out of order)
            parameters += [inspect.Parameter(name, parameter.kind) for name in layout.written]
    return inspect.Signature(parameters)


def _method_written_out(cls, method: str, fields: tuple, statics: tuple):
    """``cls.method`` specialised to its ``self`` written out as ``fields`` (and ``statics``)."""
    from .errors import NotCompiledError
    from .frontend.flat_parameters import names_used
    from .frontend.object_layouts import layout_for

    function = inspect.getattr_static(cls, method)
    first = next(iter(inspect.signature(function).parameters.values()), None)
    if first is None or first.kind not in (first.POSITIONAL_ONLY, first.POSITIONAL_OR_KEYWORD):
        raise NotCompiledError(f"`{cls.__name__}.{method}` takes no `self` by position")
    return specialised(function, (), None, (layout_for(function, first.name, cls, fields, names_used(function), statics),))


def _callee_written_out(module_globals: dict, callee_name: str, parameter: str, layout):
    """The module-level function ``callee_name`` specialised to its ``parameter`` given the object
    ``layout`` writes out (frontend/objects_passed_on.py), written out the same way."""
    from .frontend.flat_parameters import names_used
    from .frontend.object_layouts import layout_for

    callee = module_globals[callee_name]
    return specialised(callee, (), None, (layout_for(callee, parameter, layout.cls, layout.fields, names_used(callee),
                                                     layout.statics),))


def statics_of(function) -> tuple:
    """The ((position, parameter name, function), ...) a function was specialised to; () if none."""
    return getattr(function, "__s2sad_statics__", ())


def origin_of(function):
    """The user's own function a specialisation was made from (itself if it is not one)."""
    return getattr(function, "__s2sad_origin__", function)


def objects_written_out(function) -> tuple:
    """The layouts of the objects a function's parameters are written out as; () if none."""
    return getattr(function, "__s2sad_objects__", ())


def nones_written_in(function) -> tuple:
    """The parameters a function was specialised to being given None; () if none."""
    return getattr(function, "__s2sad_nones__", ())


def star_written_out(function) -> tuple | None:
    """The parameters a function's ``*args`` is written out as; None when it is not."""
    return getattr(function, "__s2sad_star__", None)


def built_written_out(function) -> tuple:
    """The classes whose objects a function builds, written out as their fields; () if none."""
    return getattr(function, "__s2sad_built__", ())


def specialised_names(namespace) -> set:
    """The module-level names a specialised function's globals (``namespace``) add to its
    module's: the statics' and the methods' of the objects written out; none for other globals."""
    if not isinstance(namespace, StaticGlobals):
        return set()
    return set(dict.keys(namespace)) | set(namespace.methods) | set(namespace.passed)


def methods_current(function, seen: set | None = None) -> bool:
    """Whether each method a specialisation's globals made (an object's, written out) is still the
    one its class holds: ``Dense.__call__ = other`` makes the code made from the old one stale."""
    namespace = getattr(function, "__globals__", None)
    if not isinstance(namespace, StaticGlobals):
        return True
    seen = set() if seen is None else seen
    for name, (cls, method, *_) in namespace.methods.items():
        made = dict.get(namespace, name)
        if made is None or id(made) in seen:
            continue
        seen.add(id(made))
        if inspect.getattr_static(cls, method, None) is not origin_of(made) or not methods_current(made, seen):
            return False
    for name, (callee_name, *_) in namespace.passed.items():  # (a callee redefined: made again)
        made = dict.get(namespace, name)
        if made is None or id(made) in seen:
            continue
        seen.add(id(made))
        if namespace.module_globals.get(callee_name) is not origin_of(made) or not methods_current(made, seen):
            return False
    return True
