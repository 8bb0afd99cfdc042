"""How strong are the vectors? Mutation testing of a machine's implementation (issue 17).

``python -m tests.quality.mutation MACHINE`` makes one small change at a time to the machine's
impl package (a comparison's boundary shifted or negated, ``and``/``or`` swapped, a number
changed, a condition negated, a loop run zero times, ``+``/``-`` swapped), runs a check against
each such mutant, and reports which mutants the check *kills* (it fails) and which *survive*
(it passes: the change is invisible to it). The mutations are cosmic-ray's (PyPI
``cosmic-ray``): its operators find the sites and make each change to the source text. It was
chosen over mutmut because it exposes the mutation of one site as a function, so the check can
be anything, here the conformance suite itself, the program a user runs (mutmut copies the
sources into a tree of its own, which the symlinked ``groupspec/impl`` layout does not survive,
and drives pytest only).

* The check ``--against vectors`` (default) is the machine's conformance vectors on
  ``--target impl`` and ``--target impl-kafka``: the score of the vectors alone, what a user's
  implementation is held to. A mutant survives when every vector's outcome is as unmutated.
  ``--against quick`` is the quick test loop, stopping at the first failure, narrowed for each
  mutant to the tests that execute its line; run it on the vectors' survivors (``--only FILE``)
  to see whether the tests catch what the vectors miss. A line run outside every test (at
  import) gets the whole selection; ``--whole`` gives every mutant the whole selection (the
  narrowing misses tests that only read a cached function's answer).
* Each mutant runs in a forked child that imports the mutated text in place of the file
  (mutation_fork.py); nothing is written, so no mutant can be left behind in the sources. Tests
  that start another Python process see the file on disk, not the mutant: only in-process checks
  can kill.
* A mutant on a line the unmutated check never executes survives without running (``reached``
  false in the report).
* ``--sample N --seed S`` draws N mutants (the same ones for the same seed and sources); without
  ``--sample`` every mutant runs. A mutant that runs past ``--timeout`` counts as killed (an
  infinite loop is noticed; the limit is never below three times the unmutated check's own
  time, so a slow check is not mistaken for a hang), one whose mutated source does not compile
  is *incompetent* and is left out of the score.
* tests/quality/equivalent_mutants/<package>.json lists survivors judged equivalent (no
  observable difference exists), each with a reason; they are reported but left out of the score.

Output: a table on stdout, and with ``--out FILE`` a JSON report (every mutant's site, operator,
diff and outcome) that ``--only`` reads back.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import fnmatch
import functools
import json
import os
import random
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tests.quality import mutation_fork

ROOT = Path(__file__).resolve().parents[2]
#: One file per impl package: <package>.json, {"equivalent": [{"mutant": key, "reason": why}]}.
EQUIVALENT_DIR = Path(__file__).with_name("equivalent_mutants")

#: cosmic-ray's operators kept: the kinds of change issue 17 names. The arithmetic replacements
#: beyond + and - (132 of them: ``a + b`` to ``a ** b``, ``a >> b``, ...) mostly give mutants any
#: test kills at once, and would be most of the count.
OPERATOR_PREFIXES = (
    "core/ReplaceComparisonOperator_",
    "core/ReplaceAndWithOr",
    "core/ReplaceOrWithAnd",
    "core/NumberReplacer",
    "core/AddNot",
    "core/ReplaceTrueWithFalse",
    "core/ReplaceFalseWithTrue",
    "core/ZeroIterationForLoop",
    "core/ReplaceBreakWithContinue",
    "core/ReplaceContinueWithBreak",
    "core/ReplaceUnaryOperator_Delete_Not",
    "core/ReplaceBinaryOperator_Add_Sub",
    "core/ReplaceBinaryOperator_Sub_Add",
)

#: Left out: any comparison turned into an identity test (``<``, ``==``, ... to ``is`` or ``is
#: not``), and ``is``/``is not`` to ``==``/``!=``. The impl compares enums, None and small ints,
#: where ``is not`` acts as ``!=`` and ``is`` as ``==``: each such mutant repeats the ``==``/``!=``
#: mutant of the same site (for offsets above 256 it would be a test Python itself warns about).
def _skipped(operator: str) -> bool:
    name = operator.removeprefix("core/ReplaceComparisonOperator_")
    if name == operator:
        return False
    source, _, target = name.partition("_")
    return (target in ("Is", "IsNot") and source not in ("Is", "IsNot")) or name in ("Is_Eq", "IsNot_NotEq")


QUICK = ("tests/cover", "tests/scenarios", "tests/quality", "tests/repo")
#: Impl files the vectors cannot see by design, each with the quick-loop tests that hold it. A
#: fast path that declines to the general path whenever anything is unusual changes only speed
#: when a mutant makes it decline more, so a vector (which judges answers) never tells the two
#: apart; its differential tests, which demand the fast answer where the general one exists,
#: do. These files are left out of the vectors' sample and score and gated by those tests
#: instead (test_mutation_gate.py).
QUICK_LOOP_ONLY: dict[str, tuple[str, ...]] = {
    "impl/classic_group/fast_offsets.py": ("tests/cover/test_fast_offsets.py",),
    "impl/codec/raw.py": ("tests/cover/test_fast_offsets.py",),
}
#: The unmutated check must pass within this (the quick loop on one process takes minutes).
BASELINE_LIMIT_S = 3600.0


class MutationError(Exception):
    """A bad request to the tool (unknown machine, unreadable report)."""


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One change: ``occurrence`` counts the sites of ``operator`` in ``path`` (relative to the
    repository root); ``line`` is where it is, for people."""

    path: str
    operator: str
    occurrence: int
    line: int

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}:{self.operator}#{self.occurrence}"


