"""Call notifications end to end: ``/callops notify`` typed in the Slack stand-in, the
campaign attached on the emulator, the emulator's autocalls calling the app back, and the
cards a supervisor then sees in the channel."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.settings import Settings
from callcenter import CallCenter
from callcenter.models import Campaign
from commands.kernel.resolve import all_campaigns
from emulators.pbx.testing import EmulatorServer
from emulators.slack import (
    AGENT,
    APPROVALS,
    CALL_CENTER,
    MANAGER,
    SUPERVISOR,
    TEAM,
    SlackStandIn,
)
from storage import KindPolicy, Mode, Role
from tests.bot.feed_helpers import callback_url, feed_app, posted_record_ids, virtual_pace
from tests.bot.test_commands_e2e import ask, expect_replies, mrkdwn, shown

CAMPAIGN = "Nhắc thanh toán HN"
"""A paused autocall campaign of the seed (its template asks for ``{{name}}``)."""


@pytest.fixture
async def cc(pbx: EmulatorServer) -> AsyncIterator[CallCenter]:
    async with CallCenter(pbx.base_url, pbx.api_key) as client:
        yield client


async def campaign_named(cc: CallCenter, name: str) -> Campaign:
    return next(c for c in await all_campaigns(cc) if c.campaign_name == name)


def card_with(slack: SlackStandIn, channel: str, text: str) -> dict[str, Any] | None:
    return next((m for m in slack.messages(channel) if text in shown(m)), None)


async def test_only_admins_see_the_callback_url(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with feed_app(settings, slack, pbx) as (rt, base):
        refused = await ask(slack, "notify", user=AGENT)
        assert "needs the admin role" in shown(refused)
        assert "/callbacks/" not in shown(refused)
        reply = await ask(slack, "notify")
        assert reply.get("response_type", "ephemeral") == "ephemeral"
        assert callback_url(rt, base) in shown(reply)
        assert "notify attach" in shown(reply)


async def test_routes_are_added_listed_and_removed_with_clear_refusals(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with feed_app(settings, slack, pbx) as (rt, _):
        await expect_replies(
            slack,
            ("notify add <#C0003|digests>", "I am not in #digests", "/invite"),
            ("notify add #no-such-channel", "cannot see the channel #no-such-channel"),
            (
                "notify add <#C0001|call-center> status=ans!wered",
                "is not a call status",
                "Usage: `/callops notify add #channel",
            ),
            ("notify add <#C0001|call-center> colour=red", "'colour=' is not a route filter"),
            (
                "notify add <#C0001|call-center> zzz-nothing",
                "No campaign is called or starts with 'zzz-nothing'",
            ),
        )
        assert rt.storage.routes.list(TEAM) == []

        added = await ask(
            slack,
            f'notify add <#C0001|call-center> "{CAMPAIGN}" status=ANSWERED,busy '
            "direction=out presskey",
        )
        assert "added" in shown(added), shown(added)
        (route,) = rt.storage.routes.list(TEAM)
        assert route.channel == CALL_CENTER
        assert route.statuses == ("answered", "busy")
        assert route.directions == ("outbound",)
        assert route.presskey_only
        assert "does not send its call records here yet" in shown(added)

        listing = await ask(slack, "notify list")
        assert route.id in shown(listing) and CAMPAIGN in shown(listing)
        assert "only when a key was pressed" in shown(listing)

        missing = await ask(slack, "notify remove 0badc0de")
        assert "There is no route" in shown(missing)
        removed = await ask(slack, f"notify remove {route.id}")
        assert "removed" in shown(removed)
        assert rt.storage.routes.list(TEAM) == []
        actions = [e.action for e in rt.storage.audit.entries(TEAM)]
        assert actions.count("notify.route.add") == 1
        assert actions.count("notify.route.remove") == 1


async def test_a_route_says_whether_notable_calls_fold_and_which_statuses_are_notable(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with feed_app(settings, slack, pbx) as (rt, _):
        maybe = await ask(slack, "notify add <#C0001|call-center> fold=maybe")
        assert "'fold=maybe' is neither on nor off" in shown(maybe)
        bad = await ask(slack, "notify add <#C0001|call-center> notable=b@d")
        assert "is not a call status" in shown(bad)
        assert rt.storage.routes.list(TEAM) == []

        added = await ask(slack, "notify add <#C0001|call-center> fold=OFF notable=Busy,failed")
        (route,) = rt.storage.routes.list(TEAM)
        assert not route.fold and route.notable == ("busy", "failed")
        assert "notable also when busy, failed" in shown(added)
        assert "notable calls as cards of their own" in shown(added)
        await ask(slack, "notify add <#C0001|call-center>")
        assert [r.fold for r in rt.storage.routes.list(TEAM)] == [False, True]  # on by default
        [entry, _second] = [
            e for e in rt.storage.audit.entries(TEAM) if e.action == "notify.route.add"
        ]
        assert entry.params["fold"] is False and entry.params["notable"] == ["busy", "failed"]


def puts_to(pbx: EmulatorServer, campaign: Campaign) -> list[dict[str, Any]]:
    return pbx.journal(method="PUT", path=f"/v3/campaign/{campaign.campaign_uuid}")


async def test_rotate_asks_first_then_moves_the_campaigns_on_the_old_url_in_one_request(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    async with feed_app(settings, slack, pbx) as (rt, base):
        old = callback_url(rt, base)
        target = await campaign_named(cc, CAMPAIGN)
        other = next(c for c in await all_campaigns(cc) if c.campaign_uuid != target.campaign_uuid)
        for campaign in (target, other):
            await cc.campaigns.set_fields(campaign.campaign_uuid, callback_url=old)
        pbx.clear_journal()
        prompt = await ask(slack, "notify rotate")
        assert "approval_confirm" in shown(prompt) and "Rotate the URL" in shown(prompt)
        assert target.campaign_name in shown(prompt) and other.campaign_name in shown(prompt)
        assert "notify rotate only" in shown(prompt)
        # Nothing has happened yet: the old URL still works, no campaign was touched.
        assert callback_url(rt, base) == old and pbx.journal(method="PUT") == []
        await slack.driver.block_action(
            user=SUPERVISOR, action_id="approval_confirm", ephemeral_ts=prompt["ts"]
        )
        card = await slack.wait_for_message(
            CALL_CENTER, lambda m: "New callback URL" in shown(m) and ": done" in m["text"]
        )
        new = callback_url(rt, base)
        assert new != old
        assert "Re-attached 2 of 2" in shown(card)
        assert old not in shown(card) and new not in shown(card)
        for campaign in (target, other):
            assert (await campaign_named(cc, campaign.campaign_name)).callback_url == new
            (put,) = puts_to(pbx, campaign)  # once each, with the campaign's whole body
            assert put["body"]["callback_url"] == new
            assert put["body"]["campaign_name"] == campaign.campaign_name
            assert put["body"]["type"] == campaign.type
        async with httpx.AsyncClient(trust_env=False) as http:
            assert (await http.post(old, json={"id": "x"})).status_code == 404
        entries = rt.storage.audit.entries(TEAM)
        outcomes = [e.outcome for e in entries if e.action == "notify.rotate"]
        assert outcomes == ["requested", "approved", "ok"]
        for entry in entries:
            assert old.rsplit("/", 1)[1] not in str(entry.params) + str(entry.detail)
            assert new.rsplit("/", 1)[1] not in str(entry.params) + str(entry.detail)
        reply = await ask(slack, "notify")
        assert new in shown(reply) and target.campaign_name in shown(reply)


async def test_rotate_only_leaves_the_campaigns_and_cancel_changes_nothing(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    async with feed_app(settings, slack, pbx) as (rt, base):
        old = callback_url(rt, base)
        target = await campaign_named(cc, CAMPAIGN)
        await cc.campaigns.set_fields(target.campaign_uuid, callback_url=old)
        prompt = await ask(slack, "notify rotate")
        await slack.driver.block_action(
            user=SUPERVISOR, action_id="approval_cancel", ephemeral_ts=prompt["ts"]
        )
        await slack.wait_for_ephemeral(SUPERVISOR, lambda m: "Cancelled" in shown(m))
        assert callback_url(rt, base) == old
        pbx.clear_journal()
        prompt = await ask(slack, "notify rotate only")
        assert "keep the old URL" in shown(prompt) and CAMPAIGN in shown(prompt)
        await slack.driver.block_action(
            user=SUPERVISOR, action_id="approval_confirm", ephemeral_ts=prompt["ts"]
        )
        card = await slack.wait_for_message(
            CALL_CENTER, lambda m: "New callback URL" in shown(m) and ": done" in m["text"]
        )
        assert callback_url(rt, base) != old
        assert "Still on the old URL" in shown(card) and CAMPAIGN in shown(card)
        assert (await campaign_named(cc, CAMPAIGN)).callback_url == old
        assert pbx.journal(method="PUT") == []


async def push_autocall(cc: CallCenter, campaign: Campaign, phone: str) -> str:
    result = await cc.autocall.push(campaign.campaign_uuid, phone, {"name": "Anh Minh"})
    return result.call_id


async def request_and_approve(slack: SlackStandIn, text: str) -> list[Any]:
    """Type the command as the supervisor, ask for approval, and let the manager (an admin
    here) approve the card twice at once, as a double click or two tabs would."""
    prompt = await ask(slack, text)
    assert "approval_confirm" in shown(prompt), shown(prompt)
    before = len(slack.messages(APPROVALS))
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="approval_confirm", ephemeral_ts=prompt["ts"]
    )

    def new_card() -> dict[str, Any] | None:
        cards = slack.messages(APPROVALS)
        return cards[-1] if len(cards) > before else None

    card = await slack.wait_for(new_card)
    assert "/callbacks/" not in shown(card)  # the card never shows the secret URL
    return list(
        await asyncio.gather(
            *(
                slack.driver.block_action(
                    user=MANAGER, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
                )
                for _ in range(2)
            )
        )
    )


async def test_an_attached_campaign_calls_back_and_cards_land_threaded_once(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    pbx.set_call_mode("immediate")
    async with feed_app(settings, slack, pbx) as (rt, base):
        virtual_pace(rt, slack)
        rt.storage.roles.set_role(TEAM, MANAGER, Role.ADMIN, granted_by=SUPERVISOR)
        rt.storage.workspaces.set_channels(TEAM, approvals=APPROVALS)
        target = await campaign_named(cc, CAMPAIGN)
        path = f"/v3/campaign/{target.campaign_uuid}"
        clicks = await request_and_approve(slack, f'notify attach "{CAMPAIGN}"')
        assert all(c.in_time for c in clicks)
        await slack.wait_for(lambda: pbx.journal(method="PUT", path=path))
        attached = await campaign_named(cc, CAMPAIGN)
        assert attached.callback_url == callback_url(rt, base)
        unchanged = attached.model_dump(exclude={"callback_url", "updated_at"})
        assert unchanged == target.model_dump(exclude={"callback_url", "updated_at"})
        token = callback_url(rt, base).rsplit("/", 1)[1]
        assert all(token not in str(e.params) for e in rt.storage.audit.entries(TEAM))
        assert all(token not in shown(m) for m in slack.messages(APPROVALS))

        await ask(slack, "notify add <#C0001|call-center>")
        first_id = await push_autocall(cc, attached, "0912345678")
        first = await slack.wait_for(lambda: card_with(slack, CALL_CENTER, first_id))
        assert CAMPAIGN in shown(first)
        assert "0912 *** 678" in mrkdwn(first)  # a new workspace masks customers' numbers
        second_id = await push_autocall(cc, attached, "0912345678")
        # One at a time, the channel is quiet: each record gets its card (records that
        # come faster than Slack takes messages are folded: test_call_feed_fold_e2e).
        await slack.wait_for(lambda: len(slack.thread(CALL_CENTER, first["ts"])) == 2)
        other_id = await push_autocall(cc, attached, "0987654321")
        await slack.wait_for(lambda: card_with(slack, CALL_CENTER, other_id))
        thread = slack.thread(CALL_CENTER, first["ts"])
        assert second_id in shown(thread[1])  # same number, same day: under the first card

        # The service delivers a record again: it is not posted again.

        def three_callbacks() -> list[dict[str, Any]] | None:
            found = pbx.callbacks()
            return found if len(found) == 3 else None

        sent = await slack.wait_for(three_callbacks)
        assert [c["status"] for c in sent] == [200, 200, 200]
        replay = next(c["body"] for c in sent if c["body"]["id"] == first_id)
        async with httpx.AsyncClient(trust_env=False) as http:
            again = await http.post(callback_url(rt, base), json=replay)
        assert again.json()["duplicate"] is True
        await rt.call_feed.drained()
        assert sorted(posted_record_ids(slack, CALL_CENTER)) == sorted(
            [first_id, second_id, other_id]
        )
        assert len(slack.messages(CALL_CENTER)) == 2  # two numbers: two top-level cards

        await request_and_approve(slack, f'notify detach "{CAMPAIGN}"')
        await slack.wait_for(lambda: len(pbx.journal(method="PUT", path=path)) == 2)
        assert (await campaign_named(cc, CAMPAIGN)).callback_url == ""
    assert len(pbx.journal(method="PUT", path=path)) == 2  # each approved once, run once


async def test_a_confirm_only_policy_attaches_at_one_click(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    async with feed_app(settings, slack, pbx) as (rt, base):
        rt.storage.policies.set(TEAM, "notify.attach", KindPolicy(Mode.CONFIRM))
        prompt = await ask(slack, f'notify attach "{CAMPAIGN}"')
        await slack.driver.block_action(
            user=SUPERVISOR, action_id="approval_confirm", ephemeral_ts=prompt["ts"]
        )
        await slack.wait_for(lambda: pbx.journal(method="PUT"))
        assert (await campaign_named(cc, CAMPAIGN)).callback_url == callback_url(rt, base)
        # (the confirmed prompt was deleted, so wait for the words rather than a count)
        await slack.driver.slash_command(
            user=SUPERVISOR, channel=CALL_CENTER, text=f'notify attach "{CAMPAIGN}"'
        )
        await slack.wait_for_ephemeral(
            SUPERVISOR, lambda m: "already sends its call records here" in shown(m)
        )


async def test_an_autocall_pushed_from_slack_gets_its_outcome_under_its_message(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    """The approval flow records ``{"call_id", "channel", "ts"}`` with the push's result;
    here that flow is played through storage, the call ending before the result is
    stored (immediate mode), as a fast service makes happen."""
    pbx.set_call_mode("immediate")
    async with feed_app(settings, slack, pbx) as (rt, base):
        virtual_pace(rt, slack)
        target = await campaign_named(cc, CAMPAIGN)
        await cc.campaigns.set_fields(target.campaign_uuid, callback_url=callback_url(rt, base))
        approvals = rt.storage.approvals
        request = approvals.create(
            TEAM,
            "autocall.push",
            {"campaign_uuid": target.campaign_uuid, "phone_number": "0912345678"},
            SUPERVISOR,
            policy=KindPolicy(Mode.CONFIRM),
        )
        approvals.decide(
            TEAM,
            request.id,
            decider=SUPERVISOR,
            decider_role=Role.ADMIN,
            approve=True,
            params_hash=request.params_hash,
        )
        approvals.claim_for_execution(TEAM, request.id)
        bot = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
        pushed = await bot.chat_postMessage(channel=APPROVALS, text="Autocall to 0912345678")
        call_id = await push_autocall(cc, target, "0912345678")
        await slack.wait_for(lambda: pbx.callbacks())  # the record is in before the result
        approvals.finish(
            TEAM,
            request.id,
            ok=True,
            result={"call_id": call_id, "channel": APPROVALS, "ts": str(pushed["ts"])},
        )
        root = str(pushed["ts"])

        def replied() -> list[dict[str, Any]] | None:
            thread = slack.thread(APPROVALS, root)
            return thread if len(thread) == 2 else None

        thread = await slack.wait_for(replied)
        assert "Outcome of this autocall" in shown(thread[1])
        assert call_id in shown(thread[1])
        assert slack.messages(CALL_CENTER) == []  # no route: the outcome only


async def test_an_autocall_pushed_through_slack_gets_its_outcome_in_the_cards_thread(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    """The whole way: ``/callops autocall`` (confirm-only policy), the call, the service's
    callback, and the outcome under the card that shows the push."""
    pbx.set_call_mode("immediate")
    async with feed_app(settings, slack, pbx) as (rt, base):
        virtual_pace(rt, slack)
        rt.storage.policies.set(TEAM, "autocall.push", KindPolicy(Mode.CONFIRM))
        target = await campaign_named(cc, CAMPAIGN)
        await cc.campaigns.set_fields(target.campaign_uuid, callback_url=callback_url(rt, base))
        rt.storage.routes.add(TEAM, channel=CALL_CENTER, created_by=SUPERVISOR)
        prompt = await ask(slack, f'autocall "{CAMPAIGN}" 0912345678 name=An')
        assert "approval_confirm" in shown(prompt), shown(prompt)
        await slack.driver.block_action(
            user=SUPERVISOR, action_id="approval_confirm", ephemeral_ts=prompt["ts"]
        )
        await slack.wait_for(lambda: pbx.callbacks())
        (push,) = [c for c in pbx.journal(method="POST") if c["path"] == "/v3/autocall/import"]
        (record,) = [c["body"] for c in pbx.callbacks()]

        def outcome() -> dict[str, Any] | None:
            for message in slack.messages(CALL_CENTER):
                for reply in slack.thread(CALL_CENTER, message["ts"])[1:]:
                    if "Outcome of this autocall" in shown(reply):
                        return message
            return None

        card = await slack.wait_for(outcome)
        assert record["id"] in shown(slack.thread(CALL_CENTER, card["ts"])[-1])
        assert card_with(slack, CALL_CENTER, record["id"]) is not None  # and the routed card
        assert push["status"] == 200
