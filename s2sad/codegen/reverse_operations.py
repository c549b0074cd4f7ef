"""The pullback's lines for one operation: what its reverse adds to which cotangents.

``cotangent_flow`` has said, before anything is written, what each operation's reverse
contributes and whether each contribution starts a cotangent or adds to one; this writes
those lines: a rule's template inlined (with the expression passes), its vjp called, a
pullback called and its output unpacked, an in-place change undone.
"""
from __future__ import annotations

from ..analysis.activity import Activity
from ..analysis.cotangent_flow import KEYWORD_TREATMENTS, PULLBACK_TREATMENTS, CotangentFlow, Reversal, Undoing
from ..errors import UnsupportedSyntaxError
from ..frontend.ir import Operation, Var
from ..registry import Rule, rule_for, template_namespace
from .core import Emitter, callee_reference, indented, operator_name
from ..analysis.array_types import ARRAY, F64, FLOAT, SCALAR
from .expression_passes import ReusePrimalValues, add_at_arguments, constant_exponent, on_floats, on_types
from .array_likes import LikeAsGiven, Producers, as_read_by, takes_array_likes
from .expressions import substitute


LIKE_AS_GIVEN = LikeAsGiven()


class ReverseOperations:
    def __init__(self, core: Emitter, activity: Activity, flow: CotangentFlow, *, optimize: bool, scalars: set | None,
                 primal_calls: dict, loop_index: dict, restored: dict, types: dict | None = None,
                 sequences: bool = True):
        self.core = core
        self.namer = core.namer
        self.activity = activity
        self.flow = flow
        self.optimize = optimize
        self.floats = scalars is not None      # the version for Python floats: plain arithmetic (scalars.py)
        self.scalars = scalars or set()
        self.primal_calls = primal_calls       # see reuse.py
        self.loop_index = loop_index           # id(element operation) -> its loop's iteration counter
        self.restored = restored               # id(y[i] = v) -> the variable saving what it overwrote
        self.types = types                     # the version for one call's types: each variable's (array_types.py)
        # which arguments of NumPy's functions may be lists (array_likes.py); none in compiled code,
        # whose arguments are floats and arrays (a list of them its items, unpacked)
        self.sources = Producers(core.function) if sequences else None

    def cotangent(self, name: str) -> str:
        return self.core.derivative(name)

    def contribute(self, atom: Var, expression: str, accumulates: bool) -> list[str]:
        """Add ``expression`` to the cotangent of ``atom``: assign it, or (``accumulates``: the
        cotangent already holds a value when this runs) add to it."""
        target = self.cotangent(atom.name)
        if not accumulates:
            return [f"{target} = {expression}"]
        if self.floats and atom.name in self.scalars:
            return [f"{target} = {target} + {expression}"]
        if self.types is not None and self.types.get(atom.name, ("",))[0] in (ARRAY, F64, FLOAT, SCALAR):
            # a real number or float64 array, never written in place here: `+` makes a new one
            return [f"{target} = {target} + {expression}"]
        scattered = add_at_arguments(expression) if self.optimize else None
        if scattered is not None:  # x[i] read in a loop: add g at i, no thunk
            return [f"{target} = add_at({target}, {scattered})"]
        return [f"{target} = accumulate({target}, {expression})"]

    def contributed(self, reversal: Reversal | Undoing, expression) -> list[str]:
        """The lines adding each contribution of ``reversal``; ``expression(contribution)`` is what it adds."""
        return [line for contribution, accumulates in zip(reversal.contributions, reversal.accumulates)
                for line in self.contribute(contribution.atom, expression(contribution), accumulates)]

    def bind_vjp(self, op: Operation, rule: Rule, param: str | None) -> str:
        recipe = ("vjp", callee_reference(op), param) if param is not None else ("vjp_all", callee_reference(op))
        word = operator_name(op.callee.value) if op.callee.operator_code else \
            op.callee.name or op.callee.spelling.split(".")[-1]  # (a method made its function's call: its name)
        return self.core.bind(recipe, f"{word}_vjp_{param}" if param else f"{word}_vjp")

    def reverse(self, op: Operation) -> list[str]:
        if op.kind == "mutate":
            return self.reverse_mutation(op)
        reversal = self.flow.reversal(op)
        if reversal is None:
            return []  # nothing reaches this value at run time: its inputs get no contribution
        g = self.cotangent(op.target)
        if op.kind == "copy":
            return self.contributed(reversal, lambda _: g)
        # a rule may have returned a Thunk: rules read plain values (and the guard below, its value)
        lines = [f"{g} = unthunk({g})"] if reversal.unthunk else []
        if reversal.guard is None:
            return lines + self.reverse_operation(op, g, reversal)
        # g may be ZERO, and rules are never handed a symbolic zero: what the reverse contributes
        # to starts at ZERO in case the block is skipped (inside, such a cotangent is simply assigned)
        starts = [f"{self.cotangent(name)} = ZERO" for name in reversal.guard]
        inner = self.reverse_operation(op, g, reversal)
        if not inner:
            return lines
        return lines + starts + [f"if {g} is not ZERO:"] + indented(inner)

    def reverse_mutation(self, op: Operation) -> list[str]:
        """Undo an in-place change: route the cotangent of what was written to the value
        written, and put the container back as it was, so the reverse code of earlier
        operations reads the values they read (Tapenade's restore; no copy of the whole)."""
        undoing = self.flow.undoings[id(op)]
        container_atom = op.args[0]
        container, args = self.core.code(container_atom), [self.core.code(a) for a in op.args[1:]]
        method = op.callee.name
        lines = []
        dcontainer = self.cotangent(container_atom.name)
        if undoing.unthunk:
            lines.append(f"{dcontainer} = unthunk({dcontainer})")
        if method == "setitem":
            index, value = args
            if undoing.flowing:
                lines += self.contributed(undoing, lambda _: f"unbroadcast(written_item_of({dcontainer}, {index}), {value})")
                lines.append(f"{dcontainer} = zeroed_at({dcontainer}, {index})")
            if id(op) in self.restored:
                lines.append(f"restore({container}, {index}, {self.restored[id(op)]})")
        elif method == "append":
            if undoing.flowing:
                lines += self.contributed(undoing, lambda _: f"item_of({dcontainer}, len({container}) - 1)")
                lines.append(f"{dcontainer} = prefix_of({dcontainer}, len({container}) - 1)")
            lines.append(f"{container}.pop()")
        elif method == "insert":
            # where the item went: the list has it now, so it held one item fewer before
            position = f"insertion_index({args[0]}, len({container}) - 1)"
            if undoing.flowing:
                lines += self.contributed(undoing, lambda _: f"item_of({dcontainer}, {position})")
                lines.append(f"{dcontainer} = removed_at({dcontainer}, {position}, len({container}))")
            lines.append(f"{container}.pop({position})")
        elif method == "extend":
            start = f"len({container}) - len({args[0]})"
            if undoing.flowing:
                lines += self.contributed(undoing, lambda _: f"items_of({dcontainer}, {start}, len({container}))")
                lines.append(f"{dcontainer} = prefix_of({dcontainer}, {start})")
            lines.append(f"del {container}[{start}:]")
        else:  # pop
            position = args[0] if args else "len(" + container + ")"
            lines.append(f"{container}.insert({position}, {op.target})")
            if undoing.regains:
                if undoing.starts:
                    lines.append(f"{dcontainer} = ZERO")
                item = f"unthunk({self.cotangent(op.target)})" if undoing.popped else "ZERO"
                lines.append(f"{dcontainer} = inserted_at({dcontainer}, {args[0] if args else '-1'}, "
                             f"{item}, len({container}))")
        return lines

    def reverse_operation(self, op: Operation, g: str, reversal: Reversal) -> list[str]:
        if op.kind == "element":
            index = self.loop_index[id(op)]
            return self.contributed(reversal, lambda c: substitute("untake(g, index, x)",
                                                                    {"g": g, "index": index, "x": self.core.code(c.atom)}))
        if op.kind == "unpack":
            sequence = self.core.code(op.args[0])
            return self.contributed(reversal, lambda _: f"item_cotangent({g}, {op.index}, {op.length}, {sequence})")
        # (an item of a rule's cotangent may be a Thunk, `packed_rrule`'s of `f(*args, **kwargs)`: read when used)
        if op.kind == "dict":
            return self.contributed(reversal, lambda c: f"unthunk(field_cotangent({g}, {c.key}))")
        if op.kind in ("tuple", "list"):
            if not reversal.contributions:
                return []
            parts = self.namer.fresh(f"{g}_items")
            return [f"{parts} = split_cotangent({g}, {len(op.args)})"] + \
                self.contributed(reversal, lambda c: f"unthunk({parts}[{c.key}])")
        callee = op.callee
        if callee.kind in ("method", "attribute") or self.core.treatment(op) in PULLBACK_TREATMENTS:
            return self.reverse_through_pullback(op, g, reversal)
        rule = rule_for(callee.value)
        codes = converted = self.core.bound_parameters(op, rule)
        if self.sources is not None and codes is not None and takes_array_likes(callee.value):
            arguments = rule.signature.bind(*op.args, **dict(op.kwargs)).arguments
            converted = self.sources.array_like_codes(callee.value, arguments, codes, known=self.types or self.scalars)
        if self.sources is not None and self.sources.may_join(op, known=self.types or self.scalars):
            g = f"sequence_cotangent({g}, {op.target})"
        if rule.kind == "vjp_all":
            binding = self.bind_vjp(op, rule, None)
            parts = self.namer.fresh(f"{g}_parts")
            params = list(codes)
            line = f"{parts} = {binding}({g}, {op.target}, {', '.join(converted.values())})"
            return [line] + self.contributed(reversal, lambda c: f"{parts}[{params.index(c.key)}]")
        return self.contributed(reversal, lambda c: self.vjp_expression(op, rule, c.key, g, codes, converted))

    def vjp_expression(self, op: Operation, rule: Rule, param: str, g: str, codes: dict[str, str],
                       converted: dict[str, str]) -> str:
        """What the rule's vjp for ``param`` gives: its template inlined, or a call of its function.
        ``converted``: the codes with a list NumPy reads as an array read through ``array_like``."""
        template = rule.template(param) if self.optimize else None
        if template is None:
            return f"{self.bind_vjp(op, rule, param)}({g}, {op.target}, {', '.join(converted.values())})"
        passes = [constant_exponent, ReusePrimalValues(self.primal_calls, template_namespace())]
        if converted is not codes:
            codes = as_read_by(template, codes, converted)
            passes.insert(0, LIKE_AS_GIVEN)
        if self.types is not None:
            renamed = self.core.rename  # a loop's carried value, read in its reverse as it was on entry
            types = {**self.types, **{alias: self.types[name] for name, alias in renamed.items() if name in self.types}} \
                if renamed else self.types
            passes.append(on_types(types, op.target, g))
        return substitute(template, {"g": g, "ans": op.target, **codes}, passes + [on_floats] if self.floats else passes)

    def reverse_through_pullback(self, op: Operation, g: str, reversal: Reversal) -> list[str]:
        treatment = "method" if op.callee.kind in ("method", "attribute") else self.core.treatment(op)
        rule = rule_for(op.callee.value) if treatment == "rrule" else None
        choosers = rule.choosers if rule is not None else ()
        active_keywords = [k for k, a in op.kwargs if self.activity.is_active(a) and k not in choosers]
        if active_keywords and treatment not in KEYWORD_TREATMENTS:
            raise UnsupportedSyntaxError(
                f"`{op.callee.spelling}` is given a differentiated value by keyword ({', '.join(active_keywords)}), "
                "and its rule's pullback gives cotangents of positional arguments only",
                self.core.location_of(op), "pass it positionally")
        names = ["_"] * (len(op.args) + 1)
        seen = [a.name for a in op.args if isinstance(a, Var)]
        parts = []          # (atom, the name its part of the pullback's output is unpacked into, accumulates)
        keyword_parts = []  # (keyword, name)
        for contribution, accumulates in zip(reversal.contributions, reversal.accumulates):
            cotangent = self.cotangent(contribution.atom.name)
            position = contribution.key
            if isinstance(position, int) and not accumulates and seen.count(contribution.atom.name) == 1:
                names[position + 1] = cotangent  # the first contribution: unpack straight into the cotangent
                continue
            part = self.namer.fresh(f"{cotangent}_part")
            parts.append((contribution.atom, part, accumulates))
            if isinstance(position, int):
                names[position + 1] = part
            else:
                keyword_parts.append((position, part))
        if keyword_parts:
            cotangents = self.namer.fresh(f"{g}_cotangents")
            lines = [f"{cotangents} = {op.target}_pullback({g})"]
            lines += [f"{name} = {cotangents}[{index}]" for index, name in enumerate(names) if name != "_"]
            lines += [f"{part} = {cotangents}.keywords[{keyword!r}]" for keyword, part in keyword_parts]
        else:
            lines = [f"{', '.join(names)}{',' if len(names) == 1 else ''} = {op.target}_pullback({g})"]
        for atom, part, accumulates in parts:
            lines += self.contribute(atom, part, accumulates)
        return lines
