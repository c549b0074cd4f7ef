"""Rules for the functions s2sad's transforms return, so that every transform composes with
every other, to any depth: ``jacfwd(jacrev(f))``, ``grad(lambda x: np.sum(grad(f)(x)))``,
``vjp(grad(f), x)``, ``hessian`` of a dict.

A function a transform returned (``grad(f)``, ``jacrev(f)``, ...) gets a rule made on demand,
never stored in the registry, whose derivatives are functions with rules of the same kind:

* **The tangent of a function.** ``tangent_of(B, r)`` is ``(*args, t) -> D_r B(args)[t]``. For
  a Python function ``f`` it is the innermost tangent of ``generated_jvp(f)``, which is plain,
  closure-free code (a ``LeafCore``); the tangent of that is the innermost tangent of the
  generated jvp of that code, one level deeper, and so on to any order.
* **A transform of a function.** Each transform K (``grad``, ``value_and_grad``, ``jacfwd``,
  ``jacrev``, ``hessian``) is linear in the function and, second derivatives being symmetric,
  commutes with directional derivatives: ``d/ds K(B)(x + s t) = K(tangent_of(B, r))(x, t)``.
  That is the forward rule of ``K(B)`` (a ``NodeCore``), itself a transform of a function.
* **Its reverse rule.** For ``grad`` the pullback of ``c`` is the gradient of
  ``D_p B(x)[c]``: one reverse pass over generated forward code, as ``hvp``. For a Jacobian
  it is the gradient of ``sum_i <C[..., i], D_p B(x)[e_i]>``, one such pass per element of
  the argument (the Jacobian itself costs one pass per element already). ``hessian`` is the
  Jacobian (``jacfwd``) of ``jacrev``, as in JAX.

Two more kinds of rule are made on demand here, from the same pieces:

* ``s2sad.jvp(f, primals, tangents)`` and ``s2sad.hvp(...)`` called in a differentiated function
  are sums of such derivatives (the generated forward code of ``f``; the tangents of
  ``grad(f)``), so they get a reverse and a forward rule; the forward rule's own derivatives
  are not made (refused, saying so). ``s2sad.vjp`` there stays refused: its pullback is a
  function computed from the differentiated argument.
* A user's reverse rule without a forward rule gets one (``derived_forward``): the vjp is
  linear in its cotangent, so one pullback per output element gives the Jacobian's rows, and
  the jvp is their product with the tangent.
"""
from __future__ import annotations

import inspect

import numpy as np

from .arguments import hand_to_rule, seed_for, shaped_tangent
from .runtime.projection import is_float_like
from .containers import as_tangent, fields, filled_tangent, leaves, with_leaves
from .errors import UnsupportedArgumentsError, UnsupportedSyntaxError
from .frontend.resolve import COMPOSABLE_KINDS, is_library, mark_transform, signature as signature_of
from .frontend.resolve import refuse_value_transform, transform_kind, transform_recipe, unwrap, value_transform
from .registry import Rule, add_rule_finder, rule_for, signature_from_text
from .registry.forward import ForwardRule, add_forward_finder
from .runtime.accumulate import add
from .runtime.calls import held_call
from .runtime.isolation import detached
from .runtime.tangents import NO_TANGENT, ZERO, is_zero, unthunk
from .sourced_calls import sourced_call
from .tracebacks import POINTING
from .transform import generated_jvp, generated_rrule

__all__ = ["composable", "derived_forward", "uses_gradient"]


def composable(function, kind: str, transform, f, argnums, has_aux: bool = False):
    """Mark ``function``, what ``transform(f, argnums)`` returned, as a transform of kind
    ``kind`` that s2sad can differentiate again (``has_aux``: refused when it is)."""
    recipe = None if has_aux else (transform, f, argnums)
    return mark_transform(function, kind, recipe)


