"""Tape bytes per loop iteration: what a pullback keeps alive, against what its reverse pass reads.

    python benchmarks/tape_size.py            # the RK4 and spring workloads, a Markdown table

A generated rrule records one tuple per loop iteration on a list (its tape) and returns a
pullback closing over that list. This tool runs the rrule once, then walks everything the
tape holds: the saved values, and, for a call inside the loop, the callee's pullback and
whatever its closure holds in turn. Each object is counted once (by identity), with
``sys.getsizeof`` (an array that owns its memory includes its data; a view keeps its base
alive, which is walked too).

The minimum is what the reverse pass reads: the data of the saved values that the
pullback's code uses as numbers. A value it passes only as the shape-and-dtype argument
of ``unbroadcast``, ``expand_reduced``, ``untake`` or ``add_at``, or to ``len``, is saved
for its metadata alone; the minimum counts none of it. Any other use (another helper's
argument included) counts as reading the data, so the minimum is if anything too high.
Which names a pullback reads is found in its source (each generated pullback and each
wrapper is a real function with source). A value saved every iteration but equal in all
of them (a loop invariant such as ``-k``) counts once in the minimum; the minimum counts
raw data bytes (8 per float64), no object headers.

This measures and reports only; it changes nothing in the code s2sad generates.
"""
from __future__ import annotations

import ast
import inspect
import os
import sys
import textwrap
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import workloads as w  # noqa: E402
from s2sad.transform import generated_rrule  # noqa: E402

# helper name -> position of the argument it reads only for its shape and dtype
METADATA_ONLY = {"unbroadcast": 1, "expand_reduced": 1, "untake": 2, "add_at": 3}


class Uses:
    """How a function's body uses each free variable: 'data', 'shape', 'call' or 'tape' (with its loop targets)."""

    def __init__(self, function):
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
        body = tree.body[0]
        parents = {child: node for node in ast.walk(body) for child in ast.iter_child_nodes(node)}
        self.kinds: dict[str, set] = {}
        self.targets: dict[str, list] = {}
        for node in ast.walk(body):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self.kinds.setdefault(node.id, set()).add(self._kind(node, parents))
            if (isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
                    and node.iter.func.id == "reversed" and isinstance(node.iter.args[0], ast.Name)):
                target = node.target
                names = [t.id for t in target.elts] if isinstance(target, ast.Tuple) else [target.id]
                self.targets[node.iter.args[0].id] = names

    @staticmethod
    def _kind(node, parents):
        parent = parents.get(node)
        if isinstance(parent, ast.Call):
            if parent.func is node:
                return "call"
            callee = parent.func.id if isinstance(parent.func, ast.Name) else None
            if callee == "len":
                return "shape"
            if callee == "reversed":
                return "tape"
            position = METADATA_ONLY.get(callee)
            if position is not None and position < len(parent.args) and parent.args[position] is node:
                return "shape"
        return "data"

    def reads_data(self, name):
        return "data" in self.kinds.get(name, ())


