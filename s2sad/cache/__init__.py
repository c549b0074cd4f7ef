"""The on-disk cache of generated modules.

A generated module is a real ``.py`` file, named after the function and keyed by a hash
of everything its text depends on (see ``transform.cache_key``). Files are written
atomically (a temporary file renamed into place), so concurrent processes never see half
a file; each starts with a hash of its own content, so a truncated or edited entry is
detected and regenerated. When no cache directory can be used, modules live in memory
and their source is registered with ``linecache`` so tracebacks still show their lines.

Next to each entry, ``<entry>.pyc`` keeps its compiled code (marshal), so a warm start
does not compile the generated text again. It is only a shortcut, and bytecode nobody can
read must never run in place of the text beside it: it is used only when its header names
this Python's bytecode version and the digest of the entry's checked text and path, and an
HMAC of both with a secret key matches. The key (``bytecode_key``) is made on first use and
kept outside the cache directory, so a cache copied from elsewhere, restored by a CI job or
written by another program brings no bytecode that runs: its sidecars fail the check, and
the checked text is compiled instead (and the sidecar written again). Where the key cannot
be kept, no sidecar is used. The sidecars live in s2sad's private cache directory, so they
are written even where Python itself writes no bytecode (PYTHONDONTWRITEBYTECODE is about
``__pycache__`` folders next to sources).

Every file is read through ``_read_regular``: a FIFO, a device or a symbolic link where an
entry should be is never opened for reading (a FIFO would block the reader for ever).
"""
from __future__ import annotations

import hashlib
import hmac
import importlib.util
import linecache
import marshal
import os
import secrets
import shutil
import stat
import sys
import tempfile
import types
import warnings
from pathlib import Path

HASH_PREFIX = "# s2sad-content-sha256: "

_warned_unusable: set[str] = set()


def default_directory() -> Path:
    configured = os.environ.get("S2SAD_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "s2sad"


def usable_directory() -> Path | None:
    """The cache directory, created private to the user; None (with one warning) when unusable."""
    directory = default_directory()
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = directory.stat()
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            raise PermissionError(f"{directory} is not private to this user")
        if not os.access(directory, os.W_OK):
            raise PermissionError(f"{directory} is not writable")
        return directory
    except OSError as error:
        if str(directory) not in _warned_unusable:
            _warned_unusable.add(str(directory))
            warnings.warn(f"s2sad: cannot use the cache directory {directory} ({error}); "
                          "generated code is kept in memory only", RuntimeWarning, stacklevel=4)
        return None


def _seal(source: str) -> str:
    return f"{HASH_PREFIX}{hashlib.sha256(source.encode()).hexdigest()}\n{source}"


def _unseal(text: str) -> str | None:
    first, _, rest = text.partition("\n")
    if not first.startswith(HASH_PREFIX):
        return None
    if hashlib.sha256(rest.encode()).hexdigest() != first[len(HASH_PREFIX):].strip():
        return None
    return rest


def entry_path(directory: Path, name: str, key: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)[:40]
    return directory / f"s2sad_{safe}_{key[:24]}.py"


def _read_regular(path: Path, private: bool = False) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of this user's that others cannot write
    (``private``: nor read); None otherwise, or when it cannot be read.

    Opened without blocking and without following a symbolic link, and checked to be a
    regular file before anything is read from it: a FIFO opens at once, then is refused.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        handle = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(handle, "rb") as stream:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            return None
        if not _owned_by_user(info, stat.S_IRWXG | stat.S_IRWXO if private else stat.S_IWGRP | stat.S_IWOTH):
            warnings.warn(f"s2sad: ignoring {path}: not owned by you, or "
                          + ("readable or writable by others" if private else "writable by others"), RuntimeWarning)
            return None
        try:
            return stream.read()
        except OSError:
            return None


def read_file(path) -> bytes | None:
    """The bytes of a file in the cache when it is a regular file of the user's that others
    cannot write (``_read_regular``); None otherwise."""
    return _read_regular(Path(path))


def _owned_by_user(info: os.stat_result, forbidden_mode: int) -> bool:
    return not hasattr(os, "getuid") or (info.st_uid == os.getuid() and not info.st_mode & forbidden_mode)


def read_entry(path: Path) -> str | None:
    """The generated source stored at ``path``; None if absent or not a regular file of the user's,
    and None with a warning if damaged."""
    data = _read_regular(path)
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        warnings.warn(f"s2sad: cache entry {path} is damaged (not valid UTF-8); regenerating it", RuntimeWarning)
        return None
    source = _unseal(text)
    if source is None:
        warnings.warn(f"s2sad: cache entry {path} is damaged (content hash mismatch); regenerating it", RuntimeWarning)
    return source


def write_entry(path: Path, source: str) -> bool:
    """Write atomically: readers see the old file or the whole new one, never a part."""
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".py")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(_seal(source))
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
        return True
    except OSError:
        try:
            os.unlink(temporary)
        except (OSError, UnboundLocalError):
            pass
        return False


