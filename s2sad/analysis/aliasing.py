"""Which variables may share memory, and the in-place writes that would silently change one.

After normalisation every variable is assigned once, and the derivative code treats each
version as a value of its own. NumPy does not: ``r = b.reshape(2, 2)``, ``t = b.T``,
``v = b[:, 1:3]``, ``z = y`` all name the memory of ``b`` (or ``y``), so a write through one
name (``r[0, 0] = v``, ``v *= 2``, ``y += 1``) changes what the others hold. A write is
differentiated exactly when no other name for the same memory is read after it; otherwise
it is refused, naming the line. (Reads of another name *before* the write are fine: the
reverse pass puts the written elements back before it reaches them, see ``restore``.)

The groups are worked out from the operations alone, so the normaliser (to refuse) and the
generator (to restore) read the same answer.
"""
from __future__ import annotations

import ast
import copy
import functools
import inspect
import operator
import re
from typing import NamedTuple

import numpy as np

from ..errors import UnsupportedSyntaxError
from ..frontend.ir import Branch, Const, Loop, Operation, Statement, Var, operations_of
from ..rules.helpers import (chained, dict_merged, dict_without, logged, or_merged, owned_copy, repeated,
                             reversed_items, with_attribute, zipped)

# functions and methods whose result may be (a view of) their first argument
VIEWS = {
    "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "squeeze", "expand_dims", "view", "T", "mT",
    "real", "imag", "diagonal", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "atleast_1d",
    "atleast_2d", "atleast_3d", "flip", "fliplr", "flipud", "rot90", "broadcast_to", "as_strided",
    "sliding_window_view", "split", "array_split", "hsplit", "vsplit", "dsplit", "flat", "base",
    "permute_dims", "matrix_transpose", "unstack", "trim_zeros", "asarray_chkfinite", "require", "asmatrix",
    "get", "values", "items",  # a dict's: the objects it holds
}
# functions whose result may be (a view of) any of their array arguments: `np.einsum("i->i", x)` is x's view
VIEWS_OF_ANY = {"einsum", "broadcast_arrays", "meshgrid"}
# methods that hand back their very receiver for real data: `x.conj()` of a float array is `x` (np.conj's ufunc
# makes a new array)
METHOD_VIEWS = {"conj", "conjugate", "getfield"}
# functions whose result is their first argument itself when it needs no change: `np.real_if_close(x)` of a
# real array; with a copy argument given (`np.nan_to_num(x, copy=False)`, `np.array(x, copy=None)`), these too
SAME_WHEN_UNCHANGED = {"real_if_close"}
COPY_ARGUMENT = {"array": None, "astype": 5, "nan_to_num": 1}  # -> copy's position among the arguments (a method's
                                                                # receiver first; None: keyword only)


# ndarray methods whose result is a new array (the views among them are listed in VIEWS):
# any other method is the user's, and may return an array its object holds
_NEW_ARRAY_METHODS = {name for name in dir(np.ndarray) if not name.startswith("_")} | {"append", "pop", "copy", "get"}

# attributes that are new values, not the object's own arrays or views of them
VALUES = {"shape", "ndim", "size", "dtype", "nbytes", "itemsize", "strides"}


def may_share(op: Operation, numpy_methods_new: bool = True) -> list[str]:
    """The variables whose memory ``op``'s target may share. ``numpy_methods_new``: take a method
    of an ndarray method's name (``h.copy()``, ``h.sum()``) for NumPy's, whose result is new memory;
    else for one that may hand back what its receiver holds (a dict's shallow ``.copy()``, a user
    class's ``.copy()`` returning ``self.w``)."""
    if op.kind in ("copy", "unpack", "element", "list", "tuple", "dict"):
        return op.uses()
    if op.kind == "mutate":
        if op.callee.name == "insert":
            return [atom.name for atom in op.args[::2] if isinstance(atom, Var)]  # the list, and the item (not the index)
        return op.uses() if op.callee.name in ("append", "extend", "pop") else []  # a list holds what it is given
    if op.kind != "call" or op.callee is None:
        return []
    callee = op.callee
    if callee.kind == "attribute" and callee.name not in VALUES:
        return op.uses()[:1]  # `p.W` is the array the object holds; `x.T`, `z.real` are views
    if callee.kind == "method" and (callee.name not in _NEW_ARRAY_METHODS or not numpy_methods_new):
        return op.uses()  # a method of the user's own class (`box.inner()`) may hand back what its object holds
    if callee.kind in ("method", "attribute"):
        shared = callee.name in VIEWS or callee.name in METHOD_VIEWS or _copy_given(callee.name, op)
        return op.uses()[:1] if shared and op.args and isinstance(op.args[0], Var) else []
    value = callee.value
    if value is with_attribute:
        return op.uses()  # the new object holds the old one's arrays, and the value
    name = getattr(value, "__name__", "")
    if name in VIEWS_OF_ANY and from_a_library(value):
        return [] if _einsum_of_several(op) else op.uses()
    if value is operator.getitem or name in VIEWS or name in SAME_WHEN_UNCHANGED or _copy_given(name, op):
        return op.uses()[:1] if op.args and isinstance(op.args[0], Var) else []
    if inspect.isfunction(getattr(value, "__s2sad_original__", value)) and not from_a_library(value):
        return op.uses()  # the user's own function may hand back what it was given
    return []


# einsum's keywords that leave its result new memory (`out=` makes it the array given)
_EINSUM_NEW_KEYWORDS = {"optimize", "dtype", "order", "casting"}


def _einsum_of_several(op: Operation) -> bool:
    """Whether ``op`` is ``np.einsum`` of a literal subscript string over two or more operands,
    without ``out=``: a product NumPy computes into a new array. Of one operand it may hand back
    a view (``'ij->ji'``, ``'ii->i'``, even ``'ij->ij'``: NumPy 2 returns the operand's view), and
    so may an explicit path (``optimize=[...]``) that leaves an operand untouched."""
    if op.callee.value is not np.einsum or not op.args or not isinstance(op.args[0], Const):
        return False
    try:
        subscripts = ast.literal_eval(op.args[0].code)
    except (ValueError, SyntaxError):
        return False
    if not isinstance(subscripts, str):
        return False
    operands = subscripts.split("->")[0].count(",") + 1
    chosen_path = [atom for key, atom in op.kwargs if key == "optimize"
                   and not (isinstance(atom, Const) and atom.code in ("True", "False", "'greedy'", "'optimal'"))]
    return operands >= 2 and len(op.args) == operands + 1 and not chosen_path \
        and all(key in _EINSUM_NEW_KEYWORDS for key, _ in op.kwargs)


def _copy_given(name: str, op: Operation) -> bool:
    """Whether a function or method taking ``copy=`` is given one (by keyword or position), which
    may make its result the very array it was given."""
    position = COPY_ARGUMENT.get(name, False)
    return position is not False and (any(k == "copy" for k, _ in op.kwargs)
                                      or position is not None and len(op.args) > position)


def from_a_library(value) -> bool:
    module = getattr(value, "__module__", "") or ""
    return module.split(".")[0] in ("numpy", "scipy", "math", "s2sad", "rules", "operator", "builtins")


