"""The names JAX and autograd users reach for, built on s2sad's public API.

``stop_gradient``, ``elementwise_grad``, ``linearize``, the decorators
``custom_vjp`` and ``custom_jvp``, and ``defvjp`` in both its forms (s2sad's template
strings and autograd's ``lambda ans, x: lambda g: ...``). Each is a few lines over
``grad``/``vjp``/``jvp`` and the rule registry: nothing here generates code. autograd's
``check_grads`` is in ``s2sad.testing`` (imported on first use).
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

from .api import vjp
from .arguments import positional_name
from .errors import ArgumentError, RuleError
from .jacobians import jvp
from .registry import Rule, add_rule_finder, defrrule, nondifferentiable
from .registry import defvjp as defvjp_templates
from .registry.forward import defjvp as defjvp_callables
from .runtime.isolation import detached
from .runtime.projection import check_differentiable
from .runtime.tangents import NO_TANGENT, ZERO, unthunk

__all__ = ["stop_gradient", "elementwise_grad", "linearize", "custom_vjp", "custom_jvp", "defvjp"]

T = TypeVar("T")


# ---------------------------------------------------------------- stop_gradient

def stop_gradient(x: T) -> T:
    """``x`` itself as a value, with a derivative of zero (JAX's ``jax.lax.stop_gradient``).

    Inside differentiated code nothing flows back through it, in reverse or forward mode.
    An array comes back as a copy (writing into the result never changes ``x``); lists,
    tuples and dicts are copied item by item.

    >>> import numpy as np, s2sad
    >>> def f(x):
    ...     return s2sad.stop_gradient(x) * x     # d/dx = stop_gradient(x) = x, not 2x
    >>> float(s2sad.grad(f)(3.0))
    3.0
    """
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (list, tuple)) and type(x) in (list, tuple):
        return type(x)(stop_gradient(item) for item in x)
    if isinstance(x, dict):
        return {key: stop_gradient(value) for key, value in x.items()}
    return x


nondifferentiable(stop_gradient)


# ---------------------------------------------------------------- elementwise_grad and linearize

def elementwise_grad(f: Callable[..., Any], argnums: int = 0) -> Callable[..., Any]:
    """autograd's ``elementwise_grad``: the gradient of ``sum(f(x))``, i.e. ``f``'s vjp with a
    cotangent of ones.

    For a function that works elementwise this is each output element's derivative; for
    any other function it is the sum over the outputs (autograd gives the same).
    ``argnums`` is one int (autograd calls it ``argnum``).

    >>> import numpy as np, s2sad
    >>> s2sad.elementwise_grad(np.tanh)(np.array([0.0, 1.0]))      # 1 - tanh(x)**2
    array([1.        , 0.41997434])
    """
    if not isinstance(argnums, (int, np.integer)) or isinstance(argnums, bool):
        raise ArgumentError(f"elementwise_grad takes one argument number, not {argnums!r}",
                            hint="call elementwise_grad once per argument")
    name = getattr(f, "__qualname__", repr(f))

    def elementwise_grad_f(*args: Any) -> Any:
        if not -len(args) <= argnums < len(args):
            raise ArgumentError(f"elementwise_grad({name}): argnums={argnums} but {len(args)} arguments were given")
        check_differentiable(args[argnums], positional_name(f, argnums % len(args)))  # (an int's cotangent is NO_TANGENT)
        y, pullback = vjp(f, *args)
        if not (isinstance(y, (float, int, np.number)) or isinstance(y, np.ndarray) and y.dtype.kind in "fi"):
            raise TypeError(f"elementwise_grad({name}) needs a real array or number output, but {name} returned "
                            f"{type(y).__name__}{f' of dtype {y.dtype}' if hasattr(y, 'dtype') else ''}")
        return pullback(np.ones_like(y, dtype=np.result_type(y, 1.0)))[argnums]

    elementwise_grad_f.__name__ = elementwise_grad_f.__qualname__ = f"elementwise_grad_{getattr(f, '__name__', 'f')}"
    return elementwise_grad_f


def linearize(f: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """JAX's ``linearize``: ``(f(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the jvp at ``primals``.

    Unlike JAX, s2sad keeps no linearised program: each ``f_jvp`` call runs the generated
    forward code again (the primal included), at the cost of one ``s2sad.jvp``.

    >>> import numpy as np, s2sad
    >>> y, f_jvp = s2sad.linearize(np.sin, 0.5)
    >>> round(float(f_jvp(2.0)), 6) == round(2.0 * float(np.cos(0.5)), 6)
    True
    """
    at = detached(primals)  # the point itself: the caller's arrays may change after this (`x -= lr * g`)
    y = f(*primals)

    def f_jvp(*tangents: Any) -> Any:
        if len(tangents) != len(primals):
            raise ArgumentError(f"the linearized function takes one tangent per primal: {len(primals)}, "
                                f"not {len(tangents)}")
        return jvp(f, detached(at), tangents)[1]  # (a copy each time: f may change its arguments in place)

    return y, f_jvp


# ---------------------------------------------------------------- defvjp in autograd's form

def defvjp(function: Callable[..., Any], *vjps: Any, argnums: Sequence[int] | None = None,
           name: str | None = None, **options: Any) -> Rule:
    """Register a reverse rule for ``function``, in s2sad's form or in autograd's.

    s2sad's form: a signature, then one vjp per parameter, each a template string over
    ``g``, ``ans`` and the parameters or a function ``(g, ans, *params)``
    (``s2sad.defvjp(np.tanh, "x", "g * (1 - ans ** 2)")``; see docs/rule-authors.md).

    autograd's form: one *vjp maker* per parameter (``None``: no gradient), each
    ``(ans, *args, **kwargs) -> (g -> cotangent)``; ``argnums`` says which parameters
    they are for (default: the first ones in order). ``function`` must have a Python
    signature (``inspect.signature``).

    >>> import numpy as np, s2sad
    >>> def logsumexp(x):
    ...     return np.log(np.sum(np.exp(x)))
    >>> rule = s2sad.defvjp(logsumexp, lambda ans, x: lambda g: g * np.exp(x - ans))
    >>> s2sad.grad(logsumexp)(np.zeros(2))
    array([0.5, 0.5])
    """
    if vjps and isinstance(vjps[0], str):
        if argnums is not None:
            raise TypeError("defvjp: argnums belongs to autograd's form (vjp makers); s2sad's form names "
                            "parameters in its signature")
        return defvjp_templates(function, *vjps, name=name, **options)
    return _defvjp_makers(function, vjps, argnums, name, options)


def _defvjp_makers(function, makers, argnums, name, options) -> Rule:
    label = name or getattr(function, "__qualname__", repr(function))
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        raise TypeError(f"defvjp({label}): autograd's form needs the function's Python signature, which "
                        f"{label} does not have; use s2sad's form, which states it: "
                        f"s2sad.defvjp({label}, \"x, y\", vjp_x, vjp_y)") from None
    params = list(signature.parameters)
    numbers = tuple(range(len(makers))) if argnums is None else tuple(argnums)
    if len(numbers) != len(makers) or any(not 0 <= n < len(params) for n in numbers):
        raise TypeError(f"defvjp({label}): {len(makers)} vjp makers for argnums {numbers} of the "
                        f"{len(params)} parameters ({', '.join(params)})")
    slots: list[Any] = [None] * len(params)
    for number, maker in zip(numbers, makers):
        if maker is not None and not callable(maker):
            raise TypeError(f"defvjp({label}): a vjp maker is a function (ans, *args) -> (g -> cotangent) or None, "
                            f"not {type(maker).__name__}")
        kind = signature.parameters[params[number]].kind
        if maker is not None and kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise TypeError(f"defvjp({label}): parameter {number} ({params[number]}) collects several arguments; "
                            "autograd's form gives one vjp maker per named parameter (use s2sad's form)")
        slots[number] = None if maker is None else _vjp_from_maker(maker, signature)
    rule = defvjp_templates(function, _parameter_text(signature), *slots, name=name, **options)
    rule.signature = signature  # the real defaults: calls are bound with them, and reprs may not parse
    return rule


def _parameter_text(signature: inspect.Signature) -> str:
    """The parameter list as the registry's signature text: names and kinds; a default stands
    as None (the registered rule is then given the real signature)."""
    parameters = [p.replace(annotation=inspect.Parameter.empty,
                            default=inspect.Parameter.empty if p.default is inspect.Parameter.empty else None)
                  for p in signature.parameters.values()]
    return str(signature.replace(parameters=parameters, return_annotation=inspect.Signature.empty))[1:-1]


def _vjp_from_maker(maker, signature: inspect.Signature):
    """s2sad's ``vjp(g, ans, *params)`` (every parameter positionally, in order) from autograd's
    maker, which is called as the function was: positional arguments, then keywords."""
    def vjp_from_maker(g, ans, *values):
        # the registry fills in defaults; a keyword left at its default is left out, as the call did
        given = {name: value for (name, parameter), value in zip(signature.parameters.items(), values)
                 if parameter.kind is not inspect.Parameter.KEYWORD_ONLY or value is not parameter.default}
        bound = inspect.BoundArguments(signature, given)
        return maker(ans, *bound.args, **bound.kwargs)(g)

    vjp_from_maker.__name__ = getattr(maker, "__name__", "vjp_maker")
    return vjp_from_maker


# ---------------------------------------------------------------- custom_vjp and custom_jvp

class custom_vjp:
    """JAX's ``@custom_vjp``: ``f`` differentiated by the rule you give with ``f.defvjp(fwd, bwd)``.

    ``fwd(*args)`` returns ``(f(*args), residuals)``; ``bwd(residuals, g)`` returns a tuple
    with one cotangent per positional argument (None: zero). The rule is used wherever
    ``f`` is differentiated: by ``grad(f)`` and where differentiated code calls ``f``.
    Forward mode has no rule to use, as in JAX (use ``custom_jvp`` for that). Arguments
    are positional when ``f`` is differentiated.

    >>> import numpy as np, s2sad
    >>> @s2sad.custom_vjp
    ... def clip_gradient(x):
    ...     return x
    >>> def clip_fwd(x):
    ...     return x, None
    >>> def clip_bwd(residuals, g):
    ...     return (np.clip(g, -1.0, 1.0),)
    >>> clip_gradient.defvjp(clip_fwd, clip_bwd)
    >>> def loss(x):
    ...     return 5.0 * clip_gradient(x)
    >>> float(s2sad.grad(loss)(2.0))
    1.0
    """

    def __init__(self, fun: Callable[..., Any]) -> None:
        self.fun = fun
        for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, attribute, getattr(fun, attribute, None))
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None
        rule = defrrule(self, self.custom_rrule)
        rule.signature = inspect.signature(fun)
        # JAX refuses forward mode through a custom_vjp function too: say so where s2sad meets it
        defjvp_callables(self, *(self.no_forward_mode for _ in _positional(rule.signature)))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fun(*args, **kwargs)

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any]) -> None:
        """Give the rule: ``fwd(*args) -> (y, residuals)``, ``bwd(residuals, g) -> tuple of cotangents``."""
        self.fwd, self.bwd = fwd, bwd

    def no_forward_mode(self, g: Any, ans: Any, *values: Any) -> Any:
        raise RuleError(f"`{self.__qualname__}` is a custom_vjp function: it has a reverse rule only, so forward "
                        "mode (jvp, jacfwd, hessian) cannot go through it (JAX refuses it too)",
                        hint="use @s2sad.custom_jvp for a rule both modes use")

    def custom_rrule(self, *args: Any, **kwargs: Any):
        if self.fwd is None or self.bwd is None:
            raise RuleError(f"`{self.__qualname__}` is a custom_vjp function with no rule yet",
                            hint=f"call {self.__name__}.defvjp(fwd, bwd) before differentiating it")
        _refuse_keywords(self, kwargs)
        y, residuals = self.fwd(*args)
        bwd, label = self.bwd, self.__qualname__

        def custom_vjp_pullback(g):
            cotangents = bwd(residuals, unthunk(g))
            if not isinstance(cotangents, (tuple, list)) or len(cotangents) != len(args):
                got = len(cotangents) if isinstance(cotangents, (tuple, list)) else type(cotangents).__name__
                raise RuleError(f"the bwd of `{label}` returned {got} cotangents for its {len(args)} argument(s)",
                                hint="return a tuple with one cotangent per positional argument (None: zero)")
            return (NO_TANGENT, *(_cotangent_for(ct, x, label, i) for i, (ct, x) in enumerate(zip(cotangents, args))))

        return y, custom_vjp_pullback


class custom_jvp:
    """JAX's ``@custom_jvp``: ``f`` differentiated by the jvp you give with ``f.defjvp(jvp)``.

    ``jvp(primals, tangents)`` takes two tuples (one entry per positional argument) and
    returns ``(f(*primals), tangent of the output)``. Forward mode (``jvp``, ``jacfwd``)
    calls it; reverse mode (``grad``, ``vjp``) differentiates it with respect to the
    tangents, at zero tangents, as JAX transposes it: so it must be linear in the tangents
    (as a jvp is) and be Python s2sad can differentiate. Arguments are positional when
    ``f`` is differentiated.

    >>> import numpy as np, s2sad
    >>> @s2sad.custom_jvp
    ... def log1pexp(x):
    ...     return np.log1p(np.exp(x))
    >>> def log1pexp_jvp(primals, tangents):
    ...     x, = primals
    ...     x_dot, = tangents
    ...     return log1pexp(x), x_dot / (1.0 + np.exp(-x))     # stable where exp(x) overflows
    >>> log1pexp.defjvp(log1pexp_jvp)
    >>> float(s2sad.grad(log1pexp)(100.0)), float(s2sad.jvp(log1pexp, (100.0,), (1.0,))[1])
    (1.0, 1.0)
    """

    def __init__(self, fun: Callable[..., Any]) -> None:
        self.fun = fun
        for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, attribute, getattr(fun, attribute, None))
        self.jvp: Callable[..., Any] | None = None
        self.rule = defrrule(self, self.custom_rrule)
        self.rule.signature = inspect.signature(fun)  # forward rules are per parameter

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fun(*args, **kwargs)

    def defjvp(self, jvp: Callable[..., Any]) -> None:
        """Give the rule: ``jvp(primals, tangents) -> (y, y_dot)``, both arguments tuples."""
        self.jvp = jvp
        defjvp_callables(self, *(self._jvp_of(index) for index in range(len(_positional(self.rule.signature)))))

    def _jvp_of(self, index: int):
        """The tangent the output gets from parameter ``index`` alone: the user's jvp with every
        other tangent zero (a jvp is linear in its tangents, so these terms add up to it)."""
        def custom_jvp_term(g, ans, *values):
            primals = values[:len(_positional(self.rule.signature))]
            tangents = tuple(g if i == index else _zero_tangent(value) for i, value in enumerate(primals))
            return self.jvp(primals, tangents)[1]

        # second order through it (hessian, grad of grad) differentiates this term: refused by its
        # rule (_refused_again), saying why, as differentiating the user's jvp again is not done yet
        custom_jvp_term.__s2sad_custom__ = self
        return custom_jvp_term

    def custom_rrule(self, *args: Any, **kwargs: Any):
        if self.jvp is None:
            raise RuleError(f"`{self.__qualname__}` is a custom_jvp function with no rule yet",
                            hint=f"call {self.__name__}.defjvp(jvp) before differentiating it")
        _refuse_keywords(self, kwargs)
        y = self.fun(*args)
        jvp_rule, primals, label = self.jvp, args, self.__qualname__

        def custom_jvp_pullback(g):
            # the transpose of the linear map tangents -> y_dot: its vjp, at zero tangents
            zeros = tuple(_zero_tangent(x) for x in primals)
            _, pullback = vjp(functools.partial(jvp_rule, primals), zeros)
            cotangents, = pullback((None, unthunk(g)))
            return (NO_TANGENT, *(_cotangent_for(ct, x, label, i) for i, (ct, x) in enumerate(zip(cotangents, primals))))

        return y, custom_jvp_pullback


def _refuse_keywords(custom, kwargs) -> None:
    if kwargs:
        raise ArgumentError(f"`{custom.__qualname__}` was called with keyword arguments "
                            f"({', '.join(kwargs)}); a custom rule is given its arguments positionally",
                            hint=f"pass them by position: {custom.__name__}(...)")


def _zero_tangent(x):
    """A zero tangent for ``x``: of its shape, in its dtype if inexact (float64 for an int)."""
    if isinstance(x, float):
        return 0.0
    dtype = np.result_type(x) if np.issubdtype(np.result_type(x), np.inexact) else np.float64
    return np.zeros(np.shape(x), dtype)


def _positional(signature: inspect.Signature) -> list[str]:
    return [name for name, p in signature.parameters.items()
            if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]


def _cotangent_for(cotangent, x, label: str, index: int):
    """A user rule's cotangent as s2sad passes it on: None is zero, ints have none, and one of
    another shape than its argument is the rule's mistake, said here rather than broadcast."""
    if isinstance(x, (bool, int, np.integer)) or isinstance(x, np.ndarray) and x.dtype.kind in "biu":
        return NO_TANGENT
    if cotangent is None or cotangent is ZERO:
        return ZERO
    cotangent = unthunk(cotangent)
    if isinstance(x, (float, complex, np.ndarray, np.generic)) and np.shape(cotangent) != np.shape(x):
        raise RuleError(f"the rule of `{label}` returned a cotangent of shape {np.shape(cotangent)} for argument "
                        f"{index}, of shape {np.shape(x)}", hint="return each argument's cotangent in its shape")
    return cotangent


def _refused_again(function) -> Rule | None:
    """The registry's finder for the forward rules custom_vjp and custom_jvp functions give:
    a second derivative differentiates them, which is refused at the user's call, saying why
    (not as a function with no rule and no source, which would point at s2sad's own code)."""
    custom = getattr(function, "__s2sad_custom__", None)
    if custom is None and getattr(function, "__func__", None) is custom_vjp.no_forward_mode:
        custom = function.__self__
    if not isinstance(custom, (custom_vjp, custom_jvp)):
        return None
    kind = type(custom).__name__

    def refused_rrule(*args: Any, **kwargs: Any):
        raise RuleError(f"a second derivative (hessian, hvp, grad of grad) through `{custom.__qualname__}`, a {kind} "
                        "function, is not supported: s2sad does not differentiate its rule again",
                        hint="for second order, differentiate the function's own source (drop the decorator), or "
                             "register its rules with s2sad.defvjp and s2sad.defjvp written with functions that have rules")

    return Rule(function, f"{custom.__qualname__} ({kind} rule)", rrule_function=refused_rrule)


add_rule_finder(_refused_again)
