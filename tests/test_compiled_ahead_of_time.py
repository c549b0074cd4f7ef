"""compile=True's machine code kept ahead of time (s2sad/ahead_of_time.py): a process that finds
it loads the gradient without importing Numba, and gives what Numba's dispatcher gives.

The functions live in a file written to a temporary directory, computed by new Python
processes sharing one cache: the first compiles with Numba, the second (Numba's disk cache)
builds the machine code when it exits, the later ones load it. Each gradient is checked
against central differences computed here, and against the first process's Numba answer bit
for bit; the failures (a file cut short, a function edited, a raise inside the machine code)
against what the NumPy path gives."""
import glob
import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from s2sad import ahead_of_time

numba = pytest.importorskip("numba")
needs_a_c_compiler = pytest.mark.skipif(ahead_of_time.c_compiler() is None,
                                        reason="no C compiler on this machine: no machine code is kept ahead of time")

FUNCTIONS = '''\
import math

import numpy as np


def recurrent(W, h, x):
    for step in range(5):
        h = np.tanh(W @ h + x)
    return np.sum(h ** 2)


def of_floats(x, y):
    return math.sin(x) * y + x ** 2 / y + math.exp(-x * y)


def checked(x):
    if x[0] > 10.0:
        raise ValueError("the first element is too large")
    return np.sum(np.sin(x) ** 2)


def mean_of_squares(x):
    return np.mean(x ** 2)


def product(x, y):
    return np.sum(x * y)
'''

EDITED = '''\
import numpy as np


def edited(x):
    return np.sum(np.sin(x) ** 2)
'''

RNG = np.random.default_rng(7)
W = 0.3 * RNG.standard_normal((4, 4))
H = RNG.standard_normal(4)
X = RNG.standard_normal(4)
V = np.array([0.3, -0.8, 1.2])

# what each process computes: a name -> an expression of the module `k`, `kept`, and the inputs
INPUTS = f"""
W = np.array({W.tolist()!r}); h = np.array({H.tolist()!r}); x = np.array({X.tolist()!r})
v = np.array({V.tolist()!r})
"""
FIRST_CALLS = {
    "recurrent": "s2sad.grad(k.recurrent, compile=True)(W, h, x)",
    "of_floats": "s2sad.grad(k.of_floats, argnums=(0, 1), compile=True)(0.7, 1.3)",
    "checked": "s2sad.grad(k.checked, compile=True)(v)",
    "mean_of_squares": "s2sad.grad(k.mean_of_squares, compile=True)(v)",
    "product": "s2sad.grad(k.product, argnums=(0, 1), compile=True)(v, 2.0 * v)",
    "edited": "s2sad.grad(e.edited, compile=True)(v)",
}


def in_a_new_process(directory, calls: dict, wait: bool = True) -> dict:
    """Each expression's value (as a list), or the exception it raised, computed in a new process
    with its caches in ``directory``; with whether Numba was imported, and the warnings said.
    ``wait``: builds at its exit are done when it returns (else they go on in a child of their own)."""
    lines = [f"    results[{name!r}] = attempt(lambda: {expression})" for name, expression in calls.items()]
    program = textwrap.dedent('''
        import json, sys, warnings
        sys.path.insert(0, {directory!r})
        import numpy as np, s2sad, kept_functions as k, edited_function as e
        {inputs}
        def listed(value):
            if isinstance(value, (tuple, list)):
                return [listed(item) for item in value]
            return {{"array": np.asarray(value).tolist(), "hex": np.asarray(value, dtype=float).tobytes().hex(),
                     "shares": bool(isinstance(value, np.ndarray) and any(
                         np.shares_memory(value, a) for a in (W, h, x, v)))}}
        def attempt(thunk):
            try:
                return listed(thunk())
            except Exception as error:
                return {{"raised": type(error).__name__, "message": str(error),
                         "notes": list(getattr(error, "__notes__", ()))}}
        results = {{}}
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
    ''').format(directory=str(directory), inputs=textwrap.indent(INPUTS.strip(), " " * 0))
    program += "\n".join(lines) + textwrap.dedent('''
        print(json.dumps({"results": results, "numba": "numba" in sys.modules,
                          "warnings": [str(w.message) for w in said]}))
    ''')
    environment = {"S2SAD_CACHE_DIR": str(directory / "cache"), "PATH": "/usr/bin:/bin",
                   "S2SAD_AHEAD_OF_TIME": "wait" if wait else "1",
                   "XDG_CONFIG_HOME": str(directory / "config"), "HOME": str(directory)}
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=environment,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def kept_files(directory, function_name: str) -> list:
    return glob.glob(str(directory / "cache" / f"s2sad_{function_name}_compiled_*.py.aot" / "*"))


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    """A directory whose cache holds each function's machine code, and the first process's
    (Numba's) answers."""
    directory = tmp_path_factory.mktemp("ahead_of_time")
    (directory / "kept_functions.py").write_text(FUNCTIONS)
    (directory / "edited_function.py").write_text(EDITED)
    by_numba = in_a_new_process(directory, FIRST_CALLS)         # compiles: nothing kept
    assert by_numba["numba"] and not by_numba["warnings"], by_numba["warnings"]
    assert not glob.glob(str(directory / "cache" / "*.aot"))
    in_a_new_process(directory, FIRST_CALLS)                    # Numba's cache: the machine code built at exit,
    built = [name for name in FIRST_CALLS if kept_files(directory, name)]
    assert len(built) == ahead_of_time.MOST_AT_EXIT < len(FIRST_CALLS)  # of at most 4 functions,
    in_a_new_process(directory, FIRST_CALLS)                    # the others' by the next process
    assert all(len(kept_files(directory, name)) == 1 for name in FIRST_CALLS)
    return directory, by_numba["results"]