@dataclasses.dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    status: str  # killed, survived, timeout, incompetent
    seconds: float
    diff: str
    #: False: the unmutated check never executes the mutated line, so the mutant was not run.
    reached: bool = True
    #: What the check said when it did not pass (an exception, pytest's exit code).
    detail: str = ""


def _entry(machine: str) -> Any:
    from groupspec import machines

    try:
        return machines.get(machine)
    except KeyError as exc:
        raise MutationError(str(exc.args[0])) from None


def impl_files(machine: str) -> list[Path]:
    """The machine's impl package, from the registry, as paths relative to the root."""
    entry = _entry(machine)
    package = ROOT / "impl" / entry.impl.removeprefix("groupspec.impl.")
    return sorted(p.relative_to(ROOT) for p in package.rglob("*.py"))


def vector_files(machine: str) -> list[Path]:
    """The machine's impl files whose mutants the vectors are held to (not :data:`QUICK_LOOP_ONLY`)."""
    return [f for f in impl_files(machine) if str(f) not in QUICK_LOOP_ONLY]


def spec_files(machine: str) -> list[Path]:
    """The machine's spec module (the shared kernel, spec/kernel.py, is not part of any one)."""
    entry = _entry(machine)
    if entry.spec is None:
        raise MutationError(f"{machine} has no spec to mutate (its registry entry names none)")
    return [Path("spec") / (entry.spec.removeprefix("groupspec.spec.").replace(".", "/") + ".py")]


def enumerate_mutants(files: Sequence[Path], root: Path = ROOT) -> list[Mutant]:
    """Every site of every kept operator in ``files``, in a stable order."""
    return list(_enumerate(tuple(files), root))


@functools.cache  # cosmic-ray visits every operator of its own (about 2 s a package)
def _enumerate(files: tuple[Path, ...], root: Path) -> tuple[Mutant, ...]:
    from cosmic_ray.commands.init import init
    from cosmic_ray.work_db import WorkDB, use_db

    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "session.sqlite"
        with use_db(str(db_path), WorkDB.Mode.create) as db:
            init([root / f for f in files], db, {})
            specs = [m for item in db.work_items for m in item.mutations]
    out = [Mutant(str(Path(s.module_path).relative_to(root)), s.operator_name, s.occurrence, s.start_pos[0])
           for s in specs
           if s.operator_name.startswith(OPERATOR_PREFIXES) and not _skipped(s.operator_name)]
    return tuple(sorted(out, key=lambda m: (m.path, m.line, m.operator, m.occurrence)))


def sample(mutants: list[Mutant], n: int | None, seed: int) -> list[Mutant]:
    if n is None or n >= len(mutants):
        return mutants
    return sorted(random.Random(seed).sample(mutants, n), key=lambda m: (m.path, m.line, m.operator))


