"""Calls: what a call's callee is, its arguments, and nested functions written out in place.

A callee the function's module names (``np.tanh``, ``helper``) is resolved now, at
transform time, to the object itself; a method (``x.sum()``) is resolved by the
receiver's type when the generated code runs. A nested ``def`` or a lambda assigned to a
name is not a value: each call of it is written out where it is called (``inline``), its
parameters bound to the arguments, its body reading the enclosing function's variables as
a closure does. Calls that change a value in place are normalize_mutation.py's.
"""
from __future__ import annotations

import builtins
import copy
import dataclasses
import inspect
import itertools

import libcst as cst
import numpy as np

from ..analysis.aliasing import container_kind
from ..analysis.out_by_position import gives_out_by_position, method_gives_out_by_position
from ..analysis.overwrite_flags import overwrite_flags_set
from ..errors import UnsupportedSyntaxError
from .ir import DATACLASS_REPLACE, Atom, Callee, Const, Operation, Var
from .normalize_mutation import (ARRAY_MUTATORS, LIST_MUTATORS, UNSUPPORTED_MUTATORS, is_ufunc_at,
                                 writes_into_an_argument)
from .normalize_state import RETURN, RETURNED, NormalizerState, atom_name
from .normalize_syntax import count_returns, defines, dotted_name, nonlocal_names, own_bindings, yields_in
from .one_pass import is_one_pass, written_as
from ..rules.helpers import deep_copied, merged_keywords, zipped
from .resolve import found, is_library


