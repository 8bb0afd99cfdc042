"""groupspec's Kafka-exact Sticky and CooperativeSticky against kafka-clients' own, on random
groups with one subscription (the constrained builder, the part groupspec models).

Half the groups are clean (each partition claimed at most once, within its topic); the other
half are messy: claims beyond a topic's count, repeated, and clashing within one generation,
where Kafka either answers oddly or throws IllegalStateException. Both the lists (in order) and
the exception kind must match; then clean groups run three more rounds, each member reporting
what it was given, so the cooperative withholding and the generation handling are exercised
as a real group meets them. (Measured at 1,000 single-round groups, seed 2: no difference,
169 of them IllegalStateException on both sides.)
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator

import pytest

from groupspec.conformance import classic_assignors as form
from groupspec.conformance import targets
from groupspec.impl.classic_assignors import assign
from groupspec.types import PartitionAssignorError
from tests.scenarios.classic_assignors.sticky_cases import next_round, random_sticky_group

pytestmark = pytest.mark.skipif(
    shutil.which("java") is None or shutil.which("mvn") is None,
    reason="needs Java 17 and Maven (the README's set-up has both)",
)

GROUPS, ROUNDS, SEED = 200, 3, 11


@pytest.fixture(scope="module")
def kafka() -> Iterator[targets.Target]:
    target = targets.make_target("kafka", 60.0)
    yield target
    target.close()


def test_kafka_mode_gives_kafkas_lists_and_exceptions(kafka: targets.Target) -> None:
    rng = random.Random(SEED)
    answers = thrown = rounds = 0
    for i in range(GROUPS):
        assignor = ("sticky", "cooperative-sticky")[i % 2]
        messy = i % 4 >= 2
        group = random_sticky_group(rng, assignor, messy)
        for generation in range(1, 1 + (ROUNDS if not messy else 1)):
            response = kafka.call(
                f"g{i}-{generation}", "classic_assignors", "assign", form.group_to_json(group)
            )
            try:
                mine = assign(group, compat="kafka")
            except PartitionAssignorError as exc:
                assert response.error is not None and exc.kafka_exception in str(response.error), response
                thrown += 1
                break
            assert response.error is None and response.broken is None, response
            assert response.output == form.assignment_to_json(mine), form.group_to_json(group)
            answers += 1
            rounds += generation > 1
            group = next_round(group, mine, 10 + generation)
    assert answers > GROUPS and thrown > 5 and rounds >= GROUPS * 0.9
