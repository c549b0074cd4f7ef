"""The rules reference: every registered rule by namespace, next to autograd's coverage.

``python -m s2sad.reference`` writes ``docs/rules.md`` from the registry;
``python -m s2sad.reference --check`` exits with status 1 if that file is out of date. Writing it
also copies its summary table into the README's ``## Rules`` section.
``s2sad rules [PATTERN]`` (see ``command_line``) lists the same entries in a terminal.

What is listed. Each namespace module (``numpy``, ``numpy.linalg``, ``math``, ...) is
scanned for the public names whose object has a rule, so an alias (``np.abs`` and
``np.absolute``) is one rule under two names, and a function is listed under the name a
user calls it by (``numpy.random.rand``, not its bound method's class). Rules of bound
methods (``scipy.stats.norm.logpdf``) are placed by their rule's name. Methods and
properties of arrays come from ``defmethod``. Counts are of names, as autograd's lists
count names.

autograd's side is read from ``docs/autograd/``: copies of the lists introspected from
autograd 1.9.1 (their header comments give the format). Its helper primitives (names
with no public counterpart, such as ``numpy.concatenate_args``) are not counted; the
public names autograd differentiates by composition (``autograd_composites.txt``) are.
"""
from __future__ import annotations

import argparse
import difflib
import fnmatch
import importlib
import operator
import os
import sys
import warnings
from dataclasses import dataclass

import numpy

from .registry import Rule, load_optional_rules, all_method_rules, all_rules, method_rule, rule_for

# (section title, module scanned for public names); methods have no module
NAMESPACES: tuple[tuple[str, str | None], ...] = (
    ("numpy", "numpy"),
    ("numpy.linalg", "numpy.linalg"),
    ("numpy.fft", "numpy.fft"),
    ("numpy.random", "numpy.random"),
    ("ndarray methods", None),
    ("operator", "operator"),
    ("math", "math"),
    ("builtins", "builtins"),
    ("scipy.special", "scipy.special"),
    ("scipy.stats", "scipy.stats"),
    ("scipy.signal", "scipy.signal"),
    ("scipy.linalg", "scipy.linalg"),
    ("scipy.integrate", "scipy.integrate"),
)
METHODS = "ndarray methods"
OTHER = "other"
OPTIONAL_MODULES = ("scipy.special", "scipy.stats", "scipy.signal", "scipy.linalg", "scipy.integrate")
NOT_COVERED_REASON = "not covered"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUTPUT = os.path.join(ROOT, "docs", "rules.md")
DEFAULT_AUTOGRAD = os.path.join(ROOT, "docs", "autograd")
REGENERATE = "python -m s2sad.reference"


# ---------------------------------------------------------------- the entries


@dataclass(frozen=True)
class Entry:
    """One public name with a rule: ``numpy.tanh``, ``ndarray.sum``, ``scipy.stats.norm.logpdf``."""

    namespace: str
    name: str                          # within the namespace: "tanh", "norm.logpdf", "sum"
    rule: Rule
    alias_of: str | None = None        # the name this one is another name for, in the same namespace
    owners: tuple[str, ...] = ()       # for methods: the classes it is registered on

    @property
    def qualified(self) -> str:
        if self.namespace == METHODS:
            return f"{self.owners[0]}.{self.name}"
        if self.namespace == OTHER:
            return self.name
        return f"{self.namespace}.{self.name}"

    @property
    def differentiable(self) -> bool:
        return not self.rule.nondifferentiable

    @property
    def signature(self) -> str:
        if self.rule.signature is not None:
            return str(self.rule.signature)
        return "-" if self.rule.nondifferentiable else "(...)"

    @property
    def gradients(self) -> str:
        """Which parameters get a gradient."""
        rule = self.rule
        if rule.nondifferentiable:
            return "none (non-differentiable)"
        if rule.kind == "rrule":
            return "as its rrule decides"
        if rule.kind == "vjp_all":
            return "float arguments, by one vjp_all"
        names = [param for param in rule.params if not rule.declares_none(param)]
        return ", ".join(names) if names else "none"

    @property
    def how(self) -> str:
        """The rule itself: derivatives, templates or the function that computes the cotangents."""
        rule = self.rule
        if rule.nondifferentiable:
            return "non-differentiable"
        if rule.kind == "rrule":
            return f"rrule {callable_name(rule.rrule_function)}"
        if rule.kind == "vjp_all":
            return f"vjp_all {callable_name(rule.vjp_all)}"
        parts = []
        active = [param for param in rule.params if not rule.declares_none(param)]
        for param in active:
            derivative = (rule.derivatives or {}).get(param)
            vjp = rule.vjps[param]
            if derivative is not None:
                text = f"d/d{param} = {derivative.strip()}"
            elif isinstance(vjp, str):
                text = vjp
            else:
                text = f"vjp {callable_name(vjp)}"
            parts.append(text if len(active) == 1 and derivative is None else f"{param}: {text}")
        return "; ".join(parts) if parts else "no gradient flows"


