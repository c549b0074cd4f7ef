"""Calls of user functions that have no rule, through their own generated code.

A differentiated function that calls a helper of the user's calls, in its generated code, a
``TransformedCall``: on first use it asks the pipeline (``transform.py``) for the helper's
generated rrule, then runs it. ``TransformedForwardCall`` is the same for forward mode.

The pipeline's functions are given to each call when it is made (``transform.transformed_call``):
generated code calls the pipeline again as it runs, and this module does not import it.
"""
from __future__ import annotations

import inspect

import numpy as np

from .errors import UnsupportedSyntaxError
from .frontend.resolve import signature as _signature_of, unwrap as _unwrap
from .runtime.structure import field_cotangent, split_cotangent, tangent_filled, zeros_like_primal
from .registry import registry_generation
from .runtime.tangents import NO_TANGENT, ZERO, unthunk


def refuse_writing_back(function, generated) -> None:
    """A helper that changes an argument in place, called from differentiated code: the
    caller's own code would not see the change (s2sad differentiates each function apart)."""
    written = generated.__globals__.get("WRITES_BACK_ARGUMENTS")
    if written:
        raise UnsupportedSyntaxError(
            f"`{function.__qualname__}` changes its argument `{written[0]}` in place, and it is called from a "
            "differentiated function, whose derivative would not see the change",
            hint=f"return the changed value from {function.__name__} instead, or pass it a copy")


class CotangentTuple(tuple):
    """``(dself, *dargs)`` for the positional arguments of a call, with ``.keywords`` for the rest."""

    keywords: dict


