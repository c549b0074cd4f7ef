"""Bad input: each case gives an s2sad error that names the place and says what to do.

This extends tests/test_fence.py (19 refused constructs in CASES, a builtin without a
rule, an exec-defined function), tests/test_control_flow.py (changing an argument in place)
and tests/test_cli.py (a missing file, a FILE:FUNC naming nothing), which are not repeated.

What "a good error" means here (``assert_good_error``):

* it is an ``s2sad.errors.S2SADError`` (for the command line: exit status 1, a compiler-style
  ``...error: ...`` message on stderr, no ``Traceback``);
* its message names the place: the user's file, line and column (syntax, a call site), or
  the function / argument / rule concerned;
* it says what to do: a ``hint:`` line;
* it is not chained to an internal exception (no "During handling of the above exception"
  when printed: ``raise ... from None``);
* the user's inputs are unchanged, and no partial file is left (cache or ``emit`` output).

Decisions recorded by these tests:

* An error the user's own computation raises (a shape mismatch in ``W @ x``, a broadcast
  error) keeps its own type, as calling ``f`` directly would raise it, and s2sad adds a
  note naming the user's file and line (``test_shape_error_inside_the_function``). Turning
  it into an S2SADError would break ``except ValueError`` in user code.
* NaN and inf inputs are not errors: gradients are what NumPy gives evaluating the
  derivative's formula (NaN propagates, ``tanh'(inf) = 0``, ``(x**2)'(inf) = inf``), with
  no exception, and a NaN branch condition takes the branch Python takes.

Cases marked ``xfail(strict=True)`` are bugs in s2sad today; each reason says what happens now.
"""
import copy
import functools
import itertools
import math
import operator
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s2sad
from s2sad.errors import (ArgumentError, MissingRuleError, RuleError, S2SADError, SourceUnavailableError,
                          UnsupportedSyntaxError)

FILE = os.path.abspath(__file__)
ROOT = os.path.dirname(os.path.dirname(FILE))


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    """A cache of its own per test; afterwards, no temporary (partial) entry may be left in it."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(cache))
    yield cache
    if cache.exists():
        # entries (.py) and their compiled code (.pyc) only: no temporary file
        leftovers = [p.name for p in cache.iterdir() if not (p.name.startswith("s2sad_") and p.suffix in (".py", ".pyc"))]
        assert not leftovers, f"partial cache files left behind: {leftovers}"


def marked_line(marker: str) -> int:
    with open(FILE) as stream:
        for number, line in enumerate(stream, start=1):
            if line.rstrip().endswith(f"# bad: {marker}"):
                return number
    raise AssertionError(f"no line marked {marker!r}")


def raised(function, *args, **kwargs):
    """Call ``function`` on deep copies' originals, check the inputs are unchanged, return the error."""
    before = copy.deepcopy(args)
    with pytest.raises(Exception) as caught:
        function(*args, **kwargs)
    for old, new in zip(before, args):
        if isinstance(old, np.ndarray):
            np.testing.assert_array_equal(old, new)
        elif isinstance(old, (float, int, str)):
            assert old == new
    return caught.value


def assert_good_error(error, kind=S2SADError, *, names=(), line=None, hint=True):
    assert isinstance(error, kind), f"{type(error).__name__}: {error}"
    text = str(error)
    for name in names:
        assert name in text, f"{name!r} not named in: {text}"
    if line is not None:
        assert error.location is not None, text
        assert os.path.abspath(error.location.filename) == FILE, error.location
        assert error.location.line == marked_line(line), (error.location, text)
        assert text.startswith(f"{error.location}: error: ")
    if hint:
        assert "\nhint: " in text, f"no hint in: {text}"
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__), \
        f"chained to an internal {type(error.__context__).__name__}: {error.__context__!r}"


# ====================================================================== unsupported syntax
# (test_fence.py covers: attribute assignment, a nested function used as a value, yield, try,
#  with, global, del, y[i][j] = v, f(*xs), set comprehensions, := where
#  it is not first in a test, nonlocal outside a nested function's first lines, recursive
#  nested defs, async, undefined names, unknown attributes, calling a computed value.)

