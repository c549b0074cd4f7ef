"""The exceptions s2sad raises, and how they point at the user's source."""
from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    """A place in the user's source: file, 1-based line and column, and the line's text."""

    filename: str
    line: int
    column: int
    text: str = ""

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}"


class S2SADError(Exception):
    """Base class of every error s2sad raises on purpose.

    When the error is about a place in the user's code, ``location`` names it and the
    message is printed compiler-style: ``file:line:col: error: message``, the source
    line, a caret under the column, then a hint saying what to do. ``message``,
    ``location`` and ``hint`` are attributes too.

    >>> import numpy as np, s2sad
    >>> def f(x):
    ...     return np.sum(x ** 2)
    >>> try:
    ...     s2sad.grad(f)(3)                     # an int has no derivative
    ... except s2sad.S2SADError as error:
    ...     print(type(error).__name__, "|", error.message)
    ArgumentError | cannot differentiate with respect to argument 'x': it is an int (3): ints are discrete, they have no derivative
    """

    def __init__(self, message: str, location: SourceLocation | None = None, hint: str = ""):
        if location is not None and location.filename.rsplit("/", 1)[-1].startswith("s2sad_"):
            from .tracebacks import beneath_generated  # (tracebacks imports this module)
            found = beneath_generated(location)
            if found is not location:  # the user's line; the generated one in the hint, for debugging
                hint = f"{hint}{' ' if hint else ''}(s2sad met it at {location} in the code it generated " \
                       f"from that line, for a derivative of a derivative: {location.text.strip()})"
                location = found
        self.message = message
        self.location = location
        self.hint = hint
        self.reached_from: list[SourceLocation] = []  # the user's lines whose calls led there, innermost first
        super().__init__(self.render())

    def reached(self, location: SourceLocation) -> None:
        """Name ``location``, the user's line whose call led to this error's place (in a function
        the user did not write, such as the standard library's, differentiated from its source)."""
        if location != self.location and location not in self.reached_from:
            self.reached_from.append(location)
            self.args = (self.render(),)

    def render(self) -> str:
        head = f"{self.location}: error: {self.message}" if self.location else f"error: {self.message}"
        lines = [head]
        if self.location and self.location.text:
            lines.append("    " + self.location.text)
            lines.append("    " + " " * max(self.location.column - 1, 0) + "^")
        for place in getattr(self, "reached_from", ()):
            lines.append(f"  reached from {place}: {place.text.strip()}")
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)


class UnsupportedSyntaxError(S2SADError):
    """The function uses Python that s2sad does not differentiate (raised by the fence).

    >>> import s2sad
    >>> def remember(x):
    ...     global last
    ...     last = x
    ...     return x
    >>> try:
    ...     s2sad.grad(remember)(1.0)
    ... except s2sad.UnsupportedSyntaxError as error:
    ...     print(error.message, "at line", error.location.line - remember.__code__.co_firstlineno)
    `global` declarations are not supported at line 1
    """


class SourceUnavailableError(S2SADError):
    """The function's source cannot be read (builtin, C extension, REPL, exec).

    >>> import s2sad
    >>> double = eval("lambda x: 2.0 * x")      # no file to read it from
    >>> try:
    ...     s2sad.grad(double)(1.0)
    ... except s2sad.SourceUnavailableError as error:
    ...     print(error.message)
    cannot read the source of <lambda> (defined in <string>): could not get source code
    """


class MissingRuleError(S2SADError):
    """A call has no registered rule and no Python source s2sad could transform.

    ``s2sad rules PATTERN`` lists the rules there are; ``s2sad.defvjp`` or
    ``s2sad.defderivative`` registers one.

    >>> import numpy as np, s2sad
    >>> def f(x):
    ...     return np.polynomial.hermite.hermval(x, [1.0, 2.0])
    >>> try:
    ...     s2sad.grad(f)(0.5)
    ... except s2sad.MissingRuleError as error:
    ...     print(error.message)
    no rule for `np.polynomial.hermite.hermval` (numpy.polynomial.hermite.hermval), and it has no Python source to differentiate
    """


class UnsupportedArgumentsError(MissingRuleError, NotImplementedError):
    """A rule exists, but not for these arguments (``np.einsum``'s interleaved form, ``np.pad``'s
    mode='empty'): raised as the rule runs, and located at the user's line like any s2sad error."""


class NonFiniteDerivativeError(S2SADError):
    """The derivative came out NaN although the value and the seeds were finite (see finiteness.py)."""


