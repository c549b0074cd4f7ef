"""Normalisation: from the user's libcst tree to A-normal form.

Each user statement becomes a list of operations, one per assignment, each operand an
atom (a variable or a constant), every variable assigned once (a reassigned user
variable gets a new version: ``h``, ``h_2``). Callees are resolved here, at transform
time, to the real objects in the function's environment.

``Normalizer`` is composed of one part per job, each a module of its own: the shared state
(normalize_state.py), statements and assignments (normalize_statements.py), branches and
jumps (normalize_branches.py), loops and comprehensions (normalize_loops.py), expressions
(normalize_expressions.py), calls (normalize_calls.py) and in-place changes
(normalize_mutation.py); what they ask of the syntax tree is in normalize_syntax.py. This
module binds the parameters, normalises the body and assembles the ``Function``.
"""
from __future__ import annotations

import libcst as cst

from ..errors import UnsupportedSyntaxError
from ..analysis.aliasing import SlotOfAList, check_writes
from ..analysis.attribute_writes import check_attribute_writes
from ..rules.helpers import owned_copy, write_back, written_into_shared
from ..runtime.structure import a_slot_replaced
from .ir import Callee, Const, Function, Operation, Statement, Var, operations_of
from .normalize_branches import BranchNormalizer
from .normalize_calls import CallNormalizer
from .normalize_one_pass import OnePassCallNormalizer
from .normalize_classes import ClassNormalizer
from .normalize_dicts import DictNormalizer
from .normalize_expressions import ExpressionNormalizer
from .normalize_lambdas import LambdaNormalizer
from .normalize_loops import LoopNormalizer
from .normalize_mutation import MutationNormalizer
from .normalize_state import RETURN, YIELDED
from .normalize_statements import StatementNormalizer
from .numpy_written_out import NumpyWrittenOut
from .partials_written_out import PartialWrittenOut
from .records import RecordNormalizer
from .normalize_syntax import code_of, count_returns, has_while, params_changed_in_place, yields_in
from .source import FunctionSource


