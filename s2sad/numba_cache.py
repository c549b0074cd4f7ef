"""Numba's disk cache, made safe for processes that fill it at the same time.

Numba keeps the machine code of each function in numbered data files beside an index that maps
argument types to a file (``numba.core.caching.IndexDataCacheFile``). Saving reads the index,
takes the first free number and writes both: two processes compiling one function for different
argument types at once (two test workers, two jobs of a pool; s2sad's helpers are compiled for
many types) both take number 1, and the index can end up naming, for one type, the file holding
the code compiled for the other. A later process then runs that code on arguments it was not
made for: wrong numbers, or NumPy's "unable to broadcast", from compiled gradients (seen in
session 15). Here each save and each load of an index holds an exclusive lock on a file beside it,
so a reader sees an index and data files one writer left together. A file written by
``s2sad emit --compile`` carries this module's code and installs the lock itself (emit.py), so
this module imports nothing but the standard library and Numba.
"""
from __future__ import annotations

import contextlib
import functools

try:
    import fcntl
except ImportError:  # (not POSIX: no lock, as Numba itself)
    fcntl = None


@contextlib.contextmanager
def _locked(path: str):
    try:
        handle = open(path, "a+b")
    except OSError:  # no writable place: Numba writes nothing there either
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _holding_the_lock(method):
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with _locked(self._index_path + ".lock"):
            return method(self, *args, **kwargs)

    locked.__s2sad_locked__ = True
    return locked


def numba_module():
    """Numba, its cache locked: what s2sad imports before making a dispatcher."""
    import numba

    install()
    return numba


def install() -> None:
    """Make Numba's index-and-data saves and loads hold the lock (once per process)."""
    from numba.core.caching import IndexDataCacheFile

    if fcntl is None or getattr(IndexDataCacheFile.save, "__s2sad_locked__", False):
        return
    IndexDataCacheFile.save = _holding_the_lock(IndexDataCacheFile.save)
    IndexDataCacheFile.load = _holding_the_lock(IndexDataCacheFile.load)
