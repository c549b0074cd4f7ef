"""Which comparisons choose a branch at an isolated point: ``x == c`` or ``x != c`` between a value
that moves with a differentiated input and one that does not (runtime/exact_points.py refuses them
as they run, where they find the two equal and, in forward code, ``x``'s tangent there is not 0).
The same tests in other words: ``np.array_equal``, ``np.isclose`` with zero tolerances,
``math.isclose(x, 0.0)``, a list or tuple compared with ``==``, ``np.sign(x) == 0``, a dict looked up
by a moving key (``table.get(x0, 1.0)``, ``table[x0]``: its entry holds where the key equals one of its
own, the default all around), ``xs.index(x0)``.

Two sides moving with no input in common (``np.where(x == y, ...)``, both differentiated) part as
soon as either moves, and so do two elements of one array read by two indices (``x[0] == x[1]``,
``x[i] == x[j]`` where ``i != j`` as it runs, ``x[:2]`` and ``x[2:]``) and two sides made otherwise
from one input (ties.py: ``np.max(x) == np.min(x)``, ``x == np.max(x)`` where two elements tie for
it, but one value through copies, ``x == x``, is never apart): where they are equal the outcome holds
at that point alone, and the check refuses it whatever the tangents. (Forward code differentiated
again, whose own checks cover the user's comparisons, leaves sides with an input in common, its
rules' tests among them, unchecked.) ``np.sign``'s result stays put around a real point but 0 (its slope is 0), so
``np.sign(p) == np.sign(y)`` counts matches, choosing no branch of a formula, but where ``p`` is 0.
An ordering of a never-negative value with 0 (``norm(x) > 0``) is such a test too, in forward code
differentiated again (a hvp's), and in the user's function where its branch reads more than the
value itself (``_nonnegative_values``). The rules' own code, differentiated again for Hessians,
writes such tests knowingly (``gaps == 0`` on a diagonal that is 0 wherever the inputs move) and is
not checked."""
from __future__ import annotations

import ast
import builtins
import math
import operator
import os
from dataclasses import dataclass, field

import numpy as np

from ..runtime.exact_points import EXACT_POINT_ARGUMENTS, at_an_exact_point
from ..frontend.ir import Atom, Branch, Const, Function, Loop, Operation, Var, nested, operations_of
from .activity import propagates, varied_values
from .thresholds import kinked_thresholds, threshold_tie
from .ties import Tie, Values, assignments, difference_tie, is_element_of, reads_of_one_array, tie_of, values_of

# whether a comparison's result says its sides are equal (True) or that they differ (False);
# ``v in (0.0, 1.0)`` is ``v == 0.0 or v == 1.0``
_EQUALITIES = {operator.eq: True, np.equal: True, operator.ne: False, np.not_equal: False, operator.contains: True,
               np.array_equal: True, np.array_equiv: True}
# ``np.isclose(a, b, rtol, atol)``: ``|a - b| <= atol + rtol * |b|``, an equality where both tolerances are 0
# (the relative one may stay when ``b`` is 0); otherwise a band, whose outcome holds around all but its edges.
# By function: its parameters in order, the relative and absolute tolerances' names, whether the absolute
# one is 0 when left out (``math.isclose(x, 0.0)`` is ``x == 0.0``)
_CLOSENESS = {np.isclose: (("a", "b", "rtol", "atol"), "rtol", "atol", False),
              np.allclose: (("a", "b", "rtol", "atol"), "rtol", "atol", False),
              math.isclose: (("a", "b"), "rel_tol", "abs_tol", True)}
# a float's truth is ``v != 0``: whether the test's result says it is 0 (True) or not (False)
_TRUTH_TESTS = {operator.not_: True, np.logical_not: True, bool: False, operator.truth: False}
# NumPy functions reading their first argument's truth inside (``np.where(x, ...)``, ``np.any(x)``):
# their result does not say where it is 0, which the check finds itself
_TRUTH_READERS = (np.where, np.any, np.all, np.count_nonzero, np.nonzero, np.flatnonzero, np.argwhere)
# the same as methods (``x.any()``, ``x.astype(bool)``)
_TRUTH_READING_METHODS = ("any", "all", "nonzero")
_BOOL_SPELLINGS = ("bool", "np.bool_", "np.bool", "numpy.bool_", "'bool'", '"bool"')
# An ordering of a value that is never negative with 0 is an equality in disguise (`r > 0` is `r != 0`
# for a norm): where the value side (position) is made by one of _NONNEGATIVE, the equality it is.
_ORDERINGS_AT_ZERO = {operator.gt: (0, False), np.greater: (0, False), operator.le: (0, True), np.less_equal: (0, True),
                      operator.lt: (1, False), np.less: (1, False), operator.ge: (1, True), np.greater_equal: (1, True)}
