"""Differential fuzzing of s2sad: random programs from the supported language, each checked
against central finite differences and against itself (forward mode against reverse mode).

* ``generator.py``: hypothesis strategies that write the SOURCE TEXT of a module with a
  function ``f`` (and sometimes a helper it calls) from the language the README documents:
  arithmetic and NumPy calls over scalars and small arrays with broadcasting, branches on
  computed values, ``for``/``while`` loops with ``break``/``continue``/``return``, helper
  calls, tuples/lists/dicts, ``list.append``, array filling and slice updates, closures and
  comprehensions; plus the inputs, kept away from non-differentiable points (every branch
  condition, mask and kink is at least ``MARGIN`` away from its threshold, else the inputs
  are shifted). Inputs are float64, float32 or complex128.
* ``idioms.py``: what users write beyond that design, as a table of statement templates:
  repeated and negative fancy indices, masks, reversed slices, ``.T``/``reshape`` chains,
  ``y += v`` on arrays (aliased too), writes through views, ``np.add.at``, ``.item()``,
  decorators, function-valued defaults, keyword-only arguments, ``raise`` not taken,
  complex constants, ``take_along_axis`` and ``argsort``-picked items, ``out=`` and
  views of an argument written, ``solve``/``inv``/``slogdet``/``cholesky``/``eigh``,
  softmax, logsumexp, layer norm. A helper may also be redefined between two gradient calls.
  ``PARAMETER_IDIOMS``: what users write around structured parameters (layers looped over
  and summed over in generators, params dicts, namedtuples, dataclasses with methods,
  keyword-only and ``*args`` helpers), with the program's parameter or a value it makes.
  Four families (session 15) write the structure of published programs: parameters as lists
  of ``(W, b)`` and dicts updated in training loops; small classes, dataclasses and
  namedtuples built and read inside; functions as values (function-valued defaults, lambdas
  in dicts, closures from factories, decorators, ``*args``/``**kwargs``/``*shape``
  forwarding); generator expressions into ``sum``/``max``, validation that raises or returns
  early, ``while`` loops with tolerance tests, lists appended then stacked, tuple-returning
  helpers; some combined with in-place writes and views.
* ``trees.py``: structured inputs (lists, tuples, dicts, namedtuples, dataclasses): their
  leaves, their structure, and the program's own classes made once its module exists.
* ``oracle.py``: writes a program to a real ``.py`` file, imports it and checks it: the
  reverse-mode gradient (``value_and_grad``, or ``vjp`` for array outputs) equals central
  finite differences (float64, rtol 1e-5 / atol 1e-6); ``jvp`` agrees with ``vjp``
  (<u, J v> both ways) and with finite differences; a ``vjp`` pullback called twice is
  linear; for a scalar program, ``hvp`` along ``v`` equals central differences along ``v`` of
  the finite-difference gradient (second order); the value is the function's own; gradients
  have their input's type and shape (a structured input's, its own container, compared leaf
  by leaf); the inputs are left as ``f`` itself leaves them; the value has NumPy's dtype. A ``MissingRuleError``
  from ``jvp`` is counted as "forward rule missing"; any other ``S2SADError`` is a REFUSAL,
  counted by construct and reported apart (it must name the program's file and line);
  every other exception is a failure.
* ``analysis.py``: the probed twin of a program (every branch condition recorded), and the
  constructs a program uses (how failures are matched to known bugs, and coverage).
* ``reduce.py``: shrinking beyond hypothesis, by edits of the syntax tree (delete a
  statement, inline a branch, replace an expression by an operand) that keep the failure.
* ``run.py`` (``python -m tests.fuzz``): the long profile, run from the repository root::

      python -m tests.fuzz --programs 10000                 # all of them (hours on 2 cores)
      python -m tests.fuzz --programs 10000 --minutes 10    # as many as fit in 10 minutes
      python -m tests.fuzz --programs 500 --jobs 1 --seed 7 --save

  A program costs about 0.3 s of one core (transforming it in both modes dominates), more
  while new failures are being shrunk. It prints the programs tried, the constructs
  covered, the failures (each distinct one shrunk by hypothesis, reduced, and written out
  as a regression file; ``--save`` writes them to ``tests/fuzz_regressions/``), the refusals
  by construct and the commonest per idiom family, the forward rules found missing, and the
  time taken. ``--seed S`` gives the same programs in any process (``generator.sample``;
  every draw stays in (-100, 100), where hypothesis never substitutes constants it read
  from imported modules: ``generator._check_small_range``).
* ``regressions.py``: reading and writing ``tests/fuzz_regressions/*.py`` (one shrunk program
  per file; a module-level ``XFAIL`` string marks an open s2sad bug).

``tests/test_fuzz.py`` runs a short, derandomized profile in the test suite, and every
regression file.
"""
