"""The share coordinator's batch combining, checked on Kafka 4.2.1's own ``PersisterStateBatchCombiner``.

A ten-line Java harness (written here, compiled into a temporary folder) reads lines of
"name|batches so far|new batches|start offset" and prints what Kafka's combiner returns. The
catalogue's examples (tests/scenarios/share_state/cases.py, ``COMBINER_EXAMPLES`` and
``OWN_COMBINER_EXAMPLES``) and a few hundred random inputs must come out of the spec's
``combine``, the implementation's combiner and Kafka's class identically. Needs ``javac`` and
the 4.2.1 jars in the local Maven repository (the README's set-up fetches them); skipped
otherwise.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from groupspec.impl.share_state.combiner import combine_state_batches
from groupspec.spec.share_state import combine
from groupspec.types.share_state import StateBatch
from tests.scenarios.share_state.cases import COMBINER_EXAMPLES, OWN_COMBINER_EXAMPLES

_M2 = Path.home() / ".m2" / "repository" / "org" / "apache" / "kafka"
_JARS = [_M2 / "kafka-share-coordinator" / "4.2.1" / "kafka-share-coordinator-4.2.1.jar",
         _M2 / "kafka-server-common" / "4.2.1" / "kafka-server-common-4.2.1.jar",
         _M2 / "kafka-clients" / "4.2.1" / "kafka-clients-4.2.1.jar"]

pytestmark = pytest.mark.skipif(shutil.which("javac") is None or not all(j.is_file() for j in _JARS),
                                reason="needs javac and Kafka 4.2.1's jars in ~/.m2")

_HARNESS = """
import java.io.*;
import java.util.*;
import org.apache.kafka.coordinator.share.PersisterStateBatchCombiner;
import org.apache.kafka.server.share.persister.PersisterStateBatch;

public class Combine {
    static List<PersisterStateBatch> batches(String text) {
        List<PersisterStateBatch> out = new ArrayList<>();
        if (text.isEmpty()) return out;
        for (String b : text.split(";")) {
            String[] f = b.split(",");
            out.add(new PersisterStateBatch(Long.parseLong(f[0]), Long.parseLong(f[1]),
                Byte.parseByte(f[2]), Short.parseShort(f[3])));
        }
        return out;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] p = line.split("\\\\|", -1);
            StringBuilder out = new StringBuilder(p[0]).append('|');
            for (PersisterStateBatch b : new PersisterStateBatchCombiner(batches(p[1]), batches(p[2]),
                    Long.parseLong(p[3])).combineStateBatches()) {
                out.append(b.firstOffset()).append(',').append(b.lastOffset()).append(',')
                   .append(b.deliveryState()).append(',').append(b.deliveryCount()).append(';');
            }
            System.out.println(out);
        }
    }
}
"""

Batch = tuple[int, int, int, int]


def _text(bs: tuple[Batch, ...]) -> str:
    return ";".join(",".join(map(str, b)) for b in bs)


Input = tuple[str, tuple[Batch, ...], tuple[Batch, ...], int]


def _kafka(tmp: Path, inputs: list[Input]) -> dict[str, tuple[Batch, ...]]:
    (tmp / "Combine.java").write_text(_HARNESS, encoding="utf-8")
    cp = ":".join(str(j) for j in _JARS)
    subprocess.run(["javac", "-cp", cp, "-d", str(tmp), str(tmp / "Combine.java")], check=True, timeout=120)
    lines = "".join(f"{n}|{_text(a)}|{_text(b)}|{s}\n" for n, a, b, s in inputs)
    out = subprocess.run(["java", "-cp", f"{cp}:{tmp}", "Combine"], input=lines, capture_output=True,
                         text=True, check=True, timeout=120).stdout
    result = {}
    for line in out.splitlines():
        name, _, rest = line.partition("|")
        result[name] = tuple(tuple(int(x) for x in b.split(",")) for b in rest.split(";") if b)
    return result  # type: ignore[return-value]


def _random_batches(rng: random.Random, n: int) -> tuple[Batch, ...]:
    out = []
    for _ in range(n):
        first = rng.randrange(0, 30)
        out.append((first, first + rng.randrange(0, 8), rng.choice((0, 2, 4)), rng.randrange(0, 3)))
    return tuple(out)


def _as_tuples(bs: tuple[StateBatch, ...] | list[StateBatch]) -> tuple[Batch, ...]:
    return tuple((b.first_offset, b.last_offset, b.delivery_state, b.delivery_count) for b in bs)


def test_spec_impl_and_kafka_combine_alike(tmp_path: Path) -> None:
    rng = random.Random(20)
    examples = COMBINER_EXAMPLES + OWN_COMBINER_EXAMPLES
    inputs = [(name, so_far, new, start) for name, so_far, new, start, _ in examples]
    inputs += [(f"random{i}", _random_batches(rng, rng.randrange(0, 5)),
                _random_batches(rng, rng.randrange(0, 5)), rng.choice((-1, 0, 5, 12))) for i in range(400)]
    kafka = _kafka(tmp_path, inputs)
    assert len(kafka) == len(inputs)
    expected = {name: want for name, _, _, _, want in examples}
    for name, so_far, new, start in inputs:
        a = tuple(StateBatch(*b) for b in so_far)
        b = tuple(StateBatch(*x) for x in new)
        assert _as_tuples(combine(a, b, start)) == kafka[name], name
        assert _as_tuples(combine_state_batches(list(a), list(b), start)) == kafka[name], name
        if name in expected:
            assert expected[name] == kafka[name], name
