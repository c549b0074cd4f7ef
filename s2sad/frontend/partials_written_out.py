"""``functools.partial(f, a, k=v)`` of a function of the user's, written as the lambda it stands for,
``lambda x: f(a, x, k=v)``, so that a partial holding differentiated values (``step =
functools.partial(layer, W=W)``, differentiated in ``W``) is a closure holding them (normalize_lambdas.py),
differentiated through its calls like any lambda reading the function's variables (it had no rule).

The lambda takes ``f``'s parameters that the partial leaves: those before the first one held by
keyword by position, the later ones by keyword only (as calling the partial allows), each with
``f``'s default: the literal, or the very object ``f`` holds (``f.__defaults__[1]``: a lambda that
did not take such a parameter made ``step(x, act=np.sin)`` raise TypeError). It reads what the
partial holds where the partial is made, as the partial holds it: only variables and literals are
written out this way (an expression would be evaluated at each call), and the closure refuses a
variable the function changes later. Any other partial (of a
library's function, of a function with ``*args`` or ``**kwargs``, holding an expression) is
left as it was: differentiated where it holds constants, refused where it holds a differentiated value.
"""
from __future__ import annotations

import inspect

import libcst as cst

from .normalize_state import NormalizerState
from .normalize_syntax import dotted_name
from .resolve import found, is_library

_LITERALS = (bool, int, float, str, type(None))


class PartialWrittenOut(NormalizerState):
    def partial_as_lambda(self, node: cst.Call) -> cst.Lambda | None:
        """The lambda ``node`` (a call of ``functools.partial``) stands for, or None (see the module's docstring)."""
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
        return _lambda(node.args[0].value, function, held, keywords, params)

    def partial_value(self, node: cst.Call, want):
        made = self.partial_as_lambda(node)
        self.__dict__.setdefault("_partials_as_lambdas", set()).add(made)  # (what refusals call it)
        for inner in _nodes(made):
            if inner not in self.source.positions:
                self.source.alias(inner, node)
        return self.lambda_value(made, want)


def _held_as_it_is(value: cst.BaseExpression) -> bool:
    """A variable, a global, or a literal: what the lambda reads is what the partial holds."""
    return isinstance(value, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)) or dotted_name(value) is not None


def _lambda(spelled: cst.BaseExpression, function, held: list, keywords: dict, params: list) -> cst.Lambda:
    rest = params[len(held):]
    positional, keyword_only, passed = [], [], []
    for param in rest:
        if param.name in keywords:
            continue
        default = _default(cst.Module([]).code_for_node(spelled), function, param, params)
        if default is _UNREACHABLE:
            continue  # left to the function's own default: a call cannot pass it
        made = cst.Param(cst.Name(param.name), default=default)
        by_keyword = keyword_only or param.kind is param.KEYWORD_ONLY or any(
            other.name in keywords for other in rest[:rest.index(param)])
        (keyword_only if by_keyword else positional).append(made)
        passed.append(cst.Arg(cst.Name(param.name), keyword=cst.Name(param.name) if by_keyword else None))
    arguments = [cst.Arg(value) for value in held] + passed + [cst.Arg(value, keyword=cst.Name(key))
                                                               for key, value in keywords.items()]
    parameters = cst.Parameters(params=positional, star_arg=cst.ParamStar() if keyword_only else cst.MaybeSentinel.DEFAULT,
                                kwonly_params=keyword_only)
    return cst.Lambda(params=parameters, body=cst.Call(spelled, arguments))


_UNREACHABLE = object()


def _default(spelled: str, function, param, params: list):
    """The lambda's default for ``param``: its literal, or the function's own default object
    (``layer.__defaults__[1]``, the very object the function would use), so that a call may still
    pass it by keyword (``g(x, act=np.sin)``); ``_UNREACHABLE`` where the function does not hold it
    there (a decorated function: the signature is the wrapped one's)."""
    default = param.default
    if default is param.empty:
        return None
    if isinstance(default, _LITERALS) and cst.parse_expression(repr(default)) is not None:
        return cst.parse_expression(repr(default))
    if param.kind is param.KEYWORD_ONLY:
        held = (function.__kwdefaults__ or {}).get(param.name, _UNREACHABLE)
        return cst.parse_expression(f"{spelled}.__kwdefaults__[{param.name!r}]") if held is default else _UNREACHABLE
    # (counted over all of f's parameters: those the partial holds by position have defaults too)
    index = [p for p in params if p.kind is not p.KEYWORD_ONLY and p.default is not p.empty].index(param)
    defaults = function.__defaults__ or ()
    if index >= len(defaults) or defaults[index] is not default:
        return _UNREACHABLE
    return cst.parse_expression(f"{spelled}.__defaults__[{index}]")


def _nodes(made: cst.CSTNode) -> list:
    found_nodes = []

    class _Every(cst.CSTVisitor):
        def on_visit(self, inner) -> bool:
            found_nodes.append(inner)
            return True

    made.visit(_Every())
    return found_nodes