def vectors_check(machine: str, on: Sequence[str] = ("impl", "impl-kafka")) -> mutation_fork.Check:
    """The check ``--against vectors``: the machine's conformance vectors on the impl and on its
    Kafka-exact mode (held to the Kafka expectations: the mode's code, Java collection orders and
    Kafka's checks, is part of the impl and only that target reaches it). Its verdict is the set
    of vectors that pass on each target; a mutant survives when it is the unmutated one's.

    A later Kafka release line's vectors (groupspec.kafka_versions) count too, for the machines
    that line changes: they are the only vectors that reach the code of that line's settings."""
    from groupspec import kafka_versions
    from groupspec.conformance import vector_format as vf

    sets = []
    for line in kafka_versions.VERSIONS:
        root = vf.default_root(line)
        if root.is_dir():
            found = [v for v in vf.load(root) if v.id.startswith(f"{machine}/")]
            if found:
                sets.append((root, found))
    if not sets:
        raise MutationError(f"no vector of {machine} in {vf.default_root()}")

    def check() -> object:
        from groupspec.conformance import runner, targets

        verdict = []
        for name in on:
            for root, vectors in sets:
                report = runner.run(vectors, targets.make_target(name, 60.0),
                                    targets.DEFAULT_FLAVOUR.get(name, "groupspec"), None, root=root)
                verdict.append(tuple(sorted((f"{root.name}/{o.id}", o.status) for o in report.outcomes)))
        return all(s != "failed" for v in verdict for _, s in v), tuple(verdict)

    return check


class _NameTheTest:
    """A pytest plugin: the line tracer files what runs under the test running it."""

    @staticmethod
    def pytest_runtest_setup(item: Any) -> None:
        mutation_fork.CURRENT[0] = item.nodeid

    @staticmethod
    def pytest_runtest_logfinish() -> None:
        mutation_fork.CURRENT[0] = None


def quick_check(selected: Sequence[str] = QUICK) -> mutation_fork.Check:
    """The check ``--against quick``: the quick test loop (or the tests in ``selected``, node
    ids) in the child, stopping at the first failure; its verdict is pytest's exit code. The tool
    itself (test_mutation.py) is left out: it checks the tool, not the impl."""

    def check() -> tuple[bool, object]:
        import pytest

        code = int(pytest.main(["-x", "-q", "-n", "0", "-p", "no:cacheprovider",
                                "--ignore", str(Path(__file__).with_name("test_mutation.py")),
                                "--rootdir", str(ROOT), *selected], plugins=[_NameTheTest()]))
        return code == 0, code

    return check


def quick_for(tests: set[str | None], selected: Sequence[str] = QUICK) -> mutation_fork.Check:
    """The quick loop narrowed to the tests that executed the mutated line unmutated: no other
    test runs that line, so no other can see the change. A line run outside every test (None:
    a class body or a default at import, a module constant) shapes what every test sees, so
    it gets the whole selection."""
    if None in tests:
        return quick_check(selected)
    return quick_check(sorted(t for t in tests if t is not None))


def narrower(selected: Sequence[str]) -> Callable[[set[str | None]], mutation_fork.Check]:
    """``quick_for`` over the selection ``selected`` (the quick loop, or ``--tests``)."""
    return functools.partial(quick_for, selected=selected)


def _compiles(source: str) -> bool:
    with warnings.catch_warnings():  # a mutant's `x is 0` warns; it still runs, and is judged
        warnings.simplefilter("ignore", SyntaxWarning)
        try:
            compile(source, "<mutant>", "exec")
        except SyntaxError:
            return False
    return True


def _mutate(m: Mutant, root: Path) -> tuple[str, str | None]:
    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator

    original = (root / m.path).read_text(encoding="utf-8")
    return original, mutate_code(original, get_operator(m.operator)(), m.occurrence)


@functools.cache
def _header_lines(path: Path) -> dict[int, tuple[int, ...]]:
    """Line -> the lines of the statement (a compound statement's header only) it belongs to.

    The tracer sees the lines Python reports as it runs, and a condition spread over several
    lines (``if not (a <\n b)``) reports only some of them: a mutant on another line of the same
    statement is reached all the same."""
    import ast

    spans: dict[int, tuple[int, ...]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.stmt) or node.end_lineno is None:
            continue
        body = getattr(node, "body", None)
        last = body[0].lineno - 1 if isinstance(body, list) and body and body[0].lineno > node.lineno \
            else node.end_lineno
        if isinstance(body, list) and body and last < node.lineno:
            last = node.lineno
        lines = tuple(range(node.lineno, last + 1))
        for line in lines:
            if line not in spans or len(lines) < len(spans[line]):
                spans[line] = lines  # the innermost statement holding the line
    return spans


