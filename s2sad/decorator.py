"""``@s2sad.differentiate`` and ``s2sad.show``: a function marked for differentiation, and the
code s2sad generates for it, to read."""
from __future__ import annotations

import functools
from typing import IO, Any, Callable, overload

from .api import rrule, value_and_grad, vjp
from .display import GeneratedCode, present
from .frontend.resolve import signature as _signature_of, unwrap as _unwrap
from .jacobians import jvp
from .transform import generated_source, transform


class Differentiated:
    """A function marked with ``@differentiate``: calls behave exactly like the original.

    >>> import numpy as np, s2sad
    >>> @s2sad.differentiate(argnums=(0, 1))
    ... def product(x, y):
    ...     return np.sum(x * y)
    >>> product.grad(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    (array([3., 4.]), array([1., 2.]))
    """

    def __init__(self, function: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> None:
        self.__s2sad_original__ = function
        self.argnums = argnums
        self._value_and_grad = None
        functools.update_wrapper(self, function)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__s2sad_original__(*args, **kwargs)

    def __get__(self, instance: Any, owner: Any) -> Any:
        return self if instance is None else BoundDifferentiated(self, instance)

    def grad(self, *args: Any, **kwargs: Any) -> Any:
        """The gradient with respect to the ``argnums`` given to ``@differentiate``."""
        value, gradient = self.value_and_grad(*args, **kwargs)
        return gradient

    def value_and_grad(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """``(value, gradient)``, as ``s2sad.value_and_grad(f, argnums)(*args)``."""
        if self._value_and_grad is None:
            self._value_and_grad = value_and_grad(self.__s2sad_original__, self.argnums)
        return self._value_and_grad(*args, **kwargs)

    def vjp(self, *args: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
        """``(value, pullback)``, as ``s2sad.vjp(f, *args)``."""
        return vjp(self.__s2sad_original__, *args)

    def rrule(self, *args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
        """ChainRules' form: ``(value, pullback)`` with ``pullback(dy) -> (dself, *dargs)``."""
        return rrule(self.__s2sad_original__, *args, **kwargs)

    def jvp(self, primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
        """``(value, tangent)``, as ``s2sad.jvp(f, primals, tangents)``."""
        return jvp(self.__s2sad_original__, primals, tangents)

    @property
    def wrt(self) -> tuple[str, ...]:
        names = list(_signature_of(self.__s2sad_original__).parameters)
        numbers = (self.argnums,) if isinstance(self.argnums, int) else tuple(self.argnums)
        return tuple(names[n] for n in sorted(n % len(names) for n in numbers))

    @property
    def source(self) -> GeneratedCode:
        """The generated primal-plus-pullback code for the default ``argnums`` (renders
        highlighted in Jupyter)."""
        return GeneratedCode(generated_source(self.__s2sad_original__, self.wrt))

    def _repr_html_(self) -> str:
        return self.source._repr_html_()

    def show(self, file: IO[str] | None = None, mode: str = "reverse") -> None:
        """Print the generated code (highlighted on a terminal; HTML in Jupyter)."""
        present(generated_source(self.__s2sad_original__, self.wrt, mode), file)

    def __repr__(self) -> str:
        return f"<s2sad.differentiate {self.__s2sad_original__.__qualname__} argnums={self.argnums}>"


class BoundDifferentiated(functools.partial):
    """``obj.method`` of a method marked with ``@differentiate``: called, it is the method bound
    to ``obj``; its ``.grad``, ``.value_and_grad``, ``.vjp`` and ``.rrule`` are the marked
    function's given ``obj`` first, so ``argnums`` counts the parameters as the ``def`` writes them
    (``self`` is 0: ``@differentiate(argnums=1)`` above ``def energy(self, x)`` differentiates ``x``)."""

    def grad(self, *args: Any, **kwargs: Any) -> Any:
        return self.func.grad(*self.args, *args, **kwargs)

    def value_and_grad(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        return self.func.value_and_grad(*self.args, *args, **kwargs)

    def vjp(self, *args: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
        return self.func.vjp(*self.args, *args)

    def rrule(self, *args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
        return self.func.rrule(*self.args, *args, **kwargs)

    def show(self, file: IO[str] | None = None, mode: str = "reverse") -> None:
        self.func.show(file, mode)

    @property
    def source(self) -> GeneratedCode:
        return self.func.source


@overload
def differentiate(function: Callable[..., Any], *, argnums: int | tuple[int, ...] = 0) -> Differentiated: ...


@overload
def differentiate(function: None = None, *,
                  argnums: int | tuple[int, ...] = 0) -> Callable[[Callable[..., Any]], Differentiated]: ...


def differentiate(function: Callable[..., Any] | None = None, *, argnums: int | tuple[int, ...] = 0) -> Any:
    """Mark a function for differentiation: ``@differentiate`` or ``@differentiate(argnums=(0, 1))``.

    The function is called as before, and gains ``.grad``, ``.value_and_grad``, ``.vjp``,
    ``.jvp``, ``.rrule``, ``.source`` and ``.show()``.

    >>> import numpy as np, s2sad
    >>> @s2sad.differentiate
    ... def energy(x):
    ...     return np.sum(x ** 2)
    >>> energy(np.array([1.0, 2.0])), energy.grad(np.array([1.0, 2.0]))
    (np.float64(5.0), array([2., 4.]))
    """
    if function is None:
        return lambda f: Differentiated(f, argnums)
    return Differentiated(function, argnums)


def show(function: Callable[..., Any], argnums: int | tuple[int, ...] = 0, mode: str = "reverse",
         file: IO[str] | None = None, unoptimized: bool = False) -> None:
    """Print the code s2sad generates for ``function`` (``mode="forward"``: its pushforward).

    ``unoptimized=True`` prints first the plain translation (every value differentiated, every
    rule called rather than inlined), then the code s2sad runs, to read one next to the other.
    ``file`` is where to print (default: standard output, highlighted on a terminal).

    >>> import io, numpy as np, s2sad
    >>> def energy(x):
    ...     return np.sum(x ** 2)
    >>> printed = io.StringIO()
    >>> s2sad.show(energy, file=printed)
    >>> "def energy_pullback(" in printed.getvalue()
    True
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
