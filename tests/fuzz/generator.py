"""Hypothesis strategies that write random programs in s2sad's supported language.

A program is the text of a module defining ``f`` (and, sometimes, ``helper``, which ``f``
calls), the inputs to call it with, a cotangent ``u`` for its output and tangents ``v`` for
its float inputs. Values have one of five shapes, so that every expression is well-shaped
and broadcasting is exercised on purpose::

    S ()      scalar (Python float or NumPy float64)
    V (3,)    U (2,)     vectors
    M (2, 3)  C (2, 1)   a matrix and a column (C and V broadcast to M)

Only smooth operations are used (sin, cos, tanh, exp of bounded values, powers with
literal exponents, division by ``1 + b**2``, log of ``2 + sin``...), so the only points
where a program is not differentiable are its branch conditions. Each condition is written
``LHS > c``; its "probed" twin (``analysis.instrument``) records every condition's value,
and the inputs are accepted only when all of them are at least ``MARGIN`` away from their
thresholds (the generator shifts the inputs a few times before giving up on a program).
The oracle runs the probed twin for its finite differences too, and checks that every
evaluation takes the same path.

Arrays are changed in place both ways: the designed ones (a fresh array filled element by
element, a copy updated by slices) and what users write (``idioms.py``: ``y += v`` on array
names, aliased names, writes through views, repeated fancy indices, ``np.add.at``), along
with masks, reversed slices, decorators, keyword-only arguments and complex constants.
A program's inputs are float64, float32 (mixed with float64 constants) or complex128 (then
its output is made real: ``np.real``, ``np.abs(...) ** 2``; the gradient is
dL/dRe + 1j dL/dIm). A program with a helper may also define ``helper_redefined``: the
oracle checks ``f`` again after binding ``helper`` to it (a notebook cell run again). A
quarter of the programs also take a structured parameter (``STRUCTURED``: a list of
``(W, b)`` layers, a dict of named arrays with an int option, a namedtuple, a dataclass with
a method), read by the idioms of ``idioms.PARAMETER_IDIOMS`` and by plain reads.
Shrinking moves toward fewer statements,
shallower expressions and the first alternative of each choice (the simplest).
"""
from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass, field

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from . import trees
from .analysis import Probe, RunawayProgram, features_of
from .idioms import IDIOMS, LIBRARY, PARAMETER_IDIOMS, STRUCTURED_HOLES

SHAPES = {"S": (), "V": (3,), "U": (2,), "M": (2, 3), "C": (2, 1)}
KINDS = tuple(SHAPES)
MARGIN = 0.1                 # how far every branch condition stays from its threshold
LARGEST_VALUE = 1e4          # programs whose value or inputs' scale exceed this are dropped

# Constants programs may use (written out literally in the source).
CONST = {
    "S": ["0.7", "1.5", "-0.3"],
    "V": ["np.array([0.5, -1.0, 1.5])", "np.linspace(0.1, 0.9, 3)"],
    "U": ["np.array([1.0, -0.5])", "np.array([0.25, 0.75])"],
    "M": ["np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]])", "np.arange(6.0).reshape(2, 3) / 6.0"],
    "C": ["np.array([[0.5], [-1.5]])", "np.ones((2, 1))"],
}
W3, W2, W23, W21 = CONST["V"][0], CONST["U"][0], CONST["M"][0], CONST["C"][0]