def _who_reached(m: Mutant, reached: dict[tuple[str, int], set[str | None]], root: Path) -> set[str | None]:
    """Who executed the statement the mutant is on (empty: nobody)."""
    out: set[str | None] = set()
    for line in _header_lines(root / m.path).get(m.line, (m.line,)):
        out |= reached.get((m.path, line), set())
    return out


def run(mutants: Sequence[Mutant], check: mutation_fork.Check, timeout: float, workers: int = 2,
        progress: bool = False, root: Path = ROOT,
        narrow: Callable[[set[str | None]], mutation_fork.Check] | None = None) -> Iterator[Outcome]:
    """Each mutant's check in a forked child that imports the mutated file instead of the one on
    disk (mutation_fork.py): nothing is ever written, so no mutant can be left behind. A mutant on
    a line the unmutated check never executes survives without running."""
    files = sorted({Path(m.path) for m in mutants})
    started = time.monotonic()
    try:
        verdict, reached = mutation_fork.reached_lines(check, files, root, BASELINE_LIMIT_S)
    except RuntimeError as exc:
        raise MutationError(str(exc)) from None
    if not verdict[0]:
        raise MutationError(f"the check fails without any mutant: {str(verdict[1])[:400]}")
    # A mutant may take longer than the unmutated check (more retries, a longer search), but a
    # run far beyond it is a hang: the limit is the larger of --timeout and 3 x the baseline.
    timeout = max(timeout, 3 * (time.monotonic() - started))
    jobs: list[tuple[Any, Any]] = []
    done = 0

    def note(o: Outcome) -> Outcome:
        nonlocal done
        done += 1
        if progress:
            print(f"[{done}/{len(mutants)}] {o.status:11} {o.mutant.key} {o.detail[:80]}", file=sys.stderr)
        return o

    diffs: dict[Mutant, str] = {}
    for m in mutants:
        original, mutated = _mutate(m, root)
        if mutated is None:
            continue
        diff = "\n".join(difflib.unified_diff(original.splitlines(), mutated.splitlines(),
                                              m.path, m.path, n=0, lineterm=""))
        if not _compiles(mutated):
            yield note(Outcome(m, "incompetent", 0.0, diff))
        elif not (who := _who_reached(m, reached, root)):
            yield note(Outcome(m, "survived", 0.0, diff, reached=False))
        else:
            diffs[m] = diff
            own = narrow(who) if narrow else check
            jobs.append((m, mutation_fork.mutant_work(own, m.path, root, mutated)))
    for m, (status, value), seconds in mutation_fork.run_many(jobs, timeout, workers):
        detail = ""
        if status == "ok":
            status = "survived" if value == verdict else "killed"
            detail = "" if status == "survived" else str(value[1])[:300]
        elif status == "error":
            status, detail = "killed", str(value)[:300]
        yield note(Outcome(m, status, round(seconds, 2), diffs[m], detail=detail))


def equivalents() -> dict[str, str]:
    """Survivors judged equivalent: key -> why no observable difference exists."""
    return _judged("equivalent")


#: The lists of survivors the vectors cannot see by design (docs/conformance.md, "How strong the
#: vectors are"): ``wording``, a change to an error's prose only (a vector names an error by its
#: kind, the text being each implementation's own); ``compressed``, a change to a compressor's
#: output only (a vector judges a compressed batch by what it reads back as, the compressed bytes
#: being each writer's own); ``library``, code only a library caller reaches (a callback that
#: ``groupspec describe`` passes and the conformance drivers never do). The vectors' score leaves
#: them out, as it does equivalents; the quick loop's does not, since the tests hold the impl's
#: messages, compressed bytes and library calls.
BY_DESIGN = ("wording", "compressed", "library")


def by_design() -> dict[str, str]:
    """Survivors the vectors cannot see by design (:data:`BY_DESIGN`): key -> what they change."""
    out: dict[str, str] = {}
    for kind in BY_DESIGN:
        out.update(_judged(kind))
    return out


