"""The code in docs/*.md works: every ```python block is run.

The convention (stated in each document's first lines too):

* each ```python block of a document runs, in the order of the document, as one Python
  module: a block may use what an earlier block of the same document defined. The module is
  a real file (s2sad reads the source of the functions it differentiates) and runs in a
  fresh interpreter, so rules the document registers never reach other tests;
* a block whose first line is a comment starting with ``# not run`` (generated code shown
  for reading, a signature with ``...``) is only compiled;
* other fences (```text, ```bash) are not Python and are left alone.

A failure names the document's line, not the temporary module's.
"""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
DOCUMENTS = sorted(name for name in os.listdir(DOCS) if name.endswith(".md"))
FENCE = re.compile(r"^```(\S*)\s*$")
NOT_RUN = "# not run"


def python_blocks(path):
    """``(first line number, source, runs)`` of each ```python block of a Markdown file."""
    blocks, language, start, lines = [], None, 0, []
    with open(path) as stream:
        for number, line in enumerate(stream, 1):
            fence = FENCE.match(line.rstrip("\n"))
            if language is None:
                if fence:
                    language, start, lines = fence.group(1) or "-", number + 1, []
            elif line.strip() == "```":
                if language == "python":
                    source = "".join(lines)
                    blocks.append((start, source, not source.lstrip().startswith(NOT_RUN)))
                language = None
            else:
                lines.append(line)
    assert language is None, f"{path}: a ``` fence opened on line {start - 1} is never closed"
    return blocks


def script_of(name):
    """The runnable blocks of a document as one module, and its line -> document line map."""
    lines, origin = [], {}
    for start, source, runs in python_blocks(os.path.join(DOCS, name)):
        if not runs:
            continue
        lines.append(f"# ---- docs/{name}, line {start}")
        for offset, text in enumerate(source.splitlines()):
            lines.append(text)
            origin[len(lines)] = start + offset
    return "\n".join(lines) + "\n", origin


def documents_with_code():
    return [name for name in DOCUMENTS if python_blocks(os.path.join(DOCS, name))]


def test_the_guides_have_runnable_code():
    for name in ("rule-authors.md", "design.md"):
        runnable = [block for block in python_blocks(os.path.join(DOCS, name)) if block[2]]
        assert len(runnable) >= 3, f"docs/{name} should show working code"


@pytest.mark.parametrize("name", documents_with_code())
def test_blocks_not_run_still_compile(name):
    for start, source, runs in python_blocks(os.path.join(DOCS, name)):
        try:
            compile(source, f"docs/{name}:{start}", "exec")
        except SyntaxError as error:
            pytest.fail(f"docs/{name}, the block on line {start}: {error}")


@pytest.mark.parametrize("name", documents_with_code())
def test_runnable_blocks_run(name, tmp_path):
    script, origin = script_of(name)
    module = tmp_path / ("doc_" + re.sub(r"\W", "_", name[:-3]) + ".py")
    module.write_text(script)
    environment = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache"), MPLBACKEND="Agg")
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, environment.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, str(module)], capture_output=True, text=True, cwd=tmp_path,
                            env=environment, timeout=300)
    if result.returncode != 0:
        # Point at the document: "File ".../doc_design.py", line 12" -> "docs/design.md, line 140".
        def in_document(match):
            line = int(match.group(1))
            return f'docs/{name}, line {origin.get(line, "?")} (module line {line})'

        message = re.sub(rf'File "[^"]*{re.escape(module.name)}", line (\d+)', in_document, result.stderr)
        pytest.fail(f"the code of docs/{name} failed:\n{message}", pytrace=False)