# ---------------------------------------------------------------- the derivatives, as callables with rules
class Composed:
    """A derivative s2sad made, as a callable with a rule: ``core`` computes it from its own
    parameters (``core.count`` of them), ``feeds[i]`` is the core's parameter the ``i``-th
    argument feeds (None: the argument is read by nothing, as a forward rule's ``ans``)."""

    __slots__ = ("core", "feeds", "signature", "name", "function", "_rule")

    def __init__(self, core, feeds: tuple, name: str, signature=None, function=None):
        self.core, self.feeds, self.name = core, feeds, name
        self.signature = signature or signature_from_text(", ".join(f"a{i}" for i in range(len(feeds))))
        self.function = function if function is not None else self  # what the rule is the rule of
        self._rule = None

    def __repr__(self) -> str:
        return f"<s2sad derivative {self.name}>"

    def inner(self, args, kwargs) -> list:
        if kwargs or len(args) != len(self.feeds):
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            args = tuple(bound.arguments.values())
        inner = [None] * self.core.count
        for value, slot in zip(args, self.feeds):
            if slot is not None:
                inner[slot] = value
        return inner

    def __call__(self, *args, **kwargs):
        inner = self.inner(args, kwargs)
        _refuse_complex(self.core, inner, self.name)
        return self.core.value(inner)

    def tangent(self, position: int) -> "Composed":
        """``(*args, t) -> D_position self(args)[t]``."""
        return Composed(self.core.tangent(self.feeds[position]), self.feeds + (self.core.count,),
                        f"tangent {position} of {self.name}")

    def jvp_function(self, position: int) -> "Composed":
        """The same as a forward rule's jvp takes it: ``(t, ans, *args)``."""
        return Composed(self.core.tangent(self.feeds[position]), (self.core.count, None) + self.feeds,
                        f"jvp {position} of {self.name}")

    def rrule(self, *args, **kwargs):
        inner = self.inner(args, kwargs)
        _refuse_complex(self.core, inner, self.name)
        y, pullback = self.core.rrule(inner)
        feeds, values = self.feeds, args

        def composed_pullback(cotangent):
            cotangents = pullback(cotangent)
            return (NO_TANGENT,) + tuple(ZERO if slot is None else cotangents[slot] for slot in feeds[:len(values)])

        return y, composed_pullback

    @property
    def rule(self) -> Rule:
        if self._rule is None:
            rule = Rule(self.function, self.name, self.signature, rrule_function=self.rrule)
            names = list(self.signature.parameters)
            rule.composition_forward = ForwardRule(rule, {
                name: None if slot is None else self.jvp_function(i) for i, (name, slot) in enumerate(zip(names, self.feeds))})
            self._rule = rule
        return self._rule


class LeafCore:
    """``(*params of P) -> `` the innermost tangent of ``P``'s output, ``len(chain)`` levels down,
    where ``P`` is ``f``'s generated jvp in the parameter ``chain[0]``, that code's generated jvp
    in ``chain[1]``, ... (each level adds its tangent as a last parameter)."""

    __slots__ = ("f", "names", "chain", "_forward")

    def __init__(self, f, names: tuple, chain: tuple):
        self.f, self.names, self.chain = f, names, chain
        self._forward = None

    @property
    def count(self) -> int:
        return len(self.names) + len(self.chain)

    def forward(self):
        if self._forward is None:
            code, names = self.f, list(self.names)
            for position in self.chain:
                code = generated_jvp(code, (names[position],))
                names = list(signature_of(code).parameters)
            self._forward = code
        return self._forward

    def value(self, inner):
        with POINTING:
            result = self.forward()(*detached(inner))  # code that writes into an argument writes into copies
        return innermost(result, len(self.chain))

    def tangent(self, position: int) -> "LeafCore":
        return LeafCore(self.f, self.names, self.chain + (position,))

    def rrule(self, inner):
        forward = self.forward()
        names = list(signature_of(forward).parameters)
        positions = [i for i, value in enumerate(inner) if is_float_like(value)]
        with POINTING:
            result, pullback = generated_rrule(forward, tuple(names[i] for i in positions))(*detached(inner))
        y = innermost(result, len(self.chain))

        def leaf_pullback(cotangent):
            nested = unthunk(cotangent)
            for _ in self.chain:
                nested = (ZERO, nested)
            with POINTING:
                cotangents = pullback(nested)
            return tuple(hand_to_rule(inner[i], cotangents[1 + i]) if i in positions else NO_TANGENT
                         for i in range(len(inner)))

        return y, leaf_pullback