def uses_nonlocal(x):
    total = x

    def double():
        for _ in range(2):
            nonlocal total  # bad: nonlocal
            total = total * 2.0

    double()
    return total


def uses_import(x):
    import a_module_nobody_installed  # bad: import
    return x * a_module_nobody_installed.pi


def uses_class(x):
    class Local:  # bad: class
        scale = x
    return x * Local.scale


def uses_match(x):
    match x:  # bad: match
        case 1.0:
            return x
    return x * 2.0


def uses_set_literal(x):
    values = {1.0, 2.0}  # bad: set literal
    return x * len(values)


def uses_starred_element(x):
    total = 0.0  # a starred loop target is refused (a display, `[*x]`, is joined from its pieces)
    for first, *rest in [(x, x)]:  # bad: starred element
        total = total + np.sum(first)
    return total


class Holder:
    value = 0.0


def loop_target_is_an_attribute(x):
    holder = Holder()
    for holder.value in range(3):  # bad: loop target
        pass
    return x


def augmented_attribute(x):
    holder = Holder()
    holder.inner.value += x  # bad: augmented nested attribute
    return holder.value


def decorated_nested_function(x):
    @functools.lru_cache  # bad: decorated nested
    def inner(v):
        return v
    return inner(x)


def annotated_element(x):
    y = np.zeros(3)
    y[0]: float = x  # bad: annotated element
    return np.sum(y)


def changes_a_view_of_an_argument(x):
    view = x[1:]
    view[0] = 1.0  # bad: view of argument
    return np.sum(x)


def sorts_in_place(x):
    values = [x, 2.0 * x]
    values.sort()  # bad: sort
    return values[0]


def reverses(x):
    values = [x, 2 * x]
    values.reverse()  # bad: reverse
    return values[0]


def removes(x):
    values = [x, 1.0]
    values.remove(1.0)  # bad: remove
    return values[0]


def updates_a_dict(x):
    d = {"a": x}
    d.update({"b": x})  # bad: update
    return d["a"]


def generator_callee(x):  # bad: endless generator
    while True:
        yield x


def calls_a_generator(x):
    total = 0.0
    for value in generator_callee(x):
        total = total + value
    return total


def inline_lambda_as_a_value(x):
    return list(itertools.accumulate(x, lambda a, b: a + b))[-1]  # bad: inline lambda


SYNTAX = [
    # function, marker, kind, words the message must contain
    (uses_nonlocal, "nonlocal", "`nonlocal`"),
    (uses_import, "import", "cannot be imported"),
    (uses_class, "class", "reads the variable `x`"),
    (uses_match, "match", "`match`"),
    (uses_set_literal, "set literal", "set literals"),
    (uses_starred_element, "starred element", "starred"),
    (loop_target_is_an_attribute, "loop target", "loop variable"),
    (augmented_attribute, "augmented nested attribute", "nested attribute"),
    (decorated_nested_function, "decorated nested", "decorated nested function"),
    (annotated_element, "annotated element", "annotated element"),
    (changes_a_view_of_an_argument, "view of argument", "changes `view` in place, which may be `x`"),
    (sorts_in_place, "sort", "`.sort()` of a list"),
    (reverses, "reverse", "`.reverse(...)`"),
    (removes, "remove", "`.remove(...)`"),
    (updates_a_dict, "update", "`.update(...)`"),
    (calls_a_generator, "endless generator", "a generator with a `while` loop"),
]


@pytest.mark.parametrize("function, marker, words", SYNTAX, ids=[case[0].__name__ for case in SYNTAX])
def test_unsupported_syntax_is_refused_at_its_line_with_a_hint(function, marker, words):
    x = np.array([0.5, 1.5, 2.5]) if "argument" in marker or marker == "starred element" else 1.0
    error = raised(s2sad.grad(function), x)
    assert_good_error(error, UnsupportedSyntaxError, names=(words,), line=marker)
    lines = str(error).splitlines()
    assert lines[2].strip() == "^" and lines[1].strip() in open(FILE).read()   # the line, and a caret


def test_a_lambda_passed_to_a_function_without_a_rule_is_refused_at_the_call():
    # the lambda itself is a value s2sad can pass on; itertools.accumulate has no rule and no source
    error = raised(s2sad.grad(inline_lambda_as_a_value), np.array([0.5, 1.5]))
    assert_good_error(error, MissingRuleError, line="inline lambda", names=("itertools.accumulate",))


