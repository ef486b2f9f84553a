from __future__ import annotations

import dataclasses

import pytest
from slack_sdk.oauth.installation_store.models.installation import Installation

from storage import InstallationRecord, OpenFold, Storage
from storage.errors import InvalidValueError, NotFoundError
from tests.storage.conftest import FakeClock, raw


def test_digest_crud_and_pause(store: Storage) -> None:
    digest = store.digests.add(
        "T1",
        channel="C1",
        schedule="weekdays 08:00",
        timezone="Asia/Ho_Chi_Minh",
        campaigns=["Sales", "Support"],
        sections=["totals", "agents"],
        created_by="U1",
    )
    assert digest.campaigns == ("Sales", "Support") and not digest.paused
    assert store.digests.set_paused("T1", digest.id, paused=True).paused
    changed = store.digests.update("T1", digest.id, schedule="daily 18:00", campaigns=[])
    assert (changed.schedule, changed.campaigns, changed.sections) == (
        "daily 18:00",
        (),
        ("totals", "agents"),
    )
    assert [d.id for d in store.digests.list("T1")] == [digest.id]
    with pytest.raises(InvalidValueError):
        store.digests.update("T1", digest.id, timezone="Nowhere/Land")
    assert store.digests.remove("T1", digest.id)
    assert store.digests.get("T1", digest.id) is None
    with pytest.raises(NotFoundError):
        store.digests.set_paused("T1", digest.id, paused=False)


def test_a_digest_slot_is_claimed_once(store: Storage) -> None:
    digest = store.digests.add(
        "T1", channel="C1", schedule="daily 08:00", timezone="UTC", created_by="U1"
    )
    slot = "2024-05-01T08:00:00+00:00"
    assert store.digests.claim_slot("T1", digest.id, slot) is True
    assert store.digests.claim_slot("T1", digest.id, slot) is False
    assert store.digests.require("T1", digest.id).last_slot == slot
    assert store.digests.finish_slot("T1", digest.id, slot, outcome="ok")
    [run] = store.digests.runs("T1", digest.id)
    assert (run.slot, run.outcome) == (slot, "ok")
    # Removing the digest removes its runs (foreign key cascade).
    store.digests.remove("T1", digest.id)
    assert raw(store.db, "SELECT COUNT(*) FROM digest_runs") == [(0,)]


def test_notification_routes_crud(store: Storage) -> None:
    route = store.routes.add(
        "T1",
        channel="C_CALLS",
        campaigns=["Sales"],
        statuses=["ANSWERED"],
        directions=["outbound"],
        presskey_only=True,
        created_by="U1",
    )
    assert store.routes.list("T1") == [route]
    assert route.presskey_only and route.statuses == ("ANSWERED",)
    assert route.fold and route.notable == ()  # folding on, nothing notable beyond the rule
    quiet = store.routes.add("T1", channel="C_CALLS", created_by="U1", fold=False, notable=["busy"])
    assert not quiet.fold and quiet.notable == ("busy",)
    assert store.routes.remove("T1", route.id) and store.routes.remove("T1", quiet.id)
    assert store.routes.list("T1") == []


def test_a_fold_takes_the_ordinary_rows_behind_its_head_and_leaves_with_them(
    store: Storage,
) -> None:
    feed = store.call_feed
    post_as = ["fold", "fold", "note", "fold", "card", "fold"]
    for k, kind in enumerate(post_as):
        feed.accept("T1", f"r{k}", {"id": f"r{k}"}, ["C1"], kinds={"C1": kind})
    [head] = feed.heads()
    assert feed.lease(head.seq, "me", 20)
    taken = feed.take_fold(head, "me", 20, limit=10, id_chars=1000)
    assert [row.record_id for row in taken] == ["r0", "r1", "r3"]  # the note waits; a card ends it
    assert feed.take_fold(head, "other", 20, limit=10, id_chars=1000) == []  # leased to me
    records = [feed.payload(row) for row in taken]
    feed.folded(
        "T1", "C1", [row.seq for row in taken], OpenFold("1.0001", 5.0, records), lane_free_at=2e9
    )
    fold = feed.fold("T1", "C1")
    assert fold is not None and fold.root_ts == "1.0001" and fold.records == records
    assert [(h.record_id, h.not_before) for h in feed.heads()] == [
        ("r2", 2e9)
    ]  # it waits for the pace
    assert feed.pending() == 3
    feed.close_fold("T1", "C1")
    assert feed.fold("T1", "C1") is None


def test_callback_tokens_find_their_team_and_rotate(store: Storage) -> None:
    token = store.callback_tokens.get_or_create("T1")
    assert store.callback_tokens.get_or_create("T1") == token
    assert store.callback_tokens.team_for(token) == "T1"
    assert store.callback_tokens.team_for("guess") is None
    [stored] = raw(store.db, "SELECT token_hash, token_enc FROM callback_tokens")
    assert token not in stored
    new = store.callback_tokens.rotate("T1")
    assert store.callback_tokens.team_for(token) is None
    assert store.callback_tokens.team_for(new) == "T1"
    assert store.db.write(lambda conn: store.callback_tokens.revoke_in(conn, "T1"))
    assert store.callback_tokens.team_for(new) is None


