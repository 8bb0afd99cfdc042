"""The per-record promises of share groups, judged on histories written by hand: each broken
promise is reported with its kind, and a history that keeps them all gets none."""

from __future__ import annotations

import io

import pytest

from groupspec.history import History, read_history
from groupspec.share_delivery_check import check
from groupspec.types import InputError

T = "t"


def _history(*steps: tuple[str, str, str, object]) -> History:
    h = History()
    for time, (process, type_, f, value) in enumerate(steps):
        h.add(time, process, type_, f, value)
    return h


def _ack(process: str, items: list[list[object]], outcome: str = "ok",
         answers: list[list[object]] | None = None) -> list[tuple[str, str, str, object]]:
    done = answers if answers is not None else [[*item[:3], "NONE"] for item in items]
    return [(process, "invoke", "acknowledge", items),
            (process, outcome, "acknowledge", done if outcome == "ok" else None)]


PRODUCE = ("producer", "ok", "produce", [[T, 0, 0, 2]])
QUIET = ("nemesis", "ok", "quiet", None)


def _kinds(h: History, limit: int = 3) -> list[str]:
    return [v.kind for v in check(h, limit)]


def test_a_history_that_keeps_every_promise() -> None:
    h = _history(PRODUCE,
                 ("c1", "ok", "poll", [[T, 0, 0, 1], [T, 0, 1, 1], [T, 0, 2, 1]]),
                 *_ack("c1", [[T, 0, 0, "ACCEPT"], [T, 0, 1, "RELEASE"], [T, 0, 2, "REJECT"]]),
                 QUIET,
                 ("c2", "ok", "poll", [[T, 0, 1, 2]]),
                 *_ack("c2", [[T, 0, 1, "ACCEPT"]]))
    assert check(h, 3) == []


def test_a_renew_ends_nothing() -> None:
    # A RENEW that took keeps the record with its holder: after quiet the record still needs an
    # end, and one ACCEPT after any number of RENEWs is no second acceptance.
    renewed = _history(PRODUCE, ("c1", "ok", "poll", [[T, 0, 0, 1], [T, 0, 1, 1], [T, 0, 2, 1]]),
                       *_ack("c1", [[T, 0, 0, "ACCEPT"], [T, 0, 1, "ACCEPT"], [T, 0, 2, "RENEW"]]),
                       QUIET)
    assert [(v.kind, v.record) for v in check(renewed, 3)] == [("lost", (T, 0, 2))]
    ended = _history(PRODUCE, ("c1", "ok", "poll", [[T, 0, 0, 1], [T, 0, 1, 1], [T, 0, 2, 1]]),
                     *_ack("c1", [[T, 0, 0, "ACCEPT"], [T, 0, 1, "ACCEPT"], [T, 0, 2, "RENEW"]]),
                     *_ack("c1", [[T, 0, 2, "RENEW"]]), *_ack("c1", [[T, 0, 2, "ACCEPT"]]), QUIET)
    assert check(ended, 3) == []


def test_an_accept_taken_twice() -> None:
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 1]]), *_ack("c1", [[T, 0, 0, "ACCEPT"]]),
                 *_ack("c1", [[T, 0, 0, "ACCEPT"]]))
    assert "accepted_twice" in _kinds(h)


