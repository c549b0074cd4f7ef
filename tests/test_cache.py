"""The disk cache: real module files, atomic, checked, invalidated by what the code depends on."""
import importlib
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.frontend import source as source_module
from s2sad import transform as transform_module


@pytest.fixture()
def user_module(tmp_path, monkeypatch):
    """A fresh user module in its own file, and a fresh cache directory."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(cache))
    # these tests are about the general rrule's entry: no typed versions (entries of their own, test_typed_path.py)
    monkeypatch.setenv("S2SAD_TYPED_VERSIONS", "0")
    source = tmp_path / "usermodel.py"
    source.write_text(textwrap.dedent("""\
        import numpy as np

        def loss(w):
            return np.sum(np.sin(w) * w)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("usermodel", None)
    module = importlib.import_module("usermodel")
    yield module, cache, source
    sys.modules.pop("usermodel", None)


def entries(cache):
    return sorted(p for p in cache.glob("s2sad_*.py"))


def test_generated_code_is_a_real_module_file(user_module):
    module, cache, _ = user_module
    w = np.linspace(0.1, 1.0, 4)
    gradient = s2sad.grad(module.loss)(w)
    np.testing.assert_allclose(gradient, np.cos(w) * w + np.sin(w))
    files = entries(cache)
    assert len(files) == 1
    rrule = transform_module.generated_rrule(module.loss, ("w",))
    assert rrule.__code__.co_filename == str(files[0])   # tracebacks and pdb show real lines
    assert oct(os.stat(cache).st_mode & 0o777) == "0o700"


def test_second_call_does_no_parsing_and_no_file_io(user_module, monkeypatch):
    module, cache, _ = user_module
    w = np.ones(3)
    s2sad.grad(module.loss)(w)

    def forbidden(*args, **kwargs):
        raise AssertionError("the warm path must not parse or read files")

    monkeypatch.setattr(transform_module, "transform", forbidden)
    monkeypatch.setattr(source_module, "read_function", forbidden)
    monkeypatch.setattr(transform_module.cache, "read_entry", forbidden)
    monkeypatch.setattr(transform_module, "cache_key", forbidden)
    s2sad.grad(module.loss)(w)


def test_a_new_process_loads_from_the_disk_cache(user_module, tmp_path):
    module, cache, source = user_module
    s2sad.grad(module.loss)(np.ones(3))
    before = {p: p.stat().st_mtime_ns for p in entries(cache)}
    script = textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, s2sad, usermodel
        from s2sad import transform
        def refuse(*a, **k):
            raise SystemExit("transformed again instead of loading the cache")
        transform.transform = refuse
        print(s2sad.grad(usermodel.loss)(np.ones(3)))
    """)
    environment = dict(os.environ, S2SAD_CACHE_DIR=str(cache))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
    assert run.returncode == 0, run.stderr
    assert {p: p.stat().st_mtime_ns for p in entries(cache)} == before


def test_damaged_entry_is_detected_and_regenerated(user_module):
    module, cache, _ = user_module
    w = np.array([0.3, 0.6])
    expected = s2sad.grad(module.loss)(w)
    (entry,) = entries(cache)
    entry.write_text(entry.read_text().replace("np.sin", "np.cos"))  # tampered, hash no longer matches
    transform_module.forget()
    with pytest.warns(RuntimeWarning, match="damaged"):
        again = s2sad.grad(module.loss)(w)
    np.testing.assert_allclose(again, expected)
    assert "np.cos(w)" not in entry.read_text().split("def loss_rrule")[1].split("def loss_pullback")[0]


def test_truncated_entry_is_regenerated(user_module):
    module, cache, _ = user_module
    w = np.array([0.3, 0.6])
    expected = s2sad.grad(module.loss)(w)
    (entry,) = entries(cache)
    entry.write_text(entry.read_text()[:120])
    transform_module.forget()
    with pytest.warns(RuntimeWarning):
        np.testing.assert_allclose(s2sad.grad(module.loss)(w), expected)


def test_editing_the_function_makes_a_new_entry(user_module):
    module, cache, source = user_module
    s2sad.grad(module.loss)(np.ones(2))
    source.write_text(source.read_text().replace("np.sin(w) * w", "np.sin(w) * w * 2.0"))
    sys.modules.pop("usermodel")
    import linecache
    linecache.checkcache(str(source))
    edited = importlib.import_module("usermodel")
    gradient = s2sad.grad(edited.loss)(np.ones(2))
    np.testing.assert_allclose(gradient, 2 * (np.cos(1.0) + np.sin(1.0)))
    assert len(entries(cache)) == 2


def test_a_rule_for_an_unrelated_function_leaves_the_key_alone(user_module):
    """Only the functions that name a user's function have its rule in their keys
    (tests/test_cache_stress.py checks the callers' entries are the ones made again)."""
    module, _, _ = user_module
    before = transform_module.cache_key(module.loss, ("w",))

    def brand_new_function(x):
        return x

    s2sad.defvjp(brand_new_function, "x", "g")
    try:
        assert transform_module.cache_key(module.loss, ("w",)) == before
    finally:
        s2sad.unregister(brand_new_function)


def test_a_new_rule_for_a_library_function_changes_every_key(user_module):
    module, _, _ = user_module
    before = transform_module.cache_key(module.loss, ("w",))
    rule = s2sad.registry.rule_for(np.sinc)
    s2sad.defvjp(np.sinc, "x", "g * 0.0")  # overriding a NumPy rule: inlined anywhere np.sinc is called
    try:
        assert transform_module.cache_key(module.loss, ("w",)) != before
    finally:
        s2sad.registry._store(rule)
    assert transform_module.cache_key(module.loss, ("w",)) == before


def test_unusable_cache_directory_falls_back_to_memory(user_module, tmp_path, monkeypatch):
    module, _, _ = user_module
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(blocker / "cache"))
    transform_module.cache._warned_unusable.clear()
    with pytest.warns(RuntimeWarning, match="cannot use the cache directory"):
        gradient = s2sad.grad(module.loss)(np.ones(2))
    np.testing.assert_allclose(gradient, np.cos(1.0) + np.sin(1.0))


