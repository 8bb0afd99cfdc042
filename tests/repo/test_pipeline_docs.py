"""docs/pipeline.md's figures that can be recomputed cheaply are recomputed here.

How many cases of a sweep fall under the min-moves cap depends only on the generator and the
cap, not on Spark or timing, so the count the page quotes is checked against the command it
quotes (the page once said 1616 of 2000 where that command gives 1620).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from groupspec.cli import build_parser
from groupspec.generate import cases
from groupspec.pipeline.sweep import min_moves_work
from groupspec.spec.simple_assignor import pools

PAGE = Path(__file__).resolve().parents[2] / "docs" / "pipeline.md"


def test_the_min_moves_cap_coverage_quoted_is_what_its_command_gives():
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    found = re.search(r"`(groupspec sweep [^`]*)` computes the minimum on (\d+) of the (\d+) "
                      r"cases \(`min_moves_status` `ok`; the other (\d+) are `over-cap`\)", text)
    assert found, "docs/pipeline.md no longer quotes the cap's coverage with its command"
    command, ok, total, over = found.group(1), *map(int, found.group(2, 3, 4))
    args = build_parser("sweep").parse_args(shlex.split(command)[1:])
    assert args.cases == total and ok + over == total
    under = sum(min_moves_work(pools(group)) <= args.min_moves_cap
                for _, _, group in cases(args.seed, args.cases, args.max_members,
                                         args.max_partitions))
    assert under == ok, f"{command} puts {under} of {total} cases under the cap, the page says {ok}"


def test_every_expected_kafka_divergence_names_a_section_of_divergences_md():
    from groupspec.pipeline.expected import KAFKA_EXPECTED

    page = (PAGE.parent / "divergences.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\w+):", page, re.M))
    named = {s for names in KAFKA_EXPECTED.values() for s in names} | {"no_such_element_crash"}
    assert named <= sections, named - sections
