from __future__ import annotations

import pytest

from bot.service_clients import WorkspaceTokenCache
from callcenter.tokens import CachedToken, TokenCache
from storage import ServiceToken, Storage
from storage.errors import InvalidValueError, NotFoundError
from tests.storage.conftest import FakeClock, raw


def test_connect_stores_the_binding_and_never_exposes_the_key(store: Storage) -> None:
    workspace = store.workspaces.connect(
        "T1", "http://127.0.0.1:8900/", "the-key", timezone="Asia/Ho_Chi_Minh"
    )
    assert workspace.connected
    assert workspace.base_url == "http://127.0.0.1:8900"
    assert workspace.timezone == "Asia/Ho_Chi_Minh"
    assert "the-key" not in repr(workspace)
    assert store.workspaces.api_key("T1") == "the-key"
    assert [w.team_id for w in store.workspaces.list()] == ["T1"]


@pytest.mark.parametrize("zone", ["Mars/Olympus", "", "../etc/passwd", "utc+7"])
def test_an_unknown_timezone_is_refused_before_anything_is_saved(store: Storage, zone: str) -> None:
    with pytest.raises(InvalidValueError, match="IANA"):
        store.workspaces.connect("T1", "http://127.0.0.1:9", "k", timezone=zone)
    assert store.workspaces.get("T1") is None


@pytest.mark.parametrize("url", ["ftp://x", "127.0.0.1:8900", "http://", "http://h/?a=1"])
def test_a_base_url_that_is_not_http_is_refused(store: Storage, url: str) -> None:
    with pytest.raises(InvalidValueError):
        store.workspaces.connect("T1", url, "k")


def test_reconnecting_keeps_settings_and_drops_tokens_of_the_old_key(
    store: Storage, clock: FakeClock
) -> None:
    store.workspaces.connect("T1", "http://127.0.0.1:9", "old-key", timezone="Europe/Berlin")
    store.workspaces.set_channels("T1", approvals="C_APPROVE", digests="C_DIGEST")
    store.workspaces.save_cached_token("T1", "old-token", clock() + 3600)
    clock.advance(10)

    again = store.workspaces.connect("T1", "http://127.0.0.1:9", "new-key")

    assert again.timezone == "Europe/Berlin"
    assert again.approvals_channel == "C_APPROVE"
    assert again.updated_at == clock()
    assert store.workspaces.api_key("T1") == "new-key"
    assert store.workspaces.cached_token("T1") is None


def test_the_cached_token_is_kept_encrypted_per_team(store: Storage) -> None:
    store.workspaces.connect("T1", "http://127.0.0.1:9", "k1")
    assert store.workspaces.cached_token("T1") is None
    store.workspaces.save_cached_token("T1", "tok-1", 1234.5)
    assert store.workspaces.cached_token("T1") == ServiceToken("tok-1", 1234.5)
    assert "tok-1" not in repr(store.workspaces.cached_token("T1"))
    [(sealed,)] = raw(store.db, "SELECT token_enc FROM service_tokens")
    assert "tok-1" not in sealed
    store.workspaces.save_cached_token("T1", "tok-2", 2000.0)
    assert store.workspaces.cached_token("T2") is None
    store.workspaces.clear_cached_token("T1")
    assert store.workspaces.cached_token("T1") is None


def test_the_bots_token_cache_is_a_token_cache_per_team(store: Storage) -> None:
    store.workspaces.connect("T1", "http://127.0.0.1:9", "k1")
    cache: TokenCache = WorkspaceTokenCache(store.workspaces, "T1")
    assert cache.load() is None
    cache.save(CachedToken("tok-1", 1234.5))
    assert cache.load() == CachedToken("tok-1", 1234.5)
    cache.save(CachedToken("tok-2", 2000.0))
    assert cache.load() == CachedToken("tok-2", 2000.0)
    assert WorkspaceTokenCache(store.workspaces, "T2").load() is None
    cache.clear()
    assert cache.load() is None


def test_disconnect_removes_key_and_tokens_but_keeps_settings(store: Storage) -> None:
    store.workspaces.connect("T1", "http://127.0.0.1:9", "k1", timezone="Asia/Tokyo")
    store.workspaces.save_cached_token("T1", "tok", 2e9)

    assert store.workspaces.disconnect("T1") is True

    after = store.workspaces.require("T1")
    assert not after.connected and after.timezone == "Asia/Tokyo"
    assert store.workspaces.api_key("T1") is None
    assert store.workspaces.cached_token("T1") is None
    assert raw(store.db, "SELECT COUNT(*) FROM service_tokens") == [(0,)]
    assert store.workspaces.disconnect("T1") is False


def test_settings_of_an_unknown_team_are_not_found(store: Storage) -> None:
    with pytest.raises(NotFoundError):
        store.workspaces.set_timezone("T404", "UTC")
    with pytest.raises(NotFoundError):
        store.workspaces.require("T404")


def test_ensure_creates_a_settings_row_without_a_binding(store: Storage) -> None:
    workspace = store.workspaces.ensure("T1")
    assert not workspace.connected and workspace.timezone == "UTC"
    assert store.workspaces.set_timezone("T1", "America/New_York").timezone == "America/New_York"
    cleared = store.workspaces.set_channels("T1", notifications="C9")
    assert cleared.notifications_channel == "C9"
    assert store.workspaces.set_channels("T1", notifications=None).notifications_channel is None