def innermost(result, depth: int):
    """The tangent of the tangent of ... ``depth`` levels down a generated jvp's output, shaped
    like the primal (a symbolic zero becomes zeros)."""
    if depth == 0:
        return result
    primal, tangent = result, result
    for _ in range(depth):
        primal = primal[0]
        tangent = ZERO if is_zero(unthunk(tangent)) else unthunk(tangent)[1]
    return shaped_tangent(tangent, primal)


class NodeCore:
    """``(*params of B) -> transform(B, argnums)(*params)``: a transform of kind ``kind`` of the
    function ``B`` (a Python function, a transform's function, or a ``Composed``)."""

    __slots__ = ("transform", "kind", "base", "argnums", "count", "made")

    def __init__(self, transform, kind: str, base, argnums, count: int, made=None):
        self.transform, self.kind, self.base, self.argnums, self.count = transform, kind, base, argnums, count
        self.made = made  # the function the transform returned, when there is one already

    def value(self, inner):
        return (self.made or self.transform(self.base, self.argnums))(*inner)

    def tangent(self, position: int) -> "NodeCore":
        return NodeCore(self.transform, self.kind, tangent_of(self.base, position, self.count), self.argnums, self.count + 1)

    def rrule(self, inner):
        y = self.value(inner)

        def node_pullback(cotangent):
            cotangent = unthunk(cotangent)
            if is_zero(cotangent):
                return tuple(ZERO if is_float_like(v) else NO_TANGENT for v in inner)
            if self.kind in ("grad", "value_and_grad"):
                total = self.gradient_pullback(inner, cotangent)
            else:
                total = self.jacobian_pullback(inner, y, cotangent)
            return tuple(t if is_float_like(v) else NO_TANGENT for t, v in zip(total, inner))

        return y, node_pullback

    def positions(self) -> tuple:
        return (int(self.argnums),) if isinstance(self.argnums, (int, np.integer)) else tuple(self.argnums)

    def gradient_pullback(self, inner, cotangent) -> list:
        """The pullback of ``grad``: the gradient of ``<grad B(x), c> = D_p B(x)[c]``, a reverse
        pass over forward code per differentiated argument (plus ``c_value * grad B`` for
        ``value_and_grad``)."""
        total = [ZERO] * len(inner)
        if self.kind == "value_and_grad":
            value_cotangent, cotangent = cotangent
            if not is_zero(unthunk(value_cotangent)):
                _, pullback = rrule_of(self.base, inner)
                total = _added(total, pullback(value_cotangent)[1:])
        single = isinstance(self.argnums, (int, np.integer))
        for j, p in enumerate(self.positions()):
            c = cotangent if single else unthunk(cotangent[j])
            if is_zero(c):
                continue
            leaf = tangent_of(self.base, p, self.count)
            y, pullback = leaf.rrule(*inner, filled_tangent(inner[p], c) if fields(inner[p]) is not None else c)
            total = _added(total, pullback(seed_for(y, leaf.name))[1:1 + len(inner)])
        return total

    def jacobian_pullback(self, inner, y, cotangent) -> list:
        """The pullback of a Jacobian ``J = D_p B(x)`` (shape ``out + in``): the gradient of
        ``<C, J> = sum_i <C[..., i], D_p B(x)[e_i]>``, a reverse pass over forward code per
        element ``i`` of each differentiated argument. ``hessian`` is the Jacobian of ``jacrev``."""
        output = self.base(*inner)
        blocks = iter(leaves(_filled(y, cotangent)))
        given = {}  # (argument, its leaf) -> per output leaf, its block of C flattened over the argument's leaf
        for y_leaf in leaves(output):
            for p in self.positions():
                for j, unit in enumerate(leaves(inner[p])):
                    block = next(blocks)
                    if is_float_like(unit) and is_float_like(y_leaf):
                        block = np.reshape(np.asarray(block), np.shape(y_leaf) + (int(np.size(unit)),))
                    given.setdefault((p, j), []).append(block if is_float_like(unit) and is_float_like(y_leaf) else None)
        total = [ZERO] * len(inner)
        for p in self.positions():
            units = leaves(inner[p])
            leaf = tangent_of(self.base, p, self.count)
            for j, unit in enumerate(units):
                if not is_float_like(unit):
                    continue
                for i, e in enumerate(_basis(unit)):
                    c = with_leaves(output, [_zeros(y_leaf) if block is None else _like(block[..., i], y_leaf)
                                             for block, y_leaf in zip(given[p, j], leaves(output))])
                    t = with_leaves(inner[p], [e if k == j else _zeros(u) for k, u in enumerate(units)])
                    _, pullback = leaf.rrule(*inner, t)
                    total = _added(total, pullback(as_tangent(output, c))[1:1 + len(inner)])
        return total