_NONNEGATIVE = (np.linalg.norm, np.abs, np.sqrt, np.hypot, builtins.abs)
# Kinks at 0 whose first derivative there is a convention (0: ``np.sign(0)``, a norm's ``x / 0`` taken as 0)
# that a second derivative multiplies in: ``np.abs(x) ** 2`` and ``np.linalg.norm(x - y) ** 2`` are
# smooth, with Hessian 2I, which the product of the conventions made 0. In code differentiated again
# each is tested as its result being 0, as np.maximum's tie is in its rule's forward template.
_KINKED_AT_ZERO = (np.linalg.norm, np.abs, np.sqrt, np.hypot, builtins.abs, math.sqrt, math.fabs, math.hypot)
_LOCALLY_CONSTANT = (np.sign,)
# how a check's first argument joins a comparison with what tells a tie (ties.tie_found, codegen's ``&``)
_LOGICAL = (np.logical_and, np.logical_or, np.logical_not, operator.and_, operator.or_, operator.invert)
# Looking a moving float up by equality: a dict's entry for it (``table.get(x0, 1.0)``, ``table[x0]``) is
# the entry of a key equal to it, chosen at that point alone (the default all around it); a list's
# ``index``/``count`` likewise. By method: the containers whose lookup compares so.
_LOOKUPS = {"get": "dict", "pop": "dict", "setdefault": "dict", "__getitem__": "dict",
            "index": "(list, tuple)", "count": "(list, tuple)"}


def _static_callee(op: Operation):
    if op.kind != "call" or op.callee is None or op.callee.kind != "static" or op.kwargs:
        return None
    return op.callee.value


def _looked_up(table: dict, op: Operation):
    """``table``'s entry for the function ``op`` calls, or None."""
    try:
        return table.get(_static_callee(op))
    except TypeError:  # an unhashable callee
        return None


def _equality(op: Operation) -> bool | None:
    equal = _looked_up(_EQUALITIES, op) if len(op.args) == 2 and not op.kwargs else None
    return True if equal is None and _exactly_close(op) else equal


def _is_zero(atom: Atom | None) -> bool:
    try:
        return isinstance(atom, Const) and float(ast.literal_eval(atom.code)) == 0.0
    except (ValueError, SyntaxError, TypeError):
        return False


def _exactly_close(op: Operation) -> bool:
    """``np.isclose(x, c, atol=0, rtol=0)``, ``np.allclose``'s, ``math.isclose(x, 0.0)``: the relative
    tolerance left out where ``c`` is 0."""
    closeness = next((spec for f, spec in _CLOSENESS.items() if op.calls(f)), None)
    if closeness is None or len(op.args) < 2:
        return False
    parameters, relative, absolute, absolute_zero = closeness
    given = dict(zip(parameters, op.args), **dict(op.kwargs))
    if not set(given) <= set(parameters) | {relative, absolute}:
        return False
    if not (_is_zero(given.get(absolute)) or absolute not in given and absolute_zero):
        return False
    return _is_zero(given.get(relative)) or relative not in given and _is_zero(given.get("b"))


def _key_lookup(op: Operation) -> tuple[Atom, Atom, str] | None:
    """``table.get(key, ...)``, ``table[key]``, ``xs.index(key)``: (container, key, the containers
    whose lookup compares the key by equality), or None."""
    if op.kind != "call" or op.callee is None or len(op.args) < 2:
        return None
    if op.callee.kind == "method" and op.callee.name in _LOOKUPS:
        return op.args[0], op.args[1], _LOOKUPS[op.callee.name]
    if op.calls(operator.getitem) and len(op.args) == 2:
        return op.args[0], op.args[1], "dict"
    return None


def _truth_test(op: Operation) -> bool | None:
    return _looked_up(_TRUTH_TESTS, op) if len(op.args) == 1 else None


