"""What share groups promise about each record, checked on a history of what consumers saw.

Why: the share partition, the share coordinator and the consumer each agree with their spec, but
the promise users buy share groups for is end to end and per record, across lost answers and
broker restarts: a record is acknowledged ACCEPT at most once; once an ACCEPT or REJECT of it
succeeded it is never delivered again; a RELEASE or an expired lock sends it round again until
the delivery limit, after which it is archived; delivery counts only grow, within the limit; and
nothing produced is lost while consumers keep polling. These are judged afterwards from a
:class:`~groupspec.history.History`, so a simulation (or a real cluster's clients) needs only to
write down what it asked and what it was told.

The history's operations (``value`` shapes; a record is ``[topic, partition, offset]``):

* ``produce`` ``ok``: ``[[topic, partition, first, last], ...]``, records that exist.
* ``poll`` ``ok``: ``[[topic, partition, offset, delivery_count], ...]``, the records handed out;
  ``info``: the answer was lost, so records may have been handed out unseen (each such poll may
  have delivered a record once: a record whose end the history does not show is excused when
  enough of them followed its last delivery to take it to the limit, where it is archived).
* ``acknowledge`` ``invoke``: ``[[topic, partition, offset, type, delivery_count, poll], ...]``
  (type ACCEPT, RELEASE, REJECT, RENEW; ``delivery_count`` and ``poll``, the index of the ``poll``
  ``ok`` that handed the copy out, name the delivered copy the acknowledgement was given for);
  its ``ok``: ``[[topic, partition, offset, error], ...]`` (``"NONE"`` when it took); ``fail``:
  none took; ``info``: unknown (the answer was lost), each may or may not have taken. Histories
  written before copies were recorded have ``[topic, partition, offset, type]`` items; they are
  read, and judged as if every acknowledgement were of the latest copy (see below).
* ``quiet`` ``ok`` (process ``"nemesis"``, any value): from here on nothing is lost or crashed and
  consumers keep polling, so every record must come to an end by the history's last operation.
* ``crash`` (process ``"nemesis"``, any type and value): the broker restarted. A share partition
  never persists an acquisition (docs/reference/share-partition-kafka.md, acquire), so the record
  a consumer held when the broker went down comes back with the delivery count it had before that
  acquisition plus one: the same count again. Across a crash a count may repeat (also the limit's),
  never fall.

Two facts of Kafka's the rules allow for. The records of a ``poll`` are those the consumer was
handed by the broker (a simulation records them when the ShareFetch answer arrives; a record may
then wait in the client's buffer past its lock). And an acknowledgement from a consumer that does
not hold the record's latest delivery is stale: if the record has ended meanwhile, Kafka skips
offsets below the share-partition start offset and answers NONE (SharePartition#acknowledge), so
such a "successful" ACCEPT or REJECT says nothing and is not counted. If nothing in the history
could have ended the record by then (no ACCEPT or REJECT of it sent since its latest delivery, no
lost polls enough to take it to the limit) and the consumer cannot hold it again unseen, Kafka
refuses it (another member holds it), and a NONE is ``stale_acknowledgement_took``.

ACCEPTs are judged per delivered copy. A consumer can hold two copies of one record: one fetched
before a broker restart that waited in its buffer, and the same record handed to it afresh
after. Kafka's acknowledgements name offsets, not copies, so the broker applies the first ACCEPT
(of either copy) to the member's live acquisition, and the second finds the record ended and is
answered NONE without effect. So a second ACCEPT that took is a violation only if it names the
same delivery as an earlier one that took (the consumer was told twice that one delivery was
accepted) or a delivery made after the record was first accepted (a new acquisition of an
accepted record); an ACCEPT of another copy handed out before that is the stale one, and says
nothing. Without copies (older histories) every second ACCEPT that took is counted.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from groupspec.history import History, Op
from groupspec.types import InputError

Record = tuple[str, int, int]
FINAL_TYPES = ("ACCEPT", "REJECT")
#: RENEW keeps the record where it is (a new lock for its holder): it ends nothing.
ACK_TYPES = ("ACCEPT", "RELEASE", "REJECT", "RENEW")


@dataclass(frozen=True)
class Violation:
    kind: str
    record: Record | None
    op: int
    detail: str


@dataclass
class _Life:
    """What the history says happened to one record, in order."""

    counts: list[tuple[int, int]] = field(default_factory=list)  # (op index, delivery count)
    deliveries: dict[int, tuple[str, int]] = field(default_factory=dict)  # poll index -> process, count
    # (completion index, poll index of the copy or None when the history does not say) of
    # each ACCEPT that took
    accepted: list[tuple[int, int | None]] = field(default_factory=list)
    final_at: int | None = None  # completion index of the first ACCEPT or REJECT that took
    maybe_final: bool = False  # an ACCEPT or REJECT whose answer was lost
    holder: str | None = None  # the process its latest delivery went to
    final_asks: list[int] = field(default_factory=list)  # invoke indexes of ACCEPTs and REJECTs of it
    crashes: int = 0  # broker crashes seen before its latest delivery


def _record(item: Any, where: str) -> Record:
    if (not isinstance(item, list) or len(item) < 3 or not isinstance(item[0], str)
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in item[1:3])):
        raise InputError(where, f"expected [topic, partition, offset, ...], got {item!r}")
    return (item[0], item[1], item[2])


def check(history: History, delivery_limit: int) -> list[Violation]:
    """Every broken promise in ``history``, in the order found; [] when it keeps them all."""
    if delivery_limit < 1:
        raise InputError("delivery_limit", f"must be at least 1, got {delivery_limit}")
    lives: dict[Record, _Life] = defaultdict(_Life)
    produced: dict[Record, int] = {}  # record -> index of the produce that made it
    unseen: list[int] = []  # indexes of polls whose answer was lost
    unseen_by: dict[str, list[int]] = defaultdict(list)  # the same, by process
    asked: dict[str, Op] = {}  # process -> its acknowledge invoke awaiting completion
    quiet = False
    crashes = 0
    found: list[Violation] = []
    for op in history:
        if op.f == "produce" and op.type == "ok":
            for i, item in enumerate(op.value or ()):
                where = f"op {op.index}.value[{i}]"
                if not isinstance(item, list) or len(item) != 4:
                    raise InputError(where, f"expected [topic, partition, first, last], got {item!r}")
                topic, partition = _record([item[0], item[1], item[2]], where)[:2]
                produced.update(((topic, partition, o), op.index) for o in range(item[2], item[3] + 1))
        elif op.f == "poll" and op.type == "info":
            unseen.append(op.index)
            unseen_by[op.process].append(op.index)
        elif op.f == "poll" and op.type == "ok":
            for i, item in enumerate(op.value or ()):
                rec = _record(item, f"op {op.index}.value[{i}]")
                count = item[3] if len(item) > 3 else None
                if not isinstance(count, int):
                    raise InputError(f"op {op.index}.value[{i}]",
                                     "a delivered record needs its delivery count")
                found += _delivered(lives[rec], rec, op.index, count, delivery_limit, crashes)
                lives[rec].holder = op.process
                lives[rec].deliveries[op.index] = (op.process, count)
        elif op.f == "acknowledge":
            if op.type == "invoke":
                asked[op.process] = op
                for i, item in enumerate(op.value or ()):
                    if isinstance(item, list) and len(item) > 3 and item[3] in FINAL_TYPES:
                        lives[_record(item, f"op {op.index}.value[{i}]")].final_asks.append(op.index)
            else:
                invoke = asked.pop(op.process, None)
                if invoke is None:
                    raise InputError(f"op {op.index}",
                                     f"{op.type} of an acknowledge {op.process} never invoked")
                own = unseen_by[op.process]
                found += _acknowledged(lives, invoke, op, _Unseen(unseen, own, delivery_limit))
        elif op.f == "quiet" and op.type == "ok":
            quiet = True
        elif op.f == "crash":
            crashes += 1
    if quiet:
        found += _ends(lives, produced, unseen, delivery_limit, len(history))
    return found


def _delivered(life: _Life, rec: Record, index: int, count: int, limit: int, crashes: int) -> list[Violation]:
    out = []
    if life.final_at is not None:
        out.append(Violation("delivered_after_final", rec, index, f"delivered again (count {count}) "
                             f"after an ACCEPT or REJECT took at op {life.final_at}"))
    if not 1 <= count <= limit:
        out.append(Violation("count_out_of_range", rec, index, f"delivery count {count}, limit {limit}"))
    if life.counts:
        before_index, before = life.counts[-1]
        # A crash since the last delivery lost that acquisition: the same count may come again.
        repeat = crashes > life.crashes and count == before
        if count <= before and not repeat:
            out.append(Violation("count_not_growing", rec, index,
                                 f"delivery count {count} after {before} at op {before_index}"))
        if before >= limit and not repeat:
            out.append(Violation("delivered_past_limit", rec, index, f"delivered again after its "
                                 f"delivery {before} (the limit) at op {before_index}"))
    life.counts.append((index, count))
    life.crashes = crashes
    return out


@dataclass(frozen=True)
class _Unseen:
    """Polls whose answers were lost: all of them, and the acknowledging process's own."""

    polls: list[int]
    own: list[int]
    limit: int