class Groups:
    """Which variables may share memory (a union of every link ``may_share`` finds).

    A container is not a view: ``p = (y, s)`` holds ``y`` and ``s`` without making them one
    memory. So a tuple, list or dict *holds* its items instead of being linked to them, and
    ``of`` follows that relation one way: a write through ``y`` is seen by ``p`` (it holds
    ``y``), but not by ``s``; a write through something that may be any item of ``p`` (an
    element taken from it is linked to ``p``) may change every item. A shallow copy (``list(a)``)
    holds what it copies, unless ``copies_hold`` is False (``_ListLinks`` links them instead)."""

    def __init__(self, statements, extra_links=(), operations=None, keyed_by_literals=None, copies_hold=True,
                 numpy_methods_new=True):
        self.parent: dict[str, str] = {}
        self.holds: dict[str, set[str]] = {}    # container -> the variables it holds
        self.held_by: dict[str, set[str]] = {}  # variable -> the containers holding it
        operations = operations_of(statements) if operations is None else operations
        displays = {op.target: op for op in operations if op.kind == "tuple"}
        made_by: dict[str, Operation] = {}
        for op in operations:
            made_by.setdefault(op.target, op)
        if keyed_by_literals is None:
            keyed_by_literals = _keyed_by_literals(operations, made_by, statements)
        for op in operations:
            item = _unpacked_item(op, displays)
            if item is not None:
                self.link(op.target, item)  # `a, b = b, a`: each name is the item it took, not the others
                continue
            if op.kind == "element" and isinstance(op.args[0], Var) \
                    and id(_origin(op.args[0].name, made_by)) in keyed_by_literals \
                    and id(op) not in keyed_by_literals.values_walked:
                continue  # `for k in params`: a key written as a literal shares no memory with anything
            if op.kind in _CONTAINERS:
                for name in op.uses():
                    self.hold(op.target, name)
            elif op.kind == "mutate" and op.callee.name == "setitem" and isinstance(op.args[0], Var):
                kind = _origin(op.args[0].name, made_by).kind
                if kind in ("list", "dict"):
                    # `xs[i] = v` puts v itself in the list (an index is no object it holds); a
                    # dict holds its key too, unless the key is a literal (`for k in params: params[k] = ...`)
                    key = [] if kind == "list" or _is_literal_key(op.args[1], made_by, keyed_by_literals) \
                        else op.args[1:2]
                    for name in [atom.name for atom in [*key, *op.args[2:]] if isinstance(atom, Var)]:
                        self.hold(op.args[0].name, name)
            elif op.kind == "mutate" and op.callee.name in ("append", "extend", "insert") and isinstance(op.args[0], Var):
                self.link(op.target, op.args[0].name)  # the list itself, changed
                for atom in op.args[-1:]:  # what it is given (`insert`'s index is no object it holds)
                    if isinstance(atom, Var):
                        self.hold(op.target, atom.name)
            elif copies_hold and (_hands_back_items(op) or _joins_sequences(op, made_by)):
                # `b = list(a)`, `sorted(a)`, `a + b`, `max(a, key=...)`: a new list holding (or one of) the
                # very objects `a` holds (an array's rows, views of it): held as `a` itself, whose
                # items a write through one of b's reaches, and whose readers see
                for name in op.uses():
                    self.hold(op.target, name)
            elif _a_copy_by_advanced_index(op, operations):
                continue  # `y[[0, 2]]`, `y[y > 0]`: NumPy's copy, sharing nothing with `y`
            else:
                for name in may_share(op, numpy_methods_new):
                    self.link(op.target, name)
        self.extra_links = list(extra_links)
        for a, b in extra_links:
            self.link(a, b)
        self.gather_members()

    def gather_members(self) -> None:
        self.members: dict[str, set[str]] = {}
        for name in list(self.parent):
            self.members.setdefault(self.root(name), set()).add(name)

    def root(self, name: str) -> str:
        while self.parent.get(name, name) != name:
            name = self.parent[name]
        return name

    def link(self, a: str, b: str) -> None:
        self.parent.setdefault(a, a)
        self.parent.setdefault(b, b)
        ra, rb = self.root(a), self.root(b)
        if ra != rb:
            self.parent[ra] = rb

    def hold(self, container: str, item: str) -> None:
        self.parent.setdefault(container, container)
        self.parent.setdefault(item, item)
        self.holds.setdefault(container, set()).add(item)
        self.held_by.setdefault(item, set()).add(container)

    def _same(self, name: str) -> set[str]:
        return self.members.get(self.root(name), {name}) if name in self.parent else {name}

    def of(self, name: str, down=True) -> set[str]:
        """Every variable that may see a write through ``name``, itself included: the same
        memory, the containers holding it, and (from ``name``'s own memory down, unless the
        write changes a container itself, not what it holds) what the containers it may be hold."""
        seen: set[str] = set()
        visited: set[tuple[str, bool]] = set()
        frontier = [(name, down)]
        while frontier:
            current, down = frontier.pop()
            if (current, down) in visited:
                continue
            visited.add((current, down))
            for member in self._same(current):
                seen.add(member)
                frontier += [(container, False) for container in self.held_by.get(member, ())]
                if down:
                    frontier += [(item, True) for item in self.holds.get(member, ())]
        return seen


_COMPARISONS = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne)


def _a_copy_by_advanced_index(op: Operation, operations) -> bool:
    """Whether ``op`` is ``y[index]`` that NumPy answers with a copy of its own (an advanced index):
    ``y`` an array NumPy made (``_numpy_made``), ``index`` (or an item of the tuple it is:
    ``y[:, [0, 2]]``) a list written out (``y[[0, 2]]``, ``i = [0, 2]; y[i]``) or a comparison of
    such arrays and numbers (``y[y > 0]``: booleans, an array's or one). Each name assigned once,
    so no other path gives it a slice (a view). A list's, a tuple's, a dict's or a user object's
    ``[]`` may give back an item it holds (``xs[True]`` is ``xs[1]``): not taken for a copy."""
    if not op.calls(operator.getitem) or len(op.args) != 2 or not isinstance(op.args[0], Var) \
            or not _numpy_made(op.args[0], operations) or not isinstance(op.args[1], Var):
        return False
    index = op.args[1].name
    tuple_made = _made_once_by(index, operations, lambda origin: origin.kind == "tuple")
    parts = tuple_made.args if tuple_made is not None else [op.args[1]]

    def a_test(origin: Operation) -> bool:
        return origin.calls(*_COMPARISONS) and all(_numpy_made(atom, operations) for atom in origin.args)

    return any(isinstance(part, Var) and (_made_once_by(part.name, operations, lambda origin: origin.kind == "list")
                                          or _made_once_by(part.name, operations, a_test)) for part in parts)


_ARITHMETIC = (operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.neg, operator.matmul)


def _numpy_made(atom, operations, depth=0) -> bool:
    """Whether ``atom`` is a number written out, or an array (or NumPy scalar) made by a NumPy function
    that makes new memory (``np.sin(x)``, ``np.outer(x, x)``), or by arithmetic on at least one such
    array and otherwise numbers (``np.sin(x) * 2.0``). Arithmetic on an argument may be a list's or
    a tuple's (``t * 2``), whose ``[]`` gives back an item it holds."""
    if isinstance(atom, Const):
        return True
    if depth > 8:
        return False

    def made(origin: Operation) -> bool:
        value = origin.callee.value if origin.kind == "call" and origin.callee is not None else None
        if origin.calls(*_ARITHMETIC):
            return all(_numpy_made(a, operations, depth + 1) for a in origin.args) \
                and any(isinstance(a, Var) for a in origin.args)
        return value is not None and _a_new_array(origin) and not origin.calls(*_COMPARISONS) \
            and (getattr(value, "__module__", "") or "").split(".")[0] == "numpy"

    return _made_once_by(atom.name, operations, made) is not None


