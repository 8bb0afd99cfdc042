"""Shared test settings: Hypothesis profiles and the one Spark session.

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
