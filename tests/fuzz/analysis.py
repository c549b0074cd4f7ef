"""Reading program text: the probed twin of a program, and the constructs it uses.

``instrument(source)`` rewrites every branch condition of the form ``LEFT > c`` (``c`` a
number; in ``if``, ``elif``, ``while`` and conditional expressions, also under ``not``,
``and``, ``or``) into ``_probe_(site, LEFT) > c`` and returns the thresholds by site:
running that twin records how far each condition was from flipping. It works on any
program, generated or a regression file.

``features_of(source)`` names the constructs and the functions a program uses (``if``,
``while``, ``fill-array``, ``np.outer``, ``matmul``...): the keys by which a fuzz failure
is matched to a known bug, and the constructs a run reports as covered.
"""
from __future__ import annotations

import ast
import warnings

import numpy as np


# Calls with a kink at literal thresholds: the function, and which arguments are the thresholds.
KINKS = {"np.maximum": (1,), "np.minimum": (1,), "np.fmax": (1,), "np.fmin": (1,), "np.clip": (1, 2),
         "np.abs": (), "abs": (), "np.absolute": ()}


class _Instrument(ast.NodeTransformer):
    """Wraps the left side of every ``X > c`` (branch conditions, masks, ``np.where``
    conditions) and the first argument of every kink call (``np.maximum(X, c)``,
    ``np.clip(X, lo, hi)``, ``np.abs(X)`` at 0) in a probe."""

    def __init__(self):
        self.thresholds: dict[int, float] = {}

    def wrap(self, node, threshold: float):
        site = len(self.thresholds)
        self.thresholds[site] = threshold
        return ast.Call(ast.Name("_probe_", ast.Load()), [ast.Constant(site), node], [])

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], ast.Gt):
            try:
                threshold = float(ast.literal_eval(node.comparators[0]))
            except (ValueError, TypeError, SyntaxError):
                return node
            node.left = self.wrap(node.left, threshold)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        name = _dotted(node.func)
        if name not in KINKS or not node.args or node.keywords:
            return node
        positions = KINKS[name]
        try:
            thresholds = [float(ast.literal_eval(node.args[k])) for k in positions] if positions else [0.0]
        except (ValueError, TypeError, SyntaxError, IndexError):
            return node
        for threshold in thresholds:
            node.args[0] = self.wrap(node.args[0], threshold)
        return node


def instrument(source: str) -> tuple[str, dict[int, float]]:
    tree = ast.parse(source)
    transformer = _Instrument()
    tree = transformer.visit(tree)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree), transformer.thresholds


class RunawayProgram(Exception):
    """The probed program evaluated far more conditions than a fuzz program can."""


class Probe:
    """Runs the probed twin of a program; records (site, value - threshold) per condition."""

    def __init__(self, source: str):
        probed, self.thresholds = instrument(source)
        self.records: list[tuple[int, float]] = []
        namespace = {"_probe_": self._record}
        exec(compile(probed, "<fuzz probed program>", "exec"), namespace)
        self.namespace = namespace
        self.function = namespace["f"]

    def _record(self, site, value):
        """One record per element (a mask compares arrays); a complex value's distance to its
        kink is its modulus (``abs`` is smooth away from 0)."""
        if len(self.records) > 100_000:
            raise RunawayProgram("more than 100000 conditions evaluated: a loop that does not end?")
        array = np.asarray(value)
        if np.iscomplexobj(array):
            array = np.abs(array)
        for element in array.reshape(-1):
            self.records.append((site, float(element) - self.thresholds[site]))
        return value

    def run(self, args):
        self.records = []
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")   # a complex value stored into a float array: NumPy warns, users do it
            value = self.function(*args)
        return value, list(self.records)

    @staticmethod
    def path(records) -> tuple:
        return tuple((site, difference > 0) for site, difference in records)


_MUTATING_METHODS = {"append": "list-append", "pop": "list-pop", "extend": "list-extend", "copy": "copy"}


