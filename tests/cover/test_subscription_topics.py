"""The vocabulary's subscription reader (``types.records.consumer_protocol.subscription_topics``).

The spec reads a consumer member's topics with it; the implementation decodes the same bytes with
its own codec. Both must read the same topics from well-formed bytes and refuse the same malformed
ones (cut short anywhere, a negative version), or the two layers would disagree about which
topics a group subscribes to (OffsetDelete, offset expiration).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.codec.consumer_protocol import decode_subscription, encode_subscription
from groupspec.impl.codec.errors import CodecError
from groupspec.types.records import ConsumerProtocolSubscription
from groupspec.types.records.consumer_protocol import subscription_topics
from tests.record_strategies import message_values


def _impl_topics(data: bytes) -> tuple[str, ...] | None:
    try:
        return decode_subscription(data)[0].topics
    except CodecError:
        return None


def _spec_topics(data: bytes) -> tuple[str, ...] | None:
    try:
        return subscription_topics(data)
    except ValueError:
        return None


@given(data=st.data())
def test_subscription_topics_agree_with_the_codec(data: st.DataObject) -> None:
    version = data.draw(st.integers(0, 3))
    sub = data.draw(message_values(ConsumerProtocolSubscription, version))
    raw = encode_subscription(sub, version)
    assert subscription_topics(raw) == sub.topics
    cut = data.draw(st.integers(0, len(raw)))
    assert _spec_topics(raw[:cut]) == _impl_topics(raw[:cut])


def test_invalid_subscription_topics() -> None:
    with pytest.raises(ValueError, match="negative"):
        subscription_topics(b"\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff")
    with pytest.raises(ValueError):
        subscription_topics(b"\x00\x00\x00\x00\x00\x01\x00\x05ab")
