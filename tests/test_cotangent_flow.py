"""The cotangent-flow analysis alone: small functions normalised, analysed, and its facts checked.

The facts say, before the pullback is written, which cotangents hold a value, may hold a
Thunk or may hold ZERO at each point; the generated code reads them (test_loops,
test_control_flow and the fuzzer check the numbers).
"""
import math

import numpy as np
import pytest

import s2sad
from s2sad.analysis.activity import analyse as analyse_activity
from s2sad.analysis.cotangent_flow import Contribution, analyse, contributions
from s2sad.codegen.core import Emitter
from s2sad.frontend.ir import Branch, Jump, Loop, Var, operations_of
from s2sad.frontend.naming import Namer
from s2sad.frontend.normalize import normalize
from s2sad.frontend.source import read_function


class Analysed:
    """A function's IR, its activity and its cotangent flow, with lookups by name."""

    def __init__(self, function, *wrt, restored=frozenset()):
        self.ir = normalize(read_function(function))
        self.activity = analyse_activity(self.ir, wrt)
        self.treatment = Emitter(self.ir, wrt, function, Namer(), self.activity).treatment
        self.flow = analyse(self.ir, self.activity, self.treatment, True, restored)

    def operation(self, target):
        (found,) = [op for op in operations_of(self.ir.statements) if op.target == target and op.kind != "mutate"]
        return found

    def items(self, kind, block=None):
        found = []
        for item in self.ir.statements if block is None else block:
            if isinstance(item, kind):
                found.append(item)
            if isinstance(item, Loop):
                found += self.items(kind, item.body)
            if isinstance(item, Branch):
                found += self.items(kind, item.then) + self.items(kind, item.orelse)
        return found

    def contributions(self, target):
        return contributions(self.operation(target), self.activity, self.treatment)


# ---------------------------------------------------------------- loops

def late_zero(x, n):
    a = x
    b = 0.0
    for i in range(n):
        c = a * 2.0
        a = np.sin(b)
        b = c
    return a


def test_a_carried_cotangent_zero_only_from_the_second_reverse_iteration_on():
    """``db`` starts at ZERO (nothing after the loop reads ``b``); the first reverse iteration
    hands it to ``dc``, so ``c = a * 2.0`` is guarded and may leave ``da`` ZERO: ``da`` is
    ZERO at the top of the second iteration only. The facts hold for every iteration."""
    analysed = Analysed(late_zero, "x")
    (loop,) = analysed.items(Loop)
    facts = analysed.flow.loops[id(loop)]
    assert facts.starts == ["b"]                 # da holds the seed; db starts at ZERO
    assert facts.zero_at_top == {"a", "b"}
    # the reverse of `a_2 = np.sin(b)` reads da_2, which is da at the top of an iteration
    assert analysed.flow.reversal(analysed.operation("a_2")).guard == ("b",)
    # ... and `c = a * 2.0`, whose dc is db_2's: da (consumed by the back edge) starts at ZERO before it
    assert analysed.flow.reversal(analysed.operation("c")).guard == ("a",)
    assert "a" in analysed.flow.final.zero      # the loop may run no iteration, or leave it ZERO


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
def test_the_late_zero_loop_differentiates_right(n):
    def expected(x):
        a, b = x, 0.0
        for _ in range(n):
            a, b = np.sin(b), a * 2.0
        return a

    step = 1e-6
    numeric = (expected(0.3 + step) - expected(0.3 - step)) / (2 * step)
    assert s2sad.grad(late_zero)(0.3, n) == pytest.approx(numeric, rel=1e-6, abs=1e-9)


def with_break(x, n):
    s = x
    for i in range(n):
        s = s * x
        if i > 2:
            break
        s = s + 1.0
    return s


def with_continue(x, n):
    s = x
    for i in range(n):
        s = s * x
        if i == 1:
            continue
        s = np.sin(s)
    return s


@pytest.mark.parametrize("function", [with_break, with_continue])
def test_a_jump_sends_the_carried_cotangent_to_the_version_it_copied(function):
    analysed = Analysed(function, "x")
    (jump,) = analysed.items(Jump)
    (edge,) = jump.edges                        # s = s_2 on the way out
    reversal = analysed.flow.reversal(edge)
    assert reversal.contributions == [Contribution(Var("s_2"), passes="s")]
    # on the jump's path nothing else reached ds_2 yet: assigned, not accumulated
    assert reversal.accumulates == [False]
    (branch,) = analysed.items(Branch)
    # the jumping path and the other both reach ds_2: no path needs a ZERO for it
    assert analysed.flow.branches[id(branch)] == ([], [])
    (loop,) = analysed.items(Loop)
    assert analysed.flow.loops[id(loop)].zero_at_top == set()


