"""The rule registry: what s2sad knows how to differentiate, looked up by identity.

A rule belongs to one primal callable (``np.tanh``, ``operator.mul``, a user function)
and says, for each positional parameter, how a cotangent of the output turns into a
cotangent of that parameter. Three forms, from cheapest to most general:

* a **template**: a Python expression over ``g`` (the output cotangent), ``ans`` (the
  output) and the parameter names, e.g. ``"g * (1 - ans ** 2)"`` for ``np.tanh``. The
  generator inlines it into the pullback, so a simple rule costs no call at all.
* a **vjp function** ``vjp(g, ans, *params) -> cotangent`` for one parameter (autograd's
  staged form, flattened), or ``vjp(g, ans, *params) -> tuple`` for all of them at once
  (the ``vjp(g, ans, *args)`` form of the seeds, registered with :func:`defvjp_all`).
* a full **rrule** ``rrule(*args, **kwargs) -> (y, pullback)`` with
  ``pullback(dy) -> (dself, *dargs)``, ChainRules' form, for rules that keep residuals.

Templates and vjp functions receive every parameter of the rule's signature positionally,
in signature order, with defaults filled in.

For elementwise functions, :func:`defderivative` is the one-line form: the partial
derivative of each parameter as an expression (``defderivative(np.tanh, "x", "1 - ans ** 2")``),
made into a broadcasting, complex-correct template. :func:`differentiate_source` opts a
Python function out of its rule, :func:`defmethod` gives a method of a class a rule.
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import importlib
import inspect
import io
import keyword
import linecache
import sys
import tokenize
from dataclasses import dataclass, field
from functools import partial
from types import BuiltinMethodType, FunctionType as _FUNCTION, ModuleType
from typing import Any, Callable, TypeVar

import numpy as np

from ..errors import MissingRuleError, RuleError, UnsupportedArgumentsError
from ..frontend.resolve import is_library
from ..runtime.indexing import no_tangent_kind
from ..runtime.tangents import NO_TANGENT, ZERO, Tangent, Thunk, is_zero

Template = str
VJP = Callable[..., Any]
F = TypeVar("F", bound=Callable[..., Any])  # differentiate_source returns the function it is given

# Names that template expressions may use besides ``g``, ``ans`` and the parameters.
# The generator imports exactly these into every generated module.
TEMPLATE_GLOBALS_MODULES = {
    "np": "numpy",
    "math": "math",
}
TEMPLATE_HELPERS_MODULE = "s2sad.rules.helpers"
TEMPLATES_MODULE = "s2sad.rules.templates"  # the module compiled templates say they are from (none is imported)


_signatures_by_text: dict[str, inspect.Signature] = {}
_signature_texts: dict[int, tuple[inspect.Signature, str]] = {}  # id -> (the signature, its text)


def bound_to_rule(signature: inspect.Signature, name: str, args: tuple, kwargs: dict) -> inspect.BoundArguments:
    """A call's arguments bound to its rule's signature, defaults filled in; a call written with
    ``*`` that the rule's signature does not take (``math.hypot(*xs)`` of three) is refused as the
    same call written out is (codegen/core.py ``bound_parameters``), not a TypeError."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as error:
        raise UnsupportedArgumentsError(
            f"the call of `{name}` does not match its rule's signature ({signature}): {error}",
            hint="pass the arguments the rule's signature names, or compute the value from ones it takes") from None
    out = bound.arguments.get("out")
    if out is not None and "out" not in kwargs and not (isinstance(out, tuple) and out == () and signature.parameters[
            "out"].kind is inspect.Parameter.VAR_POSITIONAL):
        # np.negative(*[y, y]): the rule reads the result alone, and the write into `out` would be missed (an `out=`
        # keyword is refused where the user wrote it, frontend/normalize_calls.py; a rule called by hand fills it)
        raise UnsupportedArgumentsError(f"`{name}` is given an array to write into (`out`), in place, which s2sad does not "
                                        "differentiate", hint="assign the result instead")
    overwritten = [key for key, value in bound.arguments.items() if key.startswith("overwrite_")
                   and not (value is None or isinstance(value, int) and not value)]
    if overwritten:
        # sl.solve_triangular(a, b, overwrite_b=True) may leave the solution in b: the rule reads the result alone
        # (the flag given where the user wrote the call is refused there, frontend/normalize_calls.py)
        raise UnsupportedArgumentsError(f"`{name}` is given {overwritten[0]}={bound.arguments[overwritten[0]]!r}: it may "
                                        "write into that argument in place, which s2sad does not differentiate",
                                        hint=f"leave {overwritten[0]}=False (the default)")
    bound.apply_defaults()
    return bound


def signature_from_text(text: str) -> inspect.Signature:
    # Signatures are immutable, and a few hundred rules share a hundred of them: each text
    # is compiled once (importing the rules compiles no more code than it must).
    signature = _signatures_by_text.get(text)
    if signature is None:
        namespace: dict[str, Any] = {}
        exec(f"def _signature({text}): pass", namespace)  # a signature is easiest spelt as Python
        signature = _signatures_by_text[text] = inspect.signature(namespace["_signature"])
        _signature_texts[id(signature)] = (signature, f"({text})")
    return signature


def _signature_text(signature) -> str:
    """``str(signature)``, or for a signature made from text, that text (cheaper: fingerprints)."""
    known = _signature_texts.get(id(signature))
    if known is not None and known[0] is signature:
        return known[1]
    return str(signature)


