"""The state the normaliser's parts share, and the few primitives that change it.

Normalising one function walks its statements with one ``NormalizerState``: the current
version of each user variable, the operations of the line being written and the block
items built so far, what the function reads from its module, which variables may share
memory with the caller's data. ``emit`` adds an operation, ``operation`` names its target
first, ``flush`` closes the line's statement, ``bind`` records a module-level name the
generated code reads. The parts (statements, branches, loops, expressions, calls,
mutation: normalize_*.py) are mixins over this class; normalize.py composes them.
"""
from __future__ import annotations

import builtins
import types

import libcst as cst

from ..analysis.aliasing import held_items_kind, may_share
from ..rules.helpers import __all__ as HELPER_NAMES, not_the_callers
from ..runtime.support import __all__ as RUNTIME_NAMES
from .ir import Atom, Callee, Const, Operation, Statement, Var
from .naming import Namer
from .normalize_syntax import count_returns
from .resolve import S2SAD_NAMES, Environment, importable_module_name
from .source import FunctionSource
from ..specialisation import specialised_names

BUILTIN_NAMES = {name for name in dir(builtins) if not name.startswith("_")}
RETURN = "<result>"  # the pseudo-variable holding what the function returns, merged like any other
RETURNED = "<returned>"  # set when a `return` inside a loop has run
YIELDED = "<yielded>"  # a generator's values, in the list it is differentiated as

# Names generated code itself uses; user variables that collide are renamed.
# Names generated code reads that a user's variable must not take: the modules, the rules'
# helpers (``fit``, ``conj``, ``unbroadcast``, ...) and the runtime's (``accumulate``, ...).
RESERVED = {"np", "math", "operator", "g", "ans"} | set(HELPER_NAMES) | set(RUNTIME_NAMES) | set(S2SAD_NAMES)


def names_read(code, nested=False) -> set[str]:
    """The global, attribute and free names ``code`` and the code of its nested lambdas, defs and
    comprehensions read: a temporary named like one (``quadratic_loss`` for the result of a
    lambda calling ``quadratic_loss``) would shadow it in the generated function. (A nested
    code's free names are the function's own variables, or among the function's free names.)"""
    names = set(code.co_names) | (set() if nested else set(code.co_freevars))
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= names_read(constant, nested=True)
    return names


