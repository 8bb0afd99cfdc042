"""kafka-clients' own StickyAssignor and CooperativeStickyAssignor (4.2.1, through the Kafka
adapter) measured against the fewest moves any balanced answer needs (models/classic_moves.py):
the optimality docs/models.md section 7 claims of the constrained builder is checked on Kafka's
code itself, not only on groupspec's Kafka-exact mode."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from itertools import count

import pytest

from groupspec.conformance import classic_assignors as form
from groupspec.conformance import targets
from groupspec.models import classic_moves as cm
from groupspec.types.classic_assignors import ClassicAssignment, ClassicAssignorInput

pytestmark = pytest.mark.skipif(
    shutil.which("java") is None or shutil.which("mvn") is None,
    reason="needs Java 17 and Maven (the README's set-up has both)",
)

GROUPS, SEED = 60, 7


@pytest.fixture(scope="module")
def kafka() -> Iterator[targets.Target]:
    target = targets.make_target("kafka", 60.0)
    yield target
    target.close()


@pytest.mark.parametrize("assignor", ["sticky", "cooperative-sticky"])
def test_kafkas_sticky_assignors_make_the_fewest_moves(kafka: targets.Target, assignor: str) -> None:
    ids = count()

    def java(group: ClassicAssignorInput) -> ClassicAssignment:
        response = kafka.call(f"moves-{next(ids)}", "classic_assignors", "assign", form.group_to_json(group))
        assert response.error is None and response.broken is None, response
        return form.assignment_from_json(response.output["assignment"])

    rng = random.Random(f"{SEED}-{assignor}")
    needed = 0
    for k in range(GROUPS):
        change = cm.MEASURED[k % len(cm.MEASURED)]
        row = cm.measure(rng, assignor, change, java, max_members=12, max_partitions=40, churn=1)
        assert row.moves == row.min_moves, (k, change, row)
        assert row.followup_moves == 0, (k, change, row)
        needed += row.min_moves
    assert needed > 0
