"""Customers' numbers stay where they belong (Law 91/2025/QH15), end to end through the
Slack stand-in against the emulator, with a new workspace's defaults: every message and
file the app posts shows customers' numbers masked while the company's hotline stays
whole, Show number reveals a number to an operator alone (not to a viewer) and is
audited, and ``privacy find`` lists the messages that show a number."""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from bot.runtime import Runtime
from bot.settings import Settings
from callcenter.models import Campaign
from commands.privacy.reveal import REVEAL_ACTION, SHOW_NUMBER_BUTTON
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from storage import Role
from tests.bot.approval_helpers import (
    approved,
    ask,
    button_ids,
    confirm,
    ephemeral_with,
    give_roles,
    jobs,
    prompt_for,
    shown,
    use_approvals_channel,
)
from tests.bot.feed_helpers import callback_url, make_record, post, routed_feed
from tests.bot.test_digests_e2e import add_digest
from tests.bot.test_forged_values_e2e import forged_click
from tests.bot.test_lead_actions_e2e import a_list
from tests.bot.test_observability_e2e import captured

CUSTOMER = "0912345678"
HOTLINE = "02871234567"
VIEWER = "U0009"
SECOND = "0987654321"
THIRD = "0356789012"
NAME = "Trần Thị Lan"
"""The customer's name, which no log line may hold either."""


def full_forms(phone: str) -> list[str]:
    """Every way a channel could show the whole number."""
    national = phone
    return [
        national,
        f"{national[:4]} {national[4:7]} {national[7:]}",
        "84" + national[1:],
        "+84 " + national[1:],
    ]


def everything_posted(slack: SlackStandIn) -> list[str]:
    """The text of every message in every channel of the stand-in (threads included; a
    direct message to whoever asked may show a number whole), and of every file the app
    uploaded into a channel."""
    texts: list[str] = []
    state = slack.core.state
    channels = {c.id for c in list(state.channels.values()) if not c.is_im}
    for channel in channels:
        for message in slack.messages(channel):
            texts.append(shown(message) + repr(message.get("blocks")))
            for reply in slack.thread(channel, message["ts"]):
                texts.append(shown(reply) + repr(reply.get("blocks")))
    bot = slack.team().bot_user_id
    for stored in list(state.files.values()):
        if stored.user_id != bot or not channels & set(stored.shares):
            continue
        texts.append((stored.content or b"").decode("utf-8", "replace"))
    return texts


def leaks(slack: SlackStandIn, phone: str) -> list[str]:
    needles = full_forms(phone)
    found = []
    for t in everything_posted(slack):
        for n in needles:
            if n in t:
                i = t.index(n)
                found.append(t[max(0, i - 150) : i + 50])
    return found


async def privacy_chores(rt: Runtime) -> None:
    """The privacy family's once-a-minute jobs, as the scheduler's process runs them:
    the masking notice, then the worker."""
    for name in ("privacy.notice", "privacy.work"):
        await jobs(rt).run_once(name)


async def wait_for_card(slack: SlackStandIn, needle: str) -> dict[str, Any]:
    return await slack.wait_for_message(CALL_CENTER, lambda m: needle in shown(m))


