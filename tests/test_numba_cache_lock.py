"""Numba's disk cache filled by two processes at once: saving reads the index, takes the first
free data-file number and writes both, so two savers can both take number 1 and leave an index
naming, for one argument type, the file holding the other's machine code (compiled gradients
then gave wrong numbers, or "unable to broadcast", in two-worker test runs). s2sad makes each
save and load hold a lock beside the index (s2sad/numba_cache.py). Two threads stand in for the
two processes (each holds its own open file, as a process would); the index read is slowed so
that, unlocked, both read it before either writes."""
import threading
import time

import pytest

numba = pytest.importorskip("numba")
from numba.core.caching import IndexDataCacheFile  # noqa: E402

from s2sad import numba_cache  # noqa: E402


def _save_together(directory, monkeypatch):
    read_index = IndexDataCacheFile._load_index

    def slow_read(self):
        index = read_index(self)
        time.sleep(0.2)  # the other saver runs here, unless it waits for the lock
        return index

    monkeypatch.setattr(IndexDataCacheFile, "_load_index", slow_read)
    caches = [IndexDataCacheFile(str(directory), "helper-1.py311", ("stamp", 1)) for _ in range(2)]
    savers = [threading.Thread(target=cache.save, args=(key, data))
              for cache, key, data in zip(caches, ["float64 array", "int64 array"], ["code A", "code B"])]
    for saver in savers:
        saver.start()
    for saver in savers:
        saver.join()
    monkeypatch.setattr(IndexDataCacheFile, "_load_index", read_index)
    reader = IndexDataCacheFile(str(directory), "helper-1.py311", ("stamp", 1))
    return reader.load("float64 array"), reader.load("int64 array")


def test_two_savers_at_once_each_find_their_own_code(tmp_path, monkeypatch):
    numba_cache.install()
    assert _save_together(tmp_path, monkeypatch) == ("code A", "code B")


def test_without_the_lock_the_index_loses_or_swaps_an_entry(tmp_path, monkeypatch):
    # the race the lock removes, shown on Numba's own methods
    numba_cache.install()
    locked_save, locked_load = IndexDataCacheFile.save, IndexDataCacheFile.load
    monkeypatch.setattr(IndexDataCacheFile, "save", locked_save.__wrapped__)
    monkeypatch.setattr(IndexDataCacheFile, "load", locked_load.__wrapped__)
    assert _save_together(tmp_path, monkeypatch) != ("code A", "code B")


HOLDS_THE_LOCK = """
import sys
sys.modules["s2sad"] = None  # s2sad cannot be imported here
import fcntl, os
import numpy as np
from numba.core.caching import IndexDataCacheFile

read_index = IndexDataCacheFile._load_index
held = []


def read_while_saving(self):
    # another process's attempt to take the lock while this one saves: refused, if the save holds it
    with open(self._index_path + ".lock", "a+b") as other:
        try:
            fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held.append(True)
        else:
            fcntl.flock(other.fileno(), fcntl.LOCK_UN)
            held.append(False)
    return read_index(self)


IndexDataCacheFile._load_index = read_while_saving
import spring_compiled as m
value, (dk, dx0) = m.spring_grad(2.0, 1.0)  # compiled, and saved to NUMBA_CACHE_DIR
print(repr((bool(held) and all(held), getattr(IndexDataCacheFile.save, "__s2sad_locked__", False), dk, dx0)))
"""


def test_a_file_emitted_with_compile_holds_the_lock_without_s2sad(tmp_path):
    """``s2sad emit --compile`` writes numba_cache.py's code into the file, which installs it: its
    saves hold the lock that s2sad's hold, so a shipped gradient and s2sad (or two copies of it)
    filling one cache at once keep the index whole."""
    import ast
    import os
    import subprocess
    import sys

    from test_cli import SPRING, run_in

    source = tmp_path / "model.py"
    source.write_text(SPRING)
    result = run_in(tmp_path, "emit", f"{source}:spring", "--wrt", "k,x0", "--compile", "-o", str(tmp_path) + os.sep)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "spring_compiled.py").read_text()
    assert "import s2sad" not in text and "from s2sad" not in text
    ran = subprocess.run([sys.executable, "-c", HOLDS_THE_LOCK], capture_output=True, text=True, cwd=tmp_path,
                         env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba")), timeout=600)
    assert ran.returncode == 0, ran.stderr
    locked, marked, dk, dx0 = ast.literal_eval(ran.stdout.strip().splitlines()[-1])
    assert locked and marked
    namespace = {}
    exec(compile(SPRING, str(source), "exec"), namespace)
    spring, h = namespace["spring"], 1e-6
    assert abs(dk - (spring(2.0 + h, 1.0) - spring(2.0 - h, 1.0)) / (2 * h)) < 1e-6
    assert abs(dx0 - (spring(2.0, 1.0 + h) - spring(2.0, 1.0 - h)) / (2 * h)) < 1e-6
