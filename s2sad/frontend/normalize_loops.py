"""Loops: ``for`` and ``while``, and comprehensions, which become the loop they stand for.

A loop carries a user variable from one iteration to the next when its body assigns it
and it is alive outside the body: the variable gets one loop name, copied in before the
loop (or reused in place when nothing has read it yet: ``reusable``) and written back by
a back edge at the end of each iteration. A ``for`` loop walks one iterable, several
(``zip``), with a counter (``enumerate``) or a dict's values (``.items()``,
``.values()``); a ``while`` loop's test is a block of its own, run before each iteration.
"""
from __future__ import annotations

import builtins

import libcst as cst

from ..errors import UnsupportedSyntaxError
from .ir import Atom, Const, Loop, Operation, Statement, Var
from .normalize_state import RETURN, RETURNED, NormalizerState, atom_name
from .normalize_syntax import assigned_names, called_names, deleted_from, is_pair, names_read_outside, nonlocal_names, target_parts


class LoopNormalizer(NormalizerState):
    def rebound_by_calls(self, node) -> list[str]:
        """The variables the nested functions called in ``node`` rebind (``nonlocal``), and those
        the nested functions they call do: a call in a loop changes them as an assignment would."""
        names, seen, pending = [], set(), [node]
        while pending:
            for called in called_names(pending.pop()):
                function = self.local_functions.get(called)
                if isinstance(function, cst.FunctionDef) and called not in seen:
                    seen.add(called)
                    names += nonlocal_names(function)
                    pending.append(function.body)
        return names

    def keys_deleted(self, node) -> list[str]:
        """The function's own dicts a loop deletes keys of (``del d[k]``): each binds ``d`` to a new
        dict (normalize_mutation.delete_key), so the loop carries ``d`` as if it assigned it."""
        return [name for name in deleted_from(node.body)
                if name in self.current and self.is_own_dict(Var(self.current[name]))]

    def loop(self, node, loop_depth: int, returns: bool = False, private=()) -> Loop:
        """A ``for`` or ``while`` loop, with the variables it carries between iterations.

        A user variable is carried if the body assigns it and it is also alive outside the
        body (assigned before the loop, or read anywhere else in the function). It gets
        one loop name, copied in before the loop (unless it can be reused in place) and
        written back at the end of each iteration, so the code after the loop reads its
        last value.
        """
        location = self.source.location(node)
        iteration = self.iteration(node) if isinstance(node, cst.For) else None
        assigned = list(dict.fromkeys(assigned_names(node) + self.rebound_by_calls(node) + self.keys_deleted(node)))
        assigned += [RETURNED, RETURN] if returns else []
        outside = names_read_outside(self.source.funcdef, node)
        loop_names = {}
        walked = {atom.name for atom in (iteration[0] if iteration else []) if isinstance(atom, Var)}
        # An enclosing loop's name is never reused: the enclosing loop would lose its back
        # edge, and with it the variable from its carried ones (which its tape must not
        # save under the name the code after it reads).
        enclosing = {name for names in self.loop_names for name in names.values()}
        for user_name in assigned:
            if user_name in private:
                continue  # a comprehension's own variable: not seen after it
            if user_name in self.current and self.current[user_name] not in walked \
                    and self.current[user_name] not in enclosing \
                    and self.reusable(self.current[user_name]):  # (`for e in x: x = ...` walks the old x)
                loop_names[user_name] = self.current[user_name]  # no copy needed: see reusable()
            elif user_name in self.current or user_name in outside:
                entry = Var(self.current[user_name]) if user_name in self.current else Const("None")
                loop_names[user_name] = self.namer.version(user_name)
                self.emit(Operation(loop_names[user_name], "copy", args=[entry]))
                self.current[user_name] = loop_names[user_name]
        setup = self.operations
        self.operations = []
        loop = Loop(location, setup, [], [], [])
        if iteration is None:  # while: the test runs before each iteration
            saved = self.items
            self.items = []
            loop.condition = self.expression(node.test)
            if isinstance(loop.condition, Var):
                self.conditions.add(loop.condition.name)
            self.flush()
            loop.test, self.items = self.items, saved
        else:
            iterables, targets, counter, loop.over_items, _ = iteration
            if counter is not None:
                loop.counter = self.namer.version(counter.value)
                self.current[counter.value] = loop.counter
            for iterable, target in zip(iterables, targets):
                base = target.value if isinstance(target, cst.Name) else self.namer.temporary("item", [atom_name(iterable)])
                element = Operation(self.namer.version(base) if isinstance(target, cst.Name) else base, "element",
                                    args=[iterable])
                loop.elements.append(element)
                self.share_roots(element)  # `for row in x`: each row is a view of x
                self.assign(target, Var(element.target), bind_only=True)
        unpacking = self.operations
        self.operations = []
        self.loop_names.append(loop_names)
        numbered = iteration[4] if iteration is not None else None
        loop.body = self.block(((numbered,) if numbered is not None else ()) + tuple(node.body.body), loop_depth + 1)
        self.loop_names.pop()
        if unpacking:
            loop.body.insert(0, Statement(location, unpacking))
        for user_name, loop_name in loop_names.items():
            if self.current[user_name] != loop_name:
                loop.back_edges.append(Operation(loop_name, "copy", args=[Var(self.current[user_name])]))
            self.current[user_name] = loop_name
        return loop

    def iteration(self, node: cst.For):
        """What a ``for`` loop walks: (iterables, their targets, the counter, over dict items, the
        statement its body begins with: enumerate's ``start`` added to the counter, or None).

        ``enumerate(xs)`` gives a counter, ``zip(xs, ys)`` several iterables walked together,
        ``d.items()`` / ``d.values()`` a dict's values with its keys as the counter.
        """
        target, iterable, counter, numbered = node.target, node.iter, None, None
        if self.builtin_call(iterable, "enumerate", start=True) and is_pair(target) \
                and isinstance(target.elements[0].value, cst.Name):
            counter, target = target.elements[0].value, target.elements[1].value
            if len(iterable.args) == 2:
                counter, numbered = self.counted_from(node, counter, iterable.args[1].value)
            iterable = iterable.args[0].value
        if (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and not iterable.args
                and iterable.func.attr.value in ("items", "values") and counter is None):
            if iterable.func.attr.value == "items" and is_pair(target) and isinstance(target.elements[0].value, cst.Name):
                counter, target = target.elements[0].value, target.elements[1].value
            elif iterable.func.attr.value == "values":
                counter = cst.Name(self.namer.fresh("key"))
            else:
                counter = None
            if counter is not None:
                return [self.expression(iterable.func.value)], [target], counter, True, None
        if self.builtin_call(iterable, "zip") and isinstance(target, (cst.Tuple, cst.List)) \
                and len(target.elements) == len(iterable.args):
            return ([self.expression(arg.value) for arg in iterable.args], [e.value for e in target.elements],
                    counter, False, numbered)
        return [self.expression(iterable)], [target], counter, False, numbered

    def builtin_call(self, node, name: str, start: bool = False) -> bool:
        """``node`` calls the builtin ``name`` (not shadowed), with plain positional arguments
        (and, ``start``, enumerate's: one iterable and its optional ``start``, by name or not)."""
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name
                and name not in self.current and self.env.lookup(name) is getattr(builtins, name) and node.args):
            return False
        if start:
            return (len(node.args) in (1, 2) and not any(arg.star for arg in node.args) and node.args[0].keyword is None
                    and all(arg.keyword is None or arg.keyword.value == "start" for arg in node.args[1:]))
        return all(arg.keyword is None and not arg.star for arg in node.args)

    def counted_from(self, node: cst.For, counter: cst.Name, start: cst.BaseExpression):
        """``for i, v in enumerate(xs, start)``: the loop counts from 0 under a name of its own, and
        its body begins ``i = <that> + start``, ``start`` evaluated once, before the loop."""
        first_node = self.read_back(self.expression(start))
        position = cst.Name(f"_s2sad_position_of_{counter.value}")
        numbered = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(counter)],
                                                       cst.BinaryOperation(position, cst.Add(), first_node))])
        self.source.alias(numbered, node)
        self.source.alias(numbered.body[0], node)
        return position, numbered

    def reusable(self, version: str) -> bool:
        """Whether a loop may carry ``version`` under its own name, overwriting it.

        Safe when nothing has read it yet and the pullback of what defined it does not read
        it either: a parameter, or a copy (``total = 0.0``, ``h = x``).
        """
        if any(version in op.uses() for op in self.emitted) or version in self.conditions:
            return False  # read already, by an operation or as a branch's or loop's condition (the
                          # reverse pass reads a condition when the pullback runs: it must keep its value)
        definitions = [op for op in self.emitted if op.target == version]
        if not definitions:
            return version in self.params
        # every definition a copy: a merge whose other path computed it (x = x / d on one path,
        # x = x on the other) keeps that value for its own pullback, which reads it as `ans`
        return all(op.kind == "copy" for op in definitions)

    def comprehension(self, node, want) -> Atom:
        """``[f(v) for v in xs if c]`` (a generator expression too: it becomes a list, which
        ``sum``, ``np.array`` and the like take alike): the loop that appends each element.
        The list is built under a name of its own, whatever ``want`` asks."""
        if node.for_in.asynchronous is not None:
            raise UnsupportedSyntaxError("async comprehensions cannot be differentiated", self.source.location(node))
        if isinstance(node, cst.GeneratorExp):
            self.check_generator_used_where_made(node)
        built = self.namer.fresh("items" if not isinstance(node, cst.DictComp) else "entries")
        self.emit(Operation(built, "list" if not isinstance(node, cst.DictComp) else "dict", None, []))
        holder = f"_s2sad_{built}"  # how the made-up loop body names the list it fills
        self.current[holder] = built
        if isinstance(node, cst.DictComp):
            target = cst.Subscript(cst.Name(holder), [cst.SubscriptElement(cst.Index(node.key))])
            innermost = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], node.value)])
        else:
            append = cst.Call(cst.Attribute(cst.Name(holder), cst.Name("append")), [cst.Arg(node.elt)])
            innermost = cst.SimpleStatementLine([cst.Expr(append)])
        made = [innermost, innermost.body[0]]

        def loop_for(clause):
            body = [loop_for(clause.inner_for_in)] if clause.inner_for_in is not None else [innermost]
            for condition in reversed(clause.ifs):
                body = [cst.If(condition.test, cst.IndentedBlock(body))]
                made.append(body[0])
            loop = cst.For(clause.target, clause.iter, cst.IndentedBlock(body))
            made.append(loop)
            return loop

        loop = loop_for(node.for_in)
        for made_node in made:
            self.source.alias(made_node, node)
        hidden = {}  # the comprehension's variables do not leak into the function
        clause = node.for_in
        while clause is not None:
            for leaf in target_parts(clause.target):
                if isinstance(leaf, cst.Name) and leaf.value not in hidden:
                    hidden[leaf.value] = self.current.get(leaf.value)
            clause = clause.inner_for_in
        self.flush()
        self.items.append(self.loop(loop, len(self.loop_names), private=set(hidden)))
        for name, version in hidden.items():
            if version is None:
                self.current.pop(name, None)
            else:
                self.current[name] = version
        del self.current[holder]
        return Var(built)