class Normalizer(StatementNormalizer, BranchNormalizer, LoopNormalizer, ExpressionNormalizer, LambdaNormalizer,
                 DictNormalizer, CallNormalizer, OnePassCallNormalizer, MutationNormalizer, ClassNormalizer, NumpyWrittenOut,
                 PartialWrittenOut, RecordNormalizer):
    """The parts over one shared state: no part overrides another's method, so the order of the bases
    does not matter."""

    def run(self) -> Function:
        funcdef = self.source.funcdef
        params, defaults = [], {}
        signature = funcdef.params
        star = [signature.star_arg] if isinstance(signature.star_arg, cst.Param) else []
        double_star = [signature.star_kwarg] if signature.star_kwarg is not None else []
        # in the order Python binds them: *args arrives as one tuple, **kwargs as one dict
        for param in [*signature.posonly_params, *signature.params, *star, *signature.kwonly_params, *double_star]:
            name = param.name.value
            self.current[name] = self.namer.version(name)  # the name itself unless generated code reserves it
            params.append(self.current[name])
            self.param_versions[name] = self.current[name]
            self.params.add(self.current[name])
            self.roots[self.current[name]] = name
            self.root_values[name] = self.current[name]
            self.user_params.add(name)
            if param.default is not None:
                defaults[name] = code_of(param.default)
        owned = self.owned_copies(funcdef, [p.name.value for p in [*signature.posonly_params, *signature.params,
                                                                       *signature.kwonly_params]])
        statements = owned + self.generator_prologue(funcdef) + self.block(funcdef.body.body)
        if owned:
            statements.append(self.written_back(funcdef))
        if YIELDED in self.current:
            result = Var(self.current[YIELDED])  # a generator: the list of what it yields
        elif RETURN not in self.current:
            result = Const("None")
        elif self.current[RETURN] in self.returned_atoms:
            result = self.returned_atoms[self.current[RETURN]]  # one return, at the end: no copy needed
        else:
            result = Var(self.current[RETURN])
        function = Function(
            name=funcdef.name.value, params=params, defaults=defaults, param_versions=self.param_versions,
            statements=statements, result=result, free_reads=self.free_reads, bindings=self.bindings,
            imports=self.imports, location=self.source.location(funcdef),
            written_back=tuple(self.owned),
        )
        self.check_logs_unread(statements)
        self.check_lists_read_unrecorded()
        guarded = check_writes(function, self.in_place, self.source, self.updated_attributes)
        check_attribute_writes(function, self.source)
        for operation in operations_of(statements):
            guard = guarded.get(id(operation))
            if isinstance(guard, SlotOfAList):
                self.checked_a_list_at_run_time(operation, guard)
            elif guard is not None:
                operation.callee = Callee("static", "written_into_shared", written_into_shared)
                operation.args = operation.args[:2] + [Const(repr(name)) for name in guard]
        return function

    def checked_a_list_at_run_time(self, write: Operation, guard: SlotOfAList) -> None:
        """``a_slot_replaced(y, ...)`` right before ``y[i] = v``: the analysis let the write through
        for a list or a dict only (analysis/aliasing.py ``SlotOfAList``)."""
        operations = guard.statement.operations
        position = next(index for index, op in enumerate(operations) if op is write)
        operations.insert(position, Operation(self.namer.fresh("_"), "effect",
                                              Callee("static", "a_slot_replaced", a_slot_replaced),
                                              [write.args[0], Const(repr(guard.spelled)), Const(repr(guard.seen))]))


    def owned_copies(self, funcdef: cst.FunctionDef, names: list[str]) -> list:
        """The function's own copy of each argument its body changes in place (``x[i] = v``),
        which the body works on instead: the pullback never reads the caller's buffer, and
        ``written_back`` leaves the changes in the caller's value at the end, as Python would."""
        changed = params_changed_in_place(funcdef, set(names))
        if not changed:
            return []
        self.location = self.source.location(funcdef)
        for name in changed:
            original = self.current[name]
            others = [self.current[n] for n in names if n != name]
            own = self.namer.fresh(f"{name}_own")
            self.emit(Operation(own, "call", Callee("static", "owned_copy", owned_copy),
                                [Var(original), Const(repr(name)), Const("(" + "".join(f"{o}, " for o in others) + ")")]))
            self.current[name] = own
            self.roots.pop(own, None)
            self.owned[original] = own
        operations, self.operations = self.operations, []
        return [Statement(self.location, operations)]

    def generator_prologue(self, funcdef: cst.FunctionDef) -> list:
        """A generator (``for W, b in unpack_layers(params)``) is differentiated as the list of
        what it yields, made before the loop that reads it runs: the values are the same as
        long as the loop does not change what the generator reads, and the generator ends."""
        yields = yields_in(funcdef)
        if not yields:
            return []
        for node in yields:
            if isinstance(node.value, cst.From):
                raise UnsupportedSyntaxError("`yield from` is not supported", self.source.location(node),
                                             "yield the items one by one in a loop")
        if count_returns(funcdef):
            raise UnsupportedSyntaxError("a `return` in a generator is not supported", self.source.location(funcdef),
                                         "let the generator run to its end")
        if has_while(funcdef):
            raise UnsupportedSyntaxError(
                "a generator with a `while` loop is not differentiated: s2sad makes the list of what it yields before "
                "the loop reading it runs, and a generator that never ends would not let it", self.source.location(funcdef),
                "yield from a `for` loop over a range or a list")
        self.location = self.source.location(funcdef)
        self.current[YIELDED] = self.namer.version("yielded")
        return [Statement(self.location, [Operation(self.current[YIELDED], "list", args=[])])]

    def written_back(self, funcdef: cst.FunctionDef) -> Statement:
        writes = [Operation(self.namer.fresh("_"), "effect", Callee("static", "write_back", write_back), [Var(o), Var(c)])
                  for o, c in self.owned.items()]
        return Statement(self.source.location(funcdef), writes)


def normalize(source: FunctionSource, reserved=()) -> Function:
    return Normalizer(source, reserved).run()