# Shape-preserving smooth functions: (template, feature). The first is the simplest.
UNARY = [
    ("np.sin({a})", "np.sin"), ("np.cos({a})", "np.cos"), ("np.tanh({a})", "np.tanh"),
    ("{a} ** 2", "pow2"), ("-{a}", "neg"), ("0.5 * {a}", "scale"), ("{a} / (1.0 + {a} ** 2)", "rational"),
    ("np.exp(np.tanh({a}))", "np.exp"), ("{a} ** 3", "pow3"), ("np.square({a})", "np.square"),
    ("np.sqrt(1.0 + {a} ** 2)", "np.sqrt"), ("np.log1p({a} ** 2)", "np.log1p"),
    ("np.log(2.0 + np.sin({a}))", "np.log"), ("np.arctan({a})", "np.arctan"),
    ("np.sinh(np.tanh({a}))", "np.sinh"), ("np.cosh(np.tanh({a}))", "np.cosh"),
    ("np.expm1(np.tanh({a}))", "np.expm1"), ("+{a}", "pos"), ("np.negative({a})", "np.negative"),
]
SPECIAL = [  # SciPy's special functions: guarded slopes (entr), dual-number-free rules; real inputs only
    ("scipy.special.entr(1.5 + np.sin({a}) ** 2)", "scipy.special.entr"), ("scipy.special.expit({a})", "scipy.special.expit"),
    ("scipy.special.erf({a})", "scipy.special.erf"), ("scipy.special.gammaln(2.0 + {a} ** 2)", "scipy.special.gammaln"),
    ("scipy.special.xlogy({a}, 1.5 + {a} ** 2)", "scipy.special.xlogy"), ("scipy.special.log_ndtr({a})", "scipy.special.log_ndtr"),
    ("scipy.special.rel_entr(1.0 + {a} ** 2, 2.0 + np.sin({a}))", "scipy.special.rel_entr"),
]
UNARY_SCALAR = [  # scalars only: the math module and builtins
    ("math.sin({a})", "math.sin"), ("math.cos({a})", "math.cos"), ("math.exp(math.tanh({a}))", "math.exp"),
    ("math.sqrt(1.0 + {a} ** 2)", "math.sqrt"), ("float({a})", "float"), ("math.tanh({a})", "math.tanh"),
    ("math.atan({a})", "math.atan"), ("math.log(2.0 + math.sin({a}))", "math.log"),
]
UNARY_VECTOR = [  # 1-d arrays only
    ("np.cumsum({a})", "np.cumsum"), ("np.flip({a})", "np.flip"), ("{a}[::-1]", "reverse-slice"),
    ("np.roll({a}, 1)", "np.roll"),
]
BINARY = [  # elementwise, broadcasting
    ("{a} + {b}", "add"), ("{a} * {b}", "mul"), ("{a} - {b}", "sub"), ("{a} / (1.0 + {b} ** 2)", "div"),
    ("np.add({a}, {b})", "np.add"), ("np.multiply({a}, {b})", "np.multiply"), ("np.subtract({a}, {b})", "np.subtract"),
    ("{a} / (2.0 + np.cos({b}))", "div-cos"), ("(1.5 + np.sin({a})) ** {b}", "pow-var"),
    ("np.arctan2({a}, 1.5 + {b} ** 2)", "np.arctan2"), ("np.true_divide({a}, 1.0 + {b} ** 2)", "np.true_divide"),
    ("np.power(1.5 + np.sin({a}), {b})", "np.power"),
]
BROADCAST = {  # result kind -> operand kind pairs
    "S": [("S", "S")],
    "V": [("V", "V"), ("S", "V"), ("V", "S")],
    "U": [("U", "U"), ("S", "U"), ("U", "S")],
    "C": [("C", "C"), ("S", "C"), ("C", "S")],
    "M": [("M", "M"), ("S", "M"), ("M", "S"), ("V", "M"), ("M", "V"), ("C", "M"), ("M", "C"), ("C", "V"), ("V", "C")],
}
# From one kind to another: (template, feature, is a view of its operand).
CONVERT = {
    ("V", "S"): [("np.sum({a})", "np.sum"), ("{a}[1]", "index"), ("np.mean({a})", "np.mean"), ("{a}.sum()", "ndarray.sum"),
                 ("{a} @ {a}", "matmul"), ("np.dot({a}, " + W3 + ")", "np.dot"), ("{a}[-1]", "index")],
    ("U", "S"): [("np.sum({a})", "np.sum"), ("{a}[0]", "index"), ("np.mean({a})", "np.mean"), ("{a}.mean()", "ndarray.mean"),
                 ("np.prod(1.0 + 0.5 * np.tanh({a}))", "np.prod")],
    ("M", "S"): [("np.sum({a})", "np.sum"), ("{a}[1, 2]", "index2"), ("np.mean({a})", "np.mean"), ("{a}[0][1]", "index-twice"),
                 ("np.trace({a} @ " + W23 + ".T)", "np.trace"), ("np.sum({a} ** 2)", "np.sum")],
    ("C", "S"): [("np.sum({a})", "np.sum"), ("{a}[1, 0]", "index2"), ("np.mean({a})", "np.mean")],
    ("S", "V"): [("{a} * " + W3, "mul"), ("np.array([{a}, 1.0, 2.0 * {a}])", "np.array"), ("np.full(3, {a})", "np.full"),
                 ("{a} * np.ones(3)", "np.ones")],
    ("U", "V"): [("{a} @ " + W23, "matmul"), ("np.concatenate([{a}, {a}[:1]])", "np.concatenate"),
                 ("np.dot({a}, " + W23 + ")", "np.dot"), ("np.append({a}, 1.0)", "np.append")],
    ("M", "V"): [("np.sum({a}, axis=0)", "np.sum-axis"), ("{a}[1]", "row"), ("{a}.mean(axis=0)", "ndarray.mean-axis"),
                 ("{a}[0, :]", "row-slice"), ("{a}.T @ " + W2, "transpose-matmul")],
    ("C", "V"): [("np.sum({a} * " + W3 + ", axis=0)", "np.sum-axis"), ("({a} + " + W23 + ")[1]", "row")],
    ("S", "U"): [("{a} * " + W2, "mul"), ("np.array([{a}, -{a}])", "np.array")],
    ("V", "U"): [("{a}[:2]", "slice"), ("{a}[1:]", "slice"), (W23 + " @ {a}", "matmul"), ("{a}[::2]", "step-slice"),
                 ("np.dot(" + W23 + ", {a})", "np.dot")],
    ("M", "U"): [("np.sum({a}, axis=1)", "np.sum-axis"), ("{a}[:, 0]", "column"), ("{a} @ " + W3, "matmul"),
                 ("np.mean({a}, axis=-1)", "np.mean-axis")],
    ("C", "U"): [("{a}[:, 0]", "column"), ("{a}.ravel()", "ndarray.ravel"), ("np.reshape({a}, (2,))", "np.reshape"),
                 ("np.squeeze({a}, axis=1)", "np.squeeze")],
    ("S", "M"): [("{a} * " + W23, "mul"), ("np.full((2, 3), {a})", "np.full")],
    ("V", "M"): [("{a} * " + W21, "mul"), ("np.outer(" + W2 + ", {a})", "np.outer"), ("np.stack([{a}, {a} ** 2])", "np.stack"),
                 ("np.tile({a}, (2, 1))", "np.tile"), ("np.vstack([{a}, np.cos({a})])", "np.vstack")],
    ("U", "M"): [("np.outer({a}, " + W3 + ")", "np.outer"), ("{a}[:, None] * " + W3, "newaxis"),
                 ("np.reshape({a}, (2, 1)) + " + W23, "np.reshape")],
    ("C", "M"): [("{a} * " + W3, "mul"), ("{a} + " + W23, "add"), ("np.broadcast_to({a}, (2, 3)) * 1.0", "np.broadcast_to")],
    ("S", "C"): [("{a} * " + W21, "mul")],
    ("V", "C"): [("np.sum(" + W23 + " * {a}, axis=1, keepdims=True)", "np.sum-keepdims")],
    ("U", "C"): [("{a}[:, None]", "newaxis"), ("np.reshape({a}, (2, 1))", "np.reshape"), ("{a}.reshape(2, 1)", "ndarray.reshape"),
                 ("np.expand_dims({a}, 1)", "np.expand_dims")],
    ("M", "C"): [("np.sum({a}, axis=1, keepdims=True)", "np.sum-keepdims"), ("{a}[:, 1:2]", "slice2"), ("{a}[:, :1]", "slice2")],
}
# Two operands of given kinds to a result kind, not elementwise.
PAIRS = {
    "S": [(("V", "V"), "np.dot({a}, {b})", "np.dot"), (("V", "V"), "{a} @ {b}", "matmul"), (("U", "U"), "{a} @ {b}", "matmul"),
          (("M", "M"), "np.sum({a} * {b})", "mul"), (("M", "M"), "np.trace({a} @ {b}.T)", "np.trace"),
          (("V", "V"), "np.inner({a}, {b})", "np.inner")],
    "U": [(("M", "V"), "{a} @ {b}", "matmul"), (("M", "V"), "np.dot({a}, {b})", "np.dot"),
          (("M", "V"), "np.matmul({a}, {b})", "np.matmul")],
    "V": [(("U", "M"), "{a} @ {b}", "matmul"), (("M", "U"), "{a}.T @ {b}", "transpose-matmul")],
    "M": [(("U", "V"), "np.outer({a}, {b})", "np.outer"), (("M", "M"), "np.where(" + W23 + " > 0.0, {a}, {b})", "np.where"),
          (("U", "V"), "{a}[:, None] * {b}[None, :]", "newaxis")],
    "C": [(("C", "C"), "np.concatenate([{a}, {b}], axis=1)[:, 1:]", "np.concatenate")],
}

# Functions of real numbers only, or with a branch cut near the inputs: not in complex programs.
NOT_FOR_COMPLEX = {"np.sqrt", "np.log1p", "np.log", "np.arctan", "np.arctan2", "pow-var", "np.power",
                   *(feature for _, feature in SPECIAL)}
# The number types of a program's inputs (the first is the simplest: shrinking goes there).
NUMBER_TYPES = ("float64", "float32", "complex128")

PARAM_NAMES = {"S": ["s", "t", "r"], "V": ["x", "y", "z"], "U": ["u", "w", "q"], "M": ["A", "B", "D"], "C": ["c", "d", "e"]}

