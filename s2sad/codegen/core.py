"""What both modes' code generators share: one function's names, bindings and source comments.

A mode (reverse in ``reverse.py``, forward in ``forward.py``) holds an ``Emitter`` and asks it
how an atom or a call is spelt, which rule or generated function a call goes through (and
under which module-level name that is bound when the module loads), and which comment
heads a block of lines. The emitter knows nothing of derivatives' flow: that is the mode's.
"""
from __future__ import annotations

import ast
import builtins
import functools
import inspect
import operator
import re
from dataclasses import dataclass, field

import numpy as np

from ..analysis.activity import Activity
from ..analysis.exact_points import ExactTest, exact_comparison, exact_points, is_exact_test, is_rules_code, truth_tested
from ..analysis.numpy_values import numpy_made, taken_constant_by_name
from ..analysis.opaque import check_call
from ..analysis.operands import joined_then_changed, refuse_numpy_own_meanings
from ..analysis.reads import names_read_by
from ..analysis.ties import tie_found
from ..errors import MissingRuleError, SourceLocation, UnsupportedSyntaxError
from ..frontend.ir import DATACLASS_REPLACE, LAMBDA_DEFAULTS_HELD, Atom, Branch, Const, Context, Function, Guarded, Jump, Loop, Operation, Statement, Var
from ..frontend.naming import Namer
from ..frontend.resolve import describe_callee, is_library, missing_rule_hint, refuse_transform
from ..registry import Rule, rule_for, template_namespace
from ..runtime.initializers import SUPER_INIT
from ..runtime.support import __all__ as RUNTIME_SUPPORT
from ..tracebacks import beneath_generated
from ..transformed import is_bound_users_method, is_forward_call

INDENT = "    "
STRUCTURE_KINDS = ("assert", "tuple", "list", "dict", "unpack")
# the runtime checks of a receiver's type (runtime/methods.py) generated code calls: `receiver_check`
RECEIVER_CHECKS = ("receiver_left_alone", "numpy_receiver", "copy_receiver", "constant_result")
# What generated modules may import from s2sad.runtime.support (each imports those its code reads):
# no variable of theirs may be called so (the front end renames a user's, normalize_state.RESERVED)
RUNTIME_NAMES = tuple(RUNTIME_SUPPORT)


def refuse_stepwise_iteration(op: Operation, location) -> None:
    """Refuse ``iter(xs)`` and ``next(it)`` given differentiated values: an iterator read step by step
    changes as it is read, and generated code reads each value more than once (no rule says so better);
    and a ``functools.partial`` holding a differentiated value that frontend/partials_written_out.py
    does not write as a lambda."""
    value = op.callee.value if op.callee is not None else None
    if value is functools.partial:
        raise UnsupportedSyntaxError(
            "a `functools.partial(...)` holding a differentiated value is differentiated when it is of a function of "
            "yours (without `*args` or `**kwargs`) and holds variables or literals", location,
            "assign what it holds to a variable first (`W2 = W * 2.0; step = functools.partial(layer, W=W2)`), "
            "or write the lambda it stands for (`step = lambda h: layer(h, W=W * 2.0)`)")
    if value is builtins.iter or value is builtins.next:
        raise UnsupportedSyntaxError(
            f"`{value.__name__}(...)` of differentiated values is not differentiated: an iterator read step by step "
            "with next() changes as it is read, and s2sad's derivative code reads each value more than once",
            location, "index the list instead (`xs[0]`, `xs[1]`), unpack it (`a, b, *rest = xs`) or loop over it; "
                      "of a generator, make the list of what it yields first (`ys = list(gen(x))`)")


def refuse_differentiated_defaults(op: Operation, location) -> None:
    """Refuse the partial holding a lambda's defaults (frontend/ir.py) when it is differentiated: one of
    them holds a differentiated value, which the partial, having no rule, would drop."""
    if op.callee is not None and op.callee.spelling == LAMBDA_DEFAULTS_HELD:
        raise UnsupportedSyntaxError(
            "a lambda used as a value takes a default value from a differentiated variable: s2sad differentiates "
            "a lambda's defaults only where they hold constants (a loop's counter, a number)", location,
            "pass the value as an argument where the lambda is called")


