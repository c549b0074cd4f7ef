"""The long fuzz profile: ``python -m tests.fuzz --programs 10000`` (from the repository root).

(``python tests/fuzz/run.py`` does not work: the package uses relative imports.)

Options::

    --programs N     programs to try in all (default 10000)
    --jobs J         worker processes (default: min(2, number of CPUs))
    --minutes M      stop starting new batches after M minutes (default: no limit)
    --seed S         first hypothesis seed (default 0); batch k of worker w uses S + 1000 * w + k
                     (so runs whose seeds are closer than their number of batches share
                     batches, the same programs: 600 programs in batches of 200 use S..S+2)
    --batch B        programs per hypothesis run (default 200)
    --out DIR        where shrunk failing programs are written (default: a new temporary directory)
    --save           write them to tests/fuzz_regressions/ instead (marked XFAIL "not triaged yet")
    --include-known  also report failures that match a known bug (a regression marked XFAIL)
    --scalars        programs of scalar parameters only (what compile=True compiles)
    --families F,G   draw idioms from these groups of idioms.IDIOM_FAMILIES only (a campaign
                     aimed at, say, linear-algebra,ml-blocks)

Each batch is one hypothesis run. A failure that is new (not a known bug, not found before
in this run) is raised, so hypothesis shrinks it; the shrunk program is written out as a
regression file (written as soon as it is found, so an interrupted run keeps it; progress
goes to stderr). Failures matching a bug already found are only counted. Shrinking is
bounded (``SHRINK_BUDGET`` checks and ``SHRINK_SECONDS`` per failure, then ``REDUCE_BUDGET``
checks of reduce.py's edits), so one stubborn failure cannot eat the run.

It prints: programs tried, programs judged (the rest were not smooth at their inputs),
programs whose forward mode was checked, the constructs covered (how many programs used
each), the failures by signature, the refusals (S2SADErrors, located) by construct, the
forward rules found missing, and the time taken.
"""
from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
import warnings

SHRINK_BUDGET = 150     # checks hypothesis may spend shrinking one failure
REDUCE_BUDGET = 150     # checks reduce.py may spend on it afterwards
CHECK_SECONDS = 120     # a program whose checks take longer (CPU time) is reported as a "timeout" failure
SHRINK_SECONDS = 60     # and at most this long shrinking it (hypothesis' MAX_SHRINKING_SECONDS)


class FuzzFailure(AssertionError):
    """A program on which s2sad fails a check; carries the program and the failure."""

    def __init__(self, program, failure, outcome):
        self.program, self.failure, self.outcome = program, failure, outcome
        super().__init__(f"{failure}\n{program!r}")


_failure_classes: dict = {}


def failure_class(signature: str):
    """One exception class per signature: hypothesis shrinks each distinct failure on its own."""
    if signature not in _failure_classes:
        _failure_classes[signature] = type(f"FuzzFailure_{len(_failure_classes)}", (FuzzFailure,), {})
    return _failure_classes[signature]


def matches(failure, program, known) -> str | None:
    """The known bug (a file or signature) this failure is counted as, or None.

    Same category, and the known bug's constructs all appear in the program; for
    exceptions the normalised message must be the same too.
    """
    for category, features, name in known:
        categories = category if isinstance(category, (tuple, list, frozenset)) else (category,)
        if failure.category not in categories and failure.signature not in categories:
            continue
        if features <= program.features:
            return name
    return None


def families_of(program) -> list[str]:
    """The idiom families a program drew from ("core" when none: the generator's own statements)."""
    return sorted(name[len("family:"):] for name in program.features if name.startswith("family:")) or ["core"]


