"""The calls that pass an object written out as its fields on to a function of the user's (compile=True).

``rnn_loss(params, inputs)`` given a dict reads ``params`` as its entries
(object_layouts.py), and calls ``rnn_predict(params, inputs)``. That call passes nothing but
the entries, so it is read as ``rnn_loss_params(params_W, params_b, inputs)``, where the
module-level name ``rnn_loss_params`` means ``rnn_predict`` with its own parameter written out
the same way (specialisation.py binds it, as it binds an object's methods).

Only a plain call is read so: the callee a module-level function of the user's, called by its
global name, the object given once, by position, in the callee's positional parameters, with
no ``*args`` before it and no other object written out in the same call. Any other call keeps
the object whole, which objects_written_out.py refuses with its line.
"""
from __future__ import annotations

import ast
import inspect


def calls_passing(function, parameter: str) -> tuple:
    """((callee's global name, position in the call, the callee's parameter there), ...): the
    plain calls in ``function`` (and the functions inside it) passing ``parameter`` on."""
    tree = _tree(function)
    if tree is None:
        return ()
    bound = _names_bound(function.__code__)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in bound):
            continue
        positions = [i for i, arg in enumerate(node.args) if isinstance(arg, ast.Name) and arg.id == parameter]
        if len(positions) != 1 or any(isinstance(arg, ast.Starred) for arg in node.args[:positions[0] + 1]) \
                or any(isinstance(k.value, ast.Name) and k.value.id == parameter for k in node.keywords):
            continue
        callee_parameter = _positional_parameter(function.__globals__.get(node.func.id), positions[0])
        if callee_parameter is not None:
            found.append((node.func.id, positions[0], callee_parameter))
    return tuple(dict.fromkeys(found))


def _tree(function):
    """The ``def`` of ``function``'s source, or None (a lambda, no source)."""
    from .wrappers import function_definition

    definition = function_definition(function)
    return definition if definition is not None and definition.name == function.__name__ else None


def _names_bound(code) -> set:
    """The names ``code`` and the code inside it bind for themselves (a call of one is no global's)."""
    bound, nested = set(), [code]
    while nested:
        inner = nested.pop()
        bound |= set(inner.co_varnames) | set(inner.co_cellvars) | set(inner.co_freevars)
        nested += [c for c in inner.co_consts if inspect.iscode(c)]
    return bound


def _positional_parameter(callee, position: int) -> str | None:
    """The name of ``callee``'s parameter bound by an argument at ``position``, when ``callee`` is
    a module-level function of the user's and that parameter is a plain positional one."""
    from .object_layouts import is_module_level_users

    if not is_module_level_users(callee) or hasattr(callee, "__wrapped__"):  # (a wrapper's code is not the callee's)
        return None
    parameters = list(inspect.signature(callee, follow_wrapped=False).parameters.values())
    if position >= len(parameters):
        return None
    chosen = parameters[position]
    if chosen.kind not in (chosen.POSITIONAL_ONLY, chosen.POSITIONAL_OR_KEYWORD) \
            or any(p.kind is p.VAR_POSITIONAL for p in parameters[:position]):
        return None
    return chosen.name