def _acknowledged(lives: dict[Record, _Life], invoke: Op, done: Op, unseen: _Unseen) -> list[Violation]:
    out = []
    answers: dict[Record, str] = {}
    if done.type == "ok":
        for i, item in enumerate(done.value or ()):
            answers[_record(item, f"op {done.index}.value[{i}]")] = str(item[3]) if len(item) > 3 else "NONE"
    for i, item in enumerate(invoke.value or ()):
        where = f"op {invoke.index}.value[{i}]"
        rec = _record(item, where)
        kind = item[3] if len(item) > 3 else None
        if kind not in ACK_TYPES:
            raise InputError(where, f"type one of {', '.join(ACK_TYPES)}, got {kind!r}")
        copy = _copy(lives[rec], invoke.process, item, where)
        if kind not in FINAL_TYPES:
            continue
        life = lives[rec]
        if life.holder is not None and life.holder != invoke.process:
            # Stale: another consumer holds the latest delivery. Its success says nothing, unless
            # the record cannot have ended (nor be held by this consumer, unseen) by then.
            if (done.type == "ok" and answers.get(rec, "NONE") == "NONE"
                    and not _may_have_ended(life, invoke.index, done.index, unseen)):
                out.append(Violation("stale_acknowledgement_took", rec, done.index,
                                     f"{kind} from {invoke.process} took while {life.holder} held the "
                                     f"record's latest delivery (op {life.counts[-1][0]}) and nothing "
                                     "could have ended it"))
            continue
        if done.type == "info":
            life.maybe_final = True
        elif done.type == "ok" and answers.get(rec, "NONE") == "NONE":
            if kind == "ACCEPT":
                again = _accepted_again(life, copy)
                if again is not None:
                    out.append(Violation("accepted_twice", rec, done.index, again))
                life.accepted.append((done.index, copy))
            if life.final_at is None:
                life.final_at = done.index
    return out


