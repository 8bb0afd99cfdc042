"""The fewest partition moves any valid full assignment needs: the yardstick for stickiness.

Definitions
-----------
Work pool by pool (``groupspec.spec.simple_assignor.pools``): N subscribers, P partitions,
sharing s and positional counts desired_i, all with the spec's exact arithmetic.

* The **valid prior** of a group is the set of (member, partition) pairs with the partition in a
  pool the member subscribes to and in the member's previous target: what the spec's keep phase
  starts from. Stale, unassignable, unsubscribed and deleted-topic pairs are not in it; dropping
  those is not a move, since no valid assignment can keep them.
* A **full valid assignment** gives, in every pool, each subscriber at most desired_i of the
  pool's partitions, each partition at most s holders, only subscribed assignable partitions,
  and s*P pairs in total. Since sum(desired_i) = s*P (models/assignor_arith.py) the bounds are
  then met exactly: every member at its count, every partition at its sharing.
* The **moves** of an assignment are the valid prior pairs it does not contain (revocations).
  New pairs are not counted: each is forced by a revocation or by growth.
* ``min_moves(group)`` is the least number of moves over all full valid assignments.

A full valid assignment always exists. The counts are at most P and the sharing at most N
(assignor_arith lemmas (d), (d')), so the Gale-Ryser condition for a bipartite graph with
degrees desired_i on one side and s on the other holds: the k largest counts sum to at most
k*ceil(sP/N) <= k*P when k <= s, and to at most s*P otherwise. The code still computes the
largest achievable total first and reports ``full=False`` rather than assuming it, so a broken
lemma would surface here instead of as a wrong minimum.

Note that the spec itself is not always full: in the "tricky case" a partition stays below its
sharing because every member below its count already holds it. Such a result may keep MORE of the
prior than any full assignment, so ``moves(group, result) >= min_moves(group)`` is guaranteed
only for full results (``is_full``).

Methods
-------
* ``solve(group, method="flow")``: min-cost max-flow, source -> member (capacity desired_i) ->
  partition (capacity 1, cost 0 for a prior pair, 1 otherwise) -> sink (capacity s). Maximum
  flow is a full assignment; minimum cost is the fewest new pairs, and since every full
  assignment has s*P pairs, the fewest new pairs is the most kept prior pairs. Successive
  shortest paths with Dijkstra on reduced costs; the member-partition graph is complete, so it is
  never built: prior pairs are explicit arcs and the cost-1 arcs are scanned per class of equal
  potential among the partitions not yet reached (an arc skipped in a scan is one the member
  already holds or had, so a scan costs its member's degree plus what it settles). After each
  Dijkstra, every source-member-partition-sink path of zero reduced cost is taken greedily, which
  is where most of the flow goes through. Exact, and near linear per augmentation.
* ``solve(group, method="z3")``: one Boolean per (subscriber, partition) pair, cardinality
  constraints, and Z3's Optimize maximizing first the total and then the kept prior pairs. For
  small groups only (a few hundred pairs); the tests hold the two methods to the same answer.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from groupspec.spec.simple_assignor import Pool, TopicPartition, pools
from groupspec.types import AssignorInput, GroupAssignment

Method = Literal["flow", "z3"]


@dataclass(frozen=True)
class MinMovesResult:
    """The minimum and how it was reached.

    ``prior`` counts valid prior pairs, ``kept`` those an optimal assignment keeps
    (``moves = prior - kept``); ``full`` is False only if some pool could not reach s*P pairs,
    in which case the minimum is over assignments of the largest achievable total.
    """

    moves: int
    prior: int
    kept: int
    full: bool
    assignment: GroupAssignment


def valid_prior(group: AssignorInput) -> set[tuple[int, TopicPartition]]:
    """(member position, partition) pairs of previous targets that a valid assignment may keep."""
    result: set[tuple[int, TopicPartition]] = set()
    for pool in pools(group):
        for i in pool.subscribers:
            before = group.members[i].assignment
            result.update((i, tp) for tp in pool.partitions if tp[1] in before.get(tp[0], ()))
    return result


def _held(group: AssignorInput, result: GroupAssignment, i: int, tp: TopicPartition) -> bool:
    return tp[1] in result.get(group.members[i].member_id, {}).get(tp[0], ())


def moves(group: AssignorInput, result: GroupAssignment) -> int:
    """How many valid prior pairs ``result`` revoked."""
    return sum(1 for i, tp in valid_prior(group) if not _held(group, result, i, tp))


def is_full(group: AssignorInput, result: GroupAssignment) -> bool:
    """True when every pool of ``result`` has s*P pairs among its subscribers and partitions."""
    for pool in pools(group):
        held = sum(1 for i in pool.subscribers for tp in pool.partitions
                   if _held(group, result, i, tp))
        if held != pool.sharing * len(pool.partitions):
            return False
    return True


def min_moves(group: AssignorInput) -> int:
    """The fewest moves of any full valid assignment of ``group`` (flow method)."""
    return solve(group).moves


def solve(group: AssignorInput, method: Method = "flow") -> MinMovesResult:
    """An optimal assignment and its numbers; see the module docstring for both methods."""
    if method not in ("flow", "z3"):
        raise ValueError(f"method: expected 'flow' or 'z3', got {method!r}")
    prior = valid_prior(group)
    out: dict[str, dict[str, set[int]]] = {m.member_id: {} for m in group.members}
    kept, full = 0, True
    for pool in pools(group):
        mine = [{j for j, tp in enumerate(pool.partitions) if (i, tp) in prior}
                for i in pool.subscribers]
        counts = [pool.desired()[i] for i in pool.subscribers]
        solver = _solve_flow if method == "flow" else _solve_z3
        held = solver(counts, pool.sharing, len(pool.partitions), mine)
        full &= sum(len(h) for h in held) == pool.sharing * len(pool.partitions)
        for local, parts in enumerate(held):
            kept += len(parts & mine[local])
            member = group.members[pool.subscribers[local]].member_id
            for j in parts:
                topic, partition = pool.partitions[j]
                out[member].setdefault(topic, set()).add(partition)
    assignment = {m: {t: frozenset(ps) for t, ps in sorted(a.items())} for m, a in out.items()}
    return MinMovesResult(len(prior) - kept, len(prior), kept, full, assignment)


# ---------------------------------------------------------------------------------------------
# Flow
# ---------------------------------------------------------------------------------------------

_INF = float("inf")


class _Flow:
    """Min-cost max-flow on one pool; members and partitions are dense local indices.

    Potentials ``pm`` (members), ``pp`` (partitions) and ``pt`` (sink; the source stays at 0)
    keep every residual arc's reduced cost non-negative, which is what lets Dijkstra run on a
    graph with the negative reverse arcs of cost-1 pairs.
    """

    def __init__(self, counts: Sequence[int], sharing: int, n_parts: int,
                 prior: Sequence[set[int]]) -> None:
        self.counts, self.sharing, self.n_parts, self.prior = counts, sharing, n_parts, prior
        self.held: list[set[int]] = [set() for _ in counts]
        self.holders: list[set[int]] = [set() for _ in range(n_parts)]
        self.pm = [0] * len(counts)
        self.pp = [0] * n_parts
        self.pt = 0

    def cost(self, i: int, j: int) -> int:
        return 0 if j in self.prior[i] else 1

    def add(self, i: int, j: int) -> None:
        self.held[i].add(j)
        self.holders[j].add(i)

    def run(self) -> list[set[int]]:
        target = self.sharing * self.n_parts
        flow = self.greedy()
        while flow < target:
            path = self.dijkstra()
            if path is None:
                break  # no augmenting path: the largest total is below s*P
            self.augment(path)
            flow += 1 + self.greedy()
        return self.held

    def greedy(self) -> int:
        """Take every source-member-partition-sink path of zero reduced cost; returns how many."""
        step = self.pt  # reduced cost 0 needs pp[j] == pt and cost(i, j) == pt - pm[i]
        open_parts = [j for j in range(self.n_parts)
                      if len(self.holders[j]) < self.sharing and self.pp[j] == step]
        taken = 0
        for i, want in enumerate(self.counts):
            if self.pm[i] != 0 or len(self.held[i]) >= want or not open_parts:
                continue
            new_cost = step - self.pm[i]
            if new_cost not in (0, 1):
                continue
            mine, held = self.prior[i], self.held[i]
            for j in list(open_parts):
                if len(held) >= want:
                    break
                if j in held or (j in mine) != (new_cost == 0):
                    continue
                self.add(i, j)
                taken += 1
                if len(self.holders[j]) >= self.sharing:
                    open_parts.remove(j)
        return taken

    def dijkstra(self) -> list[tuple[int, int]] | None:
        """A shortest augmenting path as (member, partition) steps, potentials updated."""
        n, pm, pp = len(self.counts), self.pm, self.pp
        dm: list[float] = [_INF] * n
        dp: list[float] = [_INF] * self.n_parts
        done_m, done_p = [False] * n, [False] * self.n_parts
        via_m: list[int] = [-1] * n  # partition a member was reached from (-1: the source)
        via_p: list[int] = [-1] * self.n_parts  # member a partition was reached from
        classes: dict[int, set[int]] = {}
        for j in range(self.n_parts):
            classes.setdefault(pp[j], set()).add(j)
        # Heap entries: (distance, kind, node, from); kind 0 member, 1 partition, 2 class scan
        # (node = potential, from = member), 3 sink (from = partition).
        heap: list[tuple[float, int, int, int]] = []
        for i, want in enumerate(self.counts):
            if len(self.held[i]) < want:
                dm[i] = -pm[i]
                heap.append((dm[i], 0, i, -1))
        heapq.heapify(heap)
        sink: tuple[float, int] | None = None

        def settle_partition(j: int, d: float, frm: int) -> None:
            done_p[j], dp[j], via_p[j] = True, d, frm
            classes[pp[j]].discard(j)
            if len(self.holders[j]) < self.sharing:
                heapq.heappush(heap, (d + pp[j] - self.pt, 3, j, j))
            for k in self.holders[j]:  # reverse arc: k gives j up
                nd = d - self.cost(k, j) + pp[j] - pm[k]
                if not done_m[k] and nd < dm[k]:
                    dm[k] = nd
                    heapq.heappush(heap, (nd, 0, k, j))

        while heap:
            d, kind, node, frm = heapq.heappop(heap)
            if kind == 3:
                sink = (d, frm)
                break
            if kind == 0:
                if done_m[node] or d > dm[node]:
                    continue
                done_m[node], via_m[node] = True, frm
                held, mine = self.held[node], self.prior[node]
                for j in mine:
                    if j not in held and not done_p[j]:
                        nd = d + pm[node] - pp[j]
                        if nd < dp[j]:
                            dp[j] = nd
                            heapq.heappush(heap, (nd, 1, j, node))
                for pot, members in classes.items():
                    if members:
                        heapq.heappush(heap, (max(d, d + 1 + pm[node] - pot), 2, pot, node))
            elif kind == 1:
                if not done_p[node] and d <= dp[node]:
                    settle_partition(node, d, frm)
            else:
                held, mine = self.held[frm], self.prior[frm]
                for j in [j for j in classes[node] if j not in held and j not in mine]:
                    settle_partition(j, d, frm)
        if sink is None:
            return None
        dist_t, last = sink
        for i in range(n):
            pm[i] += int(min(dm[i], dist_t)) if done_m[i] else int(dist_t)
        for j in range(self.n_parts):
            pp[j] += int(min(dp[j], dist_t)) if done_p[j] else int(dist_t)
        self.pt += int(dist_t)
        path = []
        j = last
        while True:
            i = via_p[j]
            path.append((i, j))
            if via_m[i] == -1:
                return path
            j = via_m[i]

    def augment(self, path: list[tuple[int, int]]) -> None:
        """Apply a path found by ``dijkstra``.

        Steps run from the sink back to the source: member i_0 takes j_0 (which had room);
        i_0 was reached through partition j_1, which it gives up and member i_1 takes; and so
        on until a member reached from the source, whose load grows by one.
        """
        for (giver, _), (_, part) in pairwise(path):
            self.held[giver].discard(part)
            self.holders[part].discard(giver)
        for taker, part in path:
            self.add(taker, part)


def _solve_flow(counts: Sequence[int], sharing: int, n_parts: int,
                prior: Sequence[set[int]]) -> list[set[int]]:
    return _Flow(counts, sharing, n_parts, prior).run()


# ---------------------------------------------------------------------------------------------
# Z3
# ---------------------------------------------------------------------------------------------


def _solve_z3(counts: Sequence[int], sharing: int, n_parts: int,
              prior: Sequence[set[int]]) -> list[set[int]]:
    """Exact degrees when they can be met (always, by Gale-Ryser), else caps and largest total.

    The exact form is also what keeps Z3 fast: with only upper bounds and a lexicographic
    "total, then kept" objective, Optimize took minutes on dense 9 x 8 pools that it solves in
    milliseconds with equalities and soft constraints on the shorter of the kept and new lists
    (MaxSAT on 60 near-symmetric soft constraints also stalled, on 5 it is instant).
    """
    import z3

    members = range(len(counts))
    x = [[z3.Bool(f"x_{i}_{j}") for j in range(n_parts)] for i in members]
    opt = z3.Optimize()
    exact = [z3.PbEq([(x[i][j], 1) for j in range(n_parts)], counts[i]) for i in members]
    exact += [z3.PbEq([(x[i][j], 1) for i in members], sharing) for j in range(n_parts)]
    feasible = z3.Solver()
    feasible.add(*exact)
    kept = [x[i][j] for i in members for j in prior[i]]
    new = [x[i][j] for i in members for j in range(n_parts) if j not in prior[i]]
    if feasible.check() == z3.sat:
        # Every answer has s*P pairs, so most kept = fewest new: soften the shorter list.
        opt.add(*exact)
        for pair in kept if len(kept) < len(new) else new:
            opt.add_soft(pair if len(kept) < len(new) else z3.Not(pair))
    else:
        opt.add(*[z3.PbLe([(x[i][j], 1) for j in range(n_parts)], counts[i]) for i in members])
        opt.add(*[z3.PbLe([(x[i][j], 1) for i in members], sharing) for j in range(n_parts)])
        opt.maximize(z3.Sum([z3.If(x[i][j], 1, 0) for i in members for j in range(n_parts)]))
        for pair in kept:
            opt.add_soft(pair)
    if opt.check() != z3.sat:
        raise RuntimeError("Z3 Optimize gave no model for a satisfiable problem")
    model = opt.model()
    return [{j for j in range(n_parts) if z3.is_true(model.eval(x[i][j], model_completion=True))}
            for i in members]


def assignment_pairs(group: AssignorInput, result: Mapping[str, Mapping[str, frozenset[int]]],
                     pool: Pool) -> set[tuple[int, TopicPartition]]:
    """The (member position, partition) pairs of ``result`` inside ``pool`` (for tests)."""
    return {(i, tp) for i in pool.subscribers for tp in pool.partitions
            if _held(group, result, i, tp)}
