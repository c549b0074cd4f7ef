"""In-place changes: ``y[i] = v``, a list's ``append``/``extend``/``pop``, ``np.add.at``, ``out=``,
an array's ``.sort()`` and ``.fill(v)``, ``np.copyto(dst, src)``.

A change of a container the function owns keeps the container's name (it is the same
object) and is one "mutate" operation; writes NumPy makes into an array are rewritten as
element assignments s2sad differentiates and undoes like any other (``added_at``,
``written_into``; ``y.sort()`` is ``y[...] = sorted_in_place(y)``, ``y.fill(v)`` is
``y[...] = filled_in_place(v, y)``, ``np.copyto(y, v)`` is ``y[...] = written_into(v, y)``, each
cast to ``y``'s dtype as NumPy casts it). Changing an argument or a global, or anything that may share its
memory, would change the caller's data: refused, with the copy to make instead. So are
the methods and NumPy functions that change a value in place and are not differentiated.
"""
from __future__ import annotations

import operator
import re

import libcst as cst
import numpy as np

from ..errors import UnsupportedSyntaxError
from ..analysis.aliasing import container_kind
from ..rules.helpers import (added_at, deleted_name, diagonal_filled, dict_without, filled_in_place, sorted_in_place, subtracted_at,
                             taken_for_writing, with_attribute, written_into)
from .ir import Atom, Callee, Const, Operation, Var
from .normalize_expressions import BINARY
from .normalize_state import NormalizerState, atom_name
from .normalize_syntax import own_bindings

LIST_MUTATORS = ("append", "extend", "pop", "insert")
ARRAY_MUTATORS = ("sort", "fill")  # on a local variable: written as an element assignment (array_mutation)
UNSUPPORTED_MUTATORS = {
    "remove": "build a new list without the element",
    "sort": "use `sorted(xs)` or `np.sort(x)`, which return a new value",
    "reverse": "use `xs[::-1]`",
    "clear": "assign a new empty list",
    "update": "build a new dict, `d = {**d, \"k\": v}`, or assign the keys one by one: `d[k] = v`",
    "setdefault": "test `k in d` and assign `d[k] = v`",
    "popitem": "read and delete keys explicitly",
    "fill": "use `np.full_like(x, value)`",
    "resize": "use `np.resize(x, shape)`, which returns a new array",
    "put": "use `y[index] = values` on a copy",
    "itemset": "use `y[index] = value` on a copy",
    "partition": "use `np.partition(x, k)`, which returns a new array",
}
def user_name_of(version: str) -> str:
    return re.sub(r"_\d+$", "", version)


UFUNC_AT = {"add": added_at, "subtract": subtracted_at}  # ufunc name -> what its .at is rewritten to

# NumPy functions that write into an array they are given (their `out=` aside)
IN_PLACE_FUNCTIONS = {np.copyto, np.put, np.put_along_axis, np.place, np.putmask, np.fill_diagonal, np.random.shuffle}


def writes_into_an_argument(value) -> bool:
    try:
        return value in IN_PLACE_FUNCTIONS
    except TypeError:  # an unhashable callee
        return False


def is_ufunc_at(value) -> bool:
    return isinstance(getattr(value, "__self__", None), np.ufunc) and getattr(value, "__name__", "") == "at"


