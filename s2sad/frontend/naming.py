"""Stable, readable names for generated code.

Names derive from what they hold: the user's variables keep their names, temporaries
are named after their operation and operands (``X_matmul_W``, ``tanh_z``), cotangents
put a ``d`` in front (``dW``). A name is never reused within one generated module.
"""
from __future__ import annotations

import keyword
import re

MAX_DERIVED = 24

OPERATOR_WORDS = {
    "+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "mod", "**": "pow",
    "@": "matmul", "neg": "neg", "pos": "pos", "~": "invert", "<": "lt", "<=": "le", ">": "gt",
    ">=": "ge", "==": "eq", "!=": "ne", "not": "not",
}


def _clean(text: str) -> str:
    text = re.sub(r"\W+", "_", text).strip("_")
    if not text or text[0].isdigit():
        text = "v_" + text
    return text


class Namer:
    def __init__(self, reserved=()):
        self.used: set[str] = set(reserved) | set(keyword.kwlist)

    def reserve(self, *names: str) -> None:
        self.used.update(names)

    def fresh(self, base: str) -> str:
        base = _clean(base)
        if base not in self.used:
            self.used.add(base)
            return base
        counter = 2
        while f"{base}_{counter}" in self.used:
            counter += 1
        name = f"{base}_{counter}"
        self.used.add(name)
        return name

    def version(self, user_name: str) -> str:
        """A name for a new value of a user variable: ``h``, then ``h_2``, ``h_3``."""
        return self.fresh(user_name)

    def temporary(self, operation: str, operands: list[str]) -> str:
        """``X_matmul_W`` for ``X @ W``, ``tanh_z`` for ``np.tanh(z)``; just the operation when long."""
        operation = OPERATOR_WORDS.get(operation, operation.split(".")[-1])
        parts = [p for p in operands if p]
        if len(parts) == 2 and operation in OPERATOR_WORDS.values() and operation not in ("neg", "pos", "not", "invert"):
            if parts[0][0].isdigit() and operation in ("add", "mul"):
                parts = parts[::-1]  # `2.0 * x` reads as x_mul_2_0: a name cannot start with the number
            derived = f"{parts[0]}_{operation}_{parts[1]}"
        elif parts:
            derived = f"{operation}_{'_'.join(parts)}"
        else:
            derived = operation
        if len(derived) > MAX_DERIVED:
            derived = operation
        return self.fresh(derived)

    def derivative(self, name: str) -> str:
        """``dx`` for ``x``: its cotangent or tangent."""
        return self.fresh("d" + name if name[0].isupper() or not name.startswith("d") else "d_" + name)
