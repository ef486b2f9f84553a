"""Driving approvals end to end: who has which role, the prompt, the card, the clicks.

Everything goes through the Slack stand-in (signed requests to the running app) and the
call-center emulator; assertions read what people would see and what reached the service.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bot.jobs import JobRunner, env_of
from bot.runtime import Runtime
from bot.server import serving
from bot.settings import Settings
from callcenter import CallCenter
from callcenter.models import Campaign
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from storage import Role, SecretBox, Storage
from tests.blocks import elements
from tests.bot.test_commands_e2e import shown
from tests.clocks import SteppedClock

__all__ = ["shown"]

JSON = dict[str, Any]


async def ask(slack: SlackStandIn, text: str, user: str = SUPERVISOR) -> JSON:
    """Type ``/callops <text>``; the reply is the first new message only ``user`` sees
    (prompts are deleted once confirmed, so counting messages would mislead)."""
    seen = {m["ts"] for m in slack.ephemerals(user)}
    delivery = await slack.driver.slash_command(user=user, channel=CALL_CENTER, text=text)
    assert delivery.in_time
    return await slack.wait_for(
        lambda: next((m for m in slack.ephemerals(user) if m["ts"] not in seen), None)
    )


def give_roles(rt: Runtime) -> None:
    """AGENT asks (operator), SUPERVISOR (Slack admin) and MANAGER (admin) approve."""
    rt.storage.roles.set_role(TEAM, AGENT, Role.OPERATOR)
    rt.storage.roles.set_role(TEAM, MANAGER, Role.ADMIN)


def use_approvals_channel(rt: Runtime) -> None:
    rt.storage.workspaces.set_channels(TEAM, approvals=APPROVALS)


def button_ids(message: JSON | None) -> list[str]:
    return [
        str(node.get("action_id")) for node in elements((message or {}).get("blocks", []), "button")
    ]


async def prompt_for(slack: SlackStandIn, text: str, user: str = AGENT) -> JSON:
    """Type the command; the reply must be the requester's prompt."""
    reply = await ask(slack, text, user=user)
    assert "approval_confirm" in button_ids(reply), shown(reply)
    return reply


async def confirm(slack: SlackStandIn, prompt: JSON, user: str = AGENT) -> None:
    delivery = await slack.driver.block_action(
        user=user, action_id="approval_confirm", ephemeral_ts=prompt["ts"]
    )
    assert delivery.in_time


async def card_in(slack: SlackStandIn, channel: str, needle: str) -> JSON:
    """The approval card (it has Approve) that mentions ``needle``."""
    return await slack.wait_for_message(
        channel, lambda m: "approval_approve" in button_ids(m) and needle in shown(m)
    )


async def card_now(
    slack: SlackStandIn, channel: str, ts: str, until: Callable[[JSON], bool]
) -> JSON:
    """The card as it is once ``until`` holds (it is updated in place)."""
    return await slack.wait_for(
        lambda: m if (m := slack.message(channel, ts)) is not None and until(m) else None
    )


def settled(message: JSON) -> bool:
    return any(
        word in message.get("text", "")
        for word in (": done", ": failed", ": denied", ": expired", ": cancelled")
    )


async def click_card(slack: SlackStandIn, card: JSON, action: str, user: str, channel: str) -> Any:
    return await slack.driver.block_action(
        user=user, action_id=action, channel=channel, ts=card["ts"]
    )


async def approved(slack: SlackStandIn, needle: str, user: str = SUPERVISOR) -> JSON:
    """Approve the card in the approvals channel that mentions ``needle``; the card once
    it has settled (done, failed...), for the test to say which it expected."""
    card = await card_in(slack, APPROVALS, needle)
    await click_card(slack, card, "approval_approve", user, APPROVALS)
    return await card_now(slack, APPROVALS, card["ts"], settled)


async def ephemeral_with(slack: SlackStandIn, user: str, needle: str) -> JSON:
    """What the app told ``user`` alone: an ephemeral message, or a DM where it could not
    post one (the person is not in the channel)."""
    return await slack.wait_for(
        lambda: next(
            (m for m in [*slack.ephemerals(user), *slack.dm(user)] if needle in shown(m)), None
        )
    )


def puts(pbx: EmulatorServer, path: str) -> list[JSON]:
    return [e for e in pbx.journal(method="PUT", path=path) if e["status"] == 200]


async def campaigns(pbx: EmulatorServer) -> list[Campaign]:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        return [c async for c in cc.campaigns.iterate()]


async def latest_view(slack: SlackStandIn, user: str, callback_id: str) -> JSON:
    """The newest view ``user`` has open with ``callback_id`` (waited for)."""
    return await slack.wait_for(
        lambda: next(
            (v for v in reversed(slack.views(user)) if v.get("callback_id") == callback_id), None
        )
    )


async def result_card(slack: SlackStandIn, needle: str) -> JSON:
    """The card of a confirmed action, posted where it was asked, once it has settled."""
    return await slack.wait_for_message(CALL_CENTER, lambda m: needle in shown(m) and settled(m))


async def stopped_campaign(pbx: EmulatorServer) -> Campaign:
    """A stopped manual campaign of the seed: one that an approved ``start`` starts."""
    return next(c for c in await campaigns(pbx) if c.status == "stop" and c.type == "manual")


async def campaign(pbx: EmulatorServer, uuid: str) -> Campaign:
    return next(c for c in await campaigns(pbx) if c.campaign_uuid == uuid)


async def autocall_campaign(pbx: EmulatorServer, template: str) -> Campaign:
    """A stopped autocall campaign whose voice template is ``template``."""
    return next(
        c
        for c in await campaigns(pbx)
        if c.type == "autocall" and c.template_name == template and c.status != "start"
    )


def audit_outcomes(rt: Runtime, action: str) -> list[str]:
    return [e.outcome for e in rt.storage.audit.entries(TEAM) if e.action == action]


@pytest.fixture
async def clocked(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[tuple[Runtime, SteppedClock]]:
    """The app with a storage clock the test moves (for expiry)."""
    clock = SteppedClock(1_800_000_000.0)
    box = SecretBox.from_settings(settings.secret_keys)
    storage = Storage.open(settings.callops_db, box, clock=clock)
    rt = Runtime.build(settings, storage)
    rt.storage.workspaces.connect(TEAM, pbx.base_url, pbx.api_key)
    rt.storage.calling_rules.set_hours(TEAM, (0, 0))  # calls at any hour: see tests/bot/conftest.py
    give_roles(rt)
    async with serving(rt, port=0, scheduler=False) as url:
        slack.connect_app(url + "/slack/events")
        yield rt, clock
    rt.storage.close()
    assert slack.invalid_sends() == []


async def sweep(rt: Runtime) -> int:
    """One run of the background sweep (what the 30 s task does)."""
    expired = await jobs(rt).run_once("approvals.expire")
    assert isinstance(expired, list)
    return len(expired)


def jobs(rt: Runtime, *, every: float | None = None) -> JobRunner:
    """The families' background jobs on ``rt``, as a serving process runs them."""
    return JobRunner(rt.registry, env_of(rt), every=every)


async def second_app(settings: Settings, slack: SlackStandIn) -> AsyncIterator[Runtime]:
    """Another process's worth of app on the same database (a restart)."""

    rt = Runtime.open(settings)
    async with serving(rt, port=0, scheduler=False) as url:
        slack.connect_app(url + "/slack/events")
        yield rt
    rt.storage.close()


__all__ += ["APPROVALS", "CALL_CENTER"]