def _reads_truth(op: Operation) -> bool:
    if op.kind == "call" and op.callee is not None and op.callee.kind == "method" and op.args:
        name, rest = op.callee.name, op.args[1:]
        return (name in _TRUTH_READING_METHODS and not rest or name == "astype" and len(rest) == 1
                and isinstance(rest[0], Const) and rest[0].code in _BOOL_SPELLINGS)
    callee = _static_callee(op)
    return bool(op.args) and any(callee is f for f in _TRUTH_READERS) and (callee is not np.where or len(op.args) == 3)


def _ordering_at_zero(op: Operation, nonnegative: set[str]) -> bool | None:
    """The equality ``op`` is when it orders a never-negative value with 0 (``r > 0``: False, for ``!=``)."""
    ordering = _looked_up(_ORDERINGS_AT_ZERO, op) if len(op.args) == 2 else None
    if ordering is None:
        return None
    position, equal = ordering
    value, other = op.args[position], op.args[1 - position]
    if not (isinstance(value, Var) and value.name in nonnegative and isinstance(other, Const)):
        return None
    try:
        return equal if float(other.code) == 0.0 else None
    except ValueError:
        return None


def _nonnegative_values(function: Function, moving: set[str]) -> set[str]:
    """The values ``_NONNEGATIVE`` makes whose orderings with 0 are tests at a point. In forward code
    differentiated again (a hvp's), all: a second derivative through the constant branch is 0 where
    ``sinc(norm(x))``'s Hessian is -1/3. In a function of the user's, those whose tests choose values
    made otherwise than from the value itself (``if theta > 0: K = skew(w / theta)``): where a branch
    reads ``r = norm(w)`` alone, the function is one of ``r``, with a kink at 0, whose derivative
    through ``r > 0``'s branch is a subgradient as documented; where it reads ``w`` too (Rodrigues'
    rotation, ``w / n``), the constant branch's 0 is not NumPy's function's slope."""
    operations = operations_of(function.statements)
    made = {op.target for op in operations if op.calls(*_NONNEGATIVE)}
    if _generated(function):
        return made
    return {r for r in made & moving if _chooses_beyond(r, function, operations, moving)}


def _kinks_read_differentiably(function: Function, moving: set[str]) -> set[str]:
    """The moving values ``_KINKED_AT_ZERO`` makes that reach the result through differentiable operations:
    a tolerance test's ``abs(x_new - x) < tol``, 0 where Newton's iteration has converged, reads its kink
    by a comparison alone, and no derivative goes through it."""
    operations = operations_of(function.statements)
    reaching, before = {function.result.name} if isinstance(function.result, Var) else set(), -1
    while len(reaching) != before:  # (as activity's useful values, backwards)
        before = len(reaching)
        for op in reversed(operations):
            if op.target in reaching and propagates(op):
                reaching.update(op.uses())
    return {op.target for op in operations if op.calls(*_KINKED_AT_ZERO) and op.target in reaching
            and any(name in moving for name in op.uses())}


def _signs(function: Function, moving: set[str]) -> set[str]:
    return {op.target for op in operations_of(function.statements) if op.calls(*_LOCALLY_CONSTANT)
            and any(name in moving for name in op.uses())}


def _generated(function: Function) -> bool:
    where = function.location
    return where is not None and os.path.basename(where.filename).startswith("s2sad_")


def _chooses_beyond(r: str, function: Function, operations, moving: set[str]) -> bool:
    """Whether a test of ``r`` with 0 chooses a moving value not made from ``r`` alone, or is read
    otherwise than by ``if`` and ``np.where`` (then taken to)."""
    tests = {op.target for op in operations if _ordering_at_zero(op, {r}) is not None
             or _equality(op) is not None and Var(r) in op.args}
    made_from_r, chosen = {r}, []
    for op in operations:
        reads = [name for name in op.uses() if name in moving]
        if reads and all(name in made_from_r for name in reads):
            made_from_r.add(op.target)
        for position, atom in enumerate(op.args):
            if isinstance(atom, Var) and atom.name in tests:
                if not (op.calls(np.where) and position == 0 and len(op.args) == 3):
                    return True
                chosen += op.args[1:]
    for branch in nested(function.statements, Branch):
        if getattr(branch.condition, "name", None) in tests:
            chosen += [atom for op in operations_of(branch.then) + operations_of(branch.orelse) for atom in op.atoms()]
    return any(isinstance(atom, Var) and atom.name in moving and atom.name not in made_from_r for atom in chosen)


