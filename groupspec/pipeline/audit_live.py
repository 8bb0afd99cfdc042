"""`groupspec audit --format kafka`: the coordinator topics read from a running cluster through
Spark's own Kafka connector (docs/pipeline.md, "Live input").

Three things make this less obvious than ``spark.read.format("kafka")``:

* The connector is not part of pyspark. It is resolved from Maven Central through
  ``spark.jars.packages`` when the session starts, into an Ivy cache under groupspec's cache
  directory, so later runs work offline. The coordinates follow the installed pyspark; a pyspark
  release whose connector is not (yet) on Maven Central falls back to the newest published one of
  the same major version (4.2.0 under pyspark 4.3.0 passes tests/broker/test_audit_live.py).
* Spark's default offset reader (an AdminClient) drops internal topics from every subscription
  and assignment (spark-sql-kafka's ``ConsumerStrategy.retrieveAllPartitions`` filters
  ``isInternal``), so ``__consumer_offsets`` reads as empty. The consumer-based reader
  (``spark.sql.streaming.kafka.useDeprecatedOffsetFetching``) does not filter them.
* ``subscribe`` makes that consumer join a group, which writes records into the very log being
  audited; ``assign`` with the partitions listed up front reads without leaving a trace.

The Kafka source has no producerId / isControl columns: transaction markers never reach the
rows, so offsets a transaction committed are taken as committed whether or not the transaction
was, and aborted transactional commits look like plain ones.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from groupspec.types import GroupspecError, InputError
from groupspec.types.records import OFFSETS_TOPIC, SHARE_STATE_TOPIC

MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
CONNECTOR_GROUP = "org.apache.spark"
CONNECTOR_ARTIFACT = "spark-sql-kafka-0-10_2.13"
#: Overrides the connector version (also ``--connector-version``).
VERSION_ENV = "GROUPSPEC_SPARK_KAFKA_VERSION"
COORDINATOR_TOPICS = (OFFSETS_TOPIC, SHARE_STATE_TOPIC)
ADMIN_TIMEOUT_S = 15.0


class ConnectorError(GroupspecError):
    """The Kafka connector could not be resolved (no network, no such version, no cache)."""


def ivy_dir() -> Path:
    """``<groupspec cache>/ivy`` (``~/.cache/groupspec/ivy`` by default): Spark's Ivy cache for
    the connector and its dependencies."""
    from groupspec.conformance.kafka_target import cache_root

    return cache_root() / "ivy"


def parse_bootstrap(text: str) -> str:
    """``HOST:PORT[,HOST:PORT...]`` or ``kafka://HOST:PORT``, checked before any JVM starts."""
    raw = text[len("kafka://"):] if text.startswith("kafka://") else text
    hosts = [h.strip() for h in raw.rstrip("/").split(",") if h.strip()]
    if not hosts:
        raise InputError("--bootstrap", f"{text!r}: expected HOST:PORT")
    for h in hosts:
        host, sep, port = h.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise InputError("--bootstrap", f"{h!r}: expected HOST:PORT with a port in 1..65535")
    return ",".join(hosts)


def _cached_versions(ivy: Path) -> list[str]:
    pattern = re.compile(rf"{CONNECTOR_GROUP}_{CONNECTOR_ARTIFACT}-(.+)\.jar$")
    jars = ivy / "jars"
    found = [m.group(1) for p in jars.glob("*.jar") if (m := pattern.match(p.name))] if jars.is_dir() else []
    return sorted(found, key=_version_key)


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v.split("-")[0]))


def _published(timeout_s: float) -> list[str]:
    url = f"{MAVEN_CENTRAL}/{CONNECTOR_GROUP.replace('.', '/')}/{CONNECTOR_ARTIFACT}/maven-metadata.xml"
    with urllib.request.urlopen(url, timeout=timeout_s) as answer:
        text = answer.read().decode("utf-8", "replace")
    return re.findall(r"<version>([^<]+)</version>", text)


def choose_version(installed: str, published: Iterable[str] | None) -> str | None:
    """The installed pyspark's version if published, else the newest release (no previews) of
    the same major version not newer than it; None when there is none."""
    if published is None:
        return None
    releases = [v for v in published if re.fullmatch(r"\d+\.\d+\.\d+", v)]
    if installed in releases:
        return installed
    major = installed.split(".")[0]
    fits = [v for v in releases if v.split(".")[0] == major and _version_key(v) <= _version_key(installed)]
    return max(fits, key=_version_key) if fits else None


def connector_version(requested: str | None = None, *, timeout_s: float = 10.0) -> str:
    """The connector version to ask Spark for (see the module docstring)."""
    requested = requested or os.environ.get(VERSION_ENV) or None
    if requested:
        return requested
    import pyspark

    installed = pyspark.__version__.split("+")[0]
    cached = _cached_versions(ivy_dir())
    if installed in cached:
        return installed
    try:
        chosen = choose_version(installed, _published(timeout_s))
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        usable = choose_version(installed, cached)
        if usable:
            return usable
        raise ConnectorError(f"cannot reach Maven Central to resolve {CONNECTOR_GROUP}:{CONNECTOR_ARTIFACT} "
                             f"for pyspark {installed} ({reason}) and no copy is cached under "
                             f"{ivy_dir()}; connect once, or pass --connector-version") from None
    if chosen is None:
        raise ConnectorError(f"Maven Central has no {CONNECTOR_ARTIFACT} release for pyspark {installed}'s "
                             "major version; pass --connector-version")
    return chosen