def _made_once_by(name: str, operations, test) -> Operation | None:
    """The one operation assigning ``name`` (through copies ``a = b``), if ``test`` accepts it; None
    when there is another (a variable merged from two branches, or carried by a loop, may hold
    either value) or ``test`` does not."""
    seen = set()
    while name not in seen:
        seen.add(name)
        definitions = [op for op in operations if op.target == name and op.kind != "mutate"]
        if len(definitions) != 1:
            return None
        op = definitions[0]
        if op.kind != "copy" or not isinstance(op.args[0], Var):
            return op if test(op) else None
        name = op.args[0].name
    return None


class LiteralKeys(set):
    """``id``s of dict displays keyed by literals (``_keyed_by_literals``), and in ``values_walked``
    those of the loop elements that are a dict's values, not its keys (``for k, v in d.items()``)."""

    def __init__(self, ids, values_walked):
        super().__init__(ids)
        self.values_walked = values_walked


def _values_walked(block) -> set[int]:
    found = set()
    for item in block:
        if isinstance(item, Loop):
            if item.over_items:
                found |= {id(op) for op in item.elements}
            found |= _values_walked(item.body)
        elif isinstance(item, Branch):
            found |= _values_walked(item.then) | _values_walked(item.orelse)
    return found


def _keyed_by_literals(operations, made_by, statements) -> LiteralKeys:
    """``id``s of the dict displays made here whose keys are all literals (``{"w": W, "b": b}``,
    ``d["s"] = v``, or ``d[k] = v`` with ``k`` a key of such a dict): iterating over one gives
    strings and numbers, never an object holding memory (its ``.items()`` and ``.values()`` give
    its values, which ``values_walked`` lists: ``statements`` are the function's)."""
    literal = {id(op) for op in operations if op.kind == "dict"}
    changed = True
    while changed:  # a dict given a key of another dict is literal while that one is
        changed = False
        for op in operations:
            if op.kind == "mutate" and op.callee.name == "setitem" and isinstance(op.args[0], Var):
                origin = id(_origin(op.args[0].name, made_by))
                if origin in literal and not _is_literal_key(op.args[1], made_by, literal):
                    literal.discard(origin)
                    changed = True
    return LiteralKeys(literal, _values_walked(statements))


def _spelled(name: str, made_by) -> str:
    """The element ``params[k] -= v`` reads and writes, as the user wrote it: ``params[k]``."""
    op = made_by.get(name)
    if op is not None and op.calls(operator.getitem) and len(op.args) == 2 and isinstance(op.args[0], Var):
        index = op.args[1]
        return f"{_spelled(op.args[0].name, made_by)}[{user_name(index.name) if isinstance(index, Var) else index.code}]"
    return user_name(name)


def _is_literal_key(key, made_by, keyed_by_literals: set[int]) -> bool:
    """A literal, or a key taken by iterating over a dict keyed by literals."""
    if isinstance(key, Const):
        return True
    origin = _origin(key.name, made_by)
    return origin.kind == "element" and isinstance(origin.args[0], Var) \
        and id(_origin(origin.args[0].name, made_by)) in keyed_by_literals


def _unpacked_item(op: Operation, displays: dict) -> str | None:
    """The variable ``op`` unpacks from a tuple written out in this function (``a, b = b, a`` makes
    the display ``(b, a)`` and unpacks it). A tuple never changes, so its items are the ones written."""
    if op.kind != "unpack" or not op.args or not isinstance(op.args[0], Var):
        return None
    display = displays.get(op.args[0].name)
    if display is None or op.index is None or not 0 <= op.index < len(display.args) \
            or len(display.args) != op.length:
        return None
    item = display.args[op.index]
    return item.name if isinstance(item, Var) else None


# operations that make a container of their operands (which ``Groups`` holds apart)
_CONTAINERS = ("list", "tuple", "dict")


def program_order(statements):
    """Each operation's position in the code (``order``), the loops around it (``loops``),
    and the statement it belongs to (``statement``), by ``id`` of the operation."""
    order, loops, statement = {}, {}, {}

    def place(op, enclosing, where):
        order[id(op)], loops[id(op)], statement[id(op)] = len(order), enclosing, where

    def walk(block, enclosing, where):
        for item in block:
            if isinstance(item, Loop):
                inner = enclosing + (id(item),)
                for op in item.setup:
                    place(op, enclosing, item)
                for op in [*operations_of(item.test), *item.elements]:
                    place(op, inner, item)
                walk(item.body, inner, item)
                for op in item.back_edges:
                    place(op, inner, item)
            elif isinstance(item, Branch):
                walk(item.then, enclosing, item)
                walk(item.orelse, enclosing, item)
            elif isinstance(item, Statement):
                for op in item.operations:
                    place(op, enclosing, item)
            else:  # a jump's copies
                for op in getattr(item, "edges", []):
                    place(op, enclosing, item)

    walk(statements, (), None)
    return order, loops, statement


def user_name(version: str) -> str:
    return re.sub(r"_\d+$", "", version)


