"""Carry the judged mutants' keys over an edit of the files they sit in.

A mutant's key names its line and its occurrence (the count of the operator's sites before it in
the file), so an edit above a judged mutant changes its key, and the judgement (each list of
tests/quality/equivalent_mutants/: equivalent, wording, compressed) would name a mutant the tool
no longer makes. This
matches each judged mutant of the file as it was at ``--base`` to the mutant of the file now
that has the same operator on a line of the same text, the n-th such pair in both, and rewrites
the key; a judgement whose line is gone or changed is reported, for a person to judge again, and
one whose file was deleted is dropped (its mutants no longer exist) and listed::

    .venv/bin/python -m tests.quality.rekey --base HEAD
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests.quality.mutation import BY_DESIGN, ROOT, Mutant, enumerate_mutants

JUDGED = ROOT / "tests" / "quality" / "equivalent_mutants"


def _signature(mutants: Sequence[Mutant], text: str) -> dict[tuple[str, str, int], Mutant]:
    """(operator, the line's text, n) -> the n-th mutant of that operator on a line of that text."""
    lines = text.splitlines()
    seen: dict[tuple[str, str], int] = {}
    out: dict[tuple[str, str, int], Mutant] = {}
    for m in mutants:
        pair = (m.operator, lines[m.line - 1].strip())
        n = seen.get(pair, 0)
        seen[pair] = n + 1
        out[(*pair, n)] = m
    return out


def _old_text(base: str, path: str) -> str | None:
    done = subprocess.run(["git", "-C", str(ROOT), "show", f"{base}:{path}"], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def rekey_map(base: str, path: str) -> dict[str, str | None]:
    """Old key -> new key (None: no mutant of the same operator on a line of the same text)."""
    old = _old_text(base, path)
    new = (ROOT / path).read_text(encoding="utf-8")
    return {} if old is None or old == new else map_keys(path, old, new)


def map_keys(path: str, old: str, new: str) -> dict[str, str | None]:
    """The keys of ``path``'s mutants in the text ``old`` -> their keys in the text ``new``."""
    signatures = []
    for text in (old, new):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / path).parent.mkdir(parents=True)
            (Path(tmp) / path).write_text(text, encoding="utf-8")
            signatures.append(_signature(enumerate_mutants([Path(path)], Path(tmp)), text))
    before, after = signatures
    by_sig = {sig: m.key for sig, m in after.items()}
    return {m.key: by_sig.get(sig) for sig, m in before.items()}


def _drop_deleted_files(judged: Path, dropped: list[str]) -> int:
    """Remove the judgements of mutants in files that no longer exist; how many went."""
    doc = json.loads(judged.read_text(encoding="utf-8"))
    gone = 0
    for kind in ("equivalent", *BY_DESIGN):
        kept = []
        for entry in doc.get(kind, []):
            if (ROOT / entry["mutant"].split(":", 1)[0]).exists():
                kept.append(entry)
            else:
                dropped.append(f"{judged.name}: {entry['mutant']} ({kind}; file deleted, dropped)")
                gone += 1
        if kind in doc:
            doc[kind] = kept
    if gone:
        judged.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return gone


def rekey(base: str, only: Sequence[str] = ()) -> tuple[int, list[str]]:
    """Rewrite every judged file (or the ``only`` ones, by name: after a merge, each side's files
    were judged on a different revision); the number of keys changed and the judgements left
    unmatched."""
    changed, lost = 0, []
    for judged in sorted(JUDGED.glob("*.json")):
        if only and judged.name not in only:
            continue
        relative = str(judged.relative_to(ROOT))
        if _old_text(base, relative) not in (None, judged.read_text(encoding="utf-8")):
            # Its keys may already name today's mutants: carried over twice, they would be wrong.
            raise SystemExit(f"rekey: {relative} differs from {base}'s; carry keys over from the "
                             "revision the judgements were made on, before judging anything new")
        changed += _drop_deleted_files(judged, lost)
        doc = json.loads(judged.read_text(encoding="utf-8"))
        maps: dict[str, dict[str, str | None]] = {}
        touched = False
        for kind in ("equivalent", *BY_DESIGN):
            for entry in doc.get(kind, []):
                path = entry["mutant"].split(":", 1)[0]
                if path not in maps:
                    maps[path] = rekey_map(base, path)
                if entry["mutant"] not in maps[path]:
                    continue
                new = maps[path][entry["mutant"]]
                if new is None:
                    lost.append(f"{judged.name}: {entry['mutant']} ({kind})")
                elif new != entry["mutant"]:
                    entry["mutant"], changed, touched = new, changed + 1, True
        if touched:
            judged.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed, lost


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.quality.rekey",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD", help="the revision the judgements were made on")
    parser.add_argument("--only", action="append", default=[], metavar="FILE",
                        help="only this judged file, such as spec.json (repeatable)")
    args = parser.parse_args(argv)
    changed, lost = rekey(args.base, args.only)
    again = [line for line in lost if not line.endswith("dropped)")]
    print(f"{changed} keys carried over or dropped, {len(again)} judgements whose line changed")
    for line in lost:
        print(f"  {'dropped' if line.endswith('dropped)') else 'judge again'}: {line}")
    return 1 if again else 0


if __name__ == "__main__":
    sys.exit(main())
