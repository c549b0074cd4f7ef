"""How many programs of the realistic corpus (tests/realistic_programs.py) compile under compile=True.

A program counts as compiled when ``s2sad.grad(f, argnums, compile=True)`` at the corpus's
arguments gives its gradient without a ``CompiledFallbackWarning``; the others are listed with
the first warning's reason. Run from the repository root:

    .venv/bin/python benchmarks/compiled_corpus.py [-v]
"""
import copy
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import s2sad  # noqa: E402
import test_realistic_programs as corpus  # noqa: E402


def compiles(name) -> tuple[bool, str]:
    """Whether the program's gradient compiled, and the first fallback warning's text if not."""
    function, args, argnums = corpus._function(name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s2sad.grad(function, argnums=argnums, compile=True)(*copy.deepcopy(args))
    fallbacks = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    return not fallbacks, fallbacks[0] if fallbacks else ""


def main(verbose: bool) -> None:
    names = sorted(name for name in corpus.CORPUS if ("reverse", name) not in corpus.REFUSED)
    compiled = []
    for name in names:
        ok, reason = compiles(name)
        if ok:
            compiled.append(name)
        print(f"{'compiled ' if ok else 'falls back'}  {name}" + (f"\n            {reason[:400]}" if verbose and not ok else ""))
    print(f"{len(compiled)} of {len(names)} programs compile")


if __name__ == "__main__":
    main("-v" in sys.argv)