class ArgumentError(S2SADError):
    """A bad ``argnums``/``wrt``, a non-scalar output for ``grad``, a non-float input.

    >>> import numpy as np, s2sad
    >>> def f(x):
    ...     return x ** 2
    >>> try:
    ...     s2sad.grad(f)(np.ones(2))
    ... except s2sad.ArgumentError as error:
    ...     print(error.message)
    grad of f needs a scalar output, but it returned an array of shape (2,)
    """


class ComplexDtypeError(ArgumentError, TypeError):
    """A complex output where a real one is differentiated (``grad`` of a complex function
    without ``holomorphic=True``), or a real input or output with ``holomorphic=True``.
    A ``TypeError``, as JAX and autograd raise for the same calls.

    >>> import s2sad
    >>> def square(z):
    ...     return z ** 2
    >>> try:
    ...     s2sad.grad(square)(1.0 + 2.0j)
    ... except TypeError as error:
    ...     print(error.message)
    grad of square needs a real output, but it returned complex
    >>> s2sad.grad(square, holomorphic=True)(1.0 + 2.0j)        # f'(z) = 2 z
    (2+4j)
    """


class RuleError(S2SADError):
    """A rule broke its contract (wrong number of cotangents, wrong shape).

    >>> import s2sad
    >>> @s2sad.custom_vjp
    ... def first(x, y):
    ...     return x
    >>> first.defvjp(lambda x, y: (x, None), lambda residuals, g: (g,))    # one cotangent short
    >>> def f(x):
    ...     return first(x, 1.0)
    >>> try:
    ...     s2sad.grad(f)(1.0)
    ... except s2sad.RuleError as error:
    ...     print(error.message)
    the bwd of `first` returned 1 cotangents for its 2 argument(s)
    """


def handled_exception(caught: BaseException, handler: str) -> UnsupportedSyntaxError:
    """The error generated code raises when an exception is raised in a ``try`` block whose
    ``except`` (at ``handler``) would handle it: s2sad differentiates the path where nothing is
    raised, and refuses the handler's path rather than differentiate it as something else."""
    return UnsupportedSyntaxError(
        f"{type(caught).__name__}: {caught} was raised in a `try` block, and the `except` at {handler} would "
        "handle it: s2sad differentiates the path of a `try` where nothing is raised, not the handler's",
        hint="test the condition before the call (if ...: else:) so that both paths are code s2sad differentiates")


def untaken_branch_error(kind: str, message: str, filename: str, line: int, column: int, hint: str) -> S2SADError:
    """The error generated code raises when it takes a branch s2sad refused when it transformed the
    function (frontend/untaken.py): the refusal itself (of its class ``kind``), at the user's line,
    raised only now."""
    taken = "this branch was refused when the function was transformed, and this call took it"
    error_class = next((c for c in _refusal_classes() if c.__name__ == kind), UnsupportedSyntaxError)
    return refusal_at(error_class, message, filename, line, column, f"{taken}; {hint}" if hint else taken)


def refusal_at(error_class: type, message: str, filename: str, line: int, column: int, hint: str) -> S2SADError:
    """An error of ``error_class`` at the user's line, for generated code to raise as it runs (where
    only the line's file and numbers were written into the code)."""
    text = linecache.getline(filename, line).rstrip("\n")
    return error_class(message, SourceLocation(filename, line, column, text), hint=hint)


def _refusal_classes():
    classes, stack = [], [S2SADError]
    while stack:
        error_class = stack.pop()
        classes.append(error_class)
        stack.extend(error_class.__subclasses__())
    return classes


class RefusedBranchWarning(UserWarning):
    """A branch of a differentiated function was refused: the function is differentiated on its
    other paths, and raises the refusal if a call takes that branch.

    >>> import warnings
    >>> import numpy as np, s2sad
    >>> def checked(x):
    ...     if x.ndim != 1:
    ...         x.sort()                         # in place on an argument: refused
    ...     return np.sum(x ** 2)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     s2sad.grad(checked)(np.array([1.0, 2.0]))
    array([2., 4.])
    >>> [w.category.__name__ for w in caught]
    ['RefusedBranchWarning']
    """


class NotCompiledError(S2SADError):
    """What keeps a gradient from compiling with ``compile=True`` (the NumPy path runs instead,
    with a ``CompiledFallbackWarning`` saying this)."""


class CompiledFallbackWarning(UserWarning):
    """``compile=True`` could not compile this gradient: it runs on the NumPy path (the same
    numbers), and the warning, given once per function, says why and where.

    >>> import warnings
    >>> import numpy as np, s2sad
    >>> def loss(x):
    ...     return np.sum(np.abs(x) ** 2)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     s2sad.grad(loss, compile=True)(np.array([1.0, 2.0j]))   # complex: not served
    array([2.+0.j, 0.+4.j])
    >>> [w.category.__name__ for w in caught]
    ['CompiledFallbackWarning']
    """
