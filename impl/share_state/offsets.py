"""Which prefix of a ``__share_group_state`` partition is redundant (ShareCoordinatorOffsetsManager).

Every snapshot (or tombstone) of a key replaces everything its key wrote before it, so the log
below the oldest of the keys' latest snapshot offsets can be pruned. The manager hears of each
snapshot replayed and keeps that minimum; nothing at or below 0 is reported.
"""

from __future__ import annotations

_UNSET = 2**63 - 1  # Long.MAX_VALUE: nothing computed yet


class OffsetsManager:
    def __init__(self) -> None:
        self.offsets: dict[tuple[str, str, int], int] = {}
        self._last_redundant = _UNSET

    def update_state(self, key: tuple[str, str, int], offset: int, is_delete: bool) -> None:
        self._last_redundant = min(self._last_redundant, offset)
        self.offsets[key] = offset
        found = self._find_redundant()
        if found is not None:
            self._last_redundant = found
        if is_delete:
            del self.offsets[key]

    def _find_redundant(self) -> int | None:
        if not self.offsets:
            return None
        so_far = _UNSET
        for offset in self.offsets.values():
            so_far = min(so_far, offset)
            if so_far == self._last_redundant:
                return so_far
        return so_far

    def last_redundant_offset(self) -> int | None:
        value = self._last_redundant
        return None if value <= 0 or value == _UNSET else value