@dataclass
class GeneratedModule:
    source: str
    entry: str                         # name of the rrule function
    bindings: dict[str, tuple]         # module-level name -> recipe (see loader.bind)
    function: Function
    line_map: dict = field(default_factory=dict)


class Emitter:
    def __init__(self, function: Function, wrt: tuple[str, ...], user_function, namer: Namer, activity: Activity):
        self.function = function
        self.wrt = wrt
        self.user_function = user_function
        self.namer = namer
        self.activity = activity
        self.bindings: dict[str, tuple] = dict(function.bindings)  # module-level name -> recipe (transform.bind)
        self.read_names = names_read_by(function)
        self.derivatives: dict[str, str] = {}  # variable -> its derivative's variable
        self.rename: dict[str, str] = {}       # variable -> the name the code being written reads it by
        self.last_comment = None               # the source comment heading the lines just written
        self.helpers = set(template_namespace())
        self.operand_checks = None  # analysis/operands.py's, where the code runs on values of any type
        self.numpy_made = None      # analysis/numpy_values.py's, made when first asked

    def derivative(self, name: str) -> str:
        """The variable holding a value's cotangent (reverse) or tangent (forward): ``dx``."""
        if name not in self.derivatives:
            self.derivatives[name] = self.namer.derivative(name)
        return self.derivatives[name]

    def comment(self, location: SourceLocation) -> str:
        return f"# {location.filename.rsplit('/', 1)[-1]}:{location.line}: {location.text.strip()}"

    def commented(self, location: SourceLocation, lines: list[str]) -> list[str]:
        """``lines`` under the comment naming their source line, unless the comment just
        above says the same (a loop's body from its own line, a comprehension)."""
        return self.heading(location) + lines if lines else []

    def heading(self, location: SourceLocation) -> list[str]:
        """The comment naming ``location``'s source line, to head a block that follows (a loop's
        or a branch's); nothing when the comment just above says the same."""
        comment = self.comment(location)
        if comment == self.last_comment:
            return []
        self.last_comment = comment
        return [comment]

    def operand_check(self, op: Operation) -> list[str]:
        """The line showing an operation's operands are numbers, arrays or plain containers, if
        anything is left to show (analysis/operands.py)."""
        names = self.operand_checks.of(op) if self.operand_checks is not None else ()
        if not names:
            return []
        symbol = "for" if op.kind == "element" else "[]=" if op.kind == "mutate" else op.callee.spelling
        return [f"plain_operands({symbol!r}, {', '.join(self.rename.get(n, n) for n in names)})"]

    def prologue(self) -> list[str]:
        lines = self.free_variables()
        if self.operand_checks is None:  # typed, float and compiled versions run on exact types alone
            return lines
        checks = entry_checks(self.function, self.operand_checks.on_entry)
        return lines + ([self.comment(self.function.location)] if checks and self.function.location else []) + checks

    def free_variables(self) -> list[str]:
        lines = []
        for name, local in self.function.free_reads.items():
            env_closure = self.user_function.__code__.co_freevars
            if name in env_closure:
                cell = self.namer.fresh(f"{name}_cell")
                self.bindings[cell] = ("cell", name)
                lines.append(f"{local} = {cell}.cell_contents")
            else:
                self.bindings.setdefault("function_globals", ("globals",))
                lines.append(f"{local} = function_globals[{name!r}]")
        if lines:
            lines.insert(0, f"# free variables of `{self.function.name}`, read when it runs")
        return lines

    def imports(self, body: list[str], runtime_names, always=(), compiled_helpers=None) -> str:
        """The module's import lines: the function's own imports, then what ``body`` uses of NumPy,
        ``math``, the rules' helpers and ``runtime_names`` (``always`` imported); or, for code
        Numba compiles, of ``compiled_helpers`` (their overloads gathered in s2sad.compiled_overloads)."""
        lines = []
        for alias, module in sorted(self.function.imports.items()):
            lines.append(f"import {module}" if alias == module else f"import {module} as {alias}")
        used = names_in("\n".join(body))
        if "np" in used and "np" not in self.function.imports:
            lines.append("import numpy as np")
        if "math" in used and "math" not in self.function.imports:
            lines.append("import math")
        if compiled_helpers is not None:
            names = sorted(n for n in compiled_helpers if n in used)
            return "\n".join(lines + ([f"from s2sad.compiled_overloads import {', '.join(names)}"] if names else [])) + "\n"
        helpers = sorted(n for n in self.helpers - {"np", "math"} if n in used)
        if helpers:
            lines.append(f"from s2sad.rules.helpers import {', '.join(helpers)}")
        runtime = [n for n in runtime_names if n in used or n in always]
        if runtime:
            lines.append(f"from s2sad.runtime.support import {', '.join(runtime)}")
        return "\n".join(lines) + "\n"

    def module_constants(self) -> str:
        """The names bound when the module loads, and the arguments the function changes in
        place (a caller that would not see the change refuses to call it: see transformed.py)."""
        written = ""
        if self.function.written_back:
            names = "".join(f"{name!r}, " for name in self.function.written_back)
            written = ("\n# This function changes these arguments in place (on its own copy, written back at the end):\n"
                       f"WRITES_BACK_ARGUMENTS = ({names})\n")
        return self.bindings_literal() + written

    def bindings_literal(self) -> str:
        if not self.bindings:
            return ""
        inner = "".join(f"    {name!r}: {recipe!r},\n" for name, recipe in sorted(self.bindings.items()))
        return ("\n# Names s2sad binds when it loads this module, from the function's environment:\n"
                "BINDINGS = {\n" + inner + "}\n")

    exact_points = None   # the values moving with the inputs, the comparisons checked (analysis/exact_points.py)
    types: dict | None = None   # in a typed version (array_types.py), each variable's type

    def code(self, atom: Atom) -> str:
        return self.rename.get(atom.name, atom.name) if isinstance(atom, Var) else atom.code

    def call_text(self, op: Operation) -> str:
        callee = op.callee
        if callee.kind == "attribute":
            return f"{self.code(op.args[0])}.{callee.name}"
        if callee.kind == "method" and callee.name == DATACLASS_REPLACE:  # dataclasses.replace(obj, ...), as written
            if callee.packed:  # dataclasses.replace(obj, **changes)
                return f"{callee.spelling}({self.code(op.args[0])}, *{self.code(op.args[1])}, **{self.code(op.args[2])})"
            return f"{callee.spelling}({', '.join(self.argument_list(op.args, op.kwargs))})"
        if callee.kind == "method":
            function = self.code(op.args[0]) + ("" if callee.name == "__call__" else f".{callee.name}")
            if callee.packed:
                return f"{function}(*{self.code(op.args[1])}, **{self.code(op.args[2])})"
            return f"{function}({', '.join(self.argument_list(op.args[1:], op.kwargs))})"
        if self.types is not None and _whole_reduction_method(op, self.types):
            return f"{self.code(op.args[0])}.{callee.value.__name__}()"  # np.sum(x) of an ndarray, without the dispatch
        if callee.spelling == SUPER_INIT:
            # `super().__init__(...)` called as it is, not differentiated: the initializer shares
            # `__init__`'s code, which returns None, and the object it filled is what is wanted
            return f"initialized({SUPER_INIT}, {', '.join(self.argument_list(op.args, op.kwargs))})"
        if callee.operator_code is not None:
            # a negative number as an operand keeps its parentheses: (-0.3) ** 2 is not -0.3 ** 2
            return callee.operator_code.format(*[f"({c})" if c.startswith("-") else c
                                                 for c in (self.code(a) for a in op.args)])
        return f"{callee.spelling}({', '.join(self.argument_list(op.args, op.kwargs))})"

    def argument_list(self, args, kwargs) -> list[str]:
        return [self.code(a) for a in args] + [f"{k}={self.code(v)}" for k, v in kwargs]

    def structure_line(self, op: Operation) -> list[str]:
        """The line of an operation both modes write as the user did: an assert, a tuple, list or
        dict display, an unpacked item."""
        if op.kind == "assert":
            return [f"assert {self.code(op.args[0])}, {self.code(op.args[1])}"]
        if op.kind in ("tuple", "list"):
            items = ", ".join(self.code(a) for a in op.args)
            text = f"({items},)" if op.kind == "tuple" and len(op.args) == 1 else (f"({items})" if op.kind == "tuple" else f"[{items}]")
            return [f"{op.target} = {text}"]
        if op.kind == "dict":
            items = ", ".join(f"{key}: {self.code(value)}" for key, value in op.kwargs)
            return [f"{op.target} = {{{items}}}"]
        return [f"{op.target} = {self.code(op.args[0])}[{op.index}]"]  # unpack

    def branch_header(self, branch: Branch) -> str:
        """``if condition:``, ``with manager:`` for a Context, ``try:`` for a Guarded body."""
        if isinstance(branch, Guarded):
            return "try:"
        if isinstance(branch, Context):
            return f"with unsuppressed({self.code(branch.condition)}, {_user_place(branch.location)!r}):"
        return f"if {self.code(branch.condition)}:"

    def branch_footer(self, branch: Branch) -> list[str]:
        """What closes a Guarded body: the user's handled exceptions, refused as they are caught."""
        if not isinstance(branch, Guarded):
            return []
        where = _user_place(branch.handler, heading_below=True) if branch.handler else "?"
        heading = [INDENT + self.comment(branch.handler)] if branch.handler else []
        return [f"except {self.code(branch.condition)} as caught:"] + heading + \
               [f"{INDENT}raise handled_exception(caught, {where!r}) from None"]

    def raise_line(self, jump: Jump) -> str:
        """``raise error`` (``from cause``) as the user wrote it."""
        cause = f" from {self.code(jump.cause)}" if jump.cause is not None else ""
        return f"raise {self.code(jump.exception)}{cause}"

    def mutation_line(self, op: Operation) -> list[str]:
        """A list's ``pop``, ``append``, ``insert`` or ``extend`` as written (``y[i] = v`` is each mode's own)."""
        container, args = self.code(op.args[0]), [self.code(a) for a in op.args[1:]]
        if op.callee.name == "pop":
            return [f"{op.target} = {container}.pop({', '.join(args)})"]
        return [f"{container}.{op.callee.name}({', '.join(args)})"]

    def check_opaque(self, op: Operation, differentiated: bool) -> list[str]:
        """Refuse a call given a differentiated value that s2sad cannot vouch for; where the receiver's
        type decides (``x.max()``: an array's, or a user class's ``.max``), the line refusing it as it runs."""
        where = self.location_of(op)
        refuse_numpy_own_meanings(op, where)
        check = "numpy_receiver" if op.numpy_receiver else "copy_receiver" if op.copy_receiver else None
        checks = [receiver_check(check, self.code(op.args[0]), op.callee.name, where)] if check else []
        if check_call(op, self.activity.varied, differentiated, where, self.treatment, self.user_function):
            checks.append(receiver_check("receiver_left_alone", self.code(op.args[0]), op.callee.name, where))
        return checks

    def constant_checks(self, op: Operation) -> list[str]:
        """After ``n = x.shape``, ``i = x.argmax()`` on a differentiated receiver, taken for a constant by
        its name: the line checking it as it runs, unless NumPy made the receiver (analysis/numpy_values.py)."""
        if not taken_constant_by_name(op) or op.args[0].name not in self.activity.varied:
            return []
        if self.numpy_made is None:
            self.numpy_made = numpy_made(self.function.statements)
        if op.args[0].name in self.numpy_made:
            return []
        return [receiver_check("constant_result", f"{self.code(op.args[0])}, {op.target}", op.callee.name,
                               self.location_of(op))]

    def treatment(self, op: Operation) -> str:
        """How an active static call is differentiated: inlined vjps, a rule's rrule, or a transformed function."""
        value = op.callee.value
        rule = rule_for(value)
        if rule is not None:
            if rule.kind == "vjp" and self.bound_parameters(op, rule) is not None:
                return "vjp"
            if rule.kind == "vjp_all" and self.bound_parameters(op, rule) is not None:
                return "vjp_all"
            return "rrule"
        original = getattr(value, "__s2sad_original__", value)
        if inspect.isfunction(original) and not is_library(original):
            refuse_transform(original, self.location_of(op))  # grad(f) called here: not f
            return "transformed"
        if is_bound_users_method(original) and not is_library(original.__func__):
            return "transformed"  # a classmethod called by name: its function, the class first (transform.py)
        if is_forward_call(value):  # generated forward code, differentiated again
            return "forward_call"
        refuse_differentiated_defaults(op, self.location_of(op))
        refuse_stepwise_iteration(op, self.location_of(op))
        raise MissingRuleError(
            f"no rule for `{op.callee.spelling}` ({describe_callee(value)}), and it has no Python source to differentiate",
            self.location_of(op),
            missing_rule_hint(value),
        )

    def bound_parameters(self, op: Operation, rule: Rule, packed_tangents: bool = False):
        """Parameter name -> code, in signature order; None when the call cannot be bound statically.
        A differentiated argument among a ``*args`` parameter's binds only with ``packed_tangents``
        (forward mode passes their tangents as a tuple; a reverse template cannot say its cotangents)."""
        if rule.signature is None:
            return None
        try:
            bound = rule.signature.bind(*op.args, **dict(op.kwargs))
        except TypeError as error:
            raise UnsupportedSyntaxError(
                f"the call of `{op.callee.spelling}` does not match its rule's signature ({rule.signature}): {error}",
                self.location_of(op)) from None
        bound.apply_defaults()
        codes = {}
        for name, value in bound.arguments.items():
            kind = rule.signature.parameters[name].kind
            if kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                active = any(self.activity.is_active(a) for a in (value if kind == inspect.Parameter.VAR_POSITIONAL else value.values()))
                if active and not (packed_tangents and kind == inspect.Parameter.VAR_POSITIONAL):
                    return None
                if kind == inspect.Parameter.VAR_POSITIONAL:
                    codes[name] = "(" + "".join(self.code(a) + ", " for a in value) + ")"
                else:
                    codes[name] = "{" + ", ".join(f"{k!r}: {self.code(a)}" for k, a in value.items()) + "}"
            elif isinstance(value, (Var, Const)):
                codes[name] = self.code(value)
            else:
                text = repr(value)
                if not is_literal(text):
                    return None
                codes[name] = text
        return codes

    def bind_callee(self, op: Operation, treatment: str) -> str:
        """The module-level name of the rrule an active call goes through."""
        value = op.callee.value
        reference = callee_reference(op)
        word = op.callee.spelling.split(".")[-1] if op.callee.operator_code is None else operator_name(value)
        if treatment == "transformed":
            active = tuple(i for i, a in enumerate(op.args) if self.activity.is_active(a))
            active_keywords = tuple(k for k, a in op.kwargs if self.activity.is_active(a))
            recipe = ("transformed", reference, active, active_keywords)
        elif is_forward_call(value):
            recipe = ("forward_call_rrule", reference)
        else:
            recipe = ("rrule", reference)
        return self.bind(recipe, f"{word}_rrule")

    def bind(self, recipe: tuple, base: str) -> str:
        """The module-level name bound to ``recipe`` when the module loads (one name per recipe)."""
        for name, existing in self.bindings.items():
            if existing == recipe:
                return name
        name = self.namer.fresh(base)
        self.bindings[name] = recipe
        return name

    def location_of(self, op: Operation) -> SourceLocation | None:
        return location_in(self.function.statements, op) or self.function.location