def check_writes(function, in_place: dict, source, updated_attributes=None) -> dict[int, tuple[str, str]]:
    """Refuse each in-place write after which another name for the written memory is read.

    ``in_place`` maps ``id`` of an operation that changes memory without a ``mutate`` of its
    own (``y += v``, normalised as ``y_2 = written_into(y + v, y)``) to the version it
    changes. Whether ``y += v`` changes memory depends on ``y``'s type (an array's does, a
    float's does not), so those are not refused here: their ids are returned, with the two
    names involved, for a check when the code runs.

    ``updated_attributes`` maps ``id`` of such a write made for ``p.w += v`` to ``p``: the
    versions of ``p`` are exempt, as the new one is given the changed array (``with_attribute``)
    and the old ones are never read again (other names for the object are checked as usual)."""
    guarded = {}
    operations = operations_of(function.statements)
    made_by = {}
    for op in operations:
        made_by.setdefault(op.target, op)
    keyed = _keyed_by_literals(operations, made_by, function.statements)
    links = [(op.target, in_place[id(op)]) for op in operations if id(op) in in_place]
    groups = Groups(function.statements, links, keyed_by_literals=keyed)
    # the looser grouping differs only through methods of an ndarray method's name (see may_share)
    loose_groups = Groups(function.statements, links, keyed_by_literals=keyed, numpy_methods_new=False) \
        if any(_named_like_numpys(op) for op in operations) else None
    reads = Reads(function)
    for write in operations:
        if write.calls(dict_without) and isinstance(write.args[0], Var):
            _check_deleted_key(write, operations, made_by, reads, source, keyed)
            continue
        outers = put_back(write, operations, made_by, reads)
        if write.kind == "mutate" and write.callee.name in LIST_WRITES and isinstance(write.args[0], Var) \
                and (write.callee.name != "setitem" or _origin(write.args[0].name, made_by).kind in ("list", "dict")
                     or any(_a_sequence_of_objects(_origin(outer, made_by), made_by) for outer in outers)):
            _check_list_write(write, operations, made_by, reads, source, keyed, outers)
            continue
        if write.kind == "mutate" and write.callee.name == "setitem":
            container = write.args[0].name
        elif id(write) in in_place:
            container = in_place[id(write)]
        else:
            continue
        if _origin(container, made_by).kind in ("list", "dict"):
            seeing = _seeing_the_list(container, write, operations, made_by, reads, keyed)  # `xs += ys` extends xs
        else:
            shared, loose, scope = groups, loose_groups, operations
            made = reads.made_this_iteration(container, write, operations)
            if made is not None:
                # new memory each iteration: only what this iteration linked to it before the write
                # can hold it (what the end of the iteration links to it holds the written array)
                scope = [op for op in operations if made <= reads.order[id(op)] < reads.order[id(write)]]
                links = [(op.target, in_place[id(op)]) for op in scope if id(op) in in_place]
                shared = Groups(function.statements, links, operations=scope, keyed_by_literals=keyed)
                if loose is not None:
                    loose = Groups(function.statements, links, operations=scope, keyed_by_literals=keyed,
                                   numpy_methods_new=False)
            # `b[i] = v` on a list made by a call (`b = list(a)`) changes that list, not what it holds
            down = not (write.kind == "mutate" and _a_list_or_dict(_origin(container, made_by)))
            seeing = shared.of(container, down=down)
            copied = _copied_by_its_method(_origin(container, made_by))
            if copied is not None and write.kind == "mutate":
                # `ps = params.copy(); ps["W"] = v`: a slot of a new array, list or dict changes, nothing the
                # receiver holds, as long as `.copy()` is NumPy's, a list's or a dict's (checked as it runs)
                copied.copy_receiver = True
            elif loose is not None:
                _check_receivers(loose.of(container, down=down), seeing, container, write, reads, scope)
        recorded = _recorded(seeing | {container}, reads)
        if recorded is not None:
            if id(write) in in_place:  # `loss += 1.0` after `LOG.append(loss)` rebinds a float: checked when it runs
                guarded[id(write)] = (user_name(container), recorded)
                continue
            _refuse_recorded(user_name(container), recorded, _where(write, reads, source))
        owner = put_back_into = (updated_attributes or {}).get(id(write))
        spelled = _spelled(container, made_by) if owner is not None else user_name(container)  # `params[k] -= v`
        if owner is not None and not _puts_back_its_only_slot(container, write, operations, made_by, reads, keyed):
            owner = None  # `rows = [a, a]; rows[0] += v`: the other slot holds the changed array too
        # the container the element goes back into named last: another holder read after (`t = (a, 1)`
        # for `c = a | b; c["u"] += v`) says why better
        for other in sorted(seeing - {container, write.target} - set(outers),
                            key=lambda name: (user_name(name) == put_back_into, name)):
            if owner is not None and user_name(other) == owner:
                continue
            if reads.after(other, write):
                if id(write) in in_place:
                    # `params[k] -= v` writes through the element it read: named as written
                    guarded[id(write)] = (spelled, user_name(other))
                    break
                if not outers and _replaces_a_slot_only(container, write, operations, made_by, reads, keyed, groups):
                    # `params[i] = (W - lr * gW, b)` after `W, b = params[i]`: checked as it runs
                    guarded[id(write)] = SlotOfAList(reads.statement[id(write)], *_unowned(container, other))
                    break
                _refuse(_spelled(container, made_by) if outers else user_name(container), user_name(other),
                        _where(write, reads, source), _by_layout(_origin(container, made_by)))
    return guarded


class SlotOfAList(NamedTuple):
    """A write ``y[i] = v`` into what may be an array or a list (an argument, ``list(a)``), let
    through as giving a list's or dict's slot a new object: only objects taken out of ``y`` are
    read after it, which such a write leaves as they were. ``a_slot_replaced`` (runtime/structure.py),
    put before it in ``statement``, refuses any other ``y`` as the code runs."""
    statement: Statement
    spelled: str
    seen: str


def _replaces_a_slot_only(container: str, write, operations, made_by, reads, keyed_by_literals, groups) -> bool:
    """Whether ``write`` (``y[i] = v``) changes nothing read after it when ``y`` is a list or a dict:
    ``y`` is an argument (the function's own copy of it) or a new list or dict made from one
    (``list(a)``, ``a.copy()``), and no other name for the object ``y``, no container holding it, nothing taken
    out of such a container is read after (what was taken out of ``y`` itself is then another
    object). Both groupings must agree: the one for lists and the one for arrays, without the
    links of the items taken out of ``y``."""
    if write.kind != "mutate" or write.callee.name != "setitem" or reads.statement.get(id(write)) is None:
        return False
    same = _names_of_an_object_of_its_own(container, made_by)
    if not same:
        return False
    seeing = _seeing_the_list(container, write, operations, made_by, reads, keyed_by_literals, lists=same)
    kept = [op for op in operations if not (_ListLinks._takes_an_item(op, made_by, same) and op.args[0].name in same)]
    seeing |= Groups([], groups.extra_links, operations=kept, keyed_by_literals=keyed_by_literals).of(container, down=False)
    return not any(reads.after(other, write) for other in seeing - {container, write.target})


def _names_of_an_object_of_its_own(container: str, made_by) -> set[str]:
    """The names of ``container``'s list or dict when it is an object of its own: an argument (the
    function's own copy of it) or a new list or dict made from one (``list(a)``, ``dict(d)``,
    ``a.copy()``), whose items may be held elsewhere but whose object is not; empty otherwise."""
    origin = _origin(container, made_by)
    # (`.copy()` is checked as it runs to be a list's, a dict's or NumPy's: `copy_receiver`)
    if not (origin.kind == "parameter" or origin.calls(owned_copy) or _copied_by_its_method(origin) is not None
            or origin.calls(list, dict) and len(origin.args) == 1 and not origin.kwargs):
        return set()
    return {name for name in [container, *made_by] if _origin(name, made_by).target == origin.target}


# changes of a list or dict object itself (the arrays it holds are not written)
LIST_WRITES = ("setitem", "append", "extend", "pop", "insert")


def _check_receivers(loosely_seeing: set, seeing: set, container: str, write, reads, scope) -> None:
    """Mark for a check as the code runs (``Operation.numpy_receiver``) each method call of an
    ndarray method's name through which a name read after ``write`` may see the written memory:
    the analysis took its result for new memory, which it is only when the receiver is NumPy's
    (``h.copy()`` of a user class returning ``self.w``, or a dict's shallow ``.copy()``, is not)."""
    if not any(reads.after(other, write) for other in loosely_seeing - seeing - {container, write.target}):
        return
    for op in scope:
        if _named_like_numpys(op) and op.args and isinstance(op.args[0], Var) \
                and (op.target in loosely_seeing or op.args[0].name in loosely_seeing):
            op.numpy_receiver = True


def _copied_by_its_method(origin: Operation) -> Operation | None:
    """``origin`` when it is ``c.copy()`` with no arguments (NumPy's new array, a list's or a dict's
    shallow copy, or whatever a user class's ``.copy()`` returns); None otherwise."""
    named = origin.kind == "call" and origin.callee is not None and origin.callee.kind == "method" \
        and origin.callee.name == "copy" and len(origin.args) == 1 and not origin.kwargs
    return origin if named and isinstance(origin.args[0], Var) else None


def _named_like_numpys(op: Operation) -> bool:
    """A method call of an ndarray method's name (``h.copy()``), whose result ``may_share`` takes
    for new memory as NumPy's would be."""
    return op.kind == "call" and op.callee is not None and op.callee.kind == "method" \
        and op.callee.name in _NEW_ARRAY_METHODS