class NormalizerState:
    """One function's normalisation so far; the parts read and change these fields directly."""

    def __init__(self, source: FunctionSource, reserved=()):
        self.source = source
        self.env = Environment(source.function)
        # names the generated code may read as they are: builtins, and the globals the function uses,
        # its nested lambdas and defs included (they are written out in its body, reading theirs)
        code = getattr(source.function, "__code__", None)
        used_globals = names_read(code) if code is not None else set()
        # and those a specialised function's text reads that its code does not: the methods of the
        # objects written out as their fields (`model_loss(...)`), the functions given as values
        used_globals |= specialised_names(getattr(source.function, "__globals__", None))
        self.namer = Namer(RESERVED | set(reserved) | BUILTIN_NAMES | used_globals)
        self.current: dict[str, str] = {}       # user variable -> its current version
        self.operations: list[Operation] = []
        self.bindings: dict[str, tuple] = {}
        self.imports: dict[str, str] = {}
        self.free_reads: dict[str, str] = {}
        self.logs: list = []                     # `LOG.append(v)` into a module's list: (its operation, where)
        self.emitted: list[Operation] = []       # every operation so far, in order
        self.local_functions: dict = {}          # nested def or lambda name -> its node (inlined when called)
        self.definition_defaults: dict = {}      # id(nested def or lambda) -> {parameter: its default's atom}
        self.local_classes: dict[str, str] = {}  # class defined in the body -> the module-level name it is bound to
        self.inlining: list = []                 # the nested functions being written out, innermost last
        self.param_versions: dict[str, str] = {}  # parameter -> the variable holding it
        self.roots: dict[str, str] = {}          # variable -> the argument or global it may share memory with
        # new list, dict or tuple -> {argument or global whose objects it may hold: how many levels down}
        self.holding: dict[str, dict[str, int]] = {}
        # an item taken out of such a container -> the arguments and globals whose object it may be (one in `roots`)
        self.taken_from_holders: dict[str, tuple[str, ...]] = {}
        self.root_values: dict[str, str] = {}    # argument or global -> the variable holding what the caller gave
        self.in_place: dict[int, str] = {}       # id of `y_2 = written_into(y + v, y)` (`y += v`) -> the version it changes
        self.updated_attributes: dict[int, str] = {}  # id of such a write for `p.w += v` (`xs[k] += v`) -> `p` (`xs`)
        self.write_backs: list = []              # elements taken out to be changed (`y[i][j] = v`), put back next
        self.spelled: dict[str, str] = {}        # such an element's variable -> how the user wrote it (`y[i]`)
        self.user_params: set[str] = set()
        self.items: list = []                    # the block being built
        self.location = source.location(source.funcdef)
        self.returned_atoms: dict[str, Atom] = {}  # a result version -> the atom returned
        self.loop_names: list[dict[str, str]] = []  # per enclosing loop: carried user variable -> loop name
        self.result_name: str | None = None
        self.conditions: set[str] = set()  # variables read as a branch's or a loop's condition
        self.return_count = count_returns(source.funcdef)
        self.params: set[str] = set()
        self.owned: dict[str, str] = {}          # argument changed in place -> the function's own copy of it
        self.consumed: set[int] | None = None    # ids of the expressions used up in one pass (one_pass.py), once asked
        self.generators_at_once: set[int] | None = None  # ids of the generator expressions used where written

    # A block is built as a list of items; operations gather in ``self.operations`` until
    # something that is not an operation (a loop, a branch, a jump) closes the statement.
    def flush(self) -> None:
        if self.operations:
            self.items.append(Statement(self.location, self.operations))
        self.operations = []

    def emit(self, operation: Operation) -> None:
        self.operations.append(operation)
        self.emitted.append(operation)
        self.share_roots(operation)

    def read_back(self, atom: Atom) -> cst.BaseExpression:
        """A value computed already, as a node a statement s2sad makes up reads again without
        computing it twice (a variable under a name only that statement spells)."""
        if isinstance(atom, Var):
            held = f"_s2sad_{atom.name}"
            self.current[held] = atom.name
            return cst.Name(held)
        return cst.parse_expression(atom.code)

    def share_roots(self, operation: Operation) -> None:
        """What may share memory with an argument or a global: copies, and the views reads make
        (a list that merely holds an argument is not one: changing the list leaves it be). A new
        container holding what one of them is or holds (``[a, b]``, ``dict(d)``, ``{**d}``, ``d | e``,
        ``d.copy()``, ``list(rows)``) is not one either, but an item taken out of it is (down as
        many levels as it is held): ``h["w"][0] = v`` changes the caller's very array."""
        if operation.kind in ("list", "tuple", "dict"):
            self.hold(operation.target, [(name, 0) for name in operation.uses()])
            return
        if operation.kind == "mutate" and operation.callee.name != "pop":  # `xs.append(a)`, `xs[k] = a`: xs holds a
            self.hold(operation.target, [(name, 0) for name in operation.uses()[1:]], keep=True)
            return
        for name in may_share(operation):
            if name in self.roots:
                self.roots[operation.target] = self.roots[name]
                if name in self.taken_from_holders:
                    self.taken_from_holders[operation.target] = self.taken_from_holders[name]
                return
        given = next((a.name for a in operation.args[:1] if isinstance(a, Var)), None)
        kind = held_items_kind(operation)
        if kind == "item" and given in self.holding:
            # which item, and whether it is the caller's object, is checked as the code runs (`callers_check`)
            held = self.holding[given]
            reached = tuple(root for root, depth in held.items() if depth == 1)
            deeper = {root: depth - 1 for root, depth in held.items() if depth > 1}
            if reached:
                self.roots[operation.target] = reached[0]
                self.taken_from_holders[operation.target] = reached
            if deeper:
                self.holding[operation.target] = deeper
        elif kind == "item" and given in self.roots:  # `max(rows)`: one of the caller's objects
            self.roots[operation.target] = self.roots[given]
            self.taken_from_holders[operation.target] = (self.roots[given],)
        elif kind == "same":  # `h2 = h`, `list(rows)`, `d.copy()`: its items are what the given one's are
            self.hold(operation.target, [(name, 1) for name in operation.uses()])
        elif kind == "flat":  # `dict_merged((a, b))`: the items of what the given tuple holds
            self.hold(operation.target, [(name, 2) for name in operation.uses()])

    def hold(self, container: str, given: list, keep: bool = False) -> None:
        """``container`` holds each name of ``given`` (level 0), or what it holds (1), or what that
        holds (2): record how many levels down each argument's or global's objects are in it."""
        held = dict(self.holding.get(container, {})) if keep else {}
        for name, level in given:
            reached = {self.roots[name]: 1 - level} if name in self.roots else \
                {root: depth - level + 1 for root, depth in self.holding.get(name, {}).items()}
            for root, depth in reached.items():
                held[root] = max(held.get(root, 1), depth, 1)
        if held:
            self.holding[container] = held

    def callers_check(self, changed: Var, spelled: str) -> None:
        """A check, as the code runs, that ``changed`` (a view of an argument or a global, an item taken
        out of a container that holds what one holds) is not the caller's object, which a change in
        place would change too: ``not_the_callers`` (rules/helpers.py). A parameter itself is checked
        otherwise (``written_into_argument``), and what the function made needs none."""
        if changed.name not in self.roots or changed.name in self.params:
            return
        for root in self.taken_from_holders.get(changed.name, (self.roots[changed.name],)):
            self.emit(Operation(self.namer.fresh("_"), "effect", Callee("static", "not_the_callers", not_the_callers),
                                [changed, Var(self.root_values[root]), Const(repr(spelled)), Const(repr(root))]))

    def operation(self, want, word, operands, operation: Operation, derived_from_operands=False) -> Var:
        """Emit ``operation`` into ``want``, or into a name made from ``word`` and its operands."""
        if want is None:
            names = [o if isinstance(o, str) else atom_name(o) for o in operands]
            if derived_from_operands:
                want = self.namer.fresh("_".join(p for p in names if p) + ("" if word == "item" else "_slice"))
            else:
                want = self.namer.temporary(word, names)
        operation.target = want
        self.emit(operation)
        return Var(want)

    def bind(self, root: str) -> None:
        """A module-level name the generated code reads: imported under it if it is a module."""
        value = self.env.lookup(root)
        module = importable_module_name(value)
        if module is not None:
            self.imports[root] = module
        else:
            self.bindings[root] = ("global", root)


def atom_name(atom) -> str:
    """What an atom adds to a made-up name: a variable's name, a short number (``2``, ``0_5``,
    ``neg1``), or nothing."""
    if isinstance(atom, Var):
        return atom.name
    if isinstance(atom, Const):
        code = atom.code.lstrip("-")
        return atom.code.replace(".", "_").replace("-", "neg") if code.replace(".", "").isdigit() and len(code) <= 4 else ""
    return ""