def exact_point_checks(emitter: Emitter, op: Operation, tangent: str | None = None) -> list[str]:
    """After ``found = x == 0`` on a moving ``x`` (or ``not x``, ``np.where(x, ...)``): the line
    refusing it as it runs where it finds them equal (analysis/exact_points.py,
    runtime/exact_points.py); forward code passes ``x``'s tangent, and refuses only where that is not 0."""
    if not is_exact_test(op) or is_rules_code(emitter.user_function):
        return []
    test = exact_comparison(op, _exact_points(emitter), tangent is not None)
    if test is None:
        return []
    if test.kink:  # (in code differentiated again)
        spelling = f"{op.callee.spelling}(...) == 0"
    elif _equality_spelled(op) is not None:
        a, b = emitter.code(op.args[0]), emitter.code(op.args[1])
        spelling = f"{b} in {a}" if op.callee.value is operator.contains else f"{a} {_equality_spelled(op)} {b}"
    elif op.callee.operator_code and len(op.args) == 2:  # norm(x) > 0
        spelling = op.callee.operator_code.format(*(emitter.code(a) for a in op.args))
    elif op.callee.kind == "method" and test.looked_up_in is not None:  # table.get(key, default)
        spelling = f"{op.callee.spelling}({emitter.code(test.operand)}{', ...' if len(op.args) > 2 else ''})"
    elif op.callee.kind == "method":  # x.any(), x.astype(bool)
        spelling = f"{op.callee.spelling}({'...' if len(op.args) > 1 else ''})"
    else:
        spelling = f"{op.callee.spelling}({emitter.code(test.operand)}{', ...' if len(op.args) > 1 else ''})"
    return [_exact_point_check(emitter, test, _found(emitter, op, test), spelling, emitter.location_of(op), tangent)]


