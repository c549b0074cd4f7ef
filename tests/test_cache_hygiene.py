"""Files s2sad reads and writes: bytecode runs only when signed for its checked text, a FIFO
never blocks a reader, `cache clear` leaves nothing behind, emitted files are the user's."""
import importlib
import marshal
import os
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s2sad
from s2sad import cache as cache_module
from s2sad import transform as transform_module
from s2sad.emit import write_new
from s2sad.errors import S2SADError


@pytest.fixture()
def user_module(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(cache))
    # these tests are about the general rrule's entry: no typed versions (entries of their own, test_typed_path.py)
    monkeypatch.setenv("S2SAD_TYPED_VERSIONS", "0")
    (tmp_path / "hygienemodel.py").write_text(textwrap.dedent("""\
        import numpy as np

        def loss(w):
            return np.sum(np.sin(w) * w)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("hygienemodel", None)
    module = importlib.import_module("hygienemodel")
    yield module, cache
    sys.modules.pop("hygienemodel", None)
    transform_module.forget()


W = np.array([0.3, -0.4, 1.1])


def expected_gradient(w):
    return np.cos(w) * w + np.sin(w)  # by hand: d/dw sum(sin(w) w)


def the_entry(cache):
    (entry,) = cache.glob("s2sad_loss_*.py")
    return entry


# ---------------------------------------------------------------------- compiled sidecars
def _planted_code(entry):
    """Code compiled from a changed text (a gradient 99 times too large) at the entry's path."""
    source = cache_module._unseal(entry.read_text())
    planted = source.replace("return NO_TANGENT, dw", "return NO_TANGENT, 99.0 * dw")
    assert planted != source
    return marshal.dumps(compile(cache_module._seal(planted), str(entry), "exec"))


def _sidecar(entry, payload, signature):
    sealed = entry.read_text()
    digests = cache_module._code_digests(entry, sealed)
    return cache_module.CODE_HEADER + digests + signature(digests, payload) + payload


@pytest.mark.parametrize("signature", [
    pytest.param(lambda digests, payload: __import__("hashlib").sha256(payload).digest(), id="payload-digest"),
    pytest.param(lambda digests, payload: cache_module._signature(b"\0" * cache_module.KEY_SIZE, digests, payload),
                 id="another-key"),
])
def test_a_tampered_sidecar_never_runs(user_module, signature):
    module, cache = user_module
    np.testing.assert_allclose(s2sad.grad(module.loss)(W), expected_gradient(W))
    entry = the_entry(cache)
    sidecar = cache_module.code_path(entry)
    assert sidecar.exists()
    sidecar.write_bytes(_sidecar(entry, _planted_code(entry), signature))
    transform_module.forget()
    np.testing.assert_allclose(s2sad.grad(module.loss)(W), expected_gradient(W))
    # and the sidecar was written again, from the checked text
    transform_module.forget()
    assert cache_module._read_code(entry, entry.read_text()) is not None


def test_a_sidecar_signed_with_the_key_is_used(user_module, monkeypatch):
    """The other side of the check: the shortcut still works (no compile on a warm load)."""
    module, cache = user_module
    s2sad.grad(module.loss)(W)
    transform_module.forget()
    compiled = []
    real_compile = compile
    monkeypatch.setattr("builtins.compile", lambda *a, **k: compiled.append(a[1]) or real_compile(*a, **k))
    np.testing.assert_allclose(s2sad.grad(module.loss)(W), expected_gradient(W))
    assert str(the_entry(cache)) not in compiled


def test_no_sidecar_without_a_key(user_module, tmp_path, monkeypatch):
    module, cache = user_module
    blocker = tmp_path / "not_a_directory"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocker))
    monkeypatch.setattr(cache_module, "_key", None)
    np.testing.assert_allclose(s2sad.grad(module.loss)(W), expected_gradient(W))
    assert not list(cache.glob("*.pyc"))
    monkeypatch.setattr(cache_module, "_key", None)  # the next test reads the real key again


# ---------------------------------------------------------------------- FIFOs
PROGRAM = """
import numpy as np, s2sad, hygienemodel
w = np.array([0.3, -0.4, 1.1])
print(np.allclose(s2sad.grad(hygienemodel.loss)(w), np.cos(w) * w + np.sin(w)))
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("where", ["entry", "sidecar"])
def test_a_fifo_in_the_cache_never_blocks(user_module, tmp_path, where):
    module, cache = user_module
    s2sad.grad(module.loss)(W)
    entry = the_entry(cache)
    path = entry if where == "entry" else cache_module.code_path(entry)
    path.unlink()
    os.mkfifo(path, 0o600)
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    # in another process, with a timeout: a regression fails rather than hangs the suite
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=environment, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]
    assert stat.S_ISFIFO(os.lstat(path).st_mode) or path.is_file()  # left alone, or replaced by a real entry


def test_a_symbolic_link_is_never_read_as_an_entry(user_module, tmp_path):
    module, cache = user_module
    s2sad.grad(module.loss)(W)
    entry = the_entry(cache)
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text(entry.read_text())
    entry.unlink()
    entry.symlink_to(elsewhere)
    assert cache_module.read_entry(entry) is None


# ---------------------------------------------------------------------- cache clear
def test_cache_clear_removes_what_killed_writes_left(user_module):
    module, cache = user_module
    s2sad.grad(module.loss)(W)
    leftovers = [cache / ".tmp-k1ll3d.py", cache / ".tmp-k1ll3d.pyc"]
    for leftover in leftovers:
        leftover.write_text("half a file")
    done = subprocess.run([sys.executable, "-m", "s2sad", "cache", "clear"], env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "removed 1 entries" in done.stdout
    assert sorted(os.listdir(cache)) == []


# ---------------------------------------------------------------------- emitted files
def test_emit_refuses_to_replace_a_dangling_symbolic_link(tmp_path):
    link = tmp_path / "derivatives.py"
    link.symlink_to(tmp_path / "nowhere.py")
    with pytest.raises(S2SADError, match="exists: not overwritten"):
        write_new(str(link), "x = 1\n", force=False)
    assert link.is_symlink() and not (tmp_path / "nowhere.py").exists()
    write_new(str(link), "x = 1\n", force=True)
    assert not link.is_symlink() and link.read_text() == "x = 1\n"


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_emitted_files_follow_the_umask(tmp_path, umask, mode):
    previous = os.umask(umask)
    try:
        write_new(str(tmp_path / "derivatives.py"), "x = 1\n", force=False)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(tmp_path / "derivatives.py").st_mode) == mode
