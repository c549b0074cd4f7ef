"""What users write: statement templates the generator drops into its programs.

The core generator (``generator.py``) writes programs in the language s2sad was designed
for. Users write more: fancy indices with repeats and negatives, masks, reversed slices,
writes through views, ``y += v`` on arrays (aliased or not), ``np.add.at``, ``.item()``,
decorators, helpers with function-valued defaults, keyword-only arguments, validation that
raises on a path not taken, complex constants... Each ``Idiom`` is one of these, written
as a few lines of template text:

* ``{out}`` the variable the idiom defines (of kind ``result``, one of generator.SHAPES);
* ``{t}``, ``{t2}``, ``{i}``: fresh scratch names;
* ``{S}``, ``{V}``, ``{U}``, ``{M}``, ``{C}``: an expression of that shape kind, drawn by
  the generator anew at each occurrence (so an idiom never mutates its inputs: in-place
  writes only target names the idiom made itself, from a computed value);
* ``{ARG}``: one of ``f``'s (3,) array parameters, which the idiom writes into (through a
  view, or ``out=``): the caller's array must be left as Python leaves it, or s2sad refuses;
  an array the function makes (``np.cos({V})``) where there is none, or in the helper.

``needs`` names module-level definitions from ``LIBRARY`` the idiom calls (decorated
helpers and the like), written before ``f``. ``real_only`` idioms are left out of complex
programs (comparisons, ``np.maximum``, ``float``). Kinks (masks, ``np.maximum``,
``np.abs``, ``np.clip``, ``np.where`` conditions) are written as ``X > c`` comparisons or
calls with literal thresholds: ``analysis.instrument`` probes them like branch conditions,
so inputs stay ``MARGIN`` away from every kink. Order statistics (sort, median, ptp) and
``np.interp`` read arrays spread apart by constants plus a bounded change (``0.2 * tanh``),
so no tie and no breakpoint comes near.

``IDIOM_FAMILIES`` groups them (``IDIOMS`` is the flat list): besides the above, one value
under two names (chained assignment, a list changed through a second name or while a tuple
or dict holds it, an attribute set through a second name: refusals are fine outcomes, wrong
numbers are not), ``for``/``while ... else``, ``:=`` in tests, ``nonlocal``, ``map`` /
``reversed`` / ``itertools.chain`` consumed at once, constructors that compute, validate or
call ``super().__init__``, ``.sort()`` / ``.fill()`` / ``np.copyto`` on the function's own
arrays, ``x.flat[i]``; and (session 14) indexing as users write it (repeated fancy indices
read and written, masks, ``np.where``, ``take_along_axis``, items picked by ``argmax``/
``argsort``, 0-d arrays), views written then their base read, ``out=``, buffers from
``np.empty_like`` filled in loops, an argument written through a view, linear algebra on
small well-conditioned matrices (a bounded perturbation of a dominant diagonal: no singular
matrix, no repeated eigenvalue nearby), and machine-learning blocks (logsumexp, softmax,
layer norm, one-hot labels, clipping by norm). Session 15 added the structure of published
programs, where earlier wrong numbers clustered: ``params-in-training-loops`` (lists of
``(W, b)`` appended, looped over, rebuilt by comprehensions or written in place; dicts of
parameters updated key by key, by ``-=`` and by comprehension, a view of an entry written),
``classes-and-records`` (``__init__``/``__call__``/``@property``, a method that changes its
object, dataclasses with defaults and ``dataclasses.replace``, namedtuples and
``typing.NamedTuple`` with a method), ``functions-as-values`` (lambda defaults, lambdas in
dicts, closures from factories, ``nonlocal`` state, decorators with arguments and on nested
defs, ``*args``/``**kwargs`` and ``*shape`` forwarding) and ``control-and-collections``
(generator expressions into ``sum``/``max``/``min``, raise and early-return validation,
``while`` loops with a tolerance, lists appended then stacked and written after the append,
tuple-returning helpers unpacked). Tolerance tests compare with a NAME (``> tol``), not a
literal, so the probe leaves them alone (the last iterate is always within ``MARGIN`` of a
literal tolerance); they stop near machine precision, so a change of the iteration count
moves the value far less than the finite-difference tolerance. Session 22 added a bisection choosing
its ends by the test's outcome made a number (``s = float(m * m > t)``, ``hi = s * m + (1 - s) * hi``).
"""
from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Idiom:
    feature: str
    result: str
    lines: tuple
    needs: tuple = ()
    real_only: bool = False
    family: str = ""      # the group of IDIOM_FAMILIES it belongs to (the coverage test wants each one)


def _idiom(feature, result, *lines, needs=(), real_only=False):
    return Idiom(feature, result, lines, needs, real_only)


