"""encode_record cases for the writer's refusals of values (issue 17: mutants of
impl/codec/messages.py's ``explain``, which names the field behind a refusal, that no vector told
apart), chained into cases.py's ENCODE_CASES.

Kafka's generated writer checks a string's length when it sizes the message (``field is too long
to be serialized``, a RuntimeException the Kafka adapter names ``Encode``), wherever the string
sits: a field of the record, of a struct inside it, or of an element of an array in that struct.
groupspec refuses the same record, with the same kind.
"""

from __future__ import annotations

from typing import Any

from groupspec.types.records import OFFSETS_TOPIC

_MEMBER_KEY = {"groupId": "g", "memberId": "m"}


def _classic_member(*protocols: dict[str, Any]) -> dict[str, Any]:
    """ConsumerGroupMemberMetadata v0 of a member that joined with the classic protocol (tag 0,
    classicMemberMetadata, holds the protocols it supports)."""
    classic = {"sessionTimeoutMs": 45000, "supportedProtocols": list(protocols)}
    return {"topic": OFFSETS_TOPIC, "type": "ConsumerGroupMemberMetadata", "typeId": 5, "key": _MEMBER_KEY,
            "valueVersion": 0,
            "value": {"instanceId": None, "rackId": None, "clientId": "c", "clientHost": "h",
                      "subscribedTopicNames": ["t"], "subscribedTopicRegex": None,
                      "rebalanceTimeoutMs": 10000, "serverAssignor": None, "classicMemberMetadata": classic}}


#: (case, description, encode_record input), appended to cases.py's ENCODE_CASES.
ENCODE_CASES = (
    ("encode_classic_member_protocol_name_32768_bytes", "ConsumerGroupMemberMetadata v0 whose "
     "classicMemberMetadata (a tagged struct) lists a second supported protocol named with 32768 "
     "bytes: refused by the writer, as a string of that length anywhere in the record is",
     _classic_member({"name": "range", "metadata": "AAE="}, {"name": "p" * 32768, "metadata": ""})),
    ("encode_classic_member_two_protocols", "ConsumerGroupMemberMetadata v0 whose "
     "classicMemberMetadata lists two supported protocols, each with its metadata: written as tag 0",
     _classic_member({"name": "range", "metadata": "AAE="}, {"name": "roundrobin", "metadata": ""})),
)
