"""The mutation tool (tests/quality/mutation.py) measures the vectors' strength; these tests show
it can tell a killed mutant from a surviving one, and that it never leaves a mutant behind."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.quality import mutation

CONSUMER = mutation.impl_files("share_consumer")
#: One file of it: cosmic-ray takes about a second a package to find the sites.
CLIENT = [Path("impl/share_consumer/consumer.py")]


def test_the_machine_is_its_impl_package() -> None:
    assert CLIENT[0] in CONSUMER
    assert all(p.parts[:2] == ("impl", "share_consumer") for p in CONSUMER)


def test_the_sites_are_the_kinds_of_change_issue_17_names() -> None:
    mutants = mutation.enumerate_mutants(CLIENT)
    kinds = Counter(m.operator.removeprefix("core/").split("_")[0] for m in mutants)
    for kind in ("ReplaceComparisonOperator", "ReplaceAndWithOr", "ReplaceOrWithAnd", "NumberReplacer",
                 "AddNot"):
        assert kinds[kind] > 0, kind
    assert not any(m.operator in mutation.SKIPPED_OPERATORS for m in mutants)
    assert all(m.path.startswith("impl/share_consumer/") and m.line > 0 for m in mutants)
    assert len({m.key for m in mutants}) == len(mutants)


def test_a_sample_is_the_same_for_the_same_seed() -> None:
    mutants = mutation.enumerate_mutants(CLIENT)
    assert mutation.sample(mutants, 7, 3) == mutation.sample(mutants, 7, 3)
    assert mutation.sample(mutants, 7, 3) != mutation.sample(mutants, 7, 4)
    assert mutation.sample(mutants, None, 3) == mutants


def test_a_check_that_sees_the_change_kills_it_and_the_checkout_is_untouched() -> None:
    """The check here is 'the file is as committed': every real mutant fails it, so each is
    killed; one that sees nothing (always passes) lets each survive. The checkout never changes."""
    (target,) = CLIENT
    before = (mutation.ROOT / target).read_bytes()
    mutants = mutation.enumerate_mutants(CLIENT)[:3]
    assert len(mutants) == 3
    sees = [sys.executable, "-c", f"import pathlib, sys; sys.exit(pathlib.Path({str(target)!r}).read_bytes() "
                                  f"!= {before!r})"]
    blind = [sys.executable, "-c", "pass"]
    killed = list(mutation.run(mutants, [blind, sees], timeout=30))
    survived = list(mutation.run(mutants, [blind], timeout=30))
    assert [o.status for o in killed] == ["killed"] * 3
    assert [o.status for o in survived] == ["survived"] * 3
    assert all(o.diff.startswith(f"--- {target}") for o in killed)
    assert (mutation.ROOT / target).read_bytes() == before
    s = mutation.score(survived, {survived[0].mutant.key: "planted equivalent"})
    assert (s.killed, s.survived, s.equivalent) == (0, 2, 1)


def test_a_check_slower_than_the_timeout_is_not_taken_for_a_hang() -> None:
    """The limit is at least three times the unmutated check's time: a check that takes 0.3 s
    passes its mutant within a 0.05 s --timeout instead of killing it as a hang."""
    slow = [sys.executable, "-c", "import time; time.sleep(0.3)"]
    (outcome,) = mutation.run(mutation.enumerate_mutants(CLIENT)[:1], [slow], timeout=0.05)
    assert outcome.status == "survived"


def test_a_check_failing_without_mutants_is_refused() -> None:
    with pytest.raises(mutation.MutationError, match="fails without any mutant"):
        failing = [sys.executable, "-c", "raise SystemExit(3)"]
        list(mutation.run(mutation.enumerate_mutants(CLIENT)[:1], [failing], timeout=30))


def test_bad_requests_are_one_line_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert mutation.main(["no_such_machine"]) == 2
    assert "unknown machine 'no_such_machine'" in capsys.readouterr().err
    bad = tmp_path / "report.json"
    bad.write_text("{}", encoding="utf-8")
    assert mutation.main(["share_consumer", "--only", str(bad)]) == 2
    assert "not a report this tool wrote" in capsys.readouterr().err


def test_every_equivalent_mutant_says_why() -> None:
    for key, reason in mutation.equivalents().items():
        assert key.startswith("impl/") and len(reason) > 20, key