def callable_name(function) -> str:
    """A stable name for a vjp or rrule function: ``rules.numpy_linalg.eigh_rrule`` for one of ``rules/``."""
    module = getattr(function, "__module__", None) or ""
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None) or type(function).__name__
    if module.startswith("s2sad.rules."):
        module = module[len("s2sad."):]  # rules.numpy_linalg: the file in the rules/ folder
    return f"{module}.{name}" if module else name


def load_optional_libraries() -> list[str]:
    """Import the SciPy modules that have rules (where SciPy is installed) and register their rules."""
    loaded = []
    for module in OPTIONAL_MODULES:
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        loaded.append(module)
    load_optional_rules()
    return loaded


def _public_members(module_name: str):
    """``(name, object)`` for the public names of a module, sorted, skipping what fails to load."""
    module = sys.modules.get(module_name)
    if module is None:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            return []
    members = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in sorted(dir(module)):
            if name.startswith("_"):
                continue
            try:
                members.append((name, getattr(module, name)))
            except Exception:  # noqa: BLE001 - a lazy attribute that cannot load is simply not listed
                continue
    return members


def _method_carriers() -> set[int]:
    """The rules that exist to carry a method's rule (``ndarray_reshape``): listed as methods only."""
    return {id(rule) for rule in all_method_rules().values()
            if (getattr(rule.function, "__module__", "") or "").startswith(("s2sad.rules", "rules."))}


def _canonical(names: list[str], rule: Rule) -> str:
    own = getattr(rule.function, "__name__", None)
    if own in names:
        return own
    last = rule.name.rsplit(".", 1)[-1]
    return last if last in names else sorted(names)[0]


def collect() -> list[Entry]:
    """Every public name with a rule, by namespace (in ``NAMESPACES`` order) and name."""
    entries: list[Entry] = []
    placed: set[int] = set()
    for namespace, module_name in NAMESPACES:
        if module_name is None:
            entries.extend(_method_entries())
            continue
        by_function: dict[int, list[str]] = {}
        rules: dict[int, Rule] = {}
        for name, value in _public_members(module_name):
            rule = rule_for(value)
            if rule is None:
                continue
            by_function.setdefault(id(rule), []).append(name)
            rules[id(rule)] = rule
        for key, names in by_function.items():
            rule = rules[key]
            placed.add(key)
            canonical = _canonical(names, rule)
            for name in names:
                entries.append(Entry(namespace, name, rule, None if name == canonical else canonical))
    carriers = _method_carriers()
    prefixes = sorted((module for _, module in NAMESPACES if module), key=len, reverse=True)
    for rule in all_rules():
        if id(rule) in placed or id(rule) in carriers:
            continue
        placed.add(id(rule))
        namespace = next((p for p in prefixes if rule.name.startswith(p + ".")), None)
        if namespace is None:
            entries.append(Entry(OTHER, rule.name, rule))
        else:
            entries.append(Entry(namespace, rule.name[len(namespace) + 1:], rule))
    return sorted_entries(entries)


def sorted_entries(entries: list[Entry]) -> list[Entry]:
    """By namespace (in ``NAMESPACES`` order, others after, by name), then by name, case-insensitively."""
    order = {namespace: index for index, (namespace, _) in enumerate(NAMESPACES)}
    return sorted(entries, key=lambda e: (order.get(e.namespace, len(order)), e.namespace, e.name.lower(), e.name,
                                          e.owners))


def _method_entries() -> list[Entry]:
    """Array methods (``ndarray.sum``), grouped over the classes sharing one rule; other classes' under OTHER."""
    grouped: dict[tuple[str, int], list[type]] = {}
    rules: dict[int, Rule] = {}
    for (owner, name), rule in all_method_rules().items():
        grouped.setdefault((name, id(rule)), []).append(owner)
        rules[id(rule)] = rule
    rank = {numpy.ndarray: 0, numpy.generic: 1}
    entries = []
    for (name, key), owners in grouped.items():
        arrays = sorted((o.__name__ for o in owners if o in rank), key=lambda o: o != "ndarray")
        if arrays:
            entries.append(Entry(METHODS, name, rules[key], owners=tuple(arrays)))
        for owner in sorted((o for o in owners if o not in rank), key=lambda o: o.__qualname__):
            entries.append(Entry(OTHER, f"{owner.__module__}.{owner.__qualname__}.{name}", rules[key]))
    return entries


