"""Whether the text s2sad reads for a function is the text Python compiled it from.

s2sad reads a function's source from its file; Python runs the code it compiled when the
module was imported. A file edited and saved without reloading the module (a notebook user
changing a helper's file, an editor saving while a session runs) holds text that Python is not
running: differentiating that text would give the derivative of a function nobody calls. So the
text read is compiled again here, in scopes like the function's own (its classes, the functions
it is nested in), and its code compared with the function's ``__code__``; where they differ the
function is refused, naming its file and line.

The comparison reads the instructions with each load and store written as the name it reads
(a closure's variable read from the text compiled alone is a global), so it does not depend on
how a name is scoped (nor on whether a module's name was imported in the text compiled); line
numbers do count, through the code objects' first lines.
"""
from __future__ import annotations

import __future__
import dis
import inspect
import textwrap
import types

from ..errors import SourceLocation, SourceUnavailableError

_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag

# instructions that say how a name is scoped or set up the frame, not what the code computes
_SCOPING = {"RESUME", "NOP", "CACHE", "PUSH_NULL", "COPY_FREE_VARS", "MAKE_CELL", "EXTENDED_ARG", "LOAD_CLOSURE",
            "PRECALL", "KW_NAMES"}
_NAME_OPS = {"LOAD": ("LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME", "LOAD_CLASSDEREF", "LOAD_FAST_CHECK"),
             "STORE": ("STORE_FAST", "STORE_GLOBAL", "STORE_DEREF", "STORE_NAME"),
             "DELETE": ("DELETE_FAST", "DELETE_GLOBAL", "DELETE_DEREF", "DELETE_NAME"),
             # Python 3.11 calls a method of a module imported in the same text by LOAD_ATTR, where the
             # def compiled alone (its imports elsewhere) calls it by LOAD_METHOD
             "ATTRIBUTE": ("LOAD_ATTR", "LOAD_METHOD")}
_NAME_KIND = {op: kind for kind, ops in _NAME_OPS.items() for op in ops}


def check_source_is_current(function, lines: list[str], first_line: int) -> None:
    """Raise ``SourceUnavailableError`` when ``lines`` (the text read for ``function``, from file
    line ``first_line``) do not compile to the code Python runs for it."""
    code = function.__code__
    if code.co_name.startswith("<") or not lines:
        return  # a lambda or a comprehension: found in its line by its own reader (lambdas.py)
    compiled = _compiled_like(function, lines, first_line)
    if compiled is None:
        return  # not compilable in a scope written here: read_function says what is wrong with the text
    found = _code_named(compiled, code.co_name, code.co_firstlineno)
    if found is not None and (_same_code(found, code) or _rewritten_by_pytest(code) and _same_outline(found, code)):
        return
    filename = code.co_filename
    raise SourceUnavailableError(
        f"the source of {function.__qualname__} in {filename} is not the code Python runs for it: "
        "the file changed after the function was defined",
        SourceLocation(filename, code.co_firstlineno, 1, lines[0].rstrip("\n") if lines else ""),
        hint="reload its module (importlib.reload) or run its definition again, then ask for the derivative again")


def _rewritten_by_pytest(code) -> bool:
    """Whether pytest rewrote the asserts of the module ``code`` comes from (a test module, a
    conftest): its instructions are then not what the text compiles to, even unchanged."""
    return "@py_builtins" in code.co_names or "@pytest_ar" in code.co_names or \
        any(name.startswith("@py_assert") for name in code.co_varnames)


def _same_outline(a, b) -> bool:
    """The weaker test for such code: the same parameters, and the same first and last lines."""
    def outline(code):
        lines = [line for _, _, line in code.co_lines() if line is not None]
        parameters = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        return parameters, code.co_firstlineno, max(lines, default=code.co_firstlineno)
    return outline(a) == outline(b)


