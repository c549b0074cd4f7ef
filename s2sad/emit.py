"""``s2sad emit``: a derivative as a source file of its own, to read, ship and import.

The file is the generated module plus a header (where it came from, a hash of that source,
the s2sad version, the names it defines) and two things the cache's loader would otherwise
do: binding the names the code takes from the function's module, and, in reverse mode, a
``FUNC_grad`` function returning what ``s2sad.grad`` returns. With ``--compile`` it is the
compiled-mode gradient instead (``compile=True``), which needs Numba and not s2sad.
"""
from __future__ import annotations

import ast
import hashlib
import inspect
import math
import os
import re
import tempfile
import textwrap

from .version import __version__
from .codegen.entry_options import ENTRY_OPTIONS
from .compiled_helper_modules import HELPER_MODULES
from .errors import S2SADError, SourceLocation
from .frontend.resolve import unwrap
from .transform import generated_source

HEADER = '''\
# Derivatives of `{qualname}` from {source} (source sha256 {digest}), by s2sad {version}.
# Mode: {mode}; with respect to: {wrt}.
# Defines: {defines}.
# Regenerate with: s2sad emit {target}{options} --force
'''

GRAD_TEMPLATE = '''

def {name}_grad({signature}):
    """The gradient of `{name}` with respect to {wrt}: what s2sad.grad(..., argnums={argnums}) returns."""
    return _gradient({name}_rrule, ({params}{comma}), {positions}, {name!r})
'''

COMPILED_TEMPLATE = '''

# {name}_grad(...) -> (value, (gradients with respect to {wrt})): compiled by Numba at its first call
# and cached beside this file, each index checked (an IndexError where NumPy raises one). It serves the
# calls ACCEPTS(...) is true for; it needs Numba, not s2sad.
import numba  # noqa: E402

{name}_grad = numba.njit({options})({entry})
'''

LOCK_TEMPLATE = '''

# Numba's disk cache, locked for processes that fill it at the same time (a copy of s2sad/numba_cache.py,
# installed once per process: this file runs without s2sad, and shares the lock with it where both run).
def _lock_numba_cache():
{code}

    install()


_lock_numba_cache()

# Numba keeps this file's compiled code on disk only where the file was imported by its name: loaded
# under none (importlib's spec_from_file_location, the module left out of sys.modules) or run as a
# script, what it wrote would name no module, and every later import of the file would fail to read
# it back (ModuleNotFoundError: '<dynamic>'). The helpers below, where the code calls some, test the
# same (compiled_helpers._imported_by_name).
KEPT_BY_NAME = __name__ in __import__("sys").modules and __name__ != "__main__"
'''

BIND_TEMPLATE = '''

# The names above that come from `{name}`'s module, bound by importing that module (not parsing it).
from s2sad.standalone import bind_from_source as _bind_from_source, gradient as _gradient  # noqa: E402

_source = _bind_from_source(globals(), __file__, {relative!r}, {absolute!r}, {qualname!r}, {digest!r})
'''


