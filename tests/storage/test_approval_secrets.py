"""What a request holds apart until it is settled: a one-time secret, read once, and the
address of the requester's prompt, used once and only while Slack still honours it."""

from __future__ import annotations

from storage import Approval, Role, Storage
from tests.storage.conftest import FakeClock, raw

T = "T1"
SECRET = {"password": "pw-7c1f-never-plain"}
URL = "https://hooks.slack.test/actions/T1/123/abcdef"


def _new(store: Storage) -> Approval:
    return store.approvals.create(T, "user.update", {"user_uuid": "u-1"}, "U_REQ")


def _raw(store: Storage) -> str:
    return repr(raw(store.db, "SELECT * FROM approval_secrets"))


def test_a_secret_is_stored_encrypted_and_handed_out_once(store: Storage) -> None:
    approval = _new(store)
    store.approval_secrets.keep_secret(T, approval.id, SECRET)
    assert SECRET["password"] not in _raw(store)
    assert store.approval_secrets.has_secret(T, approval.id)
    assert store.approval_secrets.take_secret(T, approval.id) == SECRET
    assert store.approval_secrets.take_secret(T, approval.id) == {}
    assert not store.approval_secrets.has_secret(T, approval.id)
    assert store.approval_secrets.take_secret("T2", approval.id) == {}


def test_wipe_forgets_the_secret_but_keeps_the_prompt_address(store: Storage) -> None:
    approval = _new(store)
    store.approval_secrets.keep_secret(T, approval.id, SECRET)
    store.approval_secrets.remember_prompt(T, approval.id, URL)
    store.approval_secrets.wipe(T, approval.id)
    assert not store.approval_secrets.has_secret(T, approval.id)
    assert store.approval_secrets.take_prompt(T, approval.id, max_age=60) == URL


def test_the_prompt_address_is_used_once_and_only_while_young(
    store: Storage, clock: FakeClock
) -> None:
    first, second = _new(store), _new(store)
    store.approval_secrets.remember_prompt(T, first.id, URL)
    store.approval_secrets.remember_prompt(T, second.id, URL + "2")
    assert URL not in _raw(store)
    clock.advance(30)
    assert store.approval_secrets.take_prompt(T, first.id, max_age=60) == URL
    assert store.approval_secrets.take_prompt(T, first.id, max_age=60) is None
    clock.advance(60)
    assert store.approval_secrets.take_prompt(T, second.id, max_age=60) is None


def test_the_purge_clears_what_settled_requests_still_hold(
    store: Storage, clock: FakeClock
) -> None:
    pending, cancelled = _new(store), _new(store)
    for approval in (pending, cancelled):
        store.approval_secrets.keep_secret(T, approval.id, SECRET)
        store.approval_secrets.remember_prompt(T, approval.id, URL)
    store.approvals.cancel(T, cancelled.id, by="U_REQ", by_role=Role.OPERATOR)
    store.approval_secrets.purge_settled(max_prompt_age=600)
    assert store.approval_secrets.has_secret(T, pending.id)
    assert not store.approval_secrets.has_secret(T, cancelled.id)
    clock.advance(601)
    store.approval_secrets.purge_settled(max_prompt_age=600)
    remaining = raw(store.db, "SELECT approval_id FROM approval_secrets")
    assert [r[0] for r in remaining] == [pending.id]
