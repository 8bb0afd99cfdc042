"""The mutation tool (tests/quality/mutation.py) measures the vectors' strength; these tests show
it can tell a killed mutant from a surviving one, and that it never leaves a mutant behind."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.quality import mutation

CONSUMER = mutation.impl_files("share_consumer")
#: One file of it: cosmic-ray takes about a second a package to find the sites.
CLIENT = [Path("impl/share_consumer/consumer.py")]
#: Where the share consumer's boolean conditions live.
MEMBERSHIP = [Path("impl/share_consumer/membership.py")]


def test_the_machine_is_its_impl_package() -> None:
    assert CLIENT[0] in CONSUMER
    assert all(p.parts[:2] == ("impl", "share_consumer") for p in CONSUMER)


def test_the_sites_are_the_kinds_of_change_issue_17_names() -> None:
    mutants = mutation.enumerate_mutants(CLIENT + MEMBERSHIP)
    kinds = Counter(m.operator.removeprefix("core/").split("_")[0] for m in mutants)
    for kind in ("ReplaceComparisonOperator", "ReplaceAndWithOr", "ReplaceOrWithAnd", "NumberReplacer",
                 "AddNot"):
        assert kinds[kind] > 0, kind
    assert not any(m.operator.endswith(("_Is", "_IsNot")) and "_Is_" not in m.operator
                   and "_IsNot_" not in m.operator for m in mutants)
    assert {"core/ReplaceComparisonOperator_Lt_NotEq", "core/ReplaceComparisonOperator_Is_IsNot"} <= {
        m.operator for m in mutants}
    assert all(m.path.startswith("impl/share_consumer/") and m.line > 0 for m in mutants)
    assert len({m.key for m in mutants}) == len(mutants)


def test_a_sample_is_the_same_for_the_same_seed() -> None:
    mutants = mutation.enumerate_mutants(CLIENT)
    assert mutation.sample(mutants, 7, 3) == mutation.sample(mutants, 7, 3)
    assert mutation.sample(mutants, 7, 3) != mutation.sample(mutants, 7, 4)
    assert mutation.sample(mutants, None, 3) == mutants


def _code_of(module_name: str) -> bytes:
    """Every function's compiled code in a module as imported (a mutant changes it)."""
    import importlib
    import marshal

    module = importlib.import_module(module_name)
    codes = []
    for value in vars(module).values():
        for f in [value, *vars(value).values()] if isinstance(value, type) else [value]:
            code = getattr(f, "__code__", None)
            if code is not None and code.co_filename.endswith(CLIENT[0].name):
                codes.append(marshal.dumps(code))
    return b"".join(sorted(codes))


VECTORS = mutation.vectors_check("share_consumer")


def _sees() -> tuple[bool, object]:
    """Runs the vectors (so every line they reach is reached) and answers with the client's code."""
    VECTORS()
    return True, _code_of("groupspec.impl.share_consumer.consumer")


def _blind() -> tuple[bool, object]:
    VECTORS()
    return True, None


def _reached(mutants: list[mutation.Mutant]) -> list[mutation.Mutant]:
    """The mutants in method bodies the vectors execute (not in a default value: it is no part of
    the code _code_of compares)."""
    _, lines = mutation.mutation_fork.reached_lines(_blind, CLIENT, mutation.ROOT, 60)
    text = (mutation.ROOT / CLIENT[0]).read_text(encoding="utf-8").splitlines()
    return [m for m in mutants
            if (m.path, m.line) in lines and not text[m.line - 1].lstrip().startswith("def ")]


def test_a_check_that_sees_the_change_kills_it_and_the_checkout_is_untouched() -> None:
    """Each child imports the mutated file: a check answering with the imported code kills every
    mutant it reaches; one that sees nothing lets each survive. Nothing is written."""
    (target,) = CLIENT
    before = (mutation.ROOT / target).read_bytes()
    mutants = _reached(mutation.enumerate_mutants(CLIENT))[:3]
    assert len(mutants) == 3
    killed = list(mutation.run(mutants, _sees, timeout=30))
    survived = list(mutation.run(mutants, _blind, timeout=30))
    assert [o.status for o in killed] == ["killed"] * 3
    assert [(o.status, o.reached) for o in survived] == [("survived", True)] * 3
    assert all(o.diff.startswith(f"--- {target}") for o in killed)
    assert (mutation.ROOT / target).read_bytes() == before
    s = mutation.score(survived, {survived[0].mutant.key: "planted equivalent"})
    assert (s.killed, s.survived, s.equivalent) == (0, 2, 1)


