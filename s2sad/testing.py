"""Checking gradients and rules against finite differences: for users and for rule authors.

Public API:

* ``check_grad(loss, W, b, X, argnums=(0, 1))`` differentiates a user function with
  s2sad and compares the gradient with central finite differences along a random
  direction per argument; it also checks that each gradient has its argument's type,
  shape and dtype, and that s2sad's value is the function's own;
* ``check_rrule(np.tanh, x)`` runs the registered rule of ``np.tanh`` at ``x`` and
  compares its pullback with central finite differences (for rule authors: every rule
  registered with ``defvjp``, ``defderivative``, ``defrrule`` ... can be checked so);
* ``numerical_gradient(f, x)`` is the finite-difference gradient of a scalar function;
* ``check_jvp(f, x)`` and ``check_hvp(energy, x)`` check forward mode and Hessian-vector
  products the same way (``s2sad.check_grads`` runs all three).

>>> import numpy as np
>>> from s2sad.testing import check_grad
>>> def loss(W, x):
...     return np.sum(np.tanh(x @ W) ** 2)
>>> dW = check_grad(loss, np.ones((3, 2)) / 4, np.arange(3.0))      # raises if they differ

How ``check_rrule`` decides: for a random output cotangent ``ct`` and a random direction
``v`` for one argument, the pullback must satisfy ``<pullback(ct), v> == <ct, J v>``, where
``J v`` is the central difference ``(f(x + h v) - f(x - h v)) / 2h`` of the primal run on
float64 (complex128) copies of the arguments. Each argument is checked on its own, so a
failure names the argument. Every cotangent must also have its argument's shape and dtype
(float32 in, float32 out; complex64 in, complex64 out), and an argument without a tangent
space (int, bool, str, an integer array, a tuple of ints) must get ``NO_TANGENT``.
``ZERO`` is accepted for any float or complex argument, and so is ``NO_TANGENT`` where the
rule declares that no gradient flows (a ``None`` slot, or ``nondifferentiable``); finite
differences then check that the derivative is indeed 0 (except for nondifferentiable
functions, which are not probed: they are piecewise constant).

Complex values are vectors of R^2n: directions and cotangents of a complex argument or
output are random complex numbers, and ``<a, b>`` is ``Re(sum(conj(a) * b))``. So a
rule passes when its pullback is the adjoint in that real sense: ``g * conj(f'(z))`` for
a holomorphic ``f``, and the real part of that for a real argument (which must get a real
cotangent of its own dtype).
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

import numpy as np

from . import api
from .jacobians import hvp, jvp
from .containers import as_container, field_of, fields, remade
from .registry import Rule, method_rule, rule_for
from .runtime.accumulate import accumulate, own
from .runtime.projection import project
from .runtime.tangents import NO_TANGENT, ZERO, InplaceableThunk, unthunk

__all__ = ["check_grad", "check_grads", "check_jvp", "check_hvp", "check_rrule", "numerical_gradient"]

# (rtol, atol) by the least precise floating dtype among the inputs and outputs; a complex
# dtype counts as its real part's (complex64 as float32).
TOLERANCES = {
    np.dtype(np.float64): (1e-5, 1e-7),
    np.dtype(np.float32): (2e-3, 1e-4),
    np.dtype(np.float16): (5e-2, 1e-2),
}


def finite_difference_step(dtype) -> float:
    """The central-difference step for a primal whose output is in ``dtype``: ``eps ** (1/3)``.

    The primal is run on float64 copies of the arguments, so this is about 6e-6 unless
    the function itself casts to a narrower dtype (``np.float32(x)``, ``x.astype``).
    """
    return float(np.finfo(dtype).eps) ** (1 / 3)


# ---------------------------------------------------------------- values as trees of leaves


def _is_inexact_leaf(x) -> bool:
    """True for a float or complex number or array: a value with a tangent space."""
    if type(x) is float or type(x) is complex:
        return True
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype.kind in "fc"
    return False


def has_tangent(x) -> bool:
    """True if ``x`` is a float or complex leaf, or a list/tuple holding one."""
    if isinstance(x, (list, tuple)):
        return any(has_tangent(item) for item in x)
    return _is_inexact_leaf(x)


def _leaf_dtype(x):
    if hasattr(x, "dtype"):
        return x.dtype
    return np.dtype(np.complex128) if type(x) is complex else np.dtype(np.float64)


def inexact_dtypes(x):
    if isinstance(x, (list, tuple)):
        return [dtype for item in x for dtype in inexact_dtypes(item)]
    return [_leaf_dtype(x)] if _is_inexact_leaf(x) else []


def least_precise(dtypes):
    """The dtype with the largest epsilon (complex64 ranks with float32)."""
    return max(dtypes, key=lambda dtype: np.finfo(dtype).eps) if dtypes else np.dtype(np.float64)


def random_like(x, rng):
    """A random tangent with ``x``'s structure, shape and dtype (None for leaves without one)."""
    if isinstance(x, (list, tuple)):
        items = [random_like(item, rng) for item in x]
        return items if isinstance(x, list) else tuple(items)
    if not _is_inexact_leaf(x):
        return None
    if type(x) is float:
        return float(rng.standard_normal())
    if type(x) is complex:
        return complex(rng.standard_normal(), rng.standard_normal())
    sample = rng.standard_normal(np.shape(x))
    if x.dtype.kind == "c":
        sample = sample + 1j * rng.standard_normal(np.shape(x))
    sample = sample.astype(x.dtype)
    return x.dtype.type(sample) if isinstance(x, np.generic) else sample


