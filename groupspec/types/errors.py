"""Kafka's error codes, by their real numbers and names.

Every layer answers with these, so a response from the spec, the implementation or an outside
program can be compared field by field. The numbers are Kafka's (clients/.../protocol/Errors.java);
only the codes the group protocols use are listed, and new machines add theirs here.
"""

from __future__ import annotations

from enum import IntEnum


class Errors(IntEnum):
    UNKNOWN_SERVER_ERROR = -1
    NONE = 0
    OFFSET_OUT_OF_RANGE = 1
    CORRUPT_MESSAGE = 2
    UNKNOWN_TOPIC_OR_PARTITION = 3
    INVALID_FETCH_SIZE = 4
    LEADER_NOT_AVAILABLE = 5
    NOT_LEADER_OR_FOLLOWER = 6
    REQUEST_TIMED_OUT = 7
    NETWORK_EXCEPTION = 13
    OFFSET_METADATA_TOO_LARGE = 12
    COORDINATOR_LOAD_IN_PROGRESS = 14
    COORDINATOR_NOT_AVAILABLE = 15
    NOT_COORDINATOR = 16
    INVALID_TOPIC_EXCEPTION = 17
    ILLEGAL_GENERATION = 22
    INCONSISTENT_GROUP_PROTOCOL = 23
    INVALID_GROUP_ID = 24
    UNKNOWN_MEMBER_ID = 25
    INVALID_SESSION_TIMEOUT = 26
    REBALANCE_IN_PROGRESS = 27
    INVALID_COMMIT_OFFSET_SIZE = 28
    TOPIC_AUTHORIZATION_FAILED = 29
    GROUP_AUTHORIZATION_FAILED = 30
    UNSUPPORTED_VERSION = 35
    INVALID_CONFIG = 40
    INVALID_REQUEST = 42
    NON_EMPTY_GROUP = 68
    GROUP_ID_NOT_FOUND = 69
    FENCED_LEADER_EPOCH = 74
    MEMBER_ID_REQUIRED = 79
    FENCED_INSTANCE_ID = 82
    GROUP_MAX_SIZE_REACHED = 81
    GROUP_SUBSCRIBED_TO_TOPIC = 86
    UNSTABLE_OFFSET_COMMIT = 88
    FENCED_MEMBER_EPOCH = 110
    UNRELEASED_INSTANCE_ID = 111
    UNSUPPORTED_ASSIGNOR = 112
    STALE_MEMBER_EPOCH = 113
    INVALID_RECORD_STATE = 121
    SHARE_SESSION_NOT_FOUND = 122
    INVALID_SHARE_SESSION_EPOCH = 123
    FENCED_STATE_EPOCH = 124
    SHARE_SESSION_LIMIT_REACHED = 133

    # An IntEnum prints as its number; a code is read by people far more often than it is
    # formatted into bytes (JSON and the codecs use the value or the name explicitly).
    def __str__(self) -> str:
        return f"Errors.{self.name}"

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else int.__format__(int(self), spec)


class GroupspecError(Exception):
    """Root of every error groupspec raises on purpose; anything else is a bug."""


class InputError(GroupspecError, ValueError):
    """Bad input from a user: names the offending field (a JSON path) and what is wrong."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class PartitionAssignorError(GroupspecError):
    """An assignor refused its input, as Kafka's PartitionAssignorException does.

    ``kafka_exception`` names the Java exception Kafka would throw, so the Kafka-compatible mode
    can report it faithfully (the coordinator turns both into UNKNOWN_SERVER_ERROR).
    """

    def __init__(self, message: str, kafka_exception: str = "PartitionAssignorException") -> None:
        super().__init__(message)
        self.kafka_exception = kafka_exception
