"""How two sides of ``==`` that move with the same input are checked for a tie (analysis/exact_points.py).

Sharing an input does not make two values move together: ``np.max(x) == np.min(x)``, two elements a
loop walks, a value carried from the last iteration part as soon as one coordinate moves, and where
they are equal the branch chosen holds at that point alone. One value on both sides, through copies
and names assigned once (``x == x``, a NaN test; ``x == x.copy()``), is never apart. A few forms part
only where two of what made them tie, and are checked there alone: a value and its maximum or minimum
(``x == x.max(axis=1, keepdims=True)``, ``np.max(x, axis=1)[:, None]``, ``np.nanmax``, an argmax's
one-hot mask: two elements of a slice tie for it; ``v == max(xs)`` of an element of ``xs``),
``z == np.maximum(z, w)`` (``z`` and ``w`` tie), ``x == np.clip(x, lo, hi)`` (``x`` at a bound), an array
and itself sorted (two of its elements are equal), two reads of one array by constant indices
(``x[:, None] == x[None, :]``, or their difference with 0: where they read two elements), and two sides
holding elements of one array, each name's every value read from it or copied from such names (two
loops walking ``x``, a running maximum ``m`` set from ``x[0]`` and ``v``: the element a side holds is
another's too). Any other pair is checked wherever it is equal, and so is any pair with a side named by
a variable holding several values otherwise (assigned twice, a loop's carried value, or changed in
place: ``y[0] = ...`` after ``m = np.max(y)``)."""
from __future__ import annotations

import ast
import operator
from dataclasses import dataclass

import numpy as np

from ..frontend.ir import Atom, Const, Function, Loop, Operation, Var, nested, operations_of

# calls whose result is their one argument's value, new memory or not
_SAME_VALUE = (np.copy, np.array, np.asarray, np.asanyarray)
_EXTREMES = (np.max, np.min, np.amax, np.amin, np.nanmax, np.nanmin, max, min)
_EXTREME_METHODS = ("max", "min")
_PAIRWISE_EXTREMES = (np.maximum, np.minimum, np.fmax, np.fmin, max, min)


@dataclass(frozen=True)
class Tie:
    """How a tie of two moving sides is told as the code runs. ``axis``: the code of the axis of a
    maximum (None: all of them) one side is of the other, checked where a slice has two hits;
    ``reads``: (array, index, index), two reads of one array, checked where they read two elements;
    ``rivals``: a value and what an elementwise maximum of the two compared with it chose between;
    ``members``: an array and its maximum, compared with an element of it, checked where two tie for it;
    ``repeated``: an array compared with itself sorted, checked where two of its elements are equal;
    ``bounds``: a value and the bounds a clip of it compared with it had, checked where it is at one;
    ``dropped``: the array whose maximum along ``axis`` dropped that axis (no keepdims), which lines up
    with the array's elements only where the axis is its first: checked wherever equal otherwise."""
    axis: str | None = None
    dropped: Atom | None = None
    reads: tuple[str, Atom, Atom] | None = None
    rivals: tuple[Atom, Atom] | None = None  # ``z == np.maximum(z, w)``: (z, w), checked where they tie
    members: tuple[Atom, Atom] | None = None  # ``v == max(xs)`` of an element v of xs: (xs, max(xs))
    repeated: Atom | None = None  # ``x == np.sort(x)``: x, checked where two of its elements are equal
    bounds: tuple[Atom, ...] | None = None  # ``x == np.clip(x, lo, hi)``: (x, lo, hi), checked where x is at one


def assignments(operations) -> dict[str, int]:
    """How many operations assign each name (more than one: a loop's carried variable)."""
    assigned = {}
    for op in operations:
        assigned[op.target] = assigned.get(op.target, 0) + 1
    return assigned


