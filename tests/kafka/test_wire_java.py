"""groupspec.wire's bytes against Kafka 4.2.1's generated message classes.

Any object of every request and response class, at any version, is encoded by groupspec; Kafka's
own ``*Data`` class (kafka-clients 4.2.1, through tests/kafka/java/WireEcho.java run as a single
source file, no build) reads those bytes at that version and writes them again. The bytes must be
equal: the layout, the tagged fields and their defaults, nullability and the flexible encodings
are then Kafka's, including for the APIs kafka-python does not know (ConsumerGroupHeartbeat and
the share APIs).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.codec.messages import encode
from groupspec.types.records.schema import message_spec
from groupspec.wire.messages import ALL_WIRE_CLASSES, api_of
from tests.record_strategies import message_values

JAR = Path.home() / ".m2/repository/org/apache/kafka/kafka-clients/4.2.1/kafka-clients-4.2.1.jar"
ECHO = Path(__file__).with_name("java") / "WireEcho.java"

pytestmark = pytest.mark.skipif(shutil.which("java") is None or not JAR.is_file(),
                                reason=f"needs Java 17 and {JAR} (the README's set-up has both)")

Case = tuple[type, int, Any, bytes]


def collect(cls: type) -> list[Case]:
    """Objects Hypothesis draws for ``cls`` (as many as the profile allows), with their bytes."""
    cases: list[Case] = []
    versions = message_spec(cls).versions
    drawn = st.integers(versions.lo, versions.hi).flatmap(
        lambda v: st.tuples(st.just(v), message_values(cls, v)))

    @given(drawn)
    def draw(case: tuple[int, Any]) -> None:
        version, obj = case
        cases.append((cls, version, obj, encode(obj, version)))

    draw()
    # The default object at every version too, so that no version is left out by chance.
    cases += [(cls, v, cls(), encode(cls(), v)) for v in range(versions.lo, versions.hi + 1)]
    return cases


def kafka_echo(cases: list[Case]) -> list[str]:
    lines = []
    for cls, version, _, data in cases:
        kind = message_spec(cls).kind
        lines.append(f"{api_of(cls).key} {version} {kind} {data.hex()}")
    done = subprocess.run(["java", "-cp", str(JAR), str(ECHO)], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout.splitlines()
    assert len(out) == len(cases), done.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def echoed() -> dict[type, list[tuple[Case, str]]]:
    cases = [case for cls in ALL_WIRE_CLASSES for case in collect(cls)]
    answers = kafka_echo(cases)
    by_class: dict[type, list[tuple[Case, str]]] = {}
    for case, answer in zip(cases, answers, strict=True):
        by_class.setdefault(case[0], []).append((case, answer))
    return by_class


@pytest.mark.parametrize("cls", ALL_WIRE_CLASSES, ids=lambda c: c.__name__)
def test_kafka_writes_back_the_same_bytes(cls: type, echoed: dict[type, list[tuple[Case, str]]]) -> None:
    checked = echoed[cls]
    versions = {case[1] for case, _ in checked}
    spec = message_spec(cls).versions
    assert versions == set(range(spec.lo, spec.hi + 1))
    for (_, version, obj, data), answer in checked:
        where = f"{cls.__name__} v{version}: {obj!r}"
        assert answer == data.hex(), f"{where}\nours:  {data.hex()}\nKafka: {answer}"


def test_kafka_refuses_what_groupspec_refuses() -> None:
    """The echo is not a rubber stamp: a truncated body is an error on Kafka's side too."""
    cls = ALL_WIRE_CLASSES[0]
    data = encode(cls(), 13)[:-1]
    answer = kafka_echo([(cls, 13, cls(), data)])
    assert answer[0].startswith("error "), answer