def _judged(kind: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(EQUIVALENT_DIR.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        out.update({e["mutant"]: e["reason"] for e in doc.get(kind, [])})
    return out


def left_out(against: str) -> dict[str, str]:
    """The survivors a check's score leaves out: the equivalents, and for the vectors those it
    cannot see by design."""
    return {**by_design(), **equivalents()} if against == "vectors" else equivalents()


@dataclasses.dataclass(frozen=True)
class Score:
    killed: int
    survived: int
    equivalent: int
    incompetent: int

    @property
    def ratio(self) -> float:
        scored = self.killed + self.survived
        return self.killed / scored if scored else 1.0


def score(outcomes: Sequence[Outcome], equivalent: dict[str, str]) -> Score:
    killed = sum(o.status in ("killed", "timeout") for o in outcomes)
    eq = sum(o.status == "survived" and o.mutant.key in equivalent for o in outcomes)
    survived = sum(o.status == "survived" for o in outcomes) - eq
    return Score(killed, survived, eq, sum(o.status == "incompetent" for o in outcomes))


#: What the CI gate holds the vectors to (test_mutation_gate.py): per machine, the score of a
#: fixed sample, and of the full pass in the deep profile.
FLOOR_FILE = Path(__file__).with_name("mutation_floor.json")


def floors() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(FLOOR_FILE.read_text(encoding="utf-8"))
    return doc


@dataclasses.dataclass(frozen=True)
class Gate:
    machine: str
    score: Score
    floor: float
    survivors: tuple[str, ...]

    @property
    def holds(self) -> bool:
        return self.score.ratio >= self.floor

    def explain(self) -> str:
        who = "its tests" if self.machine in QUICK_LOOP_ONLY else "the vectors"
        return (f"{self.machine}: {who} kill {self.score.ratio:.1%} of the sampled mutants, "
                f"below the recorded {self.floor:.1%}. Survivors (not judged equivalent):\n  "
                + "\n  ".join(self.survivors)
                + "\nA vector lost its power, or new code has no vector: add one (or judge the "
                  "survivor equivalent, with the reason) before lowering the figure in "
                  f"{FLOOR_FILE.name}.")


def gate(machine: str, sampled: int | None, seed: int, floor: float,
         check: mutation_fork.Check | None = None, workers: int = 1) -> Gate:
    """The machine's vectors (or ``check``) on ``sampled`` mutants drawn with ``seed`` (all of
    them for None), against ``floor``."""
    mutants = sample(enumerate_mutants(vector_files(machine)), sampled, seed)
    outcomes = list(run(mutants, check or vectors_check(machine), 10.0, workers))
    eq = left_out("vectors")
    left = tuple(o.mutant.key for o in outcomes if o.status == "survived" and o.mutant.key not in eq)
    return Gate(machine, score(outcomes, eq), floor, left)


def quick_loop_gate(machine: str, path: str, sampled: int | None, seed: int, floor: float = 1.0) -> Gate:
    """A :data:`QUICK_LOOP_ONLY` file's ``sampled`` mutants (all for None) against its tests, run
    by this tool in a process of its own: inside a test run the tests may be imported already,
    bound to the unmutated functions, and a forked child would then never see the mutant."""
    import subprocess

    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "report.json"
        command = [sys.executable, "-m", "tests.quality.mutation", machine, "--against", "quick",
                   "--tests", *QUICK_LOOP_ONLY[path], "--files", path, "--seed", str(seed),
                   "--workers", "1", "--out", str(out)]
        if sampled is not None:
            command += ["--sample", str(sampled)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        if done.returncode != 0 or not out.exists():
            raise MutationError(f"the quick loop on {path} did not run: {done.stderr[-2000:]}")
        doc = json.loads(out.read_text(encoding="utf-8"))
    outcomes = [Outcome(Mutant(m["path"], m["operator"], m["occurrence"], m["line"]), m["status"],
                        m["seconds"], m["diff"]) for m in doc["mutants"]]
    eq = left_out("quick")
    left = tuple(o.mutant.key for o in outcomes if o.status == "survived" and o.mutant.key not in eq)
    return Gate(path, score(outcomes, eq), floor, left)


def report_json(machine: str, against: str, outcomes: Sequence[Outcome], s: Score,
                seed: int, sampled: int | None, total: int) -> dict[str, Any]:
    from importlib.metadata import version

    return {"machine": machine, "against": against, "tool": f"cosmic-ray {version('cosmic-ray')}",
            "date": time.strftime("%Y-%m-%d"), "mutants_in_total": total, "sample": sampled,
            "seed": seed, "score": round(s.ratio, 4), "killed": s.killed, "survived": s.survived,
            "equivalent": s.equivalent, "incompetent": s.incompetent,
            "mutants": [{**dataclasses.asdict(o.mutant), "key": o.mutant.key, "status": o.status,
                         "reached": o.reached, "detail": o.detail, "seconds": o.seconds, "diff": o.diff}
                        for o in outcomes]}


def _read_only(path: Path) -> list[Mutant]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        return [Mutant(m["path"], m["operator"], m["occurrence"], m["line"])
                for m in doc["mutants"] if m["status"] == "survived"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MutationError(f"--only {path}: not a report this tool wrote ({exc})") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.quality.mutation", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("machine", help="a machine of groupspec/machines.py (its impl package is mutated)")
    parser.add_argument("--layer", choices=("impl", "spec"), default="impl",
                        help="mutate the impl package, or the spec module (checked by the vectors on "
                             "--target spec, which the spec wrote, and by its own contracts and tests)")
    parser.add_argument("--against", choices=("vectors", "quick"), default="vectors")
    parser.add_argument("--sample", type=int, default=None, metavar="N", help="run N mutants drawn by --seed")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S",
                        help="seconds a mutant's check may take (at least 3 x the unmutated check)")
    parser.add_argument("--workers", type=int, default=2, metavar="N", help="mutants run at once")
    parser.add_argument("--only", type=Path, default=None, metavar="REPORT",
                        help="run only the survivors of an earlier JSON report")
    parser.add_argument("--files", default=None, metavar="GLOB",
                        help="mutate only the machine's files matching GLOB (e.g. 'impl/codec/batch.py')")
    parser.add_argument("--tests", action="append", default=None, metavar="PATH",
                        help="with --against quick: run these test paths instead of the whole quick loop "
                             "(repeatable). A mutant they kill, the loop kills; one they miss may still "
                             "die to the rest, so run the survivors again without --tests")
    parser.add_argument("--whole", action="store_true",
                        help="with --against quick: run the whole selection for every mutant instead of "
                             "the tests that executed its line (the tracer credits a cached function's "
                             "line to the first test that called it, not to later tests that read the "
                             "cached answer)")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE", help="write the JSON report")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per mutant on stderr")
    args = parser.parse_args(argv)
    try:
        if args.tests and args.against != "quick":
            raise MutationError("--tests narrows the quick loop: give it with --against quick")
        if args.whole and args.against != "quick":
            raise MutationError("--whole runs the quick loop unnarrowed: give it with --against quick")
        files = impl_files(args.machine) if args.layer == "impl" else spec_files(args.machine)
        if args.files is not None:
            files = [f for f in files if fnmatch.fnmatch(str(f), args.files)]
            if not files:
                raise MutationError(f"--files {args.files}: matches none of {args.machine}'s files")
        elif args.against == "vectors" and args.layer == "impl":
            files = vector_files(args.machine)
        only = _read_only(args.only) if args.only else None
        everything = enumerate_mutants(files)
        chosen = only if only is not None else sample(everything, args.sample, args.seed)
        if args.against == "vectors":
            on = ("impl", "impl-kafka") if args.layer == "impl" else ("spec",)
            outcomes = list(run(chosen, vectors_check(args.machine, on), args.timeout, args.workers,
                                args.verbose))
        else:
            selected = args.tests or QUICK
            outcomes = list(run(chosen, quick_check(selected), args.timeout, args.workers,
                                args.verbose, narrow=None if args.whole else narrower(selected)))
    except MutationError as exc:
        print(f"mutation: error: {exc}", file=sys.stderr)
        return 2
    eq, same = left_out(args.against), equivalents()
    s = score(outcomes, eq)
    unseen = sum(o.status == "survived" and o.mutant.key in eq and o.mutant.key not in same for o in outcomes)
    print(f"{args.machine} ({args.layer}) against {args.against}: "
          f"{len(outcomes)} of {len(everything)} mutants; "
          f"killed {s.killed}, survived {s.survived}, equivalent {s.equivalent - unseen}, "
          f"unseen by design {unseen}, incompetent {s.incompetent}; score {s.ratio:.1%}")
    for o in outcomes:
        if o.status == "survived":
            key = o.mutant.key
            mark = "SURVIVED" if key not in eq else "equivalent" if key in same else "by design"
            print(f"  {mark} {o.mutant.key}\n    " + "\n    ".join(o.diff.splitlines()[2:]))
    if args.out:
        against = f"{args.against} ({' '.join(args.tests)})" if args.tests else args.against
        against += ", whole" if args.whole else ""
        doc = report_json(args.machine, f"{args.layer} against {against}", outcomes, s, args.seed,
                          args.sample, len(everything))
        args.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
