"""Refreshing a rotated Slack bot token, on both engines: the claim is a compare-and-set
that exactly one of many contenders wins, the new tokens are stored encrypted as the claim
is released, and `TokenRefresher` built on it spends a refresh token once however many
threads (each with its own engine, as processes have) want a fresh token at the same time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from slack_sdk import WebClient

from bot.token_rotation import RETRY_PAUSE, TokenRefresher
from emulators.slack import SUPERVISOR, TEAM, SlackStandIn
from storage import InstallationRecord, RefreshClaim, SecretBox, Storage
from tests.storage.conftest import FakeClock, at_once, raw

pytestmark = pytest.mark.filterwarnings("ignore:BasicAuth is deprecated:DeprecationWarning")

CONTENDERS = 8
OLD_TOKEN = "xoxe.xoxb-1-old"
OLD_REFRESH = "xoxe-1-old"


def rotating_record(
    *, token: str = OLD_TOKEN, refresh: str = OLD_REFRESH, expires_at: int
) -> InstallationRecord:
    return InstallationRecord(
        team_id=TEAM,
        user_id=SUPERVISOR,
        bot_token=token,
        bot_id="B1",
        bot_user_id="UBOT",
        bot_scopes="commands,chat:write",
        bot_refresh_token=refresh,
        bot_token_expires_at=expires_at,
        installed_at=1.0,
    )


@pytest.fixture
def expiring(store: Storage, clock: FakeClock) -> InstallationRecord:
    """A bot token with a refresh token, saved with a minute left: due for a refresh."""
    record = rotating_record(expires_at=int(clock()) + 60)
    store.installations.save(record)
    return record


def found(store: Storage) -> InstallationRecord:
    record = store.installations.find_bot(enterprise_id=None, team_id=TEAM)
    assert record is not None
    return record


# --- the claim, in storage ------------------------------------------------------------------


def test_one_of_many_claims_wins_and_a_late_one_finds_the_new_token(
    db_url: str, box: SecretBox, clock: FakeClock, expiring: InstallationRecord
) -> None:
    record = expiring
    stores = [Storage.open(db_url, box, clock=clock) for _ in range(CONTENDERS)]

    def claim(i: int) -> RefreshClaim:
        return stores[i].installations.claim_bot_refresh(
            record, expiring_before=clock() + 7200, owner=f"p{i}", lease=60
        )

    try:
        won = at_once(CONTENDERS, claim)
        assert won.count(RefreshClaim.CLAIMED) == 1
        assert set(won) == {RefreshClaim.CLAIMED, RefreshClaim.BUSY}
        winner = won.index(RefreshClaim.CLAIMED)
        store = stores[0]
        assert store.installations.finish_bot_refresh(
            record,
            owner=f"p{winner}",
            spent_refresh_token="xoxe-1-old",
            bot_token="xoxe.xoxb-1-new",
            bot_refresh_token="xoxe-1-new",
            expires_at=int(clock()) + 43200,
        )
        now = found(store)
        assert (now.bot_token, now.bot_refresh_token) == ("xoxe.xoxb-1-new", "xoxe-1-new")
        assert now.bot_token_expires_at == int(clock()) + 43200
        # Encrypted at rest, and the claim released.
        [(token_enc, refresh_enc, owner, until)] = raw(
            store.db,
            "SELECT bot_token_enc, bot_refresh_token_enc, bot_refresh_lease_owner, "
            "bot_refresh_lease_until FROM slack_installations",
        )
        assert "xoxe" not in token_enc + refresh_enc
        assert (owner, until) == (None, None)
        # A contender arriving now sees a token that no longer expires soon: no claim.
        late = store.installations.claim_bot_refresh(
            record, expiring_before=clock() + 7200, owner="late", lease=60
        )
        assert late is RefreshClaim.NOT_DUE
    finally:
        for s in stores:
            s.close()


def test_a_claim_held_by_a_dead_process_runs_out_and_a_failure_pauses_retries(
    store: Storage, clock: FakeClock, expiring: InstallationRecord
) -> None:
    record = expiring
    due = clock() + 7200

    def claim(owner: str) -> RefreshClaim:
        return store.installations.claim_bot_refresh(
            record, expiring_before=due, owner=owner, lease=60
        )

    assert claim("dead") is RefreshClaim.CLAIMED
    assert claim("b") is RefreshClaim.BUSY
    clock.advance(59)
    assert claim("b") is RefreshClaim.BUSY
    clock.advance(1)
    assert claim("b") is RefreshClaim.CLAIMED
    # Only the holder can give the claim up.
    store.installations.release_bot_refresh(record, owner="dead")
    assert claim("c") is RefreshClaim.BUSY
    # A failed exchange pauses every process's retries for a while.
    store.installations.release_bot_refresh(record, owner="b", pause=30)
    assert claim("c") is RefreshClaim.PAUSED
    clock.advance(30)
    assert claim("c") is RefreshClaim.CLAIMED
    store.installations.release_bot_refresh(record, owner="c")
    assert claim("d") is RefreshClaim.CLAIMED
    store.installations.delete(enterprise_id=None, team_id=TEAM)
    assert claim("e") is RefreshClaim.GONE


def test_tokens_of_a_reinstall_are_not_overwritten_by_a_late_refresh(
    store: Storage, clock: FakeClock, expiring: InstallationRecord
) -> None:
    record = expiring
    claimed = store.installations.claim_bot_refresh(
        record, expiring_before=clock() + 7200, owner="a", lease=60
    )
    assert claimed is RefreshClaim.CLAIMED
    reinstall = rotating_record(
        token="xoxe.xoxb-1-reinstall",
        refresh="xoxe-1-reinstall",
        expires_at=int(clock()) + 43200,
    )
    store.installations.save(reinstall)
    assert not store.installations.finish_bot_refresh(
        record,
        owner="a",
        spent_refresh_token="xoxe-1-old",
        bot_token="xoxe.xoxb-1-late",
        bot_refresh_token="xoxe-1-late",
        expires_at=int(clock()) + 43200,
    )
    assert found(store).bot_token == "xoxe.xoxb-1-reinstall"


def test_a_lasting_token_is_never_claimed(db_url: str, box: SecretBox, clock: FakeClock) -> None:
    with Storage.open(db_url, box, clock=clock) as store:
        lasting = InstallationRecord(team_id=TEAM, user_id=SUPERVISOR, bot_token="xoxb-1")
        store.installations.save(lasting)
        claim = store.installations.claim_bot_refresh(
            lasting, expiring_before=clock() + 7200, owner="a", lease=60
        )
        assert claim is RefreshClaim.GONE  # nothing to refresh it with


# --- the refresher, against the Slack stand-in ------------------------------------------------


@pytest.fixture
def slack() -> Iterator[SlackStandIn]:
    """The stand-in of a Slack app with token rotation on, on its own thread (the
    contenders below each run their own event loop)."""
    with SlackStandIn(token_rotation=True) as stand_in:
        yield stand_in


def install(slack: SlackStandIn, store: Storage, *, left: int) -> InstallationRecord:
    """Install through oauth.v2.access and store it as if ``left`` seconds of the token's
    life remained (Slack's clock moved on as far)."""
    granted: Any = WebClient(base_url=slack.api_url).oauth_v2_access(
        client_id=slack.client_id, client_secret=slack.client_secret, code=slack.approve_install()
    )
    slack.clock.advance(int(granted["expires_in"]) - left)
    record = rotating_record(
        token=granted["access_token"],
        refresh=granted["refresh_token"],
        expires_at=int(time.time()) + left,
    )
    store.installations.save(record)
    return record


def refresher(slack: SlackStandIn, store: Storage) -> TokenRefresher:
    return TokenRefresher(
        store, client_id=slack.client_id, client_secret=slack.client_secret, api_url=slack.api_url
    )


def refresh_exchanges(slack: SlackStandIn) -> list[str | None]:
    """The error of each refresh exchange Slack saw (None: it succeeded)."""
    return [
        e.error
        for e in slack.journal("oauth.v2.access")
        if e.params.get("grant_type") == "refresh_token"
    ]


def test_contenders_on_their_own_engines_spend_the_refresh_token_once(
    slack: SlackStandIn, db_url: str, box: SecretBox
) -> None:
    stores = [Storage.open(db_url, box) for _ in range(CONTENDERS)]
    try:
        old = install(slack, stores[0], left=60)

        def contend(i: int) -> str | None:
            async def run() -> str | None:
                record = await refresher(slack, stores[i]).bot_installation(
                    enterprise_id=None, team_id=TEAM
                )
                return None if record is None else record.bot_token

            return asyncio.run(run())

        tokens = at_once(CONTENDERS, contend)
        assert refresh_exchanges(slack) == [None]
        assert len(set(tokens)) == 1 and tokens[0] != old.bot_token
        assert tokens[0] is not None and tokens[0].startswith("xoxe.xoxb-1-")
        assert found(stores[0]).bot_token == tokens[0]
        # The new token works at Slack once the old one has expired.
        slack.clock.advance(120)
        assert WebClient(token=tokens[0], base_url=slack.api_url).auth_test()["team_id"] == TEAM
    finally:
        for s in stores:
            s.close()


async def test_a_token_good_for_longer_than_the_margin_is_used_as_it_is(
    slack: SlackStandIn, db_url: str, box: SecretBox
) -> None:
    with Storage.open(db_url, box) as store:
        old = install(slack, store, left=3 * 3600)
        record = await refresher(slack, store).bot_installation(enterprise_id=None, team_id=TEAM)
        assert record is not None and record.bot_token == old.bot_token
        assert refresh_exchanges(slack) == []


async def test_a_refused_refresh_is_logged_without_secrets_and_paused(
    slack: SlackStandIn, db_url: str, box: SecretBox, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock(time.time())  # the claims' clock; the tokens expire in real time
    with Storage.open(db_url, box, clock=clock) as store:
        old = install(slack, store, left=60)
        wrong = TokenRefresher(
            store, client_id=slack.client_id, client_secret="wrong", api_url=slack.api_url
        )
        record = await wrong.bot_installation(enterprise_id=None, team_id=TEAM)
        assert record is not None and record.bot_token == old.bot_token  # still usable
        assert refresh_exchanges(slack) == ["bad_client_secret"]
        assert f"could not refresh the bot token of team {TEAM}: bad_client_secret" in (
            caplog.messages
        )
        assert all(
            secret not in caplog.text
            for secret in (old.bot_token or "", old.bot_refresh_token or "", slack.client_secret)
        )
        # Uses in the next half minute, in any process, take the current token as it is
        # without asking Slack again; then a refresh is tried again.
        right = refresher(slack, store)
        paused = await right.bot_installation(enterprise_id=None, team_id=TEAM)
        assert paused is not None and paused.bot_token == old.bot_token
        assert refresh_exchanges(slack) == ["bad_client_secret"]
        clock.advance(RETRY_PAUSE)
        fresh = await right.bot_installation(enterprise_id=None, team_id=TEAM)
        assert fresh is not None and fresh.bot_token != old.bot_token
        assert refresh_exchanges(slack) == ["bad_client_secret", None]
