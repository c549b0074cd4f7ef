"""Whether generated code is still current: what it was made from is what it would be made from now.

Generated code is made from a function's code and from what the names it uses resolved to
when it was made: ``helper`` to a user function (its own generated rrule is called),
``np.sin`` to the ufunc whose rule was written out, ``op`` to a rule bound once. After
``def helper`` runs again, ``op = cube``, ``np.sin`` is monkeypatched or ``f.__defaults__``
changes, that code is stale, and running it would give the old value and the old gradient.

So every generated module records its dependencies, in a ``DEPENDS`` table at the end of its cache entry (not shown with
the code: ``without_table``): each
name and dotted reference its function's environment resolved to a module or a callable,
with an identity of what it was (``_identity``: a rule's name and fingerprint, a user
function's module and qualified name, a module's name). A module loaded from the disk
cache is used only when each still resolves to the same kind of thing (``verified``).
In the process, the objects themselves are kept and each call first runs a check made for
that module (``current_check``): the function's own code and defaults, then each
dependency ``is`` what it was, and for a user function its code and defaults too. Its
own generated code checks its own dependencies when it is called, so a helper two levels
down is covered by the helper one level down. Data (arrays, numbers) the function reads
from its module is not a dependency: generated code reads it when it runs.
"""
from __future__ import annotations

import builtins
import dis
import inspect
import types
import warnings

from ..errors import RefusedBranchWarning
from ..registry import rule_for
from ..frontend.resolve import Environment, found, unwrap

HEADING = "# What the names above resolved to when this module was made; a load that finds any resolving\n" \
          "# to something else makes the module again:\n"


def identity(value) -> str:
    """What a dependency is, in words that mean the same in another process."""
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}"
    if callable(value):
        rule = rule_for(value)
        if rule is not None:  # a rule's name tells scipy's norm.logpdf from t.logpdf, and names ufuncs fully
            return f"rule:{rule.name}:{rule.fingerprint}"
        module = getattr(value, "__module__", "") or ""
        name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or type(value).__qualname__
        owner = getattr(value, "__self__", None)
        if owner is not None and not isinstance(owner, types.ModuleType):
            name = f"{type(owner).__qualname__}.{getattr(owner, 'name', '')}.{name}"
        return f"static:{module}.{name}"
    return "data"


def _is_static(value) -> bool:
    return isinstance(value, types.ModuleType) or callable(value)


_NAME_READS = {"LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF"}


def _names_in(code: types.CodeType) -> set[str]:
    """The global, builtin and closure names ``code`` reads (not attribute names: ``np.sum``
    reads ``np``), with those of nested functions and lambdas (s2sad writes them out in
    place, so they read the same environment)."""
    names = {instruction.argval for instruction in dis.get_instructions(code) if instruction.opname in _NAME_READS}
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names_in(constant)
    return names


def dependencies(function, spellings=()) -> dict[str, str]:
    """``DEPENDS`` for ``function``: each name it reads that resolves to a module or a callable,
    and each dotted reference in ``spellings`` (the static callees the generator resolved:
    ``np.linalg.inv``, ``helpers.h``) with every prefix of it, with their ``identity``."""
    env = Environment(function)
    table = {}
    for name in _names_in(function.__code__) | set(env.imports):  # and what its own imports bind
        value = env.lookup(name)
        if found(value) and _is_static(value):
            table[name] = identity(value)
    for spelling in spellings:
        parts = spelling.split(".")
        if len(parts) < 2 or not all(part.isidentifier() for part in parts):
            continue  # an operator, or a plain name (above)
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            value = env.resolve_dotted(prefix)
            if found(value):
                table[prefix] = identity(value)
    return dict(sorted(table.items()))


def table_text(depends: dict[str, str]) -> str:
    lines = "".join(f"    {spelling!r}: {what!r},\n" for spelling, what in depends.items())
    return f"\n\n{HEADING}DEPENDS = {{\n{lines}}}\n"


def refused_table(refused: list) -> str:
    """The branches refused when the function was transformed (frontend/untaken.py), each as
    ``(file, line, column, message)``: warned of whenever the module is loaded."""
    if not refused:
        return ""
    lines = "".join(f"    {(e.location.filename, e.location.line, e.location.column, e.message)!r},\n" for e in refused)
    return f"REFUSED_BRANCHES = [\n{lines}]\n"


# What warn_refused_branches has shown: Python's filters show each warning once per line and text.
_warned: dict = {}


def warn_refused_branches(module, function) -> None:
    """One warning per refused branch, at the user's line."""
    for filename, line, column, message in getattr(module, "REFUSED_BRANCHES", ()):
        warnings.warn_explicit(
            f"s2sad differentiates {function.__qualname__} on every path but the branch at {filename}:{line}:{column}, "
            f"which raises if a call takes it: {message}", RefusedBranchWarning, filename, line, registry=_warned)


def without_table(source: str) -> str:
    """The generated code as a reader sees it (``generated_source``, ``s2sad emit``): without its table."""
    return source.partition("\n\n" + HEADING)[0]


def verified(depends: dict[str, str] | None, function) -> dict[str, object] | None:
    """What each dependency resolves to now, or None when one resolves to another kind of thing
    (or the table is missing: a module made before there were tables)."""
    if depends is None:
        return None
    env = Environment(function)
    resolved = {}
    for spelling, what in depends.items():
        value = env.resolve_dotted(spelling)
        if not found(value) or identity(value) != what:
            return None
        resolved[spelling] = value
    return resolved