class Campaign:
    """Runs batches of programs through the oracle, counting, raising only new failures."""

    def __init__(self, directory, known=(), include_known=False, program_options=None, reduce_budget=REDUCE_BUDGET):
        self.directory = directory
        self.reduce_budget = reduce_budget
        self.known = list(known)
        self.include_known = include_known
        self.program_options = program_options or {}
        self.stats = collections.Counter()
        self.features = collections.Counter()
        self.missing = collections.Counter()
        self.failures = collections.Counter()     # signature -> programs failing with it
        self.refusals = collections.Counter()     # construct (the S2SADError's message) -> programs refused
        self.family_refusals = collections.Counter()   # (idiom family, construct) -> programs refused
        self.found = []                           # (signature, program, failure) shrunk
        self.results = {}                         # program key -> outcome (for repeats and shrinking)
        self.shrinking = False
        self.shrink_calls = 0

    def key(self, program):
        return (program.source, tuple(repr(p.value) for p in program.params), program.direction_seed, program.output_kind)

    def check(self, program):
        from .oracle import Outcome, TimeLimit, check_program, time_limit

        key = self.key(program)
        if key in self.results:
            return self.results[key]
        try:
            with time_limit(CHECK_SECONDS):
                outcome = check_program(program, self.directory)
        except TimeLimit:   # s2sad (or the program) never finished: a finding too
            outcome = Outcome()
            outcome.fail("timeout", f"the checks did not finish in {CHECK_SECONDS} s of CPU time")
        self.results[key] = outcome
        if len(self.results) > 2000:
            self.results.clear()
        return outcome

    def property(self, program):
        from hypothesis import assume

        key = self.key(program)
        if self.shrinking:
            self.shrink_calls += 1
            if self.shrink_calls > SHRINK_BUDGET and key not in self.results:
                return  # out of budget: only the examples already known to fail still fail
            outcome = self.check(program)
        else:
            outcome = self.check(program)
            self.stats["programs"] += 1
            self.features.update(program.features)
            if outcome.invalid:
                self.stats["not smooth at the inputs (skipped)"] += 1
            else:
                self.stats["judged"] += 1
            if outcome.forward_checked:
                self.stats["forward mode checked"] += 1
            if outcome.second_order == "checked":
                self.stats["second order checked (hvp)"] += 1
            if outcome.compiled_checked:
                self.stats["compile=True compared"] += 1
            if outcome.compiled_ran:
                self.stats["compile=True compared, compiled"] += 1
            if outcome.compiled_fallback:
                self.stats[f"compile=True fell back: {outcome.compiled_fallback}"] += 1
            for name in outcome.missing_forward:
                self.missing[name] += 1
            for failure in outcome.failures:
                self.failures[failure.signature] += 1
            for construct in sorted({construct for construct, _ in outcome.refusals}):
                self.refusals[construct] += 1
                for family in families_of(program):
                    self.family_refusals[(family, construct)] += 1
            if outcome.refusals:
                self.stats["refused (an S2SADError)"] += 1
            if outcome.failures:
                self.stats["failing programs"] += 1
        assume(not outcome.invalid)
        for failure in outcome.failures:
            known = matches(failure, program, self.known)
            if known is not None and not self.include_known:
                if not self.shrinking:
                    self.stats[f"known bug {known}"] += 1
                continue
            self.shrinking = True
            raise failure_class(failure.signature)(program, failure, outcome)

    def batch(self, seed: int, examples: int) -> None:
        from hypothesis import HealthCheck, Phase, Verbosity, given, settings
        from hypothesis import seed as hypothesis_seed

        from .generator import programs

        self.shrinking = False
        self.shrink_calls = 0
        try:   # hypothesis' own limit on the time spent shrinking one failure is 5 minutes: too long here
            from hypothesis.internal.conjecture import engine

            engine.MAX_SHRINKING_SECONDS = SHRINK_SECONDS
        except (ImportError, AttributeError):
            pass

        @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
                  suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                  phases=[Phase.generate, Phase.shrink], print_blob=False, verbosity=Verbosity.quiet)
        @hypothesis_seed(seed)
        @given(programs(**self.program_options))
        def run(program):
            self.property(program)

        try:
            run()
        except FuzzFailure as error:
            self.record(error)
        except BaseExceptionGroup as group:  # several distinct failures in one run
            for error in group.exceptions:
                if isinstance(error, FuzzFailure):
                    self.record(error)
                else:
                    raise
        except Exception as error:  # noqa: BLE001 - hypothesis' own errors (Flaky, ...) are counted, not fatal
            self.stats[f"hypothesis error {type(error).__name__}"] += 1
            print(f"batch {seed}: hypothesis stopped: {type(error).__name__}: {str(error)[:300]}", file=sys.stderr)

    def record(self, error: FuzzFailure) -> None:
        """Reduce the shrunk program further (``reduce.py``) and remember it as a known bug."""
        import dataclasses

        from .analysis import features_of
        from .oracle import check_source
        from .reduce import reduce_source

        program, failure = error.program, error.failure
        signature = failure.signature
        u, tangents = program.directions()
        if self.reduce_budget:
            source = reduce_source(program.source, program.args(), program.output_kind, u, tangents, self.directory,
                                   signature, budget=self.reduce_budget)
            if source != program.source:
                outcome = check_source(source, program.args(), program.output_kind, u, tangents, self.directory)
                failure = next(f for f in outcome.failures if f.signature == signature)
                program = dataclasses.replace(program, source=source, features=features_of(source))
        known = matches(failure, program, self.known)
        if known is not None and not self.include_known:
            # the first program did not show a known bug's constructs, its shrunk form does:
            # the same bug, reached through constructs that shrinking removed
            self.stats[f"known bug {known} (after shrinking)"] += 1
            return
        self.found.append((signature, program, failure))
        # later failures of this signature in programs with all of its constructs are counted as it
        self.known.append((signature, features_of(program.source), f"found: {signature}"))