def put_back(write, operations, made_by, reads) -> list[str]:
    """The containers ``y`` (``y``, ``y[i]``, ... for ``y[i][j][k] = v``) when ``write`` changes an
    element taken out of them that is put back right after (``t = y[i]; t[j] = v; y[i] = t``:
    ``y[i][j] = v`` or ``y[i].append(v)`` as normalize_mutation.py writes them): they are then no
    other names reading the change, as each put-back tells the derivative code it changed.
    Empty otherwise, or when a container is read between the change and its put-back. The
    outermost last."""
    outers = []
    while True:
        found = _put_back_once(write, operations, made_by, reads)
        if found is None:
            return outers
        outer, write = found
        outers.append(outer)


def _put_back_once(write, operations, made_by, reads):
    """(the container, its put-back) for one level of ``put_back``, or None."""
    if write.kind != "mutate" or not write.args or not isinstance(write.args[0], Var):
        return None
    taken = write.args[0].name
    origin = made_by.get(taken)
    if origin is None or not origin.calls(operator.getitem) or len(origin.args) != 2 or not isinstance(origin.args[0], Var):
        return None
    outer, key = origin.args[0].name, origin.args[1]
    here = reads.order[id(write)]
    for op in sorted((op for op in operations if reads.order[id(op)] > here), key=lambda op: reads.order[id(op)]):
        if op.kind == "mutate" and op.callee.name == "setitem" and isinstance(op.args[0], Var) \
                and op.args[0].name == outer and _same_atom(op.args[1], key, made_by) and isinstance(op.args[2], Var) \
                and op.args[2].name == taken and reads.loops[id(op)] == reads.loops[id(write)]:
            return outer, op
        if outer in op.uses() and not _only_checks(op):
            return None
    return None


def _only_checks(op: Operation) -> bool:
    """A call that reads its arguments only, to check them (generated code's ``plain_operands('[]=', y)``
    before a put-back ``y[i] = t``, met when that code is differentiated again)."""
    return op.kind in ("call", "effect") and op.callee is not None \
        and getattr(op.callee.value, "reads_its_arguments_only", False)


def _same_atom(a, b, made_by) -> bool:
    """The same index: one variable, equal literals, or the same call of literals made twice
    (``slice(1, None, None)`` in forward code read again)."""
    if isinstance(a, Var) and isinstance(b, Var):
        if a.name == b.name:
            return True
        first, second = made_by.get(a.name), made_by.get(b.name)
        return first is not None and second is not None and first.kind == second.kind == "call" \
            and first.callee is not None and second.callee is not None and first.callee.value is second.callee.value \
            and not first.kwargs and not second.kwargs and len(first.args) == len(second.args) \
            and all(isinstance(x, Const) and isinstance(y, Const) and x.code == y.code
                    for x, y in zip(first.args, second.args))
    return isinstance(a, Const) and isinstance(b, Const) and a.code == b.code


def _check_list_write(write, operations, made_by, reads, source, keyed_by_literals, outers=()) -> None:
    """Refuse ``xs.append(v)`` (``extend``, ``pop``, ``xs[i] = v`` on a list or dict) when a name
    that sees the same list object is read after it: another name for it (``b = xs``), a
    container holding it (``t = (xs, 1)``, ``outer.append(xs)``), or an item taken out of such
    a container (``first = outer[0]``). The derivative code holds each of those as the value it
    had when the link was made, while Python's list has changed under it.

    Only links that can come before the write count: a holder made after it holds the list as
    written (``return outs, h`` after a loop of ``outs.append``), unless a loop around both
    runs the write again on the same list."""
    container = write.args[0].name
    origin = _origin(container, made_by)
    where = _where(write, reads, source)
    spelled = _spelled(container, made_by) if outers else _unowned(container)[0]  # `history["loss"]` taken out
    foreign = not _made_here(origin) and not (outers and _holds_only_its_own(
        outers[-1], len(outers), write, operations, made_by, reads, keyed_by_literals))
    if foreign and not outers:
        _refuse_foreign(spelled, write, where)
    if write.callee.name == "pop" and _may_be_a_dict(container, outers, write, operations, made_by, reads,
                                                      keyed_by_literals):
        raise UnsupportedSyntaxError(
            f"`{spelled}.pop(...)` (or `del {spelled}[key]`) takes a key out of a dict in place, which s2sad "
            f"differentiates only on a dict the function made itself, by its own name, outside a nested function "
            f"(the derivative code would have to put the key back where it was)", where,
            f"make a new dict without the key: `{spelled} = {{k: v for k, v in {spelled}.items() if k != key}}`")
    # `b = list(a)` then `b.append(v)`: `a` holds the same items, not the same list (nor does what
    # is taken out of `b`, an item); for another object, every link counts
    own = _names_of_an_object_of_its_own(container, made_by) if not outers else set()
    seeing = _seeing_the_list(container, write, operations, made_by, reads, keyed_by_literals, lists=own)
    recorded = _recorded(seeing | {container}, reads)
    if recorded is not None:
        _refuse_recorded(spelled, recorded, where)
    for other in sorted(seeing - {container, write.target} - set(outers)):
        if reads.after(other, write):
            written, seen = spelled, f"`{_unowned(other)[0]}`"
            if seen == f"`{written}`":  # the name's value as the function was given it: the caller's object
                seen = f"the caller's {seen}"
            raise UnsupportedSyntaxError(
                f"`{written}.{write.callee.name}(...)`{f' (or `del {written}[...]`)' if write.callee.name == 'pop' else ''} "
                f"changes the {_kind_of(container, made_by)} "
                f"`{written}` in place, and {seen} sees the same object and is read after the change: s2sad "
                f"would differentiate it as if {seen} were unchanged"
                if write.callee.name != "setitem" else
                f"`{written}[...] = ...` changes `{written}` in place, and {seen} sees the same object and is read "
                f"after the change: s2sad would differentiate it as if {seen} were unchanged", where,
                f"build the list under one name and put it in other containers once it is complete, "
                f"or make a new one: `{written} = {written} + [...]`, `{written} = list({written})`")
    if foreign and outers:
        _refuse_merged_source_read(spelled, outers[-1], write, operations, made_by, reads, keyed_by_literals, where)
    if foreign:  # (after the names read later, which say more)
        _refuse_foreign(spelled, write, where)


def _refuse_merged_source_read(spelled: str, outer: str, write, operations, made_by, reads, keyed_by_literals, where):
    """Refuse, saying so, ``h = a | {...}`` (or ``{**a, ...}``) then ``h["w"][0] = v`` with ``a`` read
    after, or ``a`` given to the function: ``h`` is a new dict, but ``h["w"]`` is the very object
    ``a["w"]`` is, so the write changes what ``a`` holds too."""
    origin = _origin(outer, made_by)
    if not origin.calls(dict_merged, or_merged):
        return
    here = reads.order[id(write)]
    linked = _ListLinks([op for op in operations if reads.order[id(op)] < here], made_by, keyed_by_literals)
    merged = user_name(outer)
    for source in sorted(linked._items_of(outer)):
        made = _origin(source, made_by)
        given = not (_made_here(made) or _a_new_array(made) or made.kind == "tuple")
        if not (given or _is_a_dict(made) and reads.after(source, write)):
            continue
        read = user_name(source)
        what = (f"which the function did not make (an argument, or what a call gave), so the change may reach "
                f"the caller's data, which s2sad does not follow" if given else
                f"so `{read}` holds the changed object too and is read after the change: s2sad would differentiate "
                f"it as if `{read}` were unchanged")
        raise UnsupportedSyntaxError(
            f"this changes `{spelled}` in place, and `{merged}` was merged from `{read}` (`{read} | {{...}}` and "
            f"`{{**{read}, ...}}` make a new dict holding `{read}`'s very objects), {what}", where,
            f"copy the object before changing it (`{spelled} = {spelled}.copy()`), or make a new value "
            f"(`{spelled} = {spelled} + ...`)")