@dataclass
class Rule:
    """How to differentiate one primal callable."""

    function: Any
    name: str
    signature: inspect.Signature | None = None
    vjps: dict[str, Template | VJP | None] = field(default_factory=dict)
    vjp_all: VJP | None = None
    rrule_function: Callable[..., Any] | None = None
    nondifferentiable: bool = False
    thunks: bool = False           # its vjps may return Thunks/InplaceableThunks (getitem)
    lazy: bool = False             # the public rrule's pullback returns each cotangent as a Thunk (matmul)
    library: str | None = None     # the optional library (scipy) whose rules module registered it
    derivatives: dict[str, str | None] | None = None  # defderivative's expressions, kept for the rules reference
    version: str = "1"
    # keywords that only choose what the function hands back (`max`'s and `sorted`'s `key=`): no
    # cotangent flows to them, and no tangent from them, whatever differentiated values a function
    # given there holds (its slope is zero almost everywhere); any other function a rule calls is
    # refused when it holds them (`odeint(lambda y, t: -k * y, ...)`)
    choosers: tuple[str, ...] = ()
    _compiled: dict[str, VJP] = field(default_factory=dict, repr=False)

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(self.signature.parameters) if self.signature else ()

    @property
    def fingerprint(self) -> str:
        """Changes whenever the rule would generate different code."""
        return hashlib.sha256(self.fingerprint_text().encode()).hexdigest()[:16]

    def fingerprint_text(self) -> str:
        """What ``fingerprint`` hashes. Every library rule's text goes into every cache key
        (transform.registry_fingerprint), once per process: kept cheap."""
        vjps = self.vjps
        items = sorted(vjps.items()) if len(vjps) > 1 else vjps.items()
        return "\x1f".join([self.name, self.version, _signature_text(self.signature), str(self.nondifferentiable),
                            str(self.thunks), *[f"{param}={_describe(vjp)}" for param, vjp in items],
                            _describe(self.vjp_all), _describe(self.rrule_function), *self.choosers])

    @property
    def kind(self) -> str:
        if self.nondifferentiable:
            return "nondifferentiable"
        if self.rrule_function is not None:
            return "rrule"
        if self.vjp_all is not None:
            return "vjp_all"
        return "vjp"

    def declares_none(self, param: str) -> bool:
        """Whether the rule gives no derivative for ``param``: None, or, in a user's rule, the vjp
        refusing a differentiated value (``no_derivative_given``)."""
        vjp = self.vjps.get(param)
        return vjp is None or getattr(vjp, "gives_none", False)

    def template(self, param: str) -> Template | None:
        vjp = self.vjps.get(param)
        return vjp if isinstance(vjp, str) else None

    def vjp_function(self, param: str) -> VJP | None:
        """The vjp for ``param`` as a callable ``(g, ans, *params)``; templates are compiled once."""
        vjp = self.vjps.get(param)
        if vjp is None or callable(vjp):
            return vjp
        if param not in self._compiled:
            self._compiled[param] = compile_template(vjp, self.params, f"{_python_name(self.name)}_template_for_{param}")
        return self._compiled[param]

    def bind(self, args: tuple, kwargs: dict) -> tuple:
        """All parameter values in signature order, defaults filled in."""
        return tuple(bound_to_rule(self.signature, self.name, args, kwargs).arguments.values())

    def positional_slots(self, count: int) -> list[tuple[str, int | None]]:
        """For each positional argument of a call: its parameter, and its index within ``*args``."""
        slots: list[tuple[str, int | None]] = []
        for name, parameter in self.signature.parameters.items():
            if len(slots) == count:
                break
            if parameter.kind == inspect.Parameter.VAR_POSITIONAL:
                slots.extend((name, index) for index in range(count - len(slots)))
            elif parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
                slots.append((name, None))
        return slots

    def rrule(self, *args, **kwargs):
        """ChainRules form for any kind of rule: ``(y, pullback)`` with ``pullback(dy) -> (dself, *dargs)``."""
        return self._rrule(args, kwargs, self.lazy)

    def lazy_rrule(self, *args, **kwargs):
        """``rrule`` whose pullback gives each vjp's cotangent as a Thunk, computed only if read:
        for a caller that does not know which arguments are differentiated (a function called
        through a value), so that a parameter without a derivative (a Bessel order) is refused
        only where it is differentiated."""
        return self._rrule(args, kwargs, True)

    def _rrule(self, args, kwargs, lazy: bool):
        if self.rrule_function is not None:
            return self.rrule_function(*args, **kwargs)
        y = self.function(*args, **kwargs)
        if self.nondifferentiable:
            count = len(args)

            def nondifferentiable_pullback(dy):
                return (NO_TANGENT,) * (count + 1)

            return y, nondifferentiable_pullback
        values = self.bind(args, kwargs)
        slots = self.positional_slots(len(args))
        rule = self

        def pullback(dy):
            if rule.vjp_all is not None:
                every = tuple(rule.vjp_all(dy, y, *values))
                by_param = dict(zip(rule.params, every))
            else:
                by_param = {}
            cotangents = []
            for param, item in slots:
                if param in by_param:
                    cotangent = by_param[param]
                elif rule.vjps.get(param) is None:
                    cotangent = NO_TANGENT
                elif getattr(rule.vjps[param], "gives_none", False):
                    # a user's rule without this vjp: refuses only if the cotangent is read, which
                    # generated code does for a differentiated argument alone (this runs every slot)
                    cotangent = Thunk(partial(rule.vjps[param], dy, y, *values))
                elif lazy and item is None:
                    # computed only if the caller reads it: a constant weight matrix's
                    # gradient costs a product nobody wants
                    cotangent = by_param[param] = Thunk(partial(rule.vjp_function(param), dy, y, *values))
                else:
                    # (a *args parameter's, shared by the arguments it collected, at once)
                    cotangent = by_param[param] = rule.vjp_function(param)(dy, y, *values)
                # a *args parameter's vjp gives one cotangent per argument it collected
                cotangents.append(cotangent[item] if item is not None and cotangent is not NO_TANGENT else cotangent)
            return (NO_TANGENT,) + tuple(cotangents)

        pullback.__name__ = pullback.__qualname__ = f"{_python_name(self.name)}_pullback"
        return y, pullback


