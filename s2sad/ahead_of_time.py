"""``compile=True``'s machine code kept as an extension module, loaded by a later process without Numba.

Numba keeps the machine code it compiled in its own disk cache, but loading it from there
means importing Numba (0.1-0.2 s), letting it install its typing registries (0.1 s) and its
check for BLAS (``scipy.linalg``, 0.2 s): a first call of 0.3-0.6 s in a new process. Here the
same generated function is compiled once more ahead of time by Numba's ``numba.pycc`` into a
Python extension module of its own, for the exact argument types of a call (Numba's types:
dtype, rank, layout, writability), and kept beside the generated module in s2sad's disk cache::

    <cache>/s2sad_<name>_compiled_<hash>.py.aot/<digest>-<signature>[.blas].<extension suffix>

``<hash>`` names everything the generated text was made from; ``<digest>`` the argument types,
Numba's and NumPy's versions, the CPU (compiled for the host's, as Numba's JIT compiles, where
``/proc/cpuinfo`` names it; else for any CPU of the architecture) and the values of the data the
module binds from the function's globals (which Numba freezes into the machine code);
``.blas`` says its first call looked up BLAS functions (``blas_nearby``); ``<signature>`` is an
HMAC of the file's bytes with the key that signs
the cache's bytecode (``cache.bytecode_key``), so a file cut short, changed, or copied in from
elsewhere is not there. A later process loads it with the import system alone: no Numba.

When it is made: only after Numba compiled the function for these types in an earlier process
and the integer-products check passed (its verdict kept on disk, ``compiled._passed_before``):
a function called again in a second process is one worth it. The build (a few seconds: Numba
compiles the function again, then the C compiler links it) starts when that process exits, in a
child process of its own on Linux (``_build_pending``), so that neither a call nor the process's
exit waits for it. It is kept only if it loads and gives the same bits as Numba's dispatcher
at the call that asked for it. Without a C compiler, or with ``S2SAD_AHEAD_OF_TIME=0``,
nothing is built and nothing changes.

Functions whose compiled code calls the split forms of the user's other functions are left
out: loading their generated module makes the callees' Numba dispatchers (transform.bind),
which imports Numba, so there would be nothing to gain.

How errors surface: an exception raised inside the machine code is the same exception, made
by unpickling its class (``pickle`` imports the module defining it: ``NotCompiledCase`` brings
Numba in, on that slow path only), so compiled.py's fallbacks treat it as they treat the
dispatcher's.

Loading a generated module imports ``s2sad.compiled_overloads``, which imports Numba to define
its overloads. Where this module's machine code exists for a function, the generated module is
loaded with a stand-in for ``compiled_overloads`` (``helpers_deferred``) whose names are
placeholders; before anything hands the module's functions to Numba, ``realise`` swaps the
placeholders for the real helpers. (The stand-in is in ``sys.modules`` only while that module
loads, under this module's lock: another thread importing ``compiled_overloads`` at that very
moment would get it too.)
"""
from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import hmac
import importlib.machinery
import importlib.util
import os
import platform
import re
import shutil
import sys
import tempfile
import threading
import types

import numpy as np

from . import cache
from .codegen.entry_options import ENTRY_OPTIONS

__all__ = ["enabled", "kept", "directory_of", "helpers_deferred", "realise", "deferred", "Loaded", "call_kind",
           "blas_nearby", "build_at_exit", "pending", "build", "c_compiler"]

_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
_HELPERS = "s2sad.compiled_overloads"
_lock = threading.RLock()


def enabled() -> bool:
    return os.environ.get("S2SAD_AHEAD_OF_TIME", "1") != "0"


def directory_of(module_file: str) -> str:
    """Where the machine code of the generated module at ``module_file`` is kept."""
    return module_file + ".aot"


# ------------------------------------------------------------------ the key, computed without Numba
def call_kind(args) -> str | None:
    """The argument types Numba would give ``args`` (``numba.typeof``), spelt without Numba; None
    for an argument this module does not spell (no machine code is looked for)."""
    parts = []
    for a in args:
        kind = a.__class__
        if kind is float:
            parts.append("d")
        elif kind is bool:
            parts.append("?")
        elif kind is int:
            parts.append("i")
        elif kind is np.ndarray:
            flags = a.flags
            layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
            parts.append(f"{a.dtype.str}{a.ndim}{layout}{'' if flags.writeable else 'r'}{'' if flags.aligned else 'u'}")
        elif kind is tuple:
            inner = call_kind(a)
            if inner is None:
                return None
            parts.append(f"({inner})")
        else:
            return None
    return ",".join(parts)