def moving_values(function: Function, wrt: tuple[str, ...]) -> set[str]:
    """The values that move with the inputs ``wrt``: activity's varied values, but not through ``np.sign``."""
    def moves(op: Operation) -> bool:
        return propagates(op) and not (op.kind == "call" and op.callee.kind == "static"
                                       and any(op.callee.value is f for f in _LOCALLY_CONSTANT))

    return varied_values(operations_of(function.statements), wrt, moves)


def checked_with_tangents(function: Function) -> set[str]:
    """The comparisons forward code (differentiated again for a Hessian) checks already, given the
    operand's tangent: the check runs as it is, and finer than one without the tangent would."""
    return {op.args[0].name for op in operations_of(function.statements)
            if op.kind == "effect" and op.callee is not None and op.callee.value is at_an_exact_point
            and len(op.args) > EXACT_POINT_ARGUMENTS and isinstance(op.args[0], Var)}


def checked_without_tangents(function: Function) -> set[str]:
    """The comparisons forward code's checks given no tangent read, with the logical operations joining
    them (a tie's ``np.logical_and(x_eq_y, apart)``): such a check refuses wherever it finds a tie, in any
    direction, and runs again as it is in the code differentiating it (hvp), where a check of the
    comparison alone would refuse where its sides are one element (a diagonal read through indices held
    in variables). (Not what made the comparison's sides: their own checks stand.)"""
    operations = operations_of(function.statements)
    makers = {}
    for op in operations:
        makers.setdefault(op.target, []).append(op)
    read = [op.args[0].name for op in operations if op.kind == "effect" and op.callee is not None
            and op.callee.value is at_an_exact_point and len(op.args) == EXACT_POINT_ARGUMENTS and isinstance(op.args[0], Var)]
    checked = set()
    while read:
        name = read.pop()
        if name not in checked:
            checked.add(name)
            read += [atom.name for op in makers.get(name, []) if op.calls(*_LOGICAL) for atom in op.args if isinstance(atom, Var)]
    return checked


@dataclass
class ExactPoints:
    moving: set[str]
    checked: set[str]
    inputs_of: dict[str, frozenset[str]]  # a moving value: the inputs it moves with
    given: set[str]    # the parameters: a tangent of 0 given to one says it stays put (data in a hvp)
    nonnegative: set[str]
    kinked: set[str]   # values at a kink at 0 (a norm's), whose tangent there is 0 though they move
    signs: set[str]    # ``np.sign`` of a moving value: it stays put but where that is 0
    elements: dict[str, tuple[str, Atom]]  # ``x_i = x[i]``: x_i -> ("x", Var("i")); ``x_0 = x[0]``: ("x", Const("0"))
    items_of: dict[str, list[Atom]]  # ``for v in [a, 0.0, b]`` (filter(None, ...)'s loop): v -> [a, 0.0, b]
    values: Values | None = None  # copies and the operations making names (ties.py); None: ties not checked
    kinks_read: set = field(default_factory=set)  # in code differentiated again: _kinks_read_differentiably
    thresholds: set = field(default_factory=set)  # (x, c) of the extremes of a variable and a constant (thresholds.py)
    checked_anyway: set[str] = field(default_factory=set)  # read by a check whatever the tangents


def _elements_read(function: Function) -> dict[str, tuple[str, Atom]]:
    """The values assigned once, each read from a variable by one index, a constant or a variable.
    (A variable holds, as the comparison runs, the index the read used: a value assigned once in a
    loop's body is read in the same iteration, before the back edges change a counter it carries.)"""
    operations = operations_of(function.statements)
    assigned = assignments(operations)
    read = {op.target: (op.args[0].name, op.args[1]) for op in operations
            if op.calls(operator.getitem) and len(op.args) == 2 and isinstance(op.args[0], Var)
            and assigned[op.target] == 1}
    for loop in nested(function.statements, Loop):  # ``for i, a in enumerate(x)``: a is x[i]
        if loop.counter is not None and not loop.over_items:
            read.update((op.target, (op.args[0].name, Var(loop.counter))) for op in loop.elements
                        if isinstance(op.args[0], Var) and assigned[op.target] == 1)
    return read


def _literal_items(function: Function) -> dict[str, list[Atom]]:
    """A loop's element taken from a list or tuple written out (``filter(None, [a, 0.0, b])``'s loop):
    its items, where nothing else reads the list (nothing appends to it, no call is handed it)."""
    operations = operations_of(function.statements)
    made = {op.target: op for op in operations if op.kind in ("list", "tuple")}
    readers, assigned = {}, assignments(operations)
    for op in operations:
        for name in op.uses():
            readers.setdefault(name, []).append(op)
    return {op.target: made[op.args[0].name].args for op in operations
            if op.kind == "element" and len(op.args) == 1 and isinstance(op.args[0], Var) and op.args[0].name in made
            and assigned[op.args[0].name] == 1 and all(reader.kind == "element" for reader in readers[op.args[0].name])}


