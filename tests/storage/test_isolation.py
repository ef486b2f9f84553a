"""Two workspaces bound to the emulator's two domains see only their own data."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.service_clients import WorkspaceTokenCache
from callcenter import CallCenter
from storage import Role, Storage
from storage.errors import NotFoundError
from tests.storage.conftest import decide

A, B = "T_ALPHA", "T_BETA"


async def _campaigns_and_domain(store: Storage, team: str) -> tuple[set[str], str, str]:
    workspace = store.workspaces.require(team)
    api_key = store.workspaces.api_key(team)
    assert workspace.base_url is not None and api_key is not None
    cache = WorkspaceTokenCache(store.workspaces, team)
    async with CallCenter(workspace.base_url, api_key, token_cache=cache) as cc:
        page = await cc.campaigns.list(limit=100)
        verified = await cc.auth.verify()
    cached = cache.load()
    assert cached is not None
    return {c.campaign_uuid for c in page.data}, verified.domain_uuid, cached.token


def test_each_workspace_reaches_only_its_own_domain(store: Storage, emulator: Any) -> None:
    store.workspaces.connect(A, emulator.base_url, emulator.api_key)
    store.workspaces.connect(B, emulator.base_url, emulator.api_key_2)

    campaigns_a, domain_a, token_a = asyncio.run(_campaigns_and_domain(store, A))
    campaigns_b, domain_b, token_b = asyncio.run(_campaigns_and_domain(store, B))

    assert domain_a != domain_b
    assert campaigns_a and campaigns_b and not campaigns_a & campaigns_b
    assert token_a != token_b


def test_no_store_returns_or_changes_another_workspaces_rows(store: Storage) -> None:
    approval = store.approvals.create(A, "campaign.start", {"c": 1}, "U1")
    store.roles.set_role(A, "U1", Role.ADMIN)
    store.audit.append(A, "U1", "campaign.start", {})
    digest = store.digests.add(A, channel="C1", schedule="daily", timezone="UTC", created_by="U1")
    route = store.routes.add(A, channel="C1", created_by="U1")
    token = store.callback_tokens.rotate(A)
    store.dedup.mark_event(A, "Ev1")

    assert store.approvals.get(B, approval.id) is None
    assert store.approvals.list(B) == []
    with pytest.raises(NotFoundError):
        decide(store, B, approval)
    with pytest.raises(NotFoundError):
        store.approvals.cancel(B, approval.id, by="U2", by_role=Role.ADMIN)
    with pytest.raises(NotFoundError):
        store.approvals.attach_message(B, approval.id, "C", "1.0")
    assert store.approvals.expire_due(B, now=approval.expires_at + 1) == []
    assert store.approvals.require(A, approval.id).state.value == "pending"

    assert store.roles.stored_role(B, "U1") is None
    assert store.audit.entries(B) == []
    assert store.digests.get(B, digest.id) is None and store.digests.list(B) == []
    assert store.digests.claim_slot(B, digest.id, "slot-1") is False
    assert store.digests.remove(B, digest.id) is False
    assert store.routes.get(B, route.id) is None and store.routes.remove(B, route.id) is False
    assert store.callback_tokens.get(B) is None
    assert store.callback_tokens.team_for(token) == A
    assert store.dedup.mark_event(B, "Ev1") is True  # same id, other team: not a duplicate
    assert store.workspaces.cached_token(B) is None