_versions: str | None = None


def _numba_version() -> str | None:
    """Numba's version, read from its files (importing it is what this module avoids)."""
    spec = importlib.util.find_spec("numba")
    if spec is None or spec.origin is None:
        return None
    try:
        with open(os.path.join(os.path.dirname(spec.origin), "_version.py"), encoding="utf-8") as stream:
            found = re.search(r'"version":\s*"([^"]+)"', stream.read())
    except OSError:
        return None
    return found.group(1) if found else None


@functools.lru_cache(maxsize=None)
def _cpu() -> str:
    """The CPU the machine code is compiled for: the host's model and features where the system
    says them (``/proc/cpuinfo``), else the architecture alone (then compiled for any CPU of it:
    ``_target_cpu``). (Not ``platform.processor()``: it runs ``uname -p``, 8 ms.)"""
    described = [platform.machine()]
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as stream:
            for line in stream:
                if not line.strip():
                    break  # the first processor's block is enough
                if line.split(":")[0].strip() in ("vendor_id", "model name", "flags", "Features", "CPU part"):
                    described.append(line.strip())
    except OSError:
        pass
    return "\n".join(described)


def _target_cpu() -> str:
    """numba.pycc's CPU: the host's (as Numba's JIT compiles) when the key names it, else generic."""
    return "host" if "flags" in _cpu() or "Features" in _cpu() else ""


def _versions_and_cpu() -> str | None:
    global _versions
    if _versions is None:
        numba_version = _numba_version()
        _versions = "" if numba_version is None else \
            f"numba {numba_version} numpy {np.__version__} {sys.implementation.cache_tag} {_cpu()}"
    return _versions or None


def _data_bound(namespace: dict) -> str | None:
    """The values of the data the module binds (``BINDINGS``; functions and modules are in the
    generated module's name already), spelt for the key; None when one cannot be spelt."""
    parts = []
    for name in sorted(namespace.get("BINDINGS", {})):
        value = namespace.get(name)
        if isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)) \
                or callable(value):
            continue
        if isinstance(value, (bool, int, float, complex, str, type(None))):
            parts.append(f"{name}={value!r}:{type(value).__name__}")
        elif value.__class__ is np.ndarray and value.dtype.kind in "biufc":
            parts.append(f"{name}={value.dtype.str}{value.shape}"
                         f"{hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()}")
        else:
            return None
    return ";".join(parts)


def _digest(entry, kind: str) -> str | None:
    versions = _versions_and_cpu()
    data = _data_bound(entry.__globals__)
    if versions is None or data is None:
        return None
    made_from = os.path.basename(entry.__code__.co_filename)
    return hashlib.sha256(f"{made_from}\0{entry.__name__}\0{kind}\0{versions}\0{data}".encode()).hexdigest()[:24]


def _module_name(digest: str) -> str:
    return f"s2sad_aot_{digest}"


def _signed(data: bytes) -> str | None:
    key = cache.bytecode_key()
    return None if key is None else hmac.new(key, data, hashlib.sha256).hexdigest()[:32]


def _eligible(entry) -> bool:
    """Whether this function's machine code may be kept: its generated module is a file of the
    disk cache (not one kept in memory), and it calls no split user function."""
    namespace = entry.__globals__
    made_from = entry.__code__.co_filename
    return os.path.isabs(made_from) and os.path.isfile(made_from) and \
        not any(recipe[0] in ("compiled_forward", "compiled_reverse") for recipe in namespace.get("BINDINGS", {}).values())


def _failed_path(entry, digest: str) -> str:
    """Beside the generated module: that building its machine code for ``digest`` failed (no
    compiler's headers, a result other than Numba's): not tried again at each exit."""
    return f"{entry.__code__.co_filename}.{digest}.ahead-of-time-failed"