@dataclass
class Values:
    """What the function's names assigned once, and never changed in place, hold: ``source``, the name a
    copy or alias is of; ``made``, the operation making each."""
    source: dict[str, str]
    made: dict[str, Operation]
    unstable: set[str]  # names assigned more than once or changed in place: one name, several values
    # names whose every value is elements of one array (its stable root), read from it or copied from
    # such names (``m = x[0]``, then ``m = v`` for ``v`` in ``x``): the array, and whether each is one element
    parts: dict[str, tuple[str, bool]]

    def array_of(self, name: str) -> str | None:
        """The array whose elements ``name`` holds (itself, where it holds one value), or None."""
        return self.parts[name][0] if name in self.parts else self.stable_root(name)

    def one_element_of(self, name: str) -> str | None:
        """The array ``name`` is always one element of (walked by a loop, read by an integer), or None."""
        root, single = self.parts.get(name, (None, False))
        return root if single else None

    def stable_root(self, name: str) -> str | None:
        """The root of ``name`` where it and every name it is a copy of hold one value, or None."""
        while name not in self.unstable:
            if name not in self.source:
                return name
            name = self.source[name]
        return None


def values_of(function: Function) -> Values:
    operations = operations_of(function.statements)
    assigned = assignments(operations)
    changed = {op.args[0].name for op in operations if op.kind == "mutate" and op.args and isinstance(op.args[0], Var)}
    once = {op.target: op for op in operations if assigned[op.target] == 1 and op.target not in changed}
    unstable = changed | {name for name, count in assigned.items() if count > 1}
    source = {target: _copied(op) for target, op in once.items() if _copied(op) is not None}
    values = Values(source, once, unstable, {})
    # a dict's values (walked by ``.values()`` or ``.items()``, read from one written out) are no array's
    # elements; a parameter or a loop's counter holds a value no operation gave it
    loops = nested(function.statements, Loop)
    dicts = {op.target for op in operations if op.kind == "dict"}
    dict_values = {op.target for loop in loops if loop.over_items for op in loop.elements} | \
        {op.target for op in operations if op.args and isinstance(op.args[0], Var) and op.args[0].name in dicts}
    unmade = set(function.params) | {loop.counter for loop in loops if loop.counter is not None}
    values.parts = _parts(operations, changed | dict_values | unmade, values)
    return values


def _part_read(op: Operation, values: Values) -> tuple[str, bool] | str | None:
    """What ``op`` makes its target hold: (array, one element) for a read of a stable array's elements
    (``x[0]``, ``x[i:j]``, a loop's walk of ``x``), a name's for a copy of it, or None."""
    if op.kind == "element" and len(op.args) == 1 and isinstance(op.args[0], Var) or \
            op.calls(operator.getitem) and len(op.args) == 2 and not op.kwargs and isinstance(op.args[0], Var):
        root = values.stable_root(op.args[0].name)
        return None if root is None else (root, op.kind == "element" or _integer(op.args[1]))
    return _copied(op)


def _integer(index: Atom) -> bool:
    try:
        return isinstance(index, Const) and type(ast.literal_eval(index.code)) is int
    except (ValueError, SyntaxError):
        return False


def _parts(operations, left_out: set[str], values: Values) -> dict[str, tuple[str, bool]]:
    """The names all of whose assignments read elements of one stable array or copy such names, with
    that array and whether every value is one element: a name that stays in holds elements of it
    whichever assignment ran last (a running maximum's ``m``, carried by a loop, copied back and forth)."""
    reads = {}
    for op in operations:
        reads.setdefault(op.target, []).append(_part_read(op, values))
    kept = {name for name, made in reads.items() if name not in left_out and None not in made}
    arrays = {name: {made for made in reads[name] if isinstance(made, tuple)} for name in kept}
    while True:  # (a copy of a name left out leaves out its target; a copy passes its arrays on)
        left = {name for name in kept if any(isinstance(made, str) and made not in kept for made in reads[name])}
        before = sum(map(len, arrays.values()))
        for name in kept - left:
            for made in reads[name]:
                if isinstance(made, str):
                    arrays[name] |= arrays[made]
        kept -= left
        if not left and sum(map(len, arrays.values())) == before:
            break
    found = {}
    for name in kept:
        roots = {root for root, _ in arrays[name]}
        if len(roots) == 1:
            found[name] = (roots.pop(), all(single for _, single in arrays[name]))
    return found