def session_conf(version: str) -> dict[str, str]:
    """What the SparkSession needs at start-up for the connector (read once by the JVM)."""
    return {"spark.jars.packages": f"{CONNECTOR_GROUP}:{CONNECTOR_ARTIFACT}:{version}",
            "spark.jars.ivy": str(ivy_dir())}


def _admin(bootstrap: str) -> Any:
    try:
        from confluent_kafka.admin import AdminClient
    except ImportError:
        raise GroupspecError("a live audit lists partitions and end offsets with confluent-kafka: "
                             "pip install confluent-kafka") from None
    # librdkafka logs every failed connection attempt to stderr; the error raised says it once.
    return AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": int(ADMIN_TIMEOUT_S * 1000),
                        "log_level": 0})


def coordinator_partitions(bootstrap: str) -> dict[str, list[int]]:
    """The partitions of the coordinator topics that exist on the cluster."""
    try:
        meta = _admin(bootstrap).list_topics(timeout=ADMIN_TIMEOUT_S)
    except Exception as exc:  # librdkafka's KafkaException carries the reason as text
        raise GroupspecError(f"cannot list topics at {bootstrap}: {exc}") from None
    found = {t: sorted(meta.topics[t].partitions) for t in COORDINATOR_TOPICS
             if t in meta.topics and meta.topics[t].error is None}
    if OFFSETS_TOPIC not in found:
        raise GroupspecError(f"{bootstrap} has no {OFFSETS_TOPIC} topic (no group has committed yet)")
    return found


def end_offsets(bootstrap: str, partitions: Iterable[tuple[str, int]]) -> dict[tuple[str, int], int]:
    """The latest offset (the high watermark) of each partition; partitions the cluster no longer
    has are left out."""
    import importlib

    from confluent_kafka import TopicPartition

    latest = importlib.import_module("confluent_kafka.admin").OffsetSpec.latest
    wanted = sorted(set(partitions))
    if not wanted:
        return {}
    admin = _admin(bootstrap)
    futures = admin.list_offsets({TopicPartition(t, p): latest() for t, p in wanted},
                                 request_timeout=ADMIN_TIMEOUT_S)
    out: dict[tuple[str, int], int] = {}
    for tp, future in futures.items():
        try:
            out[(tp.topic, tp.partition)] = int(future.result().offset)
        except Exception:  # a deleted topic: no end offset, so no lag for it
            continue
    return out


def read_live(spark: Any, bootstrap: str) -> Any:
    """Both coordinator topics from ``bootstrap`` as a DataFrame in Spark's Kafka source schema,
    earliest to latest, as one batch."""
    parts = coordinator_partitions(bootstrap)
    spark.conf.set("spark.sql.streaming.kafka.useDeprecatedOffsetFetching", "true")
    try:
        return (spark.read.format("kafka")
                .option("kafka.bootstrap.servers", bootstrap)
                .option("assign", json.dumps(parts))
                .option("startingOffsets", "earliest")
                .option("endingOffsets", "latest")
                .load())
    except Exception as exc:
        first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
        if "Failed to find data source: kafka" in str(exc):
            first = "Spark's Kafka connector is not on the session's classpath (start it with session_conf)"
        raise GroupspecError(f"cannot read {', '.join(parts)} from {bootstrap}: {first}") from None


def read_end_offsets(path: str | Path) -> dict[tuple[str, int], int]:
    """End offsets from a JSON file ``{"topic": {"partition": end, ...}, ...}`` (what
    ``kafka-get-offsets.sh --time latest`` prints, rearranged), for lag in an audit of files."""
    where = f"--end-offsets {path}"
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(where, exc.strerror or str(exc)) from None
    except ValueError as exc:
        raise InputError(where, f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(where, 'expected {"topic": {"partition": end offset, ...}, ...}')
    out: dict[tuple[str, int], int] = {}
    for topic, parts in data.items():
        if not isinstance(parts, dict):
            raise InputError(where, f"topic {topic!r}: expected {{\"partition\": end offset, ...}}")
        for part, end in parts.items():
            if not str(part).isdigit() or isinstance(end, bool) or not isinstance(end, int) or end < 0:
                raise InputError(where, f"topic {topic!r}: {part!r}: {end!r} is not a partition "
                                 "number and a non-negative offset")
            out[(topic, int(part))] = end
    return out


def lag_rows(offsets: Iterable[tuple[str, int, int]],
             ends: Mapping[tuple[str, int], int]) -> list[tuple[str, int, int, int, int]]:
    """(topic, partition, committed, end, lag) for each committed offset whose end is known."""
    return [(t, p, o, ends[(t, p)], max(0, ends[(t, p)] - o)) for t, p, o in offsets if (t, p) in ends]