def _found(emitter: Emitter, op: Operation, test: ExactTest) -> str:
    """What the check reads as the comparison's result: for ``x[i] == x[j]``, equal only where ``i != j``
    (``x[i] != x[j]``: different only there), since one element read twice moves with itself."""
    if test.looked_up_in is not None:  # (the lookup ran: a key of a dict is hashable)
        container, types = emitter.code(test.looked_up_in[0]), test.looked_up_in[1]
        return f"(isinstance({container}, {types}) and {emitter.code(test.operand)} in {container})"
    if not test.found_by_op:
        return "None"
    if test.tie is not None:
        return tie_found(op.target, test.equal, test.tie, emitter.code)
    if test.indices is None:
        return op.target
    i, j = (emitter.code(index) for index in test.indices)
    return f"({op.target} & ({i} != {j}))" if test.equal else f"({op.target} | ({i} == {j}))"


def truth_check(emitter: Emitter, branch: Branch, tangent: str | None = None) -> list[str]:
    """Before ``if v:`` on a moving ``v``: the line refusing it as it runs where ``v`` is 0."""
    if is_rules_code(emitter.user_function) or isinstance(branch, (Guarded, Context)):
        return []
    spelling = f"if {emitter.code(branch.condition)}:"
    return [_exact_point_check(emitter, test, "None", spelling, branch.location, tangent)
            for test in truth_tested(branch.condition, _exact_points(emitter), tangent is not None)]