class CallNormalizer(NormalizerState):
    def local_or_its_element(self, node) -> bool:
        """``xs``, ``d["k"]``, ``rows[i][j]``: a local variable, or an element of one, at any depth."""
        while isinstance(node, cst.Subscript):
            node = node.value
        return isinstance(node, cst.Name) and node.value in self.current

    def call(self, node: cst.Call, want) -> Atom:
        """Which kind of call ``node`` is, decided from how its callee is spelt."""
        func = node.func
        local = isinstance(func, cst.Name) and func.value in self.local_functions and func.value not in self.current
        if any(arg.star for arg in node.args):
            if local or isinstance(func, cst.Lambda):
                raise UnsupportedSyntaxError("a nested function or lambda called with `*` or `**` is not supported",
                                             self.source.location(node), "pass the arguments one by one")
            return self.packed_call(node, want)
        if local:
            return self.inline(self.local_functions[func.value], node, want)
        if isinstance(func, cst.Call) and self.names_numpy(func.func, np.vectorize):
            return self.vectorized(node, dotted_name(func.func), want)  # `np.vectorize(f)(x)`: numpy_written_out.py
        if isinstance(func, cst.Lambda):
            return self.inline(func, node, want)
        dotted = dotted_name(func)
        if dotted is not None and dotted.split(".")[0] not in self.current and self.env.is_static_root(dotted.split(".")[0]):
            return self.static_call(node, dotted, want)
        if isinstance(func, cst.Attribute) and func.attr.value in LIST_MUTATORS and self.local_or_its_element(func.value):
            return self.list_mutation(node, want)
        if isinstance(func, cst.Attribute) and func.attr.value in ARRAY_MUTATORS and isinstance(func.value, cst.Name) \
                and func.value.value in self.current:
            return self.array_mutation(node)
        if isinstance(func, cst.Attribute) and func.attr.value in UNSUPPORTED_MUTATORS:
            raise UnsupportedSyntaxError(
                f"`.{func.attr.value}(...)` changes a value in place, which s2sad does not differentiate",
                self.source.location(node), UNSUPPORTED_MUTATORS[func.attr.value])
        if isinstance(func, cst.Attribute):
            return self.method_call(node, want)
        return self.value_call(node, want)

    def names_numpy(self, node, function) -> bool:
        """Whether ``node`` names ``function`` through the module (``np.vectorize``)."""
        dotted = dotted_name(node)
        return dotted is not None and dotted.split(".")[0] not in self.current \
            and self.env.is_static_root(dotted.split(".")[0]) and self.env.resolve_dotted(dotted) is function

    def static_call(self, node: cst.Call, dotted: str, want) -> Atom:
        """``np.tanh(x)``, ``helper(x)``: a callee the module names, resolved to the object now."""
        value = self.env.resolve_dotted(dotted)
        if not found(value):
            raise UnsupportedSyntaxError(f"`{dotted}` cannot be resolved", self.source.location(node.func),
                                         "check the spelling, or import the module at module level")
        if (written := self.written_out_call(node, dotted, value, want)) is not None:
            return written  # np.piecewise, np.fromfunction, functools.partial: numpy_written_out.py
        if is_one_pass(value):  # map, reversed, itertools.chain: generated code calls s2sad's own for them
            self.check_consumed_once(node, dotted)
            if value is builtins.map or value is builtins.filter:
                return (self.mapped if value is builtins.map else self.filtered)(node, dotted, want)
            if value is itertools.chain:
                return self.chained(node, want)
            value, dotted = as_called(value, dotted)  # (before the test for a user's class: chain is a class)
        else:
            self.bind(dotted.split(".")[0])
        if called_through_its_class(value):  # `model(x)`: the method `model.__call__(x)` is
            value, dotted = value.__call__, f"{dotted}.__call__"
        if isinstance(value, type) and not is_library(value):
            return self.value_call(node, want, Const(dotted), value)  # a user's class: its constructor, when the code runs
        if is_ufunc_at(value):
            return self.ufunc_at(node, dotted, value)
        if value is np.copyto:
            return self.copy_into(node, dotted)
        if value is np.fill_diagonal:
            return self.fill_diagonal(node, dotted)
        if writes_into_an_argument(value) or gives_out_by_position(value, *_positional(node)):  # np.negative(y, y)
            raise UnsupportedSyntaxError(f"`{dotted}(...)` changes an array in place, which s2sad does not differentiate",
                                         self.source.location(node),
                                         "build a new array instead: `y[index] = values` on a local copy, or np.where")
        refuse_overwrite_flags(value, dotted, node, self.source)  # sl.solve_triangular(a, b, overwrite_b=True)
        value, dotted = as_called(value, dotted)
        callee = Callee("static", dotted, value)
        args, kwargs = self.arguments(node)
        if value is dataclasses.replace and len(args) == 1:  # a method of the object it copies (ir.DATACLASS_REPLACE)
            callee = Callee("method", dotted, name=DATACLASS_REPLACE)
            return self.operation(want, "replace", [atom_name(args[0])], Operation("", "call", callee, args, kwargs))
        if value is dict and not args:  # dict(w=a, b=2.0) is the display {"w": a, "b": 2.0}
            return self.operation(want, "dict", [], Operation("", "dict", None, kwargs=[(repr(k), a) for k, a in kwargs]))
        if any(key == "out" for key, _ in kwargs):
            return self.into_out(node, dotted, callee, args, kwargs)
        operands = [atom_name(a) for a in args[:2]]
        return self.operation(want, dotted.split(".")[-1], operands, Operation("", "call", callee, args, kwargs))

    def method_call(self, node: cst.Call, want) -> Atom:
        """``x.sum(axis=0)``: resolved by the receiver's type when the generated code runs."""
        receiver = self.expression(node.func.value)
        method = node.func.attr.value
        callee = Callee("method", f"{atom_name(receiver) or 'value'}.{method}", name=method)
        args, kwargs = self.arguments(node)
        if any(key == "out" for key, _ in kwargs) or method_gives_out_by_position(method, *_positional(node)):
            raise UnsupportedSyntaxError(_METHOD_OUT.format(method), self.source.location(node), "drop `out=` and assign the result")
        # `xs.copy()` of a list made here is `list(xs)`, which the aliasing analysis knows holds xs's items; an
        # array's shares nothing, and a list or dict the function is given is refused when the code runs
        copied = container_kind(receiver.name, self.emitted) if method == "copy" and isinstance(receiver, Var) \
            and not args and not kwargs else None
        if copied is not None:
            convert = Callee("static", copied.__name__, copied)
            return self.operation(want, "copy", [atom_name(receiver)], Operation("", "call", convert, [receiver]))
        args = [receiver] + args
        operands = [atom_name(a) for a in args[:2]]
        return self.operation(want, method, operands, Operation("", "call", callee, args, kwargs))

    def value_call(self, node: cst.Call, want, function: Atom | None = None, known=None) -> Atom:
        """``f(x)`` where ``f`` is a value (an argument, a default, an item of a list), or a
        user's class (``known``, for the analyses): resolved by what the value is when the
        generated code runs."""
        function = function if function is not None else self.expression(node.func)
        args, kwargs = self.arguments(node)
        callee = Callee("method", atom_name(function) or "value", known, name="__call__")
        word = atom_name(function) or "call"
        return self.operation(want, word, [atom_name(a) for a in args[:1]],
                              Operation("", "call", callee, [function] + args, kwargs))

    def packed_call(self, node: cst.Call, want) -> Atom:
        """A call written with ``*`` or ``**`` (``np.ones(*shape)``, ``helper(x, *args, **kwargs)``):
        the positional arguments gathered into one tuple and the keywords into one dict, the
        call resolved by its callee when the generated code runs."""
        func = node.func
        dotted = dotted_name(func)
        if dotted is not None and dotted.split(".")[0] not in self.current and self.env.is_static_root(dotted.split(".")[0]):
            value = self.env.resolve_dotted(dotted)
            if not found(value):
                raise UnsupportedSyntaxError(f"`{dotted}` cannot be resolved", self.source.location(func),
                                             "check the spelling, or import the module at module level")
            if writes_into_an_argument(value) or is_ufunc_at(value):
                raise UnsupportedSyntaxError(f"`{dotted}(...)` changes an array in place, which s2sad does not differentiate",
                                             self.source.location(node), "build a new array instead")
            if not is_one_pass(value):
                self.bind(dotted.split(".")[0])
            else:
                self.check_consumed_once(node, dotted)
                if value is builtins.map:
                    raise UnsupportedSyntaxError(f"`{dotted}(...)` with `*` or `**` arguments is not supported",
                                                 self.source.location(node), "name the function and each iterable")
                if value is itertools.chain:
                    return self.chained(node, want)
            value, dotted = as_called(value, dotted)
            if value is dataclasses.replace and node.args and node.args[0].star == "" and node.args[0].keyword is None:
                return self.packed_replace(node, dotted, want)
            if value is dict and self.merges_keywords(node):
                return self.dict_with_keywords(node, want)
            receiver, name, word, named = Const(dotted), "__call__", dotted.split(".")[-1], value
        elif isinstance(func, cst.Attribute):
            receiver, name = self.expression(func.value), func.attr.value
            word, named = name, None
        else:
            receiver, name = self.expression(func), "__call__"
            word, named = atom_name(receiver) or "call", None
        positional = self.packed_positional(node)
        keywords = self.packed_keywords(node)
        callee = Callee("method", word if name == "__call__" else f"{atom_name(receiver) or 'value'}.{name}",
                        name=name, packed=True, named=named)
        return self.operation(want, word, [], Operation("", "call", callee, [receiver, positional, keywords]))

    def packed_replace(self, node: cst.Call, dotted: str, want) -> Atom:
        """``dataclasses.replace(obj, **changes)``: a method of the object it copies, as when its
        keywords are written (ir.DATACLASS_REPLACE), given the keywords' dict as it runs."""
        receiver = self.expression(node.args[0].value)
        positional = self.packed_positional(node.with_changes(args=node.args[1:]))
        keywords = self.packed_keywords(node)
        callee = Callee("method", dotted, name=DATACLASS_REPLACE, packed=True)
        return self.operation(want, "replace", [atom_name(receiver)],
                              Operation("", "call", callee, [receiver, positional, keywords]))

    def packed_positional(self, node: cst.Call) -> Atom:
        """One tuple of the call's positional arguments: ``(a,) + tuple(rest)`` for ``f(a, *rest)``."""
        return self.joined([(arg.star == "*", arg.value) for arg in node.args if arg.keyword is None and arg.star != "**"],
                           "tuple", word="args")

    def packed_keywords(self, node: cst.Call) -> Atom:
        """The dict of the call's keyword arguments: the keywords written and each ``**`` dict,
        merged in order (a key given twice raises, as in Python)."""
        written = [(repr(arg.keyword.value), self.expression(arg.value)) for arg in node.args if arg.keyword is not None]
        parts = [self.expression(arg.value) for arg in node.args if arg.star == "**"]
        if written or not parts:
            parts.append(self.operation(None, "keywords", [], Operation("", "dict", None, kwargs=written)))
        merged = parts[0]
        for part in parts[1:]:
            merge = Callee("static", "merged_keywords", merged_keywords)
            merged = self.operation(None, "keywords", [], Operation("", "call", merge, [merged, part]))
        return merged

    def inline(self, function, call: cst.Call, want) -> Atom:
        """A call of a nested function or lambda, written out in place: its parameters bound
        to the arguments, its body reading the enclosing function's variables as a closure
        does when called, its own variables kept apart."""
        if any(f is function for f in self.inlining):
            raise UnsupportedSyntaxError("a nested function that calls itself is not supported",
                                         self.source.location(call), "define it at module level: s2sad follows recursion there")
        if not isinstance(function, cst.Lambda) and yields_in(function):
            raise UnsupportedSyntaxError("a nested generator is not supported", self.source.location(function),
                                         "define the generator at module level: s2sad differentiates it there")
        self.refuse_nonlocal_past_the_caller(function, call)
        args, kwargs = self.arguments(call)
        params = function.params
        if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.star_kwarg is not None:
            raise UnsupportedSyntaxError("a nested function with *args or **kwargs is not supported",
                                         self.source.location(function), "name each parameter")
        declared = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
        if len(args) > len(declared) - len(params.kwonly_params):
            raise UnsupportedSyntaxError(f"too many arguments for a function of {len(declared)} parameters",
                                         self.source.location(call))
        outer = dict(self.current)
        saved = (self.result_name, self.return_count, self.returned_atoms)
        bound = {}
        for position, param in enumerate(declared):
            name = param.name.value
            keyword = dict(kwargs)
            if position < len(args) and param not in params.kwonly_params:
                bound[name] = args[position]
            elif name in keyword:
                bound[name] = keyword[name]
            elif param.default is not None:
                defaults = self.definition_defaults.get(id(function))
                bound[name] = defaults[name] if defaults is not None else self.expression(param.default)
            else:
                raise UnsupportedSyntaxError(f"missing argument `{name}`", self.source.location(call))
        for key in (RETURN, RETURNED):
            self.current.pop(key, None)
        for name, atom in bound.items():
            if isinstance(atom, Var):
                self.current[name] = atom.name
            else:
                self.current[name] = self.namer.version(name)
                self.emit(Operation(self.current[name], "copy", args=[atom]))
        self.inlining.append(function)
        try:
            if isinstance(function, cst.Lambda):
                result = self.expression(function.body, want=want)
            else:
                self.result_name, self.return_count, self.returned_atoms = None, count_returns(function), {}
                self.flush()
                self.items += self.block(list(function.body.body))
                version = self.current.get(RETURN)
                result = Const("None") if version is None else self.returned_atoms.get(version, Var(version))
                for name in nonlocal_names(function):  # rebound in the enclosing function, as the call does
                    if name not in outer:
                        raise UnsupportedSyntaxError(
                            f"`{name}` is declared nonlocal in `{function.name.value}` but has no value in the function "
                            "it is called from", self.source.location(call),
                            f"assign `{name}` before the call, or return the new value from the nested function")
                    outer[name] = self.current[name]
        finally:
            self.inlining.pop()
            self.current = outer
            self.result_name, self.return_count, self.returned_atoms = saved
        return result

    def defaults_where_defined(self, function) -> None:
        """A nested function's (or a named lambda's) defaults, evaluated once where it is defined,
        as Python does: ``def g(t, w=z)`` keeps the array ``z`` names there, whatever ``z`` names
        when ``g`` is called (``z = z + y`` in between must not reach ``w``; ``z *= 2`` does, and the
        aliasing analysis sees it through the copy made here)."""
        params = function.params
        defaults = {}
        for param in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
            if param.default is None:
                continue
            atom = self.expression(param.default)
            if isinstance(atom, Var):
                name = self.namer.version(param.name.value)
                self.emit(Operation(name, "copy", args=[atom]))
                atom = Var(name)
            defaults[param.name.value] = atom
        self.definition_defaults[id(function)] = defaults

    def refuse_nonlocal_past_the_caller(self, function, call: cst.Call) -> None:
        """A nested function called from another nested function may rebind (``nonlocal``) only
        that caller's own variables, and be defined in it. Otherwise its ``nonlocal`` names a
        variable of a function further out (or a sibling's call reaches past the caller's own
        variable of that name), which the call, written out inside the caller, would not rebind
        there, nor would a loop calling the caller carry it: the value would be wrong."""
        names = nonlocal_names(function)
        if not names or not self.inlining:
            return
        caller = self.inlining[-1]
        if isinstance(caller, cst.FunctionDef) and defines(caller, function):
            names = [name for name in names if name not in own_bindings(caller)]
        if names:
            raise UnsupportedSyntaxError(
                f"`{function.name.value}` rebinds `{names[0]}` (nonlocal) of a function further out than "
                f"`{getattr(getattr(caller, 'name', None), 'value', 'the lambda')}`, which calls it: not supported yet",
                self.source.location(call),
                f"call `{function.name.value}` from the function that owns `{names[0]}`, or return the new value")

    def arguments(self, node: cst.Call):
        args, kwargs = [], []
        for arg in node.args:
            atom = self.expression(arg.value)
            if arg.keyword is not None:
                kwargs.append((arg.keyword.value, atom))
            else:
                args.append(atom)
        return args, kwargs


