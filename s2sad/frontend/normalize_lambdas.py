"""Functions used as values: a lambda (``[np.sin, lambda v: v * scale]``, ``loss_fn = lambda r: r ** 2``
passed on), or a nested ``def`` that returns one expression (``def loss(w): return np.sum((w - target) ** 2)``
returned by a factory), which is the lambda it is equivalent to.

A lambda reading only its parameters and the module's names is written as the user wrote it; one
reading the function's variables is a closure holding them (``closure_value``); one whose defaults
read them is a ``functools.partial`` holding the defaults' values as keywords (``partial_of_defaults``).
"""
from __future__ import annotations

import functools

import libcst as cst

from ..errors import UnsupportedSyntaxError
from ..rules.helpers import closure
from .ir import LAMBDA_DEFAULTS_HELD, LAMBDA_DEFAULTS_MODULE, Atom, Callee, Const, Operation, Var
from .normalize_state import BUILTIN_NAMES, NormalizerState
from .normalize_syntax import code_of, names_read_in_defaults, names_read_in_lambda, rebound_after, variable_reads


class LambdaNormalizer(NormalizerState):
    def local_function_value(self, name: str, node: cst.Name, want) -> Atom:
        """A nested ``def`` or a lambda bound to a name, used as a value (passed on, returned, held)."""
        as_lambda = _as_lambda(self.local_functions[name])
        if as_lambda is None:
            raise UnsupportedSyntaxError(
                f"the nested function `{name}` is used as a value, and does more than return one expression",
                self.source.location(node),
                f"call it directly (`{name}(x)`), write it as one `return` (or a lambda), or define it at module level "
                "and pass that")
        if as_lambda is not self.local_functions[name]:  # `def loss(w): return ...` ... `return loss`
            self.source.alias(as_lambda, self.local_functions[name])
            self.__dict__.setdefault("_nested_as_lambdas", {})[as_lambda] = name
        return self.lambda_value(as_lambda, want)

    def described(self, node: cst.Lambda) -> str:
        """What a refusal calls ``node``: a lambda, or the nested function it was written from."""
        name = self.__dict__.get("_nested_as_lambdas", {}).get(node)
        if name is None and node in self.__dict__.get("_partials_as_lambdas", ()):
            return "a `functools.partial(...)` holding variables"
        return "a lambda" if name is None else f"the nested function `{name}`"

    def lambda_value(self, node: cst.Lambda, want) -> Atom:
        """A lambda used as a value (``odeint(lambda y, t: -y, ...)``, ``loss_fn = lambda r: r ** 2``
        where ``loss_fn`` was an argument): written in the generated code as the user wrote it, so
        it reads only its parameters and the module's functions and modules; what it is called
        with is differentiated where it is called, from its own source. A lambda that reads the
        function's variables would carry them past s2sad's sight: refused. (A lambda that is
        called where it is defined is written out there: normalize_calls.py.)"""
        read_by_defaults = [name for name in names_read_in_defaults(code_of(node)) if name in self.current]
        captured = []
        # (the defaults a partial holds are read where it is made: normalised as expressions there)
        for name in names_read_in_lambda(code_of(_without_defaults(node) if read_by_defaults else node)):
            if name in self.local_functions:
                raise UnsupportedSyntaxError(
                    f"{self.described(node)} used as a value calls the nested function `{name}`, which s2sad writes out only "
                    "where it is called", self.source.location(node), "define the nested function at module level")
            if name in self.current:
                captured.append(name)
                continue
            if name in BUILTIN_NAMES:
                continue
            if not self.env.is_static_root(name):
                raise UnsupportedSyntaxError(
                    f"{self.described(node)} used as a value reads the global `{name}`, which is data", self.source.location(node),
                    f"pass `{name}` to it as an argument")
            self.bind(name)
        if read_by_defaults:
            return self.partial_of_defaults(node, read_by_defaults, captured, want)
        if not captured:
            return Const(code_of(node))
        return self.closure_value(node, captured, want)

    def partial_of_defaults(self, node: cst.Lambda, read: list[str], captured: list[str], want) -> Atom:
        """A lambda whose defaults read the function's variables (``[lambda z, i=i: z * i for i in
        range(3)]``): ``functools.partial(lambda z, *, i: z * i, i=i)``, the defaults Python evaluates
        where the lambda is made evaluated there and held as the partial's keywords (a call passing
        one by keyword replaces it, as it would the default). A partial holding a differentiated value
        is refused where it is made (it has no rule); one holding ints or other constants is called as
        the lambda would be. (Passing such a parameter by position, which the lambda took, now raises
        Python's TypeError.)"""
        params = node.params
        moved = [param for param in params.params if param.default is not None and _reads(param.default, read)]
        kept_kwonly = [param for param in params.kwonly_params if param.default is None or not _reads(param.default, read)]
        moved_kwonly = [param for param in params.kwonly_params if param not in kept_kwonly]
        if captured or any(param.default is not None and _reads(param.default, read) for param in params.posonly_params):
            name = read[0]
            raise UnsupportedSyntaxError(
                f"{self.described(node)} used as a value takes a default value from `{name}`, a variable of the function"
                + (", and reads the function's variables in its body" if captured else ", for a positional-only parameter")
                + ": s2sad differentiates neither together", self.source.location(node),
                f"pass `{name}` as an argument where the lambda is called")
        keywords = [(param.name.value, self.expression(param.default)) for param in moved + moved_kwonly]
        bare = [param.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT) for param in moved + moved_kwonly]
        star = params.star_arg if not isinstance(params.star_arg, cst.MaybeSentinel) else cst.ParamStar()
        lambda_code = code_of(node.with_changes(params=params.with_changes(
            params=[param for param in params.params if param not in moved], star_arg=star,
            kwonly_params=kept_kwonly + bare)))
        self.imports[LAMBDA_DEFAULTS_MODULE] = "functools"
        callee = Callee("static", LAMBDA_DEFAULTS_HELD, functools.partial)
        return self.operation(want, "partial", [], Operation("", "call", callee, [Const(lambda_code)], kwargs=keywords))

    def closure_value(self, node: cst.Lambda, captured: list[str], want) -> Atom:
        """A lambda that reads the function's variables (``lambda v: v * scale``) as what it is:
        ``closure(lambda scale, v: v * scale, (scale,))`` (a ``functools.partial``), the values it reads held as
        arguments, differentiated through the calls of it (runtime/calls.py). Python's closure
        reads a variable as it is when it is called: refused where the function changes one later."""
        # a partial holds the values it is given where it is made: a name given a new value after is no change of them
        aliases = self.__dict__.get("_held_aliases", {})  # (partials_written_out.py: a held keyword's own name)
        changed = rebound_after(self.source.funcdef, node, {aliases.get(name, name) for name in captured},
                                self.source.positions,
                                holds_values=node in self.__dict__.get("_partials_as_lambdas", ()))
        if changed is not None:
            raise UnsupportedSyntaxError(
                f"{self.described(node)} used as a value reads `{changed}`, which the function changes after "
                f"{_made_when(self.described(node))}: "
                "it would read its value when it is called", self.source.location(node),
                f"pass `{changed}` to it as an argument where it is called")
        held = cst.Parameters(params=[cst.Param(cst.Name(name)) for name in captured]
                              + list(node.params.posonly_params) + list(node.params.params),
                              star_arg=node.params.star_arg, kwonly_params=node.params.kwonly_params,
                              star_kwarg=node.params.star_kwarg)
        if node.params.posonly_params:
            held = held.with_changes(posonly_params=held.params[:len(captured) + len(node.params.posonly_params)],
                                     params=held.params[len(captured) + len(node.params.posonly_params):])
        function = Const(code_of(node.with_changes(params=held)))
        values = [Var(self.current[name]) for name in captured]
        held_values = self.operation(None, "held", [], Operation("", "tuple", None, values))
        return self.operation(want, "closure", [], Operation("", "call", Callee("static", "closure", closure),
                                                             [function, held_values]))


