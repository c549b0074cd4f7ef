"""Forward mode's tangent facts alone: what each loop's body may start from is found before a
line is written, and the pushforward writes each loop body once.

The numbers are checked against finite differences here and by test_forward, the rules'
forward tests and the fuzzer; these tests check the facts and that no body is written twice.
"""
import numpy as np
import pytest

import s2sad
from s2sad.analysis.activity import analyse as analyse_activity
from s2sad.analysis.tangent_flow import ITEMS_FLAG, SHAPED_FLAG, ZERO_FLAG, Change, TangentFacts, analyse, change_of
from s2sad.analysis.tangent_flow import FunctionFacts
from s2sad.analysis.reads import names_read_by
from s2sad.codegen import forward
from s2sad.frontend.ir import Loop, operations_of
from s2sad.frontend.normalize import normalize
from s2sad.frontend.source import read_function


def heads_of(function, *wrt):
    ir = normalize(read_function(function))
    activity = analyse_activity(ir, wrt)
    heads = analyse(ir, set(wrt), activity, names_read_by(ir))
    loops = [item for item in ir.statements if isinstance(item, Loop)]
    return [heads[id(loop)] for loop in loops], ir


def central(f, x, v, step=1e-6):
    return (f(x + step * v) - f(x - step * v)) / (2 * step)


def reset_after_first(x, n):
    total = x
    for i in range(n):
        y = total * 2.0
        total = 0.0      # from the second iteration on, the carried tangent is ZERO
        total = total + y
    return total


def carries_a_constant(x, n):
    total = x
    for i in range(n):
        total = 1.0      # the carried value becomes a constant: its tangent ZERO from then on
    return total + x


def keeps_its_tangent(x, n):
    total = x
    for i in range(n):
        total = total * 1.5 + x
    return total


def test_a_tangent_an_iteration_leaves_zero_may_be_zero_at_the_top():
    (head,), _ = heads_of(carries_a_constant, "x")
    assert "total" in head[ZERO_FLAG] and "total" in head[SHAPED_FLAG]


def test_a_tangent_every_iteration_keeps_is_not_flagged():
    (head,), _ = heads_of(keeps_its_tangent, "x")
    assert not any(head.values())


@pytest.mark.parametrize("function", [reset_after_first, carries_a_constant, keeps_its_tangent])
def test_the_pushforward_matches_finite_differences(function):
    for n in (0, 1, 3):
        _, tangent = s2sad.jvp(function, (0.7, n), (1.0, 0))
        assert tangent == pytest.approx(central(lambda t: function(t, n), 0.7, 1.0), rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("function", [reset_after_first, carries_a_constant, keeps_its_tangent])
def test_each_loop_body_is_written_once(function, monkeypatch):
    written = []
    original = forward.ForwardGenerator.loop_code

    def counting(self, loop):
        written.append(id(loop))
        return original(self, loop)

    monkeypatch.setattr(forward.ForwardGenerator, "loop_code", counting)
    s2sad.transform.transform(function, ("x",), "forward")
    assert written and len(written) == len(set(written))


def test_the_change_of_an_operation_reads_the_facts_before_it():
    ir = normalize(read_function(keeps_its_tangent))
    activity = analyse_activity(ir, ("x",))
    known = FunctionFacts(ir, activity)
    facts = TangentFacts(lambda name: "d" + name)
    facts.tangents.add("x")
    (copy,) = [op for op in operations_of(ir.statements) if op.kind == "copy" and op.target == "total"
               and getattr(op.args[0], "name", None) == "x"]
    assert change_of(copy, facts, known) == Change("total", False, False, False)
    facts.flag("x", maybe_zero=True, zero_items=False)
    assert change_of(copy, facts, known) == Change("total", True, False, True)


def list_builder(x, n):
    items = []
    for i in range(n):
        items.append(x * i)
    return np.sum(np.array(items))


def test_a_list_filled_in_a_loop_may_hold_zero_items():
    (head,), _ = heads_of(list_builder, "x")
    assert head[ITEMS_FLAG] <= {"items"}
    _, tangent = s2sad.jvp(list_builder, (0.3, 4), (1.0, 0))
    assert tangent == pytest.approx(0 + 1 + 2 + 3)