def _describe(vjp) -> str:
    if vjp is None:
        return "-"
    if isinstance(vjp, str):
        return vjp
    module = getattr(vjp, "__module__", "?")
    qualname = getattr(vjp, "__qualname__", None)
    if qualname is None:
        qualname = repr(vjp)
    code = getattr(vjp, "__code__", None)
    digest = hashlib.sha256(code.co_code).hexdigest()[:8] if code is not None else ""
    return f"{module}.{qualname}:{digest}"


def _python_name(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name.split(".")[-1]) or "rule"


_template_namespace: dict[str, Any] | None = None


def template_namespace() -> dict[str, Any]:
    """The globals template expressions are evaluated in (numpy, math, the rule helpers)."""
    global _template_namespace
    if _template_namespace is None:
        namespace = {alias: importlib.import_module(module) for alias, module in TEMPLATE_GLOBALS_MODULES.items()}
        helpers = importlib.import_module(TEMPLATE_HELPERS_MODULE)
        namespace.update({name: getattr(helpers, name) for name in helpers.__all__})
        _template_namespace = namespace
    return _template_namespace


_template_sources: dict[str, str] = {}  # the file name of each compiled template -> its source


def restore_template_source(filename: str) -> None:
    """Put a compiled template's source (back) where ``inspect`` reads it: ``linecache``, which
    anything may clear (``linecache.clearcache``)."""
    source = _template_sources.get(filename)
    if source is not None and filename not in linecache.cache:
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


def compile_template(template: Template, params: tuple[str, ...], name: str) -> VJP:
    """The template as a function ``(g, ans, *params)``, with a source s2sad can read: forward
    code calls templates compiled so (through ``method_jvp``), and a Hessian differentiates
    them again."""
    source = f"def {name}(g, ans, {', '.join(params)}):\n    return {template}\n"
    filename = f"<s2sad template {name} {hashlib.sha256(source.encode()).hexdigest()[:16]}>"  # one file per text
    _template_sources[filename] = source
    restore_template_source(filename)
    namespace = {**template_namespace(), "__name__": TEMPLATES_MODULE}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


# ---------------------------------------------------------------- the registry itself

_rules: dict[int, Rule] = {}
_keepalive: dict[int, Any] = {}  # ids are only stable while the object lives
_method_rules: dict[tuple[type, str], Rule] = {}
# Two counters. The generation is what code made from the rules (generated functions, plans, lanes) is kept
# under: it changes when a rule is registered, replaced or forgotten, so that code is made again. The version
# changes on every change to the tables, even one no code made so far can have read (see _quietly): what a
# summary of the tables' contents (transform.registry_fingerprint) is kept under.
_generation = 0
_version = 0


def _qualified_name(function) -> str:
    module = getattr(function, "__module__", None) or ""
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None) or repr(function)
    if module in ("numpy", "numpy.core.numeric", "numpy._core.numeric") or module.startswith("numpy._core"):
        module = "numpy"
    if module in ("numpy.linalg._linalg", "numpy.linalg.linalg"):
        module = "numpy.linalg"
    if module == "_operator":
        module = "operator"
    return f"{module}.{name}" if module else name



_bound_rules: dict[tuple[int, Any], Rule] = {}  # bound methods, by (instance, function): see _bound_key


def _bound_key(function):
    """``(id(instance), id(underlying function))`` for a bound method, else None.

    Reading ``scipy.stats.norm.logpdf`` makes a new bound-method object each time, so a
    rule for it cannot be found by the object's identity; it is found by what the method
    binds instead. A builtin method (``rng.normal`` of a Generator) has no ``__func__``:
    its name stands for it. Functions of a module (``math.sin``, whose ``__self__`` is
    the module) are stable objects and are not bound methods here.
    """
    instance = getattr(function, "__self__", None)
    if instance is None or isinstance(instance, ModuleType):
        return None
    underlying = getattr(function, "__func__", None)
    if underlying is not None:
        return id(instance), id(underlying)
    if isinstance(function, BuiltinMethodType):
        return id(instance), function.__name__
    return None


def _bound_method_name(function) -> str | None:
    """``scipy.stats.norm.logpdf`` rather than the shared ``...rv_continuous.logpdf``.

    Only for an instance that names itself (scipy's distributions have a ``name``);
    None otherwise, keeping the method's qualified name.
    """
    label = getattr(function.__self__, "name", None)
    if not (isinstance(label, str) and label.isidentifier()):
        return None
    module = (type(function.__self__).__module__ or "").split("._")[0]  # the public package
    return f"{module}.{label}.{function.__name__}" if module else f"{label}.{function.__name__}"