IDIOM_FAMILIES = {
    # ---- indexing: fancy (repeated, negative), reversed slices, .T / reshape chains
    "indexing": [
        _idiom("fancy-read-repeated", "V", "{out} = {V}[[0, 2, 2]]"),
        _idiom("fancy-read-negative", "U", "{out} = {V}[[-1, 0]]"),
        _idiom("fancy-read-rows", "M", "{out} = {M}[[1, 0]]"),
        _idiom("fancy-read-2d", "U", "{out} = {M}[[0, 1], [2, -1]]"),
        _idiom("negative-index", "S", "{out} = {M}[-1, -2]"),
        _idiom("ellipsis-index", "U", "{out} = {M}[..., 0]"),
        _idiom("negative-step-slice", "U", "{out} = {V}[2:0:-1]"),
        _idiom("reverse-rows", "M", "{out} = {M}[::-1]"),
        _idiom("reverse-columns", "M", "{out} = {M}[:, ::-1]"),
        _idiom("transpose-reshape", "M", "{out} = {M}.T.reshape(2, 3)"),
        _idiom("reshape-minus-one", "V", "{out} = {M}.reshape(-1)[1:4]"),
        _idiom("transpose-ravel", "V", "{out} = np.ravel({M}.T)[::2]"),
        _idiom("transpose-chain", "M", "{out} = ({M}.T * {V}[:, None]).T"),
        _idiom("star-shape", "M", "{t} = (2, 3)", "{out} = np.zeros((*{t},)) + {M}.reshape(*{t})"),
    ],
    # ---- masks and kinks
    "masks-and-kinks": [
        _idiom("mask-read", "S", "{t} = {V}", "{out} = np.sum({t}[{t} > 0.0] ** 2)", real_only=True),
        _idiom("mask-multiply", "V", "{t} = {V}", "{out} = {t} * ({t} > 0.25)", real_only=True),
        _idiom("mask-setitem", "V", "{out} = np.sin({V})", "{out}[{out} > 0.5] = 0.0", real_only=True),
        _idiom("np.where-mask", "V", "{t} = {V}", "{out} = np.where({t} > 0.0, {t} ** 2, np.sin({t}))", real_only=True),
        _idiom("np.maximum", "V", "{out} = np.maximum({V}, 0.0)", real_only=True),
        _idiom("np.minimum", "M", "{out} = np.minimum({M}, 0.5)", real_only=True),
        _idiom("np.abs", "U", "{out} = np.abs({U})", real_only=True),
        _idiom("np.clip", "V", "{out} = np.clip({V}, -0.5, 0.5)", real_only=True),
    ],
    # ---- in-place writes: y += v on array names, aliases, views, repeated indices
    "in-place-writes": [
        _idiom("aug-assign-array", "V", "{out} = np.sin({V})", "{out} += {V}"),
        _idiom("aug-assign-array-mul", "M", "{out} = 1.0 + {M}", "{out} *= {M}"),
        _idiom("aug-assign-in-loop", "U", "{out} = np.zeros(2)", "for {i} in range(2):", "    {out} += {U}"),
        _idiom("aug-assign-alias", "V", "{t} = np.tanh({V})", "{out} = {t}", "{t} += {V}", "{out} = {out} * {t}"),
        _idiom("aug-assign-alias-list", "U", "{t} = np.cos({U})", "{t2} = [{t}]", "{t} *= {U}", "{out} = {t2}[0] + {t}"),
        _idiom("view-write", "M", "{out} = np.cos({M})", "{t} = {out}[1:]", "{t} *= 1.0 + 0.5 * np.tanh({S})"),
        _idiom("view-write-row", "M", "{out} = {M} + 0.0", "{t} = {out}[0]", "{t} += {V}"),
        _idiom("view-setitem", "V", "{out} = np.sin({V})", "{t} = {out}[::2]", "{t}[0] = {S}"),
        _idiom("view-write-transpose", "M", "{out} = np.exp(np.tanh({M}))", "{t} = {out}.T", "{t}[0] *= {S}"),
        _idiom("view-write-reshape", "M", "{out} = np.cos({M})", "{t} = {out}.reshape(-1)", "{t}[1:3] += {U}"),
        _idiom("fancy-aug-repeated", "V", "{out} = np.sin({V})", "{out}[[0, 2, 2]] += {V}"),
        _idiom("fancy-set-negative", "V", "{out} = np.cos({V})", "{out}[[-1, 0]] = {U}"),
        _idiom("fancy-mul-repeated", "U", "{out} = np.tanh({U}) + 1.0", "{out}[[1, 1]] *= {U}"),
        _idiom("np.add.at", "V", "{out} = np.zeros(3)", "np.add.at({out}, [0, 2, 2], {V})"),
        _idiom("np.add.at-scalar", "V", "{out} = np.sin({V})", "np.add.at({out}, [1, 1], {S})"),
        _idiom("ufunc-out", "V", "{out} = np.zeros(3)", "np.multiply({V}, {V}, out={out})"),
        # out by position (session 17: the write was missed, a wrong number in every mode; now refused)
        _idiom("ufunc-out-positional", "V", "{out} = np.sin({V})", "np.negative({out}, {out})"),
        _idiom("method-out-positional", "V", "{out} = np.zeros(3)", "np.cos({V}).cumsum(0, None, {out})"),
    ],
    # ---- scalars out of arrays
    "scalars-out-of-arrays": [
        _idiom("item", "S", "{out} = {V}[1].item() * {S}"),
        _idiom("item-of-sum", "S", "{out} = np.sum({M}).item()"),
        _idiom("float-of-array", "S", "{out} = float(np.sum({V}))", real_only=True),
    ],
    # ---- functions as users write them
    "functions": [
        _idiom("weights-loop", "U", "{t} = [({M} @ {M}.T, {U}), (np.eye(2), np.zeros(2))]", "{out} = {U}",
               "for W, b in {t}:", "    {out} = np.tanh(W @ {out} + b)"),
        _idiom("function-default-argument", "V", "{out} = layer({V}) + layer({V}, act=np.sin)", needs=("layer",)),
        _idiom("decorator-scales", "V", "{out} = scaled_sin({V})", needs=("scaled_sin",)),
        _idiom("decorator-forwards", "M", "{out} = traced_square({M}, power=2)", needs=("traced_square",)),
        _idiom("keyword-only-argument", "V", "{out} = shifted({V}, by={S})", needs=("shifted",)),
        _idiom("lambda-default", "U", "{t} = lambda a, b=0.5: np.sin(a) * b", "{out} = {t}({U}) + {t}({U}, b={S})"),
        _idiom("raise-not-taken", "V", "{t} = {V}", "if {t}.shape != (3,):", "    raise ValueError('expected 3 values')",
               "{out} = 2.0 * {t}"),
        _idiom("raise-not-taken-value", "S", "{out} = {S}", "if not np.isfinite({out}):",
               "    raise ValueError('not finite')"),
        _idiom("assert", "U", "{out} = np.cos({U})", "assert {out}.shape == (2,), 'bad shape'"),
        _idiom("np.einsum", "S", "{out} = np.einsum('ij,ij->', {M}, {M})"),
        _idiom("np.linalg.norm", "S", "{out} = np.linalg.norm(1.0 + {V} ** 2)"),
        _idiom("np.float32-constant", "V", "{out} = {V} * np.float32(0.5)"),
        _idiom("np.kron", "S", "{out} = np.sum(np.kron({U}, {V}))"),
        _idiom("np.cross", "V", "{out} = np.cross({V}, {V})"),
        _idiom("np.tensordot", "U", "{out} = np.tensordot({M}, {V}, axes=1)"),
        _idiom("np.linalg.det", "S", "{out} = np.linalg.det(np.eye(2) + 0.3 * np.outer({U}, {U}))"),
        _idiom("np.linalg.solve", "U", "{out} = np.linalg.solve(np.eye(2) + 0.3 * np.outer({U}, {U}), {U})"),
    ],
    # ---- complex numbers in real programs
    "complex-numbers": [
        _idiom("complex-constant", "S", "{out} = np.abs({S} * (1.0 + 2.0j)) ** 2"),
        _idiom("complex-exp", "V", "{out} = np.real(np.exp(1j * {V}))"),
        _idiom("complex-imag", "S", "{out} = ({S} * (0.5 + 1j)).imag"),
        _idiom("complex-conj", "U", "{t} = {U} * (1.0 - 0.5j)", "{out} = np.real({t} * np.conj({t}))"),
        _idiom("np.fft.fft", "V", "{out} = np.abs(np.fft.fft({V})) ** 2"),
    ],
    # ---- objects the function makes and changes, classes defined inside, tuple swaps
    "objects": [
        _idiom("attribute-assign", "V", "{t} = Box({V}, {S})", "{t}.a = {t}.a * {S} + {V}", "{t}.b += {S}",
               "{out} = {t}.a * {t}.b", needs=("Box",)),
        _idiom("attribute-assign-loop", "V", "{t} = Box(np.sin({V}), {S})", "for {i} in range(2):",
               "    {t}.a = np.cos({t}.a) * {t}.b", "    {t}.b = {t}.b * 0.5", "{out} = {t}.a", needs=("Box",)),
        _idiom("attribute-assign-branch", "U", "{t} = Box({U}, {S})", "if {t}.a.shape == (2,):", "    {t}.a = {t}.a * {S}",
               "else:", "    {t}.b = {t}.b * 2.0", "{out} = {t}.a + {t}.b", needs=("Box",)),
        _idiom("attribute-assign-second-name", "V", "{t} = Box({V}, {S})", "{t2} = {t}", "{t}.a = np.sin({V})",
               "{out} = {t2}.a * {t}.a", needs=("Box",)),
        _idiom("attribute-assign-copy", "V", "{t} = Box({V}, {S})", "{t2} = copy.copy({t})", "{t2}.a = np.tanh({V})",
               "{out} = {t2}.a + {t}.a", needs=("Box", "copy")),
        _idiom("local-class", "V", "class Scale:", "    factor = 1.5", "    def apply(self, v):",
               "        return v * self.factor", "{out} = Scale().apply({V})"),
        _idiom("tuple-swap-in-place", "V", "{t} = np.sin({V})", "{t2} = np.cos({V})", "for {i} in range(2):",
               "    {out} = {t2}.copy()", "    {out}[0] = 2.0 * {t2}[0] - {t}[0]", "    {t}, {t2} = {t2}, {out}"),
        _idiom("list-slot-then-write", "V", "{t} = [np.sin({V}), np.cos({V})]", "{t}[0] = np.tanh({V})",
               "{out}, {t2} = {t}", "{out} += {V}", "{out} = {out} + {t}[0]"),
        _idiom("refused-branch-not-taken", "V", "{out} = np.sin({V})", "if {out}.shape == (7, 7):", "    {out}.sort()"),
        _idiom("closure-in-a-list", "V", "{t} = [np.tanh, lambda v: v * {S} + {V}]", "{out} = {V}", "for {i} in {t}:",
               "    {out} = {i}({out})"),
        _idiom("closure-to-a-helper", "V", "{out} = apply_twice(lambda v: np.sin(v) * {S}, {V})", needs=("apply_twice",)),
    ],
    # ---- functions passed by name: a model given to a solver, an activation to a layer
    "functions-passed": [
        _idiom("function-passed", "V", "{out} = apply_twice(soft_clip, {V}) + apply_twice(np.sin, {V})",
               needs=("apply_twice", "soft_clip")),
        _idiom("function-passed-positionally", "U", "{out} = layer({U}, soft_clip) * layer({U}, np.cos) + layer({U})",
               needs=("layer", "soft_clip")),
        _idiom("model-given-to-a-solver", "V", "{out} = euler_steps(decay_rate, {V}, {S})",
               needs=("euler_steps", "decay_rate")),
        _idiom("solver-given-a-library-function", "S", "{out} = np.sum(euler_steps(np.tanh, {U}, 0.1))",
               needs=("euler_steps",)),
    ],
    # ---- one value under two names: chained assignment, a list changed through a second name
    #      or after a tuple/dict holds it, the last item read before an append, an attribute set
    #      through a second name. A refusal is a fine outcome; a wrong number is not.
    "two-names": [
        _idiom("chained-assign-array", "V", "{out} = {t} = np.zeros(3)", "{t}[1] = {S}", "{out} = {out} * {V}"),
        _idiom("list-append-second-name", "V", "{t} = [np.sin({V})]", "{t2} = {t}", "{t2}.append({V})",
               "{out} = {t}[0] * {t}[-1]"),
        _idiom("chained-assign-array-aug", "V", "{t} = {out} = np.sin({V})", "{out} += {V}", "{out} = {t} * {V}"),
        _idiom("chained-assign-scalar", "S", "{t} = {t2} = 0.0", "{t} = {t} + {S}", "{out} = {t2} * {S} + {t}"),
        _idiom("list-pop-second-name", "V", "{t} = [{V}, np.cos({V})]", "{t2} = {t}", "{out} = {t2}.pop()",
               "{out} = {out} + len({t}) * {t}[-1]"),
        _idiom("last-item-then-append", "V", "{t} = [np.sin({V})]", "for {i} in range(2):", "    {t2} = {t}[-1]",
               "    {t}.append(np.cos({t2}) * {V})", "{out} = {t}[-1] + {t2}"),
        _idiom("chained-assign-list", "V", "{t} = {t2} = []", "{t}.append(np.sin({V}))", "{out} = {t2}[0] * {V}"),
        _idiom("list-extend-second-name", "V", "{t} = [np.tanh({V})]", "{t2} = {t}", "{t2}.extend([{V}, {V}])",
               "{out} = {t}[0] * {t}[1] + {t}[2]"),
        _idiom("list-built-in-a-loop-then-held", "V", "{t} = []", "{t2} = {V}", "for {i} in range(2):",
               "    {t2} = np.tanh({t2} * {S})", "    {t}.append({t2})", "{i} = ({t}, {t2})",
               "{out} = {i}[0][0] + {i}[1] * {i}[0][-1]"),
        _idiom("list-append-held-by-a-tuple", "V", "{t} = [np.sin({V})]", "{t2} = ({t}, {S})", "{t}.append({V})",
               "{out} = {t2}[0][-1] * {t2}[1]"),
        _idiom("attribute-set-through-second-name", "V", "{t} = Box({V}, {S})", "{t2} = {t}",
               "{t2}.a = np.sin({V}) * {t}.b", "{out} = {t}.a + {V}", needs=("Box",)),
        _idiom("list-append-held-by-a-dict", "U", "{t} = [np.cos({U})]", "{t2} = {'xs': {t}}", "{t2}['xs'].append({U})",
               "{out} = {t}[-1] + {t}[0]"),
        _idiom("list-appended-by-a-helper", "V", "{t} = [np.sin({V})]", "append_doubled({t}, {V})",
               "{out} = {t}[-1] + {t}[0]", needs=("append_doubled",)),
        _idiom("list-append-held-by-a-list", "U", "{t} = [np.cos({U})]", "{t2} = [{t}, {U}]", "{t}.append({t2}[1] * {S})",
               "{out} = {t2}[0][-1] + {t}[0]"),
        _idiom("dict-entry-set-through-second-name", "V", "{t} = {'w': np.sin({V})}", "{t2} = {t}",
               "{t2}['w'] = {t2}['w'] * {V}", "{out} = {t}['w'] + {V}"),
        _idiom("attribute-set-by-a-helper", "V", "{t} = Box({V}, {S})", "set_a({t}, np.sin({V}))",
               "{out} = {t}.a * {t}.b", needs=("Box", "set_a")),
        _idiom("attribute-set-through-second-name-plain-class", "S", "{t} = Scaled({S})", "{t2} = {t}",
               "{t2}.w2 = {t2}.w2 * {S}", "{out} = {t}.w2 + {t}.k", needs=("Scaled",)),
        _idiom("attribute-list-appended-through-second-name", "V", "{t} = Box([np.cos({V})], {S})", "{t2} = {t}.a",
               "{t2}.append({V} * {t}.b)", "{out} = {t}.a[0] + {t}.a[-1]", needs=("Box",)),
        _idiom("second-name-from-a-conditional-expression", "V", "{t} = Box({V}, {S})",
               "{t2} = {t} if {t}.a.shape == (3,) else Box({V}, 0.0)", "{t2}.a = {t2}.a * {S}", "{out} = {t}.a + {t2}.a",
               needs=("Box",)),
        _idiom("attribute-set-through-second-name-in-a-loop", "V", "{t} = Box(np.sin({V}), {S})", "for {i} in range(2):",
               "    {t2} = {t}", "    {t2}.a = np.cos({t}.a) * {t2}.b", "{out} = {t}.a", needs=("Box",)),
    ],
    # ---- loops with else, the walrus in a test, nonlocal, lazy iterators consumed at once
    "new-control-flow": [
        _idiom("for-else-counted-break", "V", "{out} = {V}", "for {i} in range(3):", "    {out} = np.sin({out}) * {S}",
               "    if {i} == 1:", "        break", "else:", "    {out} = {out} + 10.0"),
        _idiom("for-else-no-break", "V", "{out} = {V}", "for {i} in range(2):", "    {out} = np.cos({out}) + {V}",
               "    if {i} == 5:", "        break", "else:", "    {out} = {out} * {S}"),
        _idiom("for-else-data-break", "S", "{out} = {S}", "for {i} in range(3):", "    {out} = {out} * 1.5 + {S}",
               "    if {out} > 2.0:", "        break", "else:", "    {out} = np.sin({out})", real_only=True),
        _idiom("while-else", "S", "{out} = {S}", "{t} = 0", "while {t} < 3:", "    {out} = np.cos({out}) * {S}",
               "    {t} += 1", "else:", "    {out} = {out} + {S}"),
        _idiom("while-else-break", "S", "{out} = {S}", "{t} = 0", "while {t} < 4:", "    {out} = np.tanh({out}) + {S}",
               "    {t} += 1", "    if {t} == 2:", "        break", "else:", "    {out} = {out} * 3.0"),
        _idiom("walrus-in-if", "S", "if ({t} := np.sum({V} ** 2)) > 1.0:", "    {out} = {t} * {S}", "else:",
               "    {out} = {t} + {S}", real_only=True),
        _idiom("walrus-in-while", "S", "{out} = {S}", "{i} = 0", "while ({t} := {i} * 0.5) < 1.0:",
               "    {out} = np.sin({out}) + {t} * {S}", "    {i} += 1"),
        _idiom("walrus-in-elif", "V", "{out} = {V}", "if {out}.shape == (7,):", "    {out} = {out} * 0.0",
               "elif ({t} := np.tanh({out})).shape == (3,):", "    {out} = {t} * {S}"),
        _idiom("nonlocal-accumulator", "V", "{t} = {V}", "def {t2}(v):", "    nonlocal {t}", "    {t} = {t} * 0.5 + np.sin(v)",
               "    return {t} * 2.0", "{out} = {t2}({V}) + {t2}({V}) + {t}"),
        _idiom("nonlocal-counter", "S", "{t} = 0", "def {t2}(v):", "    nonlocal {t}", "    {t} += 1",
               "    return np.cos(v) * {t}", "{out} = {t2}({S}) + {t2}({S})"),
        _idiom("nonlocal-of-the-callers-parameter", "V", "def {t2}(v):", "    def {i}(w):", "        nonlocal v",
               "        v = np.sin(v) * w", "    {i}({S})", "    return v", "{out} = {t2}({V})"),
        _idiom("nonlocal-two-functions-out", "S", "{t} = {S}", "def {t2}(v):", "    def {i}(w):", "        nonlocal {t}",
               "        {t} = {t} * w + 0.5", "    {i}(v)", "    return v * 2.0", "{out} = {t2}({S}) + {t}"),
        _idiom("map-sum", "S", "{out} = sum(map(np.sin, [{S}, {S}, {S}]))"),
        _idiom("map-list", "S", "{t} = list(map(np.tanh, [{S}, {S}]))", "{out} = {t}[0] * {t}[1]"),
        _idiom("map-two-iterables-loop", "V", "{out} = np.zeros(3)", "for {t} in map(np.multiply, [{V}, {V}], [{V}, {S}]):",
               "    {out} = {out} + {t}"),
        _idiom("map-lambda-loop", "U", "{out} = {U}", "for {t} in map(lambda v: np.sin(v) * {S}, [{U}, {U}]):",
               "    {out} = {out} * {t}"),
        _idiom("reversed-loop", "V", "{t} = [np.sin({V}), {V}, {S} * {V}]", "{out} = np.zeros(3)", "for {t2} in reversed({t}):",
               "    {out} = {out} * 0.5 + {t2}"),
        _idiom("reversed-list", "S", "{t} = list(reversed([{S}, np.cos({S})]))", "{out} = {t}[0] * 2.0 + {t}[1]"),
        _idiom("reversed-rows", "V", "{out} = np.zeros(3)", "for {t} in reversed({M}):", "    {out} = np.sin({out}) + {t}"),
        _idiom("map-over-rows", "S", "{out} = sum(map(np.sum, {M} ** 2))"),
        _idiom("nonlocal-in-a-loop", "U", "{t} = {U}", "def {t2}(v):", "    nonlocal {t}", "    {t} = np.tanh({t} + v)",
               "for {i} in range(3):", "    {t2}({U} * {i})", "{out} = {t} * 2.0"),
        _idiom("walrus-in-while-else", "S", "{out} = {S}", "{i} = 0", "while ({t} := {i} + 1) < 3:",
               "    {out} = {out} * np.cos({S}) + {t}", "    {i} = {t}", "else:", "    {out} = {out} - {t}"),
        _idiom("itertools.chain-sum", "S", "{out} = sum(itertools.chain([{S}, {S}], [{S}]))", needs=("itertools",)),
        _idiom("itertools.chain-loop", "V", "{out} = {V}", "for {t} in itertools.chain([{V}], [np.tanh({V}), {V}]):",
               "    {out} = np.sin({out}) * {t}", needs=("itertools",)),
    ],
    # ---- classes whose constructor computes, validates, or calls super().__init__
    "constructors": [
        _idiom("constructor-computes", "V", "{t} = Scaled({V}, k=1.0 + {S} ** 2)", "{out} = {t}.apply({V})",
               needs=("Scaled",), real_only=True),
        _idiom("constructor-computes-default", "S", "{out} = Scaled({S}).w2 * {S}", needs=("Scaled",)),
        _idiom("constructor-super-init", "U", "{t} = Shifted({U}, {S})", "{out} = {t}.apply({U}) + {t}.shift",
               needs=("Scaled", "Shifted")),
    ],
    # ---- in-place changes on the function's own arrays
    "own-arrays-changed": [
        _idiom("sort-method", "V", "{out} = np.array([2.0, 0.0, 1.0]) + 0.2 * np.tanh({V})", "{out}.sort()",
               "{out} = {out} * {V}", real_only=True),
        _idiom("sort-method-rows", "M", "{out} = np.array([[1.0, 3.0, 2.0], [0.0, -2.0, 2.0]]) + 0.2 * np.tanh({M})",
               "{out}.sort(axis=1)", real_only=True),
        _idiom("fill-method", "V", "{out} = np.sin({V})", "{out}.fill({S})", "{out} = {out} + {V}"),
        _idiom("fill-method-read-before", "V", "{out} = np.cos({V})", "{t} = {out} * {S}", "{out}.fill(0.5)",
               "{out} = {out} + {t}"),
        _idiom("np.copyto", "V", "{out} = np.zeros(3)", "np.copyto({out}, np.sin({V}))", "{out} = {out} * {V}"),
        _idiom("np.copyto-broadcast", "M", "{out} = np.cos({M})", "np.copyto({out}, {V})"),
        _idiom("np.copyto-where", "V", "{out} = np.cos({V})", "np.copyto({out}, np.sin({V}), where=np.array([True, False, True]))",
               "{out} = {out} * {S}"),
        _idiom("np.copyto-scalar", "U", "{out} = np.tanh({U})", "np.copyto({out}, {S})"),
    ],
    # ---- order statistics and interpolation (inputs spread so no tie or breakpoint is near)
    "order-statistics": [
        _idiom("np.median", "S", "{out} = np.median(np.array([2.0, 0.0, 1.0]) + 0.2 * np.tanh({V}))", real_only=True),
        _idiom("np.median-even", "S",
               "{out} = np.median(np.array([[3.0, 0.0, 5.0], [1.0, 4.0, 2.0]]) + 0.2 * np.sin({M}))", real_only=True),
        _idiom("np.median-axis", "U",
               "{out} = np.median(np.array([[3.0, 0.0, 5.0], [1.0, 4.0, 2.0]]) + 0.2 * np.tanh({M}), axis=1)",
               real_only=True),
        _idiom("np.ptp", "S", "{out} = np.ptp(np.array([2.0, 0.0, 1.0]) + 0.2 * np.tanh({V}))", real_only=True),
        _idiom("np.ptp-axis", "V",
               "{out} = np.ptp(np.array([[3.0, 0.0, 5.0], [1.0, 4.0, 2.0]]) + 0.2 * np.cos({M}), axis=0)",
               real_only=True),
        _idiom("np.interp", "V",
               "{out} = np.interp(np.array([-0.6, 0.1, 0.7]) + 0.05 * np.tanh({V}), [-1.0, -0.25, 0.4, 1.0], "
               "np.cos({M}).reshape(-1)[:4])", real_only=True),
        _idiom("np.interp-scalar", "S", "{out} = np.interp(0.5 + 0.1 * np.tanh({S}), [0.0, 1.0], [{S}, 2.0])",
               real_only=True),
    ],
    # ---- flat indexing
    "flat-indexing": [
        _idiom("flat-read", "S", "{out} = {M}.flat[4] * {S}"),
        _idiom("flat-read-negative", "S", "{out} = np.sin({M}).flat[-1]"),
        _idiom("flat-write", "M", "{out} = np.cos({M})", "{out}.flat[2] = {S}"),
        _idiom("flat-aug-write", "M", "{out} = np.sin({M})", "{out}.flat[1] += {S}", "{out} = {out} * {M}"),
    ],
    # ---- indexing as users write it: repeated fancy indices read and written (NumPy applies the
    #      last write, and one add per index, for `y[idx] += v`), masks, np.where, negative steps,
    #      new axes, 2-d fancy indices, take_along_axis, items picked by argmax/argsort, 0-d arrays
    "indexing-as-users-write": [
        _idiom("fancy-read-index-array", "V", "{out} = np.sin({V})[np.array([0, 0, 2])]"),
        _idiom("fancy-aug-index-array", "V", "{out} = np.cos({V})", "{t} = np.array([2, 0, 2])", "{out}[{t}] += {V}"),
        _idiom("fancy-set-repeated-last-wins", "V", "{out} = np.sin({V})", "{out}[[0, 2, 0]] = {V}"),
        _idiom("fancy-sub-repeated", "M", "{out} = np.tanh({M})", "{out}[[1, 1]] -= {M}[0]"),
        _idiom("fancy-set-repeated-scalar", "V", "{out} = {V} * 1.0", "{out}[[1, -2]] = {S}", "{out} = {out} * {V}"),
        _idiom("mask-of-another-array", "S", "{t} = {V}", "{out} = np.sum(np.exp({V})[{t} > 0.2])", real_only=True),
        _idiom("mask-set-zero", "M", "{out} = np.tanh({M})", "{t} = {out} > 0.1", "{out}[{t}] = 0.0", real_only=True),
        _idiom("mask-set-values", "V", "{out} = np.cos({V})", "{t} = {V}", "{out}[{t} > 0.0] = {t}[{t} > 0.0] ** 2",
               real_only=True),
        _idiom("mask-aug", "M", "{out} = np.sin({M})", "{out}[{M} > 0.0] *= 2.0", real_only=True),
        _idiom("np.where-two-arrays", "M", "{t} = {M}", "{out} = np.where({t} > 0.3, np.sin({t}), {M} * 2.0)",
               real_only=True),
        _idiom("np.where-scalar-branch", "V", "{t} = {V}", "{out} = np.where({t} > 0.0, {t}, 0.0) + np.where({V} > 0.5, 1.0, {S})",
               real_only=True),
        _idiom("negative-step-two", "U", "{out} = {V}[::-2]"),
        _idiom("negative-step-from-end", "U", "{out} = {V}[-1::-2] * {M}[1, -1:0:-1]"),
        _idiom("negative-step-row", "V", "{out} = {M}[1, ::-1] + {M}[::-1][0]"),
        _idiom("new-axis-ellipsis", "M", "{out} = ({V}[..., None] * {U}).T"),
        _idiom("new-axis-outer", "M", "{out} = {U}[:, None] * {V}[None, :] + np.sum({M}[..., None] * {V}, axis=1)"),
        _idiom("fancy-2d-repeated", "V", "{out} = {M}[[0, 1, 1], [2, 0, 2]]"),
        _idiom("fancy-2d-arrays", "U", "{out} = {M}[np.array([1, 0]), np.array([-1, -1])]"),
        _idiom("fancy-2d-broadcast", "M", "{out} = {M}[np.array([[0], [1]]), np.array([0, 2, 1])]"),
        _idiom("fancy-2d-aug-repeated", "M", "{out} = np.cos({M})", "{out}[[0, 1, 0], [1, 2, 1]] += {V}"),
        _idiom("fancy-2d-set-repeated", "M", "{out} = np.sin({M})", "{out}[[1, 1], [0, 0]] = {U}"),
        _idiom("np.take_along_axis", "M", "{out} = np.take_along_axis({M}, np.array([[2, 0, 0], [1, 1, 2]]), axis=1)"),
        _idiom("np.take_along_axis-argsort", "M", "{t} = np.array([[3.0, 0.0, 5.0], [1.0, 4.0, 2.0]]) + 0.2 * np.tanh({M})",
               "{out} = np.take_along_axis({t}, np.argsort({t}, axis=1), axis=1) * {M}", real_only=True),
        _idiom("np.take_along_axis-argmax", "C", "{t} = np.array([[3.0, 0.0, 5.0], [1.0, 4.0, 2.0]]) + 0.2 * np.sin({M})",
               "{out} = np.take_along_axis({M}, np.argmax({t}, axis=1)[:, None], axis=1)", real_only=True),
        _idiom("argmax-selected", "S", "{t} = np.array([2.0, 0.0, 1.0]) + 0.2 * np.tanh({V})",
               "{out} = {V}[np.argmax({t})] * {t}[np.argmin({t})]", real_only=True),
        _idiom("argsort-selected", "V", "{t} = np.array([2.0, 0.0, 1.0]) + 0.2 * np.cos({V})", "{out} = {t}[np.argsort({t})] * {V}",
               real_only=True),
        _idiom("zero-d-array", "V", "{t} = np.array({S})", "{out} = {t} * {V} + {t} ** 2"),
        _idiom("zero-d-array-item", "S", "{t} = np.asarray({S} * 2.0)", "{out} = {t}[()] + np.sum({t})"),
        _idiom("zero-d-array-written", "S", "{t} = np.zeros_like(np.asarray({S}))", "{t}[...] = {S}", "{t} += {S}",
               "{out} = {t} * 1.5"),
        _idiom("fancy-aug-in-a-loop", "V", "{out} = np.sin({V})", "for {i} in range(2):",
               "    {out}[[{i}, {i}, 2]] += {V} * ({i} + 1.0)"),
        _idiom("np.add.at-2d-repeated", "M", "{out} = np.cos({M})", "np.add.at({out}, ([0, 1, 0], [1, 2, 1]), {V})"),
        _idiom("fancy-swap", "V", "{out} = np.tanh({V})", "{out}[[0, 2]] = {out}[[2, 0]]",
               "{out} = {out} * np.array([1.0, 2.0, 3.0])"),
        _idiom("scatter-labels", "M", "{out} = np.zeros((2, 3))", "{out}[np.arange(2), np.array([2, 0])] = {U}"),
        _idiom("np.put_along_axis", "M", "{out} = np.cos({M})",
               "np.put_along_axis({out}, np.array([[2], [0]]), {C}, axis=1)"),
    ],
    # ---- views then in-place writes: the write is seen through the base; out= arguments;
    #      buffers from np.empty_like/np.zeros_like filled in a loop; a view of f's argument
    #      written ({ARG}: the caller's array changes as Python changes it, or s2sad refuses)
    "views-then-writes": [
        _idiom("reshape-view-set-all", "M", "{out} = np.sin({M})", "{t} = {out}.reshape(3, 2)", "{t}[...] = {t} * {S}"),
        _idiom("reshape-view-aug", "M", "{out} = np.cos({M})", "{t} = {out}.reshape(-1)", "{t} += {V}[[0, 1, 2, 0, 1, 2]]",
               "{out} = {out} * {M}"),
        _idiom("transpose-view-aug", "M", "{out} = np.tanh({M})", "{t} = {out}.T", "{t} += {V}[:, None]"),
        _idiom("slice-view-set-all", "V", "{out} = np.tanh({V})", "{t} = {out}[1:]", "{t}[...] = {U} * {out}[0]"),
        _idiom("slice-view-aug-then-read", "S", "{t} = np.sin({V})", "{t2} = {t}[:2]", "{t2} *= {U}",
               "{out} = np.sum({t} ** 2)"),
        _idiom("np.ravel-view-write", "M", "{out} = np.sin({M}) + 0.0", "{t} = np.ravel({out})", "{t}[::2] *= {V}"),
        _idiom("ravel-method-view-write", "M", "{out} = np.cos({M})", "{t} = {out}.ravel()", "{t}[-1] = {S}",
               "{out} = {out} + {M}"),
        _idiom("view-of-a-view", "M", "{out} = np.sin({M})", "{t} = {out}[:, 1:]", "{t2} = {t}[0]", "{t2} += {U}"),
        _idiom("np.add-out-first", "V", "{out} = np.cos({V})", "np.add({out}, {V}, out={out})"),
        _idiom("np.multiply-out-first", "M", "{out} = np.sin({M})", "np.multiply({out}, {S}, out={out})",
               "{out} = {out} + {M}"),
        _idiom("np.subtract-out-view", "M", "{out} = np.cos({M})", "np.subtract({out}[0], {V}, out={out}[0])"),
        _idiom("empty-like-filled", "V", "{out} = np.empty_like({V})", "for {i} in range(3):",
               "    {out}[{i}] = np.sin({V}[{i}]) * {S}"),
        _idiom("zeros-like-rows-filled", "M", "{out} = np.zeros_like({M})", "for {i} in range(2):",
               "    {out}[{i}] = {V} * ({i} + 1.0)", "    {out}[{i}, 0] += {S}"),
        _idiom("empty-like-running", "V", "{t} = {V}", "{out} = np.empty_like({t})", "{out}[0] = {t}[0]",
               "for {i} in range(1, 3):", "    {out}[{i}] = {out}[{i} - 1] * 0.5 + {t}[{i}]"),
        _idiom("argument-view-aug", "V", "{t} = {ARG}[1:]", "{t} *= 1.0 + 0.5 * np.tanh({S})", "{out} = {ARG} * {V}"),
        _idiom("argument-view-set", "V", "{t} = {ARG}.reshape(3, 1)", "{t}[0, 0] = {S}", "{out} = {ARG} + {V}"),
        _idiom("argument-out", "V", "np.multiply({ARG}, 0.5, out={ARG})", "{out} = np.sin({ARG}) * {V}"),
        _idiom("argument-copied-then-written", "V", "{t} = {ARG}.copy()", "{t}[::2] = {V}[:2]", "{out} = {t} * {ARG}"),
        _idiom("overlapping-slice-copy", "V", "{out} = np.sin({V})", "{out}[1:] = {out}[:-1]"),
        _idiom("overlapping-reversed-aug", "V", "{out} = np.cos({V})", "{out}[::-1] += {out}"),
        _idiom("symmetrise-in-place", "S", "{t} = np.outer({V}, np.sin({V}))", "{t} += {t}.T",
               "{out} = np.sum({t} * np.arange(9.0).reshape(3, 3))"),
    ],
    # ---- linear algebra on small well-conditioned matrices (bounded perturbations of a
    #      dominant diagonal, so no singular matrix and no repeated eigenvalue comes near)
    "linear-algebra": [
        _idiom("np.linalg.solve-vector", "U", "{t} = 2.0 * np.eye(2) + 0.4 * np.tanh({M}[:, :2])",
               "{out} = np.linalg.solve({t}, {U})", real_only=True),
        _idiom("np.linalg.solve-matrix", "M", "{t} = 2.0 * np.eye(2) + 0.4 * np.tanh({M}[:, 1:])",
               "{out} = np.linalg.solve({t}, {M})", real_only=True),
        _idiom("np.linalg.inv", "V", "{t} = 2.0 * np.eye(3) + 0.2 * np.tanh(np.outer({V}, {V}[::-1]))",
               "{out} = np.linalg.inv({t}) @ {V}", real_only=True),
        _idiom("np.linalg.det-3", "S", "{out} = np.linalg.det(2.0 * np.eye(3) + 0.2 * np.tanh({M}.T @ {M}))",
               real_only=True),
        _idiom("np.linalg.slogdet", "S", "{t}, {t2} = np.linalg.slogdet(2.0 * np.eye(2) + 0.4 * np.tanh({M}[:, :2]))",
               "{out} = {t} * {t2}", real_only=True),
        _idiom("np.linalg.cholesky", "S", "{t} = 0.5 * np.tanh({M})",
               "{t2} = np.linalg.cholesky({t} @ {t}.T + np.eye(2))", "{out} = np.sum(np.log(np.diag({t2}))) + {t2}[1, 0]",
               real_only=True),
        _idiom("np.linalg.cholesky-solve", "U", "{t} = 0.5 * np.tanh({M})", "{t2} = np.linalg.cholesky({t} @ {t}.T + np.eye(2))",
               "{out} = np.linalg.solve({t2}.T, np.linalg.solve({t2}, {U}))", real_only=True),
        _idiom("np.linalg.eigh-values", "V", "{t} = 0.1 * np.tanh(np.outer({V}, {V}[::-1]))",
               "{out}, {t2} = np.linalg.eigh(np.diag([0.0, 1.0, 2.5]) + ({t} + {t}.T) / 2)", real_only=True),
        _idiom("np.linalg.eigh-vectors", "S", "{t} = 0.1 * np.tanh({M}.T @ {M})",
               "{t2}, {i} = np.linalg.eigh(np.diag([0.0, 1.0, 2.5]) + ({t} + {t}.T) / 2)",
               "{out} = np.sum(({i}.T @ {V}) ** 2 * {t2}) + np.sum({i}[:, 0] ** 4)", real_only=True),
        _idiom("np.linalg.eigvalsh-unsymmetric", "V",
               "{out} = np.linalg.eigvalsh(np.diag([0.0, 1.0, 2.5]) + 0.1 * np.tanh(np.outer({V}, {V}[::-1])))",
               real_only=True),
        _idiom("np.linalg.norm-axis", "U", "{out} = np.linalg.norm(1.0 + {M} ** 2, axis=1)"),
        _idiom("np.linalg.norm-ord1", "S", "{out} = np.linalg.norm(1.0 + {V} ** 2, ord=1)"),
        _idiom("np.linalg.norm-inf", "S", "{out} = np.linalg.norm(np.array([2.0, -1.0, 0.5]) + 0.2 * np.tanh({V}), ord=np.inf)",
               real_only=True),
        _idiom("np.linalg.norm-fro", "S", "{out} = np.linalg.norm(1.0 + {M} ** 2, ord='fro')"),
        _idiom("np.linalg.norm-spectral", "S",
               "{out} = np.linalg.norm(np.array([[2.0, 0.0, 0.0], [0.0, 0.5, 0.0]]) + 0.1 * np.tanh({M}), ord=2)",
               real_only=True),
        _idiom("np.linalg.norm-axis0-keepdims", "V", "{out} = np.linalg.norm(1.0 + {M} ** 2, axis=0, keepdims=True)[0]"),
        _idiom("np.trace", "S", "{out} = np.trace({M} @ {M}.T) + np.trace({M}, offset=1)"),
        _idiom("np.outer", "M", "{out} = np.outer({U}, {V})"),
        _idiom("np.kron-2d", "M", "{out} = np.kron({U}[:, None], {V}[None, :])"),
        _idiom("np.kron-sliced", "V", "{out} = np.kron({U}, {U})[:3]"),
        _idiom("np.tensordot-axes-lists", "U", "{out} = np.tensordot({M}, {M}, axes=([1], [1])) @ {U}"),
        _idiom("np.tensordot-full", "S", "{out} = np.tensordot({M}, {M}, axes=2)"),
        _idiom("np.tensordot-axes-pair", "V", "{out} = np.tensordot({U}, {M}, axes=(0, 0))"),
        _idiom("np.einsum-ellipsis-matvec", "U", "{out} = np.einsum('...j,j->...', {M}, {V})"),
        _idiom("np.einsum-ellipsis-implicit", "U", "{out} = np.einsum('...i,...i', {M}, {M})"),
        _idiom("np.einsum-ellipsis-leading", "V", "{out} = np.einsum('i...,i...->...', {M}, {M})"),
        _idiom("row-normalise", "M", "{t} = 1.0 + {M} ** 2", "{out} = {t} / np.linalg.norm({t}, axis=-1, keepdims=True)"),
        _idiom("np.linalg.qr", "S",
               "{t}, {t2} = np.linalg.qr(np.array([[2.0, 0.0], [0.0, 1.0], [0.5, 0.5]]) + 0.2 * np.tanh({M}.T))",
               "{out} = np.sum(np.abs(np.diag({t2}))) + np.sum(({t} @ {t2}) ** 2)", real_only=True),
        _idiom("np.linalg.svd-values", "U",
               "{out} = np.linalg.svd(np.array([[2.0, 0.0, 0.0], [0.0, 0.5, 0.0]]) + 0.1 * np.tanh({M}), compute_uv=False)",
               real_only=True),
        _idiom("np.linalg.pinv", "M",
               "{out} = np.linalg.pinv(np.array([[2.0, 0.0], [0.0, 1.0], [0.5, 0.5]]) + 0.2 * np.tanh({M}.T))",
               real_only=True),
        _idiom("np.linalg.matrix_power", "U",
               "{out} = np.linalg.matrix_power(np.eye(2) + 0.3 * np.tanh({M}[:, :2]), 3) @ {U}", real_only=True),
        _idiom("np.linalg.lstsq", "U",
               "{out} = np.linalg.lstsq(np.array([[2.0, 0.0], [0.0, 1.0], [0.5, 0.5]]) + 0.2 * np.tanh({M}.T), {V}, rcond=None)[0]",
               real_only=True),
        _idiom("np.linalg.eigvals", "S",
               "{t} = np.linalg.eigvals(np.diag([0.0, 1.0, 2.5]) + 0.1 * np.tanh(np.outer({V}, {V}[::-1])))",
               "{out} = np.sum(np.real({t}) ** 2)", real_only=True),
        _idiom("np.linalg.multi_dot", "U", "{out} = np.linalg.multi_dot([{M}, {M}.T, {U}])"),
        _idiom("np.linalg.det-batched", "U",
               "{out} = np.linalg.det(2.0 * np.eye(2) + 0.3 * np.tanh(np.stack([{M}[:, :2], {M}[:, 1:]])))",
               real_only=True),
        _idiom("np.linalg.inv-batched", "M",
               "{t} = np.linalg.inv(2.0 * np.eye(2) + 0.3 * np.tanh(np.stack([{M}[:, :2], {M}[:, 1:]])))",
               "{out} = {t}[0] @ {M} + {t}[1] @ {M}", real_only=True),
        _idiom("np.linalg.solve-batched", "M",
               "{t} = 2.0 * np.eye(2) + 0.3 * np.tanh(np.stack([{M}[:, :2], {M}[:, 1:], {M}[:, ::2]]))",
               "{out} = np.linalg.solve({t}, {M}.T[:, :, None])[:, :, 0].T", real_only=True),
        _idiom("np.einsum-batched-matmul", "M",
               "{out} = np.einsum('bij,bjk->bik', np.stack([{M}, {M}]), np.stack([{M}.T, {M}.T]))[0] @ {M}"),
        _idiom("np.einsum-ellipsis-broadcast", "M",
               "{out} = np.einsum('...ij,...j->...i', np.stack([{M}, np.sin({M})]), {V})"),
    ],
    # ---- blocks of machine-learning code
    "ml-blocks": [
        _idiom("logsumexp-keepdims", "C", "{t} = {M}", "{t2} = np.max({t}, axis=-1, keepdims=True)",
               "{out} = {t2} + np.log(np.sum(np.exp({t} - {t2}), axis=-1, keepdims=True))", real_only=True),
        _idiom("softmax-last-axis", "M", "{t2} = {M}", "{t} = np.exp({t2} - np.max({t2}, axis=-1, keepdims=True))",
               "{out} = {t} / np.sum({t}, axis=-1, keepdims=True)", real_only=True),
        _idiom("softmax-cross-entropy-one-hot", "S", "{t} = np.eye(3)[np.array([2, 0])]", "{t2} = {M}",
               "{i} = {t2} - np.log(np.sum(np.exp({t2}), axis=-1, keepdims=True))", "{out} = -np.sum({t} * {i}) / 2.0",
               real_only=True),
        _idiom("one-hot-labels", "M", "{t} = np.array([1, 2])", "{out} = np.eye(3)[{t}] * {M} + np.eye(3)[{t}[::-1]]"),
        _idiom("layer-norm", "M", "{t} = {M}", "{t2} = {t} - np.mean({t}, axis=-1, keepdims=True)",
               "{out} = {t2} / np.sqrt(np.var({t}, axis=-1, keepdims=True) + 1e-5) * {V} + {V}", real_only=True),
        _idiom("layer-norm-std", "M", "{t} = {M} + np.array([0.0, 1.0, -1.0])",   # no constant row: std's kink
               "{out} = ({t} - {t}.mean(axis=1, keepdims=True)) / ({t}.std(axis=1, keepdims=True) + 1e-3)", real_only=True),
        _idiom("np.clip-matrix", "M", "{out} = np.clip({M}, -1.0, 1.0) * {M}", real_only=True),
        _idiom("gradient-clip-by-norm", "V", "{t} = {V}", "{t2} = np.linalg.norm({t})",
               "{out} = {t} * np.minimum(0.8 / ({t2} + 1e-6), 1.0)", real_only=True),
        _idiom("gradient-clip-by-norm-branch", "V", "{t} = {V}", "{t2} = np.sqrt(np.sum(np.abs({t}) ** 2))",
               "if {t2} > 0.8:", "    {out} = {t} * (0.8 / {t2})", "else:", "    {out} = {t}"),
        _idiom("sigmoid-binary-cross-entropy", "S", "{t} = 1.0 / (1.0 + np.exp(-{V}))",
               "{out} = -np.mean(np.array([1.0, 0.0, 1.0]) * np.log({t}) + np.array([0.0, 1.0, 0.0]) * np.log(1.0 - {t}))",
               real_only=True),
        _idiom("mse-with-mean-keepdims", "U", "{t} = {M} - {M}.mean(axis=0, keepdims=True)",
               "{out} = np.mean({t} ** 2, axis=1)"),
        _idiom("softmax-axis0-keepdims-sum", "M", "{t} = np.exp({M})", "{out} = {t} / {t}.sum(axis=0, keepdims=True)",
               real_only=True),
        _idiom("log-softmax-logaddexp", "S", "{t} = {V}", "{out} = {t}[1] - np.logaddexp.reduce({t})", real_only=True),
        _idiom("masked-mean", "S", "{t} = {V}", "{t2} = {t} > 0.0",
               "{out} = np.sum(np.where({t2}, {t} ** 2, 0.0)) / max(np.sum({t2}), 1)", real_only=True),
        _idiom("gather-labels-loss", "S", "{t} = {M}",
               "{out} = -np.sum({t}[np.arange(2), np.array([2, 1])]) + np.sum(np.log(np.sum(np.exp({t}), axis=1)))",
               real_only=True),
    ],
    # ---- (session 15) the structure of published programs, where earlier wrong numbers clustered:
    #      parameters as lists of (W, b) and dicts, updated in training loops
    "params-in-training-loops": [
        _idiom("layers-appended-then-looped", "U", "{t} = []", "for {i} in range(2):",
               "    {t}.append((np.eye(2) + 0.3 * np.tanh({M}[:, :2]), {U}))", "{out} = {U}", "for W, b in {t}:",
               "    {out} = np.tanh(W @ {out} + b)"),
        _idiom("layers-updated-by-comprehension", "U", "{t} = [({M}, {U}), (np.cos({M}), {U})]", "for {i} in range(2):",
               "    {t} = [(W - 0.1 * np.tanh(W), b - 0.1 * b ** 2) for W, b in {t}]",
               "{out} = sum(np.sum(W, axis=1) * b for W, b in {t})"),
        _idiom("layers-written-in-place", "V", "{t} = [(np.copy({M}), np.copy({U})) for {i} in range(2)]",
               "for W, b in {t}:", "    W -= 0.1 * np.outer(b, {V})", "    b *= 0.5",
               "{out} = {t}[0][0].T @ {t}[-1][1] + {t}[1][0][0]"),
        _idiom("params-dict-updated-by-key", "S", "{t} = {'w': {V}, 'b': {S}}", "for {i} in range(3):",
               "    {t2} = {'w': np.cos({t}['w']), 'b': np.sin({t}['b'])}", "    for key in {t}:",
               "        {t}[key] = {t}[key] - 0.1 * {t2}[key]", "{out} = np.sum({t}['w']) * {t}['b']"),
        _idiom("params-dict-aug-in-a-loop", "V", "{t} = {'w': np.copy({V}), 'b': {U}}", "for {i} in range(2):",
               "    {t}['w'] -= 0.1 * np.tanh({t}['w'])", "    {t}['b'] = {t}['b'] * 0.9",
               "{out} = {t}['w'] * np.sum({t}['b'])"),
        _idiom("params-dict-comprehension-step", "S", "{t} = {'a': {M}, 'c': {U}}",
               "{t2} = {k: np.tanh(v) for k, v in {t}.items()}", "for {i} in range(2):",
               "    {t} = {k: v - 0.5 * {t2}[k] for k, v in {t}.items()}", "{out} = np.sum({t}['a']) + {t}['c'] @ {t}['c']"),
        _idiom("params-dict-view-written", "M", "{t} = {'w': np.cos({M})}", "{t2} = {t}['w'][0]", "{t2} *= {S}",
               "{out} = {t}['w'] + {M}"),
    ],
    # ---- small classes, dataclasses and namedtuples built and read inside the function
    "classes-and-records": [
        _idiom("class-init-call-property", "U", "{t} = Dense({M}, {U})", "{out} = {t}({V}) * {t}.width + {t}.norm",
               needs=("Dense",)),
        _idiom("class-function-valued-attribute", "U", "{t} = Dense({M}, {U}, act=np.sin)", "{out} = {t}({V}) + {t}.norm",
               needs=("Dense",)),
        _idiom("class-method-chaining-state", "M", "{t} = Accumulator()", "{t}.add({V}).add(np.sin({V}))",
               "{out} = {t}.stacked() * {t}.total", needs=("Accumulator",)),
        _idiom("class-buffer-written-by-a-method", "V", "{t} = Buffer(3)", "for {i} in range(3):",
               "    {t}.write({i}, np.sin({V}[{i}]) * {S})", "{out} = {t}.data * {V}", needs=("Buffer",), real_only=True),
        _idiom("dataclass-default-field", "S", "{t} = Point({S})", "{t2} = Point({S}, y={S})",
               "{out} = {t}.norm2() + {t2}.norm2() * {t}.x", needs=("Point",)),
        _idiom("dataclass-replace", "V", "{t} = Point({V}, {S})", "{t2} = dataclasses.replace({t}, x=np.sin({t}.x))",
               "{out} = {t2}.x * {t}.y + {t}.x", needs=("Point",)),
        _idiom("dataclass-field-written-in-place", "V", "{t} = Point(np.sin({V}), {S})", "{t}.x[1:] += {U}",
               "{out} = {t}.norm2()", needs=("Point",)),
        _idiom("namedtuple-made-replaced-unpacked", "V", "{t} = Pair({V}, {V} + 1.0)",
               "{t2} = {t}._replace(hi=np.tanh({t}.hi))", "{i}, {out} = {t2}", "{out} = {out} - {i} * {t}.lo",
               needs=("Pair",)),
        _idiom("typed-namedtuple-method", "S", "{t} = Interval({S}, {S})", "{out} = {t}.width() * {t}[0]",
               needs=("Interval",)),
    ],
    # ---- functions as values: defaults, lambdas in dicts, closures from factories, decorators, forwarding
    "functions-as-values": [
        _idiom("lambda-default-argument", "V", "{out} = smooth({V}) + smooth({V}, act=np.sin, k={S})", needs=("smooth",)),
        _idiom("lambdas-in-a-dict", "V", "{t} = {'tanh': np.tanh, 'square': lambda z: z ** 2, 'scaled': lambda z: {S} * z}",
               "{out} = {t}['square']({V}) + {t}['scaled']({V})"),
        _idiom("lambdas-in-a-dict-by-loop", "U", "{t} = {'tanh': np.tanh, 'half': lambda z: 0.5 * z}", "{out} = {U}",
               "for {i} in ('tanh', 'half', 'tanh'):", "    {out} = {t}[{i}]({out})"),
        _idiom("lambda-to-a-helper-over-a-list", "S", "{out} = sum_over(lambda a: np.sum(a ** 2), [{V}, {M}, {S}])",
               needs=("sum_over",)),
        _idiom("closure-factory-capturing-arrays", "U", "{t} = make_affine({M}, {U})", "{out} = np.tanh({t}({V})) + {t}(np.cos({V}))",
               needs=("make_affine",)),
        _idiom("closure-factory-lambda", "V", "{t} = make_scaler({S})", "{out} = {t}({V}) + {t}({t}({V}))",
               needs=("make_scaler",)),
        _idiom("lambda-defaults-bound-in-a-loop", "V", "{t} = [(lambda z, k=k: z * k) for k in ({S}, 2.0)]",
               "{out} = sum(g({V}) for g in {t})"),
        _idiom("closure-with-nonlocal-state", "V", "{t} = make_growing_scale({S})", "{out} = {t}({V}) + {t}({V})",
               needs=("make_growing_scale",)),
        _idiom("decorator-with-argument-loops", "V", "{out} = damp({V}) + damp({V}, rate={S})", needs=("damp",)),
        _idiom("decorator-on-a-nested-def", "V", "@twice", "def {t}(z):", "    return np.sin(z) * {S}", "{out} = {t}({V})",
               needs=("twice",)),
        _idiom("star-args-forwarding", "V", "{out} = call_with(np.multiply, {V}, {V}) + call_with(layer, {V}, act=np.cos)",
               needs=("call_with", "layer")),
        _idiom("star-kwargs-dict-forwarding", "V", "{t} = ({V}, np.sin({V}))", "{t2} = {'weights': (0.5, {S})}",
               "{out} = weighted_sum(*{t}, **{t2}) + weighted_sum({V})", needs=("weighted_sum",)),
        _idiom("star-shape-from-an-array", "M", "{t} = {M}.shape", "{out} = np.zeros((2, *{t}))[0] + {M}.reshape(*{t}[::-1]).T"),
        _idiom("shape-unpacked", "M", "{t}, {t2} = {M}.shape", "{out} = np.ones(({t}, {t2})) * {M} + np.zeros_like({M})"),
        # session 17's construct: a partial of a user's function holding a variable (passed a default it leaves)
        _idiom("partial-holding-a-variable", "V", "{t2} = {V}", "{t} = functools.partial(affine_step, w={t2})",
               "{out} = {t}({V}) + {t}({V}, shift={S}, act=np.sin)", needs=("affine_step",)),
    ],
    # ---- control flow and collections as users write them
    "control-and-collections": [
        _idiom("generator-sum-over-arrays", "S", "{out} = sum(np.sum(a ** 2) for a in ({V}, {M}, {U}))"),
        _idiom("generator-sum-of-arrays", "V", "{out} = sum(w * a for w, a in zip((0.5, 2.0), ({V}, np.cos({V}))))"),
        _idiom("generator-max", "S", "{out} = max(np.tanh(np.sum(a)) + c for c, a in ((0.0, {V}), (3.0, {U})))",
               real_only=True),
        _idiom("generator-min-of-a-list", "S", "{t} = [np.tanh({S}) + 3.0, np.sin({S})]", "{out} = min(v for v in {t})",
               real_only=True),
        _idiom("validation-raise-in-a-helper", "V", "{out} = normalise({V}) * {S}", needs=("normalise",), real_only=True),
        _idiom("validation-early-return", "U", "{t} = np.tanh({U})", "if {t}.shape[0] == 0:", "    return {t}",
               "{out} = {t} * {U}"),
        _idiom("while-tolerance-newton", "S", "{t} = 1.0 + {S} ** 2", "{t2} = 1.0", "{i} = 0",
               "tol = 1e-20", "while ({t2} * {t2} - {t}) ** 2 > tol and {i} < 50:", "    {t2} = 0.5 * ({t2} + {t} / {t2})",
               "    {i} += 1", "{out} = {t2}", real_only=True),
        # session 22's construct: a bisection whose ends the test's outcome, made a number, chooses by arithmetic
        # (refused: each step's derivative is 0 while the root, in (0.7, 1.6) inside the bracket, moves with {t});
        # the test compares two names
        _idiom("bisection-by-arithmetic", "S", "{t} = 1.5 + np.tanh({S})", "{t2}, {i} = 0.0, 4.0", "for _ in range(60):",
               "    bisect_mid = 0.5 * ({t2} + {i})", "    bisect_above = float(bisect_mid * bisect_mid > {t})",
               "    {i} = bisect_above * bisect_mid + (1.0 - bisect_above) * {i}",
               "    {t2} = (1.0 - bisect_above) * bisect_mid + bisect_above * {t2}", "{out} = {t2}", real_only=True),
        _idiom("while-tolerance-fixed-point", "V", "{t} = 0.1 * {V}", "{out} = fixed_point(lambda z: 0.5 * np.cos(z) + {t}, {V})",
               needs=("fixed_point",), real_only=True),
        _idiom("append-then-stack", "M", "{t} = []", "for {i} in range(2):", "    {t}.append({V} * (1.0 + {i}))",
               "{out} = np.stack({t})"),
        _idiom("append-then-array", "M", "{t} = [np.sin({V})]", "{t}.append(np.cos({V}))", "{out} = np.array({t}) * {S}"),
        _idiom("append-then-written", "M", "{t} = []", "{t2} = np.sin({V})", "{t}.append({t2})", "{t2}[0] = {S}",
               "{t}.append({V})", "{out} = np.stack({t})"),
        _idiom("append-then-item-written", "M", "{t} = [np.cos({V}), np.sin({V})]", "{t}[-1][1] += {S}",
               "{out} = np.vstack({t})"),
        # except naming a tuple of classes (session 17: written as a nested tuple, which Python rejects as it catches)
        _idiom("except-tuple-not-raised", "V", "try:", "    {out} = np.sin({V}) * {S}", "except (ValueError, KeyError):",
               "    {out} = {V}"),
        _idiom("tuple-returning-helper", "V", "{t}, {t2} = moments({V})", "{out} = ({V} - {t}) / np.sqrt({t2} + 1.0)",
               needs=("moments",)),
        _idiom("nested-tuple-returning-helper", "U", "{t}, {t2}, ({i}, _) = split_affine({M}, {V})",
               "{out} = {t2} * {i} + {t}", needs=("split_affine",)),
    ],
}
IDIOMS = [dataclasses.replace(idiom, family=family)
          for family, idioms in IDIOM_FAMILIES.items() for idiom in idioms]

