"""Forward mode and everything built from both modes: ``jvp``, ``jacfwd``, ``jacrev``,
``hessian`` and ``hvp`` (derivatives of derivatives of scalar functions are ``higher.py``).

* ``jvp(f, primals, tangents)`` runs the generated primal-plus-pushforward function.
* ``jacfwd`` pushes forward one basis tangent per input element; ``jacrev`` pulls back one
  basis cotangent per output element.
* ``hvp(f, primals, tangents)`` differentiates the generated jvp function in reverse mode:
  it is plain Python (no closure, no tape), so s2sad reads it like any user function.
  ``hessian`` is the hvp of each basis tangent.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

import numpy as np

from .api import Argnums, grad, vjp
from .compositions import composable
from .containers import fields, leaves, user_tangent, with_leaves
from .arguments import bind_arguments, collects_arguments, positional_name, differentiated_positions, seed_for, shaped_tangent, split_aux
from .runtime.projection import is_float_like
from .errors import ArgumentError
from .holomorphic import check_complex_inputs, check_outputs, check_real_inputs, conjugated
from .runtime.finiteness import has_nan, refuse_nan
from .runtime.isolation import detached
from .registry.forward import forward_rule
from .runtime.projection import check_differentiable, check_tangent_has_a_space
from .runtime.structure import zeros_like_primal
from .frontend.resolve import transform_kind, unwrap as _unwrap
from .runtime.tangents import ZERO, is_zero, unthunk
from .runtime.calls import held_call
from .tracebacks import POINTING
from .transform import generated_jvp, transformed_forward_call

__all__ = ["jvp", "jacfwd", "jacrev", "jacobian", "hessian", "hvp"]


def jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: bool = False) -> tuple[Any, ...]:
    """``(f(*primals), J @ tangents)``, as JAX's ``jax.jvp``: one tangent per primal (None: zero),
    in one forward pass; ``(output, tangent, aux)`` with ``has_aux``.

    >>> import numpy as np, s2sad
    >>> def cube(x):
    ...     return x ** 3
    >>> s2sad.jvp(cube, (np.array([1.0, 2.0]),), (np.array([1.0, 1.0]),))     # (x**3, 3 x**2 v)
    (array([1., 8.]), array([ 3., 12.]))
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ArgumentError(f"jvp got {len(primals)} primals but {len(tangents)} tangents: give one tangent per primal")
    for i, (p, t) in enumerate(zip(primals, tangents)):
        check_tangent_has_a_space(p, t, f"argument {i}", "jvp")
    tangents = tuple(user_tangent(p, t, f"argument {i}") for i, (p, t) in enumerate(zip(primals, tangents)))  # a dict for a dict
    rule = forward_rule(f) or forward_rule(_unwrap(f))
    if rule is not None:
        # the rule pushes forward at the arguments as given: a function that changes one in place
        # (a transform of such a function) changes the caller's only in the call that gives y
        given = detached(primals)
        y = f(*primals)
        primals = given
        # bound as a call binds its arguments: `*operands` collect their tangents in a tuple
        kept = tuple(t if is_float_like(p) or isinstance(p, (list, tuple)) else ZERO for t, p in zip(tangents, primals))
        given = dict(rule.signature.bind_partial(*kept).arguments)
        tangent_out = shaped_tangent(rule.pushforward(primals, {}, given, y), y)
        if has_nan(tangent_out):
            refuse_nan(tangent_out, y, tangents, f)
        return y, tangent_out
    original, held_args, held_keywords = held_call(f) or (_unwrap(f), (), {})
    # a bound method's object, a partial's arguments: held, not differentiated
    count = len(held_args)
    given, tangents = tuple(held_args) + primals, (ZERO,) * count + tangents
    positions = [i for i, value in enumerate(given) if i >= count and is_float_like(value) and not is_zero(tangents[i])]
    if collects_arguments(original):  # *args, **kwargs: one tangent per argument of the call, as a call is
        for i in positions:
            check_differentiable(given[i], f"argument {i - count}")
        forward = transformed_forward_call(original, positions, ())
        with POINTING:
            y, tangent = forward(tuple(tangents[i] for i in positions), *given, **held_keywords)
    else:
        names, values = bind_arguments(original, given, held_keywords)
        for i in positions:
            check_differentiable(values[i], names[i])
        forward = generated_jvp(original, tuple(names[i] for i in positions))
        with POINTING:
            y, tangent = forward(*values, *(tangents[i] for i in positions))
    output, aux = split_aux(y, has_aux, getattr(f, "__qualname__", repr(f)))
    tangent_out = shaped_tangent(tangent[0] if has_aux and not is_zero(tangent) else tangent, output)
    if has_nan(tangent_out):
        refuse_nan(tangent_out, output, tangents, original)
    return (output, tangent_out, aux) if has_aux else (output, tangent_out)


