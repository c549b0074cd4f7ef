"""``functools.partial(f, a, k=v)`` of a function of the user's, written as the lambda it stands for,
``lambda x: f(a, x, k=v)``, so that a partial holding differentiated values (``step =
functools.partial(layer, W=W)``, differentiated in ``W``) is a closure holding them (normalize_lambdas.py),
differentiated through its calls like any lambda reading the function's variables (it had no rule).

The lambda takes ``f``'s parameters that the partial leaves: those before the first one held by
keyword by position, the later ones by keyword only (as calling the partial allows), each with
``f``'s default where its repr is a literal meaning it (not ``-inf``), else ``...`` standing for ``f``'s own (``b=f.__defaults__[0]
if b is ... else b``, read as the call reads it), and the keywords the partial holds, by keyword
only, ``...`` unless a call gives one again (``W=W_held if W is ... else W``: the held variable
read under a name of its own). It reads what the partial holds where the partial is made, as the partial
holds it: only variables and literals are written out this way (an expression would be evaluated at
each call), and the closure refuses a variable the function changes later. Any other partial (of a
library's function, of a function with ``*args`` or ``**kwargs``, holding an expression) is
left as it was: differentiated where it holds constants, refused where it holds a differentiated value.
"""
from __future__ import annotations

import ast
import inspect

import libcst as cst

from .normalize_state import NormalizerState
from .normalize_syntax import dotted_name
from .resolve import found, is_library

_LITERALS = (bool, int, float, str, type(None))


class PartialWrittenOut(NormalizerState):
    def partial_as_lambda(self, node: cst.Call, made_here: bool = False) -> cst.Lambda | None:
        """The lambda ``node`` (a call of ``functools.partial``) stands for, or None (see the module's docstring);
        ``made_here``: the one the function makes, reading each variable it holds by keyword under a name of its own."""
        if not node.args or any(arg.star for arg in node.args) or node.args[0].keyword is not None:
            return None
        name = dotted_name(node.args[0].value)
        if name is None or name.split(".")[0] in self.current:
            return None
        function = self.env.resolve_dotted(name)
        if not (found(function) and inspect.isfunction(function) and not is_library(function)):
            return None
        held = [arg.value for arg in node.args[1:] if arg.keyword is None]
        keywords = {arg.keyword.value: arg.value for arg in node.args[1:] if arg.keyword is not None}
        if not all(_held_as_it_is(value) for value in [*held, *keywords.values()]) or not any(
                isinstance(value, cst.Name) and value.value in self.current for value in [*held, *keywords.values()]):
            return None  # (a partial holding only constants is called as it is)
        params = list(inspect.signature(function).parameters.values())
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params) or len(held) > len(params) \
                or any(p.kind is p.KEYWORD_ONLY for p in params[:len(held)]) \
                or any(p.name in keywords and p.kind is p.POSITIONAL_ONLY for p in params) \
                or not set(keywords) <= {p.name for p in params[len(held):]}:
            return None  # (Python's TypeError, as the partial's call raises it)
        if not _holds_its_defaults(function, params):
            return None  # (a decorated function: the lambda could not read the defaults its signature names)
        for key, value in keywords.items() if made_here else ():
            if isinstance(value, cst.Name) and value.value in self.current:
                # read under a name of its own: the lambda's parameter `key` (a call may give it again) hides it
                alias = self.namer.fresh(f"{value.value}_held")
                self.current[alias] = self.current[value.value]
                self.__dict__.setdefault("_held_aliases", {})[alias] = value.value
                keywords[key] = cst.Name(alias)
        defaults = [p.name for p in params if p.default is not p.empty and p.kind is not p.KEYWORD_ONLY]
        return _lambda(node.args[0].value, held, keywords, params[len(held):], defaults)

    def partial_value(self, node: cst.Call, want):
        made = self.partial_as_lambda(node, made_here=True)
        self.__dict__.setdefault("_partials_as_lambdas", set()).add(made)  # (what refusals call it)
        for inner in _nodes(made):
            if inner not in self.source.positions:
                self.source.alias(inner, node)
        return self.lambda_value(made, want)