def emitted_text(function, wrt: tuple[str, ...], mode: str, output_path: str, target: str) -> str:
    """The file ``s2sad emit`` writes; ``mode``: reverse, forward, or compiled (``--compile``)."""
    original = unwrap(function)
    source_file = inspect.getsourcefile(original)
    digest = source_digest(original)
    generated = generated_source(original, wrt, mode)
    body = generated.split("\n", 2)[2]  # the generated module without its own two-line header
    name = original.__name__
    params = list(inspect.signature(original).parameters)
    defines = {"reverse": f"{name}_rrule (value, pullback), {name}_grad (the gradient)",
               "forward": f"{name}_jvp (value, tangent; tangents after the arguments, for {', '.join(wrt)})",
               "compiled": f"{name}_grad (value and gradients, compiled by Numba), ACCEPTS (the calls it serves)"}[mode]
    options = (f" --wrt {','.join(wrt)}" if wrt else "") + {"forward": " --mode forward", "compiled": " --compile"}.get(mode, "")
    header = HEADER.format(qualname=original.__qualname__, source=os.path.basename(source_file), digest=digest,
                           version=__version__, mode=mode, wrt=", ".join(wrt) or "nothing", defines=defines,
                           target=target, options=options)
    text = header + body.rstrip() + "\n"
    if mode == "compiled" and "'compiled_forward'" in generated:
        callees = sorted(set(re.findall(r"'compiled_forward', \('env', '([\w.]+)'\)", generated)))
        raise S2SADError(f"--compile: the compiled gradient of {original.__qualname__} calls the split compiled forms "
                         f"of {', '.join(f'`{c}`' for c in callees)}, which s2sad binds when it loads the module: "
                         "an emitted file cannot run them without s2sad", _first_call_of(original, callees),
                         hint="use s2sad.grad(..., compile=True) in the program, or emit without --compile")
    if mode == "compiled":  # plain Python and Numba: nothing of s2sad's, nothing bound from the source's module
        # first: the code's dispatchers (cache=True) read and write the cache from their first call on
        text = header + _numba_cache_text() + "\n" + body.rstrip() + "\n"
        text = re.sub(r"^from s2sad\.compiled_overloads import .*$", _compiled_helpers_text, text, count=1,
                      flags=re.MULTILINE)
        entry = re.search(r"^def (\w+_grad_compiled\w*)\(", text, re.MULTILINE).group(1)
        text = _number_defaults_written_in(text, original, (entry, f"{name}_accepts"))
        options = ", ".join(f"{key}={'KEPT_BY_NAME' if key == 'cache' else repr(value)}"
                            for key, value in ENTRY_OPTIONS.items())
        text += COMPILED_TEMPLATE.format(name=name, entry=entry, wrt=", ".join(wrt), options=options)
        compile(text, output_path, "exec")
        return text
    relative = os.path.relpath(source_file, os.path.dirname(os.path.abspath(output_path)))
    text += BIND_TEMPLATE.format(name=name, relative=relative, absolute=os.path.abspath(source_file),
                                 qualname=original.__qualname__, digest=digest)
    if mode == "reverse":
        positions = tuple(params.index(w) for w in wrt)
        argnums = positions[0] if len(positions) == 1 else positions
        text += GRAD_TEMPLATE.format(name=name, signature=_signature_text(original), params=", ".join(params),
                                     wrt=", ".join(wrt), argnums=argnums, comma="," if len(params) == 1 else "",
                                     positions=positions)
    compile(text, output_path, "exec")
    return text


def _first_call_of(function, callees: list) -> SourceLocation:
    """The user's line calling one of ``callees`` (``sigmoid``, ``p.helper``) first, or where ``function`` starts."""
    lines, first = inspect.getsourcelines(function)
    filename = inspect.getsourcefile(function)
    text = textwrap.dedent("".join(lines))
    indent = len(lines[0]) - len(lines[0].lstrip())
    calls = [node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Call)
             and ast.unparse(node.func) in callees]
    line, column = min(((c.lineno, c.col_offset) for c in calls), default=(1, 0))
    return SourceLocation(filename, first + line - 1, column + indent + 1, lines[line - 1].rstrip("\n"))


def source_digest(function) -> str:
    """The hash of ``function``'s text the header names, and an emitted file checks its source's
    function against when it is imported (``standalone.bind_from_source``)."""
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]


def _signature_text(function) -> str:
    """``function``'s parameters as ``FUNC_grad`` declares them: its defaults kept, written as
    literals where they are plain numbers, strings or None, else read from the function itself
    (``_source``, bound by the file) when it is imported."""
    parts, starred, positional_defaults = [], False, 0
    for parameter in inspect.signature(function).parameters.values():
        keyword_only = parameter.kind is parameter.KEYWORD_ONLY
        if keyword_only and not starred:
            parts.append("*")
            starred = True
        text = parameter.name
        if parameter.default is not parameter.empty:
            default = parameter.default
            literal = default is None or type(default) is str or _number(default)
            text += "=" + (repr(default) if literal else f"_source.__kwdefaults__[{parameter.name!r}]" if keyword_only
                           else f"_source.__defaults__[{positional_defaults}]")
            positional_defaults += not keyword_only
        parts.append(text)
    return ", ".join(parts)


def _number(value) -> bool:
    """A bool, an int or a finite float: written as it is, a literal Numba compiles as a default too."""
    return type(value) in (bool, int) or type(value) is float and math.isfinite(value)


