"""What a broker says it serves: one ApiVersions exchange over groupspec.wire.

Why it matters before any vector runs: a broker that does not list ShareGroupHeartbeat cannot
run a share-group vector, and saying so once per machine ("the broker does not offer
ShareGroupHeartbeat") explains a column of the matrix better than a hundred failures would. The
probe is also the readiness check of every launcher: a port that accepts is not yet a broker
that answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from groupspec.types import GroupspecError

#: The group, share and share-state APIs, by key (Kafka's message schemas, ``apiKey``). The
#: probe keeps every key a broker lists; these are the ones the matrix shows by name.
GROUP_APIS: dict[int, str] = {
    8: "OffsetCommit",
    9: "OffsetFetch",
    10: "FindCoordinator",
    11: "JoinGroup",
    12: "Heartbeat",
    13: "LeaveGroup",
    14: "SyncGroup",
    15: "DescribeGroups",
    16: "ListGroups",
    42: "DeleteGroups",
    47: "OffsetDelete",
    68: "ConsumerGroupHeartbeat",
    69: "ConsumerGroupDescribe",
    76: "ShareGroupHeartbeat",
    77: "ShareGroupDescribe",
    78: "ShareFetch",
    79: "ShareAcknowledge",
    83: "InitializeShareGroupState",
    84: "ReadShareGroupState",
    85: "WriteShareGroupState",
    86: "DeleteShareGroupState",
    87: "ReadShareGroupStateSummary",
    90: "DescribeShareGroupOffsets",
    91: "AlterShareGroupOffsets",
    92: "DeleteShareGroupOffsets",
}

#: Names of the APIs a vector's events are sent as that GROUP_APIS leaves out.
API_NAMES: dict[int, str] = {**GROUP_APIS, 28: "TxnOffsetCommit"}

#: The machines the wire target can realise, with the APIs without which none of a machine's
#: vectors can run. A vector may need more (the wire target says so per vector); these are the
#: ones every vector of the machine sends.
MACHINE_APIS: dict[str, tuple[int, ...]] = {
    "classic_group": (10, 11, 12, 13, 14),
    "share_group": (10, 76),
    "share_partition": (10, 76, 78, 79),
}
WIRE_MACHINES = tuple(MACHINE_APIS)

#: The events of those machines' vectors that are requests on the wire, by their ``type``, with
#: the API each is sent as. A ``version`` on such an event is the request's API version (the
#: coordinator's answer depends on it), so a broker must offer that version too. The other events
#: (the clock, restarts, the persister's answers) are the wire target's to realise or refuse.
REQUEST_APIS: dict[str, int] = {
    "OffsetCommit": 8,
    "OffsetFetch": 9,
    "JoinGroup": 11,
    "Heartbeat": 12,
    "LeaveGroup": 13,
    "SyncGroup": 14,
    "DescribeGroups": 15,
    "ListGroups": 16,
    "TxnOffsetCommit": 28,
    "DeleteGroups": 42,
    "OffsetDelete": 47,
    "ShareGroupHeartbeat": 76,
    "Fetch": 78,  # share_partition: a share consumer's fetch is ShareFetch
    "Acknowledge": 79,  # ... and its acknowledgement ShareAcknowledge
}

#: The feature that switches share groups on in Kafka 4.x; a broker that finalizes it at 0 lists
#: the share APIs all the same, so the API list alone does not say that share groups work.
SHARE_FEATURE = "share.version"
_SHARE_MACHINES = frozenset({"share_group", "share_partition"})


class ProbeError(GroupspecError):
    """The peer did not answer ApiVersions as a Kafka broker would (or not at all)."""


@dataclass(frozen=True)
class Probe:
    """Each API key the broker lists with its (lowest, highest) version, and its finalized
    features (name -> highest level); an empty ``features`` means it reported none. ``note``
    says how the answer departed from Kafka's way of giving it, if it did."""

    apis: Mapping[int, tuple[int, int]]
    features: Mapping[str, int]
    note: str = ""

    def versions(self, key: int) -> str:
        """``v0-9`` (``v1`` for one version), or ``-`` when the API is not offered."""
        if key not in self.apis:
            return "-"
        lo, hi = self.apis[key]
        return f"v{lo}" if lo == hi else f"v{lo}-{hi}"

    def missing(self, machine: str) -> str | None:
        """Why no vector of ``machine`` can run on this broker, or None."""
        lacking = [f"{GROUP_APIS[k]} (key {k})" for k in MACHINE_APIS.get(machine, ()) if k not in self.apis]
        if lacking:
            return f"the broker does not offer {', '.join(lacking)}"
        if machine in _SHARE_MACHINES and self.features.get(SHARE_FEATURE, 1) < 1:
            return f"share groups are off on the broker ({SHARE_FEATURE}={self.features[SHARE_FEATURE]})"
        return None

    def lacks(self, machine: str, doc: Any) -> str | None:
        """Why the vector whose input is ``doc`` cannot run on this broker (its machine's APIs, then
        each request it sends, at the version it sends it), or None."""
        why = self.missing(machine)
        if why is not None:
            return why
        events = doc.get("events") if isinstance(doc, Mapping) else None
        reasons: dict[str, None] = {}
        for event in events if isinstance(events, list) else ():
            key = REQUEST_APIS.get(event.get("type", "")) if isinstance(event, Mapping) else None
            if key is None:
                continue
            name = API_NAMES.get(key, str(key))
            if key not in self.apis:
                reasons[f"it sends {name} (key {key}), which the broker does not offer"] = None
                continue
            version = event.get("version")
            lo, hi = self.apis[key]
            if isinstance(version, int) and not lo <= version <= hi:
                reasons[f"it sends {name} v{version}; the broker offers {self.versions(key)}"] = None
        return "; ".join(reasons) or None

    def to_json(self) -> dict[str, object]:
        return {"apis": {str(k): list(v) for k, v in sorted(self.apis.items())},
                "features": dict(sorted(self.features.items())), "note": self.note}


def probe(host: str, port: int, timeout_s: float = 5.0) -> Probe:
    """ApiVersions to ``host:port`` over groupspec.wire; ProbeError (typed, with the reason) for
    an answer that is not a Kafka broker's.

    A refused, closed or silent socket is a ConnectionError (an OSError), kept apart from a bad
    answer so that a readiness loop can wait on the first and stop on the second. The
    negotiation's own departures (a fallback it had to follow up at v0, as librdkafka's mock
    cluster needs) become the probe's ``note``.
    """
    from groupspec.broker import BrokerError, api_versions

    try:
        answer = api_versions(host, port, timeout_s)
    except BrokerError as exc:
        detail = str(exc).removeprefix(f"{host}:{port}: ")
        raise ProbeError(f"{host}:{port} answered ApiVersions badly: {detail}") from None
    return Probe(answer.apis, {name: high for name, (_, high) in answer.features.items()}, answer.fallback)