def test_a_mutant_the_check_never_reaches_survives_without_running() -> None:
    """The check here only imports the module: a change inside a method body cannot alter it."""

    def imports_only() -> tuple[bool, object]:
        _code_of("groupspec.impl.share_consumer.consumer")
        return True, None

    mutants = mutation.enumerate_mutants(CLIENT)
    _, lines = mutation.mutation_fork.reached_lines(imports_only, CLIENT, mutation.ROOT, 60)
    unreached = [m for m in mutants if (m.path, m.line) not in lines][:2]
    assert len(unreached) == 2 and lines  # the def lines run at import, the bodies do not
    outcomes = list(mutation.run(unreached, imports_only, timeout=30))
    assert [(o.status, o.reached, o.seconds) for o in outcomes] == [("survived", False, 0.0)] * 2


def test_the_vectors_kill_what_they_reach_and_a_hang_is_a_timeout() -> None:
    """The real check kills a mutant the vectors pin; a check that never ends on a mutant is
    stopped at the limit and counted as killed."""
    mutants = _reached(mutation.enumerate_mutants(CLIENT))
    (outcome,) = mutation.run(mutants[:1], VECTORS, timeout=30)
    assert outcome.status == "killed", outcome.diff
    committed = _code_of("groupspec.impl.share_consumer.consumer")

    def hangs_on_a_mutant() -> tuple[bool, object]:
        VECTORS()
        if _code_of("groupspec.impl.share_consumer.consumer") != committed:
            import time

            time.sleep(3600)
        return True, None

    (hung,) = mutation.run(mutants[:1], hangs_on_a_mutant, timeout=0.5)
    assert hung.status == "timeout"
    assert mutation.score([hung], {}).killed == 1


def test_a_check_slower_than_the_timeout_is_not_taken_for_a_hang() -> None:
    """The limit is at least three times the unmutated check's time: a check that takes 0.3 s
    passes its mutant within a 0.05 s --timeout instead of killing it as a hang."""

    def slow() -> tuple[bool, object]:
        import time

        VECTORS()
        time.sleep(0.3)
        return True, None

    (outcome,) = mutation.run(_reached(mutation.enumerate_mutants(CLIENT))[:1], slow, timeout=0.05)
    assert outcome.status == "survived"


def test_a_check_failing_without_mutants_is_refused() -> None:
    with pytest.raises(mutation.MutationError, match="fails without any mutant"):
        list(mutation.run(mutation.enumerate_mutants(CLIENT)[:1], lambda: (False, "planted"), timeout=30))


def test_bad_requests_are_one_line_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert mutation.main(["no_such_machine"]) == 2
    assert "unknown machine 'no_such_machine'" in capsys.readouterr().err
    bad = tmp_path / "report.json"
    bad.write_text("{}", encoding="utf-8")
    assert mutation.main(["share_consumer", "--only", str(bad)]) == 2
    assert "not a report this tool wrote" in capsys.readouterr().err
    assert mutation.main(["share_consumer", "--tests", "tests/cover"]) == 2
    assert "--tests narrows the quick loop" in capsys.readouterr().err
    assert mutation.main(["share_consumer", "--whole"]) == 2
    assert "--whole runs the quick loop unnarrowed" in capsys.readouterr().err


def test_a_line_run_at_import_gets_the_whole_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    """A class body's default or a module constant runs before any test, so the tracer names no
    test for it; every test sees its value, so the narrowing must not drop them all."""
    asked: list[list[str]] = []

    def fake_quick_check(selected: list[str]) -> object:
        asked.append(list(selected))
        return lambda: (True, 0)

    monkeypatch.setattr(mutation, "quick_check", fake_quick_check)
    narrow = mutation.narrower(["t/a.py", "t/b.py"])
    narrow({None, "t/a.py::test_x"})
    narrow({"t/b.py::test_y", "t/a.py::test_x"})
    assert asked == [["t/a.py", "t/b.py"], ["t/a.py::test_x", "t/b.py::test_y"]]


