"""Shared test settings: Hypothesis profiles, the one Spark session and the one Kafka broker.

Profiles: ``ci`` (default, fast enough for every CI run) and ``deep`` (long runs, chosen with
HYPOTHESIS_PROFILE=deep). Tests never set max_examples themselves; they take it from here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=200, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow], derandomize=False, print_blob=True,
)
settings.register_profile(
    "deep", max_examples=5000, stateful_step_count=100, deadline=None,
    suppress_health_check=[HealthCheck.too_slow], print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def scaled_budget(scale: int) -> settings:
    """The loaded profile with ``scale`` times its examples: for a planted bug that only a rarer
    sequence shows (tests/quality/test_planted_bugs.py), so its search grows with the profile."""
    return settings(settings.default, max_examples=settings.default.max_examples * scale)


#: Test files whose tests take a minute or more each (the sampled mutation gates, the live
#: broker's runs; see the slowest durations CI prints). They are collected first, so that the two
#: xdist workers share them from the start instead of one worker finishing the suite alone on
#: the last of them (the longest-first rule); ``--dist worksteal`` evens out the rest.
SLOW_FIRST = ("tests/quality/test_mutation_gate.py", "tests/broker/", "tests/quality/test_mutation.py",
              "tests/crosshair/", "tests/pipeline/test_spark_cluster.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return next((i for i, prefix in enumerate(SLOW_FIRST) if item.nodeid.startswith(prefix)),
                    len(SLOW_FIRST))

    items.sort(key=rank)  # stable: the order within each group is kept


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--vectors-out", type=Path, default=None, metavar="DIR",
                     help="tests/scenarios/test_cases.py: each case also writes its conformance vector "
                          "into DIR (a version folder, as python -m groupspec.conformance.generate --out)")


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session for every test marked ``spark``."""
    from groupspec.pipeline.session import get_spark

    session = get_spark("local[2]", app_name="groupspec-tests")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One real Kafka 4.2.1 node (groupspec.broker) for every test marked ``broker``.

    Shared by the xdist workers of a session: the first to need it starts it in the session's
    common temporary directory, each worker counts itself in and out under a file lock, and the
    last one out stops it. (xdist's ``loadgroup`` would keep the tests on one worker, but it marks
    them by rewriting the node id, which pytest 9 no longer allows: both workers started a node.)
    A worker that asks after every earlier user has left starts a fresh one.

    Skipped only when Java or Maven is missing; any other failure to start is an error (CI has
    both, so a broken start must not pass as a skip). The node's data stays in pytest's temporary
    directory after the session for a look at what it wrote.
    """
    import fcntl

    from groupspec import broker

    missing = broker.tools_available()
    if missing is not None:
        pytest.skip(f"a real Kafka broker needs Java 17 and Maven: {missing}")
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # each worker's basetemp is a folder of the session's
    home, users = shared / "kafka-broker", shared / "kafka-broker.users"
    with open(shared / "kafka-broker.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        count = int(users.read_text()) if users.is_file() else 0
        node = broker.attach(home) if count else None
        if node is None or not node.alive():
            node, count = broker.start(home, reset=True, detach=False), 0
        users.write_text(str(count + 1))
    yield node
    with open(shared / "kafka-broker.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        count = int(users.read_text()) - 1
        users.write_text(str(count))
        if count == 0:
            node.stop()