def _basis(x):
    """Unit tangents for each element of ``x``, in C order, in ``x``'s dtype."""
    if isinstance(x, (float, int)) or np.ndim(x) == 0:
        yield (type(x)(1.0) if isinstance(x, float) else np.ones(np.shape(x), np.result_type(x, np.float32)))
        return
    dtype = x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)
    for index in range(x.size):
        e = np.zeros(x.size, dtype)
        e[index] = 1
        yield e.reshape(x.shape)


def jacfwd(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable[..., Any]:
    """``f`` -> a function giving the Jacobian by forward mode: shape ``out.shape + in.shape``.

    Containers nest as JAX's do: a container output holds, for each of its leaves, the
    argument's container holding one Jacobian per leaf (a tuple of those for several argnums).
    Complex inputs need ``holomorphic=True`` (``TypeError`` otherwise, as in JAX), which gives
    the complex derivative ``df/dz`` of a holomorphic ``f`` and needs complex outputs too.

    >>> import numpy as np, s2sad
    >>> def f(x):
    ...     return np.array([x[0] * x[1], np.sin(x[0])])
    >>> s2sad.jacfwd(f)(np.array([0.0, 2.0]))
    array([[2., 0.],
           [1., 0.]])
    >>> def square(z):
    ...     return z ** 2
    >>> s2sad.jacfwd(square, holomorphic=True)(np.array([1j, 2.0 + 0j]))     # diag(2 z)
    array([[0.+2.j, 0.+0.j],
           [0.+0.j, 4.+0.j]])
    """
    @functools.wraps(_unwrap(f))
    def jacfwd_f(*args):
        name = getattr(f, "__qualname__", repr(f))
        positions = differentiated_positions(argnums, len(args), name)
        if holomorphic:
            check_complex_inputs([args[p] for p in positions], "jacfwd", name)
        else:
            check_real_inputs([args[p] for p in positions], "jacfwd", name)
        _check_differentiated(f, args, positions)
        columns, result = {}, None  # (argument, its leaf) -> per element, the leaves of the output's tangent
        runs = _runs(args)
        for p in positions:
            units = leaves(args[p])
            for j, unit in enumerate(units):
                if not is_float_like(unit):
                    continue
                columns[p, j] = []
                for e in _basis(unit):
                    tangents = [ZERO] * len(args)
                    tangents[p] = with_leaves(args[p], [e if i == j else ZERO for i in range(len(units))])
                    result = jvp(f, next(runs), tangents, has_aux=has_aux)
                    columns[p, j].append(leaves(result[1]))
        if result is None:  # nothing pushed forward (no float leaf, or empty ones): the output from a call
            value = f(*next(runs))
            result = (value[0], None, value[1]) if has_aux else (value, None)
        output = result[0]
        if holomorphic:
            check_outputs(output, "jacfwd", name, holomorphic=True)
        blocks = {(p, j): [_stacked([column[k] for column in per_element], y, leaves(args[p])[j])
                           for k, y in enumerate(leaves(output))] for (p, j), per_element in columns.items()}
        jacobian = _assembled(output, args, positions, isinstance(argnums, int), blocks)
        return (jacobian, result[2]) if has_aux else jacobian

    # holomorphic: not differentiated again, as with has_aux (the compositions' rules are real derivatives)
    return composable(jacfwd_f, "jacfwd", jacfwd, f, argnums, has_aux or holomorphic)


def jacrev(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable[..., Any]:
    """``f`` -> a function giving the Jacobian by reverse mode: shape ``out.shape + in.shape``,
    containers nested as ``jacfwd``'s (``s2sad.jacobian`` is this function).

    Complex outputs need ``holomorphic=True`` (``TypeError`` otherwise, as in JAX), which
    gives the complex derivative ``df/dz`` of a holomorphic ``f`` and needs complex inputs too.
    A real output of complex inputs has rows in ``grad``'s convention (``df/dx + 1j df/dy``).

    >>> import numpy as np, s2sad
    >>> def norm_and_product(x):
    ...     return np.array([np.sum(x ** 2), x[0] * x[1]])
    >>> s2sad.jacrev(norm_and_product)(np.array([1.0, 2.0]))                 # [2 x; (x1, x0)]
    array([[2., 4.],
           [2., 1.]])
    >>> s2sad.jacrev(np.square, holomorphic=True)(np.array([1 + 1j]))        # 2 z
    array([[2.+2.j]])
    """
    @functools.wraps(_unwrap(f))
    def jacrev_f(*args):
        name = getattr(f, "__qualname__", repr(f))
        positions = differentiated_positions(argnums, len(args), name)
        if holomorphic:
            check_complex_inputs([args[p] for p in positions], "jacrev", name)
        _check_differentiated(f, args, positions)
        result = vjp(f, *args, has_aux=has_aux)
        output, pullback = result[0], result[1]
        check_outputs(output, "jacrev", name, holomorphic)
        outputs = leaves(output)
        rows = {}  # (output leaf, argument, argument leaf) -> one row per element of the output leaf
        for k, y in enumerate(outputs):
            if not is_float_like(y):
                continue
            for e in _basis(y):
                cotangents = pullback(with_leaves(output, [e if i == k else None for i in range(len(outputs))]))
                for p in positions:
                    for j, row in enumerate(leaves(cotangents[p])):
                        rows.setdefault((k, p, j), []).append(np.asarray(row))
        blocks = {}
        for p in positions:
            for j, unit in enumerate(leaves(args[p])):
                if is_float_like(unit):
                    blocks[p, j] = [np.stack(rows[k, p, j]).reshape(np.shape(y) + np.shape(unit)) if (k, p, j) in rows
                                    else None if not is_float_like(y) else np.zeros(np.shape(y) + np.shape(unit))
                                    for k, y in enumerate(outputs)]
        jacobian = _assembled(output, args, positions, isinstance(argnums, int), blocks)
        if holomorphic:
            jacobian = conjugated(jacobian)  # rows of conj(df/dz) from s2sad's pullbacks: JAX's df/dz
        return (jacobian, result[2]) if has_aux else jacobian

    return composable(jacrev_f, "jacrev", jacrev, f, argnums, has_aux or holomorphic)


def _check_differentiated(f, args, positions) -> None:
    """A Jacobian with respect to an int, a bool or an integer array is refused, naming the
    argument, as grad refuses it (and JAX's jacrev and jacfwd): it has no tangent space, so its
    Jacobian would be nothing (None) where the caller expects an array."""
    for p in positions:
        check_differentiable(args[p], positional_name(_unwrap(f), p))


def _runs(args):
    """The arguments for each run of a function a Jacobian runs once per element: the caller's
    own the first time, so that a function changing an argument in place leaves the change once,
    as one call does; copies of them as they were given after that."""
    given = detached(args)
    yield args
    while True:
        yield detached(given)


def _stacked(columns, y, unit):
    """One Jacobian block from its columns: shape ``y.shape + unit.shape`` (None for an output
    leaf without a tangent space)."""
    if not is_float_like(y):
        return None
    if not columns:
        return np.zeros(np.shape(y) + np.shape(unit))
    return np.stack([np.asarray(c) for c in columns], axis=-1).reshape(np.shape(y) + np.shape(unit))


def _assembled(output, args, positions, single: bool, blocks):
    """The Jacobian in JAX's nesting: ``output``'s container, each of its leaves holding the
    differentiated argument's container (a tuple of them for several argnums) whose leaves are
    ``blocks[argument, argument leaf][output leaf]`` (None for a leaf without a tangent space)."""
    per_output = []
    for k, y in enumerate(leaves(output)):
        per_argument = tuple(with_leaves(args[p], [blocks[p, j][k] if (p, j) in blocks else None
                                                    for j, _ in enumerate(leaves(args[p]))]) for p in positions)
        per_output.append(per_argument[0] if single else per_argument)
    return with_leaves(output, per_output)


jacobian = jacrev


def hvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
    """``(grad f)(primals)`` pushed along ``tangents``: the Hessian-vector product of a scalar ``f``
    (a tuple of them when several primals are floats).

    >>> import numpy as np, s2sad
    >>> def energy(x):
    ...     return np.sum(x ** 3)
    >>> s2sad.hvp(energy, (np.array([1.0, 2.0]),), (np.array([1.0, 1.0]),))     # 6 x v
    array([ 6., 12.])

    Reverse mode over the generated forward code: the gradient of ``<grad f(x), v>``. A
    function without source of its own (a transform's function, a derivative s2sad made) is
    pushed forward through its gradient's rule instead: ``jvp(grad(f), primals, tangents)``.
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ArgumentError(f"hvp got {len(primals)} primals but {len(tangents)} tangents: give one tangent per primal")
    for i, (p, t) in enumerate(zip(primals, tangents)):
        check_tangent_has_a_space(p, t, f"argument {i}", "hvp")
    positions = [i for i, value in enumerate(primals) if is_float_like(value)]
    if not positions:
        raise ArgumentError("hvp is given no float argument: the Hessian-vector product is taken with respect "
                            "to the float (or float array) arguments", None,
                            "pass the argument to move as floats (3.0 rather than 3, x.astype(float))")
    if not _from_source(f):
        gradient = grad(f, argnums=tuple(positions))
        products = jvp(gradient, primals, [t if i in positions else ZERO for i, t in enumerate(tangents)])[1]
        return tuple(products) if len(positions) > 1 else products[0]
    original = _unwrap(f)
    given_tangents = [user_tangent(primals[i], tangents[i], f"argument {i}") for i in positions]
    if collects_arguments(original):
        # `def wrapper(*args, **kwargs)` (a decorator's): its forward code takes the tangents of the
        # tuple `args` collects, so reverse mode goes through the call generated code makes of it
        (y, dy), pullback = transformed_forward_call(original, positions, ()).rrule(tuple(given_tangents), *primals)
        first = 2  # the pullback gives (NO_TANGENT, the tangents' cotangents, *the arguments')
    else:
        names, values = bind_arguments(original, primals, {})
        forward = generated_jvp(original, tuple(names[i] for i in positions))
        (y, dy), pullback = vjp(forward, *values, *given_tangents)
        first = 0
    name = getattr(f, "__qualname__", repr(f))
    seed_for(y, name)  # a scalar output, or a clear error
    # a ZERO tangent of the output: the gradient does not depend on the inputs (f is linear or
    # constant), so the product is zero; there is nothing to pull back
    cotangents = [ZERO] * (first + len(primals)) if is_zero(dy) else pullback((ZERO, seed_for(dy, name)))
    products = [_materialised(unthunk(cotangents[first + i]), primals[i]) for i in positions]
    if has_nan(products):  # as at first order: a NaN where f and the tangents are finite is refused
        refuse_nan(products, y, tangents, original)
    return tuple(products) if len(positions) > 1 else products[0]


def _from_source(f) -> bool:
    """Whether ``f`` is a Python function s2sad differentiates from its source (not a
    transform's function, a derivative s2sad made, a function with a rule)."""
    if transform_kind(f) is not None or forward_rule(f) is not None or held_call(f) is not None:
        return False
    original = _unwrap(f)
    return inspect.isfunction(original) and forward_rule(original) is None


def _materialised(cotangent, primal):
    """A symbolic zero handed to the user becomes zeros of the primal's shape and dtype."""
    return shaped_tangent(ZERO, primal) if is_zero(unthunk(cotangent)) else cotangent


def hessian(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``f`` -> a function giving the Hessian of a scalar ``f``: shape ``in.shape + in.shape``
    (a tuple of tuples for several ``argnums``), one Hessian-vector product per element; a
    container argument's, ``jacfwd(jacrev(f))`` as in JAX (a dict of dicts for a dict).

    >>> import numpy as np, s2sad
    >>> def energy(x):
    ...     return np.sum(x ** 3)
    >>> s2sad.hessian(energy)(np.array([1.0, 2.0]))                          # diag(6 x)
    array([[ 6.,  0.],
           [ 0., 12.]])
    """
    @functools.wraps(_unwrap(f))
    def hessian_f(*args):
        positions = differentiated_positions(argnums, len(args), getattr(f, "__qualname__", repr(f)))
        if any(fields(args[p]) is not None for p in positions) or not _from_source(f):
            return jacfwd(jacrev(f, argnums), argnums)(*args)  # JAX's definition: containers nest as its do
        blocks = {}
        runs = _runs(args)
        for q in positions:
            columns = {p: [] for p in positions}
            for e in _basis(args[q]):
                # (None for an int label or a string: no tangent space, and a nonzero one is refused)
                tangents = [zeros_like_primal(a) if is_float_like(a) else None for a in args]
                tangents[q] = e
                products = hvp(f, next(runs), tangents)
                float_positions = [i for i, a in enumerate(args) if is_float_like(a)]
                products = products if isinstance(products, tuple) else (products,)
                for p in positions:
                    columns[p].append(np.asarray(products[float_positions.index(p)]))
            for p in positions:
                stacked = np.stack(columns[p], axis=-1)
                blocks[p, q] = stacked.reshape(np.shape(args[p]) + np.shape(args[q]))
        if isinstance(argnums, int):
            return blocks[positions[0], positions[0]]
        return tuple(tuple(blocks[p, q] for q in positions) for p in positions)

    return composable(hessian_f, "hessian", jacfwd, jacrev(f, argnums), argnums)  # differentiated as JAX defines it