def test_the_key_covers_every_line_inspect_reads():
    """The cache key reads a function's lines without tokenizing (a warm start's cost):
    they must start on inspect's first line and contain all of inspect's lines (what
    read_function parses), else an edit could keep a stale entry."""
    import inspect

    import control_flow_programs
    import language_programs
    import loop_programs

    from s2sad.frontend.source import source_lines_for_key

    def functions(namespace, depth=0):
        for value in vars(namespace).values():
            if inspect.isfunction(value):
                yield value
            elif inspect.isclass(value) and depth < 2:
                yield from functions(value, depth + 1)

    checked = 0
    for module in (control_flow_programs, language_programs, loop_programs, transform_module, source_module):
        for function in functions(module):
            try:
                lines, first_line = inspect.getsourcelines(function)
            except (OSError, TypeError):
                continue
            key_lines, key_first_line = source_lines_for_key(function)
            assert key_first_line == first_line, function.__qualname__
            assert key_lines[:len(lines)] == lines, function.__qualname__
            assert all(not line.strip() or line[0].isspace() for line in key_lines[len(lines):]), function.__qualname__
            checked += 1
    assert checked > 50


TRICKY_LAYOUTS = '''\
import functools

import numpy as np


def decorate(function):
    return function


@decorate
@functools.lru_cache(maxsize=None)
def decorated(x):
    return x * 2.0


def multiline_string(x):
    text = """
a line at column 0
"""
    return x * len(text)


def closing_bracket(x):
    return np.sum(
        x
)


def trailing_comment(x):
    y = x + 1.0
    return y
    # a comment that inspect leaves out


class Model:
    def method(self, x):
        def inner(v):
            return [v * k for k in range(3)]
        return inner(x)

    def one_line(self, x): return x


def last(x):
    return np.sin(x) if x > 0 else np.cos(
        x)'''


def test_the_key_covers_every_line_of_tricky_layouts(tmp_path, monkeypatch):
    import inspect

    from s2sad.frontend.source import source_lines_for_key

    (tmp_path / "tricky_layouts.py").write_text(TRICKY_LAYOUTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("tricky_layouts", None)
    module = importlib.import_module("tricky_layouts")
    try:
        for function in (module.decorated.__wrapped__, module.multiline_string, module.closing_bracket,
                         module.trailing_comment, module.Model.method, module.Model.one_line, module.last):
            lines, first_line = inspect.getsourcelines(function)
            key_lines, key_first_line = source_lines_for_key(function)
            assert (key_first_line, key_lines[:len(lines)]) == (first_line, lines), function.__qualname__
    finally:
        sys.modules.pop("tricky_layouts", None)


def test_a_warm_start_imports_no_front_end(user_module, tmp_path):
    """``import s2sad`` and a gradient loaded from the disk cache need neither libcst (a
    quarter of a second to import) nor the generator, pygments or scipy."""
    module, cache, _ = user_module
    s2sad.grad(module.loss)(np.ones(3))
    script = textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, s2sad, usermodel
        heavy = ("libcst", "pygments", "scipy", "s2sad.frontend.normalize", "s2sad.frontend.fence", "s2sad.codegen.reverse", "s2sad.testing")
        after_import = [name for name in heavy if name in sys.modules]
        s2sad.grad(usermodel.loss)(np.ones(3))
        print(after_import, [name for name in heavy if name in sys.modules])
    """)
    environment = dict(os.environ, S2SAD_CACHE_DIR=str(cache))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[] []"