def _check_deleted_key(write, operations, made_by, reads, source, keyed_by_literals) -> None:
    """Refuse ``del d[key]`` (``d = dict_without(d, key)``, a new dict) where another name for the
    dict, a container holding it, or an item taken out of one, is read after: Python took the
    key out of that very object, which the new dict leaves as it was."""
    old = write.args[0].name
    seeing = _seeing_the_list(old, write, operations, made_by, reads, keyed_by_literals)
    recorded = _recorded(seeing | {old}, reads)
    if recorded is not None:
        _refuse_recorded(user_name(old), recorded, _where(write, reads, source))
    # (the old version itself is not read after: the name is bound to the new dict, and forward
    # code differentiated again reads it only as the argument of dict_without's own rule)
    for other in sorted(seeing - {old, write.target}):
        if reads.after(other, write):
            spelled, seen = user_name(old), user_name(other)
            raise UnsupportedSyntaxError(
                f"`del {spelled}[...]` (or `{spelled}.pop(...)`) takes a key out of the dict `{spelled}` in place, and `{seen}` sees the same dict "
                f"and is read after the change: s2sad would differentiate it as if the key were still there",
                _where(write, reads, source),
                f"make the new dict under a name of its own: `{spelled}2 = {{k: v for k, v in {spelled}.items() if k != key}}`")


def _recorded(names: set[str], reads) -> str | None:
    """The module's list (``LOG``) holding one of ``names``, put there by ``LOG.append(v)``; None if none."""
    found = sorted(reads.logged[name] for name in names if name in reads.logged)
    return found[0] if found else None


def _refuse_recorded(written: str, log: str, where):
    # wherever the write is, before or after the append: the reverse pass puts written
    # elements back (and takes appended items out) in the very object the list holds
    raise UnsupportedSyntaxError(
        f"this changes `{written}` in place, and `{log}.append(...)` keeps that very object in `{log}`: the "
        f"derivative code undoes changes in place as it runs backwards, and `{log}` would hold what it left",
        where, f"record a copy (`{log}.append({written}.copy())`, or a number: `{log}.append(float(...))`), "
               f"or make a new value instead of the change (`{written} = {written} + ...`)")


def _refuse_foreign(spelled: str, write, where):
    # taken out of another container, or handed back by a call: which other containers hold
    # this list (or how many times), and which names read it, is not known here
    raise UnsupportedSyntaxError(
        f"`{spelled}` is a list, dict or array the function did not make itself (it was taken out of "
        f"another container, or a call gave it), or one held in more than one place, and "
        f"{'this' if write.callee.name == 'setitem' else f'`.{write.callee.name}(...)`'} changes it in place: "
        f"whatever else holds it would change too, which s2sad does not follow", where,
        f"make a new value instead: `{spelled} = {spelled} + [...]`, or build the "
        f"list in a local variable (`items = []`) and put it in its container once it is complete")


def _may_be_a_dict(container: str, outers, write, operations, made_by, reads, keyed_by_literals) -> bool:
    """Whether the object ``container`` names may be a dict: made as one, or (an element taken
    out of ``outers``) one of the objects made here its container may hold."""
    if _is_a_dict(_origin(container, made_by)):
        return True
    if not outers:
        return False
    here = reads.order[id(write)]
    linked = _ListLinks([op for op in operations if reads.order[id(op)] < here], made_by, keyed_by_literals)
    level = {outers[-1]}
    for _ in range(len(outers)):
        level = {item for current in level for item in linked._items_of(current)}
    return any(_is_a_dict(_origin(item, made_by)) for item in level)


def container_kind(name: str, operations) -> type | None:
    """``dict`` or ``list`` when ``operations`` (those made so far) make the object ``name`` holds as
    one (a display, a comprehension, ``list(...)``, ``dict(...)``, ``sorted(...)``, ``del d[k]``'s new
    dict, a copy of one of these); None when it may be anything (an argument, an element, a call's)."""
    made_by: dict = {}
    for op in operations:
        made_by.setdefault(op.target, op)
    origin = _origin(name, made_by)
    if _is_a_dict(origin):
        return dict
    return list if origin.kind == "list" or origin.calls(list, sorted) else None


def _is_a_dict(origin: Operation) -> bool:
    return origin.kind == "dict" or origin.calls(dict, dict_without, dict_merged)


def _holds_only_its_own(outer: str, depth: int, write, operations, made_by, reads, keyed_by_literals) -> bool:
    """Whether the list or dict ``outer`` was made here and everything it may hold when ``write``
    runs, down to ``depth`` levels, is a list or dict made here too (``history = {"loss": []}``,
    ``rows = [[], []]``): then changing one of them in place changes nothing the caller holds."""
    if not _made_here(_origin(outer, made_by)):
        return False
    here = reads.order[id(write)]
    before = [op for op in operations if reads.order[id(op)] < here or set(reads.loops[id(op)]) & set(reads.loops[id(write)])]
    linked = _ListLinks(before, made_by, keyed_by_literals)
    # a key or an index is no object the container holds to be changed (a key is hashable: never a list)
    keys = {op.args[1].name for op in before if op.kind == "mutate" and op.callee.name == "setitem"
            and isinstance(op.args[0], Var) and linked.root(op.args[0].name) == linked.root(outer)
            and isinstance(op.args[1], Var)}
    values = {op.args[2].name for op in before if op.kind == "mutate" and op.callee.name == "setitem"
              and isinstance(op.args[2], Var)}
    level = {outer}
    for _ in range(depth):  # `y[i][j].append(v)` changes a list that a list `y` holds holds
        inner = set()
        for current in level:
            for item in linked._items_of(current):
                if item in keys - values or _taken_out_of(item, current, linked, made_by):
                    continue
                origin = _origin(item, made_by)
                if not ((_made_here(origin) or _a_new_array(origin)) and _held_once(item, made_by, reads, operations)):
                    return False
                inner.add(item)
        level = inner
    return True


def _held_once(item: str, made_by, reads, operations) -> bool:
    """Whether the list ``item`` is made anew for the one place that holds it: read by one
    operation only (the display, ``append`` or ``d[k] = ...`` that puts it in), in the same loops
    as the operation that makes it. Otherwise the container may hold the same list in two
    places (``row = [a, b]; y = [row, row]``, or ``rows.append(row)`` in a loop), and the
    put-back would tell the derivative code that one of them changed."""
    readers = [op for op in operations for name in op.uses() if name == item]  # `[row, row]` reads it twice
    readers += [reader for reader, names in reads.readers if not isinstance(reader, Operation) and item in names]
    made = made_by.get(item)
    return len(readers) == 1 and made is not None and isinstance(readers[0], Operation) \
        and reads.loops[id(readers[0])] == reads.loops[id(made)]


def _taken_out_of(item: str, outer: str, linked, made_by) -> bool:
    """Whether ``item`` is an element taken out of ``outer`` itself (and put back into it): one of
    its own items, not something new it was given."""
    origin = made_by.get(item)
    return origin is not None and origin.calls(operator.getitem) and isinstance(origin.args[0], Var) \
        and linked.root(origin.args[0].name) == linked.root(outer)