def calls_a_vectorized_lambda(x):
    return np.sum(np.frompyfunc(lambda v: v, 1, 1)(x))  # bad: vectorized lambda


def test_calling_a_compiled_wrapper_of_a_lambda_is_refused_where_it_is_called():
    error = raised(s2sad.grad(calls_a_vectorized_lambda), np.array([0.5, 1.5]))
    assert_good_error(error, MissingRuleError, line="vectorized lambda", names=("no rule for <lambda> (vectorized)",))


def nested_def_as_a_value(x):
    def square(a, v):
        b = v * v
        return a + b
    # (a nested def of one `return` is the lambda it is equivalent to: differentiated)
    return functools.reduce(square, x)  # bad: nested def


def test_the_hint_for_a_nested_function_used_as_a_value_names_it():
    error = raised(s2sad.grad(nested_def_as_a_value), np.array([0.5, 1.5]))
    assert_good_error(error, UnsupportedSyntaxError, names=("`square`",), line="nested def")
    assert "{name}" not in str(error) and "square(x)" in str(error)


def test_a_lambda_is_differentiated_from_its_own_columns():
    # two lambdas on one line with the same parameter: each is found by its code's positions
    square, cube = lambda v: v * v, lambda v: v * v * v
    assert s2sad.grad(square)(3.0) == 6.0 and s2sad.grad(cube)(3.0) == 27.0


# ====================================================================== functions without source

def test_a_c_function_without_a_rule():
    error = raised(s2sad.grad(math.ulp), 1.5)
    assert_good_error(error, SourceUnavailableError, names=("ulp", "builtin or C function", "register a rule"))


def test_a_lambda_made_with_exec_as_at_a_repl():
    namespace = {}
    exec("f = lambda x: x * x", namespace)
    error = raised(s2sad.grad(namespace["f"]), 1.0)
    assert_good_error(error, SourceUnavailableError, names=("<lambda>", "<string>", "define the function in a .py file"))


def test_a_function_typed_at_the_repl():
    namespace = {}
    exec(compile("def typed(x):\n    return x * x\n", "<stdin>", "exec"), namespace)
    error = raised(s2sad.grad(namespace["typed"]), 1.0)
    assert_good_error(error, SourceUnavailableError, names=("typed", "<stdin>"))