class TapeWalk:
    """Everything reachable from one pullback's tapes, each object once."""

    def __init__(self, exclude=()):
        self.seen: set[int] = set()
        for value in exclude:  # the caller's arguments: held by the caller, not by the tape
            self._mark(value)
        self.kept_bytes = 0
        self.leaves: dict[int, list] = {}  # id -> [value, reads its data, path]
        self.uses: dict[types.CodeType, Uses] = {}

    def _mark(self, value):
        self.seen.add(id(value))
        if isinstance(value, (tuple, list)):
            for item in value:
                self._mark(item)

    def function(self, function, path):
        if function.__closure__ is None:
            return  # a module-level function: shared, not recorded
        uses = self.uses.get(function.__code__)
        if uses is None:
            uses = self.uses[function.__code__] = Uses(function)
        self.kept_bytes += sys.getsizeof(function) + sys.getsizeof(function.__closure__)
        for name, cell in zip(function.__code__.co_freevars, function.__closure__):
            self.kept_bytes += sys.getsizeof(cell)
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if name in uses.targets and isinstance(value, list):
                self.tape(value, uses.targets[name], uses, path + (name,))
            else:
                self.value(value, uses.reads_data(name), path + (name,))

    def tape(self, tape, targets, uses, path):
        if id(tape) in self.seen:
            return
        self.seen.add(id(tape))
        self.kept_bytes += sys.getsizeof(tape)
        for entry in tape:
            self.kept_bytes += sys.getsizeof(entry) if id(entry) not in self.seen else 0
            self.seen.add(id(entry))
            items = entry if len(targets) > 1 else (entry,)
            for name, item in zip(targets, items):
                self.value(item, uses.reads_data(name), path + (name,))

    def value(self, value, reads, path):
        known = self.leaves.get(id(value))
        if known is not None:
            known[1] = known[1] or reads
            return
        if id(value) in self.seen:
            return
        self.seen.add(id(value))
        if isinstance(value, types.FunctionType):
            self.function(value, path)
        elif isinstance(value, (tuple, list)):
            self.kept_bytes += sys.getsizeof(value)
            for item in value:
                self.value(item, reads, path)
        elif isinstance(value, dict):
            self.kept_bytes += sys.getsizeof(value)
            for item in value.values():
                self.value(item, reads, path)
        elif isinstance(value, (np.ndarray, np.generic, float, complex, int)):
            self.kept_bytes += sys.getsizeof(value)
            self.leaves[id(value)] = [value, reads, path]
            if isinstance(value, np.ndarray) and value.base is not None:
                self.value(value.base, False, path + ("base",))
        elif not isinstance(value, type) and getattr(type(value), "__slots__", None) is not None:
            # a slotted object made per call (transformed.InOrderPullback, a call's pullback): it and
            # what its slots hold (the callee's pullback closure) are kept per iteration
            self.kept_bytes += sys.getsizeof(value)
            for slot in type(value).__slots__:
                if hasattr(value, slot):
                    self.value(getattr(value, slot), False, path + (slot,))
        elif isinstance(value, (type, types.ModuleType)) or callable(value):
            return  # classes, modules, shared call wrappers: not per-iteration storage
        else:
            self.kept_bytes += sys.getsizeof(value)

    def array_data_bytes(self):
        return sum(leaf[0].nbytes for leaf in self.leaves.values()
                   if isinstance(leaf[0], np.ndarray) and leaf[0].base is None)

    def minimum_bytes(self):
        """The data the reverse pass reads; a value equal at every iteration counted once."""
        groups: dict[tuple, list] = {}
        for value, reads, path in self.leaves.values():
            if reads:
                groups.setdefault(path, []).append(value)
        total = 0
        for values in groups.values():
            first = values[0]
            invariant = all(np.array_equal(v, first) and np.shape(v) == np.shape(first) for v in values[1:])
            total += data_bytes(first) * (1 if invariant else len(values))
        return total


def data_bytes(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return value.nbytes
    return 16 if isinstance(value, complex) else 8


def measure(function, wrt, args, iterations):
    rrule = generated_rrule(function, wrt)
    value, pullback = rrule(*args)
    walk = TapeWalk(exclude=args)
    walk.function(pullback, ())
    n_read = sum(1 for leaf in walk.leaves.values() if leaf[1])
    return {
        "iterations": iterations,
        "values per iteration": len(walk.leaves) / iterations,
        "read as data per iteration": n_read / iterations,
        "kept": walk.kept_bytes / iterations,
        "array data": walk.array_data_bytes() / iterations,
        "minimum": walk.minimum_bytes() / iterations,
    }


def workloads():
    rng = np.random.default_rng(0)
    yield "rk4 (500 steps, 2-state)", w.rk4, ("params",), (np.array([1.1, 0.4, 0.1, 0.4]), np.array([10.0, 5.0])), 500
    yield ("spring (50 steps, 4-element state)", w.spring, ("x", "v", "k"),
           (rng.standard_normal(4), rng.standard_normal(4), 2.0), 50)
    yield ("spring (50 steps, 1000-element state)", w.spring, ("x", "v", "k"),
           (rng.standard_normal(1000), rng.standard_normal(1000), 2.0), 50)


def table() -> list:
    """The Markdown table's lines."""
    lines = ["| workload | values saved per iteration | of which read as data | bytes kept alive per iteration "
             "| of which array data | minimum (data the reverse pass reads) | kept / minimum |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for label, function, wrt, args, iterations in workloads():
        row = measure(function, wrt, args, iterations)
        lines.append(f"| {label} | {row['values per iteration']:.1f} | {row['read as data per iteration']:.1f} | "
                     f"{row['kept']:.0f} B | {row['array data']:.0f} B | {row['minimum']:.0f} B | "
                     f"{row['kept'] / row['minimum']:.1f}× |")
    return lines


def main():
    print("\n".join(table()))


if __name__ == "__main__":
    main()
