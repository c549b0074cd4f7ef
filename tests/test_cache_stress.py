"""The cache under stress: many processes at once, damaged entries, unusable directories,
and invalidation that touches exactly the entries affected.

tests/test_cache.py already covers, in one process: the entry is a real module file in a
0700 directory; the warm path does no parsing or I/O; a new process loads from disk; a
tampered and a truncated entry are regenerated with a warning; editing the function makes
a second entry; registering a rule changes the key; a cache path under a regular file falls
back to memory with a warning. Those are not repeated here.

Here:

Warnings are s2sad's own (those whose message starts with "s2sad").

* 8 processes, started together behind a barrier (a flag file), transform and load the
  same functions from a cold cache, then reload them from disk several times while the
  others write: every process gets the same gradients (bit for bit, and right), no
  process sees a damaged (partial) entry, every entry left is whole (its content hash
  matches) and no temporary file remains;
* entries damaged in other ways (invalid UTF-8, empty, only the hash line, garbage after
  a valid-looking hash line) are detected in a fresh process, regenerated with a warning,
  and rewritten whole;
* an entry writable by others is never imported; a cache directory writable by others,
  read-only or impossible to create is not used, with exactly one warning per process
  however many functions are differentiated;
* editing a function, editing a helper it calls, or registering a rule for a callee
  makes new entries for exactly those functions whose generated code changes;
* gradients computed from 8 threads at once (first transformations included) are right.

Each scenario runs in fresh subprocesses (``run_script``), so the memory caches of the
test process play no part. On 2 idle cores each multi-process test takes ~4 s and the whole
module ~25 s (most of it is starting Python processes).
"""
import json
import os
import stat
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROCESSES = 8

USER_MODULE = """\
import numpy as np


def helper(v, k):
    return np.tanh(v) * k


def loss(w, b):
    z = helper(w * 2.0, 1.5) + b
    total = 0.0
    for i in range(len(z)):
        total = total + np.sin(z[i]) * z[i]
    return total


def other(w):
    return np.sum(np.exp(np.cos(w)))


def third(w):
    y = w.copy()
    y[0:2] += np.sum(w)
    return np.sum(y ** 2)
"""

# What each subprocess runs: import the user module, wait for the barrier, compute the
# gradients ROUNDS times (after the first, with the memory caches emptied, so each round
# reads the entries from disk), and print the results and warnings as JSON.
WORKER = """\
import json, os, sys, time, warnings
sys.path.insert(0, {directory!r})
warnings.simplefilter("always")
caught = []
warnings.showwarning = lambda message, *rest: caught.append(str(message)) if str(message).startswith("s2sad") else None
import numpy as np
import s2sad
from s2sad import api, transform
import usermodel

index = int(sys.argv[1])
open(os.path.join({directory!r}, "ready-%d" % index), "w").close()
while not os.path.exists(os.path.join({directory!r}, "go")):
    time.sleep(0.001)
w = np.linspace(-0.7, 0.9, 4)
b = 0.3
results = []
for round in range({rounds}):
    if round:
        transform.forget()
        getattr(api, "_plans", {{}}).clear()
    dw, db = s2sad.grad(usermodel.loss, argnums=(0, 1))(w, b)
    results.append([dw.tolist(), float(db), s2sad.grad(usermodel.other)(w).tolist(),
                    s2sad.grad(usermodel.third)(w).tolist()])
print(json.dumps({{"results": results, "warnings": caught}}))
"""


@pytest.fixture()
def workspace(tmp_path):
    (tmp_path / "usermodel.py").write_text(USER_MODULE)
    cache = tmp_path / "cache"
    return tmp_path, cache


def environment(cache):
    # these tests are about the general rrules' entries: no typed versions (entries of their own, test_typed_path.py)
    return dict(os.environ, S2SAD_CACHE_DIR=str(cache), PYTHONPATH=ROOT, S2SAD_TYPED_VERSIONS="0")


def entries(cache):
    return sorted(p.name for p in cache.glob("s2sad_*.py"))


def check_entries_whole(cache):
    from s2sad import cache as cache_module

    leftovers = [p.name for p in cache.iterdir() if not p.name.startswith("s2sad_")]
    assert not leftovers, f"temporary files left in the cache: {leftovers}"
    for path in cache.glob("s2sad_*.py"):
        text = path.read_text(encoding="utf-8")
        source = cache_module._unseal(text)
        assert source is not None, f"{path.name} is damaged"
        compile(text, str(path), "exec")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def expected_gradients(w, b):
    from finite_differences import numerical_gradient

    namespace = {}
    exec(USER_MODULE, namespace)
    return (numerical_gradient(namespace["loss"], [w, b], 0), numerical_gradient(namespace["loss"], [w, b], 1),
            numerical_gradient(namespace["other"], [w], 0), numerical_gradient(namespace["third"], [w], 0))