def _worker(arguments):
    """One process of a run: batches until its share of programs is done (or the deadline).

    ``arguments``: (worker, programs, seed, batch, deadline, programs directory, known bugs,
    include_known, cache directory[, shrink budget, reduce budget[, findings directory[, program options]]]).
    """
    worker, programs, seed, batch, deadline, directory, known, include_known, cache, *options = arguments
    global SHRINK_BUDGET, SHRINK_SECONDS
    os.environ["S2SAD_CACHE_DIR"] = cache
    warnings.simplefilter("ignore")
    if options:
        SHRINK_BUDGET = options[0]
        SHRINK_SECONDS = min(SHRINK_SECONDS, SHRINK_BUDGET // 3)
    findings = options[2] if len(options) > 2 else None
    campaign = Campaign(directory, known, include_known, reduce_budget=options[1] if len(options) > 1 else REDUCE_BUDGET,
                        program_options=options[3] if len(options) > 3 else None)
    done, k, started = 0, 0, time.time()
    while done < programs and time.time() < deadline:
        count = min(batch, programs - done)
        before, found_before = campaign.stats["programs"], len(campaign.found)
        campaign.batch(seed + 1000 * worker + k, count)
        done += max(campaign.stats["programs"] - before, 1)
        k += 1
        for signature, program, failure in campaign.found[found_before:]:
            if findings:   # written at once: an interrupted run keeps what it found
                from . import regressions

                regressions.save(program, failure, f"{failure.category} {signature.split(':')[-1][:40]}", findings,
                                 xfail=f"not triaged yet: {signature}")
            print(f"worker {worker}: new failure {signature}", file=sys.stderr, flush=True)
        print(f"worker {worker}: {campaign.stats['programs']} programs, {campaign.stats['failing programs']} failing, "
              f"{len(campaign.found)} new failure(s) shrunk, {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    found = [(signature, program, failure) for signature, program, failure in campaign.found]
    return (campaign.stats, campaign.features, campaign.missing, campaign.failures, campaign.refusals, found,
            campaign.family_refusals)


def _program_options(arguments) -> dict | None:
    """The options of generator.programs a campaign asks for (--scalars, --families)."""
    from .idioms import IDIOM_FAMILIES

    options = {}
    if arguments.scalars:
        options["scalars_only"] = True
    if arguments.families:
        families = frozenset(name.strip() for name in arguments.families.split(",") if name.strip())
        unknown = sorted(families - set(IDIOM_FAMILIES))
        if unknown:
            raise SystemExit(f"unknown idiom families {unknown}; known: {', '.join(IDIOM_FAMILIES)}")
        options["families"] = families
    return options or None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", type=int, default=10000)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--out", default=None)
    parser.add_argument("--save", action="store_true")
    parser.add_argument("--include-known", action="store_true")
    parser.add_argument("--scalars", action="store_true",
                        help="programs of scalar parameters only (what compile=True compiles: both modes compared)")
    parser.add_argument("--families", default="",
                        help="comma-separated groups of idioms.IDIOM_FAMILIES: draw idioms from these only")
    arguments = parser.parse_args(argv)

    from . import regressions

    _program_options(arguments)   # an unknown family is said before any work starts
    started = time.time()
    deadline = started + 60 * arguments.minutes if arguments.minutes else float("inf")
    known = [] if arguments.include_known else regressions.known_bugs()
    work = tempfile.mkdtemp(prefix="s2sad-fuzz-")
    out = regressions.DIRECTORY if arguments.save else (arguments.out or os.path.join(work, "findings"))
    jobs = max(1, arguments.jobs)
    shares = [arguments.programs // jobs + (1 if w < arguments.programs % jobs else 0) for w in range(jobs)]
    tasks = []
    for w in range(jobs):
        programs_directory = os.path.join(work, f"programs-{w}")
        cache = os.path.join(work, f"cache-{w}")
        os.makedirs(programs_directory)
        tasks.append((w, shares[w], arguments.seed, arguments.batch, deadline, programs_directory, known,
                      arguments.include_known, cache, SHRINK_BUDGET, REDUCE_BUDGET, out,
                      _program_options(arguments)))
    if jobs == 1:
        results = [_worker(tasks[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            results = pool.map(_worker, tasks)

    stats, features, missing, failures, refusals, family_refusals = (collections.Counter() for _ in range(6))
    found = {}
    for s, f, m, fl, rf, fd, frf in results:
        family_refusals.update(frf)
        stats.update(s)
        features.update(f)
        missing.update(m)
        failures.update(fl)
        refusals.update(rf)
        for signature, program, failure in fd:
            if signature not in found or len(program.source) < len(found[signature][0].source):
                found[signature] = (program, failure)
    elapsed = time.time() - started

    print(f"s2sad fuzz: {stats['programs']} programs in {elapsed:.0f} s ({jobs} job(s), seed {arguments.seed})")
    for name in ("judged", "not smooth at the inputs (skipped)", "forward mode checked", "second order checked (hvp)",
                 "compile=True compared", "compile=True compared, compiled", "failing programs",
                 "refused (an S2SADError)"):
        print(f"  {name}: {stats[name]}")
    for name, count in sorted(stats.items()):
        if name.startswith(("known bug", "hypothesis error")):
            print(f"  {name}: {count}")
    fallbacks = sorted(((count, name) for name, count in stats.items() if name.startswith("compile=True fell back")),
                       reverse=True)
    if fallbacks:
        print(f"why compile=True ran the NumPy path (the {min(12, len(fallbacks))} commonest of {len(fallbacks)}):")
        for count, name in fallbacks[:12]:
            print(f"  {count:6d}  {name[len('compile=True fell back: '):]}")
    print(f"constructs covered ({len(features)}):")
    for name, count in sorted(features.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {count:6d}  {name}")
    print(f"failures by signature ({len(failures)}):")
    for signature, count in failures.most_common():
        print(f"  {count:6d}  {signature}")
    print(f"refusals by construct ({len(refusals)}; not failures: each names its file and line):")
    for construct, count in refusals.most_common():
        print(f"  {count:6d}  {construct}")
    print("the commonest refusals per idiom family (programs; a program counts in each family it drew from):")
    by_family = collections.defaultdict(list)
    for (family, construct), count in family_refusals.items():
        by_family[family].append((count, construct))
    for family in sorted(by_family, key=lambda name: -sum(count for count, _ in by_family[name])):
        print(f"  {family}:")
        for count, construct in sorted(by_family[family], reverse=True)[:3]:
            print(f"    {count:6d}  {construct[:150]}")
    print(f"missing forward rules ({len(missing)}):")
    for name, count in missing.most_common():
        print(f"  {count:6d}  {name}")
    if found:
        print(f"shrunk failing programs ({len(found)}), written to {out}:")
        for signature, (program, failure) in sorted(found.items()):
            print(f"  {signature}\n      {failure.message[:300]}")
    for w in range(jobs):
        shutil.rmtree(os.path.join(work, f"programs-{w}"), ignore_errors=True)
        shutil.rmtree(os.path.join(work, f"cache-{w}"), ignore_errors=True)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
