"""Classes defined inside a differentiated function (``class Linear: ...`` in its body).

The class statement is run once, when the generated module is bound, from the user's own text,
compiled under the user's file name and line numbers: its methods' source is then found in the
user's file as any method's is, so calls of them are differentiated like a module-level class's.
The normaliser lets this happen only for a class that reads none of the function's local
variables, so that one class made once is the class every call would make.
"""
from __future__ import annotations


def defined_class(name: str, text: str, filename: str, first_line: int, namespace: dict) -> type:
    """The class ``name`` that the statement ``text`` (at ``first_line`` of ``filename``, indented
    as it is there) defines, its global names read from ``namespace`` (the function's module). It is
    made inside a function of its own, as it is in the user's, so that its methods read its name as
    a closure does."""
    wrapped = "\n" * (first_line - 2) + "def make_the_class():\n" + text + f"\n{text[:len(text) - len(text.lstrip())]}return {name}\n"
    made: dict = {}
    exec(compile(wrapped, filename, "exec"), namespace, made)  # noqa: S102  (the user's own class statement)
    return made["make_the_class"]()
