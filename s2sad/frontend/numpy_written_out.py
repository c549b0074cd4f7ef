"""NumPy calls that take the user's functions, written out as the Python NumPy runs for them,
so that those functions are differentiated through their bodies like any other call.

``np.piecewise(x, [c0, c1], [f0, f1, f2])``, as NumPy computes it (``numpy.piecewise``)::

    x = np.asarray(x)              # (NumPy: asanyarray; s2sad differentiates plain arrays)
    conditions = piecewise_conditions(x, [c0, c1], 3)      # stacked, and one more where none holds
    y = np.zeros_like(x)
    y[conditions[k]] = f_k                                  # a constant
    values = x[conditions[k]]                               # a function: called on the values its
    if values.size > 0:                                     # condition picks, when there are any
        y[conditions[k]] = f_k(values)

``np.vectorize(f)(x)``: ``f`` called on each element of ``x`` in C order, the results gathered
into an array of the type of the first result (later ones cast to it, as NumPy casts them) and
shaped like ``x``; a first result that is not a float is refused when the code runs
(``vectorized_dtype``: NumPy would cast every result to an integer). NumPy calls ``f`` on the
first element once more to learn that type: a function with effects sees one call fewer here.

``np.fromfunction(f, shape, dtype=float)``, as NumPy computes it: ``idx = np.indices(shape,
dtype=dtype)`` then ``f(idx[0], ..., idx[n - 1])``, one index per parameter of ``f`` (a lambda,
or a function of the module: its parameters without defaults).

All are written out as statements before the one that reads them, their names ``_s2sad_...``
kept apart from the function's. Only the spellings whose functions are known here are written
out: a lambda, a function of the module or a nested ``def``, and (for ``piecewise``) numbers; the
conditions and functions as list displays. Other spellings are refused with what to write.
"""
from __future__ import annotations

import functools
import inspect
import operator

import libcst as cst
import numpy as np
from libcst.helpers import parse_template_statement

from ..errors import UnsupportedSyntaxError
from ..rules.helpers import piecewise_conditions, vectorized_dtype
from .ir import Atom, Callee, Const, Operation, Var
from .normalize_state import NormalizerState
from .normalize_syntax import dotted_name
from .resolve import found