# ------------------------------------------------------------------ loading
class Loaded:
    """The machine code kept for one generated entry, by call kind, loaded on first use."""

    def __init__(self, entry):
        self.entry = entry
        self.directory = directory_of(entry.__code__.co_filename)
        self._found: dict = {}  # call kind -> (the exported function, uses BLAS) or None

    def function_for(self, args, all_floats: bool = False):
        """``(function, uses BLAS)`` computing what the dispatcher computes at ``args``, or None.
        ``all_floats``: the caller knows every argument is a float (the kind is their number)."""
        if all_floats:
            found = self._found.get(len(args), False)
            if found is False:
                found = self._found[len(args)] = self.function_for(args)
            return found
        kind = call_kind(args)
        if kind is None:
            return None
        found = self._found.get(kind, False)
        if found is False:
            with _lock:
                found = self._found[kind] = _load(self.entry, self.directory, kind)
        return found


def _load(entry, directory: str, kind: str):
    digest = _digest(entry, kind)
    if digest is None or cache.bytecode_key() is None:  # (without the key nothing can be vouched for)
        return None
    for name in _kept_names(directory, digest):
        path = os.path.join(directory, name)
        data = cache.read_file(path)
        expected = name[len(digest) + 1:-len(_SUFFIX)].split(".")[0]
        if data is None or not hmac.compare_digest(_signed(data) or "", expected):
            _remove(path)  # cut short, changed, or not ours: not there (and built again when asked)
            continue
        try:
            module = _import_extension(_module_name(digest), path)
            return module.gradient, ".blas" in name
        except Exception:  # noqa: BLE001 - a file that does not load is not there
            continue
    return None


def _kept_names(directory: str, digest: str) -> list:
    """The files of machine code kept for ``digest`` in ``directory`` (not checked yet)."""
    try:
        return [n for n in os.listdir(directory) if n.startswith(digest + "-") and n.endswith(_SUFFIX)]
    except OSError:
        return []


def _built_already(entry, kind: str) -> bool:
    digest = _digest(entry, kind)
    return digest is not None and bool(_kept_names(directory_of(entry.__code__.co_filename), digest))


def _import_extension(name: str, path: str):
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


@contextlib.contextmanager
def blas_nearby():
    """Numba's BLAS calls find their functions by importing ``scipy.linalg.cython_blas``, which
    imports all of ``scipy.linalg`` first (0.15 s). For the first call of machine code that
    multiplies matrices, the extension module is loaded alone from its file instead (10 ms),
    under its own name, then taken out of ``sys.modules`` again: the code keeps the function
    pointers it read, and a later ``import scipy.linalg.cython_blas`` gets the same module
    (Cython hands back the one made) through the whole import system, the package's attribute
    set."""
    name = "scipy.linalg.cython_blas"
    preloaded = None
    if name not in sys.modules and "scipy.linalg" not in sys.modules:
        try:
            spec = importlib.util.find_spec("scipy")
            path = os.path.join(os.path.dirname(spec.origin), "linalg", "cython_blas" + _SUFFIX)
            if os.path.isfile(path):
                preloaded = _import_extension(name, path)
        except Exception:  # noqa: BLE001 - then the code imports it the usual way
            preloaded = None
    try:
        yield
    finally:
        if preloaded is not None and sys.modules.get(name) is preloaded and "scipy.linalg" not in sys.modules:
            del sys.modules[name]