def _made_when(described: str) -> str:
    if described == "a lambda":
        return "the lambda is made"
    return "its `def`" if described.startswith("the nested function") else "it is made"


def _reads(expression: cst.BaseExpression, names: list[str]) -> bool:
    """Whether ``expression`` (a lambda's default) reads one of ``names``."""
    return bool(variable_reads(expression, set(names)))


def _as_lambda(funcdef) -> cst.Lambda | None:
    """A nested ``def`` whose body is one ``return expression`` (after a docstring) as the lambda
    it is equivalent to, used as a value as a lambda is; None for any other (a lambda stays itself)."""
    if isinstance(funcdef, cst.Lambda):
        return funcdef
    if funcdef.decorators or funcdef.asynchronous is not None or not isinstance(funcdef.body, cst.IndentedBlock):
        return None
    lines = list(funcdef.body.body)
    if len(lines) == 2 and isinstance(lines[0], cst.SimpleStatementLine) and len(lines[0].body) == 1 \
            and isinstance(lines[0].body[0], cst.Expr) and isinstance(lines[0].body[0].value, cst.SimpleString):
        lines = lines[1:]  # its docstring
    if len(lines) != 1 or not isinstance(lines[0], cst.SimpleStatementLine) or len(lines[0].body) != 1:
        return None
    returned = lines[0].body[0]
    if not isinstance(returned, cst.Return) or returned.value is None:
        return None
    unannotated = funcdef.params.visit(_WithoutAnnotations())
    return cst.Lambda(params=unannotated, body=returned.value)


class _WithoutAnnotations(cst.CSTTransformer):
    def leave_Param(self, original: cst.Param, updated: cst.Param) -> cst.Param:
        return updated.with_changes(annotation=None)


def _without_defaults(node: cst.Lambda) -> cst.Lambda:
    """``node`` with no default values: what its body reads, apart from what its defaults read."""
    bare = [param.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT) for param in node.params.params]
    kwonly = [param.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT) for param in node.params.kwonly_params]
    posonly = [param.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT) for param in node.params.posonly_params]
    return node.with_changes(params=node.params.with_changes(params=bare, kwonly_params=kwonly, posonly_params=posonly))