# ---------------------------------------------------------------------- the check run before each call


def definition(function) -> tuple:
    """What of a function decides its signature and its code: compared by ``same_definition``."""
    keywords = function.__kwdefaults__
    return function.__code__, function.__defaults__, keywords, tuple(keywords.values()) if keywords else ()


def same_definition(function, recorded: tuple) -> bool:
    keywords = function.__kwdefaults__
    if function.__code__ is not recorded[0] or function.__defaults__ is not recorded[1] or keywords is not recorded[2]:
        return False
    # the keyword-only defaults' dict can change in place
    return not keywords or all(a is b for a, b in zip(keywords.values(), recorded[3])) and len(keywords) == len(recorded[3])


class _CheckWriter:
    """Writes the check as one Python expression over the recorded objects, held in its
    closure: a chain of ``is`` tests runs in a fraction of a microsecond, where walking a
    table of dependencies would cost several. A name or attribute gone raises, which the
    check catches: not current."""

    def __init__(self):
        self.values = {"same_definition": same_definition, "identity": identity}
        self.tests: list[str] = []
        self.names: dict[int, str] = {}
        self.defaults_tests: list[str] = []  # the tests of the function's own defaults (see function())

    def constant(self, value) -> str:
        name = self.names.get(id(value))
        if name is None:
            name = self.names[id(value)] = f"checked_{len(self.values)}"  # (not v1, v2: names users write)
            self.values[name] = value
        return name

    def same(self, expression: str, value, read) -> None:
        """Test that ``expression`` (re-read by calling ``read``) is still ``value``."""
        again = read()
        if again is value:
            self.tests.append(f"{expression} is {self.constant(value)}")
        elif _equal(again, value):  # a bound method is made anew by each attribute read
            self.tests.append(f"{expression} == {self.constant(value)}")
        else:
            self.tests.append(f"identity({expression}) == {identity(value)!r}")
        # a user function's code and defaults decide how it is called (a decorated one's, and its original's)
        original = unwrap(value)
        for function in (value,) if original is value else (value, original):  # (a poly1d is callable, unhashable)
            if inspect.isfunction(function):
                self.same_definition(self.constant(function), function)

    def same_definition(self, expression: str, function) -> None:
        """``same_definition`` written out: the common case (no keyword-only defaults) is three ``is`` tests."""
        code, defaults, keywords, _ = recorded = definition(function)
        self.tests.append(f"{expression}.__code__ is {self.constant(code)}")
        self.tests.append(f"{expression}.__defaults__ is {self.constant(defaults)}")
        if keywords:
            self.tests.append(f"same_definition({expression}, {self.constant(recorded)})")
        else:
            self.tests.append(f"{expression}.__kwdefaults__ is {self.constant(keywords)}")
            if expression == "function":
                self.defaults_tests += self.tests[-2:]

    def function(self):
        body = " and\n                    ".join(self.tests) or "True"
        text = (f"def make({', '.join(self.values)}):\n"
                f"    def still_current(function):\n"
                f"        try:\n"
                f"            return ({body})\n"
                f"        except Exception:\n"
                f"            return False\n"
                f"    return still_current\n")
        namespace = {}
        exec(compile(text, "<s2sad validity check>", "exec"), namespace)
        check = namespace["make"](**self.values)
        # the same test in words, over ``function`` and the values named: a lane writes it into itself (lanes.py);
        # then each test, and those of the function's own defaults where it has no keyword-only ones: a lane
        # serving only calls that give every parameter (of a code tested to have no others) may leave those out
        check.__s2sad_tests__ = (" and ".join(self.tests) or "True", dict(self.values), tuple(self.tests),
                                 tuple(self.defaults_tests))
        return check


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def current_check(function, resolved: dict[str, object]):
    """A function of ``function`` returning whether code made from ``function`` and the
    dependencies ``resolved`` (spelling -> object) is still current."""
    writer = _CheckWriter()
    writer.same_definition("function", function)
    env = Environment(function)
    namespace = function.__globals__
    builtin_namespace = namespace.get("__builtins__", builtins)
    if isinstance(builtin_namespace, types.ModuleType):
        builtin_namespace = builtin_namespace.__dict__
    for spelling in sorted(resolved, key=lambda s: s.count(".")):
        root, _, rest = spelling.rpartition(".")
        value = resolved[spelling]
        if root:  # an attribute of a dependency already tested: read from the object tested
            owner = writer.constant(resolved[root])
            writer.same(f"{owner}.{rest}", value, lambda: env.resolve_dotted(spelling))
        elif spelling in env.closure:
            cell = writer.constant(env.closure[spelling])
            writer.same(f"{cell}.cell_contents", value, lambda: env.lookup(spelling))
        elif spelling in namespace:
            writer.same(f"{writer.constant(namespace)}[{spelling!r}]", value, lambda: env.lookup(spelling))
        else:  # a builtin: current while the module does not define the name itself
            writer.tests.append(f"{spelling!r} not in {writer.constant(namespace)}")
            writer.same(f"{writer.constant(builtin_namespace)}[{spelling!r}]", value, lambda: env.lookup(spelling))
    return writer.function()