# ------------------------------------------------------------------ the generated module without Numba
class _Placeholder:
    """A name imported from the stand-in ``compiled_overloads``: swapped for the real one by ``realise``."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args, **kwargs):  # never meant to run: realise comes first
        return getattr(_real_helpers(), self.name)(*args, **kwargs)

    def __repr__(self):
        return f"<s2sad.compiled_overloads.{self.name}, not imported yet>"


class _StandIn(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Placeholder(name)


def _real_helpers():
    import importlib

    return importlib.import_module(_HELPERS)


@contextlib.contextmanager
def helpers_deferred(function, wrt):
    """While loading ``function``'s generated compiled module: a stand-in for
    ``compiled_overloads`` (so, no Numba), when machine code was kept for that module and
    Numba is not imported already."""
    deferring = enabled() and _HELPERS not in sys.modules and "numba" not in sys.modules \
        and _kept_for(function, wrt)
    if not deferring:
        yield
        return
    with _lock:
        stand_in = sys.modules.setdefault(_HELPERS, _StandIn(_HELPERS))
        try:
            yield
        finally:
            if sys.modules.get(_HELPERS) is stand_in and isinstance(stand_in, _StandIn):
                del sys.modules[_HELPERS]


def _kept_for(function, wrt) -> bool:
    """Whether machine code was kept for ``function``'s generated compiled module (its path is
    found as transform finds it; a path found otherwise only means no stand-in: Numba loads)."""
    from .transform import cache_key, entry_name

    directory = cache.usable_directory()
    if directory is None:
        return False
    try:
        path = cache.entry_path(directory, entry_name(function, "compiled"), cache_key(function, wrt, "compiled"))
    except Exception:  # noqa: BLE001 - transform says why, when it loads
        return False
    return os.path.isdir(directory_of(str(path)))


def realise(namespace: dict) -> None:
    """Swap the stand-in's placeholders in a generated module's globals for the real helpers
    (which imports Numba): done before Numba reads the module."""
    for name, value in list(namespace.items()):
        if value.__class__ is _Placeholder:
            namespace[name] = getattr(_real_helpers(), value.name)


def kept(entry) -> bool:
    """Whether machine code was kept for the generated module of ``entry`` (for some call kind)."""
    return enabled() and os.path.isdir(directory_of(entry.__code__.co_filename))


def deferred(namespace: dict) -> bool:
    return any(value.__class__ is _Placeholder for value in namespace.values())


# ------------------------------------------------------------------ building
_pending: dict = {}  # (entry file, call kind) -> (entry, dispatcher, arguments)
MOST_AT_EXIT = 4  # builds a process's exit starts (a few seconds each); later processes build the rest
_registered = False


def build_at_exit(entry, dispatcher, args) -> None:
    """Keep machine code for ``entry`` at these arguments' types, made when this process exits."""
    global _registered
    if not enabled() or not _eligible(entry) or c_compiler() is None:
        return
    kind = call_kind(args)
    digest = None if kind is None else _digest(entry, kind)
    if digest is None or os.path.exists(_failed_path(entry, digest)):
        return
    with _lock:
        key = (entry.__code__.co_filename, kind)
        if key in _pending or len(_pending) >= MOST_AT_EXIT:
            return
        copies = _copied(args)
        if call_kind(copies) != kind:  # a strided or unaligned array: its copy would be another type
            return
        _pending[key] = (entry, dispatcher, copies)
        if not _registered:
            atexit.register(_build_pending)
            _registered = True


def _copied(args):
    """Copies of the arguments, for the check at exit (the caller may change its own meanwhile),
    in their order (C or Fortran) and read-only when they were: of Numba's same types."""
    copies = []
    for a in args:
        if a.__class__ is tuple:
            a = _copied(a)
        elif a.__class__ is np.ndarray:
            writeable, a = a.flags.writeable, a.copy(order="K")
            a.flags.writeable = writeable
        copies.append(a)
    return tuple(copies)


def c_compiler() -> str | None:
    """The C compiler numba.pycc links with (Python's own ``CC``), or None: no machine code kept."""
    import sysconfig

    command = (sysconfig.get_config_var("CC") or "cc").split()
    return shutil.which(command[0]) if command else None


def pending() -> list:
    """The builds waiting for this process's exit: ``(generated file, call kind)``."""
    with _lock:
        return list(_pending)


def _build_pending() -> None:
    """At exit: the builds waiting, in a child process of their own where the system forks, so that
    the user's process ends at once (its shell, or the ``subprocess.run`` waiting for it, is not
    kept seconds per build); here otherwise, and with ``S2SAD_AHEAD_OF_TIME=wait``."""
    with _lock:
        pending = list(_pending.values())
        _pending.clear()
    if not pending:
        return
    # a fork of a process with other threads may copy a lock one of them held: then build here
    detached = os.environ.get("S2SAD_AHEAD_OF_TIME") != "wait" and sys.platform == "linux" \
        and threading.active_count() == 1
    if detached:
        try:
            child = os.fork()
        except OSError:
            detached = False
        else:
            if child:
                return
            # the child: no terminal, no pipe a parent waits on to close, not its process group's signals
            try:
                os.setsid()
                quiet = os.open(os.devnull, os.O_RDWR)
                for descriptor in (0, 1, 2):
                    os.dup2(quiet, descriptor)
            except OSError:
                os._exit(0)
    try:
        _build(pending)
    finally:
        if detached:
            os._exit(0)  # the child: none of the parent's other exit handlers run twice