def _store(rule: Rule) -> Rule:
    rule.library = _optional_group
    function = rule.function
    key = _bound_key(function)
    quiet = _quietly(function, key)
    if key is not None:
        if rule.name == _qualified_name(function):
            rule.name = _bound_method_name(function) or rule.name
        previous = _bound_rules.get(key)
        if previous is not None and previous.function is not function:  # re-registered through a fresh bound method
            _forget(previous.function)
        _bound_rules[key] = rule
    # Also by identity: a bound method kept in a namespace (``np.random.rand``) is then
    # found on the fast path, like any function.
    _rules[id(function)] = rule
    _keepalive[id(function)] = function
    if quiet:
        _stored_quietly.add(id(rule))
    rules_changed(quiet)
    return rule


def _quietly(function, key) -> bool:
    """Whether registering a rule for ``function`` (bound-method ``key``) leaves code made so far as it
    is: a rule of an optional library's rules module, being loaded now, for a function that had no
    rule and that no lookup has missed (``_missed``). Such a module is loaded at the first lookup
    that misses after its library module is imported (load_optional_rules), before that lookup
    answers, so no code can have been made that asked for these functions' rules; making every
    warm gradient's code again (all of them go the long way once) would change nothing."""
    if _optional_group is None or _rules.get(id(function)) is not None or id(function) in _missed \
            or _TOO_MANY in _missed:
        return False
    return key is None or (key not in _bound_rules and key not in _missed)


def rules_changed(quiet: bool = False) -> None:
    """Say that the rule tables changed: code made from them is made again (a new generation),
    unless ``quiet`` (no code made so far can have read what changed: see _quietly)."""
    global _generation, _version
    _version += 1
    if not quiet:
        _generation += 1


def _forget(function) -> None:
    if _rules.get(id(function)) is not None and _keepalive.get(id(function)) is function:
        del _rules[id(function)]
        del _keepalive[id(function)]


def registry_generation() -> int:
    """What code made from the rules is kept under (see _generation)."""
    return _generation


def registry_version() -> int:
    """What a summary of the rule tables' contents is kept under: it changes on every change."""
    return _version


def forget_generated() -> None:
    """Make every cache of generated functions in memory start again (the disk cache stays):
    they all keep what they hold under the registry's generation."""
    rules_changed()


def stored_quietly(rule: Rule) -> bool:
    """Whether ``rule`` was registered by the optional rules module being loaded now, without a new
    generation (_quietly): its forward rule, registered with it, needs none either."""
    return _optional_group is not None and id(rule) in _stored_quietly


def rule_for(function) -> Rule | None:
    """The rule registered for exactly this object (for a bound method: this instance's method), or None."""
    rule = _rules.get(id(function))
    if rule is not None and rule.function is function:
        return rule
    if function.__class__ is _FUNCTION and "__s2sad_rule__" in function.__dict__:
        return function.__dict__["__s2sad_rule__"]  # (no_derivative_given's)
    if _bound_rules:
        key = _bound_key(function)
        if key is not None:
            rule = _bound_rules.get(key)
            if rule is not None:
                return rule
    if _pending_optional:
        if load_optional_rules(function):
            return rule_for(function)
        _missed.add(id(function))  # a rule registered for it by an optional module later needs a new generation
        key = _bound_key(function)
        if key is not None:
            _missed.add(key)
        if len(_missed) > 65536:  # (ids of functions gone may be taken again: beyond this, every load is loud)
            _missed.add(_TOO_MANY)
    for finder in _rule_finders:
        rule = finder(function)
        if rule is not None:
            return rule
    return None


_rule_finders: list = []  # each: function -> Rule | None, asked after the registered rules


def add_rule_finder(finder) -> None:
    """Ask ``finder(function) -> Rule | None`` for a callable without a registered rule: the
    functions s2sad's transforms return have rules made on demand (s2sad.compositions), never
    stored here (a ``grad(f)`` made per call must not grow the registry or bump its generation)."""
    _rule_finders.append(finder)


# Rules of optional libraries: each module is registered once the user has imported the
# library module it is for (so ``import s2sad`` never imports scipy), and imports only that.
_OPTIONAL_RULE_MODULES = [
    # (library, module that must be imported, rules module)
    ("scipy", "scipy.special", "s2sad.rules.scipy_special"),
    ("scipy", "scipy.stats", "s2sad.rules.scipy_stats"),
    ("scipy", "scipy.signal", "s2sad.rules.scipy_signal"),
    ("scipy", "scipy.linalg", "s2sad.rules.scipy_linalg"),
    ("scipy", "scipy.integrate", "s2sad.rules.scipy_integrate"),
    ("scipy", "scipy._lib._array_api", "s2sad.rules.scipy_array_api"),  # what pure-Python SciPy functions call first
]
_pending_optional = list(_OPTIONAL_RULE_MODULES)
# ids (and bound-method keys) of the functions whose lookup found no rule while optional modules were still
# to load: a rule such a module registers for one of them needs a new generation (_quietly)
_missed: set = set()
_TOO_MANY = "too many misses to tell"
_stored_quietly: set = set()  # ids of the rules the optional module being loaded registered quietly


def load_optional_rules(function=None) -> bool:
    """Register the rules of the optional library modules the user has imported, once each.

    True if any were registered. A rules module that fails to import (an old scipy
    lacking a function it names) is dropped for good rather than retried on every lookup.
    """
    global _optional_group
    loaded = False
    for entry in list(_pending_optional):
        library, trigger, rules_module = entry
        if trigger not in sys.modules:
            continue
        _pending_optional.remove(entry)
        _optional_group = library
        try:
            importlib.import_module(rules_module)
            loaded = True
        except ImportError:
            pass
        finally:
            _optional_group = None
            _stored_quietly.clear()
    if not _pending_optional:
        _missed.clear()  # nothing more to load
    return loaded