CODE_HEADER = b"s2sad-code-2\n" + importlib.util.MAGIC_NUMBER
KEY_SIZE = 32

_key: bytes | None = None


def code_path(path: Path) -> Path:
    return path.with_suffix(".pyc")


def key_path() -> Path:
    """Where the sidecars' key is kept: the user's configuration, not the cache it vouches for."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "s2sad" / "bytecode-key"


def bytecode_key() -> bytes | None:
    """The secret the sidecars are signed with, made on first use; None when it cannot be kept."""
    global _key
    if _key is None:
        _key = _read_or_make_key(key_path()) or b""
    return _key or None


def _read_or_make_key(path: Path) -> bytes | None:
    key = _read_regular(path, private=True)
    if key is None and not path.exists():
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as stream:
                    stream.write(secrets.token_bytes(KEY_SIZE))
                os.link(temporary, path)  # all of it or nothing, and never over another process's key
            except FileExistsError:
                pass
            finally:
                os.unlink(temporary)
        except OSError:
            return None
        key = _read_regular(path, private=True)
    return key if key is not None and len(key) == KEY_SIZE else None


def _code_digests(path: Path, sealed: str) -> bytes:
    """What the compiled code depends on: the entry's path (its co_filename), its text, ``-O``."""
    where = f"{path}\0{sys.flags.optimize}\0".encode("utf-8", "surrogateescape")
    return hashlib.sha256(where + sealed.encode()).digest()


def _signature(key: bytes, digests: bytes, payload: bytes) -> bytes:
    return hmac.new(key, digests + payload, hashlib.sha256).digest()


def _read_code(path: Path, sealed: str) -> types.CodeType | None:
    """The compiled code stored for the entry at ``path`` with text ``sealed``; None if absent,
    stale, or not signed with this user's key."""
    key = bytecode_key()
    data = _read_regular(code_path(path)) if key is not None else None
    if data is None:
        return None
    start = len(CODE_HEADER)
    digests = _code_digests(path, sealed)
    if not data.startswith(CODE_HEADER) or data[start:start + 32] != digests:
        return None
    payload = data[start + 64:]
    if not hmac.compare_digest(_signature(key, digests, payload), data[start + 32:start + 64]):
        return None
    try:
        code = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


def _write_code(path: Path, sealed: str, code: types.CodeType) -> None:
    """Store ``code`` next to its entry, atomically (like the entry); silently skipped on failure."""
    key = bytecode_key()
    if key is None:
        return
    payload = marshal.dumps(code)
    digests = _code_digests(path, sealed)
    data = CODE_HEADER + digests + _signature(key, digests, payload) + payload
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pyc")
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, 0o600)
        os.replace(temporary, code_path(path))
    except OSError:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass


def load_module(name: str, source: str, path: Path | None) -> types.ModuleType:
    """Import generated code as a module: from its file when it has one, else from memory."""
    module_name = f"s2sad_generated.{path.stem if path else name}"
    if path is not None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        # The file was checked against its hash; compile that checked text, not a re-read
        # (or load the code compiled from exactly that text at exactly this path).
        sealed = _seal(source)
        code = _read_code(path, sealed)
        if code is None:
            code = compile(sealed, str(path), "exec")
            _write_code(path, sealed, code)
        module.__file__ = str(path)
    else:
        filename = f"<s2sad generated {name}>"
        module = types.ModuleType(module_name)
        module.__file__ = filename
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        code = compile(source, filename, "exec")
    sys.modules[module_name] = module
    exec(code, module.__dict__)
    return module


def clear(directory: Path | None = None) -> int:
    """Remove the entries, their compiled code, and the temporary files of writes that were
    killed before renaming them into place; return how many entries were removed."""
    directory = directory or default_directory()
    removed = 0
    if directory.is_dir():
        for entry in directory.glob("s2sad_*.py"):
            try:
                entry.unlink()
                removed += 1
            except OSError:
                pass
        for leftover in [*directory.glob("s2sad_*.pyc"), *directory.glob(".tmp-*")]:
            try:
                leftover.unlink()
            except OSError:
                pass
        for kept in directory.glob("s2sad_*.py.aot"):  # compile=True's machine code (ahead_of_time.py)
            shutil.rmtree(kept, ignore_errors=True)
    return removed
