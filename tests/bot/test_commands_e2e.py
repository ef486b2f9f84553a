"""``/callops`` end to end: signed slash commands in, replies out through response_url,
against the emulator.  What is asserted is what a supervisor would see in Slack."""

from __future__ import annotations

import json
from typing import Any

import httpx

from bot.runtime import Runtime
from callcenter import CallCenter
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from tests.blocks import elements


def mrkdwn(message: dict[str, Any]) -> str:
    """The parts Slack parses for mentions: the fallback text and every mrkdwn object
    (plain_text objects, such as headers, are shown literally and ping nobody)."""
    found = [str(node.get("text", "")) for node in elements(message.get("blocks", []), "mrkdwn")]
    return "\n".join([message.get("text", ""), *found])


def shown(message: dict[str, Any]) -> str:
    """Everything a person can read in a message: its text and all its blocks."""
    return str(message.get("text", "")) + json.dumps(message.get("blocks", []), ensure_ascii=False)


async def ask(slack: SlackStandIn, text: str, user: str = SUPERVISOR) -> dict[str, Any]:
    """Type ``/callops <text>`` and wait for the reply that follows the ack."""
    before = len(slack.ephemerals(user))
    delivery = await slack.driver.slash_command(user=user, channel=CALL_CENTER, text=text)
    assert delivery.in_time, f"ack took {delivery.ack_seconds:.2f}s (status {delivery.status})"
    return await slack.wait_for(
        lambda: slack.ephemerals(user)[before] if len(slack.ephemerals(user)) > before else None
    )


async def expect_replies(
    slack: SlackStandIn, *exchanges: tuple[str, ...], user: str = SUPERVISOR
) -> None:
    """Type each command in turn, as ``user``; each reply must say every one of the words
    that follow its command (a table of refusals reads better than pairs of lines)."""
    for text, *words in exchanges:
        reply = await ask(slack, text, user=user)
        for word in words:
            assert word in shown(reply), (text, word, shown(reply))


async def campaigns_of(pbx: EmulatorServer, api_key: str | None = None) -> list[Any]:
    async with CallCenter(pbx.base_url, api_key or pbx.api_key) as cc:
        return [c async for c in cc.campaigns.iterate()]


async def renamed_campaign(pbx: EmulatorServer, name: str) -> Any:
    """The service's first campaign, renamed ``name`` (as anyone with access could)."""
    target = (await campaigns_of(pbx))[0]
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        await cc.campaigns.set_fields(target.campaign_uuid, campaign_name=name)
    return target


