"""The survivors issue 17 found by hand, before mutation testing was part of the project, each
planted again in a copy of the impl and run against its machine's vectors: each must be killed
by the vector named here. They changed answers a user can observe and no vector noticed then,
so they are pinned one by one rather than left to the sampled gate's draw.

The edits are written against the current text of each file; when a refactor moves the line,
the test fails on the missing text, and the edit is to be rewritten on the new code (not
dropped): the mutation is the point, not the text.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: (id, machine, file, text, mutated text, a vector that must fail)
SURVIVORS = (
    ("expiry_at_start", "share_partition", "impl/share_partition/partition.py",
     "                below = batch.last_offset < self.start_offset\n",
     "                below = batch.last_offset <= self.start_offset\n",
     "share_partition/run/lock_expiry_of_the_record_at_the_start_offset"),
    ("release_ending_at_start", "share_partition", "impl/share_partition/partition.py",
     "                        and batch.first_offset < self.start_offset <= batch.last_offset):\n",
     "                        and batch.first_offset < self.start_offset < batch.last_offset):\n",
     "share_partition/run/release_of_a_batch_ending_at_the_start_offset"),
    ("expiry_straddling_start", "share_partition", "impl/share_partition/partition.py",
     "                if whole.state == ACQUIRED and batch.first_offset < self.start_offset"
     " <= batch.last_offset:\n",
     "                if whole.state != ACQUIRED and batch.first_offset < self.start_offset"
     " <= batch.last_offset:\n",
     "share_partition/run/lock_expiry_of_a_batch_across_the_start_offset"),
    ("parked_join_unanswered", "classic_group", "impl/classic_group/group_metadata.py",
     "                    out.answers.append(Answer(parked, JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID)))\n",
     "                    pass\n",
     "classic_group/run/leave_answers_the_members_parked_join"),
    ("last_awaited_leaves", "classic_group", "impl/classic_group/group_metadata.py",
     "            elif group.state == PREPARING_REBALANCE:\n"
     "                self._maybe_complete_join(out, group)\n",
     "            elif group.state != PREPARING_REBALANCE:\n"
     "                self._maybe_complete_join(out, group)\n",
     "classic_group/run/last_awaited_member_leaves_the_join_completes"),
    ("keep_after_shrink", "simple_assignor", "impl/simple_assignor/simple.py",
     "            into.extend(off + p for p in previous if 0 <= p < count)\n",
     "            pass\n",
     "simple_assignor/assign/edge_shrunk_topic_keeps_what_still_exists"),
)


def _copy_code(into: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "vectors")
    shutil.copytree(ROOT / "impl", into / "impl", ignore=ignore)
    shutil.copytree(ROOT / "spec", into / "spec", ignore=ignore)
    shutil.copytree(ROOT / "groupspec", into / "groupspec", ignore=ignore, symlinks=True)
    (into / "groupspec" / "vectors").symlink_to(ROOT / "groupspec" / "vectors")


def _run(copy: Path, vector: str) -> dict[str, bool]:
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from groupspec.cli import main; sys.exit(main())",
         "conformance", "--target", "impl", "--vectors", str(ROOT / "groupspec" / "vectors" / "kafka-4.2"),
         "--filter", vector, "--json"],
        cwd=copy, env=env, capture_output=True, text=True, timeout=300, check=False)
    return {r["id"]: r["passed"] for r in json.loads(run.stdout)["results"]}


def test_the_copy_unedited_passes_the_vectors(tmp_path: Path) -> None:
    _copy_code(tmp_path)
    for _, _, _, _, _, vector in SURVIVORS:
        assert _run(tmp_path, vector).get(vector) is True, vector


@pytest.mark.parametrize(("machine", "path", "text", "mutated", "vector"),
                         [s[1:] for s in SURVIVORS], ids=[s[0] for s in SURVIVORS])
def test_the_vector_kills_the_survivor_found_by_hand(tmp_path: Path, machine: str, path: str,
                                                     text: str, mutated: str, vector: str) -> None:
    _copy_code(tmp_path)
    target = tmp_path / path
    source = target.read_text()
    assert source.count(text) == 1, f"{path} no longer holds the line the survivor sat on: rewrite the edit"
    target.write_text(source.replace(text, mutated))
    outcome = _run(tmp_path, vector)
    assert outcome.get(vector) is False, f"{vector} no longer kills the {machine} mutant: {outcome}"
