"""What a file written by ``s2sad emit`` calls when it is imported.

The emitted file holds the generated code; the names it uses from the function's own
module (its globals, helpers, the rules it calls) are bound here by importing that module
(not parsing it), exactly as the cache's loader binds them.
"""
from __future__ import annotations

import importlib.util
import os
import sys

from .arguments import hand_over, seed_for
from .frontend.resolve import unwrap
from .transform import bind


def bind_from_source(namespace: dict, emitted_file: str, relative_path: str, absolute_path: str, qualname: str):
    """Bind the ``BINDINGS`` of an emitted module from the module defining ``qualname``, and give
    back the function (whose defaults the emitted gradient takes)."""
    here = os.path.dirname(os.path.abspath(emitted_file))
    path = os.path.normpath(os.path.join(here, relative_path))
    if not os.path.isfile(path):
        path = absolute_path
    if not os.path.isfile(path):
        raise ImportError(f"s2sad: the source of this derivative file is not found at {relative_path} "
                          f"(relative to {here}) nor at {absolute_path}: keep the two files together")
    module = _import_path(path)
    function = module
    for part in qualname.split("."):
        function = getattr(function, part)

    class Emitted:
        pass

    holder = Emitted()
    holder.__dict__ = namespace
    bind(holder, unwrap(function))
    return unwrap(function)


def _import_path(path: str):
    for module in list(sys.modules.values()):
        if os.path.abspath(getattr(module, "__file__", "") or "") == os.path.abspath(path):
            return module
    name = "s2sad_source_" + "".join(ch if ch.isalnum() else "_" for ch in os.path.abspath(path))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    return module


def gradient(rrule, values: tuple, positions: tuple[int, ...], name: str):
    """What ``s2sad.grad`` returns, from an emitted rrule: one gradient, or a tuple."""
    output, pullback = rrule(*values)
    cotangents = pullback(seed_for(output, name))
    gradients = tuple(hand_over(values[p], cotangents[1 + p]) for p in positions)
    return gradients[0] if len(gradients) == 1 else gradients
