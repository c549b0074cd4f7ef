"""A forward template's ``name=name`` keyword is dropped from the generated code when the call
leaves ``name`` at its default (s2sad/codegen/forward_operations.py, ``_without_defaults``): the
template's callee then uses its own default, which must be the rule's. Found by this check:
``np.add.reduce``'s ``axis=0`` reached ``np.sum`` as ``np.sum(dx)``, which sums every axis
(a wrong jvp of ``np.add.reduce(x)`` for a 2-d ``x``); such defaults are now written out."""
import ast
import inspect

import numpy as np
import pytest

import s2sad
from s2sad.registry import all_rules, template_namespace
from s2sad.registry.forward import forward_rule


def _dropped_keywords():
    """(rule, keyword, the rule's default, the callee's default) for every ``k=k`` keyword of a
    registered forward template whose rule default is dropped (None, False, True)."""
    namespace = template_namespace()
    for rule in all_rules():
        forward = forward_rule(rule.function) if rule.signature is not None else None
        if forward is None or forward.rule is not rule:
            continue
        for param in rule.signature.parameters:
            template = forward.template(param)
            if not template:
                continue
            for node in ast.walk(ast.parse(template, mode="eval")):
                if not isinstance(node, ast.Call):
                    continue
                for keyword in node.keywords:
                    if not (isinstance(keyword.value, ast.Name) and keyword.value.id == keyword.arg
                            and keyword.arg in rule.signature.parameters):
                        continue
                    default = rule.signature.parameters[keyword.arg].default
                    if default is None or default is True or default is False:
                        callee = eval(compile(ast.Expression(node.func), "<template>", "eval"), namespace)
                        yield rule.name, keyword.arg, default, inspect.signature(callee).parameters[keyword.arg].default


def test_a_dropped_keyword_leaves_the_callee_at_the_rules_default():
    checked = list(_dropped_keywords())
    assert len(checked) >= 10  # np.sum's, np.mean's, ...: the check reads the templates
    for name, keyword, rule_default, callee_default in checked:
        # NumPy's "no value" stands for its documented default: False for keepdims, True for where
        same = callee_default is rule_default or (callee_default is np._NoValue and rule_default in (False, True))
        assert same, f"{name}: dropping {keyword}={keyword} gives the callee's default {callee_default!r}, " \
                     f"not the rule's {rule_default!r}"


def add_reduce_rows(x):
    return np.sum(np.array([1.0, 2.0, 3.0]) * np.add.reduce(x) ** 2)


def test_a_default_other_than_none_or_a_bool_is_written_out():
    x = np.arange(6.0).reshape(2, 3) / 5
    v = np.ones((2, 3))
    _, tangent = s2sad.jvp(add_reduce_rows, (x,), (v,))
    # d/dt sum(w * (colsum(x + t v))^2) = sum(2 w colsum(x) colsum(v))
    assert tangent == pytest.approx(np.sum(2 * np.array([1.0, 2.0, 3.0]) * x.sum(axis=0) * v.sum(axis=0)))