# Structured parameters, what users differentiate with respect to (one per program at most;
# the parameter is named as its kind). Their leaves have the program's number type.
#   layers  [(W1 (2, 3), b1 (2,)), (W2 (2, 2), b2 (2,))]   a list of (W, b) layers: x (3,) -> h (2,)
#   params  {"W": (2, 3), "b": (2,), "s": (), "steps": 2}   named arrays, a float, an int option
#   linear  Linear(W=(2, 3), b=(2,))                       a namedtuple (idioms.LIBRARY["Linear"])
#   net     Net(W=(2, 3), b=(2,), scale=())                a dataclass with a method (LIBRARY["Net"])
# kind -> (the idiom hole it fills, how the writer reads it, the module-level class it needs)
STRUCTURED = {
    "layers": ("LAYERS", ("layers",), None),
    "params": ("PARAMS", ("dict", {"W": "M", "b": "U", "s": "S"}), None),
    "linear": ("LINEAR", ("record", {"W": "M", "b": "U"}), "Linear"),
    "net": ("NET", ("record", {"W": "M", "b": "U", "scale": "S"}), "Net"),
}


@dataclass
class Param:
    name: str
    kind: str                # a shape kind, or "int" for a loop count
    value: object            # the input (floats rounded to tenths: regression files stay readable)

    def fresh_value(self):
        return trees.tree_map(lambda leaf: leaf.copy() if isinstance(leaf, np.ndarray) else leaf, self.value)


@dataclass
class Program:
    """A generated module: ``source`` defines ``f`` (and perhaps ``helper``)."""

    source: str
    params: list
    output_kind: str
    features: frozenset
    direction_seed: int
    uses_helper: bool = False

    def args(self) -> tuple:
        return tuple(p.fresh_value() for p in self.params)

    @property
    def float_positions(self) -> tuple:
        return tuple(i for i, p in enumerate(self.params) if p.kind != "int")

    def directions(self):
        """The output cotangent ``u`` and one tangent per float input ``v`` (zeros elsewhere)."""
        return directions(self.direction_seed, self.params, self.output_kind)

    @property
    def number_type(self) -> str:
        return next((_number_type(p.value) for p in self.params if p.kind != "int"), "float64")

    def __repr__(self) -> str:  # what hypothesis prints for a falsifying example
        inputs = ", ".join(f"{p.name}={_literal(p.value)}" for p in self.params)
        return f"Program(inputs: {inputs}; output {self.output_kind}; direction seed {self.direction_seed})\n{self.source}"


def _number_type(value) -> str:
    """float64, float32 or complex128: the number type of an input (of a structured one's leaves)."""
    if trees.is_container(value):
        value = trees.leaves(value)[0]
    if np.iscomplexobj(value):
        return "complex128"
    return "float32" if np.asarray(value).dtype == np.float32 else "float64"


def directions(seed: int, params, output_kind: str):
    """The cotangent ``u`` (outputs are real) and tangents of each input's own type."""
    rng = np.random.default_rng(seed)
    u = float(rng.uniform(0.5, 1.5)) if output_kind == "S" else rng.standard_normal(SHAPES[output_kind])
    tangents = []
    for p in params:
        if trees.is_container(p.value):   # a structured input: a tangent per leaf, None for an int inside
            tangents.append(trees.tree_map(
                lambda leaf: float(rng.standard_normal()) if np.ndim(leaf) == 0 else rng.standard_normal(np.shape(leaf)),
                p.value, static=lambda item: None))
        elif p.kind == "int":
            tangents.append(0)  # no tangent space: a zero (the int itself would move it, which s2sad refuses)
        elif p.kind == "S":
            tangents.append(float(rng.standard_normal()))
        else:
            tangents.append(rng.standard_normal(SHAPES[p.kind]))
    for k, p in enumerate(params):   # drawn after the real parts: float64 programs keep their directions
        number_type = _number_type(p.value) if p.kind != "int" else "int"
        if trees.is_container(p.value):
            tangents[k] = trees.tree_map(lambda leaf: _typed_tangent(rng, leaf, number_type), tangents[k])
            continue
        if number_type == "complex128":
            tangents[k] = tangents[k] + 1j * (float(rng.standard_normal()) if p.kind == "S"
                                              else rng.standard_normal(SHAPES[p.kind]))
        elif number_type == "float32":
            tangents[k] = np.float32(tangents[k]) if p.kind == "S" else tangents[k].astype(np.float32)
    return u, tangents


def _typed_tangent(rng, tangent, number_type: str):
    """A float64 tangent leaf made complex (an imaginary part drawn) or float32, as its input."""
    if number_type == "complex128":
        return tangent + 1j * (float(rng.standard_normal()) if np.ndim(tangent) == 0
                               else rng.standard_normal(np.shape(tangent)))
    if number_type == "float32":
        return np.float32(tangent) if np.ndim(tangent) == 0 else tangent.astype(np.float32)
    return tangent


def _literal(value) -> str:
    if trees.is_container(value):
        return trees.literal(value, _literal)
    if isinstance(value, np.ndarray):
        if value.dtype == np.float32:   # its shortest float64 spelling that rounds back to it
            return f"np.array({np.round(value.astype(np.float64), 7).tolist()!r}, dtype=np.float32)"
        return f"np.array({np.round(value, 12).tolist()!r})"
    if isinstance(value, np.float32):
        return f"np.float32({round(float(value), 7)!r})"
    return repr(value)


# ------------------------------------------------------------------ the writer

@dataclass
class _Var:
    name: str
    kind: str                 # a shape kind, or ("list", kind, length), ("tuple", kinds), ("dict", {key: kind})


@dataclass
class _Helper:
    name: str
    params: list              # [(name, kind)]
    default: bool             # has a keyword parameter `scale=0.5` (a scalar)
    returns: str
    lines: list = field(default_factory=list)
    keyword_only: bool = False  # the keyword parameter is written `*, scale=0.5`
    redefined: bool = False   # the module also defines `helper_redefined` (its return scaled by 1.5)


