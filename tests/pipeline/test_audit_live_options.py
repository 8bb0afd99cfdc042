"""``groupspec audit --format kafka`` before any JVM: the cluster address, the connector version
chosen from what Maven Central publishes, the lag arithmetic, and one-line errors for what a user
can get wrong (no Spark session, no broker, no network needed)."""

from __future__ import annotations

import urllib.error

import pytest

from groupspec.cli import main
from groupspec.pipeline import audit_live
from groupspec.types import InputError

PUBLISHED = ["3.5.1", "4.0.0", "4.0.0-preview2", "4.1.1", "4.2.0", "4.2.0-preview5"]


def test_the_installed_version_when_published_else_the_newest_of_its_major_not_newer():
    assert audit_live.choose_version("4.1.1", PUBLISHED) == "4.1.1"
    assert audit_live.choose_version("4.3.0", PUBLISHED) == "4.2.0"  # previews are never chosen
    assert audit_live.choose_version("4.1.0", PUBLISHED) == "4.0.0"
    assert audit_live.choose_version("5.0.0", PUBLISHED) is None
    assert audit_live.choose_version("4.3.0", None) is None


def test_bootstrap_forms():
    assert audit_live.parse_bootstrap("kafka://b1:9092") == "b1:9092"
    assert audit_live.parse_bootstrap("b1:9092, b2:9093") == "b1:9092,b2:9093"
    for bad in ("kafka://", "b1", "b1:0", "b1:port", ":9092"):
        with pytest.raises(InputError):
            audit_live.parse_bootstrap(bad)


def test_lag_is_end_minus_committed_for_known_ends_only():
    ends = {("t", 0): 13, ("t", 1): 10}
    offsets = [("t", 0, 10), ("t", 1, 10), ("gone", 0, 5)]
    assert audit_live.lag_rows(offsets, ends) == [("t", 0, 10, 13, 3), ("t", 1, 10, 10, 0)]
    # A commit past the end (the log read after the end was taken) never shows negative lag.
    assert audit_live.lag_rows([("t", 1, 12)], ends) == [("t", 1, 12, 10, 0)]


def test_live_input_mistakes_are_one_line_before_spark(tmp_path, capsys, monkeypatch):
    from groupspec.pipeline import session

    def started(*args, **kwargs):
        raise AssertionError("Spark was started")

    def offline(timeout_s):
        raise urllib.error.URLError("Temporary failure in name resolution")

    monkeypatch.setattr(session, "get_spark", started)
    monkeypatch.setattr(audit_live, "_published", offline)
    monkeypatch.setattr(audit_live, "ivy_dir", lambda: tmp_path / "empty-ivy")
    monkeypatch.delenv(audit_live.VERSION_ENV, raising=False)
    cases = [
        (["--format", "parquet", "--bootstrap", "b1:9092"], "does not read a cluster"),
        (["kafka://b1:9092", "--bootstrap", "b2:9092"], "reads one cluster"),
        (["kafka://b1:9092", str(tmp_path)], "reads one cluster"),
        (["--format", "kafka"], "reads one cluster"),
        (["--bootstrap", "b1"], "expected HOST:PORT"),
        (["kafka://b1:9092"], "cannot reach Maven Central"),
        ([], "give segment files"),
    ]
    for argv, problem in cases:
        assert main(["audit", *argv, "--out", str(tmp_path / "o")]) == 2, argv
        _, err = capsys.readouterr()
        assert err.startswith("groupspec audit: error: ") and err.count("\n") == 1, err
        assert problem in err, err
    assert not (tmp_path / "o").exists()
    # A cluster nobody listens on (a closed port) is found out before the JVM starts too.
    pytest.importorskip("confluent_kafka", reason="the live audit lists partitions with confluent-kafka")
    monkeypatch.setenv(audit_live.VERSION_ENV, "4.2.0")
    monkeypatch.setattr(audit_live, "ADMIN_TIMEOUT_S", 2.0)  # librdkafka retries until then
    assert main(["audit", "kafka://127.0.0.1:1", "--out", str(tmp_path / "o")]) == 2
    _, err = capsys.readouterr()
    assert err.startswith("groupspec audit: error: cannot list topics at 127.0.0.1:1"), err
    assert err.count("\n") == 1, err
    assert not (tmp_path / "o").exists()


def test_end_offsets_file(tmp_path):
    good = tmp_path / "ends.json"
    good.write_text('{"t": {"0": 13, "1": 10}}')
    assert audit_live.read_end_offsets(good) == {("t", 0): 13, ("t", 1): 10}
    for text, problem in (("[1]", "expected"), ('{"t": {"x": 1}}', "not a partition number"),
                          ('{"t": {"0": -1}}', "non-negative"), ("{", "not JSON")):
        good.write_text(text)
        with pytest.raises(InputError, match=problem):
            audit_live.read_end_offsets(good)
    with pytest.raises(InputError, match="--end-offsets"):
        audit_live.read_end_offsets(tmp_path / "missing.json")


def test_a_cached_connector_is_used_offline(tmp_path, monkeypatch):
    import pyspark

    def offline(timeout_s):
        raise urllib.error.URLError("offline")

    jars = tmp_path / "ivy" / "jars"
    jars.mkdir(parents=True)
    (jars / f"org.apache.spark_spark-sql-kafka-0-10_2.13-{pyspark.__version__}.jar").write_bytes(b"")
    monkeypatch.setattr(audit_live, "_published", offline)
    monkeypatch.setattr(audit_live, "ivy_dir", lambda: tmp_path / "ivy")
    monkeypatch.delenv(audit_live.VERSION_ENV, raising=False)
    assert audit_live.connector_version() == pyspark.__version__
    assert audit_live.connector_version("4.0.1") == "4.0.1"
    conf = audit_live.session_conf("4.0.1")
    assert conf["spark.jars.packages"] == "org.apache.spark:spark-sql-kafka-0-10_2.13:4.0.1"