def test_two_copies_held_across_a_restart_are_two_deliveries_not_two_acceptances() -> None:
    # c1's copy from op 0 waited in its buffer past its lock; after a restart the broker handed c1
    # the record afresh (op 2, the same count again). c1 ACCEPTs the stale copy (the broker applies
    # it to c1's live acquisition) and then the fresh one (the record has ended: NONE, no effect).
    crash = ("nemesis", "info", "crash", None)
    h = _history(PRODUCE, ("c1", "ok", "poll", [[T, 0, 0, 1]]), crash, ("c1", "ok", "poll", [[T, 0, 0, 1]]),
                 *_ack("c1", [[T, 0, 0, "ACCEPT", 1, 1]]), *_ack("c1", [[T, 0, 0, "ACCEPT", 1, 3]]))
    assert _kinds(h) == []
    # In the other order too: the fresh copy's ACCEPT took, the stale one's says nothing.
    h = _history(PRODUCE, ("c1", "ok", "poll", [[T, 0, 0, 1]]), crash, ("c1", "ok", "poll", [[T, 0, 0, 1]]),
                 *_ack("c1", [[T, 0, 0, "ACCEPT", 1, 3]]), *_ack("c1", [[T, 0, 0, "ACCEPT", 1, 1]]))
    assert _kinds(h) == []
    # Without the copies (a history written before they were recorded) it cannot be told apart.
    h = _history(PRODUCE, ("c1", "ok", "poll", [[T, 0, 0, 1]]), crash, ("c1", "ok", "poll", [[T, 0, 0, 1]]),
                 *_ack("c1", [[T, 0, 0, "ACCEPT"]]), *_ack("c1", [[T, 0, 0, "ACCEPT"]]))
    assert _kinds(h) == ["accepted_twice"]


def test_one_delivery_accepted_twice_is_caught() -> None:
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 1]]), *_ack("c1", [[T, 0, 0, "ACCEPT", 1, 0]]),
                 *_ack("c1", [[T, 0, 0, "ACCEPT", 1, 0]]))
    [v] = check(h, 3)
    assert (v.kind, v.op) == ("accepted_twice", 4) and "same delivery (poll op 0)" in v.detail
    # A REJECT of that delivery after the ACCEPT is no second ACCEPT, and a refused second ACCEPT
    # took nothing.
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 1]]), *_ack("c1", [[T, 0, 0, "ACCEPT", 1, 0]]),
                 *_ack("c1", [[T, 0, 0, "REJECT", 1, 0]]),
                 *_ack("c1", [[T, 0, 0, "ACCEPT", 1, 0]], answers=[[T, 0, 0, "INVALID_RECORD_STATE"]]))
    assert _kinds(h) == []


def test_an_accepted_record_delivered_and_accepted_again_is_caught() -> None:
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 1]]), *_ack("c1", [[T, 0, 0, "ACCEPT", 1, 0]]),
                 ("c1", "ok", "poll", [[T, 0, 0, 2]]), *_ack("c1", [[T, 0, 0, "ACCEPT", 2, 3]]))
    assert _kinds(h) == ["delivered_after_final", "accepted_twice"]
    assert "after an ACCEPT took at op 2" in check(h, 3)[1].detail


@pytest.mark.parametrize(("item", "why"), [
    ([T, 0, 0, "ACCEPT", 1], "expected [topic, partition, offset, type, delivery_count, poll]"),
    ([T, 0, 0, "ACCEPT", 1, "0"], "expected [topic, partition, offset, type, delivery_count, poll]"),
    ([T, 0, 0, "ACCEPT", True, 0], "expected [topic, partition, offset, type, delivery_count, poll]"),
    ([T, 0, 0, "ACCEPT", 2, 0], "names a delivery (count 2, poll op 0) the history never handed to c1"),
    ([T, 0, 0, "ACCEPT", 1, 1], "names a delivery (count 1, poll op 1)"),
    ([T, 0, 1, "RELEASE", 1, 0], "names a delivery (count 1, poll op 0)"),
])
def test_an_acknowledgement_naming_a_copy_never_delivered_is_refused(item: list[object], why: str) -> None:
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 1]]), ("c2", "ok", "poll", [[T, 0, 0, 2]]),
                 *_ack("c1", [item]))
    with pytest.raises(InputError) as caught:
        check(h, 3)
    assert caught.value.field == "op 2.value[0]" and why in str(caught.value)


def test_a_stale_accept_from_a_consumer_not_holding_the_record_is_not_counted() -> None:
    # c1's lock expired and c2 got the record and accepted it; c1's late ACCEPT is answered NONE
    # by Kafka (offsets below the start offset are skipped), which says nothing.
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 1]]), ("c2", "ok", "poll", [[T, 0, 0, 2]]),
                 *_ack("c2", [[T, 0, 0, "ACCEPT"]]), *_ack("c1", [[T, 0, 0, "ACCEPT"]]))
    assert _kinds(h) == []


