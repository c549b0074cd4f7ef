"""The ``s2sad`` command (also ``python cli.py`` from a checkout).

``s2sad show FILE.py:FUNC`` prints the code generated for a function (highlighted on a
terminal); ``s2sad emit`` writes it as a file of its own; ``s2sad check`` compares a gradient
with finite differences; ``s2sad rules [PATTERN]`` lists the registered rules (the same
entries as ``docs/rules.md``, which ``python -m s2sad.reference`` writes); ``s2sad cache``
shows or clears the cache of generated code.
"""
from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import sys

import numpy as np

from . import cache, reference
from .decorator import Differentiated
from .display import present
from .emit import emitted_text, write_new
from .errors import S2SADError, SourceLocation
from .frontend.resolve import unwrap
from .testing import check_grad
from .transform import generated_source, transform
from .version import __version__

IMPORTS_THE_FILE = ("FILE.py is imported to find the function and the names it uses: its top-level code runs, "
                    "as `python FILE.py` would run it, but not its `if __name__ == \"__main__\":` block.")

EPILOG_SHOW = """example:
  s2sad show examples/quickstart.py:loss
  s2sad show examples/quickstart.py:loss --wrt W,b"""

EPILOG_EMIT = """examples:
  s2sad emit examples/quickstart.py:loss -o loss_derivatives.py
  s2sad emit model.py:loss --wrt W,b --mode forward -o derivatives/
  s2sad emit model.py -o derivatives/        # every @s2sad.differentiate function in model.py"""

EPILOG_CHECK = """example:
  s2sad check examples/quickstart.py:loss --wrt W,b --shapes W=4,3 b=3 X=32,4 y=32,3
  (NAME= with no sizes gives a Python float; every parameter without a default needs a shape)"""

EPILOG_CACHE = """examples:
  s2sad cache info
  s2sad cache clear"""

EPILOG_PRECOMPILE = """Run it once after installing s2sad with Numba (pip install 's2sad[jit]'), for
example in a Docker image or at the start of a CI job: a new function's first
compile=True call then compiles only its own code (the RNN benchmark: 2.4-2.8 s
with nothing cached, 1.6-2.2 s after this). It takes about 40 s of CPU.

examples:
  s2sad precompile
  s2sad precompile --jobs 4"""

EPILOG_RULES = """PATTERN is a glob on the full or short name if it has * ? or [, else a
case-insensitive substring of the full name (numpy.tanh, ndarray.sum, scipy.stats.norm.logpdf).

examples:
  s2sad rules tanh                 # every rule whose name contains "tanh"
  s2sad rules 'numpy.linalg.*'     # the rules of numpy.linalg
  s2sad rules 'ndarray.*' --how    # array methods, with each rule's template or function"""


def _load_module(path: str):
    if not os.path.isfile(path):
        raise S2SADError(f"no such file: {path}")
    module_name = "s2sad_cli_target_" + "".join(ch if ch.isalnum() else "_" for ch in os.path.abspath(path))
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        del sys.modules[module_name]
        location = SourceLocation(path, error.lineno or 1, error.offset or 1, (error.text or "").rstrip("\n"))
        raise S2SADError(f"{path} has a syntax error: {error.msg}", location, "fix the file, then run again") from None
    except Exception as error:  # noqa: BLE001 - the user's module failed: say so, without our traceback
        del sys.modules[module_name]
        raise S2SADError(f"importing {path} failed: {type(error).__name__}: {error}",
                         hint="the file must import cleanly (run it with python to see the full error)") from None
    finally:
        sys.path.pop(0)
    return module


def _load_target(target: str):
    """``FILE.py:FUNC`` -> the function object (the file is imported as a module)."""
    path, _, name = target.rpartition(":")
    if not path or not name:
        raise S2SADError(f"expected FILE.py:FUNCTION, got {target!r}", hint="for example: s2sad show model.py:loss")
    module = _load_module(path)
    function = module
    for part in name.split("."):
        function = getattr(function, part, None)
        if function is None:
            raise S2SADError(f"{path} defines no function named {name!r}")
    if not callable(function):
        raise S2SADError(f"{path}:{name} is a {type(function).__name__}, not a function",
                         hint="name a function defined in the file: FILE.py:FUNCTION")
    return function