async def test_campaigns_lists_the_service_campaigns(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    reply = await ask(slack, "campaigns")
    campaigns = await campaigns_of(pbx)
    running = [c for c in campaigns if c.status == "start"]
    assert running and all(c.campaign_name in shown(reply) for c in running[:3])
    assert f"of {len(campaigns)} campaigns" in shown(
        reply
    ) or f"{len(campaigns)} campaigns" in shown(reply)


async def test_next_page_replaces_the_listing(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    first = await ask(slack, "campaigns")
    assert len(await campaigns_of(pbx)) > 10  # the seeded domain needs more than one page
    assert "callops_page_next" in shown(first)
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="callops_page_next", ephemeral_ts=first["ts"]
    )
    second = await slack.wait_for(
        lambda: next((m for m in slack.ephemerals(SUPERVISOR) if "Showing 11" in shown(m)), None)
    )
    assert "callops_page_prev" in shown(second)


async def test_campaign_card_by_unique_prefix(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaigns = await campaigns_of(pbx)
    names = [c.campaign_name.casefold() for c in campaigns]

    def unique_prefix(name: str) -> str | None:
        for n in range(3, len(name)):
            unique = sum(other.startswith(name[:n].casefold()) for other in names) == 1
            if unique and name[:n] == name[:n].strip():
                return name[:n]
        return None

    campaign, prefix = next(
        (c, p) for c in campaigns if (p := unique_prefix(c.campaign_name)) is not None
    )
    reply = await ask(slack, f'campaign "{prefix}"')
    assert campaign.campaign_name in shown(reply)
    assert campaign.campaign_uuid in shown(reply)


async def test_ambiguous_name_offers_buttons_and_a_click_opens_the_card(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaigns = await campaigns_of(pbx)
    first_letters: dict[str, list[Any]] = {}
    for c in campaigns:
        first_letters.setdefault(c.campaign_name[:1].casefold(), []).append(c)
    letter, group = max(first_letters.items(), key=lambda kv: len(kv[1]))
    assert len(group) > 1
    reply = await ask(slack, f"campaign {letter}")
    assert "Which one?" in shown(reply)
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="campaign_choose_0", ephemeral_ts=reply["ts"]
    )
    card = await slack.wait_for(
        lambda: next(
            (
                m
                for m in slack.ephemerals(SUPERVISOR)
                if group[0].campaign_uuid in shown(m) and "Which one?" not in shown(m)
            ),
            None,
        )
    )
    assert group[0].campaign_name in shown(card)
    # The picker gave way to the card: its message now is the card, and no "Which one?"
    # is left to offer the choice again.
    assert card["ts"] == reply["ts"]
    assert not [m for m in slack.ephemerals(SUPERVISOR) if "Which one?" in shown(m)]


async def test_a_choice_that_opens_a_form_removes_the_picker(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    autocalls = [c for c in await campaigns_of(pbx) if c.type == "autocall"]
    chosen = next(c for c in autocalls if c.campaign_name.startswith("Nhắc thanh"))
    reply = await ask(slack, 'autocall "Nhắc thanh" 0912345678')
    assert "Which one?" in shown(reply)
    button = next(
        e
        for block in reply["blocks"]
        if block["type"] == "actions"
        for e in block["elements"]
        if chosen.campaign_uuid in e["value"]
    )
    await slack.driver.block_action(
        user=SUPERVISOR, action_id=button["action_id"], ephemeral_ts=reply["ts"]
    )
    form = await slack.wait_for(
        lambda: next(
            (v for v in slack.views(SUPERVISOR) if v["callback_id"] == "autocall_form"), None
        )
    )
    assert chosen.campaign_name in shown(form)
    await slack.wait_for(
        lambda: all(m["ts"] != reply["ts"] for m in slack.ephemerals(SUPERVISOR)) or None
    )
    assert not [m for m in slack.ephemerals(SUPERVISOR) if "Which one?" in shown(m)]


async def test_unknown_campaign_and_unknown_command(app: Runtime, slack: SlackStandIn) -> None:
    reply = await ask(slack, "campaign zzz-no-such")
    assert "No campaign is called 'zzz-no-such', starts with it or has a name close" in shown(reply)
    reply = await ask(slack, "launch rockets")
    assert "I don't know `launch`." in shown(reply) and "`/callops help`" in shown(reply)
    assert "Did you mean" not in shown(reply) and "/callops commands" not in shown(reply)


async def test_bad_arguments_say_what_was_wrong_and_how(app: Runtime, slack: SlackStandIn) -> None:
    reply = await ask(slack, "campaigns robocalls")
    assert "not a campaign type" in shown(reply)
    assert "Usage" in shown(reply)


async def test_lead_name_with_mentions_pings_nobody(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = await renamed_campaign(pbx, "<!channel> <@U0002> & co")
    reply = await ask(slack, f"campaign {target.campaign_uuid}")
    text = mrkdwn(reply)
    assert "&lt;!channel&gt; &lt;@U0002&gt; &amp; co" in text
    assert "<!channel>" not in text and "<@U0002>" not in text


async def test_service_down_is_explained(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    pbx.fail_next("GET", "/v3/campaign", 503, {"error": "maintenance"}, times=10)
    reply = await ask(slack, "campaigns")
    assert "call-center service failed" in shown(reply)
    assert "Traceback" not in shown(reply)


async def test_slow_service_still_acks_in_time(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    pbx.set_faults(latency_ms=1500)
    reply = await ask(slack, "campaigns")
    assert "Campaigns" in shown(reply)


async def test_not_connected_workspace_is_told_how_to_connect(
    app: Runtime, slack: SlackStandIn
) -> None:
    app.storage.workspaces.disconnect(TEAM)
    await app.clients.forget(TEAM)
    reply = await ask(slack, "campaigns")
    assert "not connected" in shown(reply) and "/callops connect" in shown(reply)
    reply = await ask(slack, "campaigns", user=AGENT)
    assert "Ask a callops admin" in shown(reply)


async def test_viewer_cannot_use_admin_commands(app: Runtime, slack: SlackStandIn) -> None:
    reply = await ask(slack, "connect", user=AGENT)
    assert "needs the admin role" in shown(reply)
    assert slack.views(AGENT) == []
    reply = await ask(slack, "disconnect", user=AGENT)
    assert "needs the admin role" in shown(reply)
    assert app.storage.workspaces.require(TEAM).connected


async def test_help_lists_every_command_and_explains_one(app: Runtime, slack: SlackStandIn) -> None:
    reply = await ask(slack, "help")
    for word in ("campaigns", "transfer", "digest add", "cdr"):
        assert word in shown(reply)
    reply = await ask(slack, "help cdr")
    assert "direction=" in shown(reply)


async def test_bad_signature_and_stale_timestamp_get_401(app: Runtime, slack: SlackStandIn) -> None:
    forged = await slack.driver.slash_command(
        user=SUPERVISOR, channel=CALL_CENTER, text="campaigns", bad_signature=True
    )
    stale = await slack.driver.slash_command(
        user=SUPERVISOR, channel=CALL_CENTER, text="campaigns", timestamp_skew=301
    )
    assert (forged.status, stale.status) == (401, 401)


async def test_healthz_answers(app: Runtime, slack: SlackStandIn) -> None:
    assert slack.driver.request_url is not None
    base = slack.driver.request_url.removesuffix("/slack/events")
    async with httpx.AsyncClient() as http:
        r = await http.get(base + "/healthz")
    assert (r.status_code, r.json()) == (200, {"ok": True})


async def test_two_workspaces_never_see_each_other(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    other_team = slack.add_team("Second Center", id="T0002")
    other_user = slack.add_user(other_team.id, "lan", id="U0200", is_admin=True)
    other_channel = slack.add_channel(other_team.id, "ops", id="C0200", bot_member=True)
    app.storage.workspaces.connect(other_team.id, pbx.base_url, pbx.api_key_2)
    mine = await ask(slack, "campaigns")
    before = len(slack.ephemerals(other_user.id))
    await slack.driver.slash_command(
        user=other_user.id, channel=other_channel.id, text="campaigns", team=other_team.id
    )
    theirs = await slack.wait_for(
        lambda: (
            slack.ephemerals(other_user.id)[before]
            if len(slack.ephemerals(other_user.id)) > before
            else None
        )
    )
    first = await campaigns_of(pbx)
    second = await campaigns_of(pbx, pbx.api_key_2)
    # Each row's Open button carries the campaign's UUID.
    assert any(c.campaign_uuid in shown(mine) for c in first)
    assert any(c.campaign_uuid in shown(theirs) for c in second)
    assert all(c.campaign_uuid not in shown(theirs) for c in first)
    assert all(c.campaign_uuid not in shown(mine) for c in second)