def _like(value, like):
    return float(value) if isinstance(like, float) else np.asarray(value)


def _added(total: list, cotangents) -> list:
    return [c if t is ZERO else t if is_zero(unthunk(c)) or c is NO_TANGENT else add(t, unthunk(c))
            for t, c in zip(total, cotangents)]


def _filled(like, tangent):
    """A cotangent in rule form (a ``Tangent``, a tuple, ZERO) as ``like``'s container with zeros."""
    if is_zero(tangent):
        return with_leaves(like, [_zeros(leaf) for leaf in leaves(like)])
    return filled_tangent(like, tangent) if fields(like) is not None else tangent


def _zeros(like):
    return np.zeros(np.shape(like)) if is_float_like(like) else 0.0


def _basis(x):
    """Unit tangents for each element of ``x``, in C order (1.0 for a Python float)."""
    size = int(np.size(x))
    for index in range(size):
        if isinstance(x, float):
            yield 1.0
            continue
        e = np.zeros(size)
        e[index] = 1.0
        yield e.reshape(np.shape(x))


def _refuse_complex(core, inner, name: str) -> None:
    """A Jacobian at complex arguments is refused, as JAX refuses it without ``holomorphic``: it
    is no linear map of complex numbers unless the function is holomorphic. Gradients of real
    functions of complex arguments (``dL/dRe z + i dL/dIm z``) and their tangents compose."""
    if not isinstance(core, NodeCore) or core.kind in ("grad", "value_and_grad"):
        return
    for value in inner:
        for leaf in leaves(value):
            if np.iscomplexobj(leaf):
                raise UnsupportedArgumentsError(
                    f"{name}: a Jacobian at complex arguments is not defined (the function need not be holomorphic)",
                    hint="split the complex argument into its real and imaginary parts, or differentiate a "
                         "gradient of a real function (grad, vjp, jvp compose at complex arguments)")


# ---------------------------------------------------------------- which function is which
def tangent_of(base, position: int, count: int) -> Composed:
    """``(*args, t) -> D_position base(args)[t]`` for ``base`` with ``count`` parameters."""
    composed = composed_of(base)
    if composed is not None:
        return composed.tangent(position)
    original = _plain(base)
    names = tuple(signature_of(original).parameters)
    return Composed(LeafCore(original, names, (position,)), tuple(range(count + 1)),
                    f"tangent of {getattr(original, '__qualname__', original)} in `{names[position]}`")


def rrule_of(base, inner):
    """``(y, pullback)`` of ``base`` at the positional arguments ``inner``: a composed
    derivative's own rule, or the code generated for a Python function."""
    composed = composed_of(base)
    if composed is not None:
        return composed.rrule(*inner)
    original = _plain(base)
    names = list(signature_of(original).parameters)
    positions = [i for i, value in enumerate(inner) if is_float_like(value)]
    with POINTING:
        y, pullback = generated_rrule(original, tuple(names[i] for i in positions))(*detached(inner))

    def plain_pullback(cotangent):
        with POINTING:
            cotangents = pullback(cotangent)
        return (NO_TANGENT,) + tuple(hand_to_rule(inner[i], cotangents[1 + i]) if i in positions else NO_TANGENT
                                     for i in range(len(inner)))

    return y, plain_pullback


