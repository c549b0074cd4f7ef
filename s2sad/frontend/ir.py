"""The intermediate form between the user's source and the generated code.

After normalisation a function is a block: a list of statements, each the operations
(one per assignment, A-normal form) that one line of user code became, and loops, each
holding a block of its own. Operands are atoms: a variable, or a constant written as
Python source. Every variable is assigned once, except a loop's carried variables: the
values a loop passes from one iteration to the next (``h`` in ``h = tanh(W @ h)``). Each
has one name, assigned on entry to the loop and again, by a back edge, at the end of
each iteration.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from ..errors import SourceLocation


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Const:
    code: str                      # Python source of the constant, e.g. "2", "(0, 1)", "np.pi"


Atom = Union[Var, Const]


# The method name ``dataclasses.replace(obj, **changes)`` becomes, ``obj.__replace__(**changes)``
# (its name in Python 3.13's ``copy.replace``): differentiated where methods are, by the
# receiver, field by field (runtime/structural_replace.py); written as the user wrote it.
DATACLASS_REPLACE = "__replace__"

# What the generated code calls to make a lambda whose defaults read the function's variables,
# ``functools.partial(lambda z, *, k: ..., k=k)`` (normalize_expressions.py), functools imported under
# a name of s2sad's: the partial of a differentiated value is refused by it (codegen/core.py).
LAMBDA_DEFAULTS_MODULE = "s2sad_functools"
LAMBDA_DEFAULTS_HELD = f"{LAMBDA_DEFAULTS_MODULE}.partial"


@dataclass
class Callee:
    """What an operation calls.

    static: resolved at transform time to ``value`` (a numpy function, an operator, a
    user function); method: ``receiver.name(...)``, resolved by the receiver's type when
    it runs (``receiver(...)`` when ``name`` is ``__call__``: a function held in a value);
    attribute: ``receiver.name`` read, resolved the same way. A ``packed`` call is written
    with ``*`` and ``**``: its arguments are the receiver, the tuple of positional arguments
    and the dict of keyword arguments, ``receiver.name(*args[1], **args[2])``.
    """

    kind: str                      # "static" | "method" | "attribute"
    spelling: str                  # as the user wrote it: "np.tanh", "+", "x.sum"
    value: Any = None
    operator_code: str | None = None   # infix or prefix template such as "{0} + {1}"
    name: str = ""                 # method or attribute name (a static callee's: see codegen/compiled_methods.py)
    packed: bool = False
    named: Any = None              # a packed call of a function named in the source (`helper(*pairs[0])`): that function


@dataclass
class Operation:
    target: str
    kind: str                      # "call" | "tuple" | "list" | "dict" | "unpack" | "copy" | "element" | "assert" | "effect"
    callee: Callee | None = None
    args: list[Atom] = field(default_factory=list)
    kwargs: list[tuple[str, Atom]] = field(default_factory=list)
    targets: tuple[str, ...] = ()  # for "unpack": the variables assigned
    index: int | None = None       # for "unpack": position of ``target`` in the sequence
    length: int | None = None      # for "unpack": how many elements the sequence has
    numpy_receiver: bool = False   # for a method: its result is new memory only if the receiver is NumPy's,
                                   # checked as the code runs (analysis/aliasing.py _check_receivers)
    copy_receiver: bool = False    # for `c.copy()`: a new array or a shallow copy of a list or dict, not what a
                                   # user class's `.copy()` may hand back, checked as the code runs (the same)

    def atoms(self) -> list[Atom]:
        return list(self.args) + [atom for _, atom in self.kwargs]

    def uses(self) -> list[str]:
        return [atom.name for atom in self.atoms() if isinstance(atom, Var)]

    def calls(self, *functions) -> bool:
        """Whether this is a call of one of ``functions``: the very objects, as resolved when transformed
        (``operator.add`` for ``+``, a function held in a variable by the function it holds)."""
        value = self.callee.value if self.kind == "call" and self.callee is not None else None
        return value is not None and any(value is function for function in functions)


@dataclass
class Statement:
    location: SourceLocation
    operations: list[Operation]
    merge: bool = False            # the copies that end a branch's path: no comment of their own


@dataclass
class Loop:
    """A ``for`` or ``while`` loop.

    ``setup`` runs once before it (the iterable, the copies of carried variables into
    their loop names). A ``for`` loop binds one ``element`` operation per iterable each
    iteration (kind "element": target = ``args[0][counter]``); ``counter`` names the
    iteration's position (the user's ``enumerate`` variable, or a dict's key with
    ``over_items``). A ``while`` loop runs ``test`` (a block) before each iteration and
    stops when ``condition`` is false. ``back_edges`` copy each carried variable's last
    version back to its loop name at the end of an iteration (and before ``continue``
    and ``break``).
    """

    location: SourceLocation
    setup: list[Operation]
    elements: list[Operation]
    body: list                     # Statement | Loop | Branch | Jump
    back_edges: list[Operation]
    counter: str | None = None
    over_items: bool = False
    test: list = field(default_factory=list)
    condition: Atom | None = None

    @property
    def carried(self) -> list[str]:
        return [edge.target for edge in self.back_edges]


@dataclass
class Branch:
    """``if condition: then else: orelse``; each path ends by copying the variables it
    changed into the names the code after the ``if`` reads (their merge)."""

    location: SourceLocation
    condition: Atom
    then: list
    orelse: list


@dataclass
class Context(Branch):
    """``with condition: then`` (``orelse`` is empty): a branch that is always taken, its
    primal run inside the context manager ``condition`` holds (``np.errstate(...)``), as the
    user wrote it; its pullback and its tangents are computed as any other path's."""