def _exact_points(emitter: Emitter):
    if emitter.exact_points is None:
        emitter.exact_points = exact_points(emitter.function, emitter.wrt)
    return emitter.exact_points


def _equality_spelled(op: Operation) -> str | None:
    return {operator.eq: "==", np.equal: "==", operator.ne: "!=", np.not_equal: "!=",
            operator.contains: "in"}.get(op.callee.value) if len(op.args) == 2 else None


def _exact_point_check(emitter: Emitter, test: ExactTest, found: str, spelling: str, where, tangent) -> str:
    where = where or SourceLocation("<unknown>", 0, 0)
    # two sides moving with different inputs part along almost any direction: refused where equal
    moved = f", {tangent}" if tangent is not None and test.alone else ""
    return (f"at_an_exact_point({found}, {emitter.code(test.operand)}, {test.equal}, {spelling!r}, "
            f"{where.filename!r}, {where.line}, {where.column}{moved})")


def receiver_check(check: str, operands: str, name: str, where: SourceLocation | None) -> str:
    """The line refusing ``receiver.name(...)`` as it runs unless the receiver's type vouches for the
    method (runtime/methods.py: ``receiver_left_alone``, ``numpy_receiver``, ``constant_result``)."""
    where = where or SourceLocation("<unknown>", 0, 0)
    return f"{check}({operands}, {name!r}, {where.filename!r}, {where.line}, {where.column})"