def _start(index: Atom) -> int | None:
    """Where a constant index starts its elements, and they follow one by one: ``x[2]``, ``x[2:]``,
    ``x[:-1]`` (0); None for other indices (``x[::-1]``, ``x[:, None]``, ``x[-1]``)."""
    if not isinstance(index, Const):
        return None
    try:
        tree = ast.parse(index.code, mode="eval").body
        if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "slice" \
                and len(tree.args) == 3 and not tree.keywords:
            start, _, step = (ast.literal_eval(a) for a in tree.args)
            start = 0 if start is None else start
            return start if type(start) is int and start >= 0 and step in (None, 1) else None
        value = ast.literal_eval(tree)
    except (ValueError, SyntaxError, TypeError):
        return None
    return value if type(value) is int and value >= 0 else None


def _other_elements(a: str, b: str, found: "ExactPoints") -> tuple[Atom, ...] | None:
    """``x[0]`` and ``x[1]``, ``x[:2]`` and ``x[2:]``, ``x[i]`` and ``x[j]``: reads of one array by two
    indices, whose elements, compared in turn, move apart. None: not such reads, or where their
    elements may be the same ones (``x[-1]`` and ``x[2]``, ``x[:, None]`` and ``x[None, :]``); (): apart;
    the two indices: apart where they differ as the code runs (``i != j``)."""
    reads = reads_of_one_array(a, b, found.elements)
    if reads is None or reads[1] == reads[2]:
        return None
    _, first, second = reads
    if isinstance(first, Var) or isinstance(second, Var):
        return (first, second)
    starts = (_start(first), _start(second))
    return () if None not in starts and starts[0] != starts[1] else None


def exact_points(function: Function, wrt: tuple[str, ...]) -> ExactPoints:
    moving_with = {name: moving_values(function, (name,)) for name in wrt}
    moving = set().union(*moving_with.values())
    inputs_of = {value: frozenset(name for name in wrt if value in moving_with[name]) for value in moving}
    nonnegative = _nonnegative_values(function, moving)
    return ExactPoints(moving, checked_with_tangents(function), inputs_of, set(function.params), nonnegative,
                       set() if _generated(function) else nonnegative, _signs(function, moving),
                       _elements_read(function), _literal_items(function),
                       None if _generated(function) else values_of(function),
                       _kinks_read_differentiably(function, moving) if _generated(function) else set(),
                       kinked_thresholds(function),
                       checked_without_tangents(function) if _generated(function) else set())


@dataclass
class ExactTest:
    """A test of a moving value at an isolated point: ``found`` (the op's own result, or None where
    the check compares ``operand`` with 0 itself) says ``operand`` equals the other side (``equal``)
    or differs from it; ``alone``: the other side stays put (not a value moving with other inputs), and
    a tangent of 0 says ``operand`` does too (forward code checks only where it is not 0)."""
    operand: Atom
    equal: bool
    alone: bool = True
    found_by_op: bool = True
    indices: tuple[Atom, Atom] | None = None  # two elements of one array: equal at the indices that differ
    tie: Tie | None = None  # two sides moving with one input, how they are told apart (ties.py)
    looked_up_in: tuple[Atom, str] | None = None  # a key's container, and the types looking it up by equality
    kink: bool = False  # ``operand`` is a norm's or an absolute value's result, in code differentiated again


def exact_comparison(op: Operation, found: ExactPoints, with_tangent: bool) -> ExactTest | None:
    """The test ``op`` makes at an isolated point, if it compares by ``==``, ``!=`` or ``in`` a
    moving value with one that is not, or with one moving with other inputs, orders a never-negative
    one with 0 (``norm(x) > 0``, in forward code differentiated again), or tests a moving value's truth
    (``not v``, ``np.where(x, ...)``), and no check of it is there already. Reverse code
    (``with_tangent`` False) checks again, without the tangent, a comparison of a value computed in
    forward code, which checks it with its tangent: differentiating forward code (hvp) moves the value
    in every direction, and a tangent of 0 along one (``np.abs(x)``'s, a norm's at 0) did not say it
    stays put."""
    test = _test_of(op, found)
    if test is None or op.target in found.checked_anyway \
            or op.target in found.checked and (with_tangent or test.operand.name in found.given):
        return None
    return test