_optional_group: str | None = None  # set while an optional library's rules are being registered


def method_rule(owner: type, name: str) -> Rule | None:
    """The rule for method or property ``name`` of instances of ``owner`` (walks the MRO)."""
    for klass in getattr(owner, "__mro__", (owner,)):
        rule = _method_rules.get((klass, name))
        if rule is not None:
            return rule
    return None


def all_rules() -> list[Rule]:
    return list(_rules.values())


def all_method_rules() -> dict[tuple[type, str], Rule]:
    return dict(_method_rules)


def registered_rules() -> set[int]:
    """The ids of every rule registered now (for functions, methods and bound methods): what a
    forward rule of a rule since unregistered is told apart by."""
    return {id(rule) for table in (_rules, _method_rules, _bound_rules) for rule in table.values()}


def defvjp(function: Callable[..., Any], signature: str, *vjps: Template | VJP | None, name: str | None = None, version: str = "1",
           thunks: bool = False, lazy: bool = False, choosers: tuple[str, ...] = ()) -> Rule:
    """Register one vjp per positional parameter of ``signature`` (``None``: no gradient).
    ``choosers``: as ``defrrule``'s.

    ``thunks=True`` says a vjp may return a Thunk or InplaceableThunk; generated code then
    unthunks that cotangent before any other rule reads it. ``lazy=True`` makes the
    pullback of ``s2sad.rrule(function, ...)`` return Thunks, for costly vjps whose
    result callers often drop (generated code computes only the cotangents it needs anyway).

    >>> defvjp(np.tanh, "x", "g * (1 - ans ** 2)")
    >>> defvjp(operator.mul, "x, y", "unbroadcast(g * y, x)", "unbroadcast(g * x, y)")
    """
    sig = signature_from_text(signature)
    params = tuple(sig.parameters)
    if len(vjps) > len(params):
        raise ValueError(f"{len(vjps)} vjps given for the {len(params)} parameters ({signature}) of {function!r}")
    if from_user_code():  # (a parameter after the last vjp given has none, as a None does)
        vjps = tuple(_checked_vjp(name or _qualified_name(function), p, v, params)
                     for p, v in zip(params, vjps + (None,) * (len(params) - len(vjps))))
    rule = Rule(function, name or _qualified_name(function), sig, dict(zip(params, vjps)), version=version,
                thunks=thunks, lazy=lazy, choosers=choosers)
    return _store(rule)


# ---------------------------------------------------------------- checking users' rules
# Built-in rules are tested (tests/rules); a user's rule is checked as it runs, so a mistake
# in it is an error naming the rule, not a wrong gradient or a crash deep in generated code.

# Public adapters that register a rule on the user's behalf (autograd's defvjp, custom_vjp):
# the registration is the user's, and checked as theirs.
FORWARDING_MODULES = ("s2sad.conveniences", "s2sad.registry.slopes")


def from_user_code() -> bool:
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__") in FORWARDING_MODULES:
        frame = frame.f_back
    module = frame.f_globals.get("__name__", "") if frame is not None else ""
    return not (module.startswith("s2sad.rules") or module.startswith("s2sad.") or module == "rules"
                or module.startswith("rules."))


def _problem(cotangent, primal) -> str | None:
    if cotangent is None:
        return "None (return s2sad.ZERO for a zero cotangent)"
    if isinstance(cotangent, (str, bytes)):
        return f"a {type(cotangent).__name__}"
    if cotangent is NO_TANGENT or isinstance(cotangent, Tangent) or type(cotangent).__name__ in ("ZeroTangent", "Thunk",
                                                                                                  "InplaceableThunk"):
        return None
    if isinstance(primal, (list, tuple, dict)) or not hasattr(cotangent, "shape") and not isinstance(cotangent, (int, float, complex)):
        return None
    shape, expected = getattr(cotangent, "shape", ()), getattr(primal, "shape", ())
    if tuple(shape) != tuple(expected):
        return f"a cotangent of shape {tuple(shape)} for an argument of shape {tuple(expected)}"
    return None


def _checked_vjp(rule_name: str, param: str, vjp, params: tuple):
    if vjp is None:
        return no_derivative_given(rule_name, param, params, NO_TANGENT)
    if isinstance(vjp, str):
        _check_template(rule_name, param, vjp, params)
        return vjp

    def checked_vjp(g, ans, *values):
        cotangent = vjp(g, ans, *values)
        problem = _problem(cotangent, values[params.index(param)] if param in params else None)
        if problem is not None:
            raise RuleError(f"the rule of `{rule_name}` returned {problem} for its parameter `{param}`",
                            hint="a vjp returns the cotangent of its parameter: that parameter's shape and dtype")
        return cotangent

    checked_vjp.__name__ = getattr(vjp, "__name__", "vjp")
    return checked_vjp


