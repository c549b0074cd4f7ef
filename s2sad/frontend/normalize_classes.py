"""A class defined inside the function: ``class Linear: ...`` before ``model = Linear(w)``."""
from __future__ import annotations

import symtable

import libcst as cst

from ..errors import UnsupportedSyntaxError
from .normalize_state import NormalizerState
from .normalize_syntax import NameUses


class ClassNormalizer(NormalizerState):
    def local_class(self, node: cst.ClassDef) -> None:
        """Bind the class to a module-level name of the generated code, made once when it is bound
        (runtime/local_classes.py); refused if its body reads a variable of the function, which
        would make each call's class a different one."""
        name = node.name.value
        start = self.source.positions[node.decorators[0] if node.decorators else node].start.line
        end = self.source.positions[node].end.line
        first = self.source.first_line + start - 1
        lines = self.source.text.splitlines()[start - 1:end]  # indented as in the function's body
        text = "\n".join(lines) + "\n"
        read = self.local_variables_read(text) & self.function_variables()
        if read:
            raise UnsupportedSyntaxError(
                f"the class `{name}` reads the variable `{sorted(read)[0]}` of the function it is defined in",
                self.source.location(node),
                "pass the value to the constructor or a method, or define the class at module level")
        bound = self.namer.fresh(name)
        self.bindings[bound] = ("class", name, text, self.source.filename, first)
        self.local_classes[name] = bound
        self.current.pop(name, None)

    def function_variables(self) -> set[str]:
        names = NameUses()
        self.source.funcdef.body.visit(names)
        parameters = {param.name.value for param in _parameters(self.source.funcdef.params)}
        return set(names.stores) | parameters | set(self.local_functions)

    @staticmethod
    def local_variables_read(text: str) -> set[str]:
        """The names a class statement (indented, as in the function) reads from outside itself (its
        decorators, bases, body and methods): the enclosing function's variables, if it has them."""
        return _outside_names(symtable.symtable("if True:\n" + text, "<class>", "exec"), top=True)


def _outside_names(table, top: bool) -> set[str]:
    names = set()
    for symbol in table.get_symbols():
        if top and symbol.is_referenced() and not symbol.is_assigned():
            names.add(symbol.get_name())
        elif not top and symbol.is_referenced() and (symbol.is_global() or symbol.is_free()):
            names.add(symbol.get_name())
    for child in table.get_children():
        names |= _outside_names(child, top=False)
    return names


def _parameters(params: cst.Parameters):
    yield from params.posonly_params
    yield from params.params
    yield from params.kwonly_params
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            yield star
