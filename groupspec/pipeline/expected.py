"""Which property violations Kafka 4.2's SimpleAssignor is known to commit, and why.

``check-assignor`` and ``sweep`` judge every target by groupspec's rules. The Kafka-exact mode
(``impl-kafka``) breaks some of them on purpose, because Kafka does (docs/divergences.md); those
are expected findings, not failures. Anything else it breaks (a member missing from the answer, a
partition over-shared, an exception Kafka would not throw) is still a failure: it means the
Kafka mode no longer reproduces Kafka, or a rule changed. One table here keeps the two commands
and their docs saying the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Where the expected divergences are explained (named in every message about them).
DIVERGENCES_DOC = "docs/divergences.md"

#: Target whose answers are Kafka's, quirks included.
KAFKA_TARGET = "impl-kafka"

#: property -> the sections of docs/divergences.md that explain a violation by Kafka.
KAFKA_EXPECTED: Mapping[str, tuple[str, ...]] = {
    "subscribed": ("stale_partition_kept", "deleted_topic_copied_through"),
    "coverage": ("stale_partition_kept", "fill_gives_up"),
    "counts": ("double_drift", "member_hash_order", "stale_partition_kept"),
    "fill": ("fill_gives_up",),
    "sticky": ("member_hash_order", "topic_uuid_dependence", "stale_partition_kept"),
}

#: The exception Kafka itself throws on some inputs (section no_such_element_crash).
KAFKA_EXPECTED_EXCEPTION = "java.util.NoSuchElementException"


def expected_violation(target: str, prop: str) -> bool:
    """Whether ``target`` breaking property ``prop`` is a known Kafka divergence."""
    return target == KAFKA_TARGET and prop in KAFKA_EXPECTED


def expected_exception(target: str, exc: BaseException) -> bool:
    """Whether ``target`` raising ``exc`` is Kafka's own crash, reproduced."""
    return (target == KAFKA_TARGET
            and getattr(exc, "kafka_exception", None) == KAFKA_EXPECTED_EXCEPTION)


def why(prop: str) -> str:
    """``see docs/divergences.md: a, b`` for an expected violation of ``prop``."""
    return f"see {DIVERGENCES_DOC}: {', '.join(KAFKA_EXPECTED[prop])}"