def _copied(op: Operation) -> str | None:
    """The name ``op`` copies or aliases (``y = x``, ``np.copy(x)``, ``x.copy()``), or None."""
    if op.kind == "copy" and len(op.args) == 1 and isinstance(op.args[0], Var):
        return op.args[0].name
    if op.kind != "call" or op.kwargs or len(op.args) != 1 or not isinstance(op.args[0], Var):
        return None
    if op.calls(*_SAME_VALUE) or op.callee is not None and op.callee.kind == "method" and op.callee.name == "copy" \
            and op.copy_receiver:
        return op.args[0].name
    return None


def _extreme_of(op: Operation | None, values: Values) -> tuple[str, str | None, bool] | None:
    """``np.max(x)``, ``x.max(axis=1, keepdims=True)``: (x, the axis's code, whether the axis is
    dropped); None for other calls and keywords. Dropped, a maximum along an axis lines up with the
    elements it is of where the axis is x's first only; ``np.max(x, axis=1)[:, None]`` and
    ``np.expand_dims(np.max(x, axis=1), 1)`` put it back."""
    if op is None or op.kind != "call" or not op.args or not isinstance(op.args[0], Var):
        return None
    put_back = _axis_put_back(op)
    if put_back is not None:
        of = _extreme_of(values.made.get(op.args[0].name), values)
        return (of[0], of[1], False) if of is not None and of[2] and of[1] == put_back else None
    method = op.callee is not None and op.callee.kind == "method" and op.callee.name in _EXTREME_METHODS
    if not (method or op.calls(*_EXTREMES)) or len(op.args) != 1:
        return None
    keywords = dict(op.kwargs)
    if not set(keywords) <= {"axis", "keepdims"}:
        return None
    axis, keepdims = keywords.get("axis"), keywords.get("keepdims", Const("False"))
    if not isinstance(keepdims, Const) or keepdims.code not in ("True", "False"):
        return None
    if axis is None:
        return (op.args[0].name, None, False) if "keepdims" not in keywords else None
    if not isinstance(axis, Const) or keepdims.code == "False" and not _integer(axis):
        return None
    return op.args[0].name, axis.code, keepdims.code == "False"


def _axis_put_back(op: Operation) -> str | None:
    """The code of the axis ``m[:, None]`` (``m[..., None]``: -1) or ``np.expand_dims(m, 1)`` puts back
    into ``m``, or None."""
    if op.calls(np.expand_dims) and len(op.args) + len(op.kwargs) == 2 and {k for k, _ in op.kwargs} <= {"axis"}:
        axis = op.args[1] if len(op.args) == 2 else op.kwargs[0][1]
        return axis.code if _integer(axis) else None
    if not (op.calls(operator.getitem) and len(op.args) == 2 and isinstance(op.args[1], Const)):
        return None
    try:
        index = ast.parse(op.args[1].code, mode="eval").body
    except SyntaxError:
        return None
    parts = [ast.unparse(part) for part in index.elts] if isinstance(index, ast.Tuple) else []
    if parts == ["Ellipsis", "None"]:
        return "-1"
    whole = "slice(None, None, None)"
    return str(len(parts) - 1) if parts and parts[-1] == "None" and set(parts[:-1]) <= {whole} else None


def tie_of(a: str, b: str, values: Values, elements: dict[str, tuple[str, Atom]]) -> Tie | None:
    """How a tie of the moving values ``a`` and ``b`` (which share an input) is checked; None: they are
    one value, never apart."""
    named = a, b
    a, b = values.stable_root(a), values.stable_root(b)
    if a is None or b is None:  # (a name holding several values: checked wherever equal, but for elements)
        return _tie_of_elements(*named, values) or Tie()
    if a == b:
        return None
    for value, extreme in ((a, b), (b, a)):
        of = _extreme_of(values.made.get(extreme), values)
        if of is not None and values.stable_root(of[0]) == value:
            return Tie(axis=of[1] or "None", dropped=Var(value) if of[2] else None)
        taken = _taken_from(value, values, elements)
        if of is not None and of[1] is None and taken is not None and taken == values.stable_root(of[0]):
            return Tie(members=(Var(of[0]), Var(extreme)))
        if _sorted_of(values.made.get(extreme), value, values):
            return Tie(repeated=Var(value))
        rival = _rival_of(values.made.get(extreme), value, values)
        if rival is not None:
            return Tie(rivals=(Var(value), rival))
        bounds = _bounds_of(values.made.get(extreme), value, values)
        if bounds is not None:
            return Tie(bounds=(Var(value), *bounds))
    reads = _reads_of_one_array(a, b, values, elements)
    if reads == ():
        return None
    return Tie(reads=reads) if reads else _tie_of_elements(*named, values) or Tie()