def test_a_function_whose_source_file_is_gone(tmp_path, monkeypatch):
    (tmp_path / "vanishing.py").write_text("import numpy as np\n\ndef gone(x):\n    return np.sum(x * x)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    import linecache

    module = importlib.import_module("vanishing")
    try:
        (tmp_path / "vanishing.py").unlink()
        linecache.clearcache()
        error = raised(s2sad.grad(module.gone), np.ones(2))
        assert_good_error(error, SourceUnavailableError, names=("gone", str(tmp_path / "vanishing.py")))
    finally:
        sys.modules.pop("vanishing", None)


class CallableObject:
    def __call__(self, x):
        return x * 2.0


def test_a_callable_object():
    error = raised(s2sad.grad(CallableObject()), 1.0)
    assert_good_error(error, SourceUnavailableError, names=("CallableObject",))
    assert "builtin or C function" not in str(error)


def test_a_library_function_without_a_rule_differentiated_directly():
    error = raised(s2sad.grad(np.corrcoef), np.array([0.5, 1.5]))
    assert_good_error(error, names=("corrcoef",))
    assert "site-packages" not in str(error) and "asanyarray" not in str(error)


# ====================================================================== callees without a rule or source

def calls_accumulate(x):
    return list(itertools.accumulate(x, operator.add))[-1]  # bad: accumulate


def calls_corrcoef(x):
    return np.sum(np.corrcoef(x, x ** 2))  # bad: corrcoef


_namespace = {}
exec("def made_by_exec(x):\n    return x * 3.0\n", _namespace)
MADE_BY_EXEC = _namespace["made_by_exec"]


def calls_a_function_without_source(x):
    return MADE_BY_EXEC(x)  # bad: exec callee


@pytest.mark.parametrize("function, marker, kind, words", [
    (calls_accumulate, "accumulate", MissingRuleError, ("itertools.accumulate",)),
    (calls_corrcoef, "corrcoef", MissingRuleError, ("np.corrcoef",)),
], ids=["c-function", "library-function"])
def test_a_callee_without_a_rule_or_source_is_named_at_its_call(function, marker, kind, words):
    error = raised(s2sad.grad(function), np.array([0.5, 1.5]))
    assert_good_error(error, kind, names=words, line=marker)


def test_a_callee_made_with_exec_is_named_at_its_call():
    error = raised(s2sad.grad(calls_a_function_without_source), 1.0)
    assert_good_error(error, SourceUnavailableError, names=("made_by_exec", "define the function in a .py file"))
    assert error.location is not None and error.location.line == marked_line("exec callee")
    assert error.location.filename.endswith("test_bad_inputs.py")


# ====================================================================== outputs grad cannot take

def returns_a_vector(x):
    return np.sin(x)


def returns_a_pair(x):
    return np.sum(x), 2.0


def returns_a_string(x):
    return "done"


def returns_nothing(x):
    y = x * 2.0


@pytest.mark.parametrize("function, words", [
    (returns_a_vector, ("returns_a_vector", "scalar output", "shape (3,)", "s2sad.vjp")),
    (returns_a_pair, ("returns_a_pair", "tuple", "has_aux=True")),
    (returns_a_string, ("returns_a_string", "str")),
    (returns_nothing, ("returns_nothing", "NoneType")),
], ids=["vector", "tuple", "string", "none"])
def test_grad_of_a_non_scalar_output(function, words):
    error = raised(s2sad.grad(function), np.array([0.1, 0.2, 0.3]))
    assert_good_error(error, ArgumentError, names=words)


def test_has_aux_with_a_single_output():
    error = raised(s2sad.grad(returns_a_vector, has_aux=True), np.array([0.1, 0.2]))
    assert_good_error(error, ArgumentError, names=("has_aux=True", "pair"), hint=False)
    assert "(output, aux)" in str(error)   # the message itself says what to return


# ====================================================================== argnums and argument types

def takes_a_count(x, n):
    return np.sum(x) * n


def takes_a_name(x, name):
    return x * len(name)


@pytest.mark.parametrize("argnums, words", [
    (2, ("argnums=2", "out of range", "2 positional")),
    (-3, ("argnums=-3", "out of range")),
    ((0, 0), ("names an argument twice",)),
    (0.5, ("argnums must be an int",)),
    ("x", ("argnums must be an int",)),
], ids=["too-large", "too-negative", "twice", "float", "name"])
def test_bad_argnums(argnums, words):
    error = raised(s2sad.grad(takes_a_count, argnums=argnums), np.array([0.5, 1.5]), 3)
    assert_good_error(error, ArgumentError, names=words, hint=words[1:2] == ("out of range",))


@pytest.mark.parametrize("value, words", [
    (3, ("'n'", "int")),
    (True, ("'n'", "bool")),
], ids=["int", "bool"])
def test_argnums_naming_a_non_float_argument(value, words):
    error = raised(s2sad.grad(takes_a_count, argnums=1), np.array([0.5, 1.5]), value)
    assert_good_error(error, ArgumentError, names=words)


@pytest.mark.parametrize("value, words", [
    ("abc", ("'x'", "str")),
    (object(), ("'x'", "object")),
    (None, ("'x'", "None")),
    (["a", "b"], ("'x'", "list")),
    (np.array([1, 2, 3]), ("'x'", "int64", "astype(float)")),
], ids=["string", "object", "none", "list-of-strings", "int-array"])
def test_inputs_without_a_tangent_space(value, words):
    error = raised(s2sad.grad(returns_a_vector), value)
    assert_good_error(error, ArgumentError, names=words)


def test_a_string_argument_differentiated():
    error = raised(s2sad.grad(takes_a_name, argnums=1), 1.0, "abc")
    assert_good_error(error, ArgumentError, names=("'name'", "str"))
    assert s2sad.grad(takes_a_name)(1.0, "abc") == 3.0   # as a constant it is fine


# ====================================================================== errors of the user's own computation

def mismatched_matmul(x):
    W = np.ones((2, 5))
    return np.sum(W @ x)  # bad: matmul shapes


def mismatched_broadcast(x):
    return np.sum(x + np.ones(4))  # bad: broadcast shapes


@pytest.mark.parametrize("function, marker", [(mismatched_matmul, "matmul shapes"),
                                              (mismatched_broadcast, "broadcast shapes")], ids=["matmul", "broadcast"])
def test_shape_error_inside_the_function(function, marker):
    x = np.array([0.1, 0.2, 0.3])
    with pytest.raises(ValueError) as direct:
        function(x.copy())
    error = raised(s2sad.grad(function), x)
    assert type(error) is type(direct.value) and str(error) == str(direct.value)
    notes = getattr(error, "__notes__", [])
    assert any(f"test_bad_inputs.py:{marked_line(marker)}" in note for note in notes), notes


# ====================================================================== rules that break their contract

def rule_subject(x, k):
    return x * k


def uses_rule_subject(x):
    return np.sum(rule_subject(x, 2.0))


def pair_subject(x, y):
    return x * y


def uses_pair_subject(x, y):
    return np.sum(pair_subject(x, y))


def rrule_subject(x):
    return x * 3.0


def uses_rrule_subject(x):
    return np.sum(rrule_subject(x))


@pytest.fixture
def registered():
    """Register rules for the test; unregister them afterwards."""
    subjects = []

    def register(kind, function, *args, **kwargs):
        subjects.append(function)
        return kind(function, *args, **kwargs)

    yield register
    for function in subjects:
        s2sad.unregister(function)


RULE_NAME = "test_bad_inputs.rule_subject"


def test_a_rule_returning_a_cotangent_of_the_wrong_shape(registered):
    registered(s2sad.defvjp, rule_subject, "x, k", lambda g, ans, x, k: np.ones(5), None)
    error = raised(s2sad.grad(uses_rule_subject), np.array([0.1, 0.2, 0.3]))
    assert isinstance(error, RuleError) and "shape (5,)" in str(error) and "(3,)" in str(error)


def test_a_rule_returning_the_wrong_shape_is_named(registered):
    registered(s2sad.defvjp, rule_subject, "x, k", lambda g, ans, x, k: np.ones(5), None)
    error = raised(s2sad.grad(uses_rule_subject), np.array([0.1, 0.2, 0.3]))
    assert_good_error(error, RuleError, names=("rule_subject",))


def test_a_rule_returning_a_larger_broadcastable_shape(registered):
    registered(s2sad.defvjp, rule_subject, "x, k", lambda g, ans, x, k: np.ones((3, 3)), None)
    error = raised(s2sad.grad(uses_rule_subject), np.array([0.1, 0.2, 0.3]))
    assert_good_error(error, RuleError, names=("rule_subject",))


def test_a_rule_template_with_an_unknown_name(registered):
    with pytest.raises(Exception) as caught:
        registered(s2sad.defvjp, rule_subject, "x, k", "g * undefined_name", None)
        s2sad.grad(uses_rule_subject)(np.array([0.1, 0.2]))
    assert_good_error(caught.value, names=("rule_subject", "undefined_name"), hint=False)


def test_a_rule_returning_none(registered):
    registered(s2sad.defvjp, rule_subject, "x, k", lambda g, ans, x, k: None, None)
    error = raised(s2sad.grad(uses_rule_subject), np.array([0.1, 0.2, 0.3]))
    assert_good_error(error, RuleError, names=("rule_subject",))


def test_a_rule_returning_a_string(registered):
    registered(s2sad.defvjp, rule_subject, "x, k", lambda g, ans, x, k: "not an array", None)
    error = raised(s2sad.grad(uses_rule_subject), np.array([0.1, 0.2, 0.3]))
    assert_good_error(error, RuleError, names=("rule_subject",))


def test_a_vjp_all_returning_too_few_cotangents(registered):
    registered(s2sad.defvjp_all, pair_subject, "x, y", lambda g, ans, x, y: (g * y,))
    x = np.array([0.1, 0.2])
    error = raised(s2sad.grad(uses_pair_subject, argnums=(0, 1)), x, x.copy())
    assert_good_error(error, RuleError, names=("pair_subject", "2"))


def test_an_rrule_returning_too_few_cotangents(registered):
    registered(s2sad.defrrule, rrule_subject, lambda x: (x * 3.0, lambda g: (s2sad.NO_TANGENT,)))
    error = raised(s2sad.grad(uses_rrule_subject), np.array([0.1, 0.2]))
    assert_good_error(error, RuleError, names=("rrule_subject",))


def test_vjp_of_a_rule_returning_too_few_cotangents(registered):
    registered(s2sad.defrrule, rrule_subject, lambda x: (x * 3.0, lambda g: (s2sad.NO_TANGENT,)))
    _, pullback = s2sad.vjp(rrule_subject, np.array([0.1, 0.2]))
    error = raised(pullback, np.ones(2))
    assert_good_error(error, RuleError, names=("rrule_subject",))


def test_an_rrule_not_returning_a_pair(registered):
    registered(s2sad.defrrule, rrule_subject, lambda x: x * 3.0)
    error = raised(s2sad.grad(uses_rrule_subject), np.array([0.1, 0.2, 0.3]))
    assert_good_error(error, RuleError, names=("rrule_subject",))


def test_a_rule_that_raises_keeps_its_error_and_names_the_call(registered):
    """The rule's own exception (like the user's own code's) goes through, with a note naming the call."""
    def failing(g, ans, x, k):
        raise ZeroDivisionError("inside the rule")

    registered(s2sad.defvjp, rule_subject, "x, k", failing, None)
    error = raised(s2sad.grad(uses_rule_subject), np.array([0.1, 0.2]))
    assert isinstance(error, ZeroDivisionError)
    assert any("test_bad_inputs.py" in note and "rule_subject(x, 2.0)" in note for note in error.__notes__)


# ====================================================================== NaN and inf

def tanh_sum(x):
    return np.sum(np.tanh(x))


def square_sum(x):
    return np.sum(x ** 2)


def log_sum(x):
    return np.sum(np.log(x))


def sign_branch(x):
    if x > 0.0:
        return x * 2.0
    return x * 3.0


@pytest.mark.parametrize("function, x, expected", [
    (tanh_sum, [np.nan, 0.5], [np.nan, 1 - np.tanh(0.5) ** 2]),
    (tanh_sum, [np.inf, -np.inf, 0.5], [0.0, 0.0, 1 - np.tanh(0.5) ** 2]),
    (square_sum, [np.inf, np.nan, 0.5], [np.inf, np.nan, 1.0]),
    (log_sum, [0.0, 0.5], [np.inf, 2.0]),
], ids=["nan", "inf-tanh", "inf-square", "log-at-zero"])
def test_nan_and_inf_propagate_like_numpy(function, x, expected):
    x = np.array(x)
    before = x.copy()
    with np.errstate(all="ignore"):
        gradient = s2sad.grad(function)(x)
        value, tangent = s2sad.jvp(function, (x,), (np.ones_like(x),))
    np.testing.assert_array_equal(gradient, np.array(expected))
    np.testing.assert_array_equal(x, before)
    with np.errstate(all="ignore"):
        assert np.array_equal(value, function(x), equal_nan=True)
        assert np.array_equal(tangent, np.sum(expected), equal_nan=True)


def test_a_nan_condition_takes_the_branch_python_takes():
    assert s2sad.grad(sign_branch)(float("nan")) == 3.0           # nan > 0 is False
    assert math.isnan(s2sad.value_and_grad(sign_branch)(float("nan"))[0])


# ====================================================================== the command line

TARGET = """\
import numpy as np

CONSTANT = 3.0


def loss(w):
    return np.sum(np.sin(w) * w)


def refused(w):
    try:
        v = w
    except* ValueError:
        pass
    return v
"""


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "model.py").write_text(TARGET)
    (tmp_path / "broken.py").write_text("def f(x:\n    return x\n")
    (tmp_path / "explodes.py").write_text("import numpy as np\nraise RuntimeError('boom at import')\n\ndef f(x):\n    return x\n")
    (tmp_path / "missing_import.py").write_text("import no_such_module_s2sad\n\ndef f(x):\n    return x\n")
    return tmp_path