@pytest.mark.parametrize("function", [with_break, with_continue])
def test_a_jump_differentiates_right(function):
    step = 1e-6
    for n in (0, 2, 5):
        numeric = (function(0.4 + step, n) - function(0.4 - step, n)) / (2 * step)
        assert s2sad.grad(function)(0.4, n) == pytest.approx(numeric, rel=1e-6)


# ---------------------------------------------------------------- branches

def one_path(x, y, flag):
    if flag > 0:
        z = x * y
    else:
        z = np.sin(x)
    return z


def test_a_cotangent_only_one_path_contributes_to_is_zero_on_the_other():
    analysed = Analysed(one_path, "x", "y")
    (branch,) = analysed.items(Branch)
    assert analysed.flow.branches[id(branch)] == ([], ["y"])   # the else path sets dy = ZERO
    final = analysed.flow.final
    assert {"x", "y"} <= final.assigned
    assert "y" in final.zero and "x" not in final.zero


# ---------------------------------------------------------------- in-place changes

def fill(x):
    y = np.zeros(3)
    for i in range(3):
        y[i] = x[i] * 2.0
    return np.sum(y)


def test_an_element_assignment_in_a_loop_routes_the_container_cotangent_to_the_value():
    analysed = Analysed(fill, "x")
    (write,) = [op for op in operations_of(analysed.ir.statements) if op.kind == "mutate"]
    undoing = analysed.flow.undoings[id(write)]
    assert undoing.flowing and not undoing.unthunk
    # the item written may have had no cotangent (ZERO where nothing read it)
    assert undoing.contributions == [Contribution(Var("x_i_mul_2_0"), zero=True)]
    assert undoing.accumulates == [False]
    # so the product's reverse is guarded, and x_i's starts at ZERO in case it is skipped
    assert analysed.flow.reversal(analysed.operation("x_i_mul_2_0")).guard == ("x_i",)
    # x[i] gives a Thunk (untake): its cotangent may be one after the loop
    assert "x" in analysed.flow.final.thunk
    (loop,) = analysed.items(Loop)
    assert analysed.flow.loops[id(loop)].starts == ["x"]


def appended(x):
    ys = []
    for i in range(3):
        ys.append(x * i)
    return ys[0] + ys[2]


def test_an_append_in_a_loop():
    analysed = Analysed(appended, "x")
    (write,) = [op for op in operations_of(analysed.ir.statements) if op.kind == "mutate"]
    undoing = analysed.flow.undoings[id(write)]
    assert undoing.flowing
    (contribution,) = undoing.contributions
    assert contribution.zero                    # an item nobody read is ZERO
    assert s2sad.grad(appended)(1.5) == pytest.approx(2.0)


# ---------------------------------------------------------------- what one operation contributes

def calls(x, y, A):
    p = x * y
    t = (x, y)
    m = A.sum()
    return p + t[0] + m


def test_what_each_kind_of_operation_contributes():
    analysed = Analysed(calls, "x", "y", "A")
    # a rule's template: never a Thunk, never ZERO
    product = analysed.contributions("p")
    assert [c.atom for c in product] == [Var("x"), Var("y")] and not any(c.thunk or c.zero for c in product)
    # a tuple's items: ZERO for an item never read
    assert analysed.contributions("t") == [Contribution(Var("x"), key=0, zero=True), Contribution(Var("y"), key=1, zero=True)]
    # a method's pullback may give Thunks or ZERO
    (contribution,) = analysed.contributions("m")
    assert contribution.atom == Var("A") and contribution.thunk and contribution.zero


# ---------------------------------------------------------------- guards

def copysign_pair(x, dx):
    a = x * x
    c = math.copysign(a, x)
    dc = dx * math.copysign(1.0, a)  # copysign gives no gradient to its second argument
    return c, c * dc


def test_a_guarded_reverse_starts_only_what_it_contributes_to():
    """``dc_mul_dc`` may be ZERO, so the reverse of ``copysign(1.0, a)`` runs under a guard; the
    rule gives ``a`` no gradient, so ``a``'s cotangent is not started there (the emitter writes
    no start for an empty block): the later ``copysign(a, x)`` assigns it (it once accumulated
    into a name never assigned: UnboundLocalError, found by hvp through math.copysign)."""
    analysed = Analysed(copysign_pair, "x", "dx")
    guarded = analysed.flow.reversal(analysed.operation("copysign_1_0_a"))
    assert guarded.guard == ()
    x, dx = 1.3, 0.7
    expected = (2 * x * dx, x * x)  # d/dx, d/ddx of x**2 * dx for x > 0
    actual = s2sad.grad(lambda x, dx: copysign_pair(x, dx)[1], argnums=(0, 1))(x, dx)
    np.testing.assert_allclose(actual, expected, rtol=1e-12)
