"""The member's state: Kafka's ``ShareMembershipManager`` over ``AbstractMembershipManager``.

It owns the member state, epoch, subscription, current and target assignment, and applies
heartbeat answers; the heartbeat request manager (``heartbeat.py``) decides when to send.
Every state change goes through :meth:`MembershipManager.transition`, which refuses one that
Kafka's ``MemberState`` table does not allow.
"""

from __future__ import annotations

from collections.abc import Callable

from groupspec.types import GroupspecError
from groupspec.types.share_consumer import PREDECESSORS, MemberState
from groupspec.types.share_group import ShareGroupHeartbeatResponse, TopicPartitions

S = MemberState


class IllegalTransition(GroupspecError):
    """A state change Kafka's member state table forbids (a bug, never an input problem)."""


class MembershipManager:
    def __init__(self) -> None:
        self.state = S.UNSUBSCRIBED
        self.member_epoch = 0
        self.subscription: frozenset[str] = frozenset()
        self.current_assignment: tuple[TopicPartitions, ...] = ()
        #: Kafka's LocalAssignment.NONE: nothing reconciled since the member (re)joined, so any
        #: target, even an empty one, is still to be reconciled and acknowledged.
        self.current_is_none = True
        self.target_assignment: tuple[TopicPartitions, ...] | None = None
        self.leaving_stale = False
        #: What changed for the application in the current step.
        self.assignment_changed: tuple[TopicPartitions, ...] | None = None
        self.fatal_reason: str | None = None
        #: MemberStateListener callbacks run when the member (re)joins with epoch 0: the
        #: heartbeat manager forgets what it sent, so the first request is full.
        self.on_join: list[Callable[[], None]] = []

    def transition(self, to: MemberState) -> None:
        if to is self.state:
            return
        if self.state not in PREDECESSORS[to]:
            raise IllegalTransition(f"{self.state.name} -> {to.name}")
        self.state = to

    def in_group(self) -> bool:
        return self.state in (S.JOINING, S.RECONCILING, S.ACKNOWLEDGING, S.STABLE)

    def should_heartbeat_now(self) -> bool:
        return self.state in (S.JOINING, S.ACKNOWLEDGING, S.LEAVING)

    def should_skip_heartbeat(self) -> bool:
        return self.state in (S.UNSUBSCRIBED, S.FENCED, S.FATAL, S.STALE, S.PREPARE_LEAVING)

    def _update_assignment(self, assignment: tuple[TopicPartitions, ...]) -> None:
        if assignment != self.current_assignment:
            self.current_assignment = assignment
            self.assignment_changed = assignment

    # -- joining, reconciling, leaving ---------------------------------------------------------------

    def transition_to_joining(self) -> None:
        self.transition(S.JOINING)
        self.member_epoch = 0
        self.target_assignment = None
        self.current_is_none = True
        for listener in self.on_join:
            listener()

    def on_poll(self) -> None:
        """The application's poll: the join after a subscribe."""
        if self.state in (S.UNSUBSCRIBED, S.STALE) and self.subscription:
            self.transition_to_joining()

    def maybe_reconcile(self) -> bool:
        """The network thread's pass (ShareMembershipManager.poll): apply a new target at once.
        True when the member now has an assignment to acknowledge."""
        if self.state is not S.RECONCILING or self.target_assignment is None:
            return False
        self._update_assignment(self.target_assignment)
        self.current_is_none = False
        self.transition(S.ACKNOWLEDGING)
        return True

    def leave_group(self, *, stale: bool) -> None:
        if not self.in_group():
            return
        self.transition(S.PREPARE_LEAVING)
        self._update_assignment(())
        self.target_assignment = None
        self.transition(S.LEAVING)
        self.member_epoch = -1
        self.leaving_stale = stale

    def on_heartbeat_request_generated(self) -> None:
        if self.state is S.ACKNOWLEDGING:
            self.transition(S.STABLE)  # maybe_reconcile applied the target in the answer's pass
        elif self.state is S.LEAVING:
            self.on_leave_sent()

    def on_leave_sent(self) -> None:
        self.transition(S.STALE if self.leaving_stale else S.UNSUBSCRIBED)

    def on_heartbeat_request_skipped(self) -> None:
        """A leave that cannot be sent (no coordinator) is complete."""
        if self.state is S.LEAVING:
            self.transition(S.UNSUBSCRIBED)

    # -- answers -----------------------------------------------------------------------------------

    def on_heartbeat_success(self, response: ShareGroupHeartbeatResponse) -> None:
        if self.state is S.LEAVING or self.state in (S.UNSUBSCRIBED, S.FENCED, S.FATAL, S.STALE):
            return
        if response.member_epoch < 0:
            return
        self.member_epoch = response.member_epoch
        if response.assignment is not None:
            self.target_assignment = response.assignment
        if self.target_assignment is None:
            return
        if self.current_is_none or self.target_assignment != self.current_assignment:
            # processAssignmentReceived; its return to STABLE for an unchanged target is never
            # needed: a joining member's assignment is NONE, and maybe_reconcile follows at once.
            self.transition(S.RECONCILING)

    def transition_to_fenced(self) -> None:
        if self.state in (S.PREPARE_LEAVING, S.LEAVING):
            self.transition(S.UNSUBSCRIBED)
            return
        if not self.in_group():
            return
        self.transition(S.FENCED)
        self._update_assignment(())
        self.target_assignment = None
        self.transition_to_joining()

    def transition_to_fatal(self, reason: str) -> None:
        """AbstractMembershipManager#transitionToFatal: the assignment is released (lost, then
        cleared to NONE) unless the member was leaving."""
        previous = self.state
        if previous in PREDECESSORS[S.FATAL]:
            self.transition(S.FATAL)
            self.fatal_reason = reason
            if previous not in (S.PREPARE_LEAVING, S.LEAVING):
                self._update_assignment(())
                self.current_is_none, self.target_assignment = True, None