async def test_a_new_workspace_masks_customers_everywhere_and_reveals_to_whoever_may_see(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    slack.add_user(TEAM, "vy", id=VIEWER, real_name="Vy Viewer")
    with captured("text", logging.DEBUG) as stream:
        await _tour(settings, slack, pbx, greeting)
    lines = stream.getvalue().splitlines()
    assert any("/callops privacy find" in line for line in lines)  # the run was logged
    needles = [
        *(f for phone in (CUSTOMER, SECOND, THIRD) for f in [*full_forms(phone), phone[1:]]),
        NAME,
    ]
    leaked = [(n, line[:160]) for line in lines for n in needles if n in line]
    assert leaked == [], "\n".join(f"{n}: {line}" for n, line in leaked)


async def _tour(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    async with routed_feed(settings, slack, pbx) as (rt, base):
        give_roles(rt)
        use_approvals_channel(rt)
        rt.storage.calling_rules.set_frequency(TEAM, 1000)
        workspace = rt.storage.workspaces.require(TEAM)
        assert workspace.mask_phones, "a new workspace starts with customers' numbers masked"

        # An autocall asked for, approved, done: the card and its result line are masked.
        prompt = await prompt_for(
            slack, f"autocall {greeting.campaign_uuid} {CUSTOMER} name={NAME}"
        )
        assert "0912 345 678" in shown(prompt)  # the operator who asked reads it whole
        await confirm(slack, prompt)
        card = await approved(slack, "0912 *** 678")
        assert ": done" in card["text"], shown(card)
        assert "0912 *** 678" in shown(card)

        # A call record of the customer's: the card masks them, never the hotline.
        async with httpx.AsyncClient() as http:
            record = make_record(from_number=HOTLINE, to_number=CUSTOMER)
            assert (await post(http, callback_url(rt, base), record)).status_code == 200
        rt.call_feed.start()
        await rt.call_feed.drained()
        call_card = await wait_for_card(slack, "0912 *** 678")
        assert "028 7123 4567" in shown(call_card), shown(call_card)
        assert SHOW_NUMBER_BUTTON in button_ids(call_card)

        # A burst of records folds into one message: every row masked.
        await rt.call_feed.stop()
        async with httpx.AsyncClient() as http:
            for phone in (SECOND, THIRD, CUSTOMER):
                record = make_record(from_number=HOTLINE, to_number=phone)
                assert (await post(http, callback_url(rt, base), record)).status_code == 200
        rt.call_feed.start()
        await rt.call_feed.drained()
        # A lead added after approval: its card masks the number, not the lead's name field.
        lead = await prompt_for(slack, f"lead {a_list(pbx)} {SECOND} lead_name={NAME}")
        await confirm(slack, lead)
        added = await approved(slack, "0987 *** 321")
        assert ": done" in added["text"], shown(added)
        # An upload with bad rows: the rows to fix go to the uploader alone, and the file
        # is noted with its numbers, so it can be found and erased.
        rows = f"phone_number,lead_name\n{THIRD},An\n{THIRD},Again\n12345,Short\n"
        await slack.driver.file_share(
            user=AGENT, channel=CALL_CENTER, name="tour.csv", content=rows.encode()
        )
        upload = await prompt_for(slack, f"leads upload {a_list(pbx)}")
        assert "to fix in a direct message" in shown(upload)
        fix = await slack.wait_for(
            lambda: next((m for m in slack.dm(AGENT) if m.get("files")), None)
        )
        (fix_file,) = [f["id"] for f in fix["files"]]
        assert fix_file in [p.file_id for p in rt.storage.privacy_posts.showing(TEAM, THIRD)]

        # A digest of the day, posted to the channel.
        digest_id = await add_digest(slack, "<#C0001|call-center> daily 08:00")
        assert "posted in" in shown(await ask(slack, f"digest run {digest_id}"))

        for phone in (CUSTOMER, SECOND, THIRD):
            assert leaks(slack, phone) == [], phone
        assert "028 7123 4567" in "".join(everything_posted(slack))  # the hotline stays whole

        # Show number: the operator reads it whole, alone; a viewer reads it masked.
        await slack.driver.block_action(
            user=AGENT, action_id=SHOW_NUMBER_BUTTON, channel=CALL_CENTER, ts=call_card["ts"]
        )
        revealed = await ephemeral_with(slack, AGENT, "0912 345 678")
        assert "for you alone" in shown(revealed)
        await slack.driver.block_action(
            user=VIEWER, action_id=SHOW_NUMBER_BUTTON, channel=CALL_CENTER, ts=call_card["ts"]
        )
        masked = await ephemeral_with(slack, VIEWER, "operators and admins")
        assert "0912 *** 678" in shown(masked) and "0912 345 678" not in shown(masked)
        reveals = [e for e in rt.storage.audit.entries(TEAM) if e.action == REVEAL_ACTION]
        assert [(e.user_id, e.params["full"]) for e in reveals] == [(AGENT, True), (VIEWER, False)]
        phone_hash = rt.storage.privacy_posts.phone_hash(CUSTOMER)
        assert all(e.params["phone_hash"] == phone_hash for e in reveals)
        assert all(CUSTOMER not in repr(e.params) for e in reveals)
        assert leaks(slack, CUSTOMER) == []

        # privacy find: the approval card and the call card, with their permalinks.
        found = await ask(slack, f"privacy find {CUSTOMER}", user=MANAGER)
        text = shown(found)
        assert "requests and approvals" in text and "the audit log" in text, text
        links = re.findall(r"https://acme-callcenter\.slack\.com/archives/(C\w+)/p(\d+)", text)
        posted = {(c, ts.replace(".", "")) for c, ts in [(CALL_CENTER, call_card["ts"])]}
        assert posted <= set(links), text
        assert any(channel == APPROVALS for channel, _ in links), text
        refused = await ask(slack, f"privacy find {CUSTOMER}", user=AGENT)
        assert "admin" in shown(refused) and "0912" not in shown(refused)


@pytest.mark.usefixtures("approvals")
async def test_a_forged_show_number_value_is_out_of_date(app: Runtime, slack: SlackStandIn) -> None:
    for forged in ('{"ref":"' + CUSTOMER + '000"}', "not json", '{"ref":"a b"}', CUSTOMER):
        answer = await forged_click(slack, SHOW_NUMBER_BUTTON, forged)
        assert "out of date" in shown(answer), shown(answer)
    assert not [e for e in app.storage.audit.entries(TEAM) if e.action == REVEAL_ACTION]


async def test_a_workspace_from_before_keeps_its_setting_and_its_admins_are_told_once(
    app: Runtime, slack: SlackStandIn
) -> None:
    # The admins first: the app's own run of the job may come at any moment.
    app.storage.roles.set_role(TEAM, MANAGER, Role.ADMIN)
    app.storage.workspaces.set_mask_phones(TEAM, False)  # as a workspace made before
    await privacy_chores(app)
    await privacy_chores(app)

    def told_to(admin: str) -> list[dict[str, Any]]:
        return [m for m in slack.dm(admin) if "settings mask-phones on" in shown(m)]

    # Whichever run opened the notice may still be sending it.
    await slack.wait_for(lambda: all(told_to(a) for a in (SUPERVISOR, MANAGER)) or None)
    for admin in (SUPERVISOR, MANAGER):
        told = told_to(admin)
        assert len(told) == 1, [shown(m) for m in slack.dm(admin)]
        assert "Law 91/2025/QH15" in shown(told[0])
    assert not [m for m in slack.dm(AGENT) if "mask-phones" in shown(m)]
    assert not app.storage.workspaces.require(TEAM).mask_phones  # its setting stays


async def test_an_admin_who_chose_is_not_told(app: Runtime, slack: SlackStandIn) -> None:
    reply = await ask(slack, "settings mask-phones off")
    assert "in full" in shown(reply)
    await privacy_chores(app)
    assert not [m for m in slack.dm(SUPERVISOR) if "mask-phones on" in shown(m)]


async def test_erase_after_approval_rewrites_the_posts_deletes_the_files_and_still_refuses_calls(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    async with routed_feed(settings, slack, pbx) as (rt, base):
        give_roles(rt)
        use_approvals_channel(rt)
        rt.storage.calling_rules.set_frequency(TEAM, 1000)
        prompt = await prompt_for(
            slack, f"autocall {greeting.campaign_uuid} {CUSTOMER} name={NAME}"
        )
        await confirm(slack, prompt)
        pushed = await approved(slack, "0912 *** 678")
        async with httpx.AsyncClient() as http:
            record = make_record(from_number=HOTLINE, to_number=CUSTOMER)
            assert (await post(http, callback_url(rt, base), record)).status_code == 200
        rt.call_feed.start()
        await rt.call_feed.drained()
        call_card = await wait_for_card(slack, "0912 *** 678")
        # The customer asked what callops holds: the answer is a CSV, by DM, with the number.
        access = await ask(slack, f"privacy request add {CUSTOMER} access", user=MANAGER)
        assert "recorded" in shown(access), shown(access)
        answer = await slack.wait_for(
            lambda: next((m for m in slack.dm(MANAGER) if m.get("files")), None)
        )
        (file_id,) = [f["id"] for f in answer["files"]]
        _stored, content = slack.file(file_id)
        assert content is not None and CUSTOMER.encode() in content
        # They opted out, then asked to be erased.
        await ask(slack, f"dnc add {CUSTOMER}", user=MANAGER)

        asked = await prompt_for(slack, f"privacy erase {CUSTOMER}", user=MANAGER)
        assert "cannot be undone" in shown(asked) and "0912 345 678" not in shown(asked)
        await confirm(slack, asked, user=MANAGER)
        done = await approved(slack, "Erase everything", user=SUPERVISOR)
        assert ": done" in done["text"], shown(done)
        (request,) = [
            r for r in rt.storage.privacy_requests.listing(TEAM, since=0) if r.kind == "erase"
        ]
        for _ in range(5):
            await privacy_chores(rt)
            if rt.storage.privacy_requests.get(TEAM, request.id).state == "done":  # type: ignore[union-attr]
                break

        # Every message that showed the number is rewritten; the file is gone.
        for channel, ts in ((CALL_CENTER, call_card["ts"]), (APPROVALS, pushed["ts"])):
            message = slack.message(channel, ts)
            assert message is not None
            assert "0912" not in shown(message) and NAME not in shown(message), shown(message)
            assert "at the customer's request" in shown(message)
        assert slack.core.state.file(file_id) is None
        assert leaks(slack, CUSTOMER) == []
        report = await slack.wait_for(
            lambda: next((m for m in slack.dm(MANAGER) if "Erasure" in shown(m)), None)
        )
        text = shown(report)
        assert "rewritten without the number" in text and "deleted" in text, text
        assert "the company's opt-out list: 1 row, kept only as a keyed hash" in text, text
        assert "the audit log" in text and "cannot be changed" in text, text
        assert not [r for r in rt.storage.call_lists.on_optout(TEAM, ["0912000000"])], (
            "only the erased number matches its hash"
        )

        # A later autocall to the number is still refused by the opt-out list.
        again = await ask(
            slack, f"autocall {greeting.campaign_uuid} {CUSTOMER} name=An", user=AGENT
        )
        assert "opt-out list" in shown(again), shown(again)
        assert "approval_confirm" not in button_ids(again)
        # And privacy find says where it stood, as hashes and rewritten messages.
        found = shown(await ask(slack, f"privacy find {CUSTOMER}", user=MANAGER))
        assert "(as a keyed hash)" in found and "rewritten without it" in found, found


async def test_a_retention_of_0_days_rewrites_an_old_card(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with routed_feed(settings, slack, pbx) as (rt, base):
        async with httpx.AsyncClient() as http:
            record = make_record(from_number=HOTLINE, to_number=CUSTOMER)
            assert (await post(http, callback_url(rt, base), record)).status_code == 200
        rt.call_feed.start()
        await rt.call_feed.drained()
        card = await wait_for_card(slack, "0912 *** 678")
        bad = await ask(slack, "settings retention soon")
        assert "is not a number of days" in shown(bad)
        assert rt.storage.workspaces.require(TEAM).retention_days == 90  # the default, unchanged
        changed = await ask(slack, "settings retention 0")
        assert "0 days" in shown(changed), shown(changed)
        await privacy_chores(rt)
        aged = slack.message(CALL_CENTER, card["ts"])
        assert aged is not None and "0912" not in shown(aged)
        assert "older than the workspace keeps customers' data" in shown(aged)
        assert "028 7123 4567" not in shown(aged)  # the whole card gives way to the note
        assert rt.storage.privacy_posts.numbers_of(TEAM, _ref_of(card)) == []


def _ref_of(message: dict[str, Any]) -> str:
    for block in message.get("blocks") or []:
        for element in block.get("elements") or []:
            if element.get("action_id") == SHOW_NUMBER_BUTTON:
                return str(json.loads(element["value"])["ref"])
    raise AssertionError("no Show number button")


async def test_requests_have_clocks_and_admins_are_reminded_before_they_are_due(
    app: Runtime, slack: SlackStandIn
) -> None:
    use_approvals_channel(app)
    bad = await ask(slack, f"privacy request add {CUSTOMER} erase received=31/02/2026")
    assert "is not a day" in shown(bad)
    nothing = await ask(slack, f"privacy request add {CUSTOMER} forget")
    assert "access or erase" in shown(nothing)
    assert app.storage.privacy_requests.listing(TEAM, since=0) == []

    received = (datetime.now(UTC) - timedelta(days=14)).strftime("%d/%m/%Y")
    added = await ask(slack, f"privacy request add {CUSTOMER} erase received={received}")
    assert "recorded" in shown(added) and "privacy erase" in shown(added), shown(added)
    listing = shown(await ask(slack, "privacy requests"))
    assert "erasure" in listing and "received" in listing and "due" in listing, listing
    assert "day left" in listing or "days left" in listing, listing
    assert "0912" not in listing  # the listing names no customer
    overview = shown(await ask(slack, "privacy"))
    assert "1 open request" in overview and "90 days" in overview, overview
    assert "SQLite" in overview and "127.0.0.1" in overview, overview

    await privacy_chores(app)
    await privacy_chores(app)
    reminders = [m for m in slack.messages(APPROVALS) if "is due" in shown(m)]
    assert len(reminders) == 1, [shown(m) for m in slack.messages(APPROVALS)]
    assert "0912" not in shown(reminders[0])