def gradient(result):
    return [np.array(item["array"]) for item in result] if isinstance(result, list) else np.array(result["array"])


@needs_a_c_compiler
def test_a_new_process_computes_from_the_machine_code_without_numba(kept):
    directory, by_numba = kept
    for name in ("recurrent", "of_floats", "checked", "product"):
        assert len(kept_files(directory, name)) == 1, name
    calls = {name: FIRST_CALLS[name] for name in ("recurrent", "of_floats", "checked", "product")}
    found = in_a_new_process(directory, calls)
    assert not found["numba"], "Numba was imported"
    assert not found["warnings"], found["warnings"]
    results = found["results"]
    for name in calls:  # bit for bit what Numba's dispatcher gave
        assert results[name] == by_numba[name], name
    module = _module(directory)
    np.testing.assert_allclose(gradient(results["recurrent"]), central(module.recurrent, (W, H, X), 0),
                               rtol=1e-6, atol=1e-8)
    dx, dy = gradient(results["of_floats"])
    assert math.isclose(dx, central(module.of_floats, (0.7, 1.3), 0), rel_tol=1e-6)
    assert math.isclose(dy, central(module.of_floats, (0.7, 1.3), 1), rel_tol=1e-6)
    np.testing.assert_allclose(gradient(results["checked"]), 2 * np.sin(V) * np.cos(V), rtol=1e-13)
    # d/dx sum(x * y) is y: a new array, not the argument's memory (compiled._unshared)
    dx, dy = gradient(results["product"])
    np.testing.assert_array_equal(dx, 2.0 * V)
    np.testing.assert_array_equal(dy, V)
    assert not any(item["shares"] for item in results["product"])