def _compiled_like(function, lines: list[str], first_line: int):
    """The module code of ``lines`` nested in the classes and functions ``function``'s qualified
    name says it is defined in, placed at its lines in the file; None when it does not compile."""
    # the code's own qualified name: a decorator's functools.wraps gives the function another's
    parts = getattr(function.__code__, "co_qualname", function.__qualname__).split(".")[:-1]
    openers = []
    for index, part in enumerate(parts):
        if part == "<locals>":
            continue
        if part.startswith("<"):
            return None
        is_function = index + 1 < len(parts) and parts[index + 1] == "<locals>"
        openers.append(f"{'def' if is_function else 'class'} {part}{'()' if is_function else ''}:")
    text = "".join(lines)
    indent = len(lines[0]) - len(lines[0].lstrip(" "))
    if not openers and indent:
        openers = ["if True:"]  # a function defined in a block at module level
    if indent >= len(openers):
        # the text as it is in the file (dedenting it would change its multi-line strings), under
        # openers one space deeper each
        head = "".join(" " * depth + opener + "\n" for depth, opener in enumerate(openers))
        body = text
    else:
        head = "".join("    " * depth + opener + "\n" for depth, opener in enumerate(openers))
        body = textwrap.indent(textwrap.dedent(text), "    " * len(openers))
    imported = _modules_read(function)
    if imported and first_line - 2 - len(openers) >= 0:  # (else the slower comparison sets them aside)
        head = "; ".join(f"import {name}" for name in imported) + "\n" + head
    padding = first_line - 1 - head.count("\n")
    if padding < 0:
        return None
    try:
        return compile("\n" * padding + head + body, function.__code__.co_filename, "exec",
                       flags=function.__code__.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    except (SyntaxError, ValueError):
        return None


def _modules_read(function) -> list[str]:
    """The global names ``function``'s code reads that hold modules: Python 3.11 compiles a call of
    a method of a module imported in the same text (``np.sum(x)``, after ``import numpy as np``)
    otherwise than one of another name, so the text is compiled after imports of these names."""
    names, stack = set(), [function.__code__]
    while stack:
        code = stack.pop()
        names.update(code.co_names)
        stack.extend(c for c in code.co_consts if inspect.iscode(c))
    namespace = function.__globals__
    return sorted(name for name in names if name.isidentifier() and isinstance(namespace.get(name), types.ModuleType))


def _code_named(code, name: str, first_line: int):
    for constant in code.co_consts:
        if inspect.iscode(constant):
            if constant.co_name == name and constant.co_firstlineno == first_line:
                return constant
            found = _code_named(constant, name, first_line)
            if found is not None:
                return found
    return None


def _same_code(a, b) -> bool:
    """Whether ``a`` and ``b`` compute the same: equal code (the common case, checked cheaply
    first), or equal once how each name is scoped is set aside."""
    return _identical(a, b) or _shape(a) == _shape(b)


def _identical(a, b) -> bool:
    if (a.co_code, a.co_names, a.co_varnames, a.co_freevars, a.co_cellvars, a.co_firstlineno) != \
            (b.co_code, b.co_names, b.co_varnames, b.co_freevars, b.co_cellvars, b.co_firstlineno):
        return False
    plain_a, plain_b = ([_constant(c) for c in code.co_consts if not inspect.iscode(c)] for code in (a, b))
    nested_a, nested_b = ([c for c in code.co_consts if inspect.iscode(c)] for code in (a, b))
    return plain_a == plain_b and len(nested_a) == len(nested_b) and all(map(_identical, nested_a, nested_b))


def _constant(value):
    """A constant as compared: by type and text, a frozenset's items in sorted order (the order
    of a set's items depends on how its strings hash in this process, `x in {"a", "b"}`)."""
    if isinstance(value, frozenset):
        return frozenset, tuple(sorted(repr(_constant(item)) for item in value))
    if isinstance(value, tuple):
        return tuple, tuple(_constant(item) for item in value)
    return type(value), repr(value)


_CLOSURE_FLAG = 0x08  # MAKE_FUNCTION's: a tuple of cells is given

_SIGNATURE_FLAGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR | inspect.CO_COROUTINE


def _shape(code) -> tuple:
    """What ``code`` computes, however its names are scoped: its signature, and its instructions
    with names for the loads and stores, nested code read the same way."""
    instructions = []
    for instruction in dis.get_instructions(code):
        op = instruction.opname
        if op in _SCOPING:
            continue
        if op in _NAME_KIND:
            instructions.append((_NAME_KIND[op], instruction.argval))
        elif instruction.opcode in dis.hasjrel or instruction.opcode in dis.hasjabs:
            instructions.append((op,))  # where it jumps moves with the scoping instructions left out
        elif inspect.iscode(instruction.argval):
            if instructions and instructions[-1][0] == "BUILD_TUPLE":
                # a nested function's closure: which of its names are cells depends on the scopes
                # the text was compiled in (its defaults' tuple, if it has no closure, is set aside
                # too: the defaults themselves are loaded before it)
                instructions.pop()
            instructions.append((op, _shape(instruction.argval)))
        elif op == "MAKE_FUNCTION":
            instructions.append((op, instruction.arg & ~_CLOSURE_FLAG))
        else:
            instructions.append((op, _constant(instruction.argval)))
    return (code.co_name, code.co_firstlineno, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
            code.co_flags & _SIGNATURE_FLAGS, tuple(instructions))
