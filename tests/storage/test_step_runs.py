"""A workflow step waiting on an approval request: its run is handed to exactly one of the
callers that see the request settled, and its just-in-time token does not outlive that."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy.exc import IntegrityError

from storage import Storage
from tests.storage.conftest import FakeClock, raw

T = "T1"
TOKEN = "xwfp-step-token-never-plain"


def _link(store: Storage, approval_id: str = "A1", execution: str = "Fx1") -> None:
    store.step_runs.link(
        T,
        approval_id,
        function_execution_id=execution,
        callback_id="start_campaign",
        token=TOKEN,
        outputs={"lead_id": "lead_uuid"},
    )


def test_a_linked_run_is_kept_with_its_token_encrypted(store: Storage) -> None:
    _link(store)
    link = store.step_runs.get(T, "A1")
    assert link is not None
    assert (link.function_execution_id, link.callback_id, link.token) == (
        "Fx1",
        "start_campaign",
        TOKEN,
    )
    assert link.outputs == {"lead_id": "lead_uuid"} and link.settled_at is None
    assert TOKEN not in repr(raw(store.db, "SELECT * FROM step_runs"))
    assert store.step_runs.get("T2", "A1") is None


def test_settling_hands_the_run_out_once_and_forgets_the_token(
    store: Storage, clock: FakeClock
) -> None:
    _link(store)
    settled = store.step_runs.settle(T, "A1")
    assert settled is not None and settled.token == TOKEN
    assert store.step_runs.settle(T, "A1") is None
    after = store.step_runs.get(T, "A1")
    assert after is not None and after.token is None and after.settled_at == clock.now
    assert store.step_runs.settle(T, "no-such-request") is None


def test_one_run_waits_on_one_request_only(store: Storage) -> None:
    _link(store)
    with pytest.raises(IntegrityError):
        _link(store, approval_id="A2", execution="Fx1")
    assert store.step_runs.get(T, "A2") is None


def test_concurrent_settles_give_the_run_to_one_caller(store: Storage) -> None:
    _link(store)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: store.step_runs.settle(T, "A1"), range(8)))
    assert sum(r is not None for r in results) == 1
