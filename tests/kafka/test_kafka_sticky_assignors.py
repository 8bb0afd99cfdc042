"""groupspec's Kafka-exact Sticky and CooperativeSticky against kafka-clients' own, on random
groups: with one subscription (the constrained builder), with one subscription and racks, and
with different subscriptions, with and without racks (the general builder).

Half the groups are clean (each partition claimed at most once, within its topic); the other
half are messy: claims beyond a topic's count, repeated, and clashing within one generation,
where Kafka either answers oddly or throws IllegalStateException. Both the lists (in order) and
the exception kind must match; then clean groups run three more rounds, each member reporting
what it was given, so the cooperative withholding and the generation handling are exercised
as a real group meets them. (Measured at 1,000 single-round groups, seed 2: no difference,
169 of them IllegalStateException on both sides. Different subscriptions and racks, measured
once at seeds 21-23: 1,100 groups, 2,141 answers and 47 exceptions compared, no difference.)
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
from tests.scenarios.classic_assignors.sticky_cases import next_round, random_mixed_group, random_sticky_group

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


MIXED_GROUPS, MIXED_SEED = 160, 12


def test_kafka_mode_matches_kafkas_general_builder_and_rack_aware_paths(kafka: targets.Target) -> None:
    rng = random.Random(MIXED_SEED)
    answers = thrown = 0
    kinds = {"one subscription, racks": 0, "different subscriptions": 0, "different subscriptions, racks": 0}
    for i in range(MIXED_GROUPS):
        assignor = ("sticky", "cooperative-sticky")[i % 2]
        messy = i % 4 >= 2
        kind = list(kinds)[i % 3]
        kinds[kind] += 1
        if kind == "one subscription, racks":
            group = random_sticky_group(rng, assignor, messy, True)
        else:
            group = random_mixed_group(rng, assignor, messy, kind.endswith("racks"))
        for generation in range(1, 1 + (ROUNDS if not messy else 1)):
            doc = form.group_to_json(group)
            response = kafka.call(f"m{i}-{generation}", "classic_assignors", "assign", doc)
            try:
                mine = assign(group, compat="kafka")
            except PartitionAssignorError as exc:
                assert response.error is not None and exc.kafka_exception in str(response.error), (
                    response,
                    doc,
                )
                thrown += 1
                break
            assert response.error is None and response.broken is None, (response, doc)
            assert response.output == form.assignment_to_json(mine), doc
            answers += 1
            group = next_round(group, mine, 10 + generation)
    assert answers > MIXED_GROUPS * 1.5 and thrown > 3


@pytest.mark.parametrize("assignor", ["sticky", "cooperative-sticky"])
def test_kafkas_general_builder_never_ends_on_a_cycling_group(assignor: str) -> None:
    """The group of tests/cover/test_conformance_classic_assignors.py's cycling_group: Kafka's
    own assignor gives no answer (its balancing pass cycles), where the Kafka mode raises."""
    from tests.cover.test_conformance_classic_assignors import cycling_group

    group = cycling_group(assignor)
    with pytest.raises(PartitionAssignorError, match="never ends"):
        assign(group, compat="kafka")
    slow = targets.make_target("kafka", 6.0)  # an answer takes milliseconds; this one never comes
    try:
        response = slow.call("cycle", "classic_assignors", "assign", form.group_to_json(group))
    finally:
        slow.close()
    assert response.output is None and response.error is None
    assert response.broken is not None and "no answer within" in response.broken
