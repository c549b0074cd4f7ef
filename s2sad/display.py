"""Showing generated code: highlighted on a terminal, plain when piped, HTML in Jupyter.

Pygments does the colouring; without it (or with ``NO_COLOR`` set) the text is plain.
"""
from __future__ import annotations

import os
import sys


class GeneratedCode(str):
    """The source of a generated module: a string that renders highlighted in Jupyter."""

    def _repr_html_(self) -> str:
        try:
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import PythonLexer
        except ImportError:
            import html

            return f"<pre>{html.escape(str(self))}</pre>"
        return highlight(str(self), PythonLexer(), HtmlFormatter(noclasses=True, style="default"))


def colour_wanted(stream) -> bool:
    return hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("NO_COLOR") and \
        os.environ.get("TERM") != "dumb"


def highlighted(source: str, stream=None) -> str:
    """``source`` with terminal colours if ``stream`` is a terminal (and pygments is installed)."""
    stream = stream if stream is not None else sys.stdout
    if not colour_wanted(stream):
        return source
    try:
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return source
    return highlight(source, PythonLexer(), TerminalFormatter())


def in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    if shell is None or "ipykernel" not in sys.modules:
        return False
    try:
        return shell.get_ipython() is not None
    except Exception:  # noqa: BLE001 - any failure means: not a notebook we can display in
        return False


def present(source: str, file=None) -> GeneratedCode:
    """Show ``source``: HTML in a notebook, else printed (highlighted on a terminal). Returns it."""
    code = GeneratedCode(source)
    if file is None and in_notebook():
        from IPython.display import display

        display(code)
        return code
    stream = file if file is not None else sys.stdout
    print(highlighted(source, stream), end="" if source.endswith("\n") else "\n", file=stream)
    return code
