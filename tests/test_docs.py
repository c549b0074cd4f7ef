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

The README is checked too: its 30-second tour runs, and its rules summary is the one
docs/rules.md (generated from the registry) has. Every public name (``s2sad.__all__``,
``s2sad.testing.__all__``) has a ``>>>`` example in its docstring, which ``help()`` shows,
and every such example runs (with its class's methods' examples) and prints what it shows.
"""
import doctest
import importlib
import inspect
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
    for name in ("rule-authors.md", "design.md", "guide.md", "coming-from-jax.md", "coming-from-autograd.md"):
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


# ---------------------------------------------------------------- the README's tour and rules summary


def _readme():
    with open(os.path.join(ROOT, "README.md")) as stream:
        return stream.read()


def _section(text, heading):
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end != -1 else len(text)]


def test_the_readme_tour_runs(tmp_path):
    tour = _section(_readme(), "## A 30-second tour")
    code = tour.split("```python\n", 1)[1].split("```", 1)[0]
    module = tmp_path / "readme_tour.py"
    module.write_text(code)
    environment = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache"))
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, environment.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, str(module)], capture_output=True, text=True, cwd=tmp_path,
                            env=environment, timeout=300)
    assert result.returncode == 0, f"the README's 30-second tour failed:\n{result.stderr}"
    assert "def loss_rrule(W, b, X, y):" in result.stdout and "def mse_rrule(W, b, X, y):" in result.stdout


def _summary_table(text):
    start = text.index("| namespace | s2sad: with a gradient")
    end = text.find("\n\n", start)
    return text[start:end if end != -1 else len(text)].strip()


def test_the_readme_rules_summary_is_the_reference_summary():
    with open(os.path.join(DOCS, "rules.md")) as stream:
        reference = _summary_table(stream.read())
    assert _summary_table(_section(_readme(), "## Rules")) == reference, (
        "README.md's rules summary differs from docs/rules.md's: copy the summary table of docs/rules.md "
        f"(written by `python -m s2sad.reference`) into the README's `## Rules` section:\n\n{reference}\n")


# ---------------------------------------------------------------- docstring examples

def public_names():
    """``(qualified name, what help() shows)`` for every public name: ``s2sad.__all__`` and
    ``s2sad.testing.__all__``. help() of an instance (``s2sad.ZERO``) shows its class."""
    s2sad = importlib.import_module("s2sad")
    testing = importlib.import_module("s2sad.testing")
    names = [(f"s2sad.{name}", getattr(s2sad, name)) for name in s2sad.__all__]
    names += [(f"s2sad.testing.{name}", getattr(testing, name)) for name in testing.__all__]
    return [(name, value if inspect.isroutine(value) or inspect.isclass(value) or inspect.ismodule(value)
             else type(value)) for name, value in names]


def docstring_examples():
    """``(where, source, want)`` of each ``>>>`` example in the docstrings of the public names and
    of their classes' public methods, each object once (``s2sad.jacobian`` is ``jacrev``)."""
    examples, seen = [], set()
    finder = doctest.DocTestFinder(recurse=True)
    for name, value in public_names():
        if id(value) in seen:
            continue
        seen.add(id(value))
        # a module's own docstring only: its public functions are public names of their own
        tests = finder.find(value, name) if not inspect.ismodule(value) else \
            doctest.DocTestFinder(recurse=False).find(value, name)
        for test in tests:
            if test.name.split(".")[-1].startswith("_") and test.name != name:
                continue
            for example in test.examples:
                examples.append((f"{test.name}, docstring line {example.lineno + 1}", example.source, example.want))
    return examples


DOCTEST_PRELUDE = """\
import doctest
import numpy as np


def shown(value, want, where):
    got = "" if value is None else repr(value) + "\\n"
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    if not doctest.OutputChecker().check_output(want, got, flags):
        raise AssertionError(f"{where}: expected {want!r}, got {got!r}")
"""


def doctest_script(examples):
    """The examples as one module: an example with output shown is an expression whose repr is
    compared, or a statement run as the prompt runs it, its printing captured and compared."""
    lines = [DOCTEST_PRELUDE, "import contextlib, io"]
    for where, source, want in examples:
        lines.append(f"# {where}")
        if not want:
            lines.append(source.rstrip("\n"))
            continue
        try:
            compile(source, where, "eval")
        except SyntaxError:  # a statement (try/except, with): run as the prompt runs it, which shows values
            lines.append("printed = io.StringIO()\nwith contextlib.redirect_stdout(printed):")
            lines.append(f"    exec(compile({source!r}, {where!r}, 'single'), globals())")
            lines.append(f"assert doctest.OutputChecker().check_output({want!r}, printed.getvalue(), "
                         f"doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS), ({where!r}, printed.getvalue())")
        else:
            lines.append(f"shown((\n{source.strip()}\n), {want!r}, {where!r})")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", [name for name, _ in public_names()])
def test_every_public_name_has_an_example(name):
    value = dict(public_names())[name]
    assert ">>> " in (inspect.getdoc(value) or ""), f"help({name}) shows no example: add a short >>> example to its docstring"


def test_docstring_examples_run(tmp_path):
    """Every example of every public docstring runs, from a real file (s2sad reads the source of
    what it differentiates, which doctest's own runner does not keep), in a fresh interpreter,
    each printed value compared as doctest compares it."""
    examples = docstring_examples()
    assert len(examples) > 100, "fewer examples than expected: is a public docstring no longer found?"
    module = tmp_path / "docstring_examples.py"
    module.write_text(doctest_script(examples))
    environment = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache"))
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, environment.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, str(module)], capture_output=True, text=True, cwd=tmp_path,
                            env=environment, timeout=300)
    assert result.returncode == 0, f"the docstring examples failed:\n{result.stderr}"


def test_a_user_script_type_checks(tmp_path):
    """The optional typing step: s2sad ships py.typed, and a script calling the public API
    passes `mypy --strict` (s2sad's own modules are read for their annotations, not checked)."""
    script = os.path.join(ROOT, "tests", "typing", "user_script.py")
    environment = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache"))
    ran = subprocess.run([sys.executable, script], capture_output=True, text=True, cwd=ROOT, env=environment,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr                # the script works, too
    pytest.importorskip("mypy")
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                             "--cache-dir", str(tmp_path / "mypy_cache"), script],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert os.path.isfile(os.path.join(ROOT, "s2sad", "py.typed"))


def test_the_annotations_catch_wrong_calls(tmp_path):
    """The other half of the typing step: each wrong call of tests/typing/wrong_calls.py gets the
    error its `# E:` comment names, on its line, and nothing else is reported (an annotation
    loosened to Any would let its call through)."""
    pytest.importorskip("mypy")
    script = os.path.join(ROOT, "tests", "typing", "wrong_calls.py")
    with open(script) as stream:
        expected = {number: line.split("# E: ", 1)[1].strip()
                    for number, line in enumerate(stream, 1) if "# E: " in line}
    assert len(expected) >= 15
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                             "--cache-dir", str(tmp_path / "mypy_cache"), script],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    reported = {}
    for line in result.stdout.splitlines():
        match = re.match(r".*wrong_calls\.py:(\d+): error: (.*)", line)
        if match:
            reported.setdefault(int(match.group(1)), []).append(match.group(2))
    assert set(reported) == set(expected), result.stdout
    for number, message in expected.items():
        assert any(text.startswith(message) for text in reported[number]), (number, message, reported[number])