# ---------------------------------------------------------------- autograd's lists


@dataclass(frozen=True)
class AutogradName:
    """A name from autograd's reference lists."""

    name: str            # as listed: "numpy.linalg.det", "scipy.stats.norm.cdf", "ndarray.__getitem__"
    namespace: str
    differentiable: bool
    detail: str          # the argnums with a rule, or what a composite is built on


def _read_table(path: str) -> list[list[str]]:
    with open(path, encoding="utf-8") as stream:
        return [line.rstrip("\n").split("\t") for line in stream if line.strip() and not line.startswith("#")]


def _namespace_of(name: str) -> str | None:
    """The namespace of an autograd name; None for autograd's own internals."""
    if name.startswith("autograd."):
        return None
    if name.startswith("ndarray."):
        return METHODS
    for module in sorted((module for _, module in NAMESPACES if module), key=len, reverse=True):
        if name.startswith(module + "."):
            return module
    return name.rsplit(".", 1)[0]


def _is_private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def resolve(name: str):
    """The object a dotted name refers to (``ndarray.x`` on ``numpy.ndarray``), or None."""
    parts = name.split(".")
    if any(_is_private(part) for part in parts):
        return None
    if parts[0] == "ndarray":
        value, rest = numpy.ndarray, parts[1:]
    else:
        value = None
        for split in range(len(parts) - 1, 0, -1):
            try:
                value = importlib.import_module(".".join(parts[:split]))
            except ImportError:
                continue
            rest = parts[split:]
            break
        if value is None:
            return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for part in rest:
            try:
                value = getattr(value, part)
            except Exception:  # noqa: BLE001 - not there (an autograd helper), or failing to load
                return None
    return value


def read_autograd(directory: str) -> tuple[list[AutogradName], list[str]]:
    """autograd's public names (differentiable and not), and its helper primitives (not counted)."""
    names: list[AutogradName] = []
    helpers: list[str] = []
    for row in _read_table(os.path.join(directory, "autograd_vjps.txt")):
        name, argnums = row[0], row[1] if len(row) > 1 else ""
        namespace = _namespace_of(name)
        if namespace is None or resolve(name) is None:
            helpers.append(name)
            continue
        names.append(AutogradName(name, namespace, True, f"argnums {argnums}"))
    for row in _read_table(os.path.join(directory, "autograd_composites.txt")):
        name, built_on = row[0], row[1] if len(row) > 1 else ""
        namespace = _namespace_of(name)
        if namespace is not None and all(n.name != name for n in names):
            names.append(AutogradName(name, namespace, True, f"composite of {built_on}"))
    for row in _read_table(os.path.join(directory, "autograd_nograd.txt")):
        name = row[0]
        namespace = _namespace_of(name)
        if namespace is not None:
            names.append(AutogradName(name, namespace, False, "non-differentiable"))
    return sorted(names, key=lambda n: n.name), sorted(helpers)


def s2sad_rule_for_name(name: str) -> Rule | None:
    """s2sad's rule for a name of autograd's lists (a method: its method rule, or its operator's)."""
    if name.startswith("ndarray."):
        member = name.split(".", 1)[1]
        rule = method_rule(numpy.ndarray, member)
        if rule is None and member.startswith("__") and member.endswith("__"):
            function = getattr(operator, member.strip("_"), None)
            rule = rule_for(function) if function is not None else None
        return rule
    value = resolve(name)
    return rule_for(value) if value is not None else None


def not_covered(autograd: list[AutogradName]) -> list[tuple[AutogradName, str]]:
    """autograd's names s2sad has no matching rule for, with what s2sad has instead."""
    missing = []
    for item in autograd:
        rule = s2sad_rule_for_name(item.name)
        if rule is None:
            missing.append((item, "no rule"))
        elif item.differentiable and rule.nondifferentiable:
            missing.append((item, "non-differentiable"))
    return missing


# ---------------------------------------------------------------- the Markdown


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _code(text: str) -> str:
    text = _cell(text)
    fence = "``" if "`" in text else "`"
    padding = " " if "`" in text else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def _namespace_titles(entries: list[Entry], autograd: list[AutogradName]) -> list[str]:
    titles = [namespace for namespace, _ in NAMESPACES]
    extra = sorted({e.namespace for e in entries} | {a.namespace for a in autograd} - set(titles),
                   key=lambda n: (n == OTHER, n))
    return titles + [n for n in extra if n not in titles]


