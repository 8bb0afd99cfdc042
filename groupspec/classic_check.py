"""Judging a classic consumer group's history (groupspec.classic_simulation writes them).

Why a separate checker: the simulation's promises are about what the consumers saw, which a
step-by-step comparison with a model cannot judge once answers are lost; a checker over the
history can, and it judges a history from any source in the same shape (JSON lines,
groupspec.history). Each process (a consumer's name) has at most one operation outstanding per
function: a consumer's join, sync and heartbeat never overlap (one coordinator request at a time),
and its commits are synchronous.

The properties (docs/reliability.md, "Classic consumer groups end to end"):

``double-assignment``
    No partition is assigned to two members in one generation (NoDoubleClientAssignment): the
    SyncGroup answers of one generation hand out disjoint sets.
``moved-before-revoked``
    Cooperative protocol only: a partition a member still claimed as owned when it joined a
    generation is not assigned to another member in that generation (it must be revoked in one
    generation and assigned in the next). A claim counts when it was made in a generation (not
    after the member's generation was reset) and no other claimant of the partition claims it
    from a later generation: the assignors give a partition claimed twice to the latest claimant.
    Only the members the generation's leader assigned to count (a coordinator failover may
    forget an unwritten generation and issue its number again to others).
``stale-claim``
    A JoinGroup sent without a generation (the member's generation was reset: it was fenced or
    unknown) claims no partitions: Kafka's consumer runs onJoinPrepare again after such a reset
    (AbstractCoordinator#resetStateAndRejoin sets needsJoinPrepare), which calls
    onPartitionsLost and drops them.
``generation-backwards``
    A member (a consumer under one member id) is never given a generation, in a JoinGroup or
    SyncGroup answer, below one it completed (its SyncGroup answered).
``not-converged``
    The run's final reads (taken the settle bound after the last churn): every live consumer
    STABLE in the coordinator's generation, the coordinator's group Stable with exactly them,
    and their partitions disjoint and covering every partition of the subscribed topics.
``commit-backwards``
    While a consumer owns a partition without interruption, its acknowledged commits of that
    partition never go down.
``committed-lost``
    A committed offset read when a partition is assigned is never below an offset whose
    commit was acknowledged before that read began.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from groupspec.history import History, Op
from groupspec.types import InputError

KINDS = ("double-assignment", "moved-before-revoked", "generation-backwards", "not-converged",
         "commit-backwards", "committed-lost", "stale-claim")
TP = tuple[str, int]


@dataclass(frozen=True)
class Violation:
    kind: str
    #: The index of the operation that shows it.
    op: int
    detail: str


def _tps(items: Any, op: Op, key: str) -> list[TP]:
    if not isinstance(items, list):
        raise InputError(f"op {op.index}.{key}", f"expected a list of [topic, partition], got {items!r}")
    out = []
    for item in items:
        if not (isinstance(item, list) and len(item) >= 2 and isinstance(item[0], str)
                and isinstance(item[1], int)):
            raise InputError(f"op {op.index}.{key}", f"expected [topic, partition], got {item!r}")
        out.append((item[0], item[1]))
    return out


def _field(op: Op, key: str) -> Any:
    if not isinstance(op.value, dict) or key not in op.value:
        raise InputError(f"op {op.index}", f"{op.type} {op.f} needs a value with {key!r}")
    return op.value[key]


def check(history: History) -> list[Violation]:
    """Every violation of the properties above, in history order; [] when the run kept them.

    A history whose operations lack what a property reads is an InputError naming the operation.
    """
    setup = next((op for op in history if op.f == "setup"), None)
    if setup is None:
        raise InputError("history", "no setup operation (the run's assignor and partitions)")
    violations = (_double_assignment(history) + _stale_claims(history) + _generations(history)
                  + _converged(history, setup)
                  + _commits(history))
    if _field(setup, "protocol") == "COOPERATIVE":
        violations += _moved_before_revoked(history)
    return sorted(violations, key=lambda v: (v.op, v.kind))


def _double_assignment(history: History) -> list[Violation]:
    owner: dict[tuple[int, TP], str] = {}
    found = []
    for op in history:
        if op.f != "sync" or op.type != "ok":
            continue
        generation = _field(op, "generation")
        for tp in _tps(_field(op, "assigned"), op, "assigned"):
            other = owner.setdefault((generation, tp), op.process)
            if other != op.process:
                found.append(Violation("double-assignment", op.index,
                                       f"{tp[0]}-{tp[1]} assigned to {other} and {op.process} in "
                                       f"generation {generation}"))
    return found


def _moved_before_revoked(history: History) -> list[Violation]:
    """Claims are matched to the assignment by generation and by membership: a coordinator that
    fails over before a generation's assignment was written forgets that generation and may issue
    its number again to other members, so only the members the leader assigned to (its SyncGroup's
    assignments) are that generation's."""
    claims: dict[int, dict[str, tuple[str, int, set[TP]]]] = defaultdict(dict)
    #: By generation: the member ids of the latest leader SyncGroup seen so far.
    assigned_by_leader: dict[int, set[str]] = {}
    found = []
    for op in history:
        if op.f == "join" and op.type == "ok":
            claims[_field(op, "generation")][op.process] = (
                _field(op, "member_id"), _field(op, "subscription_generation"),
                set(_tps(_field(op, "owned"), op, "owned")))
        elif op.f == "sync" and op.type == "invoke" and _field(op, "assignments"):
            assigned_by_leader[_field(op, "generation")] = set(_field(op, "assignments"))
        if op.f != "sync" or op.type != "ok":
            continue
        generation = _field(op, "generation")
        members = assigned_by_leader.get(generation)
        for tp in _tps(_field(op, "assigned"), op, "assigned"):
            claimed = {process: made for process, (member, made, owned) in claims[generation].items()
                       if tp in owned and made >= 0 and (members is None or member in members)}
            latest = max(claimed.values(), default=-1)
            for process, made in sorted(claimed.items()):
                if process != op.process and made == latest:
                    found.append(Violation("moved-before-revoked", op.index,
                                           f"{tp[0]}-{tp[1]} assigned to {op.process} in generation "
                                           f"{generation} while {process} still owned it when it joined"))
    return found