def widened(x):
    """``x`` in float64 (complex128) if it is in a narrower float (complex) dtype."""
    if isinstance(x, (list, tuple)):
        items = [widened(item) for item in x]
        return items if isinstance(x, list) else tuple(items)
    if not _is_inexact_leaf(x) or type(x) is float or type(x) is complex:
        return x
    wide = np.dtype(np.complex128) if x.dtype.kind == "c" else np.dtype(np.float64)
    if x.dtype.itemsize >= wide.itemsize:
        return x
    return wide.type(x) if isinstance(x, np.generic) else x.astype(wide)


def shifted_by(x, step, v):
    """``x + step * v`` leaf by leaf (leaves without a tangent unchanged)."""
    if isinstance(x, (list, tuple)):
        items = [shifted_by(item, step, d) for item, d in zip(x, v)]
        return items if isinstance(x, list) else tuple(items)
    if v is None:
        return x
    if type(x) is float or type(x) is complex:
        return x + step * v
    return x + step * np.asarray(v, dtype=_leaf_dtype(x))


def inner(a, b) -> float:
    """The real inner product ``Re(sum(conj(a) * b))`` of two trees; ZERO, NO_TANGENT and None count as 0."""
    if a is ZERO or a is NO_TANGENT or a is None or b is ZERO or b is NO_TANGENT or b is None:
        return 0.0
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return sum(inner(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
        return 0.0
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        return float(np.sum(np.conj(a.astype(np.complex128)) * b.astype(np.complex128)).real)
    return float(np.sum(a.astype(np.float64) * b.astype(np.float64)))


def _norm(a) -> float:
    return float(np.sqrt(inner(a, a)))


def _describe(x) -> str:
    if isinstance(x, (list, tuple)):
        return f"{type(x).__name__} of {len(x)}"
    if isinstance(x, (np.ndarray, np.generic)):
        return f"{type(x).__name__} {x.dtype}{list(np.shape(x))}"
    return type(x).__name__


def _cotangent_problem(ct, x) -> str | None:
    """Why ``ct`` is not a valid cotangent for the primal ``x`` (None if it is)."""
    if not has_tangent(x):
        return None if ct is NO_TANGENT else f"expected NO_TANGENT for a {_describe(x)} argument, got {_describe(ct)}"
    if ct is ZERO:
        return None
    if ct is NO_TANGENT or ct is None:
        return f"got {ct!r} for a differentiable {_describe(x)} argument"
    if isinstance(x, (list, tuple)):
        if not isinstance(ct, (list, tuple)) or len(ct) != len(x):
            return f"expected a list/tuple of {len(x)} cotangents, got {_describe(ct)}"
        for i, (item_ct, item) in enumerate(zip(ct, x)):
            if not has_tangent(item) and item_ct is ZERO:
                continue
            problem = _cotangent_problem(item_ct, item)
            if problem:
                return f"element {i}: {problem}"
        return None
    if np.shape(ct) != np.shape(x):
        return f"cotangent has shape {np.shape(ct)}, argument has shape {np.shape(x)}"
    ct_dtype = ct.dtype if hasattr(ct, "dtype") else np.result_type(ct)
    if ct_dtype != _leaf_dtype(x):
        return f"cotangent has dtype {ct_dtype}, argument has dtype {_leaf_dtype(x)}"
    return None


# ---------------------------------------------------------------- the checks


def _resolve_rule(f, args) -> tuple[Rule, tuple]:
    if isinstance(f, str):  # a method or property name: check_rrule("T", x)
        if not args:
            raise TypeError("check_rrule with a method name needs the receiver as first argument")
        rule = method_rule(type(args[0]), f)
        if rule is None:
            raise AssertionError(f"no rule for method {type(args[0]).__name__}.{f}")
        return rule, args
    receiver = getattr(f, "__self__", None)
    if receiver is not None and isinstance(receiver, (np.ndarray, np.generic)):  # a bound method: x.sum
        rule = method_rule(type(receiver), f.__name__)
        if rule is None:
            raise AssertionError(f"no rule for method {type(receiver).__name__}.{f.__name__}")
        return rule, (receiver,) + tuple(args)
    rule = rule_for(f)
    if rule is None:
        raise AssertionError(f"no rule registered for {f!r}")
    return rule, tuple(args)


def _parameter_name(rule: Rule, i: int) -> str:
    params = rule.params
    return f"argument {i} ({params[i]!r})" if i < len(params) else f"argument {i}"


def _declares_no_gradient(rule: Rule, i: int, count: int) -> bool:
    """True if the rule says no gradient flows to positional argument ``i`` of ``count`` (nondifferentiable,
    or a None slot; an argument a ``*args`` parameter collects has that parameter's slot)."""
    if rule.nondifferentiable:
        return True
    if rule.kind != "vjp" or rule.signature is None:
        return False
    slots = rule.positional_slots(count)
    return i < len(slots) and rule.declares_none(slots[i][0])


def _checked_unthunk(name, rule, i, cotangent, x):
    """The value of a cotangent; for a thunk, also check that add!! with it equals plain addition."""
    if isinstance(cotangent, InplaceableThunk):
        value = unthunk(cotangent)
        base = np.random.default_rng(1).normal(size=np.shape(x)).astype(np.result_type(value, np.float64))
        buffer = own(base.copy())
        result = accumulate(buffer, cotangent)
        if not np.allclose(result, base + value):
            raise AssertionError(f"rule {name}: {_parameter_name(rule, i)}: accumulating the InplaceableThunk "
                                 "in place differs from adding its value")
        return value
    return unthunk(cotangent)


def check_rrule(f: Callable[..., Any] | str, *args: Any, rtol: float | None = None, atol: float | None = None,
                cotangent: Any = None, directions: Any = None, seed: int = 0, **kwargs: Any) -> tuple[Any, ...]:
    """Check the rule registered for ``f`` at ``args`` against finite differences.

    ``f`` is a function with a registered rule (``np.tanh``), a bound method of an array
    (``x.sum``) or a method/property name with the receiver as first argument
    (``check_rrule("T", x)``). Keyword arguments are passed to ``f`` and are treated as
    constants. ``cotangent`` (the output cotangent) and ``directions`` (one input
    direction per positional argument, None for those without a tangent) default to
    random draws from ``np.random.default_rng(seed)``; give symmetric directions for
    rules that only read one triangle of a symmetric matrix. ``rtol``/``atol`` default
    by the least precise float dtype involved (see ``TOLERANCES``).

    Raises AssertionError naming the rule and the argument that failed. Returns the
    tuple of cotangents the pullback produced (without the leading one for ``f``).

    >>> import numpy as np
    >>> from s2sad.testing import check_rrule
    >>> dx, = check_rrule(np.tanh, np.array([0.1, -0.4]))
    """
    rule, args = _resolve_rule(f, args)
    name = rule.name
    y, pullback = rule.rrule(*args, **kwargs)
    rng = np.random.default_rng(seed)
    if cotangent is None:
        cotangent = random_like(tuple(y) if isinstance(y, tuple) else y, rng)
    if cotangent is None or not has_tangent(y):
        cotangent = ZERO if cotangent is None else cotangent
    cotangents = pullback(cotangent)
    if not isinstance(cotangents, tuple) or len(cotangents) != len(args) + 1:
        count = len(cotangents) if isinstance(cotangents, tuple) else "not a tuple"
        raise AssertionError(f"rule {name}: pullback returned {count} cotangents, expected {len(args) + 1} "
                             f"(one for the function, then one per positional argument)")
    if cotangents[0] is not NO_TANGENT:
        raise AssertionError(f"rule {name}: the first cotangent (the function's own) must be NO_TANGENT")
    # (a slot declaring none is checked by finite differences below, not read: a user's refuses a float)
    cotangents = tuple(NO_TANGENT if _declares_no_gradient(rule, i, len(args)) else _checked_unthunk(name, rule, i, ct, x)
                       for i, (ct, x) in enumerate(zip(cotangents[1:], args)))
    for i, (ct, x) in enumerate(zip(cotangents, args)):
        if ct is NO_TANGENT and _declares_no_gradient(rule, i, len(args)):
            continue  # None in the rule's slot: checked below to be right (a zero derivative)
        problem = _cotangent_problem(ct, x)
        if problem:
            raise AssertionError(f"rule {name}: {_parameter_name(rule, i)}: {problem}")
    if rule.nondifferentiable:
        return cotangents

    dtypes = inexact_dtypes(list(args)) + inexact_dtypes(tuple(y) if isinstance(y, tuple) else y)
    least = np.finfo(least_precise(dtypes)).dtype  # complex64 -> float32
    default_rtol, default_atol = TOLERANCES.get(least, TOLERANCES[np.dtype(np.float64)])
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    args64 = [widened(x) for x in args]
    y64 = rule.function(*args64, **kwargs)  # may stay in a narrower dtype (a cast): step for that
    step = finite_difference_step(least_precise(inexact_dtypes(tuple(y64) if isinstance(y64, tuple) else y64)))

    def probe(i, t, v):
        shifted = list(args64)
        shifted[i] = shifted_by(args64[i], t, v)
        out = rule.function(*shifted, **kwargs)
        return inner(cotangent, tuple(out) if isinstance(out, tuple) else out)

    for i, (ct, x) in enumerate(zip(cotangents, args)):
        if not has_tangent(x):
            continue
        v = directions[i] if directions is not None else random_like(x, rng)
        numeric = (probe(i, step, v) - probe(i, -step, v)) / (2 * step)
        analytic = inner(ct, v)
        scale = max(abs(numeric), abs(analytic), _norm(ct) * _norm(v))
        if not abs(numeric - analytic) <= atol + rtol * scale:
            raise AssertionError(
                f"rule {name}: {_parameter_name(rule, i)}: <pullback(ct), v> = {analytic!r} but finite "
                f"differences give <ct, J v> = {numeric!r} (difference {abs(numeric - analytic):.3g}, "
                f"allowed {atol + rtol * scale:.3g}) at argument {_describe(x)}")
    return cotangents


def numerical_gradient(f: Callable[..., Any], *args: Any, argnums: int | tuple[int, ...] = 0,
                       eps: float | None = None) -> Any:
    """The gradient of the real scalar function ``f`` by central finite differences.

    ``argnums`` is an int (one gradient, shaped like that argument) or a tuple (a tuple of
    gradients). Each gradient is float64, or a Python float for a Python float argument;
    ``f`` is evaluated on float64 copies of the arguments, twice per element. A complex
    argument's gradient is complex128 (a Python complex for a Python complex), following
    s2sad's convention: ``dL/dRe(z) + 1j * dL/dIm(z)``, probing both parts of each element.

    >>> import numpy as np
    >>> from s2sad.testing import numerical_gradient
    >>> bool(np.allclose(numerical_gradient(lambda x: np.sum(x ** 3), np.array([1.0, 2.0])), [3.0, 12.0]))
    True
    """
    single = isinstance(argnums, int)
    argnums = (argnums,) if single else tuple(argnums)
    args64 = [widened(x) for x in args]
    step = finite_difference_step(np.float64) if eps is None else eps

    def value_at(i, x):
        shifted = list(args64)
        shifted[i] = x
        return float(f(*shifted))

    gradients = []
    for i in argnums:
        is_complex = np.iscomplexobj(args64[i])
        base = np.array(args64[i], dtype=np.complex128 if is_complex else np.float64)
        units = (1.0, 1j) if is_complex else (1.0,)
        gradient = np.zeros_like(base)
        for index in np.ndindex(base.shape):
            for unit in units:
                values = []
                for sign in (1, -1):
                    shifted = base.copy()
                    shifted[index] += sign * step * unit
                    values.append(value_at(i, shifted.item() if base.ndim == 0 else shifted))  # a scalar stays a scalar
                gradient[index] += unit * (values[0] - values[1]) / (2 * step)
        if type(args[i]) is float or type(args[i]) is complex:
            gradient = type(args[i])(gradient)
        gradients.append(gradient)
    return gradients[0] if single else tuple(gradients)


# ---------------------------------------------------------------- check_grad: a user function, end to end


def _items(x):
    """The (key, item) pairs of a list, tuple, dict, namedtuple or dataclass."""
    return fields(x)


def _is_container(x) -> bool:
    return fields(x) is not None


def _checkable(x) -> bool:
    """True if check_grad knows how to perturb ``x`` (leaves, and containers of them)."""
    if _is_container(x):
        return all(_checkable(item) for _, item in _items(x))
    return _is_inexact_leaf(x) or isinstance(x, (bool, int, str, np.ndarray, np.generic)) or x is None


def _tree_has_tangent(x) -> bool:
    if _is_container(x):
        return any(_tree_has_tangent(item) for _, item in _items(x))
    return _is_inexact_leaf(x)


def _tree_map(function, x, *others):
    """``function`` applied leaf by leaf to ``x`` and trees of its structure."""
    if _is_container(x):
        return remade(x, [(key, _tree_map(function, item, *[field_of(other, key, index) for other in others]))
                          for index, (key, item) in enumerate(_items(x))])
    return function(x, *others)


def _tree_inexact_dtypes(x):
    if _is_container(x):
        return [dtype for _, item in _items(x) for dtype in _tree_inexact_dtypes(item)]
    return [_leaf_dtype(x)] if _is_inexact_leaf(x) else []


def _tree_inner(gradient, v, x) -> float:
    """``<gradient, v>`` over the leaves of ``x``, both in ``x``'s container."""
    if _is_container(x):
        return sum(_tree_inner(field_of(gradient, key, index), field_of(v, key, index), item)
                   for index, (key, item) in enumerate(_items(x)))
    return inner(gradient, v) if _is_inexact_leaf(x) else 0.0


def _tree_norm(gradient, x) -> float:
    return float(np.sqrt(_tree_inner(gradient, _as_tree(gradient, x), x)))


def _as_tree(gradient, x):
    """A gradient in ``x``'s own structure, for norms."""
    if _is_container(x):
        return remade(x, [(key, _as_tree(field_of(gradient, key, index), item))
                          for index, (key, item) in enumerate(_items(x))])
    return gradient if _is_inexact_leaf(x) else ZERO


def _gradient_problem(gradient, x) -> str | None:
    """Why ``gradient`` does not follow the type, shape and dtype of the argument ``x`` (None if it does)."""
    if _is_container(x):
        if type(gradient) is not type(x):
            return f"expected a {type(x).__name__} (the argument's own container), got {_describe(gradient)}"
        for index, (key, item) in enumerate(_items(x)):
            problem = _gradient_problem(field_of(gradient, key, index), item)
            if problem:
                return f"element {key!r}: {problem}"
        return None
    if not _is_inexact_leaf(x):
        return None if gradient is None or gradient is NO_TANGENT or gradient is ZERO else (
            f"expected None for a {_describe(x)}, got {_describe(gradient)}")
    if type(gradient) is not type(x):
        return f"the gradient is a {_describe(gradient)}, the argument a {_describe(x)}"
    if isinstance(x, np.ndarray):
        if gradient.shape != x.shape:
            return f"the gradient has shape {gradient.shape}, the argument {x.shape}"
        if gradient.dtype != x.dtype:
            return f"the gradient has dtype {gradient.dtype}, the argument {x.dtype}"
    return None


def _argument_names(f, count: int) -> list[str | None]:
    try:
        parameters = list(inspect.signature(getattr(f, "__s2sad_original__", f)).parameters.values())
    except (TypeError, ValueError):
        return [None] * count
    names: list[str | None] = []
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            names.extend(f"{parameter.name}[{i}]" for i in range(count - len(names)))
        elif parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(parameter.name)
    return (names + [None] * count)[:count]


def _is_real_scalar(y) -> bool:
    if isinstance(y, (bool, np.bool_)):
        return False
    if isinstance(y, (int, float, np.integer, np.floating)):
        return True
    return isinstance(y, np.ndarray) and y.ndim == 0 and y.dtype.kind in "iuf"


def check_grad(f: Callable[..., Any], *args: Any, argnums: int | tuple[int, ...] = 0, rtol: float | None = None,
               atol: float | None = None, cotangent: Any = None, directions: Any = None, seed: int = 0,
               **kwargs: Any) -> Any:
    """Check s2sad's gradient of the user function ``f`` at ``args`` against finite differences.

    For each argument in ``argnums`` (an int or a tuple, as for ``s2sad.grad``), the
    gradient ``gx`` s2sad computes must satisfy ``<gx, v> == (f(x + h v) - f(x - h v)) / 2h``
    for a random direction ``v`` with the argument's structure, ``f`` being run on float64
    (complex128) copies of the arguments. Each gradient must also follow its argument: a
    Python float gives a float, an array an array of its shape and dtype (float32 in,
    float32 out), a list, tuple, dict, namedtuple or dataclass that container (None for
    its int and string leaves); and s2sad's value must be
    ``f(*args)``.

    A function with a real scalar output is differentiated with ``s2sad.value_and_grad``;
    any other output (an array, a tuple, a complex number) with ``s2sad.rrule`` and a
    random output cotangent ``ct`` (or ``cotangent``), comparing ``<pullback(ct), v>``
    with ``<ct, J v>``. ``directions`` gives one direction per positional argument
    (None for the others) instead of random ones from ``np.random.default_rng(seed)``.
    Keyword arguments are passed to ``f`` and held constant. ``rtol``/``atol`` default
    by the least precise float dtype involved (see ``TOLERANCES``).

    Raises AssertionError naming the function and the argument that failed. Returns the
    gradient as ``s2sad.grad`` would (one for an int ``argnums``, a tuple for a tuple).

    >>> import numpy as np
    >>> from s2sad.testing import check_grad
    >>> rng = np.random.default_rng(0)
    >>> W, b, X = rng.normal(size=(3, 2)), np.zeros(2), rng.normal(size=(5, 3))
    >>> def loss(W, b, X):
    ...     return np.sum(np.tanh(X @ W + b) ** 2)
    >>> dW, db = check_grad(loss, W, b, X, argnums=(0, 1))
    """
    label = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    single = isinstance(argnums, (int, np.integer)) and not isinstance(argnums, bool)
    numbers = (argnums,) if single else tuple(argnums)
    positions = tuple(int(n) % len(args) if -len(args) <= n < len(args) else n for n in numbers)
    names = _argument_names(f, len(args))

    def argument(i):
        return f"argument {i} ({names[i]!r})" if names[i] else f"argument {i}"

    for i in positions:
        if not isinstance(i, int) or not 0 <= i < len(args):
            raise TypeError(f"check_grad({label}): argnums={argnums!r} does not name one of the {len(args)} arguments")
        if not _checkable(args[i]):
            raise TypeError(f"check_grad({label}): {argument(i)} is a {type(args[i]).__name__}; check_grad perturbs "
                            "floats, complex numbers, NumPy arrays and lists, tuples and dicts of them")

    expected = f(*args, **kwargs)
    rng = np.random.default_rng(seed)
    if _is_real_scalar(expected):
        ct = 1.0
        value, gradient = api.value_and_grad(f, argnums)(*args, **kwargs)
        gradients = (gradient,) if single else tuple(gradient)
    else:
        ct = random_like(tuple(expected) if isinstance(expected, tuple) else expected, rng) if cotangent is None \
            else cotangent
        if ct is None:
            raise AssertionError(f"check_grad({label}): the output ({_describe(expected)}) has no tangent space: "
                                 "nothing to differentiate")
        value, pullback = api.rrule(f, *args, **kwargs)
        every = pullback(ct)
        gradients = tuple(as_container(args[i], project(args[i], every[1 + i])) for i in positions)

    value_problem = _value_problem(value, expected)
    if value_problem:
        raise AssertionError(f"check_grad({label}): s2sad's value differs from {label}(*args): {value_problem}")
    for i, gradient in zip(positions, gradients):
        problem = _gradient_problem(gradient, args[i])
        if problem:
            raise AssertionError(f"check_grad({label}): {argument(i)}: {problem}")

    dtypes = [d for i in positions for d in _tree_inexact_dtypes(args[i])]
    dtypes += _tree_inexact_dtypes(tuple(expected) if isinstance(expected, tuple) else expected)
    least = np.finfo(least_precise(dtypes)).dtype
    default_rtol, default_atol = TOLERANCES.get(least, TOLERANCES[np.dtype(np.float64)])
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    args64 = [_tree_map(widened, x) for x in args]
    y64 = f(*args64, **kwargs)
    step = finite_difference_step(least_precise(_tree_inexact_dtypes(tuple(y64) if isinstance(y64, tuple) else y64)))

    def probe(i, t, v):
        shifted = list(args64)
        shifted[i] = _tree_map(lambda leaf, d: leaf if d is None else shifted_by(leaf, t, d), args64[i], v)
        out = f(*shifted, **kwargs)
        return inner(ct, tuple(out) if isinstance(out, tuple) else out)

    for i, gradient in zip(positions, gradients):
        x = args[i]
        if not _tree_has_tangent(x):
            continue
        v = directions[i] if directions is not None else _tree_map(lambda leaf: random_like(leaf, rng), x)
        numeric = (probe(i, step, v) - probe(i, -step, v)) / (2 * step)
        analytic = _tree_inner(gradient, v, x)
        v_norm = float(np.sqrt(_tree_inner(v, v, x)))
        scale = max(abs(numeric), abs(analytic), _tree_norm(gradient, x) * v_norm)
        if not abs(numeric - analytic) <= atol + rtol * scale:
            raise AssertionError(
                f"check_grad({label}): {argument(i)}: <gradient, v> = {analytic!r} but finite differences give "
                f"{numeric!r} along a random direction v (difference {abs(numeric - analytic):.3g}, allowed "
                f"{atol + rtol * scale:.3g}) at {_describe(x)}")
    return gradients[0] if single else gradients


def _value_problem(value, expected) -> str | None:
    if isinstance(expected, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(expected):
            return f"got {_describe(value)}, expected {_describe(expected)}"
        for index, (a, b) in enumerate(zip(value, expected)):
            problem = _value_problem(a, b)
            if problem:
                return f"element {index}: {problem}"
        return None
    if isinstance(expected, dict):
        return None if isinstance(value, dict) and value.keys() == expected.keys() and all(
            _value_problem(value[k], expected[k]) is None for k in expected) else "the dicts differ"
    try:
        same = np.shape(value) == np.shape(expected) and np.allclose(value, expected, rtol=1e-6, atol=1e-12,
                                                                     equal_nan=True)
    except TypeError:
        same = value == expected
    return None if same else f"{value!r} instead of {expected!r}"


# ---------------------------------------------------------------- forward mode and second order


def _leaf_positions(f, args, argnums, check: str) -> list[int]:
    label = getattr(f, "__qualname__", None) or repr(f)
    positions = [int(n) % len(args) if -len(args) <= n < len(args) else n for n in argnums]
    for i in positions:
        if not isinstance(i, int) or not 0 <= i < len(args):
            raise TypeError(f"{check}({label}): argnums={tuple(argnums)!r} does not name one of the {len(args)} arguments")
        if not _is_inexact_leaf(args[i]):
            raise TypeError(f"{check}({label}): argument {i} is a {type(args[i]).__name__}; {check} perturbs float "
                            "and complex numbers and arrays")
    return positions


def _tolerances(rtol, atol, values) -> tuple[float, float]:
    least = np.finfo(least_precise([d for x in values for d in _tree_inexact_dtypes(x)])).dtype
    default_rtol, default_atol = TOLERANCES.get(least, TOLERANCES[np.dtype(np.float64)])
    return (default_rtol if rtol is None else rtol), (default_atol if atol is None else atol)


def _agree(label, what, numeric, analytic, scale, rtol, atol) -> None:
    if not abs(numeric - analytic) <= atol + rtol * scale:
        raise AssertionError(f"{label}: {what} = {analytic!r} but finite differences give {numeric!r} "
                             f"(difference {abs(numeric - analytic):.3g}, allowed {atol + rtol * scale:.3g})")


def check_jvp(f: Callable[..., Any], *args: Any, argnums: tuple[int, ...] = (0,), rtol: float | None = None,
              atol: float | None = None, seed: int = 0) -> None:
    """Check ``s2sad.jvp(f, args, tangents)`` against central finite differences.

    For each argument in ``argnums`` (float or complex numbers and arrays) and a random
    direction ``v``, the output tangent ``J v`` must satisfy ``<ct, J v> == <ct, (f(x + h v)
    - f(x - h v)) / 2h>`` for a random output cotangent ``ct``, ``f`` run on float64 copies.
    Raises AssertionError naming the function and argument.

    >>> import numpy as np
    >>> from s2sad.testing import check_jvp
    >>> check_jvp(np.sin, np.array([0.1, 0.2]))
    """
    label = f"check_jvp({getattr(f, '__qualname__', None) or repr(f)})"
    positions = _leaf_positions(f, args, argnums, "check_jvp")
    rng = np.random.default_rng(seed)
    args64 = [widened(x) for x in args]
    y64 = f(*args64)
    ct = random_like(tuple(y64) if isinstance(y64, tuple) else widened(y64), rng)
    step = finite_difference_step(np.float64)
    rtol, atol = _tolerances(rtol, atol, [args[i] for i in positions])
    for i in positions:
        v = random_like(args[i], rng)
        tangents = tuple(v if j == i else None for j in range(len(args)))
        _, tangent = jvp(f, args, tangents)
        analytic = inner(ct, tuple(tangent) if isinstance(tangent, tuple) else tangent)

        def probe(t):
            shifted = list(args64)
            shifted[i] = shifted_by(args64[i], t, v)
            out = f(*shifted)
            return inner(ct, tuple(out) if isinstance(out, tuple) else out)

        numeric = (probe(step) - probe(-step)) / (2 * step)
        scale = max(abs(numeric), abs(analytic), _norm(ct) * _norm(tangent if not isinstance(tangent, tuple)
                                                                     else list(tangent)))
        _agree(label, f"argument {i}: <ct, J v>", numeric, analytic, scale, rtol, atol)


def check_hvp(f: Callable[..., Any], *args: Any, argnums: tuple[int, ...] = (0,), rtol: float | None = None,
              atol: float | None = None, seed: int = 0) -> None:
    """Check ``s2sad.hvp`` of a real scalar ``f`` against central differences of its gradient.

    For each argument in ``argnums`` and random vectors ``v`` and ``w``, ``<w, H v>`` must equal
    ``<w, (grad f(x + h v) - grad f(x - h v)) / 2h>``. A function s2sad cannot take to
    second order raises the S2SADError saying why.

    >>> import numpy as np
    >>> from s2sad.testing import check_hvp
    >>> check_hvp(lambda x: np.sum(np.sin(x) ** 2), np.array([0.1, 0.2]))
    """
    label = f"check_hvp({getattr(f, '__qualname__', None) or repr(f)})"
    positions = _leaf_positions(f, args, argnums, "check_hvp")
    if not _is_real_scalar(f(*args)):
        raise TypeError(f"{label}: second derivatives are checked for a function with a real scalar output "
                        f"(a Hessian-vector product), not {_describe(f(*args))}")
    rng = np.random.default_rng(seed)
    args64 = [widened(x) for x in args]
    step = finite_difference_step(np.float64)
    rtol, atol = _tolerances(rtol, atol, [args[i] for i in positions])
    floats = [j for j, x in enumerate(args) if _is_inexact_leaf(x)]
    for i in positions:
        v, w = random_like(args[i], rng), random_like(args[i], rng)
        tangents = [v if j == i else _zero_like(x) for j, x in enumerate(args)]
        products = hvp(f, args, tangents)
        product = products[floats.index(i)] if isinstance(products, tuple) else products
        analytic = inner(w, product)

        def probe(t):
            shifted = list(args64)
            shifted[i] = shifted_by(args64[i], t, v)
            return inner(w, api.grad(f, argnums=i)(*shifted))

        numeric = (probe(step) - probe(-step)) / (2 * step)
        scale = max(abs(numeric), abs(analytic), _norm(w) * _norm(product))
        _agree(label, f"argument {i}: <w, H v>", numeric, analytic, scale, rtol, atol)


def _zero_like(x):
    if not _is_inexact_leaf(x):
        return x
    return type(x)(0) if type(x) in (float, complex) else np.zeros_like(x)  # (not 0.0 * x: NaN of an inf)


# ---------------------------------------------------------------- autograd's check_grads

def check_grads(f: Callable[..., Any], argnums: int | tuple[int, ...] = 0, modes: Sequence[str] = ("fwd", "rev"),
                order: int = 1, rtol: float | None = None, atol: float | None = None) -> Callable[..., None]:
    """autograd's ``check_grads(f, argnum, modes, order)(*args)``: check s2sad's derivatives of
    ``f`` with respect to the arguments ``argnums`` (an int or a tuple) against central finite
    differences, raising AssertionError on a mismatch.

    ``"rev"`` checks the gradient (``s2sad.testing.check_grad``), ``"fwd"`` a jvp along a
    random direction. ``order=2`` also checks second derivatives as Hessian-vector products
    of a real scalar ``f`` (forward over reverse: ``s2sad.hvp``) against finite differences
    of its gradient; a function s2sad cannot take to second order is an S2SADError saying
    why. autograd's default order is 2; s2sad's is 1.

    >>> import numpy as np, s2sad
    >>> def energy(x):
    ...     return np.sum(np.sin(x) * x ** 2)
    >>> s2sad.check_grads(energy, modes=("fwd", "rev"), order=2)(np.array([0.3, -1.2]))
    """
    if isinstance(argnums, (str, list)) or isinstance(argnums, tuple) and any(isinstance(n, str) for n in argnums):
        raise TypeError(f"check_grads: argnums={argnums!r}; pass the modes by name: check_grads(f, modes={argnums!r})")
    modes = (modes,) if isinstance(modes, str) else tuple(modes)
    unknown = [mode for mode in modes if mode not in ("fwd", "rev")]
    if unknown or not modes:
        raise ValueError(f"check_grads: modes are 'fwd' and 'rev', not {unknown or modes!r}")
    if order not in (1, 2):
        raise ValueError(f"check_grads: order is 1 or 2, not {order!r}")
    numbers = (argnums,) if isinstance(argnums, (int, np.integer)) else tuple(argnums)

    def check(*args: Any) -> None:
        if "rev" in modes:
            check_grad(f, *args, argnums=argnums, rtol=rtol, atol=atol)
        if "fwd" in modes:
            check_jvp(f, *args, argnums=numbers, rtol=rtol, atol=atol)
        if order == 2:
            check_hvp(f, *args, argnums=numbers, rtol=rtol, atol=atol)

    return check
