"""`groupspec describe`: each group as the coordinator's logs say it was (groupspec.describe)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import TextIO

from groupspec.describe import Description, GroupDescription


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="partition directories (such as __consumer_offsets-27/ or "
                             "__share_group_state-3/) or segment files in them")
    parser.add_argument("--group", action="append", default=[], help="only this group id (repeatable)")
    parser.add_argument("--json", action="store_true", help="one JSON document instead of tables")
    parser.add_argument("--progress", action="store_true", help="say on stderr which partition is replayed")


def run(args: argparse.Namespace) -> int:
    from groupspec.describe import describe

    def progress(text: str) -> None:
        print(f"groupspec describe: {text}", file=sys.stderr, flush=True)

    found = describe(args.paths, groups=args.group, progress=progress if args.progress else None)
    if args.json:
        json.dump({"files": found.files, "records": found.records,
                   "groups": [dataclasses.asdict(g) for g in found.groups]}, sys.stdout, indent=1)
        print()
    else:
        write_tables(found, sys.stdout)
    missing = sorted(set(args.group) - {g.group_id for g in found.groups})
    for group in missing:
        print(f"groupspec describe: group {group!r} is not in these logs", file=sys.stderr)
    print(f"groupspec describe: {found.files} files, {found.records} records, "
          f"{len(found.groups)} groups", file=sys.stderr)
    return 1 if missing else 0


def _table(rows: list[list[str]], out: TextIO) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip(), file=out)


def write_tables(found: Description, out: TextIO) -> None:
    """As kafka-consumer-groups.sh / kafka-share-groups.sh --describe lay them out; log end
    offsets and lag are the broker's live knowledge, not the logs', so they are left out."""
    for n, g in enumerate(found.groups):
        if n:
            print(file=out)
        print(_heading(g), file=out)
        if g.kind == "share":
            rows = [["GROUP", "TOPIC", "PARTITION", "START-OFFSET", "STATE-EPOCH", "IN-FLIGHT"]]
            rows += [[g.group_id, p.topic, str(p.partition), str(p.start_offset), str(p.state_epoch),
                      ", ".join(f"{k} {v}" for k, v in sorted(p.batches.items())) or "-"]
                     for p in g.share_partitions]
        else:
            owner = {tp: m for m in g.members for tp in m.assignment}
            rows = [["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "CONSUMER-ID", "HOST", "CLIENT-ID"]]
            for o in g.offsets:
                m = owner.get(f"{o.topic}-{o.partition}")
                rows.append([g.group_id, o.topic, str(o.partition), str(o.offset),
                             m.member_id if m else "-", m.host if m else "-", m.client_id if m else "-"])
        if len(rows) > 1:
            _table(rows, out)
        if g.members and g.kind == "consumer":
            # As --describe --members --verbose shows KIP-848 members: epochs and target too.
            rows = [["CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "CURRENT-EPOCH", "MEMBER-STATE",
                     "ASSIGNMENT", "TARGET-ASSIGNMENT", "PENDING-REVOCATION"]]
            rows += [[m.member_id, m.host or "-", m.client_id or "-", str(len(m.assignment)),
                      str(m.member_epoch), m.member_state or "-", ",".join(m.assignment) or "-",
                      ",".join(m.target_assignment) or "-", ",".join(m.pending_revocation) or "-"]
                     for m in g.members]
            _table(rows, out)
        elif g.members:
            rows = [["CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT"]]
            rows += [[m.member_id, m.host or "-", m.client_id or "-", str(len(m.assignment)),
                      ",".join(m.assignment) or "-"] for m in g.members]
            _table(rows, out)


def _heading(g: GroupDescription) -> str:
    parts = [f"Group {g.group_id!r} ({g.kind})", f"state {g.state or 'not replayed'}"]
    if g.protocol_type is not None:
        parts.append(f"protocol {g.protocol_type}/{g.protocol or '-'}")
    if g.generation is not None:
        parts.append(f"{'generation' if g.kind == 'classic' else 'group epoch'} {g.generation}")
    if g.assignment_epoch is not None:
        parts.append(f"assignment epoch {g.assignment_epoch}")
    parts.append(f"{len(g.members)} members")
    if g.coordinator_partition >= 0:
        parts.append(f"coordinator partition {g.coordinator_partition}")
    return ", ".join(parts)