class _Writer:
    """Draws one program, statement by statement, keeping track of what is in scope."""

    MAX_DEPTH = 2      # nesting of if/loops
    EXPR_DEPTH = 2

    def __init__(self, draw, number_type="float64"):
        self.draw = draw
        self.number_type = number_type
        self.complex = number_type == "complex128"
        self.library: list[str] = []     # keys of idioms.LIBRARY the program calls
        self.lines: list[str] = []
        self.indent = 1
        self.vars: list[_Var] = []
        self.counter = 0
        self.features: set[str] = set()
        self.helper: _Helper | None = None
        self.in_helper = False
        self.loop_index: list[tuple[str, int]] = []   # (name, largest value + 1) of enclosing range loops
        self.in_loop = 0
        self.output_kind = "S"
        self.structured: dict[str, str] = {}   # idiom hole (LAYERS, PARAMS...) -> the parameter filling it
        self.arguments: list[str] = []   # f's (3,) array parameters: what an idiom's {ARG} writes into
        self.families: frozenset = frozenset()   # if given, idioms are drawn from these IDIOM_FAMILIES only

    # ------------------------------------------------------------- drawing
    def pick(self, options):
        _check_small_range(0, len(options) - 1)
        return self.draw(st.sampled_from(options))

    def chance(self, percent: int) -> bool:
        """True with the given probability; shrinks toward False."""
        return self.draw(st.integers(0, 99)) >= 100 - percent

    def number(self, low, high) -> int:
        _check_small_range(low, high)
        return self.draw(st.integers(low, high))

    def fresh(self, prefix="v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def feature(self, name) -> None:
        if name:
            self.features.add(name)

    # ------------------------------------------------------------- expressions
    def of_kind(self, kind):
        return [v for v in self.vars if v.kind == kind]

    def leaf(self, kind: str) -> str:
        candidates = self.of_kind(kind)
        if kind == "S" and self.loop_index and self.chance(10):
            index, _ = self.loop_index[-1]
            self.feature("loop-index-value")
            return f"(0.3 * {index} - 0.2)"   # never within MARGIN of a threshold (0, 0.5, -0.5)
        if candidates and not self.chance(8):
            return self.pick(candidates).name
        others = [v for v in self.vars if isinstance(v.kind, str) and v.kind in SHAPES and v.kind != kind]
        if not others or self.chance(30):
            return self.pick(CONST[kind])
        source = self.pick(others)
        return self.convert(source.name, source.kind, kind)

    def convert(self, text: str, source: str, kind: str) -> str:
        if source == kind:
            return text
        template, feature = self.pick(CONVERT[(source, kind)])
        self.feature(feature)
        return template.format(a=_wrap(text))

    def indexed(self, kind: str) -> str | None:
        """``x[i]`` inside a range loop whose index fits the vector, else None."""
        if not self.loop_index:
            return None
        index, bound = self.loop_index[-1]
        vectors = [v for v in self.vars if v.kind in ("V", "U") and SHAPES[v.kind][0] >= bound]
        rows = [v for v in self.vars if v.kind == "M" and bound <= 2]
        if kind == "S" and vectors:
            self.feature("index-by-loop")
            return f"{self.pick(vectors).name}[{index}]"
        if kind == "V" and rows:
            self.feature("row-by-loop")
            return f"{self.pick(rows).name}[{index}]"
        return None

    def expr(self, kind: str, depth: int | None = None) -> str:
        depth = self.EXPR_DEPTH if depth is None else depth
        choice = self.number(0, 11) if depth > 0 else 0
        if choice == 0:
            if self.loop_index and self.chance(20):
                text = self.indexed(kind)
                if text is not None:
                    return text
            return self.leaf(kind)
        if choice <= 3:
            options = UNARY + SPECIAL + (UNARY_SCALAR if kind == "S" and not self.complex else []) + \
                (UNARY_VECTOR if kind in ("V", "U") else [])
            options = self.usable(options)
            template, feature = self.pick(options)
            self.feature(feature)
            return template.format(a=_wrap(self.expr(kind, depth - 1)))
        if choice <= 7:
            left, right = self.pick(BROADCAST[kind])
            template, feature = self.pick(self.usable(BINARY))
            self.feature(feature)
            if left != right:
                self.feature(f"broadcast:{left}{right}")
            return template.format(a=_wrap(self.expr(left, depth - 1)), b=_wrap(self.expr(right, depth - 1)))
        if choice <= 9:
            source = self.pick([k for k in KINDS if k != kind])
            return self.convert(self.expr(source, depth - 1), source, kind)
        if choice == 10 and kind in PAIRS:
            (left, right), template, feature = self.pick(PAIRS[kind])
            self.feature(feature)
            return template.format(a=_wrap(self.expr(left, depth - 1)), b=_wrap(self.expr(right, depth - 1)))
        container = self.container_read(kind)
        if container is not None:
            return container
        return self.leaf(kind)

    def usable(self, table):
        """The entries of a (template, feature) table this program's number type allows."""
        return [entry for entry in table if not (self.complex and entry[-1] in NOT_FOR_COMPLEX)]

    def container_read(self, kind: str) -> str | None:
        """An element of a list, tuple or dict in scope, of the given kind."""
        options = []
        for v in self.vars:
            if isinstance(v.kind, tuple) and v.kind[0] == "list" and v.kind[1] == kind:
                options += [f"{v.name}[-1]", f"{v.name}[0]", f"sum({v.name})",
                            f"np.sum(np.array({v.name}), axis=0)" if kind != "S" else f"np.sum(np.array({v.name}))"]
                if kind == "S":
                    options.append(f"sum(np.tanh(item) for item in {v.name})")
            elif isinstance(v.kind, tuple) and v.kind[0] == "tuple":
                options += [f"{v.name}[{i}]" for i, k in enumerate(v.kind[1]) if k == kind]
            elif isinstance(v.kind, tuple) and v.kind[0] == "dict":
                options += [f"{v.name}[{key!r}]" for key, k in v.kind[1].items() if k == kind]
            elif isinstance(v.kind, tuple) and v.kind[0] == "record":   # a namedtuple or dataclass
                options += [f"{v.name}.{key}" for key, k in v.kind[1].items() if k == kind]
            elif isinstance(v.kind, tuple) and v.kind[0] == "layers":   # [(W1, b1), (W2, b2)]
                options += {"M": [f"{v.name}[0][0]"], "U": [f"{v.name}[0][1]", f"{v.name}[-1][1]"],
                            "S": [f"sum(np.sum(b) for _, b in {v.name})"]}.get(kind, [])
        if not options:
            return None
        self.feature("container-read")
        text = self.pick(options)
        if text.startswith("sum(np.tanh"):
            self.feature("generator-sum")
        return text

    def condition(self) -> str:
        """A branch condition; its left side is a probe site, at least MARGIN from the threshold."""
        threshold = self.pick([0.0, 0.5, -0.5])
        left = self.expr("S", 1)
        if self.complex:   # users compare a real part (a complex number has no order)
            left = f"np.real({left})"
        text = f"{left} > {threshold!r}"
        form = self.number(0, 9)
        if form == 7:
            self.feature("not")
            return f"not {text}"
        if form >= 8:
            other = self.condition()
            word = "and" if form == 8 else "or"
            self.feature(word)
            return f"{text} {word} {other}"
        return text

    # ------------------------------------------------------------- statements
    def block(self, count: int, depth: int) -> None:
        for _ in range(count):
            self.statement(depth)

    def statement(self, depth: int) -> None:
        # idioms: 12 in 28 (8 in 24 until the table grew from 144 to 228 entries in session 14; 4 in 20
        # until it grew from 80 to 142 in session 13)
        kinds = ["assign", "assign", "augment", "if", "ifexp", "for", "fill", "update", "list", "tuple", "dict",
                 "helper", "while", "closure", "iterate", "return"] + ["idiom"] * 12
        kind = self.pick(kinds)
        if depth >= self.MAX_DEPTH and kind in ("if", "for", "fill", "while", "iterate", "list", "helper", "idiom"):
            kind = "assign"
        if self.in_helper and kind in ("helper", "return"):
            kind = "assign"
        getattr(self, f"s_{kind}")(depth)

    def new_var(self, kind, prefix="v") -> str:
        name = self.fresh(prefix)
        self.vars.append(_Var(name, kind))
        return name

    def s_assign(self, depth) -> None:
        kind = self.pick(KINDS)
        text = self.expr(kind)
        self.emit(f"{self.new_var(kind)} = {text}")

    def s_idiom(self, depth, reading: str | None = None) -> None:
        """One of ``idioms.IDIOMS``: what users write (see there); a third of the time one of
        ``PARAMETER_IDIOMS``; ``reading``: one that reads that structured hole (LAYERS...)."""
        if reading is not None:
            pool = [i for i in PARAMETER_IDIOMS if any("{" + reading + "}" in line for line in i.lines)]
        else:
            pool = PARAMETER_IDIOMS if self.chance(33) else IDIOMS
            if self.families:   # a campaign aimed at some families (run.py --families)
                pool = [i for i in IDIOMS if i.family in self.families]
        pool = [i for i in pool if not (self.complex and i.real_only)]
        if pool and pool[0].family:   # a family first, then one of its idioms: a family of 3 is drawn as often as one of 39
            family = self.pick(sorted({i.family for i in pool}))
            pool = [i for i in pool if i.family == family]
        idiom = self.pick(pool)
        names = {"out": self.fresh(), "t": self.fresh("t"), "t2": self.fresh("t"), "i": self.fresh("i")}
        self.feature(idiom.feature)
        self.feature(f"family:{idiom.family or 'parameters'}")   # how refusals are counted per family
        needs = list(idiom.needs)
        for hole, (_, need) in STRUCTURED_HOLES.items():
            if need and any("{" + hole + "}" in line for line in idiom.lines):
                needs.append(need)
        for need in needs:
            if need not in self.library:
                self.library.append(need)
        for hole, (made, _) in STRUCTURED_HOLES.items():   # a structured value: the parameter, or made here
            if any("{" + hole + "}" in line for line in idiom.lines):
                if hole in self.structured and not self.in_helper:   # the helper cannot see f's parameters
                    names[hole] = self.structured[hole]
                    self.feature(f"reads-parameter:{hole}")
                else:
                    names[hole] = self.fresh("p")
                    self.emit_template(f"{names[hole]} = {made}", {})
        if any("{ARG}" in line for line in idiom.lines):   # a view of f's argument written, or of an array made here
            if self.arguments and not self.in_helper:
                names["ARG"] = self.pick(self.arguments)
                self.feature("writes-into-an-argument")
            else:
                names["ARG"] = self.fresh("a")
                self.emit_template(f"{names['ARG']} = np.cos({{V}})", {})
        for line in idiom.lines:
            self.emit_template(line, names)
        self.vars.append(_Var(names["out"], idiom.result))

    def emit_template(self, line: str, names: dict) -> None:
        """An idiom's line, its names filled in and each shape hole drawn as an expression of its own."""
        text = line
        for hole, name in names.items():
            text = text.replace("{" + hole + "}", name)
        while True:   # each {S}, {V}, ... is an expression drawn on its own
            holes = [(text.find("{" + k + "}"), k) for k in SHAPES if "{" + k + "}" in text]
            if not holes:
                break
            position, kind = min(holes)
            text = text[:position] + _wrap(self.expr(kind, 1)) + text[position + 3:]
        if self.complex:   # what a user of complex numbers writes
            text = re.sub(r"np\.zeros\((\d)\)", r"np.zeros(\1, dtype=complex)", text)
        self.emit(text)

    def s_augment(self, depth) -> None:
        scalars = self.of_kind("S")
        if not scalars:
            return self.s_assign(depth)
        target = self.pick(scalars).name
        operator = self.pick(["+=", "-=", "*="])
        self.feature("augmented-assignment")
        value = self.expr("S")
        if operator == "*=":
            value = f"(1.0 + 0.5 * np.tanh({value}))"
        self.emit(f"{target} {operator} {value}")

    def body(self, depth, count=None) -> None:
        """A nested block: its own new variables do not outlive it."""
        saved = len(self.vars)
        self.indent += 1
        self.block(count if count is not None else self.number(1, 3), depth + 1)
        self.indent -= 1
        del self.vars[saved:]

    def assign_joined(self, name, kind, depth) -> None:
        """Inside a branch: a few statements, then ``name = ...`` (seen after the branch)."""
        saved = len(self.vars)
        self.indent += 1
        self.block(self.number(0, 2), depth + 1)
        self.emit(f"{name} = {self.expr(kind)}")
        self.indent -= 1
        del self.vars[saved:]

    def s_if(self, depth) -> None:
        kind = self.pick(KINDS)
        existing = self.of_kind(kind)
        reuse = existing and self.chance(40)
        name = self.pick(existing).name if reuse else self.fresh()
        self.feature("if")
        self.emit(f"if {self.condition()}:")
        self.assign_joined(name, kind, depth)
        shape = self.number(0, 2)
        if shape == 1 and reuse:
            self.feature("if-without-else")
        else:
            if shape == 2:
                self.feature("elif")
                self.emit(f"elif {self.condition()}:")
                self.assign_joined(name, kind, depth)
            self.emit("else:")
            self.assign_joined(name, kind, depth)
        if not reuse:
            self.vars.append(_Var(name, kind))

    def s_ifexp(self, depth) -> None:
        kind = self.pick(KINDS)
        self.feature("conditional-expression")
        text = f"{self.expr(kind, 1)} if {self.condition()} else {self.expr(kind, 1)}"
        self.emit(f"{self.new_var(kind)} = {text}")

    def carried(self) -> list[_Var]:
        """One or two variables a loop updates (made before the loop if there are none)."""
        plain = [v for v in self.vars if isinstance(v.kind, str) and v.kind in SHAPES]
        chosen = []
        if plain and self.chance(70):
            chosen.append(self.pick(plain))
        if not chosen or self.chance(30):
            kind = self.pick(KINDS)
            value = self.pick(['0.0', '1.0']) if kind == 'S' else self.expr(kind, 1)
            name = self.new_var(kind, "acc")
            self.emit(f"{name} = {value}")
            chosen.append(self.vars[-1])
        return chosen

    def loop_body(self, depth, carried, allow_continue=True) -> None:
        saved = len(self.vars)
        self.indent += 1
        self.in_loop += 1
        jump_first = self.chance(15)
        if jump_first:
            self.jump(allow_continue)
        self.block(self.number(0, 2), depth + 1)
        for var in carried:
            update = self.pick(["{v} = 0.5 * {v} + {e}", "{v} = np.tanh({v} * {e})", "{v} = {v} + {e} / (1.0 + {v} ** 2)",
                                "{v} = {e} - 0.25 * {v}"])
            self.emit(update.format(v=var.name, e=_wrap(self.expr(var.kind, 1))))
        if not jump_first and self.chance(20):
            self.jump(allow_continue)
        self.in_loop -= 1
        self.indent -= 1
        del self.vars[saved:]

    def jump(self, allow_continue=True) -> None:
        what = self.pick(["break", "continue", "return"] if allow_continue else ["break", "return"])
        if self.in_helper and what == "return":
            what = "break"
        self.feature(what + "-in-loop")
        self.emit(f"if {self.condition()}:")
        self.indent += 1
        self.emit(f"return {self.output()}" if what == "return" else what)
        self.indent -= 1

    def s_for(self, depth) -> None:
        carried = self.carried()
        counts = self.of_kind("int")
        if counts and self.chance(40):
            bound_text, bound = f"range({self.pick(counts).name})", 3
            self.feature("for-range-argument")
        else:
            bound = self.number(1, 3)
            start = self.number(0, 1) if bound > 1 else 0
            bound_text = f"range({bound})" if start == 0 else f"range({start}, {bound})"
            self.feature("for-range")
        index = self.fresh("i")
        self.emit(f"for {index} in {bound_text}:")
        self.loop_index.append((index, bound))
        self.loop_body(depth, carried)
        self.loop_index.pop()

    def s_iterate(self, depth) -> None:
        """``for`` over rows, elements, enumerate, zip, or a list made earlier."""
        arrays = [v for v in self.vars if v.kind in ("V", "U", "M")]
        lists = [v for v in self.vars if isinstance(v.kind, tuple) and v.kind[0] == "list"]
        dicts = [v for v in self.vars if isinstance(v.kind, tuple) and v.kind[0] == "dict"
                 and len(set(v.kind[1].values())) == 1]
        forms = (["array"] if arrays else []) + (["list"] if lists else []) + (["dict"] if dicts else [])
        if not forms:
            return self.s_for(depth)
        form = self.pick(forms)
        carried = self.carried()
        saved = len(self.vars)
        if form == "array":
            source = self.pick(arrays)
            element = "V" if source.kind == "M" else "S"
            item = self.fresh("row" if element == "V" else "e")
            style = self.pick(["plain", "enumerate", "zip"])
            if style == "enumerate":
                self.feature("for-enumerate")
                position = self.fresh("j")
                self.emit(f"for {position}, {item} in enumerate({source.name}):")
            elif style == "zip":
                partners = [v for v in self.vars if v.kind == source.kind]
                partner = self.pick(partners)
                other = self.fresh("o")
                self.feature("for-zip")
                self.emit(f"for {item}, {other} in zip({source.name}, {partner.name}):")
                self.vars.append(_Var(other, element))
            else:
                self.feature("for-rows" if element == "V" else "for-elements")
                self.emit(f"for {item} in {source.name}:")
            self.vars.append(_Var(item, element))
        elif form == "list":
            source = self.pick(lists)
            item = self.fresh("item")
            self.feature("for-list")
            self.emit(f"for {item} in {source.name}:")
            self.vars.append(_Var(item, source.kind[1]))
        else:
            source = self.pick(dicts)
            key, item = self.fresh("key"), self.fresh("val")
            self.feature("for-dict-items")
            self.emit(f"for {key}, {item} in {source.name}.items():")
            self.vars.append(_Var(item, next(iter(source.kind[1].values()))))
        self.loop_body(depth, carried)
        del self.vars[saved:]

    def s_while(self, depth) -> None:
        carried = self.carried()
        counter = self.fresh("k")
        bound = self.number(1, 4)
        self.emit(f"{counter} = 0")
        test = f"{counter} < {bound}"
        if self.chance(40):
            self.feature("while-float-condition")
            test += f" and ({self.condition()})"   # parenthesised: `k < 3 and a or b` would never stop
        self.feature("while")
        self.emit(f"while {test}:")
        self.indent += 1
        self.emit(f"{counter} = {counter} + 1")   # first: a `continue` can never skip it
        self.indent -= 1
        self.loop_body(depth, carried)

    def s_fill(self, depth) -> None:
        """A fresh array filled element by element (or row by row) in a loop."""
        kind = self.pick(["V", "U", "M"])
        name = self.new_var(kind, "y")
        self.vars.pop()   # not readable inside its own filling loop, except as written below
        index = self.fresh("i")
        size = SHAPES[kind][0]
        element = "V" if kind == "M" else "S"
        recurrence = self.chance(30)
        creation = self.pick([f"np.zeros({SHAPES[kind]!r})", f"np.empty({SHAPES[kind]!r})",
                              f"np.zeros_like({CONST[kind][0]})"])
        self.feature("fill-array")
        self.emit(f"{name} = {creation}")
        if recurrence:
            self.feature("fill-recurrence")
            self.emit(f"{name}[0] = {self.expr(element)}")
            self.emit(f"for {index} in range(1, {size}):")
        else:
            self.emit(f"for {index} in range({size}):")
        self.loop_index.append((index, size))
        self.indent += 1
        self.in_loop += 1
        saved = len(self.vars)
        value = self.expr(element)
        if recurrence:
            value = f"0.5 * {_wrap(f'{name}[{index} - 1]')} + {_wrap(value)}" if self.chance(50) else \
                f"np.sin({name}[{index} - 1]) * {_wrap(value)}"
        self.emit(f"{name}[{index}] = {value}")
        del self.vars[saved:]
        self.in_loop -= 1
        self.indent -= 1
        self.loop_index.pop()
        self.vars.append(_Var(name, kind))

    def s_update(self, depth) -> None:
        """A copy changed in place: slices updated with +=, -=, *=, or elements set."""
        kind = self.pick(["V", "M", "U"])
        name = self.fresh("y")
        self.feature("copy-and-update")
        self.emit(f"{name} = {_wrap(self.expr(kind, 1))}.copy()")
        for _ in range(self.number(1, 2)):
            operator = self.pick(["+=", "=", "-=", "*="])
            if kind == "V":
                target, sub = self.pick([("[0:2]", "U"), ("[1:]", "U"), ("[1]", "S"), ("[:]", "V"), ("[::2]", "U")])
            elif kind == "U":
                target, sub = self.pick([("[0]", "S"), ("[1:]", "S"), ("[:]", "U")])
            else:
                target, sub = self.pick([("[0]", "V"), ("[:, 1]", "U"), ("[1, 2]", "S"), ("[:, 0:1]", "C"), ("[1, :]", "V")])
            if self.chance(30) and sub != "S":
                sub = "S"   # a scalar broadcast into the slice
            value = self.expr(sub, 1)
            if operator == "*=":
                value = f"(1.0 + 0.5 * np.tanh({value}))"
            self.feature("setitem" if operator == "=" else f"aug-setitem{operator}")
            self.emit(f"{name}{target} {operator} {value}")
        self.vars.append(_Var(name, kind))

    def s_list(self, depth) -> None:
        kind = self.pick(KINDS)
        name = self.fresh("L")
        form = self.pick(["append", "comprehension", "literal"])
        if form == "append":
            count = self.number(1, 3)
            self.feature("list-append")
            self.emit(f"{name} = []")
            index = self.fresh("i")
            self.emit(f"for {index} in range({count}):")
            self.loop_index.append((index, count))
            self.indent += 1
            saved = len(self.vars)
            self.emit(f"{name}.append({self.expr(kind)})")
            del self.vars[saved:]
            self.indent -= 1
            self.loop_index.pop()
            length = count
        elif form == "comprehension":
            count = self.number(1, 3)
            index = self.fresh("i")
            self.feature("list-comprehension")
            self.loop_index.append((index, count))
            element = self.expr(kind)
            self.loop_index.pop()
            condition = ""
            length = count
            if count > 1 and self.chance(30):
                condition = f" if {index} != 1"
                self.feature("comprehension-condition")
                length -= 1
            self.emit(f"{name} = [{element} for {index} in range({count}){condition}]")
        else:
            length = self.number(1, 3)
            self.feature("list-literal")
            self.emit(f"{name} = [{', '.join(self.expr(kind, 1) for _ in range(length))}]")
            if self.chance(40):
                self.feature("list-extend")
                self.emit(f"{name}.extend([{self.expr(kind, 1)}])")
                length += 1
        if length > 1 and self.chance(25):
            self.feature("list-pop")
            popped = self.new_var(kind)
            self.emit(f"{popped} = {name}.pop()")
            length -= 1
        if self.chance(20):
            self.feature("list-setitem")
            self.emit(f"{name}[0] = {self.expr(kind, 1)}")
        self.vars.append(_Var(name, ("list", kind, length)))

    def s_tuple(self, depth) -> None:
        kinds = (self.pick(KINDS), self.pick(KINDS))
        name = self.fresh("p")
        self.feature("tuple")
        self.emit(f"{name} = ({self.expr(kinds[0], 1)}, {self.expr(kinds[1], 1)})")
        if self.chance(50):
            self.feature("tuple-unpack")
            first, second = self.fresh(), self.fresh()
            self.emit(f"{first}, {second} = {name}")
            self.vars += [_Var(first, kinds[0]), _Var(second, kinds[1])]
        self.vars.append(_Var(name, ("tuple", kinds)))

    def s_dict(self, depth) -> None:
        kind = self.pick(KINDS)
        name = self.fresh("d")
        keys = {"a": kind, "b": self.pick([kind, self.pick(KINDS)])}
        self.feature("dict")
        if self.chance(25):
            self.feature("dict-comprehension")
            self.emit(f"{name} = {{key: {_wrap(self.expr(kind, 1))} * key for key in (1.0, 2.0)}}")
            keys = {1.0: kind, 2.0: kind}
        else:
            self.emit(f"{name} = {{'a': {self.expr(keys['a'], 1)}, 'b': {self.expr(keys['b'], 1)}}}")
            if self.chance(40):
                self.feature("dict-setitem")
                self.emit(f"{name}['c'] = {self.expr(kind, 1)}")
                keys["c"] = kind
        self.vars.append(_Var(name, ("dict", keys)))

    def s_closure(self, depth) -> None:
        kind = self.pick(KINDS)
        captured = self.of_kind("S")
        outside = self.pick(captured).name if captured else "0.5"
        name = self.fresh("g")
        if self.chance(50):
            self.feature("lambda")
            self.emit(f"{name} = lambda z: np.sin(z) * {outside} + z ** 2")
        else:
            self.feature("nested-def")
            self.emit(f"def {name}(z, k=2.0):")
            self.indent += 1
            self.emit(f"return np.tanh(z * k) + {outside} * z")
            self.indent -= 1
        calls = " + ".join(f"{name}({self.expr(kind, 1)})" for _ in range(self.number(1, 2)))
        self.emit(f"{self.new_var(kind)} = {calls}")

    def s_return(self, depth) -> None:
        if depth == 0 and not self.in_loop and not self.in_helper:
            self.feature("early-return")
            self.emit(f"if {self.condition()}:")
            self.indent += 1
            self.emit(f"return {self.output()}")
            self.indent -= 1
        else:
            self.s_assign(depth)

    def s_helper(self, depth) -> None:
        if self.helper is None:
            self.make_helper()
        helper = self.helper
        arguments = [self.expr(kind, 1) for _, kind in helper.params]
        if helper.default and self.chance(50):
            self.feature("helper-keyword")
            arguments.append(f"scale={self.expr('S', 1)}")
        self.feature("helper-call")
        self.emit(f"{self.new_var(helper.returns)} = {helper.name}({', '.join(arguments)})")

    def make_helper(self) -> None:
        """``helper``: a second generated function, with its own scope."""
        count = self.number(1, 2)
        params = [(f"h{i}", self.pick(KINDS)) for i in range(count)]
        default = self.chance(40)
        helper = _Helper("helper", params, default, self.pick(KINDS))
        helper.keyword_only = default and self.chance(40)
        helper.redefined = self.chance(25)
        saved = (self.lines, self.indent, self.vars, self.loop_index, self.in_loop)
        self.lines, self.indent, self.vars, self.loop_index, self.in_loop = [], 1, [_Var(n, k) for n, k in params], [], 0
        if default:
            self.vars.append(_Var("scale", "S"))
        self.in_helper = True
        self.helper = helper   # set before its body: the body cannot call it (no recursion)
        self.block(self.number(0, 3), 1)
        self.emit(f"return {_nonleaf(self.expr(helper.returns))}")
        helper.lines = self.lines
        self.in_helper = False
        self.lines, self.indent, self.vars, self.loop_index, self.in_loop = saved
        if default:
            self.feature("helper-default")
        if helper.keyword_only:
            self.feature("helper-keyword-only")
        if helper.redefined:
            self.feature("helper-redefined")

    # ------------------------------------------------------------- the output
    def output(self) -> str:
        kind = self.output_kind
        recent = [v for v in self.vars if isinstance(v.kind, str) and v.kind in SHAPES][-3:]
        terms = []
        for var in recent[-self.number(1, 3):] if recent else []:
            terms.append(self.convert(var.name, var.kind, kind) if not self.chance(30) else
                         self.convert(self.expr(var.kind, 1), var.kind, kind))
        terms.append(self.expr(kind, 1))
        weights = ["", "0.5 * ", "2.0 * "]
        text = " + ".join(self.pick(weights) + _wrap(t) for t in terms)
        if self.complex:   # a real output: the loss of a complex program
            form = self.pick(["np.real({})", "np.abs({}) ** 2", "np.imag({})"])
            self.feature("complex-output")
            text = form.format(text)
        return text


def _check_small_range(low: int, high: int) -> None:
    """Every integer the generator draws lies in (-100, 100): the same seed, the same programs.

    Hypothesis (6.131 and later) sometimes answers an integer draw with a constant it read from
    the source of a "local" module in ``sys.modules`` (anything outside site-packages and the
    standard library: s2sad itself, its generated modules, the oracle's program files), but
    never with one in (-100, 100). Which constants exist depends on what the process imported
    before, so a draw over a wider range (the direction seed was one, 0..65536) made the
    programs after ``--seed S`` depend on what ran earlier (an oracle run imports dozens of
    modules), and one changed draw changes every later program of the run."""
    if low <= -100 or high >= 100:
        raise ValueError(f"a draw over [{low}, {high}] could take a constant from an imported module: "
                         "split it into draws in (-100, 100)")


def _wrap(text: str) -> str:
    """Parenthesise an expression unless it is a name, a literal, a call or a subscript."""
    stripped = text.strip()
    if stripped.replace("_", "").replace(".", "").isalnum():
        return stripped
    depth = 0
    for position, char in enumerate(stripped):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and (char in " +-*/@%<>=!" and position > 0):
            return f"({stripped})"
    if stripped.startswith(("-", "+", "not ")):
        return f"({stripped})"
    return stripped


def _nonleaf(text: str) -> str:
    """A helper returns a computed value, never one of its parameters itself."""
    return f"1.0 * {_wrap(text)}" if text.replace("_", "").isalnum() else text


HEADER = "import math\n\nimport numpy as np\n"


def _module_text(writer: _Writer, params: list[Param]) -> str:
    parts = [HEADER]
    if writer.library:
        parts.append("import functools\n")
    if any("scipy.special." in line for line in writer.lines + (writer.helper.lines if writer.helper else [])):
        parts.append("import scipy.special\n")
    parts += [f"\n{LIBRARY[name]}" for name in writer.library]
    helper = writer.helper
    if helper is not None:
        signature = ", ".join(name for name, _ in helper.params)
        if helper.default:
            signature += ", *, scale=0.5" if helper.keyword_only else ", scale=0.5"
        parts.append(f"\ndef {helper.name}({signature}):\n" + "\n".join(helper.lines) + "\n")
        if helper.redefined:   # the same body, its result scaled: the oracle rebinds `helper` to it
            *body, last = helper.lines
            returned = last.strip()[len("return "):]
            lines = body + [f"    return 1.5 * {_wrap(returned)}"]
            parts.append(f"\ndef {helper.name}_redefined({signature}):\n" + "\n".join(lines) + "\n")
    parts.append(f"\ndef f({', '.join(p.name for p in params)}):\n" + "\n".join(writer.lines) + "\n")
    return "\n".join(parts)


# ------------------------------------------------------------------ inputs and their margin

def _input_value(draw, kind: str, number_type: str = "float64"):
    """Tenths in [-1.5, 1.5]: readable in a regression file, and shrinking toward 0."""
    if kind == "int":
        return draw(st.integers(1, 3))
    if kind in STRUCTURED:
        return _structured_value(draw, kind, number_type)
    return _array_value(draw, SHAPES[kind], number_type)


def _structured_value(draw, kind: str, number_type: str):
    """A structured input (see ``STRUCTURED``); a namedtuple or dataclass as a ``trees.Record``."""
    def leaf(shape):
        return _array_value(draw, shape, number_type)

    if kind == "layers":
        return [(leaf((2, 3)), leaf((2,))), (leaf((2, 2)), leaf((2,)))]
    if kind == "params":
        return {"W": leaf((2, 3)), "b": leaf((2,)), "s": leaf(()), "steps": draw(st.integers(1, 2))}
    if kind == "linear":
        return trees.Record("Linear", (("W", leaf((2, 3))), ("b", leaf((2,)))))
    return trees.Record("Net", (("W", leaf((2, 3))), ("b", leaf((2,))), ("scale", leaf(()))))


def _array_value(draw, shape: tuple, number_type: str):
    count = int(np.prod(shape)) if shape else 1
    tenths = np.array(draw(st.lists(st.integers(-15, 15), min_size=count, max_size=count)), dtype=np.float64)
    if number_type == "complex128":
        tenths = tenths + 1j * np.array(draw(st.lists(st.integers(-10, 10), min_size=count, max_size=count)))
    value = tenths.reshape(shape) / 10.0
    if number_type == "float32":
        value = value.astype(np.float32)
    if shape == ():
        return value[()] if number_type == "float32" else value.item()
    return value


def _shifted(value, shift: float):
    """The input moved by ``shift`` (its real part), kept to 10 decimals and its own type."""
    if trees.is_container(value):
        return trees.tree_map(lambda leaf: _shifted(leaf, shift), value)
    if isinstance(value, np.ndarray):
        return np.round(value + shift, 10).astype(value.dtype)
    if isinstance(value, np.float32):
        return np.float32(round(float(value) + shift, 10))
    if isinstance(value, complex):
        return complex(round(value.real + shift, 10), value.imag)
    return round(value + shift, 10)


SHIFTS = (0.0, 0.13, -0.17, 0.31, -0.37, 0.61, -0.53)


def _finite(value) -> bool:
    array = np.abs(np.asarray(value))
    return bool(np.all(np.isfinite(array))) and float(np.max(np.abs(array), initial=0.0)) < LARGEST_VALUE


@st.composite
def programs(draw, allow_helper: bool = True, array_outputs: bool = True, max_statements: int = 8,
             exclude: frozenset = frozenset(), scalars_only: bool = False, families: frozenset = frozenset()) -> Program:
    """A random program and inputs at which it is smooth (see the module docstring);
    ``scalars_only``: its parameters are scalars (what compile=True compiles); ``families``:
    its idioms come from these groups of ``idioms.IDIOM_FAMILIES`` only."""
    number_type = NUMBER_TYPES[draw(st.sampled_from([0, 0, 0, 1, 2]))]
    writer = _Writer(draw, number_type)
    writer.families = frozenset(families)
    count = draw(st.integers(1, 3))
    params = []
    used = set()
    for _ in range(count):
        kind = "S" if scalars_only else draw(st.sampled_from(KINDS))
        name = next(n for n in PARAM_NAMES[kind] if n not in used)
        used.add(name)
        params.append(Param(name, kind, None))
    if not scalars_only and writer.chance(25):   # a list of layers, a dict, a namedtuple or a dataclass
        kind = draw(st.sampled_from(tuple(STRUCTURED)))
        hole, _, needed = STRUCTURED[kind]
        params.append(Param(kind, kind, None))
        writer.structured[hole] = kind
        if needed:
            writer.library.append(needed)
    if writer.chance(25):
        params.append(Param("n", "int", None))
        writer.features.add("int-argument")
    writer.vars = [_Var(p.name, STRUCTURED[p.kind][1] if p.kind in STRUCTURED else p.kind) for p in params]
    writer.arguments = [p.name for p in params if p.kind == "V"]
    writer.output_kind = "S" if not array_outputs or writer.chance(75) else draw(st.sampled_from(KINDS[1:]))
    if writer.output_kind != "S":
        writer.features.add("array-output")
    statements = draw(st.integers(1, max_statements))
    writer.block(statements, 0)
    if writer.structured:   # the structured parameter is read at least once, late: its value likely reaches the output
        writer.s_idiom(0, reading=next(iter(writer.structured)))
    if not allow_helper and writer.helper is not None:
        assume(False)
    writer.emit(f"return {writer.output()}")
    for feature in exclude:
        assume(feature not in writer.features)
    source = _module_text(writer, params)
    # the inputs, shifted until every condition is at least MARGIN from its threshold
    base = [_input_value(draw, p.kind, number_type) for p in params]
    probe = Probe(source)
    chosen = None
    for shift in SHIFTS:
        values = [v if p.kind == "int" else _shifted(v, shift) for p, v in zip(params, base)]
        try:
            value, records = probe.run(trees.materialise(copy.deepcopy(values), probe.namespace))   # f may write into one
        except (ArithmeticError, RunawayProgram):
            continue
        except (TypeError, ValueError):   # NumPy itself refuses it (a complex value into a float array...)
            assume(False)
        if not _finite(value):
            continue
        if all(abs(difference) >= MARGIN - 1e-9 for _, difference in records):
            chosen = values
            break
    assume(chosen is not None)
    for p, v in zip(params, chosen):
        p.value = v
    seed = 100 * draw(st.integers(0, 99)) + draw(st.integers(0, 99))   # two small draws: see _check_small_range
    features = frozenset(writer.features | features_of(source) | {f"input:{p.kind}" for p in params}
                         | {f"number-type:{number_type}"})
    return Program(source, params, writer.output_kind, features, seed, uses_helper=writer.helper is not None)


def sample(seed: int, count: int, **options) -> list[Program]:
    """The programs one hypothesis run with this seed draws (no shrinking, no database): the same
    list in any process, whatever it ran or imported before (see ``_check_small_range``)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    drawn = []

    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @hypothesis_seed(seed)
    @given(programs(**options))
    def collect(program):
        drawn.append(program)

    collect()
    return drawn