def _stale_claims(history: History) -> list[Violation]:
    return [Violation("stale-claim", op.index, f"{op.process} joined without a generation still "
                      f"claiming {_field(op, 'owned')}")
            for op in history
            if op.f == "join" and op.type == "invoke" and _field(op, "subscription_generation") < 0
            and _field(op, "owned")]


def _generations(history: History) -> list[Violation]:
    """By member id, against the generations the member completed (its SyncGroup answered):
    a consumer told its id is unknown joins again as a new member, and a coordinator that fails
    over forgets every generation whose assignment was never written, so a generation only
    joined may be issued again, lower than one the member had joined. A completed generation
    was written (the answer waits for the write), so nothing later goes below it."""
    completed: dict[str, tuple[int, int]] = {}
    found = []
    for op in history:
        if op.f not in ("join", "sync") or op.type != "ok":
            continue
        generation = _field(op, "generation")
        member = f"{op.process}/{_field(op, 'member_id')}"
        seen = completed.get(member)
        if seen is not None and generation < seen[0]:
            found.append(Violation("generation-backwards", op.index,
                                   f"{member} at generation {generation} after completing {seen[0]} "
                                   f"(op {seen[1]})"))
        if op.f == "sync" and (seen is None or generation > seen[0]):
            completed[member] = (generation, op.index)
    return found


