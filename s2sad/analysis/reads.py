"""Which variables the derivative code must write: read by an operation, a condition or the result."""
from __future__ import annotations

from ..frontend.ir import Branch, Function, Loop, Var, operations_of


def names_read_by(function: Function) -> set[str]:
    """Every variable some operation, loop, branch or the result reads, counting a copy's
    read only when what it copies into is read in turn: a merge copy nobody reads is not
    written, since on some path its source may never have been bound (a variable set in a
    loop that returned, or ran no iteration, before setting it)."""
    operations = operations_of(function.statements)
    names = {name for op in operations if op.kind != "copy" for name in op.uses()}
    if isinstance(function.result, Var):
        names.add(function.result.name)

    def visit(block):
        for item in block:
            if isinstance(item, Loop):
                names.update(a.name for a in [item.condition] if isinstance(a, Var))
                names.update(item.carried)
                visit(item.test)
                visit(item.body)
            elif isinstance(item, Branch):
                names.update(a.name for a in [item.condition] if isinstance(a, Var))
                visit(item.then)
                visit(item.orelse)

    visit(function.statements)
    copies = [op for op in operations if op.kind == "copy"]
    changed = True
    while changed:
        changed = False
        for op in copies:
            if op.target in names:
                for name in op.uses():
                    if name not in names:
                        names.add(name)
                        changed = True
    return names