def _seeing_the_list(container: str, write, operations, made_by, reads, keyed_by_literals, lists=()) -> set[str]:
    """The names that see a change of the list or dict object ``container`` (``xs.append(v)``,
    ``xs += ys``): its other names, what holds it, what was taken out of what holds it, by the
    links that can come before ``write`` (made earlier, or in a loop around both that the
    list's memory is older than). ``lists``: names taken for a list or dict whatever made them
    (checked as the code runs), what is taken out of them another object."""
    born = reads.defined.get(container, -1)
    here, around = reads.order[id(write)], set(reads.loops[id(write)])

    def before(op) -> bool:
        return reads.order[id(op)] < here or any(born < reads.starts[loop] for loop in around & set(reads.loops[id(op)]))

    linked = _ListLinks([op for op in operations if op is not write and before(op)], made_by, keyed_by_literals, lists)
    return linked.of(container, down=False)


def _where(write, reads, source):
    where = reads.statement[id(write)]
    return where.location if where is not None else function_location(source)


def _a_sequence_of_objects(origin: Operation, made_by) -> bool:
    """Whether ``origin`` makes a list or dict (a display, ``list(...)``, ``a + b``, ...) or a list
    repeated (``[a] * n``, whose slots all hold the very object ``a``): a write into an element
    taken out of it changes an object it holds, which may be held elsewhere too."""
    if origin.kind in ("list", "dict") or _a_list_or_dict(origin) or origin.calls(repeated):
        return True
    return origin.calls(operator.mul) and any(
        isinstance(atom, Var) and _origin(atom.name, made_by).kind in ("list", "tuple") for atom in origin.args)


def _puts_back_its_only_slot(element: str, write, operations, made_by, reads, keyed_by_literals) -> bool:
    """For ``y[i] += v`` (``element`` is ``y[i]``, changed in place and put back): whether the
    container's other versions may be left out of the check, because the put-back is the only
    place the change shows there. True for an array ``y`` (its element is a view of its own
    memory) or an object's attribute; for a list or dict, only when each object it holds was
    made here and is held once (``rows = [a, a]`` holds one array in two slots)."""
    taken = made_by.get(element)
    if taken is None or not taken.calls(operator.getitem) or not isinstance(taken.args[0], Var):
        return True
    outer = taken.args[0].name
    if not _a_sequence_of_objects(_origin(outer, made_by), made_by):
        return True
    return _holds_only_its_own(outer, 1, write, operations, made_by, reads, keyed_by_literals)


def _a_new_array(origin: Operation) -> bool:
    """Whether ``origin`` is a call that makes new memory (``np.zeros(3)``, ``x * 2.0``): a NumPy or
    Python function whose result shares memory with none of its arguments (not a view, not
    the user's own function, which may hand back what it is given)."""
    return origin.kind == "call" and origin.callee is not None and origin.callee.kind == "static" \
        and not may_share(origin) and not _hands_back_items(origin) and not _a_list_or_dict(origin)


def _made_here(origin: Operation) -> bool:
    """Whether ``origin`` makes a new list or dict object: a display (``[]``, ``{...}``, a
    comprehension), ``list(...)``, ``dict(...)``, ``sorted(...)``, or the function's own copy of
    an argument it changes (written back to the caller's at the end, see normalize.py)."""
    return origin.kind in ("list", "dict") or origin.calls(list, dict, sorted, owned_copy, dict_without,
                                                                  dict_merged, or_merged)


def _a_list_or_dict(origin: Operation) -> bool:
    """Whether ``origin`` makes a new list or dict by a call (``list(a)``, ``sorted(a)``, ``a + [v]``): its
    ``xs[i] = v`` puts an object in it, and writes into no array."""
    return origin.calls(list, dict, sorted, reversed_items, chained, zipped, operator.concat, dict_without,
                               dict_merged, or_merged)


def _kind_of(container: str, made_by) -> str:
    kind = _origin(container, made_by).kind
    return kind if kind in ("list", "dict") else "list"


_ITEM_HANDLERS = (zip, enumerate, reversed, iter, next, list, tuple, sorted, filter, map, dict, min, max,
                  operator.concat, copy.copy, functools.reduce, reversed_items, chained, zipped, dict_without,
                  dict_merged, or_merged, repeated)
# (`repeated` is `[a] * n`, normalize_expressions.py: each of its slots holds an item of the sequence;
# `dict_merged` and `or_merged` are `{**a, **b}` and `a | b`, normalize_expressions.py: a dict holding what both
# hold; `dict_without` is `del d[key]`, normalize_mutation.py; the three before it: what `reversed(xs)`, `itertools.chain` and `zip` used as a value are written as;
# `functools.reduce(lambda a, b: a, xs)` hands back an item of xs itself)


def _joins_sequences(op: Operation, made_by) -> bool:
    """``xs + ys``, ``t * 2`` with a list or tuple the function made (a display, ``list(...)``, ...):
    a new list or tuple holding the very objects its operands hold. (An argument's ``+`` is taken
    for arithmetic, as NumPy's: whether it is a list is not known here.)"""
    return op.calls(operator.add, operator.mul) and any(
        isinstance(atom, Var) and (_origin(atom.name, made_by).kind in ("list", "tuple")
                                   or _a_list_or_dict(_origin(atom.name, made_by))) for atom in op.args)


def _hands_back_items(op: Operation) -> bool:
    """``zip(rows, ...)``, ``enumerate(rows)``, ``list(rows)``, ``itertools.chain(...)``: Python's
    own functions whose result holds (or yields) the very objects its arguments hold."""
    if op.kind != "call" or op.callee is None or op.callee.kind != "static":
        return False
    value = op.callee.value
    return any(value is handler for handler in _ITEM_HANDLERS) or getattr(value, "__module__", None) == "itertools"


def held_items_kind(op: Operation) -> str | None:
    """How ``op``'s value relates to the objects its first argument holds: ``"item"`` for one of them
    (``c[k]``, a loop's element, an unpacked item, ``max(rows)``, ``next(it)``), ``"same"`` for a new
    container holding them (``h2 = h``, ``list(rows)``, ``dict(d)``, ``sorted(rows)``, ``zip(rows)``, a
    ``.copy()``: a dict's or a list's is shallow; an array's, new memory, is taken for one too),
    ``"flat"`` for one holding what the containers it is given hold (``{**a, **b}``, ``a | b``,
    ``itertools.chain(a, b)``, given the tuple ``(a, b)``); None for any other."""
    if op.kind in ("element", "unpack") or op.calls(*_ITEM_TAKERS) or op.kind == "mutate" and op.callee.name == "pop":
        return "item"
    if op.calls(dict_merged, or_merged, chained):
        return "flat"
    if op.kind == "copy" or _hands_back_items(op) or _copied_by_its_method(op) is not None:
        return "same"
    return None


# what hands back one of the objects its first argument holds
_ITEM_TAKERS = (operator.getitem, min, max, next, functools.reduce)


