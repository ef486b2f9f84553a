"""The privacy tables on both engines: posts found by a number's keyed hash, revealed by
their reference, claimed once for rewriting; a number erased everywhere it can be and
reported where it cannot; records aged out to hashes."""

from __future__ import annotations

from storage import Storage
from storage.personal_data import age_out, erase_everywhere, where_held
from tests.storage.conftest import FakeClock, raw

PHONE = "0912345678"
OTHER = "0987654321"


def test_a_keyed_hash_is_stable_keyed_and_says_nothing_of_the_number(store: Storage) -> None:
    hashed = store.privacy_posts.phone_hash(PHONE)
    assert hashed == store.privacy_posts.phone_hash(PHONE) != store.privacy_posts.phone_hash(OTHER)
    assert PHONE not in hashed and len(hashed) == 64


def test_posts_are_found_by_hash_revealed_by_reference_and_claimed_once(
    store: Storage, clock: FakeClock
) -> None:
    store.privacy_posts.record(
        "T1", "C1", [PHONE, OTHER], ref="ref-one-post", ts="1.1", masked=True
    )
    store.privacy_posts.record("T1", "C1", [PHONE], ref="ref-one-post", ts="1.1", masked=True)
    store.privacy_posts.record("T1", "D1", [PHONE], ref="ref-of-a-file", file_id="F1", masked=False)
    assert store.privacy_posts.numbers_of("T1", "ref-one-post") == [PHONE, OTHER]
    assert store.privacy_posts.numbers_of("T1", "no-such-reference") is None
    assert store.privacy_posts.numbers_of("T2", "ref-one-post") is None  # another team's
    assert [(p.ts, p.file_id) for p in store.privacy_posts.showing("T1", PHONE)] == [
        ("1.1", None),
        (None, "F1"),
    ]
    [(sealed,)] = raw(store.db, "SELECT phone_enc FROM privacy_posts WHERE file_id = 'F1'")
    assert PHONE not in sealed

    assert store.privacy_posts.mark_for_erase("T1", PHONE, "req1") == 2
    first = store.privacy_posts.claim_due(lease=60)
    assert {(p.ts, p.file_id) for p in first} == {("1.1", None), (None, "F1")}
    assert store.privacy_posts.claim_due(lease=60) == []  # leased: nobody else takes them
    clock.advance(61)
    assert len(store.privacy_posts.claim_due(lease=60)) == 2  # a lapsed lease is taken again
    store.privacy_posts.settle("T1", "C1", ts="1.1", file_id=None, outcome="rewritten")
    store.privacy_posts.settle("T1", "D1", ts=None, file_id="F1", outcome="gone:file_deleted")
    # Every number the message showed went with it, the other customer's too.
    assert store.privacy_posts.numbers_of("T1", "ref-one-post") == []
    outcomes = {(p.phone_hash, p.outcome) for p in store.privacy_posts.of_request("T1", "req1")}
    assert outcomes == {
        (store.privacy_posts.phone_hash(PHONE), "rewritten"),
        (store.privacy_posts.phone_hash(PHONE), "gone:file_deleted"),
    }
    clock.advance(61)
    assert store.privacy_posts.claim_due(lease=60) == []


def test_erasing_hashes_the_opt_out_keeps_refusing_and_reports_what_it_cannot_change(
    store: Storage,
) -> None:
    store.call_lists.add_optout("T1", [PHONE, OTHER], source="typed", by="U1")
    store.calling_rules.record_push("T1", PHONE, "camp-1")
    store.audit.append("T1", "U1", "autocall.push", {"phone_number": PHONE})
    # A request still waiting for its approver: it may yet run, so it keeps the number.
    store.approvals.create("T1", "autocall.push", {"phone_number": PHONE}, "U1")
    phone_hash = store.privacy_posts.phone_hash(PHONE)
    held = {h.table for h in where_held(store.db, store.box, "T1", PHONE, phone_hash)}
    assert {"optout_numbers", "outbound_pushes", "audit_log", "approvals"} <= held

    erased = {e.table: e for e in erase_everywhere(store.db, store.box, "T1", PHONE, phone_hash)}
    assert (erased["optout_numbers"].how, erased["outbound_pushes"].how) == ("hashed", "hashed")
    assert (erased["audit_log"].how, erased["audit_log"].why) == ("kept", "append-only")
    assert erased["approvals"].how == "kept" and erased["approvals"].why == "open"
    assert raw(store.db, "SELECT phone FROM optout_numbers WHERE phone = :p", {"p": PHONE}) == []
    # The number is still refused, and only it matches its hash.
    assert store.call_lists.on_optout("T1", [PHONE, OTHER, "0356789012"]) == {PHONE, OTHER}
    left = {h.table for h in where_held(store.db, store.box, "T1", PHONE, phone_hash) if h.in_clear}
    assert left == {"audit_log", "approvals"}


def test_records_older_than_the_retention_keep_only_a_hash(
    store: Storage, clock: FakeClock
) -> None:
    store.calling_rules.record_push("T1", PHONE, "camp-1")
    clock.advance(3600)
    store.calling_rules.record_push("T1", OTHER, "camp-1")
    changed = age_out(store.db, store.box, "T1", clock() - 60)
    assert changed["outbound_pushes"] == 1
    phones = {p for (p,) in raw(store.db, "SELECT phone FROM outbound_pushes")}
    assert OTHER in phones and PHONE not in phones
    assert "h:" + store.privacy_posts.phone_hash(PHONE) in phones
    assert age_out(store.db, store.box, "T1", clock() - 60)["outbound_pushes"] == 0  # once
