"""The live state agrees with itself: what ``GET /v1/call`` shows, the agents the autodialer
statistics count in call, and the records the calls leave when they end.

A live call carries only the fields of spec 2.13, so an agent is on a call when the
agent's extension is its ``source`` or ``destination``; the statistics must count
exactly those agents, each once, under the campaign of the one call it is on.  Which
campaign a live call belongs to is the emulator's own state, read here from the control
surface; a client learns it from the call's record (same ``id`` as the ``call_id``)
once the call has ended.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from emulators.pbx.testing import EmulatorServer
from tests.emulator.conftest import SPEC_ACTIVE_CALL, Api, fmt

STEP_SECONDS = 15
STEPS = 24


def start(api: Api, campaign: dict[str, Any], **changes: Any) -> None:
    response = api.put(f"/v3/campaign/{campaign['campaign_uuid']}", json={**campaign, **changes})
    assert response.status_code == 200, response.text


def members(users: list[dict[str, Any]], campaign_groups: set[str]) -> set[str]:
    """Extensions of the users in a group assigned to the campaign."""
    return {
        u["extension"]
        for u in users
        if u["extension"] and {g["group_uuid"] for g in u["groups"] or []} & campaign_groups
    }


def check_once(
    pbx: EmulatorServer, api: Api, users: list[dict[str, Any]], groups: dict[str, set[str]]
) -> tuple[list[dict[str, Any]], dict[str, str], list[dict[str, Any]]]:
    """Every invariant at one frozen instant; returns the live calls, the campaign of
    each (the emulator's own state) and the statistics."""
    calls = api.get("/v1/call").json()["data"]
    for call in calls:
        assert set(call) == SPEC_ACTIVE_CALL
    campaign_of = {c["call_id"]: c["campaign_uuid"] for c in pbx.live_calls("demo")}
    assert set(campaign_of) == {c["call_id"] for c in calls}
    extensions = {u["extension"] for u in users if u["extension"]}
    on_line = Counter(p for c in calls for p in {c["source"], c["destination"]} if p in extensions)
    assert all(n == 1 for n in on_line.values()), f"an agent on two live calls: {on_line}"
    with_agent = [c for c in calls if c["source"] in extensions or c["destination"] in extensions]
    stats = api.get(
        "/v3/monitor-stats/campaign/autodialer", params={"interval": 60, "limit": 100}
    ).json()["data"]
    for s in stats:
        mine = {
            p
            for c in calls
            if campaign_of[c["call_id"]] == s["campaign_uuid"]
            for p in (c["source"], c["destination"])
        }
        expected = members(users, groups[s["campaign_uuid"]]) & mine
        assert s["agents_in_call"] == len(expected), (s["campaign_name"], expected)
        assert s["agents_ready"] + s["agents_pause"] + s["agents_in_call"] <= s["connected_agents"]
        assert s["connected_agents"] <= s["total_agents"]
    assert sum(s["agents_in_call"] for s in stats) <= len(with_agent)
    return calls, campaign_of, stats


def test_agents_in_call_are_the_agents_on_the_live_calls(pbx: EmulatorServer, api: Api) -> None:
    now = pbx.freeze_clock()
    users = api.data("/v3/user", limit=100)
    campaigns = api.campaigns()
    groups = {c["campaign_uuid"]: {g["group_uuid"] for g in c["groups"] or []} for c in campaigns}
    dialers = [c for c in campaigns if c["type"] == "autodialer"]
    running = [c for c in dialers if c["status"] == "start"]
    # A second running dialer drawing on the same agents: one agent must not count for both.
    extra = next(c for c in dialers if c["status"] != "start" and c["default_list_uuid"])
    start(api, extra, status="start", concurrent_call=3)
    assert groups[extra["campaign_uuid"]] & groups[running[0]["campaign_uuid"]]
    # Customers calling the hotline take free agents too, on calls of no campaign.
    for _ in range(2):
        pbx.originate(direction="inbound", talk_seconds=120)

    seen: dict[str, dict[str, Any]] = {}
    campaign_of: dict[str, str] = {}
    peak = 0
    busy_campaigns: set[str] = set()
    for _ in range(STEPS):
        pbx.advance(STEP_SECONDS)
        calls, campaigns_now, stats = check_once(pbx, api, users, groups)
        seen.update({c["call_id"]: c for c in calls})
        campaign_of.update(campaigns_now)
        peak = max(peak, sum(s["agents_in_call"] for s in stats))
        busy_campaigns |= {s["campaign_uuid"] for s in stats if s["agents_in_call"]}
    assert peak >= 2 and len(busy_campaigns) >= 2, "the run never had agents in call"

    # Every call seen live left a record with the same id once it ended: that record,
    # not the live call, says which campaign the call was for and which agent took it.
    for campaign in api.campaigns():
        if campaign["status"] == "start":
            start(api, campaign, status="stop")
    pbx.advance(3600)
    assert api.get("/v1/call").json()["data"] == []
    # Calls dialled between the reset and the freeze started a moment before ``now``.
    since = fmt(now - 600)
    records = {r["id"]: r for r in api.data("/v3/cdr", start_date=since, limit=1000, offset=0)}
    assert set(seen) <= set(records)
    extensions = {u["extension"] for u in users if u["extension"]}
    for call_id, shown in seen.items():
        record = records[call_id]
        assert record["campaign_uuid"] == campaign_of[call_id]
        agents = {shown["source"], shown["destination"]} & extensions
        if agents and record["status"] == "answered":
            assert record["extension"] in agents