def _dotted(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def features_of(source: str) -> frozenset:
    """The constructs and callees of a program (see the module docstring)."""
    tree = ast.parse(source)
    found: set[str] = set()
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    loops: list = []

    def visit(node, in_loop=False, top=None):
        kind = type(node)
        if kind is ast.If:
            found.add("if")
            if node.orelse and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                found.add("elif")
            if not node.orelse:
                found.add("if-without-else")
        elif kind is ast.IfExp:
            found.add("conditional-expression")
        elif kind is ast.For:
            iterator = node.iter
            if isinstance(iterator, ast.Name) and any(
                    isinstance(target, ast.Name) and target.id == iterator.id
                    for statement in ast.walk(ast.Module(body=node.body, type_ignores=[]))
                    if isinstance(statement, (ast.Assign, ast.AugAssign))
                    for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])):
                found.add("loop-rebinds-iterable")   # for row in A: A = ...
            name = _dotted(iterator.func) if isinstance(iterator, ast.Call) else None
            found.add({"range": "for-range", "enumerate": "for-enumerate", "zip": "for-zip"}.get(name, "for-iterate"))
            if name is None and isinstance(iterator, ast.Call) and isinstance(iterator.func, ast.Attribute) \
                    and iterator.func.attr == "items":
                found.add("for-dict-items")
        elif kind is ast.While:
            found.add("while")
            if isinstance(node.test, ast.BoolOp):
                found.add("while-float-condition")
        elif kind is ast.Break:
            found.add("break-in-loop")
        elif kind is ast.Continue:
            found.add("continue-in-loop")
        elif kind is ast.Return and top is not None and node is not top[-1]:
            found.add("return-in-loop" if in_loop else "early-return")
        elif kind is ast.AugAssign:
            found.add("aug-setitem" if isinstance(node.target, ast.Subscript) else "augmented-assignment")
        elif kind is ast.Assign and any(isinstance(t, ast.Subscript) for t in node.targets):
            found.add("setitem")
        elif kind is ast.Assign and any(isinstance(t, ast.Tuple) for t in node.targets):
            found.add("tuple-unpack")
        elif kind is ast.Tuple and isinstance(node.ctx, ast.Load):
            found.add("tuple")
        elif kind is ast.List and isinstance(node.ctx, ast.Load):
            found.add("list-literal")
        elif kind is ast.Dict:
            found.add("dict")
        elif kind is ast.ListComp:
            found.add("list-comprehension")
        elif kind is ast.DictComp:
            found.add("dict-comprehension")
        elif kind is ast.GeneratorExp:
            found.add("generator-expression")
        elif kind is ast.Lambda:
            found.add("lambda")
        elif kind is ast.FunctionDef and top is not None:
            found.add("nested-def")
        elif kind is ast.BoolOp:
            found.add("and" if isinstance(node.op, ast.And) else "or")
        elif kind is ast.UnaryOp and isinstance(node.op, ast.Not):
            found.add("not")
        elif kind is ast.BinOp:
            found.add({ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow",
                       ast.MatMult: "matmul"}.get(type(node.op), "binop"))
            if isinstance(node.op, ast.Pow) and not isinstance(node.right, ast.Constant):
                found.add("pow-var")
            if isinstance(node.op, ast.Pow) and isinstance(node.left, ast.UnaryOp) and \
                    isinstance(node.left.op, ast.USub) and isinstance(node.left.operand, ast.Constant):
                found.add("negative-constant-power")   # (-0.3) ** 2
        elif kind is ast.UnaryOp:
            found.add("neg" if isinstance(node.op, ast.USub) else "pos")
        elif kind is ast.Subscript and isinstance(node.ctx, ast.Load):
            found.add("slice" if isinstance(node.slice, ast.Slice) or (isinstance(node.slice, ast.Tuple) and any(
                isinstance(e, ast.Slice) for e in node.slice.elts)) else "index")
        elif kind is ast.Call:
            name = _dotted(node.func)
            if name in functions:
                found.add("helper-call")
                if node.keywords:
                    found.add("helper-keyword")
            elif name and (name.startswith(("np.", "math.")) or name in ("sum", "float")):
                found.add(name)
            elif isinstance(node.func, ast.Attribute):
                method = node.func.attr
                found.add(_MUTATING_METHODS.get(method, f"ndarray.{method}"))
            if name in ("np.zeros", "np.empty", "np.zeros_like"):
                found.add("fill-array")
            if any(keyword.arg == "out" for keyword in node.keywords):
                found.add("ufunc-out")
        elif kind is ast.Attribute and node.attr == "T":
            found.add("transpose")
        elif kind is ast.Raise:
            found.add("raise")
        elif kind is ast.Assert:
            found.add("assert")
        elif kind is ast.Starred:
            found.add("starred")
        elif kind is ast.Constant and isinstance(node.value, complex):
            found.add("complex-constant")
        if kind is ast.Subscript:
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if any(isinstance(part, ast.List) for part in parts):
                found.add("fancy-index")
            if any(isinstance(part, ast.Compare) for part in parts):
                found.add("mask-index")
            if any(isinstance(part, ast.Slice) and isinstance(part.step, ast.UnaryOp) for part in parts):
                found.add("negative-step-slice")
        if kind is ast.Assign and isinstance(node.value, ast.Name) and all(isinstance(t, ast.Name) for t in node.targets):
            found.add("alias-assign")   # z = y: two names, one array
        for child in ast.iter_child_nodes(node):
            if kind is ast.FunctionDef:
                visit(child, False, node.body)
            else:
                visit(child, in_loop or kind in (ast.For, ast.While), top)

    # names that share their array with another: z = y (both), [y] or (y, ...) (the item)
    shared = {name.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name)
              for name in [node.value, *node.targets] if isinstance(name, ast.Name)}
    shared |= {item.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Tuple))
               for item in node.value.elts if isinstance(item, ast.Name)}
    if any(isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in shared
           for node in ast.walk(tree)):
        found.add("aug-assign-shared-name")   # y += v where another name or a container holds y
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            if node.name != "f":
                found.add("helper")
                if node.decorator_list:
                    found.add("decorator")
                if node.args.kwonlyargs:
                    found.add("keyword-only")
                if node.name.endswith("_redefined"):
                    found.add("helper-redefined")
                if node.args.defaults:
                    found.add("helper-default")
                read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
                if any(argument.arg not in read for argument in node.args.args):
                    found.add("helper-unused-parameter")
            visit(node)
    return frozenset(found)
