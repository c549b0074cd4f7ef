"""``LOG.append(loss)``: a value recorded in a list of the function's module (or of an enclosing
function), its result unused. It runs as Python runs it and carries no gradient
(``rules.helpers.logged``), which is right as long as nothing differentiated reads the list:
refused where the function reads it otherwise (``LOG[-1]``, ``sum(LOG)``). The aliasing analysis
counts the recorded value as read when the function returns, and refuses a change in place of
the recorded object (aliasing.py ``_refuse_recorded``)."""
from __future__ import annotations

from ..analysis.aliasing import conditions_of
from ..errors import UnsupportedSyntaxError
from ..rules.helpers import logged
from .ir import Callee, Var, operations_of
from .normalize_state import NormalizerState


class RecordNormalizer(NormalizerState):
    def record_if_a_log(self, op, node) -> None:
        """Make ``op`` (a call kept for its effect, written at ``node``) a record if it is ``LOG.append(v)``."""
        if self.appends_to_a_module_list(op):
            op.callee = Callee("static", "logged", logged)
            self.logs.append((op, self.source.location(node)))

    def appends_to_a_module_list(self, op) -> bool:
        """``LOG.append(v)``: ``LOG`` a list the function reads from its module (or an enclosing
        function), not one of its own variables."""
        if op.callee.kind != "method" or op.callee.name != "append" or len(op.args) != 2 or op.kwargs:
            return False
        receiver = op.args[0]
        names = [name for name, local in self.free_reads.items() if isinstance(receiver, Var) and local == receiver.name]
        return bool(names) and type(self.env.lookup(names[0])) is list

    def check_logs_unread(self, statements) -> None:
        """Refuse ``LOG.append(v)`` where the function also reads ``LOG`` otherwise (``LOG[-1]``,
        ``sum(LOG)``, another method): what it reads would hold values appended while it runs,
        which the derivative code takes for constants."""
        readers = operations_of(statements)
        for log, location in self.logs:
            name = log.args[0].name
            if any(name in op.uses() for op in readers if op is not log and not self.is_log_of(op, name)) \
                    or any(name in names for _, names in conditions_of(statements)):
                user = next(n for n, local in self.free_reads.items() if local == name)
                raise UnsupportedSyntaxError(
                    f"`{user}.append(...)` records a value in a list the function also reads: what it reads "
                    f"there would hold values appended while the function runs, which s2sad takes for constants",
                    location, f"read `{user}` outside the differentiated function, or keep the values in a local list "
                              f"and return it with the result (has_aux=True)")

    def is_log_of(self, op, name: str) -> bool:
        return any(op is log for log, _ in self.logs) and op.args[0].name == name
