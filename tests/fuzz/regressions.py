"""Regression programs: one shrunk fuzz program per file in ``tests/fuzz_regressions/``.

A regression file is an ordinary module (s2sad reads its source)::

    \"\"\"What the program shows, and what s2sad did wrong.\"\"\"
    import math

    import numpy as np

    XFAIL = "what happens now"    # only while the s2sad bug is open: the test is xfail(strict=True)
    CATEGORY = "grad-mismatch"     # the oracle's failure category (or signature), or a tuple of them
    FEATURES = ("fill-recurrence",)  # a fuzz failure of this CATEGORY in a program with all of
                                     # these constructs is counted as this known bug
    OUTPUT = "S"                   # the output's shape kind (S, V, U, M, C)
    DIRECTION_SEED = 0             # seed of the cotangent u and tangents v

    def f(x): ...

    def inputs():
        return (np.array([0.1, 0.2, 0.3]),)

``tests/test_fuzz.py`` runs every file through the same oracle as the fuzzer.
"""
from __future__ import annotations

import glob
import os
import re

import numpy as np

from . import trees
from .generator import HEADER, SHAPES, _literal, directions
from .generator import Param

DIRECTORY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fuzz_regressions")


def kind_of(value) -> str:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return "int"
    if trees.is_container(value):
        return "tree"   # a structured input: its directions follow its leaves (generator.directions)
    shape = np.shape(value)
    for kind, known in SHAPES.items():
        if known == shape:
            return kind
    raise ValueError(f"an input of shape {shape} is not one of the fuzzer's kinds")


def directions_for(seed: int, args, output_kind: str):
    params = [Param(f"a{i}", kind_of(a), a) for i, a in enumerate(args)]
    return directions(seed, params, output_kind)


def files(directory: str = DIRECTORY) -> list[str]:
    return sorted(glob.glob(os.path.join(directory, "fuzz_*.py")))


def known_bugs(directory: str = DIRECTORY) -> list[tuple[str, frozenset, str]]:
    """(category, features, file) of every regression still marked XFAIL, read without importing."""
    found = []
    for path in files(directory):
        with open(path) as stream:
            text = stream.read()
        if not re.search(r"^XFAIL = ", text, re.M):
            continue
        namespace: dict = {}
        for name in ("CATEGORY", "FEATURES"):
            match = re.search(rf"^{name} = (.*)$", text, re.M)
            namespace[name] = eval(match.group(1), {}) if match else None  # literals written by this module
        found.append((namespace["CATEGORY"], frozenset(namespace["FEATURES"] or ()), os.path.basename(path)))
    return found


def text_of(program, failure, title: str, xfail: str | None = None, features=None) -> str:
    """The regression file for a shrunk program."""
    body = program.source
    if body.startswith(HEADER):
        body = body[len(HEADER):]
    message = str(failure.message).replace('"""', "'''").replace("\\", "\\\\")
    lines = [f'"""Fuzz regression: {title}.', "", "Found by tests/fuzz and shrunk by hypothesis. What the oracle reported:", "",
             *("    " + line for line in message.splitlines()[:12]), '"""', "import math", "", "import numpy as np", ""]
    if xfail:
        lines.append(f"XFAIL = {xfail!r}")
    lines += [f"CATEGORY = {failure.signature!r}",
              f"FEATURES = {tuple(sorted(features if features is not None else program.features))!r}",
              f"OUTPUT = {program.output_kind!r}", f"DIRECTION_SEED = {program.direction_seed!r}", ""]
    inputs = ", ".join(_literal(p.value) for p in program.params)
    text = "\n".join(lines) + body.rstrip() + f"\n\n\ndef inputs():\n    return ({inputs},)\n"
    compile(text, "<regression>", "exec")
    return text


def save(program, failure, title: str, directory: str = DIRECTORY, xfail: str | None = None, features=None) -> str:
    os.makedirs(directory, exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")[:50]
    path = os.path.join(directory, f"fuzz_{slug}.py")
    number = 2
    while os.path.exists(path):
        path = os.path.join(directory, f"fuzz_{slug}_{number}.py")
        number += 1
    with open(path, "w") as stream:
        stream.write(text_of(program, failure, title, xfail, features))
    return path


def load_file(path: str):
    """Import a regression file under a name of its own (its source stays readable to s2sad)."""
    import importlib.util
    import sys

    name = "fuzz_regression_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def check_file(path: str):
    """Run the fuzzer's oracle on a regression file: an ``oracle.Outcome``."""
    from .analysis import Probe
    from .oracle import check_module

    module = load_file(path)
    with open(path) as stream:
        probe = Probe(stream.read())
    args = module.inputs()
    u, tangents = directions_for(module.DIRECTION_SEED, args, module.OUTPUT)
    return check_module(module, probe, args, module.OUTPUT, u, tangents)