class MutationNormalizer(NormalizerState):
    def container(self, target: cst.Subscript):
        """``name[index]`` as an assignment target: (the container's atom, the index atom).
        ``y[i][j]``'s container is ``y[i]``, taken out to be changed and put back (``taken_out``)."""
        if isinstance(target.value, cst.Subscript):
            return self.taken_out(target.value), self.index(target.slice)
        if not isinstance(target.value, cst.Name) or target.value.value not in self.current:
            raise UnsupportedSyntaxError("only a local variable's elements can be assigned (`y[i] = v`)",
                                         self.source.location(target),
                                         "for a nested element write `y[i, j] = v`, or build the value in a local first")
        return Var(self.current[target.value.value]), self.index(target.slice)

    def taken_out(self, node: cst.Subscript) -> Var:
        """The element ``y[i]`` that ``y[i][j] = v`` or ``y[i].append(v)`` changes in place: taken
        out (``t = y[i]``), changed (``t[j] = v``), and put back (``y[i] = t``, emitted by ``mutate``
        after the change). Python changes the object ``y`` holds; the put-back tells the derivative
        code ``y`` changed with it. Exact when ``t`` is that very object (a list's element, a view
        of an array's row: ``taken_for_writing`` refuses NumPy's copy for a fancy index, whose write
        Python would lose) and nothing else that sees it is read after (aliasing.py, ``put_back``)."""
        container, index = self.container(node)
        index_code = cst.Module([]).code_for_node(node.slice[0].slice) if len(node.slice) == 1 else "..."
        spelled = f"{self.spelled.get(container.name, user_name_of(container.name))}[{index_code}]"
        taken = self.operation(None, "item", [atom_name(container), atom_name(index)],
                               Operation("", "call", Callee("static", "[]", operator.getitem, "{0}[{1}]"),
                                         [container, index]), derived_from_operands=True)
        self.spelled[taken.name] = spelled
        self.emit(Operation(self.namer.fresh("_"), "effect", Callee("static", "taken_for_writing", taken_for_writing),
                            [container, taken, Const(repr(spelled))]))
        self.write_backs.append((node, container, index, taken))
        return taken

    def mutate(self, node, method: str, container: Var, args: list, want=None) -> Var:
        """An in-place change of a container the function owns: ``y[i] = v`` (method
        "setitem"), ``xs.append(v)``, ``xs.extend(ys)``, ``v = xs.pop(i)``.

        The container keeps its name (it is the same object); the operation's target is the
        container, or for ``pop`` the element taken. Changing an argument, or something that
        may share its memory, would change the caller's data: refused.
        """
        root = self.roots.get(container.name)
        if root is not None and container.name in self.taken_from_holders:
            # an item of a new container holding what the caller's holds: which, and whether it is the caller's
            # object (an array's `.copy()` holds new memory), is known as the code runs
            self.callers_check(container, self.spelled.get(container.name, user_name_of(container.name)))
        elif root is not None:
            owner = "passed in" if root in self.user_params else "owns"
            written = self.spelled.get(container.name, user_name_of(container.name))
            if written == root:
                raise UnsupportedSyntaxError(
                    f"this changes `{root}` in place, which the caller {owner}",
                    self.source.location(node), f"work on a copy: `{root} = {root}.copy()` (or `list({root})`) first")
            # `t2 = s.a; t2.append(v)`: name what is changed, and what of the caller's it belongs to
            raise UnsupportedSyntaxError(
                f"this changes `{written}` in place, which may be `{root}`, share its memory or be held by it, and "
                f"the caller {owner} `{root}`: the caller would see the change",
                self.source.location(node),
                f"work on a copy: `{written} = {written}.copy()` (`list({written})` for a list) before changing it")
        target = self.namer.temporary(method, [container.name]) if method == "pop" else container.name
        if want is not None and method == "pop":
            target = want
        self.emit(Operation(target, "mutate", Callee("method", f"{container.name}.{method}", name=method),
                            [container, *args]))
        while self.write_backs and self.write_backs[-1][3].name == container.name:
            node, outer, index, taken = self.write_backs.pop()  # `y[i] = t`: the changed element put back
            self.mutate(node, "setitem", outer, [index, taken])
        return Var(target)

    def set_attribute(self, target: cst.Attribute, value: Atom) -> None:
        """``p.w = v``: ``p`` names a new object, ``p_2 = with_attribute(p, "w", v)``. Python changes
        the object itself, so this is exact only for an object the function made, with no other name
        for it read afterwards: analysis/attribute_writes.py refuses the rest."""
        owner, name = target.value.value, target.attr.value
        self.refuse_foreign_owner(target)
        current = self.current[owner]
        version = self.namer.version(owner)
        self.emit(Operation(version, "call", Callee("static", "with_attribute", with_attribute),
                            [Var(current), Const(repr(name)), value]))
        self.current[owner] = version

    def refuse_foreign_owner(self, target: cst.Attribute) -> None:
        """``owner.name = ...`` where ``owner`` is no variable of the function's (a global, a class)."""
        owner, name = target.value.value, target.attr.value
        if owner not in self.current:
            raise UnsupportedSyntaxError(f"`{owner}.{name} = ...` changes `{owner}`, an object the function did not make",
                                         self.source.location(target),
                                         f"assign attributes of objects the function makes or copies: "
                                         f"`{owner} = copy.copy({owner})` first")

    def augmented_attribute(self, node: cst.AugAssign, binary) -> None:
        """``p.w += v``: ``w = p.w; w += v; p.w = w``, the middle step changing an array's memory
        as Python's does (checked by the aliasing analysis like any ``y += v``)."""
        self.refuse_foreign_owner(node.target)  # (`Counter.made += 1`, a class's count)
        held = self.expression(node.target)
        value = self.expression(node.value)
        function, symbol = BINARY[binary]
        computed = self.operation(None, symbol, [held, value], Operation(
            "", "call", Callee("static", symbol, function, "{0} " + symbol + " {1}"), [held, value]))
        kept = Operation(self.namer.fresh(f"{atom_name(held)}_kept"), "call",
                         Callee("static", "written_into", written_into), [computed, held])
        self.emit(kept)
        self.in_place[id(kept)] = held.name
        self.updated_attributes[id(kept)] = node.target.value.value
        self.set_attribute(node.target, Var(kept.target))

    def delete_statement(self, node: cst.Del) -> None:
        """``del xs[k]`` is ``xs.pop(k)`` with the item dropped (a list's; a dict's is refused,
        aliasing.py), at any depth (``del rows[i][j]``: the element taken out and put back);
        ``del y`` unbinds ``y``: it names ``deleted_name('y')`` from here on, which raises
        UnboundLocalError wherever Python would read the unbound name (the fence allows no other
        target)."""
        targets = [element.value for element in node.target.elements] \
            if isinstance(node.target, (cst.Tuple, cst.List)) else [node.target]
        for target in targets:  # one by one, left to right, as Python deletes them
            if isinstance(target, cst.Subscript):
                container, index = self.container(target)
                if isinstance(target.value, cst.Name) and self.is_own_dict(container) \
                        and not self.of_an_enclosing_function(target.value.value):
                    self.delete_key(target, container, index)
                else:
                    self.mutate(target, "pop", container, [index])
                continue
            name = target.value
            if name not in self.current:
                raise UnsupportedSyntaxError(f"`del {name}` deletes a name the function has not bound",
                                             self.source.location(target), "delete only the function's own variables")
            version = self.namer.version(name)
            self.emit(Operation(version, "call", Callee("static", "deleted_name", deleted_name), [Const(repr(name))]))
            self.current[name] = version

    def is_own_dict(self, container: Var) -> bool:
        """Whether ``container`` is a dict this function made (a display, ``dict(...)``, a copy)
        and no argument or global may be it."""
        return container_kind(container.name, self.emitted) is dict and self.roots.get(container.name) is None

    def of_an_enclosing_function(self, name: str) -> bool:
        """Whether ``name``, read in a nested function written out in place, is a variable of the
        function around it: rebinding it there would leave the enclosing function's name bound
        to the old dict (its ``del d[k]`` stays the dict ``pop`` the aliasing analysis refuses)."""
        return bool(self.inlining) and name not in own_bindings(self.inlining[-1])

    def delete_key(self, target, container: Var, key) -> None:
        """``del d[key]`` on the function's own dict: ``d = dict_without(d, key)``, a new dict
        without the key (a dict's ``pop`` has no undoing in the derivative code: the key's
        place would have to be put back). The aliasing analysis refuses it where another name
        or a container sees the old dict and is read after (Python changed that object)."""
        name = target.value.value  # (`d[k]`'s or `d.pop`'s `d`)
        version = self.namer.version(name)
        self.emit(Operation(version, "call", Callee("static", "dict_without", dict_without), [container, key]))
        self.current[name] = version

    def list_mutation(self, node: cst.Call, want) -> Atom:
        """``xs.append(v)``, ``xs.extend(ys)``, ``v = xs.pop()`` on a local list, or on a list a
        local holds (``history["loss"].append(v)``, ``rows[i].append(v)``: see ``taken_out``)."""
        func = node.func
        container = self.taken_out(func.value) if isinstance(func.value, cst.Subscript) \
            else Var(self.current[func.value.value])
        args, kwargs = self.arguments(node)
        expected = {"append": (1,), "extend": (1,), "insert": (2,), "pop": (0, 1)}[func.attr.value]
        if kwargs or len(args) not in expected:
            raise UnsupportedSyntaxError(f"`{func.attr.value}` is called with unexpected arguments",
                                         self.source.location(node))
        if func.attr.value == "pop" and len(args) == 1 and isinstance(func.value, cst.Name) \
                and self.is_own_dict(container) and not self.of_an_enclosing_function(func.value.value):
            # `v = d.pop(k)` on the function's own dict: `v = d[k]`, then `del d[k]`
            getitem = Callee("static", "[]", operator.getitem, "{0}[{1}]")
            taken = self.operation(want, "item", [container.name, atom_name(args[0])],
                                   Operation("", "call", getitem, [container, args[0]]), derived_from_operands=True)
            self.delete_key(func, container, args[0])
            return taken
        return self.mutate(node, func.attr.value, container, args, want)

    def ufunc_at(self, node: cst.Call, dotted: str, method) -> Atom:
        """``np.add.at(y, idx, v)`` changes ``y`` in place, adding ``v`` once per occurrence of
        an index: written ``y[...] = added_at(y, idx, v)``, an element assignment s2sad
        differentiates and undoes like any other."""
        function = UFUNC_AT.get(method.__self__.__name__)
        if function is None:
            raise UnsupportedSyntaxError(f"`{dotted}(...)` changes its first argument in place, which s2sad does not differentiate",
                                         self.source.location(node),
                                         "only np.add.at and np.subtract.at are differentiated; build the new values in a new array")
        args, kwargs = self.arguments(node)
        target = node.args[0].value if node.args else None
        if kwargs or len(args) != 3 or not isinstance(target, cst.Name) or target.value not in self.current:
            raise UnsupportedSyntaxError(f"`{dotted}(...)` is differentiated only as `{dotted}(y, indices, values)` on a local array `y`",
                                         self.source.location(node), "pass the array, the indices and the values by position")
        container, indices, values = args
        callee = Callee("static", function.__name__, function)
        updated = self.operation(None, function.__name__, [atom_name(container)],
                                 Operation("", "call", callee, [container, indices, values]))
        self.mutate(node, "setitem", container, [Const("..."), updated])
        return Const("None")

    def array_mutation(self, node: cst.Call) -> Atom:
        """``y.sort(...)`` and ``y.fill(v)`` on a local variable: ``y[...] = sorted_in_place(y, ...)``
        and ``y[...] = filled_in_place(v, y)``, element assignments differentiated and undone like
        any other (and refused, as they are, on an argument's memory). What ``y`` holds is known
        when the code runs: the helpers refuse anything but a NumPy array."""
        method, name = node.func.attr.value, node.func.value.value
        container = Var(self.current[name])
        args, kwargs = self.arguments(node)
        if method == "sort" and any(keyword in ("key", "reverse") for keyword, _ in kwargs):
            # NumPy's sort takes neither: a list's, refused here as sorted_in_place refuses `xs.sort()`
            raise UnsupportedSyntaxError("`.sort(key=..., reverse=...)` of a list changes it in place, which s2sad "
                                         "differentiates only for a NumPy array's `.sort()`", self.source.location(node),
                                         f"use `{name} = sorted({name}, ...)` with the same keywords, which makes a new list")
        if method == "sort":
            callee, given = Callee("static", "sorted_in_place", sorted_in_place), [container, *args]
        elif len(args) == 1 and not kwargs:
            callee, given, kwargs = Callee("static", "filled_in_place", filled_in_place), [args[0], container], []
        else:
            raise UnsupportedSyntaxError("`.fill(...)` takes one value", self.source.location(node))
        value = self.operation(None, f"{method}ed", [name], Operation("", "call", callee, given, kwargs))
        self.mutate(node, "setitem", container, [Const("..."), value])
        return Const("None")

    def copy_into(self, node: cst.Call, dotted: str) -> Atom:
        """``np.copyto(dst, src)``, ``dst`` a local variable: ``dst[...] = written_into(src, dst)``,
        ``src`` broadcast to ``dst``'s shape and cast to its dtype under copyto's own rule
        (``same_kind``: float into int raises, as NumPy raises)."""
        args, kwargs = self.arguments(node)
        target = node.args[0].value if node.args else None
        if kwargs or len(args) != 2 or not isinstance(target, cst.Name) or target.value not in self.current:
            raise UnsupportedSyntaxError(f"`{dotted}(...)` is differentiated only as `{dotted}(dst, src)` on a local "
                                         "array `dst` (no `casting=` or `where=`)", self.source.location(node),
                                         "assign a new array instead: `dst = np.where(mask, src, dst)`")
        container, source = args
        value = self.operation(None, "copied", [atom_name(source)], Operation(
            "", "call", Callee("static", "written_into", written_into), [source, container]))
        self.mutate(node, "setitem", container, [Const("..."), value])
        return Const("None")

    def fill_diagonal(self, node: cst.Call, dotted: str) -> Atom:
        """``np.fill_diagonal(a, val, wrap)``, ``a`` a local variable: ``a[...] = diagonal_filled(val, a, wrap)``
        (the n-body code's ``np.fill_diagonal(inv_r3, 0.0)``)."""
        args, kwargs = self.arguments(node)
        target = node.args[0].value if node.args and node.args[0].keyword is None else None
        if not isinstance(target, cst.Name) or target.value not in self.current or len(args) not in (2, 3) \
                or any(key != "wrap" for key, _ in kwargs):
            raise UnsupportedSyntaxError(f"`{dotted}(...)` is differentiated only on a local array: "
                                         f"`{dotted}(a, val)` changes `a` in place", self.source.location(node),
                                         "take a copy first (`a = a.copy()`), or build a new array with np.where")
        container = args[0]
        value = self.operation(None, "filled", [atom_name(container)], Operation(
            "", "call", Callee("static", "diagonal_filled", diagonal_filled), [args[1], container, *args[2:]], kwargs))
        self.mutate(node, "setitem", container, [Const("..."), value])
        return Const("None")

    def into_out(self, node: cst.Call, dotted: str, callee: Callee, args: list, kwargs: list) -> Atom:
        """``f(x, out=y)`` writes ``f(x)`` into ``y`` (cast to ``y``'s dtype, broadcast to its
        shape) and returns ``y``: written ``y[...] = written_into(f(x), y)``."""
        out = next(arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == "out")
        if not isinstance(out, cst.Name) or out.value not in self.current:
            raise UnsupportedSyntaxError(f"`{dotted}(..., out=...)` is differentiated only with `out=` a local array",
                                         self.source.location(node), "drop `out=` and assign the result")
        container = Var(self.current[out.value])
        rest = [(key, atom) for key, atom in kwargs if key != "out"]
        computed = self.operation(None, dotted.split(".")[-1], [atom_name(a) for a in args[:2]],
                                  Operation("", "call", callee, args, rest))
        kept = self.operation(self.namer.fresh(f"{computed.name}_kept"), "", [],
                              Operation("", "call", Callee("static", "written_into", written_into), [computed, container]))
        self.mutate(node, "setitem", container, [Const("..."), kept])
        return container
