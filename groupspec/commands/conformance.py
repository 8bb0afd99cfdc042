"""`groupspec conformance`: run the conformance vectors against a target (the main job).

Prints ``machine | vectors | passed | failed | unsupported`` (and ``diverged`` when a Kafka
flavour run has such vectors), the vectors the target does not implement (grouped by its
reason), the vectors that diverge (grouped by the docs/divergences.md entry: Kafka's own code
breaks the rule they state), and then every failing vector with its reason, its file and input,
a short diff and the target's stderr. Exit 0 when no vector failed (unsupported and diverged
ones do not fail: a partial implementation needs no --filter, and a Kafka-faithful one is not
faulted for Kafka's known departures), 1 when one failed or when the target
supported none of the selected vectors, 2 on bad usage (unknown target, unreadable or tampered
vectors). docs/conformance.md has the format.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", default="impl", metavar="TARGET",
                        help="impl (default), impl-kafka, spec, kafka (Kafka's own classes "
                        "through adapters/kafka, built with Maven on first use; 4.2.1 unless "
                        "--kafka-version), cmd:'<program>' for an outside program speaking "
                        "JSON lines, or kafka://HOST:PORT for a live broker over the wire "
                        "(classic_group, share_group, share_partition; time 1:1, ?budget_s=10 "
                        "per vector; "
                        "docs/conformance.md, 'A live broker')")
    from groupspec.kafka_versions import DEFAULT, VERSIONS

    others = ", ".join(f"{v.line} ({v.release})" for v in VERSIONS.values() if v is not DEFAULT)
    parser.add_argument("--kafka-version", default=None, metavar="V",
                        help=f"the Kafka release line whose answers the vectors hold: {DEFAULT.line} "
                        f"(default) or {others}; a later line's vectors replace the machines it "
                        "changes. With --target kafka the adapter is built against that release "
                        "(4.3.1's leaves the records machine out)")
    parser.add_argument("--flavour", choices=("groupspec", "kafka"), default=None,
                        help="which expectation to hold the target to: groupspec's rules or "
                        "Kafka 4.2's exact answers (default: kafka for impl-kafka and kafka, else "
                        "groupspec)")
    parser.add_argument("--vectors", type=Path, default=None, metavar="DIR",
                        help="the version folder holding manifest.json (default: the vectors "
                        "shipped with groupspec)")
    parser.add_argument("--regenerate", action="store_true",
                        help="regenerate the vectors from the spec first")
    parser.add_argument("--filter", default="", metavar="S",
                        help="only vectors whose id (machine/handler/case) contains S")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S",
                        help="seconds an outside program may take per vector (default 10)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--junit", type=Path, default=None, metavar="FILE",
                        help="also write the results as JUnit XML")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print one line per vector as it is judged")


def run(args: argparse.Namespace) -> int:
    from groupspec import kafka_versions
    from groupspec.conformance import runner, targets
    from groupspec.conformance import vector_format as vf
    from groupspec.types import InputError

    release = kafka_versions.version(args.kafka_version)
    root = args.vectors if args.vectors is not None else vf.default_root(release.line)
    if args.timeout <= 0:
        raise InputError("--timeout", "must be positive")
    if args.regenerate:
        from groupspec.conformance.generate import write

        count = write(root, release.line)
        print(f"regenerated {count} vectors in {root}", file=sys.stderr)
    # The packaged folders of a later line hold only the machines it changes; the rest are the
    # default line's. A folder given with --vectors is taken whole.
    loaded = vf.load(root) if args.vectors is not None else vf.load_release(release.line)
    vectors = [v for v in loaded if args.filter in v.id]
    adapter_release = release.release if args.kafka_version is not None and args.target == "kafka" else None
    target = targets.make_target(args.target, args.timeout, adapter_release)
    flavour = args.flavour or targets.DEFAULT_FLAVOUR.get(args.target, "groupspec")
    marks = {"passed": "ok  ", "failed": "FAIL", "unsupported": "n/a ", "diverged": "DIV "}

    def progress(o: runner.Outcome) -> None:
        print(f"{marks[o.status]} {o.id}", file=sys.stderr)

    report = runner.run(vectors, target, flavour, progress if args.verbose else None, root=root)
    if args.junit is not None:
        args.junit.write_bytes(runner.to_junit(report))
    if args.json:
        print(json.dumps(runner.to_json(report), indent=2, ensure_ascii=False))
    else:
        own = ", ".join(sorted(release.settings))
        inherited = "" if args.vectors is not None or release is kafka_versions.DEFAULT else (
            f" (machines other than {own} from {kafka_versions.DEFAULT.folder})")
        print(f"target {report.target} (flavour {flavour}), vectors {root}{inherited}")
        print(runner.table(report))
        if report.unsupported:
            print()
            print(runner.unsupported_text(report))
        if report.diverged:
            print()
            print(runner.diverged_text(report))
        if report.failed:
            print()
            print(runner.failures_text(report))
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    if not vectors:
        print(f"no vector matches --filter {args.filter!r}", file=sys.stderr)
        return 1
    if len(report.unsupported) == len(vectors):
        print(f"the target supports none of the {len(vectors)} selected vectors", file=sys.stderr)
        return 1
    return 1 if report.failed else 0