def _number_defaults_written_in(text: str, function, names: tuple) -> str:
    """``text`` with the functions ``names`` (the compiled entry, ``FUNC_accepts``), which take
    ``function``'s parameters, given its last defaults that are numbers (``dt=0.1, steps=20``): the
    emitted gradient is called as the function is. A default of another kind stays an argument to give."""
    parameters = list(inspect.signature(function).parameters.values())
    kept = len(parameters)
    while kept and parameters[kept - 1].kind is parameters[kept - 1].POSITIONAL_OR_KEYWORD \
            and parameters[kept - 1].default is not parameters[kept - 1].empty and _number(parameters[kept - 1].default):
        kept -= 1
    written = ", ".join([p.name for p in parameters[:kept]] + [f"{p.name}={p.default!r}" for p in parameters[kept:]])
    for name in names:
        found = re.search(rf"^def {name}\(([^)]*)\):", text, re.MULTILINE)
        if found is not None and [a.strip() for a in found.group(1).split(",") if a.strip()] == [p.name for p in parameters]:
            text = text[:found.start(1)] + written + text[found.end(1):]
    return text


def _compiled_helpers_text(_match) -> str:
    """The code of s2sad's modules of compiled helpers (Numba overloads of the generated code's
    helpers, gathered by compiled_overloads), for a compiled file to define itself: it runs with
    Numba and without s2sad."""
    code = "\n\n\n".join(_helpers_module_code(module) for module in HELPER_MODULES)
    files = ", ".join(f"{module}.py" for module in HELPER_MODULES[:-1]) + f" and {HELPER_MODULES[-1]}.py"
    heading = textwrap.fill(f"The helpers the gradient calls, Numba overloads chosen by argument type when it "
                            f"compiles (a copy of s2sad's {files}: this file runs without s2sad).", 100,
                            initial_indent="# ", subsequent_indent="# ")
    return heading + "\n" + code + "\n"


def _helpers_module_code(module: str) -> str:
    """The code of one of s2sad's modules of compiled helpers, without its docstring, its
    ``__all__`` and its imports of the others' names (all in one file here: a name imported
    under another, ``real as _real``, is bound to it)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{module}.py")
    with open(path, encoding="utf-8") as handle:
        code = handle.read()
    code = code[code.index('"""', 3) + 3:].strip()
    code = re.sub(r"^__all__ = \[.*?\]\n+", "", code, count=1, flags=re.MULTILINE | re.DOTALL)

    def bound_here(found) -> str:
        names = ast.parse(found.group(0).replace("from .", "from ")).body[0].names
        return "".join(f"{alias.asname} = {alias.name}\n" for alias in names if alias.asname)

    return re.sub(r"^from \.compiled_\w+ import (?:.*\\\n)*.*\n", bound_here, code, flags=re.MULTILINE)


def _numba_cache_text() -> str:
    """LOCK_TEMPLATE filled in with s2sad/numba_cache.py's code, a function's body (its names stay its own)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "numba_cache.py")
    with open(path, encoding="utf-8") as handle:
        code = handle.read()
    code = code[code.index('"""', 3) + 3:].replace("from __future__ import annotations\n", "").strip()
    code = re.sub(r"\n\n\n+", "\n\n", code)  # (a module's two blank lines between definitions: one, in a function)
    return LOCK_TEMPLATE.format(code="".join(f"    {line}" if line.strip() else "\n"
                                             for line in code.splitlines(keepends=True)))


def write_new(path: str, text: str, force: bool) -> None:
    """Write ``text`` to ``path`` atomically, with the permissions the umask gives a new file (it
    is a source file to ship, not a private one); refuse to replace anything already there, a
    dangling symbolic link included, unless ``force``."""
    if os.path.lexists(path) and not force:
        raise S2SADError(f"{path} exists: not overwritten", hint="pass --force to replace it")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise S2SADError(f"no such directory: {directory}", hint="create it, or give another -o path")
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".s2sad-emit-", suffix=".py")
    except OSError as error:
        raise S2SADError(f"cannot write to {directory}: {error.strerror}", hint="choose a writable -o path") from None
    try:
        with os.fdopen(handle, "w") as stream:
            stream.write(text)
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it 0600
        if not force and os.path.lexists(path):  # made meanwhile by someone else: still not ours to replace
            raise S2SADError(f"{path} exists: not overwritten", hint="pass --force to replace it")
        os.replace(temporary, path)
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)


def _umask() -> int:
    mask = os.umask(0o022)  # the only way to read it is to set it: put it straight back
    os.umask(mask)
    return mask