def test_a_stale_accept_that_took_while_another_consumer_held_the_record_is_caught() -> None:
    # c1's lock expired and c2 holds the record; nothing could have ended it, so Kafka must refuse
    # c1's ACCEPT (another member holds it): a NONE means the broker applied a stale ACCEPT.
    held = [("c1", "ok", "poll", [[T, 0, 0, 1]]), ("c2", "ok", "poll", [[T, 0, 0, 2]])]
    stale = _ack("c1", [[T, 0, 0, "ACCEPT", 1, 0]])
    [v] = check(_history(*held, *stale), 3)
    assert (v.kind, v.op) == ("stale_acknowledgement_took", 3)
    assert "c1 took while c2 held the record's latest delivery (op 1)" in v.detail
    assert _kinds(_history(*held, *_ack("c1", [[T, 0, 0, "REJECT", 1, 0]]))) == ["stale_acknowledgement_took"]
    # Refused, as it should be: nothing to say.
    assert _kinds(_history(*held, *_ack("c1", [[T, 0, 0, "ACCEPT", 1, 0]],
                                        answers=[[T, 0, 0, "INVALID_RECORD_STATE"]]))) == []
    # c2's ACCEPT, sent before c1's answer came (its own answer lost), may have ended it first.
    c2_asked = [("c2", "invoke", "acknowledge", [[T, 0, 0, "ACCEPT", 2, 1]])]
    assert _kinds(_history(*held, *c2_asked, *stale, ("c2", "info", "acknowledge", None))) == []
    # c2's delivery was the last allowed: a RELEASE or an expired lock archives it, unseen.
    at_limit = [("c1", "ok", "poll", [[T, 0, 0, 2]]), ("c2", "ok", "poll", [[T, 0, 0, 3]])]
    assert _kinds(_history(*at_limit, *_ack("c1", [[T, 0, 0, "ACCEPT", 2, 0]]))) == []
    # c1 may hold the record again from a poll whose answer it lost; another's lost poll says
    # nothing (limit 4: one lost poll cannot have taken count 2 to the limit and archived it).
    lost = [("c1", "invoke", "poll", None), ("c1", "info", "poll", None)]
    assert _kinds(_history(*held, *lost, *stale), limit=4) == []
    others = [("c3", "invoke", "poll", None), ("c3", "info", "poll", None)]
    assert _kinds(_history(*held, *others, *stale), limit=4) == ["stale_acknowledgement_took"]
    assert _kinds(_history(*held, *others, *stale), limit=3) == []


def test_after_a_crash_a_delivery_count_may_repeat_but_not_fall() -> None:
    crash = ("nemesis", "info", "crash", None)
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 2]]), crash, ("c2", "ok", "poll", [[T, 0, 0, 2]]))
    assert _kinds(h) == []
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 2]]), crash, ("c2", "ok", "poll", [[T, 0, 0, 1]]))
    assert _kinds(h) == ["count_not_growing"]
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 2]]), ("c2", "ok", "poll", [[T, 0, 0, 2]]))
    assert _kinds(h) == ["count_not_growing"]


def test_a_record_whose_end_was_unseen_is_excused_only_by_enough_lost_polls() -> None:
    delivered = ("c1", "ok", "poll", [[T, 0, 0, 1], [T, 0, 1, 1], [T, 0, 2, 1]])
    settled = _ack("c1", [[T, 0, 0, "ACCEPT"], [T, 0, 1, "ACCEPT"]])
    lost_poll = [("c2", "invoke", "poll", None), ("c2", "info", "poll", None)]
    # Offset 2 ends unseen: two more deliveries (limit 3) need two lost polls after its last one.
    assert _kinds(_history(PRODUCE, delivered, *settled, *lost_poll, QUIET)) == ["lost"]
    assert _kinds(_history(PRODUCE, delivered, *settled, *lost_poll, *lost_poll, QUIET)) == []