def walk(block, mode) -> list[str]:
    """The lines of a block, each item written by the mode's method for its kind (``loop``,
    ``branch``, ``jump``, ``statement``): the one walk over the IR that every mode shares."""
    lines = []
    for item in block:
        if isinstance(item, Loop):
            lines += mode.loop(item)
        elif isinstance(item, Branch):
            lines += mode.branch(item)
        elif isinstance(item, Jump):
            lines += mode.jump(item)
        else:
            lines += mode.statement(item)
    return lines


def location_in(block, op: Operation) -> SourceLocation | None:
    for item in block:
        if isinstance(item, Loop):
            if any(o is op for o in [*item.setup, *item.elements, *item.back_edges]):
                return item.location
            found = location_in(item.test, op) or location_in(item.body, op)
        elif isinstance(item, Branch):
            found = location_in(item.then, op) or location_in(item.orelse, op)
        elif isinstance(item, Statement):
            found = item.location if any(o is op for o in item.operations) else None
        else:
            found = None
        if found is not None:
            return found
    return None


def operator_name(value) -> str:
    return getattr(value, "__name__", "op").strip("_")


def callee_reference(op: Operation) -> tuple:
    if op.callee.operator_code is not None:
        return ("operator", op.callee.value.__name__)
    return ("env", op.callee.spelling)


