"""The SimpleAssignor spec's own contracts refuse what they exist to refuse (issue 17, point 3).

``desired_sharing`` and ``desired_counts`` state their results' shape as postconditions, and
``assign`` requires well-formed input. The spec's bodies satisfy them on every input, so no
vector can tell a weakened contract from the real one: these tests hand each contract's
condition a result (or an argument) that breaks that one rule and no other, and results on the
boundaries every condition must still accept.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import icontract
import pytest

from groupspec.spec import simple_assignor as spec
from groupspec.types import AssignorInput, MemberSpec


def _holds(conditions: list[Any], **values: Any) -> list[bool]:
    """Each condition evaluated on the arguments it names."""
    out = []
    for contract in conditions:
        names = inspect.signature(contract.condition).parameters
        out.append(bool(contract.condition(**{n: values[n] for n in names})))
    return out


def _posts(func: Callable[..., Any]) -> list[Any]:
    return list(func.__postconditions__)  # type: ignore[attr-defined]


def _pres(func: Callable[..., Any]) -> list[Any]:
    return [c for group in func.__preconditions__ for c in group]  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------
# desired_sharing
# ---------------------------------------------------------------------------------------------

SHARING_GOOD = [(0, 0, 0), (0, 2, 0), (3, 0, 0), (1, 2, 1), (3, 3, 1), (4, 2, 2), (5, 2, 3), (3, 1, 3),
                (7, 3, 3)]
#: (members, partitions, result): each breaks exactly one postcondition.
SHARING_BAD = {
    "nothing to share, yet shared": (0, 2, 1),
    "nothing to share, a negative share": (0, 2, -1),
    "no partitions, yet shared": (3, 0, 1),
    "one share short": (5, 2, 2),
    "one share too many": (5, 2, 4),
    "too many at an exact fit": (4, 2, 3),
    "one member, too many shares": (1, 2, 5),
    "one partition, too many shares": (3, 1, 7),
}


@pytest.mark.parametrize(("n", "p", "result"), SHARING_GOOD)
def test_desired_sharing_contracts_accept_the_right_answers(n, p, result):
    assert spec.desired_sharing(n, p) == result
    assert all(_holds(_posts(spec.desired_sharing), n_members=n, n_partitions=p, result=result))
    assert all(_holds(_pres(spec.desired_sharing), n_members=n, n_partitions=p))


@pytest.mark.parametrize(("n", "p", "result"), SHARING_BAD.values(), ids=SHARING_BAD.keys())
def test_desired_sharing_contracts_refuse_a_wrong_answer(n, p, result):
    assert _holds(_posts(spec.desired_sharing), n_members=n, n_partitions=p, result=result).count(False) == 1


@pytest.mark.parametrize("func", [spec.desired_sharing, spec.desired_counts])
def test_negative_sizes_are_refused(func):
    assert _holds(_pres(func), n_members=-1, n_partitions=2).count(False) == 1
    assert _holds(_pres(func), n_members=2, n_partitions=-1).count(False) == 1
    assert all(_holds(_pres(func), n_members=0, n_partitions=0))
    with pytest.raises(icontract.ViolationError):
        func(-1, 2)
    with pytest.raises(icontract.ViolationError):
        func(2, -1)


# ---------------------------------------------------------------------------------------------
# desired_counts
# ---------------------------------------------------------------------------------------------

COUNTS_GOOD = [(0, 0, []), (0, 4, []), (1, 2, [2]), (2, 4, [2, 2]), (3, 2, [2, 1, 1]),
               (3, 7, [3, 2, 2]), (2, 0, [0, 0])]
COUNTS_BAD = {
    "a count too many": (2, 4, [1, 1, 2]),
    "a count too few": (3, 2, [2, 2]),
    "a count for no member": (0, 4, [1]),
    "one partition short in total": (2, 4, [2, 1]),
    "one partition over in total": (2, 4, [2, 3]),
    "one member, one short": (1, 4, [3]),
    "counts two apart": (3, 2, [2, 2, 0]),
}


@pytest.mark.parametrize(("n", "p", "result"), COUNTS_GOOD)
def test_desired_counts_contracts_accept_the_right_answers(n, p, result):
    assert spec.desired_counts(n, p) == result
    assert all(_holds(_posts(spec.desired_counts), n_members=n, n_partitions=p, result=result))


@pytest.mark.parametrize(("n", "p", "result"), COUNTS_BAD.values(), ids=COUNTS_BAD.keys())
def test_desired_counts_contracts_refuse_a_wrong_answer(n, p, result):
    assert _holds(_posts(spec.desired_counts), n_members=n, n_partitions=p, result=result).count(False) == 1


def test_a_count_above_the_partitions_is_refused():
    """With the other rules kept a count above P cannot happen alone; the cap still refuses it."""
    cap = [c for c in _posts(spec.desired_counts) if c.condition_args == ["n_partitions", "result"]]
    assert len(cap) == 1
    assert _holds(cap, n_partitions=1, result=[1, 2]) == [False]
    assert _holds(cap, n_partitions=2, result=[2, 1]) == [True]


# ---------------------------------------------------------------------------------------------
# assign's precondition
# ---------------------------------------------------------------------------------------------


def _member(member_id: str, assignment: dict[str, frozenset[int]] | None = None) -> MemberSpec:
    return MemberSpec(member_id, ("t",), assignment or {})


def test_assign_requires_unique_ids_and_non_negative_numbers():
    good = AssignorInput((_member("a"), _member("b", {"t": frozenset({1})})), {"t": 2})
    assert spec._valid_input(good)
    assert spec.assign(good) == {"a": {"t": frozenset({0})}, "b": {"t": frozenset({1})}}
    empty_topic = AssignorInput((_member("a"),), {"t": 0})
    assert spec._valid_input(empty_topic) and spec.assign(empty_topic) == {"a": {}}
    repeated = AssignorInput((_member("a"), _member("a")), {"t": 2})
    negative_count = AssignorInput((_member("a"),), {"t": -1})
    negative_partition = AssignorInput((_member("a", {"t": frozenset({-1})}),), {"t": 2})
    for bad in (repeated, negative_count, negative_partition):
        assert not spec._valid_input(bad)
        with pytest.raises(icontract.ViolationError):
            spec.assign(bad)


def test_a_repeated_member_id_leaves_the_answer_incomplete():
    """One answer per id cannot answer two members of one id: ``complete`` counts, not only names."""
    twice = AssignorInput((_member("a"), _member("a")), {"t": 2})
    ok = spec.check_properties(twice, {"a": {"t": frozenset({0, 1})}})
    assert ok["complete"] is False
    once = AssignorInput((_member("a"),), {"t": 2})
    assert spec.check_properties(once, {"a": {"t": frozenset({0, 1})}})["complete"] is True