class NumpyWrittenOut(NormalizerState):
    def written_out_call(self, node: cst.Call, dotted: str, value, want) -> Atom | None:
        """A call taking the user's functions, written out (see the module's docstring), or None: NumPy's
        here, ``functools.partial`` of a user's function as the lambda it stands for (partials_written_out.py)."""
        if value is np.piecewise or value is np.fromfunction:
            return getattr(self, value.__name__)(node, dotted, want)
        if value is functools.partial and self.partial_as_lambda(node) is not None:
            return self.partial_value(node, want)
        return None

    def piecewise(self, node: cst.Call, dotted: str, want) -> Atom:
        numpy = self.numpy_name(node, dotted)
        arguments = [arg for arg in node.args]
        if len(arguments) != 3 or any(arg.keyword is not None or arg.star for arg in arguments):
            self.refuse_written_out(node, f"`{dotted}` is differentiated as `{dotted}(x, [conditions], [functions])`",
                                    "pass x, a list of conditions and a list of functions (lambdas, functions, "
                                    "numbers), with no further arguments")
        x, conditions, functions = (arg.value for arg in arguments)
        if not isinstance(conditions, cst.List) or not isinstance(functions, cst.List) or not conditions.elements \
                or any(isinstance(e, cst.StarredElement) for e in (*conditions.elements, *functions.elements)):
            self.refuse_written_out(node, f"`{dotted}` is differentiated when its conditions and functions are "
                                          "written as lists (`[x < 0, x >= 0]`, `[lambda t: -t, 0.0]`)",
                                    "write both lists out in the call")
        kinds = [self.piece_kind(e.value, dotted) for e in functions.elements]
        names = self.written_out_names("pw", ["x", "condlist", "conditions", "y", "values"])
        count = len(conditions.elements)
        self.write_out(node, [f"{names['x']} = {numpy}.asarray({{x}})",
                              f"{names['condlist']} = [{', '.join(f'{{c{i}}}' for i in range(count))}]"],
                       {"x": x, **{f"c{i}": e.value for i, e in enumerate(conditions.elements)}})
        masks = self.operation(None, "conditions", [], Operation(
            "", "call", Callee("static", "piecewise_conditions", piecewise_conditions),
            [Var(self.current[names["x"]]), Var(self.current[names["condlist"]]), Const(str(len(kinds)))]))
        self.current[names["conditions"]] = masks.name
        lines = [f"{names['y']} = {numpy}.zeros_like({names['x']})"]
        for k, kind in enumerate(kinds):
            picked = f"{names['conditions']}[{k}]"
            if kind == "constant":
                lines.append(f"{names['y']}[{picked}] = {{f{k}}}")
            else:
                lines.append(f"{names['values']} = {names['x']}[{picked}]")
                lines.append(f"if {names['values']}.size > 0:\n"
                             f"    {names['y']}[{picked}] = {{f{k}}}({names['values']})")
        replacements = {f"f{k}": e.value for k, e in enumerate(functions.elements)}
        return self.run_written_out(node, lines, replacements, names, names["y"])

    def piece_kind(self, node, dotted: str) -> str:
        """``"function"`` for a lambda, a nested ``def`` or a function of the module, ``"constant"`` for
        a number; anything else is refused (whether it is callable is known only when the code runs)."""
        if isinstance(node, cst.Lambda):
            return "function"
        if isinstance(node, (cst.Integer, cst.Float)) or (
                isinstance(node, cst.UnaryOperation) and isinstance(node.expression, (cst.Integer, cst.Float))):
            return "constant"
        name = dotted_name(node)
        if name is not None and "." not in name and name in self.local_functions and name not in self.current:
            return "function"
        if name is not None and name.split(".")[0] not in self.current:
            value = self.env.resolve_dotted(name)
            if found(value) and inspect.isfunction(value):
                return "function"
        self.refuse_written_out(node, f"`{dotted}` is differentiated when each of its functions is a lambda, a "
                                      "function or a number written in the call",
                                "write it as a lambda (`lambda t: ...`) or a number")

    def vectorized(self, node: cst.Call, dotted: str, want) -> Atom:
        """``np.vectorize(f)(x)``: see the module's docstring."""
        numpy = self.numpy_name(node.func, dotted)
        made = node.func
        if len(made.args) != 1 or made.args[0].keyword is not None or made.args[0].star \
                or len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            self.refuse_written_out(node, f"`{dotted}(f)(x)` is differentiated for one function of one argument, "
                                          "with no other options (otypes, excluded, signature)",
                                    "write the NumPy expression the function computes, on the whole array "
                                    "(`np.where(x > 0, x ** 2, 0.0)` for `lambda t: t ** 2 if t > 0 else 0.0`)")
        function = made.args[0].value
        if self.piece_kind(function, dotted) != "function":
            self.refuse_written_out(node, f"`{dotted}` is given something other than a function", "pass a function")
        names = self.written_out_names("vec", ["x", "items", "dtype", "y"])
        self.write_out(node, [f"{names['x']} = {numpy}.asarray({{x}})",
                              f"{names['items']} = [{{f}}(t) for t in {numpy}.ravel({names['x']})]"],
                       {"x": node.args[0].value, "f": function})
        first = self.operation(None, "item", [self.current[names["items"]], "0"],
                               Operation("", "call", Callee("static", "[]", operator.getitem, "{0}[{1}]"),
                                         [Var(self.current[names["items"]]), Const("0")]), derived_from_operands=True)
        dtype = self.operation(None, "dtype", [], Operation("", "call", Callee("static", "vectorized_dtype",
                                                                                vectorized_dtype), [first]))
        self.current[names["dtype"]] = dtype.name
        lines = [f"{names['y']} = {numpy}.asarray({names['items']}, dtype={names['dtype']}).reshape({numpy}.shape({names['x']}))"]
        return self.run_written_out(node, lines, {}, names, names["y"])

    def fromfunction(self, node: cst.Call, dotted: str, want) -> Atom:
        """``np.fromfunction(f, shape, dtype=...)``: see the module's docstring."""
        numpy = self.numpy_name(node, dotted)
        positional = [arg for arg in node.args if arg.keyword is None]
        keywords = {arg.keyword.value: arg.value for arg in node.args if arg.keyword is not None}
        if len(positional) != 2 or any(arg.star for arg in node.args) or set(keywords) - {"dtype"}:
            self.refuse_written_out(node, f"`{dotted}` is differentiated as `{dotted}(f, shape)` or "
                                          f"`{dotted}(f, shape, dtype=...)`", "pass no other arguments")
        function, shape = positional[0].value, positional[1].value
        count = self.positional_count(function, dotted)
        names = self.written_out_names("ff", ["indices", "y"])
        dtype = {"dtype": keywords["dtype"]} if "dtype" in keywords else {}
        self.write_out(node, [f"{names['indices']} = {numpy}.indices({{shape}}, dtype={'{dtype}' if dtype else 'float'})"],
                       {"shape": shape, **dtype})
        indices = ", ".join(f"{names['indices']}[{k}]" for k in range(count))
        lines = [f"{names['y']} = {{f}}({indices})"]
        return self.run_written_out(node, lines, {"f": function}, names, names["y"])

    def positional_count(self, function, dotted: str) -> int:
        """How many indices ``function`` takes: a lambda's or a module function's positional parameters."""
        if isinstance(function, cst.Lambda):
            params = function.params
            if not (params.star_arg is None or params.star_arg is cst.MaybeSentinel.DEFAULT) or params.star_kwarg:
                self.refuse_written_out(function, f"`{dotted}` is differentiated for a function of one parameter "
                                                  "per axis, without `*` or `**`", "name one parameter per axis")
            return len(params.posonly_params) + len(params.params)
        name = dotted_name(function)
        value = self.env.resolve_dotted(name) if name is not None and name.split(".")[0] not in self.current else None
        if found(value) and inspect.isfunction(value):
            kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            return sum(p.kind in kinds and p.default is p.empty for p in inspect.signature(value).parameters.values())
        self.refuse_written_out(function, f"`{dotted}` is differentiated when its function is a lambda or a function "
                                          "of the module, written in the call", "write it as a lambda (`lambda i, j: ...`)")

    def numpy_name(self, node, dotted: str) -> str:
        """The name the function reads NumPy under (``np`` of ``np.piecewise``)."""
        root = dotted.split(".")[0]
        if "." not in dotted or root in self.current:
            self.refuse_written_out(node, f"`{dotted}` is differentiated when called through the NumPy module",
                                    f"call it as `np.{dotted.split('.')[-1]}(...)` with `import numpy as np`")
        return root

    def written_out_names(self, word: str, parts: list[str]) -> dict[str, str]:
        self.written_out_count = getattr(self, "written_out_count", 0) + 1
        return {part: f"_s2sad_{word}{self.written_out_count}_{part}" for part in parts}

    def run_written_out(self, node, lines: list[str], replacements: dict, names: dict, result: str) -> Atom:
        """Normalise ``lines`` (templates over the user's nodes) before the statement being read,
        each made node at ``node``'s place; the value ``result`` names."""
        self.write_out(node, lines, replacements)
        value = Var(self.current[result])
        for name in names.values():
            self.current.pop(name, None)
        return value

    def write_out(self, node, lines: list[str], replacements: dict) -> None:
        statements = [parse_template_statement(line, **{key: value for key, value in replacements.items()
                                                       if "{" + key + "}" in line}) for line in lines]
        for statement in statements:
            self.alias_every_node(statement, node)
        self.flush()
        self.items += self.block(statements)

    def alias_every_node(self, made, node) -> None:
        source = self.source

        class Alias(cst.CSTVisitor):
            def on_visit(self, inner) -> bool:
                if inner not in source.positions:
                    source.alias(inner, node)
                return True

        made.visit(Alias())

    def refuse_written_out(self, node, message: str, hint: str):
        raise UnsupportedSyntaxError(message, self.source.location(node), hint)