class TransformedCall:
    """A call of a user function that has no rule: its own generated rrule, made on first use."""

    def __init__(self, function, active_positions, active_keywords, generated_rrule):
        self.function = _unwrap(function)
        self.signature = _signature_of(self.function)
        self.generated_rrule = generated_rrule
        self.active_positions = tuple(active_positions)
        self.active_keywords = tuple(active_keywords)
        parameters = list(self.signature.parameters.values())
        positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.star = next((p.name for p in parameters if p.kind is p.VAR_POSITIONAL), None)
        self.double_star = next((p.name for p in parameters if p.kind is p.VAR_KEYWORD), None)
        wrt = {positional[i] if i < len(positional) else self.star for i in self.active_positions}
        wrt |= {k if k in self.signature.parameters else self.double_star for k in self.active_keywords}
        self.wrt = tuple(n for n in self.signature.parameters if n in wrt)
        # a call giving every parameter in order, none by keyword, binds to the arguments as they
        # are: no Signature.bind (a few microseconds a call, most of an RK4 step's call overhead)
        self.in_order = len(parameters) if len(positional) == len(parameters) else -1
        self.current = None  # (registry generation, the rrule last used): see _rrule

    def _rrule(self):
        """The generated rrule, as ``generated_rrule`` would give it: the one used last time while
        the registry is unchanged and it is current for the function (the check ``generated_rrule``
        itself makes before handing back what it holds), else asked for again."""
        current = self.current
        if current is not None and current[0] == registry_generation() and current[1].__s2sad_current__(self.function):
            return current[1]
        generation = registry_generation()
        rrule = self.generated_rrule(self.function, self.wrt)
        refuse_writing_back(self.function, rrule)
        self.current = (generation, rrule)
        return rrule

    def __call__(self, *args, **kwargs):
        if not kwargs and len(args) == self.in_order:
            return self.call_in_order(args)
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        rrule = self._rrule()
        y, pullback = rrule(*bound.arguments.values())
        pullback = _rerunnable(rrule, pullback, tuple(bound.arguments.values()))
        names = list(bound.arguments)
        star_count = len(bound.arguments.get(self.star, ())) if self.star else 0
        double_star_keys = list(bound.arguments.get(self.double_star, {})) if self.double_star else []

        def call_pullback(dy):
            cotangents = pullback(dy)
            by_name = dict(zip(names, cotangents[1:]))
            positional = [by_name[n] for n in names if n in by_name and n != self.star and n != self.double_star
                          and self.signature.parameters[n].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                                      inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            if self.star:  # the tuple's cotangent, one per argument it collected
                positional += list(split_cotangent(by_name[self.star], star_count))
            keywords = ({key: field_cotangent(by_name[self.double_star], key) for key in double_star_keys}
                        if self.double_star else {})
            keywords.update((n, c) for n, c in by_name.items() if n not in keywords)
            result = CotangentTuple((cotangents[0],) + tuple(positional[:len(args)]))
            result.keywords = {k: keywords.get(k, ZERO) for k in kwargs}
            return result

        call_pullback.__name__ = call_pullback.__qualname__ = f"{self.function.__name__}_pullback"
        return y, call_pullback

    def call_in_order(self, args: tuple, head: tuple | None = None, name: str | None = None):
        """``self(*args)`` for ``args`` giving every parameter in order: what ``__call__`` does
        then, the same values and cotangents, with nothing bound, named or looked up by name.
        ``head``: what the pullback's cotangents start with in place of the call's own (a call
        through a value, ``runtime/calls.py``, gives two: the call's and the callee's)."""
        rrule = self._rrule()
        y, pullback = rrule(*args)
        return y, InOrderPullback(_rerunnable(rrule, pullback, args), head, 1 + len(args), name or self.function.__name__)

    def __repr__(self):
        return f"<transformed {self.function.__qualname__} wrt {self.wrt}>"


def _rerunnable(rrule, pullback, args: tuple):
    """``pullback``, which a caller may run more than once: a generated pullback that undoes its
    function's in-place changes as it runs (``PULLBACK_RUNS_ONCE``) is run once; each further
    call gets a fresh one from running the rrule again on the same arguments (unchanged:
    ``refuse_writing_back``). A caller that calls it by name is marked ``PULLBACK_RUNS_ONCE``
    itself and rerun whole by ``vjp``; one that calls it through a value (``g = helper; g(x)``),
    a method or a ``*`` call is not, and its second run used to run this pullback again on the
    restored values: a wrong gradient."""
    if not rrule.__globals__.get("PULLBACK_RUNS_ONCE"):
        return pullback
    return repeatable(pullback, lambda: rrule(*args)[1])


def repeatable(pullback, fresh):
    """A pullback callers may run more than once, of one that runs once: its first call runs it,
    each further call runs a fresh one, ``fresh()`` (from running the primal again)."""
    used = []

    def repeatable_pullback(cotangent):
        if used:
            return fresh()(cotangent)
        used.append(True)
        return pullback(cotangent)

    return repeatable_pullback


class InOrderPullback:
    """The pullback of a call giving every parameter in order (``TransformedCall.call_in_order``).

    One object where a closure would be a function and a cell for each variable it reads: a
    loop's tape keeps one per call, and each object it keeps is one more for the cyclic
    garbage collector to walk (none of them is in a cycle; they die by reference count)."""

    __slots__ = ("pullback", "head", "count", "name")

    def __init__(self, pullback, head, count: int, name: str):
        self.pullback, self.head, self.count, self.name = pullback, head, count, name

    def __call__(self, dy):
        cotangents = self.pullback(dy)
        count = self.count
        if self.head is not None:
            result = CotangentTuple(self.head + tuple(cotangents[1:count]))
        elif len(cotangents) == count:
            result = CotangentTuple(cotangents)
        else:  # what binding by name gives then: one cotangent for each parameter named
            result = CotangentTuple((cotangents[0],) + tuple(cotangents[1:count]))
        result.keywords = {}
        return result

    def __repr__(self):
        return f"<{self.name}_pullback>"


class TransformedForwardCall:
    """A user function called in forward-mode code: its own generated jvp, made on first use.

    Called as ``call(tangents, *args, **kwargs)`` with the tangents of the arguments at
    ``active_positions`` then ``active_keywords``; returns ``(value, tangent)``.
    """

    def __init__(self, function, active_positions, active_keywords, generated_jvp, generated_rrule):
        self.function = _unwrap(function)
        self.signature = _signature_of(self.function)
        self.generated_jvp, self.generated_rrule = generated_jvp, generated_rrule
        parameters = list(self.signature.parameters.values())
        self.positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.star = next((p.name for p in parameters if p.kind is p.VAR_POSITIONAL), None)
        self.double_star = next((p.name for p in parameters if p.kind is p.VAR_KEYWORD), None)
        self.active_positions = tuple(active_positions)
        self.active_keywords = tuple(active_keywords)

    def __call__(self, tangents, *args, **kwargs):
        bound, by_param, wrt = self._resolved(tangents, args, kwargs)
        jvp = self.generated_jvp(self.function, wrt)
        refuse_writing_back(self.function, jvp)
        return jvp(*bound.arguments.values(), *(by_param[name] for name in wrt))

    def _resolved(self, tangents, args, kwargs):
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        by_param: dict = {}
        for position, tangent in zip(self.active_positions, tangents):
            if position < len(self.positional):
                by_param[self.positional[position]] = tangent
            else:
                star = list(by_param.get(self.star, [ZERO] * len(bound.arguments[self.star])))
                star[position - len(self.positional)] = tangent
                by_param[self.star] = tuple(star)
        for keyword, tangent in zip(self.active_keywords, tangents[len(self.active_positions):]):
            if keyword in self.signature.parameters:
                by_param[keyword] = tangent
            else:  # collected by **kwargs: a dict tangent with ZERO for the others
                collected = by_param.setdefault(self.double_star, {key: ZERO for key in bound.arguments[self.double_star]})
                collected[keyword] = tangent
        for name, tangent in by_param.items():  # a container's constant items: zeros, not ZERO, so that the
            tangent = tangent_filled(tangent, bound.arguments[name])  # jvp's own reverse pass can read them
            # the jvp was made for a varied argument, which can still be a constant on the path taken
            # (x if c else np.ones(3)): it reads the tangent, so give it zeros
            by_param[name] = zeros_like_primal(bound.arguments[name]) if tangent is ZERO else tangent
        wrt = tuple(name for name in self.signature.parameters if name in by_param)
        return bound, by_param, wrt

    def rrule(self, tangents, *args, **kwargs):
        """Reverse mode through this call (forward code differentiated again: an hvp).

        The pullback gives ``(NO_TANGENT, cotangents of the tangents, *cotangents of args)``.
        """
        bound, by_param, wrt = self._resolved(tangents, args, kwargs)
        jvp = self.generated_jvp(self.function, wrt)
        refuse_writing_back(self.function, jvp)  # as __call__ does: an hvp must not see less than a jvp
        values = list(bound.arguments.values()) + [by_param[name] for name in wrt]
        # differentiated with respect to what can carry a derivative: not the generator a helper
        # draws from, nor the ints of a `*shape` (whose method calls have no rules to go through)
        names = [name for name, value in zip(_signature_of(jvp).parameters, values) if not holds_no_floats(value)]
        rrule = self.generated_rrule(jvp, tuple(names))
        y, pullback = rrule(*values)
        count = len(bound.arguments)
        starred = len(bound.arguments[self.star]) if self.star is not None else 0

        def forward_call_pullback(dy):
            cotangents = pullback(dy)[1:]
            by_name = dict(zip(bound.arguments, cotangents[:count]))
            by_tangent = dict(zip(wrt, cotangents[count:]))
            # one cotangent per tangent the call was given (in its order) and per positional argument:
            # an argument collected by *args gets its item of that tuple's cotangent
            tangents = [self._at(by_tangent, position, starred) for position in self.active_positions]
            tangents += [by_tangent.get(keyword, ZERO) if keyword in self.signature.parameters
                         else field_cotangent(by_tangent.get(self.double_star, ZERO), keyword)
                         for keyword in self.active_keywords]
            positional = [self._at(by_name, position, starred) for position in range(len(args))]
            # the tangents' come back in a tuple, whose items the caller's code reads as plain values
            result = CotangentTuple((NO_TANGENT, tuple(unthunk(t) for t in tangents), *positional))
            result.keywords = {key: by_name[key] if key in by_name and key in self.signature.parameters
                               else field_cotangent(by_name.get(self.double_star, ZERO), key) for key in kwargs}
            return result

        return y, forward_call_pullback

    def _at(self, by_name: dict, position: int, starred: int):
        """The cotangent of the positional argument at ``position``, from the parameters' cotangents."""
        if position < len(self.positional):
            return by_name.get(self.positional[position], ZERO)
        collected = by_name.get(self.star, ZERO)
        if collected is ZERO or collected is NO_TANGENT:
            return ZERO
        return split_cotangent(collected, starred)[position - len(self.positional)]

    def __repr__(self):
        return f"<forward-transformed {self.function.__qualname__}>"


def is_forward_call(value) -> bool:
    """Generated forward code's call of a user function (differentiated again for an hvp)."""
    return isinstance(value, TransformedForwardCall) or isinstance(value, BoundCall) and value.forward


def is_bound_users_method(value) -> bool:
    """A method bound to its class (a classmethod, ``Linear.from_flat``) or to an object, whose
    function is Python source to differentiate: called by name, it is that function's call
    with ``__self__`` first (``BoundCall``)."""
    return inspect.ismethod(value) and inspect.isfunction(value.__func__)


class BoundCall:
    """A ``TransformedCall`` or ``TransformedForwardCall`` of a bound method's function, called
    as the bound method is: ``__self__`` goes first (not differentiated: a class, or an object
    read as a constant), and its cotangent is left out of what the pullback gives."""

    def __init__(self, call, owner, forward: bool):
        self.call, self.owner, self.forward = call, owner, forward

    def __call__(self, *args, **kwargs):
        if self.forward:  # call(tangents, *args): the tangents are those of the arguments after __self__
            return self.call(args[0], self.owner, *args[1:], **kwargs)
        y, pullback = self.call(self.owner, *args, **kwargs)
        return y, _without_owner(pullback, 1)

    def rrule(self, tangents, *args, **kwargs):
        """The forward call's reverse (an hvp): ``(NO_TANGENT, the tangents', *the arguments')``."""
        y, pullback = self.call.rrule(tangents, self.owner, *args, **kwargs)
        return y, _without_owner(pullback, 2)

    def __repr__(self):
        return f"<{self.call!r} bound to {self.owner!r}>"


def _without_owner(pullback, position: int):
    def bound_pullback(dy):
        cotangents = pullback(dy)
        result = CotangentTuple(tuple(cotangents[:position]) + tuple(cotangents[position + 1:]))
        result.keywords = getattr(cotangents, "keywords", {})
        return result

    return bound_pullback


_NO_FLOATS = (bool, int, str, bytes, type(None), np.integer, np.bool_, np.random.RandomState, np.random.Generator)


def holds_no_floats(value) -> bool:
    """Certainly nothing to differentiate: an int, a string, None, a random generator, an integer
    array, or a tuple or list of only those. Anything else (an object, a dict) may hold floats."""
    if isinstance(value, _NO_FLOATS):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biuSU"
    if type(value) in (tuple, list):
        return all(holds_no_floats(item) for item in value)
    return False