def no_derivative_given(rule_name: str, param: str, params: tuple, nothing):
    """The vjp (or jvp) of a parameter a user's rule gives none for. A value with no tangent
    space there (an int, a flag, a string, None) passes ``nothing``; a differentiated float is
    refused: its derivative taken for 0, as a rule with no vjp would, is a wrong number unless the
    function does not depend on it, which s2sad cannot tell."""
    index = params.index(param)

    def no_derivative(g, ans, *values):
        value = values[index] if index < len(values) else None
        if _without_tangent_space(value) or nothing is ZERO and (is_zero(g) or not np.any(g)):
            return nothing  # (a tangent of 0 given for it, in forward mode: its term is 0 whatever the slope)
        raise MissingRuleError(
            f"the rule of `{rule_name}` gives no derivative for its parameter `{param}`, and a differentiated "
            "value reaches it", hint=f"give one for `{param}` where the rule is registered, or pass a value "
                                      "that is not differentiated")

    no_derivative.__name__ = no_derivative.__qualname__ = "no_derivative"
    no_derivative.gives_none = True  # no term of a derivative, when it does not refuse (forward_dispatch.py)
    # a constant where forward code calling it is differentiated again (hvp): it refuses, or gives nothing.
    # Held by the function, in no registry: every cache key reads the registry's rules of s2sad's own
    no_derivative.__s2sad_rule__ = Rule(no_derivative, f"{rule_name}, no derivative for {param}", nondifferentiable=True)
    return no_derivative


def _without_tangent_space(value) -> bool:
    if value is None or isinstance(value, (bool, int, str, bytes, np.integer, np.bool_)):
        return True
    dtype = getattr(value, "dtype", None)
    return isinstance(dtype, np.dtype) and no_tangent_kind(dtype)


def _check_template(rule_name: str, param: str, template: str, params: tuple) -> None:
    known = set(params) | {"g", "ans"} | set(template_namespace()) | set(dir(builtins))
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(template).readline))
        compile(template, "<rule template>", "eval")
    except (SyntaxError, tokenize.TokenError) as error:
        raise RuleError(f"the template of `{rule_name}` for `{param}` is not a Python expression: {template!r}",
                        hint=str(error)) from None
    for index, token in enumerate(tokens):
        previous = tokens[index - 1].string if index else ""
        following = tokens[index + 1].string if index + 1 < len(tokens) else ""
        if (token.type == tokenize.NAME and not keyword.iskeyword(token.string) and previous != "."
                and following != "=" and token.string not in known):
            raise RuleError(f"the template of `{rule_name}` for `{param}` uses `{token.string}`, which is not a "
                            f"parameter ({', '.join(params)}), `g`, `ans` or a helper templates may call",
                            hint="name only the parameters, g, ans, np, math and the helpers of s2sad.rules.helpers")


def _checked_vjp_all(rule_name: str, vjp, count: int):
    def checked_vjp_all(g, ans, *values):
        cotangents = vjp(g, ans, *values)
        if not isinstance(cotangents, (tuple, list)) or len(cotangents) != count:
            got = len(cotangents) if isinstance(cotangents, (tuple, list)) else type(cotangents).__name__
            raise RuleError(f"the rule of `{rule_name}` returned {got} cotangents for its {count} parameters",
                            hint="return one cotangent per parameter, in order (s2sad.ZERO where there is none)")
        return cotangents

    return checked_vjp_all


def _checked_rrule(rule_name: str, rrule):
    def checked_rrule(*args, **kwargs):
        result = rrule(*args, **kwargs)
        if not (isinstance(result, tuple) and len(result) == 2 and callable(result[1])):
            raise RuleError(f"the rrule of `{rule_name}` must return (value, pullback), but returned "
                            f"{type(result).__name__}", hint="return the output and a function of its cotangent")
        value, pullback = result

        def checked_pullback(dy):
            cotangents = pullback(dy)
            if not isinstance(cotangents, tuple) or len(cotangents) != 1 + len(args):
                got = len(cotangents) if isinstance(cotangents, tuple) else type(cotangents).__name__
                raise RuleError(f"the pullback of `{rule_name}` returned {got} cotangents for {len(args)} "
                                f"argument(s)", hint="return (NO_TANGENT, *one cotangent per argument)")
            return cotangents

        checked_pullback.__name__ = getattr(pullback, "__name__", "pullback")
        return value, checked_pullback

    return checked_rrule


def defvjp_all(function: Callable[..., Any], signature: str, vjp: VJP, name: str | None = None, version: str = "1") -> Rule:
    """Register the seeds' form: ``vjp(g, ans, *params)`` returns one cotangent per parameter,
    for rules whose cotangents share work (autograd's ``defvjp_argnum``).

    >>> import numpy as np, s2sad
    >>> def hypot(x, y):
    ...     return np.sqrt(x ** 2 + y ** 2)
    >>> rule = s2sad.defvjp_all(hypot, "x, y", lambda g, ans, x, y: (g * x / ans, g * y / ans))
    >>> s2sad.grad(hypot, argnums=(0, 1))(3.0, 4.0)
    (0.6, 0.8)
    """
    sig = signature_from_text(signature)
    if from_user_code():
        vjp = _checked_vjp_all(name or _qualified_name(function), vjp, len(sig.parameters))
    rule = Rule(function, name or _qualified_name(function), sig, vjp_all=vjp, version=version)
    return _store(rule)


def defrrule(function: Callable[..., Any], rrule: Callable[..., Any], signature: str | None = None, name: str | None = None, version: str = "1",
             choosers: tuple[str, ...] = ()) -> Rule:
    """Register a ChainRules-form rule: ``rrule(*args, **kwargs) -> (y, pullback)``, where
    ``pullback(g)`` returns the function's own cotangent (``s2sad.NO_TANGENT``) then one per
    argument. ``signature`` (``"x, y"``) is needed for forward rules (``defjvp``) to name them.
    ``choosers`` names keywords that only choose what is handed back (``max``'s ``key``): the
    pullback gives them no cotangent, even when the function given there holds differentiated values.

    >>> import numpy as np, s2sad
    >>> def softplus(x):
    ...     return np.log1p(np.exp(x))
    >>> def softplus_rrule(x):
    ...     def softplus_pullback(g):
    ...         return s2sad.NO_TANGENT, g / (1.0 + np.exp(-x))
    ...     return softplus(x), softplus_pullback
    >>> rule = s2sad.defrrule(softplus, softplus_rrule, "x")
    >>> float(s2sad.grad(softplus)(0.0))
    0.5
    """
    sig = signature_from_text(signature) if signature else None
    if from_user_code():
        rrule = _checked_rrule(name or _qualified_name(function), rrule)
    rule = Rule(function, name or _qualified_name(function), sig, rrule_function=rrule, version=version, choosers=choosers)
    return _store(rule)