def cli(workdir, *arguments):
    return subprocess.run([sys.executable, os.path.join(ROOT, "cli.py"), *arguments], capture_output=True, text=True,
                          cwd=workdir, env=dict(os.environ, PYTHONPATH=ROOT))


def assert_cli_error(result, *words):
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    assert re.search(r"(^|: )error: ", result.stderr.splitlines()[0]), result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


def files_in(directory):
    """The files under ``directory`` (leaving out the test's cache directory and bytecode)."""
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*")
                  if "__pycache__" not in p.parts and p.relative_to(directory).parts[0] != "cache")


def test_cli_a_path_that_does_not_exist(workdir):
    assert_cli_error(cli(workdir, "emit", "nowhere/model.py:loss"), "no such file", "nowhere/model.py")


def test_cli_a_target_without_a_function(workdir):
    assert_cli_error(cli(workdir, "show", "model.py"), "expected FILE.py:FUNCTION", "hint:")


def test_cli_func_naming_nothing_in_emit(workdir):
    before = files_in(workdir)
    assert_cli_error(cli(workdir, "emit", "model.py:nothing", "-o", "out.py"), "defines no function named 'nothing'")
    assert files_in(workdir) == before


def test_cli_func_naming_something_that_is_not_a_function(workdir):
    assert_cli_error(cli(workdir, "show", "model.py:CONSTANT"), "CONSTANT")