def _wrt(function, wrt: str | None):
    names = list(inspect.signature(unwrap(function)).parameters)
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
    function = _load_target(arguments.target)
    wrt = _wrt(function, arguments.wrt)
    if arguments.unoptimized:
        present("# ---- before optimisation: every value differentiated, every rule called as a function\n"
                + transform(unwrap(function), wrt, arguments.mode, optimize=False).source)
        present("# ---- after optimisation: the code s2sad runs\n")
    present(generated_source(function, wrt, arguments.mode))
    return 0


def _targets(target: str):
    """``FILE.py:FUNC`` -> [function]; ``FILE.py`` -> every @differentiate function in it."""
    if ":" in target:
        return [_load_target(target)]
    module = _load_module(target)
    found = [value for value in vars(module).values() if isinstance(value, Differentiated)]
    if not found:
        raise S2SADError(f"{target} has no function marked @s2sad.differentiate",
                         hint=f"name one: s2sad emit {target}:FUNCTION")
    return found


def command_emit(arguments) -> int:
    functions = _targets(arguments.target)
    output = arguments.output
    into_directory = output is None or output.endswith(os.sep) or os.path.isdir(output)
    if len(functions) > 1 and not into_directory:
        raise S2SADError(f"{len(functions)} functions to emit, but -o names one file", hint="give a directory: -o DIR/")
    if arguments.compile and arguments.mode == "forward":
        raise S2SADError("--compile writes the compiled gradient (reverse mode): it does not go with --mode forward",
                         hint="leave out --mode forward")
    mode = "compiled" if arguments.compile else arguments.mode
    suffix = {"forward": "_jvp", "compiled": "_compiled"}.get(mode, "_derivatives")
    for function in functions:
        name = unwrap(function).__name__
        path = os.path.join(output or ".", f"{name}{suffix}.py") if into_directory else output
        target = arguments.target if ":" in arguments.target else f"{arguments.target}:{name}"
        text = emitted_text(function, _wrt(function, arguments.wrt), mode, path, target)
        write_new(path, text, arguments.force)
        print(f"wrote {path}")
    return 0


def command_check(arguments) -> int:
    function = _load_target(arguments.target)
    original = unwrap(function)
    parameters = inspect.signature(original).parameters
    shapes = {}
    for item in arguments.shapes or []:
        name, _, shape = item.partition("=")
        if name not in parameters:
            raise S2SADError(f"--shapes names {name!r}, which {original.__qualname__} does not take",
                             hint=f"its parameters are: {', '.join(parameters)}")
        try:
            shapes[name] = tuple(int(n) for n in shape.split(",") if n.strip()) if shape.strip() else ()
        except ValueError:
            raise S2SADError(f"bad shape {shape!r} for {name}", hint="write sizes separated by commas: W=4,3") from None
    required = [name for name, parameter in parameters.items() if parameter.default is inspect.Parameter.empty]
    missing = [name for name in required if name not in shapes]
    if missing:
        usage = f"s2sad check {arguments.target} --shapes {' '.join(f'{name}=SIZES' for name in required)}"
        raise S2SADError(f"s2sad check makes random inputs of the shapes you give: no shape for "
                         f"{', '.join(missing)}", hint=f"usage: {usage}  (sizes separated by commas, e.g. "
                                                       f"{missing[0]}=4,3; {missing[0]}= gives a Python float)")
    rng = np.random.default_rng(arguments.seed)
    args = []
    for name in parameters:
        if name not in shapes:
            break
        args.append(float(rng.standard_normal()) if shapes[name] == () else rng.standard_normal(shapes[name]))
    wrt = _wrt(function, arguments.wrt)
    names = list(parameters)
    positions = tuple(names.index(w) for w in wrt)
    try:
        check_grad(original, *args, argnums=positions, seed=arguments.seed)
    except AssertionError as failure:
        print(f"FAIL {original.__qualname__} with respect to {', '.join(wrt)}:\n{failure}")
        return 1
    print(f"PASS {original.__qualname__}: the gradient with respect to {', '.join(wrt)} matches central finite "
          f"differences at random inputs (seed {arguments.seed})")
    return 0


def command_cache(arguments) -> int:
    directory = cache.usable_directory()
    if directory is None:
        print("the cache directory is not usable: generated code is kept in memory only")
        return 1
    entries = sorted(directory.glob("s2sad_*.py"))
    if arguments.action == "info":
        size = sum(entry.stat().st_size for entry in entries)
        print(f"directory: {directory}\nentries:   {len(entries)}\nsize:      {size / 1024:.1f} KiB")
        return 0
    removed = cache.clear(directory)  # the entries, their compiled code, and what killed writes left behind
    print(f"removed {removed} entries from {directory}")
    return 0