def composed_of(function) -> Composed | None:
    """The derivative ``function`` stands for, for a ``Composed`` or a function one of s2sad's
    transforms returned; None for any other function."""
    if isinstance(function, Composed):
        return function
    kind = transform_kind(function)
    if kind is None:
        return None
    cached = function.__dict__.get("__s2sad_composed__")
    if cached is not None and cached.function is function:  # functools.wraps copies it onto a transform of this one
        return cached
    recipe = transform_recipe(function)
    if recipe is None or kind not in COMPOSABLE_KINDS:
        raise UnsupportedSyntaxError(
            f"s2sad.{kind}({getattr(function, '__qualname__', 'f')}) with has_aux=True or holomorphic=True cannot be "
            "differentiated again",
            hint="differentiate a function without has_aux, returning what you need")
    transform, f, argnums = recipe
    inner = composed_of(f)
    signature = inner.signature if inner is not None else signature_of(_plain(f))
    count = len(signature.parameters)
    argnums = _from_the_start(argnums, signature, kind)
    name = f"s2sad.{kind}({getattr(f, '__qualname__', None) or getattr(f, 'name', f)}, argnums={argnums})"
    composed = Composed(NodeCore(transform, kind, f, argnums, count, function), tuple(range(count)), name, signature,
                        function)
    function.__dict__["__s2sad_composed__"] = composed
    return composed


def _from_the_start(argnums, signature, kind: str):
    """``argnums`` counted from the first parameter: a derivative is called with every parameter
    (defaults filled in), where ``-1`` would name another one than in a call that leaves them out."""
    single = isinstance(argnums, (int, np.integer))
    positions = [int(argnums)] if single else [int(p) for p in argnums]
    if all(p >= 0 for p in positions):
        return argnums
    if any(p.default is not p.empty for p in signature.parameters.values()):
        raise UnsupportedSyntaxError(
            f"s2sad.{kind} with a negative argnums, of a function with default arguments, is not differentiated again",
            hint="count argnums from the first parameter")
    counted = [p + len(signature.parameters) if p < 0 else p for p in positions]
    return counted[0] if single else tuple(counted)


def _plain(function):
    """The Python function a transform differentiates from its source, or an s2sad error
    saying why a transform of ``function`` cannot be differentiated again."""
    original = unwrap(function)
    label = getattr(original, "__qualname__", None) or repr(original)
    if held_call(function) is not None or not inspect.isfunction(original) or is_library(original) \
            or rule_for(original) is not None:
        sourced = sourced_call(function)  # np.prod, a bound method, a partial: a function calling it
        if sourced is not None:
            return sourced
        raise UnsupportedSyntaxError(
            f"a transform of {label} cannot be differentiated again: s2sad composes transforms of Python "
            "functions it differentiates from their source (not of a rule, a bound method or a partial)",
            hint=f"wrap it: def g(x): return {getattr(original, '__name__', 'f')}(x), and transform g")
    for parameter in signature_of(original).parameters.values():
        if parameter.kind not in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            raise UnsupportedSyntaxError(
                f"a transform of {label} cannot be differentiated again: its parameter `{parameter.name}` is "
                f"{parameter.kind.description}", hint="give the function plain positional parameters")
    return original


# the names of the functions below that get a rule besides the derivatives: s2sad's transforms that
# give values, and the forward rules made here (a name not among them is no function of these)
_NAMED = {"vjp", "jvp", "hvp", "rrule", "grad", "value_and_grad", "jacfwd", "jacrev", "hessian", "derivative",
          "jvp_from_pullbacks", "value_transform_jvp"}


def _composition_rule(function) -> Rule | None:
    """The registry's finder (asked for every callable without a registered rule: kept cheap)."""
    if type(function) is Composed:
        return function.rule
    if getattr(function, "__s2sad_transform__", None) is not None and transform_kind(function) is not None:
        return composed_of(function).rule
    name = getattr(function, "__name__", None)
    if name not in _NAMED:
        return None
    kind = value_transform(function)
    if kind in ("jvp", "hvp"):
        return _value_transform_rule(function, kind)
    refused = kind or (name if name in ("jvp_from_pullbacks", "value_transform_jvp") else None)
    if refused is None:
        return None
    return Rule(function, getattr(function, "__qualname__", refused), rrule_function=_refusing(function, refused))


# ---------------------------------------------------------------- s2sad.jvp and s2sad.hvp called in differentiated code
_value_rules: dict = {}  # s2sad.jvp, s2sad.hvp -> their rule (made once)


