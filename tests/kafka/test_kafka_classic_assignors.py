"""groupspec's Kafka-exact Range and RoundRobin against kafka-clients' own, on random groups.

The vectors pin chosen cases; this sends seeded random groups (up to 30 members, static and
dynamic, 6 topics of up to 40 partitions, racks on members and replicas for half the Range
groups) to RangeAssignor / RoundRobinAssignor through one Kafka adapter and demands the same
lists in the same order: plain Range's order is Java's HashMap order of topic names, so a slip
in the emulation shows here. (Measured once at 600 groups, seed 7: no difference.)
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from groupspec.conformance import classic_assignors as form
from groupspec.conformance import targets
from groupspec.impl.classic_assignors import assign
from tests.kafka import needs_java_and_maven
from tests.scenarios.classic_assignors.cases import random_group

pytestmark = needs_java_and_maven

GROUPS, SEED = 150, 7


@pytest.fixture(scope="module")
def kafka() -> Iterator[targets.Target]:
    target = targets.make_target("kafka", 60.0)
    yield target
    target.close()


def test_kafka_mode_gives_kafkas_lists(kafka: targets.Target) -> None:
    rng = random.Random(SEED)
    checked = with_racks = 0
    for i in range(GROUPS):
        assignor = "roundrobin" if i % 3 == 2 else "range"
        racks = assignor == "range" and i % 2 == 0
        group = random_group(rng, assignor, rng.randint(1, 30), rng.randint(1, 6), rng.randint(0, 40), racks)
        if not group.members:
            continue
        doc = form.group_to_json(group)
        response = kafka.call(f"g{i}", "classic_assignors", "assign", doc)
        assert response.error is None and response.broken is None, response
        assert response.output == form.assignment_to_json(assign(group, compat="kafka")), doc
        checked += 1
        with_racks += racks
    assert checked > GROUPS * 0.9 and with_racks > 30