def test_cli_a_file_with_a_syntax_error(workdir):
    assert_cli_error(cli(workdir, "show", "broken.py:f"), "broken.py")


def test_cli_a_file_that_fails_to_import(workdir):
    assert_cli_error(cli(workdir, "show", "explodes.py:f"), "explodes.py", "boom at import")


def test_cli_a_file_with_a_missing_import(workdir):
    assert_cli_error(cli(workdir, "show", "missing_import.py:f"), "no_such_module_s2sad")


def test_cli_wrt_naming_an_unknown_parameter(workdir):
    assert_cli_error(cli(workdir, "show", "model.py:loss", "--wrt", "q"), "--wrt names q", "its parameters are: w")


def test_cli_check_with_a_bad_shape(workdir):
    assert_cli_error(cli(workdir, "check", "model.py:loss", "--shapes", "w=a,b"), "bad shape", "hint:")


def _unwritable_directory(tmp_path):
    """A directory this process cannot create files in (root ignores permission bits)."""
    directory = tmp_path / "read_only"
    directory.mkdir()
    directory.chmod(0o500)
    if not os.access(directory, os.W_OK):
        return directory
    directory.chmod(0o700)
    if os.path.isdir("/proc/sys") and not os.access("/proc/sys", os.W_OK):
        return "/proc/sys"
    pytest.skip("no unwritable directory available to this user")


