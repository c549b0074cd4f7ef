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