def _converged(history: History, setup: Op) -> list[Violation]:
    partitions = sorted(_tps(_field(setup, "partitions"), setup, "partitions"))
    live: set[str] = set()
    for op in history:
        if op.process == "nemesis" and op.f == "start":
            live.add(str(op.value))
        elif op.process == "nemesis" and op.f in ("leave", "crash"):
            live.discard(str(op.value))
    reads = {op.process: op for op in history if op.f == "read" and op.type == "ok"}
    coordinator = reads.pop("coordinator", None)
    if coordinator is None:
        return [Violation("not-converged", len(history) - 1, "no final read of the coordinator")]
    found = []
    group = coordinator.value
    where = coordinator.index

    def problem(detail: str, op: int = where) -> None:
        found.append(Violation("not-converged", op, detail))

    if not live:
        if group is not None and group.get("members"):
            problem(f"no consumer is live, but the coordinator lists {group['members']}")
        return found
    if group is None:
        problem("the coordinator has no group")
        return found
    if group.get("state") != "Stable":
        problem(f"the group is {group.get('state')}")
    ids = []
    owned: list[TP] = []
    for process in sorted(live):
        read = reads.get(process)
        if read is None:
            problem(f"{process} is live but was not read")
            continue
        ids.append(_field(read, "member_id"))
        if _field(read, "state") != "STABLE" or _field(read, "generation") != group.get("generation"):
            problem(f"{process} is {read.value['state']} at generation {read.value['generation']}, "
                    f"the group at {group.get('generation')}", read.index)
        owned.extend(_tps(_field(read, "owned"), read, "owned"))
    if sorted(ids) != sorted(group.get("members", [])):
        listed = sorted(group.get("members", []))
        problem(f"the coordinator lists {listed}, the live consumers are {sorted(ids)}")
    if sorted(owned) != partitions:
        twice = sorted({tp for tp in owned if owned.count(tp) > 1})
        missing = sorted(set(partitions) - set(owned))
        problem(f"partitions held twice {twice}, held by nobody {missing}")
    return found


def _commits(history: History) -> list[Violation]:
    #: process -> partitions it owns now -> the last acknowledged commit of this ownership.
    owning: dict[str, dict[TP, int | None]] = defaultdict(dict)
    acknowledged: dict[TP, tuple[int, int]] = {}
    found = []
    for op in history:
        if op.process == "nemesis" and op.f in ("leave", "crash"):
            owning.pop(str(op.value), None)  # a crashed consumer calls no listener
            continue
        if op.type != "ok":
            continue
        if op.f == "assigned":
            for tp in _tps(_field(op, "partitions"), op, "partitions"):
                owning[op.process].setdefault(tp, None)
        elif op.f in ("revoked", "lost"):
            for tp in _tps(_field(op, "partitions"), op, "partitions"):
                owning[op.process].pop(tp, None)
        elif op.f == "commit":
            for topic, partition, offset in _field(op, "offsets"):
                tp = (topic, partition)
                best = acknowledged.get(tp)
                if best is None or offset > best[0]:
                    acknowledged[tp] = (offset, op.index)
                mine = owning[op.process]
                if tp in mine:
                    before = mine[tp]
                    if before is not None and offset < before:
                        found.append(Violation("commit-backwards", op.index,
                                               f"{op.process} committed {topic}-{partition} at {offset} "
                                               f"after {before} while owning it"))
                    mine[tp] = offset if before is None else max(before, offset)
        elif op.f == "fetch":
            invoked = _invoke_of(history, op)
            for topic, partition, offset in _field(op, "offsets"):
                best = acknowledged.get((topic, partition))
                if best is not None and best[1] < invoked and offset < best[0]:
                    found.append(Violation("committed-lost", op.index,
                                           f"{op.process} read {topic}-{partition} committed at {offset}, "
                                           f"but {best[0]} was acknowledged at op {best[1]}"))
    return found


def _invoke_of(history: History, completion: Op) -> int:
    """The index of the invoke a completion answers: the process's last invoke of that function."""
    for i in range(completion.index - 1, -1, -1):
        op = history.ops[i]
        if op.process == completion.process and op.f == completion.f and op.type == "invoke":
            return i
    raise InputError(f"op {completion.index}", f"{completion.type} {completion.f} without an invoke")