def _value_transform_rule(function, kind: str) -> Rule:
    """``s2sad.jvp(f, primals, tangents)`` and ``s2sad.hvp(...)`` in a differentiated function: a sum
    of derivatives s2sad made (``_terms``) at arguments taken from the two tuples, each with its rule."""
    rule = _value_rules.get(kind)
    if rule is None or rule.function is not function:
        signature = signature_from_text("f, primals, tangents" + (", has_aux=False" if kind == "jvp" else ""))

        def value_transform_rrule(f, primals, tangents, *rest):
            terms, primals, tangents = _terms(kind, f, primals, tangents, rest)
            if not terms:  # along zero tangents: zero products, whatever the arguments
                zeros = tuple(shaped_tangent(ZERO, p) for p in primals if is_float_like(p))
                return (zeros[0] if len(zeros) == 1 else zeros), lambda cotangent: (NO_TANGENT, NO_TANGENT) + (
                    tuple(ZERO for _ in primals), tuple(ZERO for _ in tangents))
            value = _summed([composed(*arguments) for composed, arguments, _ in terms])
            single = kind == "hvp" and len(value) == 1  # hvp's one product, not a tuple of one
            if kind == "jvp":
                value = (value[0], shaped_tangent(value[1], value[0]))

            def value_transform_pullback(cotangent):
                dprimals, dtangents = [ZERO] * len(primals), [ZERO] * len(tangents)
                given = unthunk(cotangent)
                for composed, arguments, sources in terms:
                    _, pullback = composed.rrule(*arguments)
                    for (which, index), gradient in zip(sources, pullback((given,) if single else given)[1:]):
                        if which is not None and not is_zero(unthunk(gradient)):
                            into = dprimals if which == "primals" else dtangents
                            into[index] = add(into[index], unthunk(gradient)) if into[index] is not ZERO else unthunk(gradient)
                return (NO_TANGENT, NO_TANGENT, tuple(dprimals), tuple(dtangents)) + (NO_TANGENT,) * len(rest)

            return (value[0] if single else value), value_transform_pullback

        rule = Rule(function, f"s2sad.{kind}", signature, rrule_function=value_transform_rrule)
        rule.composition_forward = ForwardRule(rule, {"primals": _value_transform_jvp(kind, "primals"),
                                                      "tangents": _value_transform_jvp(kind, "tangents")})
        _value_rules[kind] = rule
    return rule


def _value_transform_jvp(kind: str, which: str):
    def value_transform_jvp(g, ans, f, primals, tangents, *rest):
        terms, primals, tangents = _terms(kind, f, primals, tangents, rest)
        pushed = []
        for composed, arguments, sources in terms:
            for slot, (source, index) in enumerate(sources):
                t = g[index] if source == which and g is not ZERO else ZERO
                if not is_zero(unthunk(t)) and is_float_like(arguments[slot]):
                    pushed.append(composed.tangent(slot)(*arguments, t))
        total = _summed(pushed) if pushed else ZERO
        return total[0] if kind == "hvp" and total is not ZERO and len(total) == 1 else total

    return value_transform_jvp


def _terms(kind: str, f, primals, tangents, rest):
    """``[(derivative, its arguments, where each comes from)]`` whose outputs sum to
    ``s2sad.<kind>(f, primals, tangents)``; the sources are ``("primals", i)``, ``("tangents", i)``."""
    if any(rest):
        raise UnsupportedSyntaxError("s2sad.jvp with has_aux=True in a differentiated function is not differentiated",
                                     hint="call it without has_aux")
    primals, tangents = tuple(primals), tuple(tangents)
    positions = [i for i, (p, t) in enumerate(zip(primals, tangents))
                 if is_float_like(p) and t is not None and not is_zero(unthunk(t))]
    if kind == "jvp":  # (f(p), D f(p)[t]): the generated forward code of f, itself a function of both
        original = _plain(f)
        names = list(signature_of(original).parameters)
        forward = generated_jvp(original, tuple(names[i] for i in positions))
        forward_names = tuple(signature_of(forward).parameters)
        composed = Composed(LeafCore(forward, forward_names, ()), tuple(range(len(forward_names))), f"s2sad.jvp({names})")
        arguments = list(primals) + [filled_tangent(primals[i], tangents[i]) for i in positions]
        sources = [("primals", i) for i in range(len(primals))] + [("tangents", i) for i in positions]
        return [(composed, arguments, sources)], primals, tangents
    # hvp: the gradient pushed along t, one tangent of the gradient's derivative per argument
    floats = tuple(i for i, p in enumerate(primals) if is_float_like(p))
    gradient = _gradient_node(f, floats, len(primals))
    terms = []
    for r in positions:
        composed = gradient.tangent(r)
        sources = [("primals", i) for i in range(len(primals))] + [("tangents", r)]
        terms.append((composed, list(primals) + [filled_tangent(primals[r], tangents[r])], sources))
    return terms, primals, tangents