def test_cli_emit_to_an_unwritable_path(workdir):
    directory = _unwritable_directory(workdir)
    before = files_in(workdir)
    result = cli(workdir, "emit", "model.py:loss", "-o", os.path.join(str(directory), "loss_derivatives.py"))
    assert_cli_error(result, "cannot write", str(directory), "hint:")
    assert not os.path.exists(os.path.join(str(directory), "loss_derivatives.py"))
    if str(directory).startswith(str(workdir)):
        os.chmod(directory, 0o700)
    assert files_in(workdir) == before


def test_cli_emit_into_a_directory_that_does_not_exist(workdir):
    assert_cli_error(cli(workdir, "emit", "model.py:loss", "-o", "no/such/dir/out.py"), "no such directory", "hint:")
    assert not (workdir / "no").exists()


def test_cli_emit_never_replaces_a_file_without_force(workdir):
    (workdir / "out.py").write_text("# mine\n")
    assert_cli_error(cli(workdir, "emit", "model.py:loss", "-o", "out.py"), "out.py exists", "--force")
    assert (workdir / "out.py").read_text() == "# mine\n"


def test_cli_emit_of_a_refused_function_leaves_no_file(workdir):
    (workdir / "out").mkdir()
    result = cli(workdir, "emit", "model.py:refused", "-o", "out/")
    assert_cli_error(result, "`try ... except*` is not supported", "model.py:11:5")
    assert files_in(workdir / "out") == []