def _difference_compared_with_0(op: Operation, moving: str, found: ExactPoints) -> Tie | None:
    if found.values is None or len(op.args) != 2 or not any(_is_zero(atom) for atom in op.args):
        return None
    return difference_tie(moving, found.values, found.elements)


def _test_of(op: Operation, found: ExactPoints) -> ExactTest | None:
    moving = [atom for atom in op.args[:2] if isinstance(atom, Var) and atom.name in found.moving]
    equal = _equality(op)
    if equal is None:
        equal = _ordering_at_zero(op, found.nonnegative)
    if equal is not None and len(moving) == 1:  # (a kinked value's tangent does not say it stays put)
        tie = _difference_compared_with_0(op, moving[0].name, found)
        if tie is not None:
            return ExactTest(moving[0], equal, alone=False, tie=tie)
        return ExactTest(moving[0], equal, alone=moving[0].name not in found.kinked)
    if equal is not None and len(moving) == 2:
        if found.inputs_of[moving[0].name].isdisjoint(found.inputs_of[moving[1].name]):
            return ExactTest(moving[0], equal, alone=False)
        indices = _other_elements(moving[0].name, moving[1].name, found)
        if indices is not None:
            return ExactTest(moving[0], equal, alone=False, indices=indices or None)
        if found.values is not None and op.calls(operator.contains) and is_element_of(op.args[1], op.args[0], found.values):
            return None  # (``v in xs`` of an element ``v`` of ``xs``: True around any number)
        tie = None if found.values is None else tie_of(moving[0].name, moving[1].name, found.values, found.elements)
        if tie is not None:
            return ExactTest(moving[0], equal, alone=False, tie=tie)
    if op.target in found.kinks_read:
        return ExactTest(Var(op.target), True, found_by_op=False, kink=True)
    lookup = _key_lookup(op)
    if lookup is not None and isinstance(lookup[1], Var) and lookup[1].name in found.moving:
        return ExactTest(lookup[1], True, found_by_op=False, looked_up_in=(lookup[0], lookup[2]))
    threshold = threshold_tie(op, found.moving, found.thresholds)
    if threshold is not None:  # x > c at x == c, where np.minimum(x, c) is taken too: the two sides' ties
        value, bound, strict = threshold
        return ExactTest(value, not strict, tie=Tie(bounds=(value, bound)))
    signs = [atom for atom in op.args[:2] if isinstance(atom, Var) and atom.name in found.signs]
    if equal is not None and not moving and signs:  # np.sign(x) == 0 is x == 0; == np.sign(y) parts there
        return ExactTest(signs[0], True, alone=False, found_by_op=False)
    truth = _truth_test(op)
    if truth is not None and moving:
        return ExactTest(moving[0], truth)
    if _reads_truth(op) and isinstance(op.args[0], Var) and op.args[0].name in found.moving:
        return ExactTest(op.args[0], True, found_by_op=False)
    return None


def truth_tested(condition: Atom, found: ExactPoints, with_tangent: bool = False) -> list[ExactTest]:
    """``if v:`` on a moving value ``v``: a test of ``v != 0``. Where ``v`` takes the items of a list
    written out (``filter(None, [a, 0.0, b])``), reverse code (no tangent to tell a constant item) tests
    each moving item instead: the constant 0.0 stays put."""
    if not isinstance(condition, Var) or condition.name not in found.moving:
        return []
    items = found.items_of.get(condition.name)
    if items is None or with_tangent:
        return [ExactTest(condition, True, found_by_op=False)]
    return [ExactTest(item, True, found_by_op=False) for item in items
            if isinstance(item, Var) and item.name in found.moving]


def is_exact_test(op: Operation) -> bool:
    """Whether ``op`` may test a value at a point: ``==``, ``!=``, ``in``, a truth, or an ordering
    (checked with 0 by ``exact_comparison``)."""
    return (_equality(op) is not None or _truth_test(op) is not None or _reads_truth(op) or _key_lookup(op) is not None
            or op.calls(*_KINKED_AT_ZERO) or len(op.args) == 2 and _looked_up(_ORDERINGS_AT_ZERO, op) is not None)


def is_rules_code(function) -> bool:
    return (getattr(function, "__module__", "") or "").startswith("s2sad.rules.")
