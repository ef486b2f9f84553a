"""The figures ``/metrics`` reads from the database: the callback queue's depth and its
oldest post, and approval requests by state, over every workspace, on both engines."""

from __future__ import annotations

from storage import ApprovalState, Role, Storage
from tests.storage.conftest import FakeClock


def test_queue_depth_and_oldest_follow_the_queue(store: Storage, clock: FakeClock) -> None:
    assert store.call_feed.depth_and_oldest() == (0, None)
    first = clock()
    assert store.call_feed.accept("T1", "cdr-1", {"id": "cdr-1"}, ["C1", "C2"]) == 2
    clock.advance(30)
    assert store.call_feed.accept("T2", "cdr-2", {"id": "cdr-2"}, ["C9"]) == 1
    depth, oldest = store.call_feed.depth_and_oldest()
    assert depth == 3 == store.call_feed.pending()
    assert oldest == first
    for head in store.call_feed.heads():
        if head.team_id == "T1":
            store.call_feed.remove(head.seq)
    depth, oldest = store.call_feed.depth_and_oldest()
    assert depth == 1  # T1's two posts went out; T2's waits
    assert oldest == first + 30


def test_approvals_are_counted_by_state_across_workspaces(store: Storage) -> None:
    assert store.approvals.count_by_state() == dict.fromkeys(ApprovalState, 0)
    a = store.approvals.create("T1", "campaign.start", {"c": 1}, "U1")
    store.approvals.create("T2", "campaign.start", {"c": 2}, "U2")
    store.approvals.decide(
        "T1", a.id, decider="U9", decider_role=Role.ADMIN, approve=False,
        params_hash=a.params_hash,
    )  # fmt: skip
    counts = store.approvals.count_by_state()
    assert counts[ApprovalState.PENDING] == 1
    assert counts[ApprovalState.DENIED] == 1
    assert sum(counts.values()) == 2