def render(entries: list[Entry] | None = None, autograd_directory: str = DEFAULT_AUTOGRAD) -> str:
    """The text of ``docs/rules.md``."""
    entries = collect() if entries is None else sorted_entries(entries)
    autograd, helpers = read_autograd(autograd_directory)
    missing = not_covered(autograd)
    namespaces = _namespace_titles(entries, autograd)
    lines = [
        "# Rules reference",
        "",
        f"Generated from s2sad's rule registry by `{REGENERATE}` (with SciPy installed, so its rules are",
        "loaded). Do not edit: regenerate it after adding or changing a rule; `tests/test_reference.py` fails",
        "while it is out of date. `s2sad rules PATTERN` searches the same list from the command line.",
        "",
        "How to read the tables. *Gradient for* names the parameters a cotangent flows to. *Rule* is what",
        "s2sad does with the output cotangent `g` (and the output `ans`): a template is an expression the",
        "generator inlines into the pullback; `d/dx = ...` is a scalar derivative registered with",
        "`s2sad.defderivative` (inlined as `unbroadcast(g * (...).conjugate(), x)`); `vjp`, `vjp_all` and",
        "`rrule` name the function that computes the cotangents (`rules.numpy_linalg.eigh_rrule` is in",
        "`rules/numpy_linalg.py`). Non-differentiable functions pass their outputs on as constants and are",
        "listed after each table.",
        "",
        "## Summary",
        "",
        "Counts are of public names (an alias such as `numpy.abs` for `numpy.absolute` counts once per name,",
        "as autograd's lists do). autograd's counts come from `docs/autograd/` (introspected from autograd",
        "1.9.1): *with a gradient* is its primitives with a vjp that exist under that public name plus the",
        "public names it differentiates by composition; its helper primitives are listed at the end and not",
        "counted. A dash: autograd's lists have no entry in that namespace. (autograd differentiates array",
        "methods and operators through its own box type; its lists name only the methods that are composites.)",
        "",
        "| namespace | s2sad: with a gradient | s2sad: non-differentiable | autograd: with a gradient "
        "| autograd: non-differentiable | autograd names s2sad lacks |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    totals = [0, 0, 0, 0, 0]
    for namespace in namespaces:
        ours = [e for e in entries if e.namespace == namespace]
        theirs = [a for a in autograd if a.namespace == namespace]
        lacking = sum(1 for item, _ in missing if item.namespace == namespace)
        counts = [sum(e.differentiable for e in ours), sum(not e.differentiable for e in ours),
                  sum(a.differentiable for a in theirs), sum(not a.differentiable for a in theirs), lacking]
        totals = [t + c for t, c in zip(totals, counts)]
        shown = [str(c) for c in counts[:2]] + ([str(c) for c in counts[2:]] if theirs else ["-", "-", "-"])
        lines.append(f"| {namespace} | " + " | ".join(shown) + " |")
    lines.append("| **total** | " + " | ".join(f"**{t}**" for t in totals) + " |")
    lines.append("")

    for namespace in namespaces:
        ours = [e for e in entries if e.namespace == namespace]
        if not ours:
            continue
        lines += _namespace_section(namespace, ours)

    lines += [
        "## autograd functions s2sad does not cover",
        "",
        "Names from autograd's lists for which s2sad has no rule (or only a non-differentiable one where",
        "autograd has a gradient). The reason column is for the maintainers to fill in.",
        "",
    ]
    if missing:
        lines += ["| autograd name | autograd | s2sad | reason |", "| --- | --- | --- | --- |"]
        for item, ours in missing:
            lines.append(f"| `{item.name}` | {_cell(item.detail)} | {ours} | {NOT_COVERED_REASON} |")
    else:
        lines.append("None: s2sad has a rule for every one of them.")
    lines += ["", "## autograd helper primitives (not counted)", "",
              "Primitives autograd registers for its own implementation, with no public counterpart under that name:",
              "", ", ".join(f"`{name}`" for name in helpers) + ".", ""]
    return "\n".join(lines)


def _namespace_section(namespace: str, entries: list[Entry]) -> list[str]:
    with_gradient = [e for e in entries if e.differentiable]
    without = [e for e in entries if not e.differentiable]
    lines = [f"## {namespace}", "",
             f"{len(with_gradient)} with a gradient, {len(without)} non-differentiable.", ""]
    if namespace == METHODS:
        lines += ["The receiver is the rule's first parameter: `x.sum(axis=0)` is differentiated as",
                  "`np.sum(x, axis=0)`, by the same rule.", ""]
    if with_gradient:
        if namespace == METHODS:
            lines += ["| method | on | signature | gradient for | rule |", "| --- | --- | --- | --- | --- |"]
        else:
            lines += ["| name | signature | gradient for | rule |", "| --- | --- | --- | --- |"]
        aliases: dict[str, list[str]] = {}
        for entry in with_gradient:
            if entry.alias_of is not None:
                aliases.setdefault(entry.alias_of, []).append(entry.name)
        for entry in with_gradient:
            if entry.alias_of is not None:
                continue
            name = f"`{entry.name}`"
            if entry.name in aliases:
                name += " (also " + ", ".join(f"`{alias}`" for alias in aliases[entry.name]) + ")"
            owners = f" {', '.join(entry.owners)} |" if namespace == METHODS else ""
            lines.append(f"| {name} |{owners} {_code(entry.signature)} | {_cell(entry.gradients)} | "
                         f"{_code(entry.how)} |")
        lines.append("")
    if without:
        lines += ["Non-differentiable: " + ", ".join(f"`{e.name}`" for e in without) + ".", ""]
    return lines


# ---------------------------------------------------------------- searching (for `s2sad rules`)


def matching(entries: list[Entry], pattern: str | None) -> list[Entry]:
    """Entries whose qualified or short name matches ``pattern``: a glob if it has ``*?[``, else a substring."""
    if not pattern:
        return list(entries)
    if any(ch in pattern for ch in "*?["):
        return [e for e in entries if fnmatch.fnmatchcase(e.qualified, pattern) or fnmatch.fnmatchcase(e.name, pattern)]
    needle = pattern.lower()
    return [e for e in entries if needle in e.qualified.lower()]


# ---------------------------------------------------------------- the command


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m s2sad.reference",
        description="Write the rules reference (docs/rules.md) from s2sad's rule registry.",
        epilog=f"example:\n  {REGENERATE}\n  {REGENERATE} --check",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", default=DEFAULT_OUTPUT, help="where to write it (default: docs/rules.md)")
    parser.add_argument("--autograd", default=DEFAULT_AUTOGRAD, metavar="DIR",
                        help="the folder of autograd's lists (default: docs/autograd)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the file is out of date")
    arguments = parser.parse_args(argv)
    loaded = load_optional_libraries()
    if len(loaded) < len(OPTIONAL_MODULES):
        print(f"error: SciPy is needed to list all rules (missing: "
              f"{', '.join(m for m in OPTIONAL_MODULES if m not in loaded)})", file=sys.stderr)
        return 2
    text = render(autograd_directory=arguments.autograd)
    if arguments.check:
        try:
            with open(arguments.output, encoding="utf-8") as stream:
                current = stream.read()
        except FileNotFoundError:
            current = ""
        if current == text:
            return 0
        diff = difflib.unified_diff(current.splitlines(), text.splitlines(), arguments.output, "regenerated", lineterm="")
        print("\n".join(list(diff)[:60]), file=sys.stderr)
        print(f"{arguments.output} is out of date: run `{REGENERATE}`", file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(os.path.abspath(arguments.output)), exist_ok=True)
    with open(arguments.output, "w", encoding="utf-8") as stream:
        stream.write(text)
    print(f"wrote {arguments.output}")
    readme = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(arguments.output))), "README.md")
    if _with_summary(readme, text):
        print(f"updated the rules summary in {readme}")
    return 0


SUMMARY_HEADING = "| namespace | s2sad: with a gradient"


def _with_summary(readme: str, reference: str) -> bool:
    """Copy the reference's summary table into the README's ``## Rules`` section (a test checks
    they agree); whether the README changed."""
    try:
        with open(readme, encoding="utf-8") as stream:
            current = stream.read()
    except FileNotFoundError:
        return False
    section = current.find("## Rules\n")
    start = current.find(SUMMARY_HEADING, section)
    if section == -1 or start == -1:
        return False
    end = current.find("\n\n", start)
    table_start = reference.index(SUMMARY_HEADING)
    table = reference[table_start:reference.find("\n\n", table_start)].strip()
    updated = current[:start] + table + (current[end:] if end != -1 else "\n")
    if updated == current:
        return False
    with open(readme, "w", encoding="utf-8") as stream:
        stream.write(updated)
    return True


if __name__ == "__main__":
    sys.exit(main())