_gradient: list = []  # s2sad.grad, which s2sad.api (importing this module) hands over: see uses_gradient


def uses_gradient(grad) -> None:
    """``s2sad.grad``, which ``hvp`` called in a differentiated function is differentiated through."""
    _gradient[:] = [grad]


def _gradient_node(f, positions: tuple, count: int) -> Composed:
    """``grad(f, argnums=positions)`` as a derivative s2sad made (with ``count`` parameters)."""
    signature = signature_of(_plain(f)) if composed_of(f) is None else composed_of(f).signature
    return Composed(NodeCore(_gradient[0], "grad", f, positions, count), tuple(range(count)),
                    f"s2sad.grad({getattr(f, '__qualname__', f)})", signature)


def _summed(values):
    total = values[0]
    for value in values[1:]:
        total = add(total, value)
    return total


def _refusing(function, kind: str):
    """The rule of what s2sad does not differentiate, so that generated code calling it raises an
    s2sad error (at the user's line) rather than a missing rule's."""
    def refused_rrule(*args, **kwargs):
        if kind == "value_transform_jvp":
            raise UnsupportedArgumentsError(
                "a derivative of the forward rule of s2sad.jvp or s2sad.hvp called in a differentiated function "
                "(a third derivative through it) is not supported yet",
                hint="differentiate the function s2sad.grad, jacfwd, jacrev or hessian returns, whose derivatives go "
                     "to any order (jacfwd(jacrev(grad(f))))")
        if kind != "jvp_from_pullbacks":
            raise refuse_value_transform(kind)
        raise UnsupportedArgumentsError(
            f"a second derivative through `{function.__qualname__.rsplit('_jvp_from_pullbacks', 1)[0]}`, which has a "
            "reverse rule only: its forward mode comes from its pullbacks, which s2sad does not differentiate",
            hint="register its forward rule (s2sad.defjvp) written with functions that have rules, or "
                 "differentiate the function's source (s2sad.differentiate_source)")

    return refused_rrule


# ---------------------------------------------------------------- forward mode from a user's reverse rule
def derived_forward(rule: Rule) -> ForwardRule | None:
    """A forward rule for a reverse rule without one: its own if it is a composition's, else
    one from the reverse rule's pullback, one per output element (``jvp = J t``, ``J``'s rows
    the pullbacks of the unit cotangents)."""
    forward = rule.__dict__.get("composition_forward")
    if forward is not None:
        return forward
    if rule.signature is None or any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                                     for p in rule.signature.parameters.values()):
        return None
    forward = ForwardRule(rule, {name: _pulled_jvp(rule, i) for i, name in enumerate(rule.signature.parameters)})
    rule.composition_forward = forward
    return forward


def _pulled_jvp(rule: Rule, index: int):
    def jvp_from_pullbacks(g, ans, *values):
        if np.iscomplexobj(ans) or np.iscomplexobj(g) or fields(ans) is not None:
            raise UnsupportedArgumentsError(
                f"forward mode through `{rule.name}`, which has a reverse rule only, needs real array or scalar "
                "inputs and output", hint="register its forward rule with s2sad.defjvp")
        _, pullback = rule.lazy_rrule(*values)  # a cotangent computed only if read: other parameters may refuse
        rows = []
        for e in _basis(np.asarray(ans, dtype=float)):
            cotangent = unthunk(pullback(type(ans)(e) if isinstance(ans, float) else e)[1 + index])
            rows.append(0.0 if is_zero(cotangent) or cotangent is NO_TANGENT else float(np.sum(np.asarray(cotangent) * g)))
        product = np.asarray(rows).reshape(np.shape(ans))
        return float(product) if isinstance(ans, float) else product

    jvp_from_pullbacks.__qualname__ = f"{rule.name}_jvp_from_pullbacks"
    return jvp_from_pullbacks


add_rule_finder(_composition_rule)
add_forward_finder(derived_forward)