def run_together(directory, cache, count, rounds=1):
    """Start ``count`` workers, release them at once, and return their parsed outputs."""
    script = directory / "worker.py"
    script.write_text(WORKER.format(directory=str(directory), rounds=rounds))
    for name in os.listdir(directory):
        if name.startswith("ready-") or name == "go":
            os.unlink(directory / name)
    processes = [subprocess.Popen([sys.executable, str(script), str(i)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=environment(cache)) for i in range(count)]
    deadline = time.time() + 60
    while sum(name.startswith("ready-") for name in os.listdir(directory)) < count:
        assert time.time() < deadline, "workers did not start"
        assert all(p.poll() is None for p in processes), [p.communicate() for p in processes if p.poll() is not None]
        time.sleep(0.005)
    (directory / "go").write_text("")
    outputs = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        outputs.append(json.loads(out.strip().splitlines()[-1]))
    return outputs


def test_eight_processes_transform_and_load_the_same_functions_at_once(workspace):
    directory, cache = workspace
    outputs = run_together(directory, cache, PROCESSES, rounds=3)
    first = outputs[0]["results"][0]
    for output in outputs:
        assert not output["warnings"], output["warnings"]         # no damaged entry was ever read
        for result in output["results"]:
            assert result == first                                # the same numbers, bit for bit
    w, b = np.linspace(-0.7, 0.9, 4), 0.3
    for got, want in zip(first, expected_gradients(w, b)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    # loss, helper (through the call), other, third: one entry each, whole
    assert len(entries(cache)) == 4, entries(cache)
    check_entries_whole(cache)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700


def test_readers_never_see_a_partial_entry_while_others_rewrite_it(workspace):
    """Half the processes delete the entries and write them again while the others keep
    reading them from disk: a partial read would show up as a 'damaged' warning."""
    directory, cache = workspace
    run_together(directory, cache, 1)                    # a warm cache to start from
    rewriter = directory / "rewriter.py"
    rewriter.write_text(textwrap.dedent(f"""\
        import os, sys, time
        sys.path.insert(0, {str(directory)!r})
        import numpy as np, s2sad
        from s2sad import api, transform
        import usermodel
        while not os.path.exists(os.path.join({str(directory)!r}, "go")):
            time.sleep(0.001)
        for _ in range(4):
            for entry in os.listdir({str(cache)!r}):
                if entry.startswith("s2sad_"):
                    try:
                        os.unlink(os.path.join({str(cache)!r}, entry))
                    except FileNotFoundError:
                        pass
            transform.forget()
            getattr(api, "_plans", {{}}).clear()
            s2sad.grad(usermodel.loss, argnums=(0, 1))(np.linspace(-0.7, 0.9, 4), 0.3)
            s2sad.grad(usermodel.third)(np.linspace(-0.7, 0.9, 4))
    """))
    writers = [subprocess.Popen([sys.executable, str(rewriter)], env=environment(cache), stderr=subprocess.PIPE,
                                text=True) for _ in range(2)]
    outputs = run_together(directory, cache, 4, rounds=4)
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    first = outputs[0]["results"][0]
    for output in outputs:
        assert not output["warnings"], output["warnings"]
        assert all(result == first for result in output["results"])
    check_entries_whole(cache)


# ---------------------------------------------------------------------- damaged entries

def run_script(directory, cache, body, expect_ok=True):
    """Run ``body`` in a fresh process with the user module importable; return (stdout, warnings)."""
    script = textwrap.dedent(f"""\
        import json, sys, warnings
        sys.path.insert(0, {str(directory)!r})
        caught = []
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *rest: caught.append(str(message)) if str(message).startswith("s2sad") else None
        import numpy as np, s2sad, usermodel
        w = np.linspace(-0.7, 0.9, 4)
    """) + textwrap.dedent(body) + "\nprint(json.dumps(caught))\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment(cache))
    if expect_ok:
        assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    return result, (json.loads(lines[-1]) if result.returncode == 0 and lines else None)


DAMAGE = {   # function name in DAMAGED_MODULE -> what is done to its entry
    "empty": lambda text: b"",
    "hash_line_only": lambda text: text.split(b"\n", 1)[0] + b"\n",
    "garbage_after_hash": lambda text: text.split(b"\n", 1)[0] + b"\nthis is not python ((\n",
    "no_hash_line": lambda text: text.split(b"\n", 1)[1],
    "flipped_byte": lambda text: text[:-10] + bytes([text[-10] ^ 0x01]) + text[-9:],
    "invalid_utf8": lambda text: b"\xff\xfe\x00" + text[3:],
}


DAMAGED_MODULE = "import numpy as np\n" + "".join(
    f"\n\ndef {name}(w):\n    return np.sum(np.sin(w) * w * {k + 1}.0)\n" for k, name in enumerate(DAMAGE))
CALL_ALL = "print([s2sad.grad(getattr(damaged, name))(w).tolist() for name in %r])" % (list(DAMAGE),)


def test_damaged_entries_are_detected_and_regenerated_in_a_new_process(workspace):
    """One entry damaged in each way of DAMAGE: each detected with its own warning,
    regenerated whole, and the next process is quiet."""
    directory, cache = workspace
    (directory / "damaged.py").write_text(DAMAGED_MODULE)
    body = "import damaged\n" + CALL_ALL
    first, _ = run_script(directory, cache, body)
    for name, damage in DAMAGE.items():
        (entry,) = cache.glob(f"s2sad_{name}_*.py")
        entry.write_bytes(damage(entry.read_bytes()))
    again, warned = run_script(directory, cache, body, expect_ok=False)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0] == first.stdout.splitlines()[0]
    for name in DAMAGE:
        (entry,) = cache.glob(f"s2sad_{name}_*.py")
        assert sum(entry.name in warning and "damaged" in warning for warning in warned) == 1, (name, warned)
    assert len(warned) == len(DAMAGE), warned
    check_entries_whole(cache)
    _, warned = run_script(directory, cache, body)
    assert warned == []                                   # rewritten whole: the next process is quiet


def test_damaged_entries_read_by_eight_processes_at_once(workspace):
    directory, cache = workspace
    run_together(directory, cache, 1)
    for entry in cache.glob("s2sad_*.py"):
        entry.write_text(entry.read_text()[:len(entry.read_text()) // 2])   # truncated
    outputs = run_together(directory, cache, PROCESSES)
    first = outputs[0]["results"]
    for output in outputs:
        assert output["results"] == first
        assert all("damaged" in warning for warning in output["warnings"])
    check_entries_whole(cache)


def test_an_entry_writable_by_others_is_never_imported(workspace):
    directory, cache = workspace
    run_script(directory, cache, "print(s2sad.grad(usermodel.other)(w).tolist())")
    (entry,) = cache.glob("s2sad_other_*.py")
    from s2sad import cache as cache_module

    source = cache_module._unseal(entry.read_text())
    planted = source.replace("np.exp(", "99.0 * np.exp(")   # would change the gradient if it were imported
    assert planted != source
    entry.write_text(cache_module._seal(planted))            # a valid content hash: only the mode is wrong
    os.chmod(entry, 0o666)
    result, warned = run_script(directory, cache, """\
        g = s2sad.grad(usermodel.other)(w)
        print(np.allclose(g, -np.sin(w) * np.exp(np.cos(w))))
    """)
    assert result.stdout.splitlines()[0] == "True"
    assert any("writable by others" in warning for warning in warned), warned
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600              # replaced by a private one


# ---------------------------------------------------------------------- unusable directories

MANY_FUNCTIONS = """\
    for function in (usermodel.other, usermodel.third):
        for _ in range(3):
            s2sad.grad(function)(w)
    s2sad.grad(usermodel.loss, argnums=(0, 1))(w, 0.3)
    print("ok")
"""


def _read_only_directory(tmp_path):
    directory = tmp_path / "read_only_cache"
    directory.mkdir(mode=0o700)
    directory.chmod(0o500)
    if not os.access(directory, os.W_OK):
        return directory
    directory.chmod(0o700)
    if os.path.isdir("/proc/sys") and not os.access("/proc/sys", os.W_OK):
        return "/proc/sys"            # root ignores permission bits: a read-only file system
    pytest.skip("no read-only directory available to this user")


@pytest.mark.parametrize("where", ["read-only", "cannot-be-created", "writable-by-others"])
def test_an_unusable_cache_directory_falls_back_to_memory_with_one_warning(workspace, where):
    directory, _ = workspace
    if where == "read-only":
        cache = _read_only_directory(directory)
    elif where == "cannot-be-created":
        cache = os.path.join(str(_read_only_directory(directory)), "s2sad-cache")   # missing, in a read-only parent
    else:
        cache = directory / "shared_cache"
        cache.mkdir()
        cache.chmod(0o777)
    before = sorted(os.listdir(cache)) if os.path.isdir(cache) else None
    result, warned = run_script(directory, cache, MANY_FUNCTIONS)
    assert result.stdout.splitlines()[0] == "ok"
    assert len(warned) == 1 and "cannot use the cache directory" in warned[0] and "memory" in warned[0], warned
    after = sorted(os.listdir(cache)) if os.path.isdir(cache) else None
    assert after == before                                      # nothing written there


# ---------------------------------------------------------------------- invalidation

INVALIDATION = """\
    a, b = s2sad.grad(usermodel.loss, argnums=(0, 1))(w, 0.3)
    print(json.dumps([a.tolist(), float(b), s2sad.grad(usermodel.other)(w).tolist(),
                      s2sad.grad(usermodel.third)(w).tolist()]))
"""


def _stamp(cache):
    return {p.name: p.stat().st_mtime_ns for p in cache.glob("s2sad_*.py")}


def _edit(directory, old, new):
    path = directory / "usermodel.py"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def _new_entries(before, after):
    return sorted({name.split("_")[1] for name in set(after) - set(before)})


def test_editing_a_function_makes_a_new_entry_for_it_only(workspace):
    directory, cache = workspace
    run_script(directory, cache, INVALIDATION)
    before = _stamp(cache)
    _edit(directory, "np.sum(np.exp(np.cos(w)))", "np.sum(np.exp(np.cos(w)) * 2.0)")
    result, _ = run_script(directory, cache, INVALIDATION)
    after = _stamp(cache)
    assert _new_entries(before, after) == ["other"]
    assert all(after[name] == stamp for name, stamp in before.items())      # nothing else rewritten
    w = np.linspace(-0.7, 0.9, 4)
    np.testing.assert_allclose(json.loads(result.stdout.splitlines()[0])[2], -2.0 * np.sin(w) * np.exp(np.cos(w)))


def test_editing_a_helper_makes_a_new_entry_for_the_helper_only(workspace):
    directory, cache = workspace
    first, _ = run_script(directory, cache, INVALIDATION)
    before = _stamp(cache)
    _edit(directory, "return np.tanh(v) * k", "return np.tanh(v) * k * k")
    result, _ = run_script(directory, cache, INVALIDATION)
    after = _stamp(cache)
    # loss's generated code calls helper's own generated rrule: only helper's text changes
    assert _new_entries(before, after) == ["helper"]
    old, new = json.loads(first.stdout.splitlines()[0]), json.loads(result.stdout.splitlines()[0])
    assert new[2:] == old[2:] and new[0] != old[0]
    namespace = {}
    exec((directory / "usermodel.py").read_text(), namespace)
    from finite_differences import numerical_gradient

    np.testing.assert_allclose(new[0], numerical_gradient(namespace["loss"], [np.linspace(-0.7, 0.9, 4), 0.3], 0),
                               rtol=1e-6)


RULE_FOR_HELPER = """\
    s2sad.defvjp(usermodel.helper, "v, k", "g * k * (1 - np.tanh(v) ** 2) * 1.0", None)
"""


def test_registering_a_rule_for_a_callee_makes_new_entries_for_its_callers(workspace):
    directory, cache = workspace
    first, _ = run_script(directory, cache, INVALIDATION)
    before = _stamp(cache)
    result, _ = run_script(directory, cache, RULE_FOR_HELPER + INVALIDATION)
    after = _stamp(cache)
    assert "loss" in _new_entries(before, after)                 # loss now calls the rule, not helper's rrule
    assert json.loads(result.stdout.splitlines()[0])[0] == pytest.approx(json.loads(first.stdout.splitlines()[0])[0])
    assert all(after[name] == stamp for name, stamp in before.items())
    again, _ = run_script(directory, cache, RULE_FOR_HELPER + INVALIDATION)
    assert _stamp(cache) == after                               # the same registration: the same entries


def test_registering_a_rule_leaves_the_entries_of_unrelated_functions_alone(workspace):
    directory, cache = workspace
    run_script(directory, cache, INVALIDATION)
    before = _stamp(cache)
    run_script(directory, cache, RULE_FOR_HELPER + INVALIDATION)
    assert _new_entries(before, _stamp(cache)) == ["loss"]


# ---------------------------------------------------------------------- threads

def test_gradients_from_eight_threads_at_once(tmp_path, monkeypatch):
    """Cold functions (transformed during the race) and warm ones, from 8 threads released together."""
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "threadmodel.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("threadmodel", None)
    import threadmodel

    import s2sad

    w, b = np.linspace(-0.7, 0.9, 4), 0.3
    expected = expected_gradients(w, b)
    barrier = threading.Barrier(PROCESSES)
    results, errors = [], []

    def work():
        try:
            barrier.wait()
            for _ in range(5):
                dw, db = s2sad.grad(threadmodel.loss, argnums=(0, 1))(w, b)
                results.append((dw, db, s2sad.grad(threadmodel.other)(w), s2sad.grad(threadmodel.third)(w)))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(PROCESSES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    sys.modules.pop("threadmodel", None)
    assert not errors, errors
    assert len(results) == 5 * PROCESSES
    for result in results:
        for got, want in zip(result, expected):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
