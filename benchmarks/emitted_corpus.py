"""What ``s2sad emit --compile`` makes of each program of the realistic corpus (tests/realistic_programs.py).

Each module-level program is emitted as the command line emits it (its differentiated parameters
named), and the file is called in a new process that cannot import s2sad, at the corpus's
arguments. A program ends in one of:

- refused: emit said why, an s2sad error (``S2SADError``), and wrote nothing;
- agrees: the file ran; its value and gradients agree with the NumPy path's (``s2sad.grad``,
  rtol 1e-9), and the gradients' slopes along two random directions with central differences;
- not served: ``ACCEPTS(...)`` is false for these arguments (the file says it does not serve them;
  what calling it all the same gives is said too);
- raised: the file raised on a call ``ACCEPTS`` serves (a Numba ``TypingError``: a defect; a
  ``NotCompiledCase`` naming the case: the file declines a value it does not cover);
- WRONG: it ran and its numbers differ: the worst outcome.

Programs the command line cannot name (a lambda, a bound method, a function made by another)
are counted apart. Given test files, their ``CASES`` (``name: (function, arguments, argnums)``)
are swept instead. Run from the repository root:

    .venv/bin/python benchmarks/emitted_corpus.py [-v] [NAME ...] [tests/test_compiled_arrays.py ...]
"""
import copy
import importlib
import inspect
import os
import pickle
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import s2sad  # noqa: E402
import test_realistic_programs as corpus  # noqa: E402
from s2sad.emit import emitted_text  # noqa: E402
from s2sad.errors import S2SADError  # noqa: E402
from trees import inner  # noqa: E402

# run in a new process, where s2sad cannot be imported: the emitted file, the corpus's arguments pickled
CALL = """\
import importlib, pickle, sys
sys.modules["s2sad"] = None
sys.path.insert(0, sys.argv[1])
with open(sys.argv[3], "rb") as handle:
    args = pickle.load(handle)
module = importlib.import_module(sys.argv[2])
accepted = bool(module.ACCEPTS(*args))
try:
    outcome = ("ran", accepted, getattr(module, sys.argv[4] + "_grad")(*args))
except Exception as error:
    outcome = ("raised", accepted, f"{type(error).__name__}: {str(error)[:300]}")
sys.stdout.buffer.write(pickle.dumps(outcome))
"""


def programs(test_files: list) -> dict:
    """name -> (function, arguments, argnums): the corpus's, or the CASES of these test files'."""
    if not test_files:
        return {name: corpus._function(name) for name in sorted(corpus.CORPUS) if ("reverse", name) not in corpus.REFUSED}
    found = {}
    for path in test_files:
        module = importlib.import_module(os.path.splitext(os.path.basename(path))[0])
        for label, case in getattr(module, "CASES", {}).items():
            if isinstance(case, tuple) and len(case) == 3 and callable(case[0]):
                function, args, argnums = case
                found[f"{module.__name__}:{label}"] = (function, args, (argnums,) if isinstance(argnums, int) else argnums)
    return found


def emittable(function, args, argnums):
    """The program, its arguments and differentiated parameters' names, or why the command line cannot name it."""
    module = sys.modules.get(getattr(function, "__module__", None))
    if not inspect.isfunction(function) or getattr(module, function.__name__, None) is not function:
        return None, "not a module-level function (a lambda, bound method, partial or function made by another)"
    signature = inspect.signature(function)
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in signature.parameters.values()):
        return None, "its parameters are not all positional"
    bound = signature.bind(*args)
    bound.apply_defaults()  # the emitted file's gradient takes every parameter
    names = list(signature.parameters)
    return (function, tuple(bound.arguments.values()), argnums, tuple(names[i] for i in argnums)), ""


def outcome(name, program, directory):
    """(kind, detail) of one program: refused, agrees, not served, raised, WRONG, or not emittable."""
    found, why = emittable(*program)
    if found is None:
        return "not emittable", why
    function, args, argnums, wrt = found
    name = re.sub(r"\W", "_", name)
    path = os.path.join(directory, f"{name}_emitted.py")
    try:
        text = emitted_text(function, wrt, "compiled", path, f"{function.__module__}.py:{function.__name__}")
    except S2SADError as error:
        return "refused", str(error).splitlines()[0]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    with open(path + ".args", "wb") as handle:
        pickle.dump(copy.deepcopy(args), handle)
    ran = subprocess.run([sys.executable, "-c", CALL, directory, f"{name}_emitted", path + ".args", function.__name__],
                         capture_output=True, cwd=directory)
    if ran.returncode != 0:
        return "raised", ran.stderr.decode()[-400:]
    kind, accepted, result = pickle.loads(ran.stdout)
    if not accepted:  # (called all the same: what a caller who did not ask would get)
        return "not served", f"called all the same: {result if kind == 'raised' else ' '.join(compared(function, args, argnums, result))}"
    if kind == "raised":
        return "raised", result
    return compared(function, args, argnums, result)


def compared(function, args, argnums, result):
    """agrees or WRONG: the file's value and gradients against the NumPy path's and central differences."""
    value, gradients = result
    expected, numpy_gradients = s2sad.value_and_grad(function, argnums=argnums)(*copy.deepcopy(args))
    if not np.allclose(value, expected, rtol=1e-9, atol=1e-12):
        return "WRONG", f"value {value!r}, NumPy's {expected!r}"
    for position, gradient, numpy_gradient in zip(argnums, gradients, numpy_gradients):
        if not all(np.allclose(a, b, rtol=1e-9, atol=1e-12) for a, b in zip(leaves(gradient), leaves(numpy_gradient))):
            return "WRONG", f"gradient of argument {position}: {gradient!r}, the NumPy path's {numpy_gradient!r}"
    for _ in range(2):
        directions = {i: corpus._direction(args[i]) for i in argnums}
        slope = sum(inner(g, directions[i], args[i]) for i, g in zip(argnums, gradients))
        differences = corpus._along(function, args, argnums, directions)
        if not np.isclose(slope, differences, rtol=1e-5, atol=1e-6):
            return "WRONG", f"slope {slope!r} along a random direction, central differences {differences!r}"
    return "agrees", ""


def leaves(tree) -> list:
    """The arrays and numbers of a gradient (a list of tuples, a dict), in order."""
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in leaves(tree[key])]
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in leaves(item)]
    return [tree]


def main(verbose: bool, only: list, test_files: list) -> None:
    found = programs(test_files)
    names = only or list(found)
    counts: dict = {}
    with tempfile.TemporaryDirectory() as directory:
        for name in names:
            kind, detail = outcome(name, found[name], directory)
            counts[kind] = counts.get(kind, 0) + 1
            print(f"{kind:<13} {name}" + (f"\n              {detail[:400]}" if verbose and detail else ""), flush=True)
    print(", ".join(f"{count} {kind}" for kind, count in sorted(counts.items())) + f" of {len(names)} programs")


if __name__ == "__main__":
    words = [a for a in sys.argv[1:] if a != "-v"]
    main("-v" in sys.argv, [w for w in words if not w.endswith(".py")], [w for w in words if w.endswith(".py")])