def command_precompile(arguments) -> int:
    if importlib.util.find_spec("numba") is None:
        print("Numba is not installed: compile=True needs it (pip install 's2sad[jit]')", file=sys.stderr)
        return 1
    from .compiled_helpers import KEPT_ON_DISK
    from .precompile import precompile

    if not KEPT_ON_DISK:
        print("Numba has no writable place for its cache here (set NUMBA_CACHE_DIR): nothing would be kept",
              file=sys.stderr)
        return 1
    every_one = precompile(jobs=max(1, arguments.jobs), only=tuple(arguments.only or ()))
    print("done: compile=True's helpers are in Numba's disk cache" if every_one else
          "done, but not every program compiled (above): their helpers are compiled at a first call instead")
    return 0 if every_one else 1


def command_rules(arguments) -> int:
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
                               formatter_class=argparse.RawDescriptionHelpFormatter,
                               description=f"Print the code s2sad generates for a function. {IMPORTS_THE_FILE}")
    show.add_argument("target", metavar="FILE.py:FUNC")
    show.add_argument("--wrt", help="comma-separated parameters to differentiate (default: the first)")
    show.add_argument("--mode", choices=("reverse", "forward"), default="reverse",
                      help="reverse: value and pullback (default); forward: value and tangent")
    show.add_argument("--unoptimized", action="store_true",
                      help="print the plain translation first (no activity analysis, no inlining), then the code run")
    show.set_defaults(run=command_show)
    emit = commands.add_parser("emit", help="write the derivative of FILE.py:FUNC as a source file", epilog=EPILOG_EMIT,
                               formatter_class=argparse.RawDescriptionHelpFormatter,
                               description="Write a standalone derivative file: importable without s2sad parsing the "
                                           "source again. Never replaces an existing file unless --force. "
                                           + IMPORTS_THE_FILE)
    emit.add_argument("target", metavar="FILE.py[:FUNC]")
    emit.add_argument("--wrt", help="comma-separated parameters to differentiate (default: the first)")
    emit.add_argument("--mode", choices=("reverse", "forward"), default="reverse")
    emit.add_argument("-o", "--output", metavar="OUT.py|DIR/", help="file or directory to write (default: here)")
    emit.add_argument("--force", action="store_true", help="replace an existing file")
    emit.add_argument("--compile", action="store_true",
                      help="write the compiled gradient (what compile=True runs): Numba, no s2sad, for functions "
                           "of Python floats and 1-d float arrays read by element")
    emit.set_defaults(run=command_emit)
    check = commands.add_parser("check", help="check the gradient of FILE.py:FUNC against finite differences",
                                epilog=EPILOG_CHECK, formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="Check s2sad's gradient of a function at random inputs of the shapes "
                                            f"given against central finite differences. {IMPORTS_THE_FILE}")
    check.add_argument("target", metavar="FILE.py:FUNC")
    check.add_argument("--shapes", nargs="+", metavar="NAME=SIZES",
                       help="the shape of each parameter without a default, e.g. W=4,3 (NAME= for a float)")
    check.add_argument("--wrt", help="comma-separated parameters to differentiate (default: the first)")
    check.add_argument("--seed", type=int, default=0, help="random seed for the inputs and directions")
    check.set_defaults(run=command_check)
    cache_parser = commands.add_parser("cache", help="show or clear the cache of generated code", epilog=EPILOG_CACHE,
                                       formatter_class=argparse.RawDescriptionHelpFormatter)
    cache_parser.add_argument("action", choices=("info", "clear"))
    cache_parser.set_defaults(run=command_cache)
    prepare = commands.add_parser("precompile", help="compile compile=True's helpers into Numba's disk cache",
                                  epilog=EPILOG_PRECOMPILE, formatter_class=argparse.RawDescriptionHelpFormatter,
                                  description="Differentiate a set of small programs with compile=True so that the "
                                              "helpers compiled gradients call are kept on disk before any first "
                                              "call needs them.")
    prepare.add_argument("--jobs", type=int, default=2, help="processes compiling at once (default: 2)")
    prepare.add_argument("--only", nargs="+", metavar="PROGRAM", help=argparse.SUPPRESS)
    prepare.set_defaults(run=command_precompile)
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
    except BrokenPipeError:
        # the reader went away (`s2sad show ... | head`): what it did not read is not an error;
        # stdout goes to devnull so that Python's flush at exit does not fail on the pipe again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