def called_through_its_class(value) -> bool:
    """Whether ``value`` is an object of a user's class whose ``__call__`` is Python source, and has
    no rule of its own (a module-level ``model = Model(...)`` called as ``model(x)``)."""
    from ..registry import rule_for  # (the registry reads the front end's helpers)

    call = getattr(type(value), "__call__", None)
    return (not isinstance(value, type) and inspect.isfunction(call) and not is_library(type(value))
            and rule_for(value) is None)


def called_as_it_is(value) -> bool:
    """Whether a call of ``value`` runs it as it is (a rule's, or a library's): not differentiated
    from its source, where a write into an argument would be seen."""
    from ..registry import rule_for  # (the registry reads the front end's helpers)

    return is_library(value) or rule_for(value) is not None


def as_called(value, dotted: str):
    """What generated code calls for ``value``: ``zip`` used as a value is ``zipped``, the list
    of its tuples, which generated code may read more than once (a ``zip`` is used up by one);
    ``reversed`` and ``itertools.chain`` the lists of their items (one_pass.py); ``copy.deepcopy``
    ``deep_copied``, which refuses a copy sharing memory with the original."""
    if value is zip:
        return zipped, "zipped"
    if value is copy.deepcopy:
        return deep_copied, "deep_copied"
    return written_as(value) or (value, dotted)