def _tie_of_elements(a: str, b: str, values: Values) -> Tie | None:
    """Two sides holding elements of one array (or the array itself): equal where they hold one
    element, which moves with itself, or two equal ones. Checked where the one element a side holds
    (``m``, a running maximum) is another's too, or where any two of the array's elements are equal."""
    array = values.array_of(a)
    if array is None or array != values.array_of(b):
        return None
    for one in (a, b):
        if values.one_element_of(one) == array:
            return Tie(members=(Var(array), Var(one)))
    return Tie(repeated=Var(array))


def is_element_of(item: Atom, container: Atom, values: Values) -> bool:
    """Whether ``item`` is always one element of ``container``: ``item in container`` is then True
    wherever ``item`` is a number (False where NaN, which stays NaN), its outcome the same around it."""
    return isinstance(item, Var) and isinstance(container, Var) and values.one_element_of(item.name) is not None \
        and values.one_element_of(item.name) == values.stable_root(container.name)


def _taken_from(value: str, values: Values, elements) -> str | None:
    """The array or list ``value`` is elements of: read by an index, or walked by a loop."""
    op = values.made.get(value)
    if op is not None and op.kind == "element" and len(op.args) == 1 and isinstance(op.args[0], Var):
        return values.stable_root(op.args[0].name)
    return values.stable_root(elements[value][0]) if value in elements else None


def _sorted_of(op: Operation | None, value: str, values: Values) -> bool:
    """Whether ``op`` is ``np.sort(value)`` or ``sorted(value)``: the same elements, whose places change
    only where two of them tie."""
    return (op is not None and op.kind == "call" and not op.kwargs and len(op.args) == 1 and op.calls(np.sort, sorted)
            and isinstance(op.args[0], Var) and values.stable_root(op.args[0].name) == value)


def _rival_of(op: Operation | None, value: str, values: Values) -> Atom | None:
    """In ``np.maximum(value, w)`` (or a minimum, Python's of two), ``w``."""
    if op is None or op.kind != "call" or op.kwargs or len(op.args) != 2 or not op.calls(*_PAIRWISE_EXTREMES):
        return None
    roots = [values.stable_root(atom.name) if isinstance(atom, Var) else None for atom in op.args]
    return op.args[1 - roots.index(value)] if roots.count(value) == 1 else None


def _bounds_of(op: Operation | None, value: str, values: Values) -> tuple[Atom, ...] | None:
    """In ``np.clip(value, lo, hi)`` (either bound by keyword, or None), the bounds given: the clip is
    ``value`` itself away from them (as ``np.maximum(value, lo)`` is away from ``lo``)."""
    if op is None or op.kind != "call" or not op.calls(np.clip) or not op.args or not isinstance(op.args[0], Var) \
            or values.stable_root(op.args[0].name) != value:
        return None
    keywords = dict(op.kwargs)
    names = (("a_min", "min"), ("a_max", "max"))
    given = list(op.args[1:3]) + [None] * (3 - len(op.args))
    for slot, spellings in enumerate(names):
        for spelling in spellings:
            if spelling in keywords:
                given[slot] = keywords.pop(spelling)
    if keywords or len(op.args) > 3:  # (out=, where=, dtype=: not read here)
        return None
    bounds = tuple(b for b in given if b is not None and not (isinstance(b, Const) and b.code == "None"))
    return bounds or None


def reads_of_one_array(a: str, b: str, elements, values: Values | None = None) -> tuple[str, Atom, Atom] | None:
    """(array, index, index) where ``a`` and ``b`` are read from one array by an index each (``elements``:
    a value read, its array and index): one name, or, given ``values``, one array through copies."""
    first, second = elements.get(a), elements.get(b)
    if first is None or second is None:
        return None
    one = first[0] == second[0] if values is None else \
        values.stable_root(first[0]) is not None and values.stable_root(first[0]) == values.stable_root(second[0])
    return (first[0], first[1], second[1]) if one else None