# What users write around structured parameters (generator.STRUCTURED): a list of (W, b)
# layers looped over, summed over in a generator, indexed; a dict of named arrays with an int
# option; a namedtuple; a dataclass with a method; a class of their own whose method takes the
# layers; helpers with keyword-only options and ``*args``. ``{LAYERS}``, ``{PARAMS}``,
# ``{LINEAR}``, ``{NET}`` are the program's structured parameter, or, if it has none of that
# kind, a value the function makes itself first (``STRUCTURED_HOLES``): each idiom runs both ways.
PARAMETER_IDIOMS = [
    _idiom("layers-loop", "U", "{out} = {V}", "for W, b in {LAYERS}:", "    {out} = np.tanh(W @ {out} + b)"),
    _idiom("layers-generator-sum", "S", "{out} = sum(np.sum(W ** 2) + b @ b for W, b in {LAYERS})"),
    _idiom("layers-enumerate", "S", "{out} = 0.0", "for {i}, (W, b) in enumerate({LAYERS}):",
           "    {out} = {out} + (1.0 + {i}) * np.sum(np.tanh(W)) * b[0]"),
    _idiom("layers-indexed", "U", "{out} = {LAYERS}[-1][0] @ np.tanh({LAYERS}[0][0] @ {V} + {LAYERS}[0][1])"),
    _idiom("layers-comprehension", "S", "{t} = [np.tanh(b) * {S} for _, b in {LAYERS}]", "{out} = np.sum({t}[0] * {t}[-1])"),
    _idiom("layers-method-of-a-class", "U", "{out} = Stack({S}).apply({LAYERS}, {V})", needs=("Stack",)),
    _idiom("layers-star-args-helper", "U", "{out} = chain({V}, *{LAYERS})", needs=("chain",)),
    _idiom("layers-star-unpacked-layer", "S", "{out} = squared_norm(*{LAYERS}[0])", needs=("squared_norm",)),
    _idiom("params-dict", "U", "{out} = np.tanh({PARAMS}['W'] @ {V} + {PARAMS}['b']) * {PARAMS}['s']"),
    _idiom("params-dict-int-option", "U", "{out} = {U}", "for {i} in range({PARAMS}['steps']):",
           "    {out} = 0.5 * {out} + np.tanh({PARAMS}['W'] @ {V}) * {PARAMS}['b']"),
    _idiom("params-dict-items", "S", "{out} = 0.0", "for {t}, {t2} in {PARAMS}.items():", "    if {t} != 'steps':",
           "        {out} = {out} + np.sum({t2} ** 2)"),
    _idiom("params-dict-comprehension", "S", "{t} = {k: v * {S} for k, v in {PARAMS}.items() if k != 'steps'}",
           "{out} = np.sum({t}['W']) + {t}['s']"),
    _idiom("params-dict-keyword-only-helper", "U", "{out} = dense({V}, {PARAMS}['W'], {PARAMS}['b'], scale={PARAMS}['s'])",
           needs=("dense",)),
    _idiom("namedtuple-fields", "U", "{out} = np.tanh({LINEAR}.W @ {V} + {LINEAR}.b)"),
    _idiom("namedtuple-unpack", "U", "{t}, {t2} = {LINEAR}", "{out} = {t} @ {V} * {t2}"),
    _idiom("namedtuple-index", "V", "{out} = {LINEAR}[0].T @ {LINEAR}[1]"),
    _idiom("namedtuple-replace", "V", "{t} = {LINEAR}._replace(b=np.sin({LINEAR}.b))", "{out} = {t}.W.T @ {t}.b"),
    _idiom("namedtuple-keyword-only-helper", "U", "{out} = dense({V}, *{LINEAR}, act=np.sin)", needs=("dense",)),
    _idiom("dataclass-method", "U", "{out} = {NET}.forward({V})"),
    _idiom("dataclass-fields", "S", "{out} = {NET}.scale * np.sum({NET}.W ** 2) + {NET}.b @ {NET}.b"),
    _idiom("dataclass-to-a-helper", "U", "{out} = predict({NET}, {V})", needs=("predict",)),
    _idiom("dataclass-property", "S", "{out} = {NET}.energy * {S}"),
    _idiom("class-property-and-constant", "S", "{t} = Affine({M})", "{out} = np.sum({t}.doubled_T) * {t}.shift + {S}",
           needs=("Affine",)),
    _idiom("star-args-helper", "S", "{out} = squared_norm({V}, {M}, {S})", needs=("squared_norm",)),
]

