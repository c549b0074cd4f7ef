"""``s2sad/frontend/source_current.py``: the text read for a function is the code Python runs.

Functions written as people write them must pass (nested, in classes, in blocks, decorated,
with multi-line strings, set literals and closures); a file saved after the import must be
refused, naming the file and the function's line. Each passing case's gradient is checked
against central differences, so a wrong pass would show as a wrong number too.
"""
import importlib
import sys
import textwrap

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient
from s2sad.frontend.source import source_lines_for_key
from s2sad.frontend.source_current import check_source_is_current

X = np.array([0.3, -0.8, 1.4])

WRITTEN_AS_PEOPLE_WRITE = '''
import functools
import numpy as np

MODE = "smooth"


def scaled(factor):
    def decorate(function):
        @functools.wraps(function)
        def wrapper(x):
            return factor * function(x)
        return wrapper
    return decorate


class Model:
    __slots__ = ("w",)
    NOTE = """a multi-line string
at column 0 inside the class"""

    def __init__(self, w):
        self.w = w

    def energy(self, x):
        text = """
            indented text, dedenting would change it
        """
        if MODE in ("smooth", "soft", "gentle"):
            return np.sum(np.tanh(self.w * x)) + 0.0 * len(text)
        return np.sum(x)

    def _Model__private(self, x):
        return np.sum(self.__mangled(x))

    def __mangled(self, x):
        return x ** 2


def known_mode():
    return MODE in {"smooth", "soft", "gentle"}  # a frozenset constant: its order varies by process


def outer(k):
    def inner(x, p=2.0):
        return np.sum(k * x ** p)
    return inner


if True:
    def in_a_block(x):
        return np.sum(np.sin(x) * x)


@scaled(3.0)
def decorated(x):
    return np.sum(np.cos(x))


def energy_of_model(x):
    return Model(np.array([0.5, 1.5, -1.0])).energy(x)
'''


@pytest.fixture()
def module(tmp_path):
    path = tmp_path / "written_as_people_write.py"
    path.write_text(WRITTEN_AS_PEOPLE_WRITE)
    sys.path.insert(0, str(tmp_path))
    yield importlib.import_module("written_as_people_write")
    sys.path.remove(str(tmp_path))
    sys.modules.pop("written_as_people_write", None)


def test_functions_written_as_people_write_them_pass(module):
    functions = [module.scaled, module.Model.__init__, module.Model.energy, module.known_mode, module.outer, module.outer(2.0),
                 module.in_a_block, module.decorated, module.decorated.__wrapped__, module.energy_of_model]
    for function in functions:
        lines, first = source_lines_for_key(function)
        check_source_is_current(function, lines, first)  # raises if it does not match
    for function in (module.outer(2.0), module.in_a_block, module.energy_of_model):
        np.testing.assert_allclose(s2sad.grad(function)(X), numerical_gradient(function, [X], 0), rtol=1e-6, atol=1e-8)


def test_a_file_saved_after_the_import_is_refused_at_the_function_s_line(module, tmp_path):
    path = tmp_path / "written_as_people_write.py"
    path.write_text(WRITTEN_AS_PEOPLE_WRITE.replace("np.sin(x) * x)", "np.sin(x) * x ** 3)"))
    with pytest.raises(s2sad.SourceUnavailableError, match="not the code Python runs") as caught:
        s2sad.grad(module.in_a_block)(X)
    assert caught.value.location.filename == str(path)
    assert caught.value.location.line == module.in_a_block.__code__.co_firstlineno
    # the functions whose text did not change are still differentiated
    np.testing.assert_allclose(s2sad.grad(module.energy_of_model)(X),
                               numerical_gradient(module.energy_of_model, [X], 0), rtol=1e-6, atol=1e-8)


def test_a_changed_set_literal_or_string_is_seen(module, tmp_path):
    path = tmp_path / "written_as_people_write.py"
    path.write_text(WRITTEN_AS_PEOPLE_WRITE.replace('"soft", "gentle"}', '"soft"}'))
    lines, first = source_lines_for_key(module.known_mode)
    with pytest.raises(s2sad.SourceUnavailableError, match="not the code Python runs"):
        check_source_is_current(module.known_mode, lines, first)
    path.write_text(WRITTEN_AS_PEOPLE_WRITE.replace("dedenting would", "dedenting will"))
    with pytest.raises(s2sad.SourceUnavailableError, match="not the code Python runs"):
        s2sad.grad(module.energy_of_model)(X)


def test_a_reloaded_module_is_differentiated_again(module, tmp_path):
    path = tmp_path / "written_as_people_write.py"
    path.write_text(textwrap.dedent(WRITTEN_AS_PEOPLE_WRITE.replace("np.sin(x) * x)", "np.sin(x) * x ** 3)")))
    importlib.invalidate_caches()
    reloaded = importlib.reload(module)
    np.testing.assert_allclose(s2sad.grad(reloaded.in_a_block)(X), numerical_gradient(reloaded.in_a_block, [X], 0),
                               rtol=1e-6, atol=1e-8)


def checked_square_sum(x):
    assert x.ndim == 1, "a vector"   # pytest rewrites this module's asserts: its code is not the text's
    return np.sum(x ** 2)


def test_a_function_with_an_assert_in_a_module_pytest_rewrote_is_differentiated():
    x = np.array([0.5, -1.5])
    np.testing.assert_allclose(s2sad.grad(checked_square_sum)(x), 2 * x, rtol=1e-12)