_METHOD_OUT = "`.{}(..., out=...)` writes into an array in place (`out` given by keyword or by position), which s2sad " \
              "does not differentiate"


def refuse_overwrite_flags(value, dotted: str, node: cst.Call, source) -> None:
    """Refuse a call of a function run as it is that may write into an argument by an ``overwrite_*`` flag:
    ``b`` may hold the solution after ``sl.solve_triangular(a, b, overwrite_b=True)`` (analysis/overwrite_flags.py)."""
    flags = overwrite_flags_set(value, *_literal_falses(node)) if called_as_it_is(value) else []
    if flags:
        raise UnsupportedSyntaxError(
            f"`{dotted}(..., {flags[0]}=...)` may write into the argument it is given in place, which s2sad does "
            "not differentiate: a later read of that argument would see the change", source.location(node),
            f"leave {flags[0]}=False (the default)")


def _literal_falses(node: cst.Call) -> tuple[list[bool], dict[str, bool], bool]:
    """Of each argument ``node`` gives by position, and each by keyword, whether it is the literal
    False (or 0, None); and whether it has a ``*`` or ``**`` argument."""
    def false(arg: cst.Arg) -> bool:
        value = arg.value
        return isinstance(value, cst.Name) and value.value in ("False", "None") or isinstance(value, cst.Integer) and value.value == "0"

    positional = [false(arg) for arg in node.args if arg.keyword is None and arg.star == ""]
    keywords = {arg.keyword.value: false(arg) for arg in node.args if arg.keyword is not None}
    return positional, keywords, any(arg.star for arg in node.args)


def _positional(node: cst.Call) -> tuple[int, bool, frozenset]:
    """How many arguments ``node`` gives by position, written out (``*xs`` is bound to the rule as the
    code runs, registry.bound_to_rule, which refuses an ``out`` it reaches), False for a ``*``, and
    the positions given the literal None."""
    given = [arg for arg in node.args if arg.keyword is None and arg.star == ""]
    nones = frozenset(k for k, arg in enumerate(given) if isinstance(arg.value, cst.Name) and arg.value.value == "None")
    return len(given), False, nones