def _build(pending) -> None:
    for entry, dispatcher, args in pending:
        if _built_already(entry, call_kind(args)):  # by another process meanwhile
            continue
        try:
            kept_at = build(entry, dispatcher, args)
        except Exception:  # noqa: BLE001 - no machine code kept; Numba's cache serves as before
            kept_at = None
        if kept_at is None:
            digest = _digest(entry, call_kind(args))
            if digest is not None:
                try:
                    with open(_failed_path(entry, digest), "x"):
                        pass
                except OSError:
                    pass


def build(entry, dispatcher, args) -> str | None:
    """Compile ``entry`` ahead of time for the Numba types of ``args``, check that it gives the
    bits ``dispatcher`` gives at ``args``, and keep it; the path kept, or None."""
    import warnings

    import numba
    from numba.core.compiler_lock import global_compiler_lock

    kind = call_kind(args)
    digest = None if kind is None else _digest(entry, kind)
    if digest is None or not _eligible(entry):
        return None
    argument_types = tuple(numba.typeof(a) for a in args)
    expected = dispatcher(*args)
    overload = dispatcher.overloads.get(argument_types)
    if overload is None:
        return None
    realise(entry.__globals__)
    directory = directory_of(entry.__code__.co_filename)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    scratch = tempfile.mkdtemp(dir=directory, prefix=".tmp-")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba.pycc's deprecation: it is what makes a module without Numba
            from numba.pycc import CC

            compiler = CC(_module_name(digest))
            compiler.output_dir = scratch
            compiler.target_cpu = _target_cpu()  # the CPU is in the key
            compiler.verbose = False
            compiler.export("gradient", overload.signature)(entry)
            with global_compiler_lock, contextlib.redirect_stdout(None), _indices_checked():
                compiler.compile()
        built = os.path.join(scratch, os.listdir(scratch)[0]) if len(os.listdir(scratch)) == 1 else None
        if built is None or not built.endswith(_SUFFIX):
            return None
        with open(built, "rb") as stream:
            data = stream.read()
        signature = _signed(data)
        if signature is None:
            return None
        module = _import_extension(_module_name(digest), built)
        with _imports_seen() as seen:  # its BLAS functions are looked up at their first call
            got = module.gradient(*args)
        if not _same_bits(got, expected):
            return None
        blas = ".blas" if "scipy.linalg.cython_blas" in seen else ""
        path = os.path.join(directory, f"{digest}-{signature}{blas}{_SUFFIX}")
        os.chmod(built, 0o700)
        os.replace(built, path)
        return path
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@contextlib.contextmanager
def _indices_checked():
    """numba.pycc takes no options for a function: Numba's configuration checks its indices, as the
    entry's dispatcher does (codegen/entry_options.py), while it compiles, under the compiler lock.
    (A NUMBA_BOUNDSCHECK the user set stays: it decides for the dispatcher too.)"""
    from numba.core import config

    before = config.BOUNDSCHECK
    if before is None:
        config.BOUNDSCHECK = int(ENTRY_OPTIONS["boundscheck"])
    try:
        yield
    finally:
        config.BOUNDSCHECK = before


@contextlib.contextmanager
def _imports_seen():
    """The names imported meanwhile (the machine code imports through ``builtins.__import__``)."""
    import builtins

    seen = set()
    original = builtins.__import__

    def recording(name, *args, **kwargs):
        seen.add(name)
        return original(name, *args, **kwargs)

    builtins.__import__ = recording
    try:
        yield seen
    finally:
        builtins.__import__ = original


def _same_bits(got, expected) -> bool:
    """Whether two results (floats, arrays, tuples of them) are equal bit for bit, NaNs included."""
    if isinstance(expected, tuple):
        return isinstance(got, tuple) and len(got) == len(expected) and all(map(_same_bits, got, expected))
    got_array, expected_array = np.asarray(got), np.asarray(expected)
    return type(got) is type(expected) and got_array.dtype == expected_array.dtype \
        and got_array.shape == expected_array.shape and got_array.tobytes() == expected_array.tobytes()
