"""``@s2sad.differentiate`` and ``s2sad.show``: a function marked for differentiation, and the
code s2sad generates for it, to read."""
from __future__ import annotations

import functools

from .api import rrule, value_and_grad, vjp
from .display import GeneratedCode, present
from .frontend.resolve import signature as _signature_of, unwrap as _unwrap
from .jacobians import jvp
from .transform import generated_source, transform


class Differentiated:
    """A function marked with ``@differentiate``: calls behave exactly like the original."""

    def __init__(self, function, argnums=0):
        self.__s2sad_original__ = function
        self.argnums = argnums
        self._value_and_grad = None
        functools.update_wrapper(self, function)

    def __call__(self, *args, **kwargs):
        return self.__s2sad_original__(*args, **kwargs)

    def __get__(self, instance, owner):
        return self if instance is None else functools.partial(self, instance)

    def grad(self, *args, **kwargs):
        value, gradient = self.value_and_grad(*args, **kwargs)
        return gradient

    def value_and_grad(self, *args, **kwargs):
        if self._value_and_grad is None:
            self._value_and_grad = value_and_grad(self.__s2sad_original__, self.argnums)
        return self._value_and_grad(*args, **kwargs)

    def vjp(self, *args):
        return vjp(self.__s2sad_original__, *args)

    def rrule(self, *args, **kwargs):
        return rrule(self.__s2sad_original__, *args, **kwargs)

    def jvp(self, primals, tangents):
        return jvp(self.__s2sad_original__, primals, tangents)

    @property
    def wrt(self) -> tuple[str, ...]:
        names = list(_signature_of(self.__s2sad_original__).parameters)
        numbers = (self.argnums,) if isinstance(self.argnums, int) else tuple(self.argnums)
        return tuple(names[n] for n in sorted(n % len(names) for n in numbers))

    @property
    def source(self) -> str:
        """The generated primal-plus-pullback code for the default ``argnums`` (renders
        highlighted in Jupyter)."""
        return GeneratedCode(generated_source(self.__s2sad_original__, self.wrt))

    def _repr_html_(self) -> str:
        return self.source._repr_html_()

    def show(self, file=None, mode: str = "reverse") -> None:
        """Print the generated code (highlighted on a terminal; HTML in Jupyter)."""
        present(generated_source(self.__s2sad_original__, self.wrt, mode), file)

    def __repr__(self):
        return f"<s2sad.differentiate {self.__s2sad_original__.__qualname__} argnums={self.argnums}>"


def differentiate(function=None, *, argnums=0):
    """Mark a function for differentiation: ``@differentiate`` or ``@differentiate(argnums=(0, 1))``."""
    if function is None:
        return lambda f: Differentiated(f, argnums)
    return Differentiated(function, argnums)


def show(function, argnums=0, mode: str = "reverse", file=None, unoptimized: bool = False) -> None:
    """Print the code s2sad generates for ``function`` (``mode="forward"``: its pushforward).

    ``unoptimized=True`` prints first the plain translation (every value differentiated, every
    rule called rather than inlined), then the code s2sad runs, to read one next to the other.
    """
    if isinstance(function, Differentiated):
        argnums, function = function.argnums, function.__s2sad_original__
    names = list(_signature_of(_unwrap(function)).parameters)
    numbers = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    wrt = tuple(names[n] for n in sorted(numbers))
    if unoptimized and mode == "reverse":
        present("# ---- before optimisation: every value differentiated, every rule called as a function\n"
                + transform(_unwrap(function), wrt, mode, optimize=False).source, file)
        present("# ---- after optimisation: the code s2sad runs\n", file)
    present(generated_source(function, wrt, mode), file)