def _held_as_it_is(value: cst.BaseExpression) -> bool:
    """A variable, a global, or a literal: what the lambda reads is what the partial holds."""
    return isinstance(value, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)) or dotted_name(value) is not None


def _lambda(function: cst.BaseExpression, held: list, keywords: dict, rest: list, defaults: list) -> cst.Lambda:
    positional, keyword_only, passed = [], [], []
    for param in rest:
        if param.name in keywords:
            continue
        default = param.default
        literal = default is param.empty or _spelt_as_literal(default)
        made = cst.Param(cst.Name(param.name), default=None if default is param.empty
                         else cst.parse_expression(repr(default)) if literal else cst.Ellipsis())
        by_keyword = keyword_only or param.kind is param.KEYWORD_ONLY or any(
            other.name in keywords for other in rest[:rest.index(param)])
        (keyword_only if by_keyword else positional).append(made)
        # another default: the function's own, read from it as its call would (`f.__defaults__[0]`) unless given
        value = cst.Name(param.name) if literal else _unless_given(param.name, _default_of(function, param, defaults))
        passed.append(cst.Arg(value, keyword=cst.Name(param.name) if by_keyword else None))
    # a keyword the partial holds is a parameter too, `...` unless a call gives it again, as Python's partial lets it
    given_again = [cst.Param(cst.Name(key), default=cst.Ellipsis()) for key in keywords]
    arguments = [cst.Arg(value) for value in held] + passed + [
        cst.Arg(_unless_given(key, value), keyword=cst.Name(key)) for key, value in keywords.items()]
    keyword_only += given_again
    parameters = cst.Parameters(params=positional, star_arg=cst.ParamStar() if keyword_only else cst.MaybeSentinel.DEFAULT,
                                kwonly_params=keyword_only)
    return cst.Lambda(params=parameters, body=cst.Call(function, arguments))


def _spelt_as_literal(default) -> bool:
    """Whether ``repr(default)`` is a literal meaning ``default`` wherever it is read: not ``-inf``,
    ``nan`` or ``np.float64(0.5)``, names the user's module may not hold or may hold as something else
    (those are read from the function, as any other default)."""
    if not isinstance(default, _LITERALS):
        return False
    try:
        read = ast.literal_eval(repr(default))
    except (ValueError, SyntaxError):
        return False
    return type(read) is type(default) and read == default


def _holds_its_defaults(function, params: list) -> bool:
    """Whether ``f.__defaults__`` and ``f.__kwdefaults__`` hold the very defaults its signature names,
    where the lambda reads them; not so for a decorated function, whose signature is the wrapped one's."""
    positional = [p for p in params if p.default is not p.empty and p.kind is not p.KEYWORD_ONLY]
    defaults, keyword_defaults = function.__defaults__ or (), function.__kwdefaults__ or {}
    return len(positional) == len(defaults) and all(p.default is d for p, d in zip(positional, defaults)) and all(
        p.name in keyword_defaults and keyword_defaults[p.name] is p.default
        for p in params if p.kind is p.KEYWORD_ONLY and p.default is not p.empty)


def _unless_given(name: str, value: cst.BaseExpression) -> cst.IfExp:
    """``value if name is ... else name``: what the partial holds (or the function's default) unless the call gives ``name``."""
    return cst.IfExp(test=cst.Comparison(cst.Name(name), [cst.ComparisonTarget(cst.Is(), cst.Ellipsis())]),
                     body=value, orelse=cst.Name(name))


def _default_of(function: cst.BaseExpression, param, defaults: list) -> cst.BaseExpression:
    """``f.__defaults__[i]`` (``f.__kwdefaults__['k']`` for a keyword-only parameter): read when called, as Python's call reads it."""
    spelled = cst.Module([]).code_for_node(function)
    if param.kind is param.KEYWORD_ONLY:
        return cst.parse_expression(f"{spelled}.__kwdefaults__[{param.name!r}]")
    return cst.parse_expression(f"{spelled}.__defaults__[{defaults.index(param.name)}]")


def _nodes(made: cst.CSTNode) -> list:
    found_nodes = []

    class _Every(cst.CSTVisitor):
        def on_visit(self, inner) -> bool:
            found_nodes.append(inner)
            return True

    made.visit(_Every())
    return found_nodes