@needs_a_c_compiler
def test_a_file_cut_short_or_changed_is_not_loaded_and_numba_answers(kept):
    directory, by_numba = kept
    for name, damage in (("recurrent", lambda data: data[: len(data) // 2]),
                         ("of_floats", lambda data: data[:4000] + bytes([data[4000] ^ 1]) + data[4001:])):
        path, = kept_files(directory, name)
        with open(path, "rb") as stream:
            data = stream.read()
        with open(path, "wb") as stream:
            stream.write(damage(data))
        found = in_a_new_process(directory, {name: FIRST_CALLS[name]})
        assert found["numba"] and not found["warnings"], found["warnings"]
        assert found["results"][name] == by_numba[name]
        # the damaged file was removed, and the machine code built again as that process exited
        rebuilt, = kept_files(directory, name)
        with open(rebuilt, "rb") as stream:
            assert stream.read() != damage(data)
    found = in_a_new_process(directory, {name: FIRST_CALLS[name] for name in ("recurrent", "of_floats")})
    assert not found["numba"] and found["results"] == {name: by_numba[name] for name in ("recurrent", "of_floats")}


@needs_a_c_compiler
def test_an_edited_function_does_not_load_the_old_machine_code(kept):
    directory, by_numba = kept
    assert len(kept_files(directory, "edited")) == 1
    (directory / "edited_function.py").write_text(EDITED.replace("np.sin(x) ** 2", "np.cos(x) ** 3"))
    found = in_a_new_process(directory, {"edited": FIRST_CALLS["edited"]})
    assert not found["warnings"], found["warnings"]
    np.testing.assert_allclose(gradient(found["results"]["edited"]), -3 * np.cos(V) ** 2 * np.sin(V), rtol=1e-13)
    assert found["numba"], "the edited function's gradient came without Numba: from the old machine code?"


@needs_a_c_compiler
def test_a_raise_inside_the_machine_code_is_what_the_numpy_path_gives(kept):
    directory, _ = kept
    found = in_a_new_process(directory, {
        "raise": "s2sad.grad(k.checked, compile=True)(np.array([11.0, 0.5, 0.2]))",
        "divided by zero": "s2sad.grad(k.mean_of_squares, compile=True)(np.array([]))",
    })
    module = _module(directory)
    # the user's raise: the NumPy path's exception, with its message
    with pytest.raises(ValueError) as by_numpy:
        s2sad.grad(module.checked)(np.array([11.0, 0.5, 0.2]))
    said = found["results"]["raise"]
    assert (said["raised"], said["message"]) == ("ValueError", str(by_numpy.value))
    assert _where(said["notes"]) == _where(by_numpy.value.__notes__) == ['raise ValueError("the first element is too large")']
    # a float divided by zero: ZeroDivisionError in the machine code (as in Numba's), then the NumPy
    # path's own answer: here it raises too, from its code (its note names the line)
    with pytest.raises(ZeroDivisionError) as by_numpy, pytest.warns(RuntimeWarning):  # NumPy's mean of nothing
        s2sad.grad(module.mean_of_squares)(np.array([]))
    said = found["results"]["divided by zero"]
    assert (said["raised"], said["message"]) == ("ZeroDivisionError", str(by_numpy.value))
    assert _where(said["notes"]) == _where(by_numpy.value.__notes__) == ["return np.mean(x ** 2)"]
    assert not found["numba"]


@needs_a_c_compiler
def test_not_compiled_case_raised_by_machine_code_is_the_helpers_class():
    """What compiled.py's fallback looks for: the class compiled_helpers defines (unpickled, by name)."""
    from s2sad import compiled

    module = _module_of_text(RAISING_ENTRY, "raising_entry")
    entry = module.raising_grad_compiled
    x = np.array([0.5, 2.0])
    assert ahead_of_time.build(entry, numba.njit(entry), (x,)) is not None
    machine, uses_blas = ahead_of_time.Loaded(entry).function_for((x,))
    value, (dx,) = machine(x)
    assert value == 2.5 and dx.tolist() == [1.0, 4.0] and not uses_blas
    with pytest.raises(Exception) as raised:
        machine(np.array([11.0, 2.0]))
    assert compiled._not_covered(raised.value) and str(raised.value) == "a case the helpers do not cover"


RAISING_ENTRY = """\
import numpy as np
from s2sad.compiled_helpers import NotCompiledCase


def raising_grad_compiled(x):
    if x[0] > 10.0:
        raise NotCompiledCase("a case the helpers do not cover")
    return np.sum(x), (x * 2.0,)
"""


@needs_a_c_compiler
def test_arguments_of_another_layout_are_not_given_to_the_machine_code(kept):
    """Kept for C-ordered arrays: a Fortran-ordered W is another Numba type, which Numba serves
    (last of the tests of the kept directory: it builds more machine code as it exits)."""
    directory, _ = kept
    found = in_a_new_process(directory, {"fortran": "s2sad.grad(k.recurrent, compile=True)(np.asfortranarray(W), h, x)",
                                         "strided": "s2sad.grad(k.checked, compile=True)(np.repeat(v, 2)[::2])"})
    assert found["numba"] and not found["warnings"], found["warnings"]
    module = _module(directory)
    np.testing.assert_allclose(gradient(found["results"]["fortran"]), central(module.recurrent, (W, H, X), 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gradient(found["results"]["strided"]), 2 * np.sin(V) * np.cos(V), rtol=1e-13)


def test_the_call_kind_tells_apart_what_numba_types_apart():
    """ahead_of_time.call_kind spells numba.typeof without Numba: two arguments of one kind must be
    one Numba type (a machine code is never handed an array of a layout it was not built for)."""
    a = np.arange(12.0).reshape(3, 4)
    readonly = a.copy()
    readonly.flags.writeable = False
    unaligned = np.frombuffer(b"\0" + a.tobytes(), dtype=np.float64, offset=1)
    values = [0.5, 3, True, a, a.T, a[:, ::2], a[0], a[:, 0], readonly, unaligned, np.ones(3), np.ones((2, 2, 2)),
              np.ones(3, dtype=np.int64), (a, a[0]), (a, a), (a, a.T), ((a, 1.0),)]
    by_kind: dict = {}
    for value in values:
        by_kind.setdefault(ahead_of_time.call_kind((value,)), set()).add(numba.typeof(value))
    assert all(len(types) == 1 for types in by_kind.values()), by_kind
    assert len(by_kind) == len({str(numba.typeof(value)) for value in values})
    assert ahead_of_time.call_kind(([a],)) is None and ahead_of_time.call_kind((np.float64(1.0),)) is None


def test_without_a_c_compiler_nothing_is_built(monkeypatch):
    from s2sad.transform import generated_compiled

    module = _module_of_text(FUNCTIONS, "kept_functions_here")
    entry = generated_compiled(module.checked, ("x",))
    monkeypatch.setattr(ahead_of_time, "_pending", {})
    ahead_of_time.build_at_exit(entry, None, (V,))
    assert ahead_of_time.pending() == [(entry.__code__.co_filename, "<f81C")]  # where there is one
    monkeypatch.setattr(ahead_of_time, "_pending", {})
    monkeypatch.setattr(ahead_of_time, "c_compiler", lambda: None)
    ahead_of_time.build_at_exit(entry, None, (V,))
    assert not ahead_of_time.pending()


@needs_a_c_compiler
def test_the_arguments_kept_for_the_build_are_of_their_types(monkeypatch):
    """Copied for the check at exit in their order and writability; a strided array is not built for."""
    from s2sad.transform import generated_compiled

    module = _module_of_text(FUNCTIONS, "kept_functions_here")
    entry = generated_compiled(module.recurrent, ("W",))
    readonly = H.copy()
    readonly.flags.writeable = False
    for args, built in (((np.asfortranarray(W), readonly, X), True), ((np.repeat(W, 2, axis=1)[:, ::2], H, X), False)):
        monkeypatch.setattr(ahead_of_time, "_pending", {})
        ahead_of_time.build_at_exit(entry, None, args)
        kind = ahead_of_time.call_kind(args)
        assert ahead_of_time.pending() == ([(entry.__code__.co_filename, kind)] if built else [])
        if built:
            (_, _, copies), = ahead_of_time._pending.values()
            assert ahead_of_time.call_kind(copies) == kind and "F" in kind and "r" in kind
            assert all(a is not b and np.array_equal(a, b) for a, b in zip(copies, args))


@needs_a_c_compiler
def test_one_process_does_not_build_what_it_compiled_itself(monkeypatch):
    """The integer check's verdict written by this process is no sign of a second process."""
    from s2sad import compiled

    module = _module_of_text(FUNCTIONS, "kept_functions_once")
    monkeypatch.setattr(ahead_of_time, "_pending", {})
    s2sad.grad(module.checked, compile=True)(V)
    s2sad.grad(module.checked, compile=True)(V)  # a new lane: the verdict on disk, written here
    assert not ahead_of_time.pending()
    monkeypatch.setattr(compiled, "_verdicts_written", set())  # as if another process had written it
    s2sad.grad(module.checked, compile=True)(V)
    assert len(ahead_of_time.pending()) == 1


def _where(notes) -> list:
    """What the notes s2sad adds to an exception say of the user's line (their file paths differ)."""
    return [note.rsplit(": ", 1)[-1] for note in notes if "raised by" in note]


def _module(directory):
    return _module_of_text((directory / "kept_functions.py").read_text(), "kept_functions_" + directory.name)


_made: dict = {}


def _module_of_text(text: str, name: str):
    """The functions, defined in this process from a file of their own (s2sad reads their source)."""
    import importlib.util
    import tempfile

    if name not in _made:
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, name + ".py")
        with open(path, "w") as stream:
            stream.write(text)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _made[name] = module
    return _made[name]


@needs_a_c_compiler
@pytest.mark.skipif(sys.platform != "linux", reason="builds go on in a child process of their own on Linux alone")
def test_the_build_at_exit_goes_on_after_the_process_ended(tmp_path):
    """By default the process that builds exits at once; its child process keeps the machine code,
    which the next process loads without Numba."""
    import time

    (tmp_path / "kept_functions.py").write_text(FUNCTIONS)
    (tmp_path / "edited_function.py").write_text(EDITED)
    calls = {"checked": FIRST_CALLS["checked"]}
    by_numba = in_a_new_process(tmp_path, calls)
    in_a_new_process(tmp_path, calls, wait=False)  # returned: its output pipe closed though the build goes on
    waited = time.monotonic()
    while not kept_files(tmp_path, "checked") and time.monotonic() - waited < 300:
        time.sleep(0.5)
    assert len(kept_files(tmp_path, "checked")) == 1
    found = in_a_new_process(tmp_path, calls)
    assert not found["numba"] and found["results"] == by_numba["results"]
    np.testing.assert_allclose(gradient(found["results"]["checked"]), 2 * np.sin(V) * np.cos(V), rtol=1e-13)
