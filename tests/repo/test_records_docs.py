"""docs/machines/records.md's table of record types is the registry's, row for row."""

from __future__ import annotations

from pathlib import Path

from groupspec.types.records import OFFSETS_TOPIC, SHARE_STATE_TOPIC, record_types
from groupspec.types.records.schema import message_spec

DOC = Path(__file__).resolve().parents[2] / "docs" / "machines" / "records.md"


def _doc_rows() -> set[tuple[str, int, str, str, str]]:
    rows = set()
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].strip("`") in (OFFSETS_TOPIC, SHARE_STATE_TOPIC):
            rows.add((cells[0].strip("`"), int(cells[1]), cells[2], cells[3], cells[4]))
    return rows


def test_the_record_type_table_matches_the_registry():
    expected = set()
    for topic in (OFFSETS_TOPIC, SHARE_STATE_TOPIC):
        for type_id, rt in record_types(topic).items():
            spec = message_spec(rt.value)
            expected.add((topic, type_id, rt.name, str(spec.versions), str(spec.flexible)))
    assert _doc_rows() == expected