def test_redelivered_callbacks_and_events_are_seen_once(store: Storage, clock: FakeClock) -> None:
    assert store.call_feed.accept("T1", "cdr-1", {}, []) == 0
    assert store.call_feed.accept("T1", "cdr-1", {}, []) is None
    assert store.dedup.mark_event("T1", "Ev1") is True
    assert store.dedup.mark_event("T1", "Ev1") is False
    clock.advance(3600)
    assert store.dedup.prune(clock() - 60) == 2
    assert store.dedup.mark_event("T1", "Ev1") is True


def _installation(**overrides: object) -> Installation:
    values: dict[str, object] = {
        "app_id": "A1",
        "team_id": "T1",
        "team_name": "Acme",
        "user_id": "U1",
        "bot_token": "xoxb-bot-secret",
        "bot_id": "B1",
        "bot_user_id": "UB1",
        "bot_scopes": ["commands", "chat:write"],
        "bot_refresh_token": "xoxe-refresh",
        "bot_token_expires_at": 1_800_000_000,
        "user_token": "xoxp-user-secret",
        "user_scopes": ["search:read"],
        "incoming_webhook_url": "https://hooks.slack.com/services/T/B/X",
        "incoming_webhook_channel": "#ops",
        "incoming_webhook_channel_id": "C1",
        "token_type": "bot",
        "installed_at": 1_700_000_000.5,
        "custom_values": {"plan": "pro"},
    }
    values.update(overrides)
    return Installation(**values)  # type: ignore[arg-type]


def test_installations_round_trip_through_slack_sdk(store: Storage) -> None:
    original = _installation()
    store.installations.save(InstallationRecord.from_object(original))

    found = store.installations.find(enterprise_id=None, team_id="T1")
    assert found is not None
    back = Installation(**dataclasses.asdict(found))
    assert back.to_dict() == original.to_dict()
    [row] = raw(store.db, "SELECT * FROM slack_installations")
    assert not any(isinstance(v, str) and "secret" in v for v in row)
    assert "xoxb" not in repr(found)


def test_the_latest_installation_wins_and_bots_survive_user_reinstalls(store: Storage) -> None:
    store.installations.save(InstallationRecord.from_object(_installation()))
    store.installations.save(
        InstallationRecord.from_object(
            _installation(
                user_id="U2", bot_token=None, bot_refresh_token=None, installed_at=1_700_000_100.0
            )
        )
    )
    latest = store.installations.find(enterprise_id=None, team_id="T1")
    assert latest is not None and latest.user_id == "U2"
    bot = store.installations.find_bot(enterprise_id=None, team_id="T1")
    assert bot is not None and bot.bot_token == "xoxb-bot-secret"
    mine = store.installations.find(enterprise_id=None, team_id="T1", user_id="U1")
    assert mine is not None and mine.user_token == "xoxp-user-secret"

    assert store.installations.delete_bot(enterprise_id=None, team_id="T1") == 2
    assert store.installations.find_bot(enterprise_id=None, team_id="T1") is None
    assert store.installations.delete(enterprise_id=None, team_id="T1") == 2
    assert store.installations.find(enterprise_id=None, team_id="T1") is None


def test_enterprise_installs_are_found_by_enterprise(store: Storage) -> None:
    store.installations.save(
        InstallationRecord.from_object(
            _installation(enterprise_id="E1", team_id=None, is_enterprise_install=True)
        )
    )
    found = store.installations.find(
        enterprise_id="E1", team_id="T_ANY", is_enterprise_install=True
    )
    assert found is not None and found.enterprise_id == "E1" and found.team_id is None
    assert store.installations.find(enterprise_id=None, team_id="T1") is None


def test_oauth_states_are_consumed_once_before_expiry(store: Storage, clock: FakeClock) -> None:
    state = store.oauth_states.issue(expires_in=600)
    assert store.oauth_states.consume(state) is True
    assert store.oauth_states.consume(state) is False
    late = store.oauth_states.issue(expires_in=600)
    clock.advance(601)
    assert store.oauth_states.consume(late) is False
    assert store.oauth_states.consume("never-issued") is False


def test_an_unfinished_slot_claim_can_be_taken_over_once(store: Storage, clock: FakeClock) -> None:
    digest = store.digests.add(
        "T1", channel="C1", schedule="daily 08:00", timezone="UTC", created_by="U1"
    )
    assert store.digests.claim_slot("T1", digest.id, "2024-01-01T08:00:00Z")
    clock.advance(200)
    assert store.digests.claim_slot("T1", digest.id, "2024-01-02T08:00:00Z")
    store.digests.finish_slot("T1", digest.id, "2024-01-02T08:00:00Z", outcome="posted")
    [(team, run)] = store.digests.unfinished(claimed_before=clock() - 100)
    assert (team, run.slot, run.finished_at) == ("T1", "2024-01-01T08:00:00Z", None)
    assert store.digests.unfinished(claimed_before=clock() - 300) == []
    assert not store.digests.reclaim_slot("T2", digest.id, run.slot, clock() - 100)
    assert store.digests.reclaim_slot("T1", digest.id, run.slot, clock() - 100)
    assert not store.digests.reclaim_slot("T1", digest.id, run.slot, clock() - 100)
    assert store.digests.unfinished(claimed_before=clock() - 100) == []
