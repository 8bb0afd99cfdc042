"""Topic ids in both spellings a user meets: Kafka's 22-character form and RFC 4122 text.

Kafka prints a topic id (``Uuid.toString``) as its 16 bytes in URL-safe base64 without padding,
``7pauBAE8r2GHOMRG8Vj_zQ``: what ``kafka-topics --describe`` shows and what a user pastes.
groupspec's vocabulary carries the same id as 36-character RFC 4122 text
(``ee96ae04-013c-af61-8738-c446f158ffcd``), which is what Python's ``uuid`` reads. Both
are accepted wherever a topic id is read; an answer spells an id the way the question did, so
:class:`TopicIdSpellings` rewrites a JSON document to the vocabulary's spelling on the way in
and back on the way out.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from typing import Any

from groupspec.types.errors import InputError

_KAFKA_FORM = re.compile(r"[A-Za-z0-9_-]{22}")

#: JSON keys whose string value is one topic id, and keys whose object maps names to ids. Only
#: the vocabulary's own keys: a record's ``topicId`` (Kafka's field name) is printed as Kafka
#: prints it, and a records vector expects exactly that.
ID_KEYS = frozenset({"topic_id"})
ID_MAP_KEYS = frozenset({"topic_ids"})


def parse_topic_id(text: object, path: str = "topic_id") -> uuid.UUID:
    """The id ``text`` spells, in either form; an :class:`InputError` naming ``path`` otherwise."""
    if not isinstance(text, str):
        raise InputError(path, f"expected a topic id string, got {type(text).__name__}")
    if _KAFKA_FORM.fullmatch(text):
        try:
            return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))
        except (binascii.Error, ValueError):
            pass
    else:
        try:
            return uuid.UUID(text)
        except ValueError:
            pass
    raise InputError(path, f"not a topic id: {text!r} (expected Kafka's 22-character form such as "
                     "'7pauBAE8r2GHOMRG8Vj_zQ' or a UUID such as "
                     "'ee96ae04-013c-af61-8738-c446f158ffcd')")


def kafka_string(topic_id: uuid.UUID) -> str:
    """Kafka's ``Uuid.toString``: URL-safe base64 of the 16 bytes, without padding."""
    return base64.urlsafe_b64encode(topic_id.bytes).decode("ascii").rstrip("=")


def canonical(text: object, path: str = "topic_id") -> str:
    """The vocabulary's spelling (36-character lower-case RFC 4122 text) of an id in either form."""
    return str(parse_topic_id(text, path))


def is_kafka_form(text: str) -> bool:
    return _KAFKA_FORM.fullmatch(text) is not None


class TopicIdSpellings:
    """Rewrites the topic ids of a JSON document to the vocabulary's spelling and back.

    ``normalize`` reads every string under a ``topic_id`` key and every value of a ``topic_ids``
    object; an id given in Kafka's form is rewritten, and remembered, so that ``restore`` can
    write the same id back in that form in the answer. A string that is no id at all is left
    as it is, for the machine reading it to judge.
    """

    def __init__(self) -> None:
        self._given: dict[str, str] = {}

    def normalize(self, doc: Any) -> Any:
        return self._walk(doc, self._to_canonical)

    def restore(self, doc: Any) -> Any:
        if not self._given:
            return doc
        return self._walk(doc, lambda text: self._given.get(text, text))

    def _to_canonical(self, text: str) -> str:
        if not is_kafka_form(text):
            return text
        try:
            spelled = canonical(text)
        except InputError:
            return text
        self._given[spelled] = text
        return spelled

    def _walk(self, doc: Any, rewrite: Any) -> Any:
        if isinstance(doc, list):
            return [self._walk(item, rewrite) for item in doc]
        if not isinstance(doc, dict):
            return doc
        out: dict[str, Any] = {}
        for key, value in doc.items():
            if key in ID_KEYS and isinstance(value, str):
                out[key] = rewrite(value)
            elif key in ID_MAP_KEYS and isinstance(value, dict):
                out[key] = {name: rewrite(v) if isinstance(v, str) else self._walk(v, rewrite)
                            for name, v in value.items()}
            else:
                out[key] = self._walk(value, rewrite)
        return out