@dataclass
class Guarded(Context):
    """``try: then except condition: ...``: the body is differentiated as the path taken when
    nothing is raised (its ``else`` and ``finally`` blocks after it); an exception the user's
    ``except`` would handle (``condition``, the tuple of their types) is refused as it is
    caught, naming ``handler``, the line of the ``except`` s2sad does not differentiate."""

    handler: SourceLocation | None = None


@dataclass
class Jump:
    """``break`` or ``continue`` (the innermost loop's), with the copies of the carried
    variables back to their loop names that the jump does on its way out; or ``raise``
    (kind "raise", ``exception`` and ``cause`` the atoms of ``raise exception from cause``),
    which leaves everything: a path that raises has no pullback and no tangent."""

    location: SourceLocation
    kind: str
    edges: list[Operation] = field(default_factory=list)
    exception: Atom | None = None
    cause: Atom | None = None


def operations_of(block) -> list[Operation]:
    """Every operation of a block in execution order (a loop's body once, both paths of a branch)."""
    out = []
    for item in block:
        if isinstance(item, Loop):
            out += item.setup
            out += operations_of(item.test)
            out += item.elements
            out += operations_of(item.body)
            out += item.back_edges
        elif isinstance(item, Branch):
            out += operations_of(item.then)
            out += operations_of(item.orelse)
        elif isinstance(item, Statement):
            out += item.operations
        elif isinstance(item, Jump):
            out += item.edges
    return out


def nested(block, kind):
    """The loops or branches (``kind``) of ``block``, at any depth of loops' bodies and branches' paths."""
    for item in block:
        if isinstance(item, kind):
            yield item
        if isinstance(item, Loop):
            yield from nested(item.body, kind)
        elif isinstance(item, Branch):
            yield from nested(item.then, kind)
            yield from nested(item.orelse, kind)


@dataclass
class Function:
    name: str
    params: list[str]              # the variables holding the parameters, in order (a parameter's own name
                                   # unless generated code reserves it: `g` becomes `g_2`)
    defaults: dict[str, str]       # parameter -> default value source
    statements: list                # Statement | Loop | Branch | Jump
    result: Atom | None
    free_reads: dict[str, str]     # variable -> global name read when the function runs
    bindings: dict[str, tuple]     # module-level name -> how to bind it (see resolve.py)
    imports: dict[str, str]        # module-level name -> module imported under it
    location: SourceLocation | None = None
    param_versions: dict = field(default_factory=dict)   # parameter name -> its variable
    written_back: tuple = ()       # the arguments the function changes in place (on its own copy, written back)


def static_callees(function: Function) -> set[str]:
    """The spellings of the calls the normaliser resolved to an object (``np.linalg.inv``, ``helper``)."""
    return {operation.callee.spelling for operation in operations_of(function.statements)
            if operation.callee is not None and operation.callee.kind == "static"}


def names_of(function: Function) -> set[str]:
    """Every name the normalised function uses: what the generator's own names must not be."""
    names = set(function.params) | set(function.free_reads.values()) | set(function.bindings) | set(function.imports)
    return names | {operation.target for operation in operations_of(function.statements)}
