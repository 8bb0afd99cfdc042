"""Hypothesis strategies for share groups as the assignors see them (``AssignorInput``).

Small on purpose: 0..12 members, 0..4 topics of 0..8 partitions. The corner cases of the
SimpleAssignor (sharing, the tricky case, stale targets, empty pools) all live at this size,
and the spec is quadratic. Homogeneous groups are drawn about half the time, because a
random subscription per member almost never produces one.

``groups(clean=True)`` gives previous targets that only hold existing, assignable partitions
of subscribed topics (what the assignor itself hands out); the default also plants partitions
beyond the count, of deleted topics, of topics the member left, and empty sets.
"""

from __future__ import annotations

from hypothesis import strategies as st

from groupspec.types import AssignorInput, MemberSpec

#: Topic names that exist in a drawn group are a prefix of these.
TOPIC_NAMES = ("t0", "t1", "t2", "t3")
#: Names that never exist: subscribed to by mistake, or a topic deleted since the last target.
UNKNOWN = "gone"
MAX_PARTITIONS = 8

member_ids = st.text(alphabet="abcmxyz019-", min_size=1, max_size=4)


@st.composite
def topic_maps(draw: st.DrawFn) -> dict[str, int]:
    """Topic name -> partition count, 0..4 topics of 0..8 partitions."""
    n_topics = draw(st.integers(0, len(TOPIC_NAMES)))
    return {name: draw(st.integers(0, MAX_PARTITIONS)) for name in TOPIC_NAMES[:n_topics]}


def subscriptions(names: list[str]) -> st.SearchStrategy[tuple[str, ...]]:
    """A subscription: distinct names in any order (order must not matter to the assignor)."""
    if not names:
        return st.just(())
    return st.lists(st.sampled_from(names), unique=True, max_size=len(names)).map(tuple)


@st.composite
def assignable_maps(draw: st.DrawFn, topics: dict[str, int]) -> dict[str, frozenset[int]] | None:
    """``None`` (everything assignable) or, per topic, the partitions initialized so far.

    A topic may be missing from the map (nothing assignable) and a set may name partitions
    beyond the count (the map lagging a shrink): both are legal input.
    """
    if draw(st.booleans()):
        return None
    result = {}
    for name, count in topics.items():
        if draw(st.integers(0, 4)) == 0:
            continue
        result[name] = frozenset(draw(st.lists(st.integers(0, count), unique=True)))
    return result


def _assignable(topics: dict[str, int], assignable: dict[str, frozenset[int]] | None,
                name: str) -> list[int]:
    count = topics.get(name, 0)
    if assignable is None:
        return list(range(count))
    return [p for p in sorted(assignable.get(name, ())) if p < count]


JUNK = ("stale", "deleted", "unsubscribed", "unassignable", "empty")


@st.composite
def previous_targets(draw: st.DrawFn, subscription: tuple[str, ...], topics: dict[str, int],
                     assignable: dict[str, frozenset[int]] | None,
                     clean: bool) -> dict[str, frozenset[int]]:
    """A member's previous target: valid partitions of its subscription, and unless ``clean``
    some of the junk of JUNK on top (each kind shrinks away on its own)."""
    result: dict[str, set[int]] = {}
    for name in subscription:
        valid = _assignable(topics, assignable, name)
        if valid and draw(st.booleans()):
            result[name] = set(draw(st.lists(st.sampled_from(valid), unique=True, min_size=1)))
    if clean:
        return {name: frozenset(parts) for name, parts in result.items()}
    for kind in draw(st.lists(st.sampled_from(JUNK), unique=True)):
        if kind == "deleted":
            name, parts = UNKNOWN, draw(st.lists(st.integers(0, 3), unique=True, min_size=1))
        elif not topics:
            continue
        else:
            name = draw(st.sampled_from(sorted(topics)))
            count = topics[name]
            if kind == "stale":
                parts = [count + draw(st.integers(0, 2))]
            elif kind == "unsubscribed":
                if name in subscription or not count:
                    continue
                parts = draw(st.lists(st.integers(0, count - 1), unique=True, min_size=1))
            elif kind == "unassignable":
                allowed = _assignable(topics, assignable, name)
                parts = [p for p in range(count) if p not in allowed][:1]
            else:  # "empty": a topic listed with no partitions
                parts = []
        result.setdefault(name, set()).update(parts)
    return {name: frozenset(parts) for name, parts in result.items()}


@st.composite
def groups(draw: st.DrawFn, clean: bool = False, max_members: int = 12) -> AssignorInput:
    """A share group with up to ``max_members`` members; ``clean`` as in the module docstring."""
    topics = draw(topic_maps())
    names = list(topics)
    if draw(st.integers(0, 4)) == 0:
        names.append(UNKNOWN)  # subscribed, but not in the metadata
    # Drawing the size first spreads it evenly; a plain list strategy favours tiny groups.
    size = draw(st.integers(0, max_members))
    ids = draw(st.lists(member_ids, unique=True, min_size=size, max_size=size))
    assignable = draw(assignable_maps(topics))
    if draw(st.booleans()):
        common = draw(subscriptions(names))
        # Same names in another order is still homogeneous.
        subs = [tuple(draw(st.permutations(common))) for _ in ids]
    else:
        subs = [draw(subscriptions(names)) for _ in ids]
    members = tuple(
        MemberSpec(member_id, sub, draw(previous_targets(sub, topics, assignable, clean)))
        for member_id, sub in zip(ids, subs, strict=True)
    )
    topic_ids: dict[str, str] = {}
    if draw(st.booleans()):
        topic_ids = {name: str(draw(st.uuids())) for name in topics}
    return AssignorInput(members, topics, topic_ids, assignable)