def test_a_second_accept_that_was_refused_is_fine() -> None:
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 1]]), *_ack("c1", [[T, 0, 0, "ACCEPT"]]),
                 *_ack("c2", [[T, 0, 0, "ACCEPT"]], answers=[[T, 0, 0, "INVALID_RECORD_STATE"]]))
    assert _kinds(h) == []


def test_delivered_after_a_reject_took() -> None:
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 1]]), *_ack("c1", [[T, 0, 0, "REJECT"]]),
                 ("c2", "ok", "poll", [[T, 0, 0, 2]]))
    assert _kinds(h) == ["delivered_after_final"]


def test_a_lost_answer_leaves_the_accept_unknown() -> None:
    # The ACCEPT may not have taken: a redelivery is allowed, and the record is not lost.
    h = _history(PRODUCE, ("c1", "ok", "poll", [[T, 0, 0, 1], [T, 0, 1, 1], [T, 0, 2, 1]]),
                 *_ack("c1", [[T, 0, 0, "ACCEPT"], [T, 0, 1, "ACCEPT"], [T, 0, 2, "ACCEPT"]], "info"),
                 ("c2", "ok", "poll", [[T, 0, 0, 2]]), QUIET)
    assert _kinds(h) == []


def test_counts_grow_and_stay_within_the_limit() -> None:
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 2]]), ("c1", "ok", "poll", [[T, 0, 0, 2]]),
                 ("c1", "ok", "poll", [[T, 0, 0, 4]]))
    assert _kinds(h) == ["count_not_growing", "count_out_of_range"]


def test_delivered_again_after_its_last_delivery() -> None:
    h = _history(("c1", "ok", "poll", [[T, 0, 0, 3]]), *_ack("c1", [[T, 0, 0, "RELEASE"]]),
                 ("c1", "ok", "poll", [[T, 0, 0, 4]]))
    assert "delivered_past_limit" in _kinds(h)


def test_once_quiet_every_record_comes_to_an_end() -> None:
    released = _history(PRODUCE, ("c1", "ok", "poll", [[T, 0, 0, 1], [T, 0, 1, 3]]),
                        *_ack("c1", [[T, 0, 0, "RELEASE"], [T, 0, 1, "RELEASE"]]), QUIET)
    # Offset 0 was released under the limit and never came back; 1 reached the limit (archived);
    # 2 was never delivered at all.
    assert [(v.kind, v.record) for v in check(released, 3)] == [("lost", (T, 0, 0)), ("lost", (T, 0, 2))]
    # Without a quiet period nothing can be said about what has not happened yet.
    assert _kinds(_history(PRODUCE)) == []


@pytest.mark.parametrize(("steps", "field"), [
    ([("c1", "ok", "poll", [[T, 0, 0]])], "op 0.value[0]"),
    ([("c1", "ok", "poll", [["t", "zero", 0, 1]])], "op 0.value[0]"),
    ([("c1", "ok", "acknowledge", [])], "op 0"),
    ([("c1", "invoke", "acknowledge", [[T, 0, 0, "KEEP"]]), ("c1", "ok", "acknowledge", [])],
     "op 0.value[0]"),
    ([("producer", "ok", "produce", [[T, 0, 0]])], "op 0.value[0]"),
])
def test_a_malformed_history_is_refused_naming_the_operation(steps: list[tuple[str, str, str, object]],
                                                             field: str) -> None:
    with pytest.raises(InputError) as caught:
        check(_history(*steps), 3)
    assert caught.value.field == field


def test_histories_round_trip_as_json_lines() -> None:
    h = _history(PRODUCE, ("c1", "ok", "poll", [[T, 0, 0, 1]]), *_ack("c1", [[T, 0, 0, "ACCEPT"]]))
    out = io.StringIO()
    h.write(out)
    again = read_history(out.getvalue().splitlines())
    assert again.ops == h.ops
    with pytest.raises(InputError, match="line 2"):
        read_history([out.getvalue().splitlines()[0], "{not json"])
    with pytest.raises(InputError) as caught:
        read_history(['{"time": 0, "process": "c", "type": "maybe", "f": "poll"}'])
    assert caught.value.field == "type"
    with pytest.raises(InputError):
        check(h, 0)