def nondifferentiable(*functions: Callable[..., Any]) -> None:
    """Declare functions whose outputs carry no gradient (comparisons, argmax, zeros, ...):
    calls of them are constants in differentiated code.

    >>> import numpy as np, s2sad
    >>> def bucket(x):
    ...     return np.floor(x / 0.5)
    >>> s2sad.nondifferentiable(bucket)
    >>> def f(x):
    ...     return x * bucket(x)                     # bucket(1.2) = 2.0, a constant
    >>> float(s2sad.grad(f)(1.2))
    2.0
    """
    for function in functions:
        _store(Rule(function, _qualified_name(function), nondifferentiable=True))


def defmethod(owner: type, name: str, rule_or_function: Rule | Callable[..., Any] | None = None) -> Rule:
    """Make ``obj.name(...)`` (or the property ``obj.name``) use a rule, for ``obj`` an ``owner``.

    The receiver is the rule's first parameter: ``x.sum(axis=0)`` is ``np.sum(x, axis=0)``.
    ``rule_or_function`` is a :class:`Rule` (what ``defvjp`` and friends return) or a
    function with a registered rule; left out, it is ``getattr(owner, name)``, so a user
    class's method takes the rule registered for its plain function::

        defderivative(Layer.apply, "self, x", None, "self.scale")   # or defvjp / defrrule
        defmethod(Layer, "apply")          # layer.apply(x) in differentiated code uses it

    Instances of subclasses use it too (the lookup walks the MRO).

    >>> import numpy as np, s2sad
    >>> class Scale:
    ...     def __init__(self, factor):
    ...         self.factor = factor
    ...     def apply(self, x):
    ...         return self.factor * np.asarray(x)
    >>> rule = s2sad.defvjp(Scale.apply, "self, x", None, "g * self.factor")
    >>> rule = s2sad.defmethod(Scale, "apply")
    >>> def energy(x):
    ...     return np.sum(Scale(3.0).apply(x) ** 2)
    >>> s2sad.grad(energy)(np.array([1.0, 2.0]))      # 2 * 9 x
    array([18., 36.])
    """
    if rule_or_function is None:
        rule_or_function = getattr(owner, name, None)
        if rule_or_function is None:
            raise ValueError(f"{owner.__qualname__} has no attribute {name!r} to take a rule from")
    rule = rule_or_function if isinstance(rule_or_function, Rule) else rule_for(rule_or_function)
    if rule is None:
        raise ValueError(f"no rule registered for {rule_or_function!r}: register one first "
                         f"(s2sad.defvjp, defderivative or defrrule), then defmethod({owner.__qualname__}, {name!r})")
    _method_rules[(owner, name)] = rule
    rules_changed()
    return rule


def unregister(function: Callable[..., Any]) -> None:
    """Forget the rule of ``function`` (so s2sad differentiates its source instead).
    Code generated for its callers is made again.

    >>> import s2sad
    >>> def double(x):
    ...     return 2.0 * x
    >>> rule = s2sad.defderivative(double, "x", "3.0")    # a wrong rule, on purpose
    >>> s2sad.grad(double)(1.0)
    3.0
    >>> s2sad.unregister(double)
    >>> s2sad.grad(double)(1.0)
    2.0
    """
    rule = rule_for(function)
    if rule is None:
        return
    key = _bound_key(function)
    if key is not None:
        del _bound_rules[key]
    _forget(rule.function)
    rules_changed()


# ---------------------------------------------------------------- the one-line form for scalar derivatives

_RESERVED_IN_TEMPLATES = ("g", "ans")