class _ListLinks(Groups):
    """``Groups`` for a change of a list or dict object: names are linked when they may be the
    same object (copies, unpacked items, what a user's function hands back), containers hold
    their items, and an item taken out of a list, tuple or dict written in the function
    (``h = outer[0]``, ``for row in rows``, ``xs.pop()``) is linked to each item it may be,
    not to the container (taking ``hs[-1]`` out does not make it the list ``hs``)."""

    def __init__(self, operations, made_by, keyed_by_literals, lists=()):
        taken = [op for op in operations if self._takes_an_item(op, made_by, lists)]
        taken_ids = {id(op) for op in taken}
        super().__init__([], operations=[op for op in operations if id(op) not in taken_ids],
                         extra_links=[(op.target, name) for op in operations if _hands_back_items(op)
                                      and not (op.target in lists and op.calls(list, dict))  # a new object
                                      for name in op.uses()], keyed_by_literals=keyed_by_literals, copies_hold=False)
        changed = True
        while changed:  # an item taken out may itself hold lists: follow until nothing new is linked
            changed = False
            for op in taken:
                for item in self._items_of(op.args[0].name):
                    if self.root(op.target) != self.root(item):
                        self.link(op.target, item)
                        changed = True
        self.gather_members()

    @staticmethod
    def _takes_an_item(op, made_by, lists=()) -> bool:
        takes = op.kind in ("unpack", "element") or (op.kind == "mutate" and op.callee.name == "pop") or (
            op.calls(operator.getitem))
        return takes and bool(op.args) and isinstance(op.args[0], Var) \
            and (_origin(op.args[0].name, made_by).kind in _CONTAINERS or op.args[0].name in lists)

    def _items_of(self, container: str) -> set[str]:
        self.parent.setdefault(container, container)
        root = self.root(container)
        return {item for name, items in self.holds.items() if self.root(name) == root for item in items}


class Reads:
    """Where each variable is read, in program order: which reads come after a given write."""

    def __init__(self, function):
        operations = operations_of(function.statements)
        self.order, self.loops, self.statement = program_order(function.statements)
        self.defined = {}
        for op in operations:
            self.defined.setdefault(op.target, self.order[id(op)])
        self.readers = [(op, set(op.uses())) for op in operations] + conditions_of(function.statements)
        self.end = len(self.order)
        self.starts = {}  # loop -> the position of its first operation
        for op in operations:
            for loop in self.loops[id(op)]:
                self.starts[loop] = min(self.starts.get(loop, self.end), self.order[id(op)])
        self.result = function.result.name if isinstance(function.result, Var) else None
        # what `LOG.append(v)` put in a module's list: still held there when the function returns
        self.logged = {op.args[1].name: user_name(op.args[0].name) for op in operations if op.kind == "effect"
                       and op.callee is not None and op.callee.value is logged and isinstance(op.args[1], Var)}
        self.carried = _carried_by_loop(function.statements)

    def made_this_iteration(self, name: str, write: Operation, operations) -> int | None:
        """The position of the operation that makes ``name``'s memory anew in each iteration of
        the innermost loop around ``write``, before it (``u_next = u.copy()``); None when its
        memory may be older (made outside the loop, on some paths, or a view of something)."""
        if not self.loops[id(write)]:
            return None
        definitions = [op for op in operations if op.target == name and op.kind != "mutate"]
        if len(definitions) != 1:
            return None
        op = definitions[0]
        if op.kind == "copy" and isinstance(op.args[0], Var):
            return self.made_this_iteration(op.args[0].name, write, operations)
        if op.kind in ("unpack", "element", "list", "tuple", "dict") or may_share(op) \
                or self.loops[id(op)] != self.loops[id(write)] or self.order[id(op)] > self.order[id(write)]:
            return None
        return self.order[id(op)]

    def after(self, name: str, write: Operation) -> bool:
        """Whether ``name`` is read after ``write`` and after it was made, or in a loop around the
        write that it was made outside of (the next iteration reads what the write changed)."""
        born = self.defined.get(name, -1)
        here, around = self.order[id(write)], set(self.loops[id(write)])
        reads = [(self.order.get(id(reader), self.end), set(self.loops.get(id(reader), ())))
                 for reader, used in self.readers if name in used and reader is not write]
        if name == self.result or name in self.logged:
            reads.append((self.end, set()))

        def rebound(at, enclosing) -> bool:
            # a loop around the write that carries `name` binds it anew at the end of each iteration,
            # after the write: a read in its next iteration, or after it, sees that binding (the
            # written array itself, or another value; the back edge's own read is checked as any
            # read). `out += v` in an inner loop, with `out` carried by the outer one as well.
            return any(name in self.carried.get(loop, ()) and (at < here if loop in enclosing else at > here)
                       for loop in around)

        return any(not rebound(at, enclosing) and (born < here < at or any(born < self.starts[loop]
                                                                            for loop in around & enclosing))
                   for at, enclosing in reads)


def _carried_by_loop(block) -> dict[int, set[str]]:
    """The variables each loop (by ``id``) binds anew at the end of every iteration (its back edges)."""
    carried = {}
    for item in block:
        if isinstance(item, Loop):
            carried[id(item)] = set(item.carried)
            carried.update(_carried_by_loop(item.body))
        elif isinstance(item, Branch):
            carried.update(_carried_by_loop(item.then))
            carried.update(_carried_by_loop(item.orelse))
    return carried


def _origin(name: str, made_by: dict) -> Operation:
    """The operation that made the object ``name`` holds (through copies ``a = b``)."""
    op = made_by.get(name)
    seen = set()
    while op is not None and op.kind == "copy" and isinstance(op.args[0], Var) and op.args[0].name in made_by \
            and id(op) not in seen:
        seen.add(id(op))
        op = made_by[op.args[0].name]
    return op if op is not None else Operation(name, "parameter")


def conditions_of(block):
    """Branch and loop conditions, as (reader, names read) pairs placed after everything."""
    out = []
    for item in block:
        if isinstance(item, Branch):
            if isinstance(item.condition, Var):
                out.append((item, {item.condition.name}))
            out += conditions_of(item.then) + conditions_of(item.orelse)
        elif isinstance(item, Loop):
            if isinstance(item.condition, Var):
                out.append((item, {item.condition.name}))
            out += conditions_of(item.body)
    return out


# functions and methods whose result is a view or a copy by the array's layout (`M.ravel()` a view, `M.T.ravel()` a copy)
BY_LAYOUT = {"ravel", "reshape", "ascontiguousarray", "asfortranarray", "asarray", "asanyarray", "require"}


def _by_layout(origin: Operation) -> str | None:
    """The name of the function ``origin`` calls when it is one of ``BY_LAYOUT``."""
    name = origin.callee.name if origin.kind == "call" and origin.callee is not None else None
    name = name or getattr(getattr(origin.callee, "value", None), "__name__", None)
    return name if name in BY_LAYOUT else None


def _unowned(*names: str) -> list[str]:
    # `x_own` is the function's own copy of the argument `x` it changes (normalize.py's owned_copies)
    return [re.sub(r"_own$", "", user_name(name)) for name in names]


def _refuse(written: str, seen: str, location, by_layout: str | None = None):
    written, seen = _unowned(written, seen)
    what = f"`{written}[...] = ...`"
    layout = f"; `{by_layout}` gives a view or a copy by the array's layout, which s2sad does not know here;" \
        if by_layout else ","
    raise UnsupportedSyntaxError(
        f"{what} changes memory that `{seen}` shares (a view, or the same array under another name, or one it may be: "
        f"an item taken out of the same container or call, which may hold one array twice){layout} "
        f"and `{seen}` is read after the change: s2sad would differentiate it as if `{seen}` were unchanged",
        location,
        f"write to one name only, or take a copy first (`{written} = {written}.copy()`), "
        f"or write `{written} = {written} + ...` to make a new array")


def function_location(source):
    return source.location(source.funcdef)
