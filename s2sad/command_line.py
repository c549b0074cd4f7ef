"""The ``s2sad`` command (also ``python cli.py`` from a checkout).

``s2sad show FILE.py:FUNC`` prints the code generated for a function; ``s2sad rules
[PATTERN]`` lists the registered rules (the same entries as ``docs/rules.md``, which
``python -m s2sad.reference`` writes).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys

from . import __version__
from .errors import S2SADError

EPILOG_SHOW = """example:
  s2sad show examples/quickstart.py:loss
  s2sad show examples/quickstart.py:loss --wrt W,b"""

EPILOG_RULES = """PATTERN is a glob on the full or short name if it has * ? or [, else a
case-insensitive substring of the full name (numpy.tanh, ndarray.sum, scipy.stats.norm.logpdf).

examples:
  s2sad rules tanh                 # every rule whose name contains "tanh"
  s2sad rules 'numpy.linalg.*'     # the rules of numpy.linalg
  s2sad rules 'ndarray.*' --how    # array methods, with each rule's template or function"""


def _load_target(target: str):
    """``FILE.py:FUNC`` -> the function object (the file is imported as a module)."""
    path, _, name = target.rpartition(":")
    if not path or not name:
        raise S2SADError(f"expected FILE.py:FUNCTION, got {target!r}", hint="for example: s2sad show model.py:loss")
    if not os.path.isfile(path):
        raise S2SADError(f"no such file: {path}")
    module_name = "s2sad_cli_target_" + "".join(ch if ch.isalnum() else "_" for ch in os.path.abspath(path))
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    function = module
    for part in name.split("."):
        function = getattr(function, part, None)
        if function is None:
            raise S2SADError(f"{path} defines no function named {name!r}")
    return function


def _wrt(function, wrt: str | None):
    import inspect

    from .resolve import unwrap as _unwrap

    names = list(inspect.signature(_unwrap(function)).parameters)
    if not wrt:
        default = getattr(function, "wrt", None)
        return tuple(default) if default else tuple(names[:1])
    chosen = [w.strip() for w in wrt.split(",") if w.strip()]
    unknown = [w for w in chosen if w not in names]
    if unknown:
        raise S2SADError(f"--wrt names {', '.join(unknown)}, which {function.__qualname__} does not take",
                         hint=f"its parameters are: {', '.join(names)}")
    return tuple(n for n in names if n in chosen)


def command_show(arguments) -> int:
    from .transform import generated_source

    function = _load_target(arguments.target)
    print(generated_source(function, _wrt(function, arguments.wrt)), end="")
    return 0


def command_rules(arguments) -> int:
    from . import reference

    reference.load_optional_libraries()
    entries = reference.collect()
    found = reference.matching(entries, arguments.pattern)
    rows = [(e.qualified, e.namespace, e.gradients if e.differentiable else "non-differentiable", e.signature,
             e.how) for e in found]
    if rows:
        header = ("NAME", "NAMESPACE", "GRADIENT FOR", "SIGNATURE", "RULE")
        columns = 5 if arguments.how else 4
        widths = [max(len(row[i]) for row in rows + [header]) for i in range(columns - 1)]
        for row in [header] + rows:
            print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[columns - 1])
    with_gradient = sum(e.differentiable for e in found)
    summary = f"{with_gradient} with a gradient, {len(found) - with_gradient} non-differentiable"
    if arguments.pattern:
        print(f"{len(found)} of {len(entries)} names with a rule match {arguments.pattern!r} ({summary})")
    else:
        print(f"{len(found)} names with a rule ({summary})")
    return 0 if found else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="s2sad", description="Source-to-source automatic differentiation for Python and NumPy.",
        epilog="example:\n  s2sad show examples/quickstart.py:loss\n  s2sad rules 'numpy.linalg.*'",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"s2sad {__version__}")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks for errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    show = commands.add_parser("show", help="print the code generated for FILE.py:FUNC", epilog=EPILOG_SHOW,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    show.add_argument("target", metavar="FILE.py:FUNC")
    show.add_argument("--wrt", help="comma-separated parameters to differentiate (default: the first)")
    show.set_defaults(run=command_show)
    rules = commands.add_parser("rules", help="list the registered rules matching PATTERN", epilog=EPILOG_RULES,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="List s2sad's rules: name, namespace, the parameters that get a "
                                            "gradient, and the signature.")
    rules.add_argument("pattern", metavar="PATTERN", nargs="?", help="a glob or a substring (default: every rule)")
    rules.add_argument("--how", action="store_true", help="also show each rule: its template or function")
    rules.set_defaults(run=command_rules)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    if arguments.command is None:
        parser.print_help()
        return 0
    try:
        return arguments.run(arguments)
    except S2SADError as error:
        if arguments.debug:
            raise
        print(error.render(), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