def derivative_rule(function, signature: str, *derivatives: str | None, name: str | None = None,
                    version: str = "1") -> Rule:
    """The reverse rule of :func:`s2sad.defderivative` (which registers the forward rule too, see
    ``registry/slopes.py``): one rule template per parameter, ``unbroadcast(g * conj(<derivative>), <param>)``.

    Each derivative is a Python expression over the parameters and ``ans`` (the output),
    evaluated elementwise; ``None`` says no gradient flows to that parameter. Derivatives
    are given for the first parameters of ``signature`` in order, the rest get none::

        defderivative(np.tanh, "x", "1 - ans ** 2")
        defderivative(np.arctan2, "y, x", "x / (x**2 + y**2)", "-y / (x**2 + y**2)")

    Each becomes the rule template ``unbroadcast(g * conj(<derivative>), <param>)``,
    which generated code inlines: broadcast operands get their cotangent summed back to
    their shape and cast to their dtype, and a complex input gets ``g * conj(f'(z))``
    (s2sad's convention, see ``s2sad.rules.numpy_fft``), right for holomorphic functions.
    A real constant derivative is not conjugated (``"1"`` gives ``unbroadcast(g, x)``).

    The expressions may use ``np``, ``math``, the helpers of ``s2sad.rules.helpers``
    (``safe_divide`` for slopes that are infinite where the cotangent is 0) and builtins;
    an unknown name, a syntax error or a use of the cotangent ``g`` is refused here,
    at registration, rather than when a gradient runs.
    """
    sig = signature_from_text(signature)
    params = tuple(sig.parameters)
    label = name or _qualified_name(function)
    if len(derivatives) > len(params):
        raise ValueError(f"{len(derivatives)} derivatives given for the {len(params)} parameters ({signature}) of {label}")
    for reserved in _RESERVED_IN_TEMPLATES:
        if reserved in params:
            raise ValueError(f"defderivative({label}): a parameter may not be called {reserved!r}, "
                             "which rule templates reserve (g is the cotangent, ans the output); rename it in the signature")
    templates: list[str | None] = []
    for param, derivative in zip(params, derivatives):
        if derivative is None:
            templates.append(None)
            continue
        kind = sig.parameters[param].kind
        if kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise ValueError(f"defderivative({label}): {param!r} collects several arguments; "
                             "scalar derivatives are for one value per parameter (use defvjp)")
        templates.append(derivative_template(derivative, param, params, label))
    if from_user_code():  # a parameter without a derivative refuses a differentiated value (no_derivative_given)
        templates = [no_derivative_given(label, p, params, NO_TANGENT) if t is None else t
                     for p, t in zip(params, templates + [None] * (len(params) - len(templates)))]
    rule = Rule(function, label, sig, dict(zip(params, templates)), version=version,
                derivatives=dict(zip(params, derivatives)))
    return _store(rule)


def derivative_template(derivative: str, param: str, params: tuple[str, ...] = (), label: str = "the function") -> str:
    """The vjp template for a scalar partial derivative of ``param`` (see :func:`defderivative`)."""
    if not isinstance(derivative, str):
        raise TypeError(f"defderivative({label}): the derivative of {param!r} must be an expression "
                        f"in a string (or None), not {type(derivative).__name__}")
    text = derivative.strip()
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise ValueError(f"defderivative({label}): the derivative of {param!r} is not a Python expression: "
                         f"{text!r} ({error.msg})") from None
    bound = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    bound |= {arg.arg for node in ast.walk(tree) if isinstance(node, ast.Lambda) for arg in node.args.args}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)} - bound
    if "g" in used and "g" not in params:
        raise ValueError(f"defderivative({label}): the derivative of {param!r} uses `g`, the output cotangent; "
                         "write the derivative alone (s2sad multiplies by g), or register a vjp with defvjp")
    known = set(params) | {"ans"} | set(template_namespace()) | set(dir(builtins))
    unknown = sorted(used - known)
    if unknown:
        raise ValueError(f"defderivative({label}): the derivative of {param!r} ({text!r}) uses unknown "
                         f"name{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; it may use the parameters "
                         f"({', '.join(params)}), ans, np, math, builtins and the helpers of s2sad.rules.helpers")
    constant = real_constant(tree.body)
    if constant is not None:
        if constant == 1:
            return f"unbroadcast(g, {param})"
        if constant == -1:
            return f"unbroadcast(-g, {param})"
        return f"unbroadcast(g * {text}, {param})"
    factor = f"conj({text})"
    return f"unbroadcast(g * {factor}, {param})"


def real_constant(node) -> float | None:
    """The value of an int or float literal (possibly negated), else None."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return sign * node.value
    return None


# ---------------------------------------------------------------- opting out of a rule


def differentiate_source(function: F) -> F:
    """Opt a Python function out of its rule: s2sad differentiates its source instead.

    After ``differentiate_source(f)``, calls of ``f`` in differentiated code are
    transformed like any user function (generated code calls ``f``'s own generated
    rrule), and ``s2sad.grad(f)`` differentiates ``f``'s body. Use it to check a
    hand-written rule against s2sad's own derivative, or to drop a rule some library
    registered; callers differentiated before are generated again. Returns ``f``, so
    it also reads as a decorator (below the rule's registration); a function without
    a rule is returned unchanged. To give the rule back, register it again.

    For a method of a user class, pass the class's function (``Layer.apply``): the
    method rules :func:`defmethod` made from its rule go too, so ``layer.apply(x)`` is
    differentiated from the method's source.

    Only functions defined with ``def`` in Python source qualify: a NumPy ufunc, a
    builtin or a function of NumPy/SciPy keeps its rule (s2sad does not transform
    library code), and asking is a TypeError.

    >>> import s2sad
    >>> def halve(x):
    ...     return x / 2.0
    >>> rule = s2sad.defderivative(halve, "x", "0.25")    # a wrong rule, on purpose
    >>> s2sad.grad(halve)(1.0)
    0.25
    >>> halve = s2sad.differentiate_source(halve)
    >>> s2sad.grad(halve)(1.0)                           # from the source: right
    0.5
    """
    original = getattr(function, "__s2sad_original__", function)
    label = getattr(original, "__qualname__", repr(original))
    if not inspect.isfunction(original):
        raise TypeError(f"s2sad can only differentiate the source of a Python function defined with def; "
                        f"{label} is a {type(original).__name__}, so it keeps its rule")
    if is_library(original):
        raise TypeError(f"{original.__module__}.{label} is library code, which s2sad does not transform: "
                        "it keeps its rule")
    for key, rule in list(_method_rules.items()):
        if rule.function is function or rule.function is original:
            del _method_rules[key]  # obj.method(x) now runs through the method's source too
            rules_changed()
    for candidate in (function, original):
        if rule_for(candidate) is not None:
            unregister(candidate)
    return function  # generated code in memory follows registry_generation(): callers are made again