# A structured hole without a parameter to fill it: the value the function makes itself
# (shape holes drawn as in idioms), and the module-level class it needs.
STRUCTURED_HOLES = {
    "LAYERS": ("[({M}, {U}), (np.eye(2) + 0.5 * np.outer({U}, {U}), {U})]", None),
    "PARAMS": ("{'W': {M}, 'b': {U}, 's': {S}, 'steps': 2}", None),
    "LINEAR": ("Linear({M}, {U})", "Linear"),
    "NET": ("Net({M}, {U}, {S})", "Net"),
}

# Module-level definitions idioms call (written before ``f`` when used).
LIBRARY = {
    "layer": ("def layer(x, act=np.tanh):\n"
              "    return act(x) * 1.5\n"),
    "affine_step": ("def affine_step(x, w, shift=0.0, act=np.tanh):\n"
                    "    return act(w * x + shift)\n"),
    "scaled_sin": ("def scaled(factor):\n"
                   "    def decorate(function):\n"
                   "        @functools.wraps(function)\n"
                   "        def wrapper(*args, **kwargs):\n"
                   "            return factor * function(*args, **kwargs)\n"
                   "        return wrapper\n"
                   "    return decorate\n\n\n"
                   "@scaled(2.0)\n"
                   "def scaled_sin(x):\n"
                   "    return np.sin(x)\n"),
    "traced_square": ("def traced(function):\n"
                      "    @functools.wraps(function)\n"
                      "    def wrapper(*args, **kwargs):\n"
                      "        return function(*args, **kwargs)\n"
                      "    return wrapper\n\n\n"
                      "@traced\n"
                      "def traced_square(x, power=2):\n"
                      "    return np.tanh(x) ** power\n"),
    "shifted": ("def shifted(x, *, by=0.5):\n"
                "    return x * np.cos(by) + by\n"),
    "Box": ("import dataclasses\n\n\n"
            "@dataclasses.dataclass\n"
            "class Box:\n"
            "    a: object\n"
            "    b: object\n"),
    "copy": "import copy\n",
    "apply_twice": ("def apply_twice(function, v):\n"
                    "    return function(function(v))\n"),
    "soft_clip": ("def soft_clip(v):\n"
                  "    return 2.0 * np.tanh(v / 2.0)\n"),
    "euler_steps": ("def euler_steps(rate, y, h):\n"
                    "    for k in range(3):\n"
                    "        y = y + h * rate(y)\n"
                    "    return y\n"),
    "decay_rate": ("def decay_rate(y):\n"
                   "    return -0.5 * y + 0.1 * np.sin(y)\n"),
    "itertools": "import itertools\n",
    "append_doubled": ("def append_doubled(xs, v):\n"
                       "    xs.append(2.0 * v)\n"),
    "set_a": ("def set_a(box, v):\n"
              "    box.a = v * box.b\n"),
    "Scaled": ("class Scaled:\n"
               "    def __init__(self, w, k=2.0):\n"
               "        if k <= 0.0:\n"
               "            raise ValueError('k must be positive')\n"
               "        self.w2 = w * k\n"
               "        self.k = k\n\n"
               "    def apply(self, v):\n"
               "        return np.tanh(self.w2 * v) / self.k\n"),
    "Shifted": ("class Shifted(Scaled):\n"
                "    def __init__(self, w, shift):\n"
                "        super().__init__(w, k=3.0)\n"
                "        self.shift = shift * 2.0\n\n"
                "    def apply(self, v):\n"
                "        return self.w2 * v + self.shift\n"),
    # ---- structured parameters' classes, and what users call on them
    "Linear": ("import collections\n\n"
               "Linear = collections.namedtuple('Linear', ['W', 'b'])\n"),
    "Net": ("import dataclasses\n\n\n"
            "@dataclasses.dataclass\n"
            "class Net:\n"
            "    W: object\n"
            "    b: object\n"
            "    scale: object\n\n"
            "    def forward(self, x):\n"
            "        return np.tanh(self.W @ x + self.b) * self.scale\n\n"
            "    @property\n"
            "    def energy(self):\n"
            "        return self.scale * np.sum(self.W ** 2) + np.sum(np.sin(self.b))\n"),
    "Affine": ("class Affine:\n"
               "    shift = 0.5\n\n"
               "    def __init__(self, W):\n"
               "        self.W = W\n\n"
               "    @property\n"
               "    def doubled_T(self):\n"
               "        return self.W.T * 2.0\n"),
    "Stack": ("class Stack:\n"
              "    def __init__(self, leak):\n"
              "        self.leak = leak\n\n"
              "    def apply(self, layers, x):\n"
              "        for W, b in layers:\n"
              "            x = np.tanh(W @ x + b) + self.leak * (W @ x)\n"
              "        return x\n"),
    "chain": ("def chain(x, *layers):\n"
              "    for W, b in layers:\n"
              "        x = np.tanh(W @ x + b)\n"
              "    return x\n"),
    "squared_norm": ("def squared_norm(*arrays):\n"
                     "    return sum(np.sum(a ** 2) for a in arrays)\n"),
    "dense": ("def dense(x, W, b, *, act=np.tanh, scale=1.0):\n"
              "    return act(W @ x + b) * scale\n"),
    "predict": ("def predict(net, x):\n"
                "    return net.forward(x) * net.scale\n"),
    # ---- (session 15) what the structure families call
    "Dense": ("class Dense:\n"
              "    def __init__(self, W, b, act=np.tanh):\n"
              "        self.W = W\n"
              "        self.b = b\n"
              "        self.act = act\n\n"
              "    def __call__(self, x):\n"
              "        return self.act(self.W @ x + self.b)\n\n"
              "    @property\n"
              "    def width(self):\n"
              "        return self.W.shape[0]\n\n"
              "    @property\n"
              "    def norm(self):\n"
              "        return np.sum(self.W ** 2) + self.b @ self.b\n"),
    "Accumulator": ("class Accumulator:\n"
                    "    def __init__(self):\n"
                    "        self.total = 0.0\n"
                    "        self.items = []\n\n"
                    "    def add(self, v):\n"
                    "        self.items.append(v)\n"
                    "        self.total = self.total + np.sum(v)\n"
                    "        return self\n\n"
                    "    def stacked(self):\n"
                    "        return np.stack(self.items)\n"),
    "Buffer": ("class Buffer:\n"
               "    def __init__(self, n):\n"
               "        self.data = np.zeros(n)\n\n"
               "    def write(self, i, v):\n"
               "        self.data[i] = v\n"
               "        return self\n"),
    "Point": ("import dataclasses\n\n\n"
              "@dataclasses.dataclass\n"
              "class Point:\n"
              "    x: object\n"
              "    y: object = 0.5\n\n"
              "    def norm2(self):\n"
              "        return self.x ** 2 + self.y ** 2\n"),
    "Pair": ("import collections\n\n"
             "Pair = collections.namedtuple('Pair', ['lo', 'hi'])\n"),
    "Interval": ("import typing\n\n\n"
                 "class Interval(typing.NamedTuple):\n"
                 "    lo: object\n"
                 "    hi: object\n\n"
                 "    def width(self):\n"
                 "        return (self.hi - self.lo) ** 2 + 1.0\n"),
    "smooth": ("def smooth(x, act=lambda z: z * np.tanh(z), k=2.0):\n"
               "    return act(k * x) / (1.0 + k ** 2)\n"),
    "sum_over": ("def sum_over(function, items):\n"
                 "    return sum(function(item) for item in items)\n"),
    "make_affine": ("def make_affine(W, b):\n"
                    "    def affine(x):\n"
                    "        return W @ x + b\n"
                    "    return affine\n"),
    "make_scaler": ("def make_scaler(k):\n"
                    "    return lambda z: np.sin(k) * z\n"),
    "make_growing_scale": ("def make_growing_scale(k):\n"
                           "    calls = 0\n\n"
                           "    def scale(z):\n"
                           "        nonlocal calls\n"
                           "        calls += 1\n"
                           "        return z * np.cos(k) ** calls\n"
                           "    return scale\n"),
    "damp": ("def repeat(times):\n"
             "    def decorate(function):\n"
             "        @functools.wraps(function)\n"
             "        def wrapper(x, *args, **kwargs):\n"
             "            for _ in range(times):\n"
             "                x = function(x, *args, **kwargs)\n"
             "            return x\n"
             "        return wrapper\n"
             "    return decorate\n\n\n"
             "@repeat(2)\n"
             "def damp(x, rate=0.5):\n"
             "    return x - rate * np.sin(x)\n"),
    "twice": ("def twice(function):\n"
              "    @functools.wraps(function)\n"
              "    def wrapper(*args):\n"
              "        return 2.0 * function(*args)\n"
              "    return wrapper\n"),
    "call_with": ("def call_with(function, *args, **kwargs):\n"
                  "    return function(*args, **kwargs)\n"),
    "weighted_sum": ("def weighted_sum(*arrays, weights=None):\n"
                     "    if weights is None:\n"
                     "        weights = [1.0] * len(arrays)\n"
                     "    return sum(w * a for w, a in zip(weights, arrays))\n"),
    "normalise": ("def normalise(x, eps=1e-8):\n"
                  "    if x.ndim != 1:\n"
                  "        raise ValueError('expected a vector')\n"
                  "    total = np.sum(x ** 2)\n"
                  "    if total == 0.0:\n"
                  "        return x\n"
                  "    return x / np.sqrt(total + eps)\n"),
    "fixed_point": ("def fixed_point(g, x, tol=1e-26, max_steps=200):\n"
                    "    step = 0\n"
                    "    while step < max_steps:\n"
                    "        new = g(x)\n"
                    "        if np.sum((new - x) ** 2) < tol:\n"
                    "            return new\n"
                    "        x = new\n"
                    "        step += 1\n"
                    "    return x\n"),
    "moments": ("def moments(x):\n"
                "    if x.size == 0:\n"
                "        raise ValueError('no values')\n"
                "    mean = np.mean(x)\n"
                "    return mean, np.mean((x - mean) ** 2)\n"),
    "split_affine": ("def split_affine(W, x):\n"
                     "    y = W @ x\n"
                     "    return y, np.tanh(y), (y[0], y[-1])\n"),
}