STRING_OR_COMMENT = re.compile(r"""'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|#[^\n]*""")
NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")

def names_in(code: str) -> set[str]:
    """The names generated code mentions (strings and comments left out): what it imports.
    Generated code is simple enough for a pattern; tokenizing it was a quarter of a transform."""
    return set(NAME_PATTERN.findall(STRING_OR_COMMENT.sub(" ", code)))


def indented(lines: list[str]) -> list[str]:
    return [INDENT + line for line in lines]


@functools.lru_cache(maxsize=4096)
def is_literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return False
    return True


def _whole_reduction_method(op: Operation, types: dict) -> bool:
    """``np.sum(x)``/``np.mean(x)`` of a variable a typed version knows is an ndarray: NumPy's
    functions call the method ``x.sum()``/``x.mean()`` for one, after a dispatch the method skips."""
    callee = op.callee
    return (op.kind == "call" and callee.kind == "static" and not op.kwargs and len(op.args) == 1
            and callee.value in (np.sum, np.mean) and isinstance(op.args[0], Var)
            and types.get(op.args[0].name, ("",))[0] == "array")


def entry_checks(function: Function, on_entry: tuple[str, ...]) -> list[str]:
    """The lines checking, when the function starts, what its arguments and free variables are."""
    lines = []
    if on_entry:  # an object whose class has operators of its own is refused (analysis/operands.py)
        names = ", ".join(on_entry)
        lines.append(f"plain_arguments({names!r}, {names})")
    joined = joined_then_changed(function)
    if joined:  # a list argument's `xs * 2` holds its very items, one of which is changed in place
        lines.append(f"arguments_not_sequences({', '.join(joined)!r}, {', '.join(joined)})")
    # np.matrix, masked arrays, ... given or read: their functions compute otherwise (rules/helpers.py;
    # plain_arguments refuses them too, their classes having operators of their own)
    given = {p: p for p in function.params if p not in on_entry} | dict(function.free_reads)
    if given:
        lines.append(f"numpy_meanings({', '.join(given)!r}, {', '.join(given.values())})")
    return lines


def _user_place(location: SourceLocation, heading_below: bool = False) -> str:
    """``file:line`` of the user's code at ``location``, for a message generated code raises: a
    Hessian transforms generated forward code again, whose lines are s2sad's, not the user's.
    ``heading_below``: an ``except`` line, whose comment naming the user's line is the one under it
    (branch_footer), not the one above (the ``try`` body's last)."""
    if heading_below and beneath_generated(location) is not location:
        location = SourceLocation(location.filename, location.line + 1, location.column, "")
    place = beneath_generated(location)
    return f"{place.filename}:{place.line}"