def _may_have_ended(life: _Life, asked: int, done: int, unseen: _Unseen) -> bool:
    """Whether Kafka may rightly answer NONE to a consumer not holding the record's latest
    delivery: the record may have ended (an ACCEPT or REJECT of it was sent since that delivery,
    or it may have reached the limit in polls whose answers were lost, and been archived), so the
    offset is skipped below the start offset; or this consumer may hold it again from a poll whose
    answer it lost."""
    latest, count = life.counts[-1]
    if any(latest < i < done and i != asked for i in life.final_asks):
        return True
    if count + len(unseen.polls) - bisect.bisect_right(unseen.polls, latest) >= unseen.limit:
        return True
    return bool(unseen.own) and unseen.own[-1] > latest


def _copy(life: _Life, process: str, item: list[Any], where: str) -> int | None:
    """The poll index of the delivered copy an acknowledgement item names (None for an item
    of an older history, which names none); a copy the history never handed to that process
    is bad input."""
    if len(item) == 4:
        return None
    if len(item) != 6 or not all(isinstance(x, int) and not isinstance(x, bool) for x in item[4:]):
        raise InputError(where, "expected [topic, partition, offset, type, delivery_count, poll], "
                         f"got {item!r}")
    count, poll = item[4], item[5]
    if life.deliveries.get(poll) != (process, count):
        raise InputError(where, f"names a delivery (count {count}, poll op {poll}) the history never "
                         f"handed to {process}")
    return int(poll)


def _accepted_again(life: _Life, copy: int | None) -> str | None:
    """Why an ACCEPT that took, of ``copy``, breaks at-most-once; None when it says nothing."""
    if not life.accepted:
        return None
    first = life.accepted[0][0]
    if copy is None or any(c is None for _, c in life.accepted):
        return f"ACCEPT took again; it first took at op {first}"
    if any(c == copy for _, c in life.accepted):
        return f"ACCEPT of the same delivery (poll op {copy}) took again; it first took at op {first}"
    if copy > first:
        return (f"ACCEPT of a delivery made (poll op {copy}) after an ACCEPT took at op {first} "
                "took again")
    return None  # a copy handed out before the first took: the broker found the record ended


def _ends(lives: dict[Record, _Life], produced: dict[Record, int], unseen: list[int], limit: int,
          end: int) -> list[Violation]:
    """Once quiet, each produced record must have come to an end: accepted or rejected, or
    delivered up to the limit (archived), seen or in polls whose answer was lost."""
    out = []
    for rec in sorted(produced):
        life = lives.get(rec)
        last_index, last_count = life.counts[-1] if life is not None and life.counts else (produced[rec], 0)
        unseen_after = len(unseen) - bisect.bisect_right(unseen, last_index)
        if last_count + unseen_after >= limit:
            continue  # it may have been delivered to the limit, unseen, and archived
        if life is None or not life.counts:
            out.append(Violation("lost", rec, end, "never delivered"))
            continue
        if life.final_at is None and not life.maybe_final:
            out.append(Violation("lost", rec, end,
                                 f"last delivered with count {life.counts[-1][1]} (limit {limit}) and never "
                                 "acknowledged for good nor delivered again"))
    return out
