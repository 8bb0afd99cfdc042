"""The share group coordinator as a library: what its constructor gives when told nothing."""

from __future__ import annotations

from groupspec.impl.share_group import ShareGroupCoordinator
from groupspec.types.share_group import AdvanceClock


def test_the_clock_starts_at_zero_unless_told() -> None:
    # Vectors always give start_ms; a library user who does not gets the epoch's zero.
    assert ShareGroupCoordinator().view().now_ms == 0
    assert ShareGroupCoordinator(start_ms=7).view().now_ms == 7
    coordinator = ShareGroupCoordinator()
    coordinator.handle(AdvanceClock(5), 0)
    assert coordinator.view().now_ms == 5


def test_a_group_built_by_hand_starts_at_epoch_zero() -> None:
    """The library's ShareGroup defaults are Kafka 4.2's ModernGroup: group and assignment epoch 0
    (the manager passes its release's first epoch itself; 4.3 starts at 1)."""
    from groupspec.impl.share_group.group import ShareGroup

    group = ShareGroup("g")
    assert (group.group_epoch, group.target_assignment_epoch, group.metadata_hash) == (0, 0, 0)