def _reads_of_one_array(a: str, b: str, values: Values, elements) -> tuple | None:
    """(array, index, index) where ``a`` and ``b`` are read from one array by constant indices; ():
    one element read twice (a variable holds one index as it runs); None: neither."""
    reads = reads_of_one_array(a, b, elements, values)
    if reads is None or reads[1] == reads[2]:
        return None if reads is None else ()
    return reads if isinstance(reads[1], Const) and isinstance(reads[2], Const) else None


def difference_tie(name: str, values: Values, elements) -> Tie | None:
    """``d = x[:, None] - x[None, :]`` compared with 0: ``d`` is 0 wherever it reads one element twice,
    whatever ``x`` (a diagonal that stays put), and a tie of two elements elsewhere."""
    root = values.stable_root(name)
    op = None if root is None else values.made.get(root)
    if op is None or op.kwargs or len(op.args) != 2 or not op.calls(operator.sub, np.subtract) \
            or not all(isinstance(atom, Var) for atom in op.args):
        return None
    reads = _reads_of_one_array(values.stable_root(op.args[0].name), values.stable_root(op.args[1].name), values, elements)
    return Tie(reads=reads) if reads else None


def tie_found(found: str, equal: bool, tie: Tie, code) -> str:
    """The code of where ``found`` (``a == b``, or ``a != b`` where not ``equal``) says a tie, for the
    check; ``code`` writes an atom."""
    if tie.reads is not None:
        array, first, second = tie.reads
        positions = f"np.arange(np.size({array})).reshape(np.shape({array}))"
        apart = f"({positions}[{code(first)}] != {positions}[{code(second)}])"
        return f"np.logical_and({found}, {apart})" if equal else f"np.logical_or({found}, np.logical_not({apart}))"
    if tie.repeated is not None:
        tied = f"np.unique({_numbers(code(tie.repeated))}).size < np.size({code(tie.repeated)})"
        return f"np.logical_and({found}, {tied})" if equal else f"np.logical_or({found}, np.logical_not({tied}))"
    if tie.members is not None:  # one element at the maximum moves with it: two tie for it
        tied = f"np.sum(np.equal({_numbers(code(tie.members[0]))}, {code(tie.members[1])})) > 1"
        return f"np.logical_and({found}, {tied})" if equal else f"np.logical_or({found}, np.logical_not({tied}))"
    if tie.bounds is not None:
        at_bounds = [f"np.equal({code(tie.bounds[0])}, {code(bound)})" for bound in tie.bounds[1:]]
        tied = at_bounds[0] if len(at_bounds) == 1 else f"np.logical_or({at_bounds[0]}, {at_bounds[1]})"
        return f"np.logical_and({found}, {tied})" if equal else f"np.logical_or({found}, np.logical_not({tied}))"
    if tie.rivals is not None:
        rivals = f"np.equal({code(tie.rivals[0])}, {code(tie.rivals[1])})"
        return f"np.logical_and({found}, {rivals})" if equal else f"np.logical_or({found}, np.logical_not({rivals}))"
    if tie.axis is not None:  # (counted in floats, which compiled code sums along an axis)
        hits = found if equal else f"np.logical_not({found})"
        counts = f"np.sum({hits})" if tie.axis == "None" else \
            f"np.sum({hits} * 1.0, axis={tie.axis}, keepdims=True)"
        tied = f"np.logical_and({hits}, {counts} > 1)"
        if tie.dropped is not None:  # (lined up with the array's elements where the axis dropped is its first)
            tied = f"np.logical_and({hits}, np.logical_or({counts} > 1, {tie.axis} % np.ndim({code(tie.dropped)}) != 0))"
        return tied if equal else f"np.logical_not({tied})"
    return found


def _numbers(code: str) -> str:
    """An array's or list's elements as a NumPy array: a dict's or another object's fail (``+ 0.0``),
    where ``np.equal``, ``np.unique`` would find them one object, equal to nothing."""
    return f"(np.asarray({code}) + 0.0)"