#: A reason pointing at a line ("line 167", "offsets.py:68", "(:271)"): rekey moves the keys
#: when the code above a judged mutant changes, never the words of the reasons.
_LINE_REFERENCE = re.compile(r"\blines?\s+\d+|\.py:\d+|(?<![\w\[\]-]):\d{2,}\b")


def test_every_equivalent_mutant_says_why_in_its_packages_file() -> None:
    """impl/<package>/... keys in <package>.json, spec/... keys in spec.json; each reason names
    the code it leans on by function or condition, since line numbers go stale."""
    import json

    assert _LINE_REFERENCE.search("refused at line 167") and _LINE_REFERENCE.search("(:271)")
    assert not _LINE_REFERENCE.search("pending[:1] >= (True,) and offsets[-1:0]")

    for path in mutation.EQUIVALENT_DIR.glob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert set(doc) <= {"about", "equivalent", *mutation.BY_DESIGN}, path.name
        for entry in [*doc["equivalent"], *(e for kind in mutation.BY_DESIGN for e in doc.get(kind, []))]:
            key, reason = entry["mutant"], entry["reason"]
            layer, package = key.split("/")[:2]
            home = package if layer == "impl" else "spec"
            assert (layer, home) in {("impl", path.stem), ("spec", "spec")}, key
            assert len(reason) > 20, key
            assert not _LINE_REFERENCE.search(reason), f"{key}: name the code, not a line number"


def test_survivors_unseen_by_design_leave_the_vectors_score_but_not_the_quick_loops() -> None:
    """A vector names an error's kind, not its text, and reads a compressed batch back rather
    than comparing its bytes: a mutant that changes only an error's prose or a compressor's
    output is no gap in the vectors, but the tests must see it."""
    judged = mutation.left_out("vectors")
    unseen = set(mutation.by_design())
    assert unseen <= set(judged)
    assert {k for kind in mutation.BY_DESIGN for k in mutation._judged(kind)} == unseen
    assert not unseen & set(mutation.left_out("quick"))
    assert not unseen & set(mutation.equivalents()), "a mutant is one or the other"


def test_a_line_of_a_multi_line_condition_counts_as_its_statement(tmp_path: Path) -> None:
    """Python reports only some lines of ``if not (...)`` spread over several lines as it runs; a
    mutant on another one (service.py:250 was counted unreached) belongs to the whole header."""
    source = tmp_path / "m.py"
    source.write_text("def f(a, b, c):\n    if not (\n        a < b\n        and c\n    ):\n"
                      "        return 1\n    return 2\n", encoding="utf-8")
    spans = mutation._header_lines(source)
    assert spans[3] == spans[4] == (2, 3, 4, 5)
    assert spans[6] == (6,) and spans[7] == (7,)


def test_every_equivalent_mutant_is_one_the_tool_makes() -> None:
    """An entry left behind by a code change (the line moved, the operator is no longer used)
    would excuse nothing and mislead the reader: each must name a mutant of today's sources."""
    from groupspec import machines

    made = {m.key for machine in machines.MACHINES
            for m in mutation.enumerate_mutants(mutation.impl_files(machine.name))}
    made |= {m.key for machine in machines.MACHINES if machine.spec is not None
             for m in mutation.enumerate_mutants(mutation.spec_files(machine.name))}
    stale = sorted(k for k in [*mutation.equivalents(), *mutation.by_design()] if k not in made)
    assert not stale, "equivalent mutants that no longer exist:\n" + "\n".join(stale)


def test_rekey_follows_a_judged_mutant_down_the_file_and_reports_a_changed_line() -> None:
    """An edit above a judged mutant moves its line and its occurrence; the judgement must follow
    it, and one whose own line changed must be named, not carried over to another mutant."""
    from tests.quality import rekey

    old = "def f(a, b):\n    if a < b:\n        return 1\n    return a < 2\n"
    new = ("def f(a, b):\n    if b < 0:\n        return 0\n"
           "    if a < b:\n        return 1\n    return a <= 2\n")
    moved = rekey.map_keys("impl/x/m.py", old, new)
    assert moved["impl/x/m.py:2:core/ReplaceComparisonOperator_Lt_Gt#0"] == \
        "impl/x/m.py:4:core/ReplaceComparisonOperator_Lt_Gt#1"
    assert moved["impl/x/m.py:4:core/ReplaceComparisonOperator_Lt_Gt#1"] is None
