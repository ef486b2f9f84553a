"""What the service dials on its own, watched: ``rules channel``, ``rules enforce``, calls
the service placed against the calling rules, and the warning on leads going into an
advertising campaign that dials outside the hours.

Through the Slack stand-in against the emulator.  The rule watch is the rules family's job
where the scheduler runs, once a minute; the tests call that minute's work
(``RuleWatch.tick``, on the runtime's job ports) with the ``now`` they choose, on one
runtime or on two sharing one database, as two replicas would.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import select, update

from bot.jobs import env_of
from bot.runtime import Runtime
from bot.server import serving
from bot.settings import Settings
from callcenter import CallCenter
from callcenter.models import Campaign
from commands.kernel.resolve import all_campaigns
from commands.rules.enforce import RULES_REQUESTER
from commands.rules.watch import VIETNAM, placed_against_rules
from commands.rules.watch_jobs import POSTS_PER_PASS, RuleWatch
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, CALL_CENTER, TEAM, SlackStandIn
from storage.rule_watch import LEASE
from storage.schema import rule_watch_records
from tests.bot.approval_helpers import button_ids, give_roles
from tests.bot.feed_helpers import callback_url
from tests.bot.rule_helpers import hhmm, hours_opening_later, set_rule
from tests.bot.test_commands_e2e import ask, shown

RULES_CHANNEL = "<#C0001|call-center>"
TELESALE = "Telesale thẻ tín dụng HCM"
"""A running autodialer campaign of the seed: advertising by its type."""
REMINDERS = "Nhắc lịch hẹn HN"
"""A running autocall campaign of the seed (not OTP): advertising by its type too."""


def watch_of(rt: Runtime) -> RuleWatch:
    return RuleWatch(env_of(rt))


@pytest.fixture
async def cc(pbx: EmulatorServer) -> AsyncIterator[CallCenter]:
    async with CallCenter(pbx.base_url, pbx.api_key) as client:
        yield client


async def campaign_named(cc: CallCenter, name: str) -> Campaign:
    return next(c for c in await all_campaigns(cc) if c.campaign_name == name)


def campaign_puts(pbx: EmulatorServer) -> list[dict[str, Any]]:
    return [e for e in pbx.journal(method="PUT") if e["path"].startswith("/v3/campaign/")]


async def quiet(cc: CallCenter) -> None:
    """Pause the seed's running campaigns, so the only records are the test's own."""
    for campaign in await all_campaigns(cc):
        if campaign.status == "start":
            await cc.campaigns.set_status(campaign.campaign_uuid, "pause")


@asynccontextmanager
async def watch_app(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[tuple[Runtime, str]]:
    """``feed_app`` (its callback URL reaches it) without the scheduler's own minute:
    the tests run the watch's minute themselves, with the ``now`` they choose."""
    rt = Runtime.open(settings)
    rt.storage.workspaces.connect(TEAM, pbx.base_url, pbx.api_key)
    rt.storage.calling_rules.set_hours(TEAM, (0, 0))  # see tests/bot/conftest.py
    try:
        async with serving(rt, port=0, scheduler=False) as url:
            rt.settings.callops_public_url = url
            slack.connect_app(url + "/slack/events")
            yield rt, url
    finally:
        rt.storage.close()
    assert slack.invalid_sends() == [], "the app sent Block Kit that Slack would reject"


def posts_saying(slack: SlackStandIn, text: str) -> list[dict[str, Any]]:
    return [m for m in slack.messages(CALL_CENTER) if text in shown(m)]


async def test_rules_channel_is_set_by_admins_and_shown_by_rules(
    app: Runtime, slack: SlackStandIn
) -> None:
    give_roles(app)
    refused = await ask(slack, f"rules channel {RULES_CHANNEL}", user=AGENT)
    assert "needs the admin role" in shown(refused)
    reply = await ask(slack, "rules channel <#C0003|digests>")
    assert "I am not in #digests" in shown(reply)
    reply = await ask(slack, f"rules channel {RULES_CHANNEL}")
    assert "Rule events now go to <#C0001>" in shown(reply)
    rules = shown(await ask(slack, "rules", user=AGENT))
    assert "<#C0001>" in rules and "campaigns are not paused" in rules
    reply = await ask(slack, "rules enforce maybe")
    assert "Say on or off" in shown(reply)
    reply = await ask(slack, "rules enforce on")
    assert "Each pause and start is announced in <#C0001>" in shown(reply)
    assert "callops pauses advertising campaigns" in shown(await ask(slack, "rules"))
    actions = [e.action for e in app.storage.audit.entries(TEAM)]
    assert actions.count("rules.channel") == 1 and actions.count("rules.enforce") == 1
    assert app.storage.rule_watch.settings(TEAM).channel == CALL_CENTER


async def test_an_out_of_hours_call_reaches_the_rules_channel_once_and_the_digest(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    async with watch_app(settings, slack, pbx) as (rt, base):
        # Shown in New York, judged on Vietnam's clock: hours around New York's now are
        # half a day away from Vietnam's, so the call is outside them.
        await ask(slack, "settings timezone America/New_York")
        now = datetime.now(VIETNAM)
        new_york = now.astimezone(ZoneInfo("America/New_York"))
        later, after = new_york - timedelta(hours=1), new_york + timedelta(hours=1)
        await set_rule(slack, f"rules hours {hhmm(later)}-{hhmm(after)}")
        await ask(slack, f"rules channel {RULES_CHANNEL}")
        await quiet(cc)
        telesale = await campaign_named(cc, TELESALE)
        pbx.set_call_mode("immediate")
        placed = pbx.originate(
            direction="outbound",
            destination="0912345678",
            campaign_uuid=telesale.campaign_uuid,
            outcome="answered",
        )
        record = placed["cdr"]
        async with httpx.AsyncClient() as http:
            answer = await http.post(callback_url(rt, base), json=record)
            assert answer.status_code == 200
            # The quick pass (every few seconds) judges what callbacks brought.
            quick = await watch_of(rt).judge_noted()
            assert quick.posted == 1
            (post,) = [shown(p) for p in posts_saying(slack, "against the calling rules")]
            assert record["id"] in post
            # The same record again, by the listing (read by either of two replicas at
            # once) and by the callback once more: still one post.
            replica = Runtime.open(settings)
            try:
                moment = datetime.now(UTC)
                reports = await asyncio.gather(
                    watch_of(rt).tick(moment), watch_of(replica).tick(moment)
                )
            finally:
                await replica.close()
                replica.storage.close()
            again = await http.post(callback_url(rt, base), json=record)
            assert again.status_code == 200 and again.json().get("duplicate")
        second = await watch_of(rt).tick(datetime.now(UTC) + timedelta(minutes=1))
        posted = quick.posted + sum(r.posted for r in reports)
        summarized = sum(r.summarized for r in reports)
        assert second.posted == 0 and second.summarized == 0
        # The seed's campaigns dialed too before the test paused them (records of the
        # last minutes, as out of hours as this one): each is posted once as well, a few
        # one by one and the rest of a pass in one message.
        posts = posts_saying(slack, "The service placed a call against the calling rules")
        assert len(posts) == posted
        summaries = posts_saying(slack, "the service placed against the calling rules*")
        assert len(summaries) == (1 if summarized else 0)
        if summarized:
            assert f"*{summarized} more call" in shown(summaries[0])
        (post,) = [shown(p) for p in posts if record["id"] in shown(p)]
        assert TELESALE in post and "outside" in post and "Decree 91/2020/ND-CP" in post
        assert f"{hhmm(later)}–{hhmm(after)}" in post and "0912" in post
        hour = timedelta(hours=1)
        counted = await placed_against_rules(rt.storage, TEAM, now - hour, now + hour)
        total = posted + summarized
        assert counted["total"] == total and counted["hours"] == total
        # The digest of a period holding the call counts it on its rules line.
        await ask(slack, "digest add <#C0001|call-center> daily 08:00")
        (digest,) = rt.storage.digests.active()
        await rt.digests.post_now(TEAM, digest.id, at=datetime.now(UTC) + timedelta(days=1))
        digests = posts_saying(slack, f"Calls the service placed against the rules: {total}")
        assert len(digests) == 1


async def test_a_call_within_the_rules_posts_nothing_and_one_to_a_dnc_number_does(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    async with watch_app(settings, slack, pbx) as (rt, _):
        await ask(slack, f"rules channel {RULES_CHANNEL}")
        await set_rule(slack, "rules frequency 100")
        await ask(slack, "dnc add 0987654321")
        await quiet(cc)
        telesale = await campaign_named(cc, TELESALE)
        pbx.set_call_mode("immediate")
        for phone in ("0912345678", "0987654321"):
            pbx.originate(
                direction="outbound",
                destination=phone,
                campaign_uuid=telesale.campaign_uuid,
                outcome="busy",
            )
        report = await watch_of(rt).tick(datetime.now(UTC))
        assert report.listed >= 2
        posts = posts_saying(slack, "The service placed a call against the calling rules")
        assert len(posts) == 1
        assert "Do-not-call list" in shown(posts[0]) and "0987" in shown(posts[0])
        assert "Calling hours" not in shown(posts[0])


async def test_enforce_pauses_at_the_end_of_the_hours_and_starts_at_the_next_once(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    async with watch_app(settings, slack, pbx) as (rt, _):
        replica = Runtime.open(settings)  # a second process on the same database
        try:
            now = datetime.now(VIETNAM).replace(second=0, microsecond=0)
            start, end = now - timedelta(hours=1), now + timedelta(minutes=1)
            await set_rule(slack, f"rules hours {hhmm(start)}-{hhmm(end)}")
            await ask(slack, f"rules channel {RULES_CHANNEL}")
            await ask(slack, "rules enforce on")
            running = {
                c.campaign_uuid
                for c in await all_campaigns(cc)
                if c.status == "start" and c.campaign_name in (TELESALE, REMINDERS)
            }
            assert len(running) == 2
            inside = await watch_of(rt).tick(now)
            assert inside.switched == []
            closed = end + timedelta(minutes=1)
            reports = await asyncio.gather(
                watch_of(rt).tick(closed), watch_of(replica).tick(closed)
            )
            paused = [s for r in reports for s in r.switched]
            assert sorted(paused) == sorted(f"pause {uuid}" for uuid in running)
            statuses = {c.campaign_uuid: c.status for c in await all_campaigns(cc)}
            assert all(statuses[uuid] == "pause" for uuid in running)
            assert len(posts_saying(slack, "Paused *")) == 2
            assert len(campaign_puts(pbx)) == 2
            # Later in the same closed hours nothing is paused again.
            assert (await watch_of(replica).tick(closed + timedelta(minutes=5))).switched == []
            opened = start + timedelta(days=1, minutes=1)
            reports = await asyncio.gather(
                watch_of(rt).tick(opened), watch_of(replica).tick(opened)
            )
            started = [s for r in reports for s in r.switched]
            assert sorted(started) == sorted(f"start {uuid}" for uuid in running)
            statuses = {c.campaign_uuid: c.status for c in await all_campaigns(cc)}
            assert all(statuses[uuid] == "start" for uuid in running)
            assert len(posts_saying(slack, "Started *")) == 2
            assert len(campaign_puts(pbx)) == 4
            audited = [
                (e.action, e.user_id)
                for e in rt.storage.audit.entries(TEAM)
                if e.action in ("campaign.pause", "campaign.start")
            ]
            by_rules = [("campaign.pause", RULES_REQUESTER), ("campaign.start", RULES_REQUESTER)]
            assert sorted(audited) == sorted(by_rules * 2)
        finally:
            await replica.close()
            replica.storage.close()


async def test_enforce_leaves_alone_a_campaign_a_person_started_again(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    async with watch_app(settings, slack, pbx) as (rt, _):
        now = datetime.now(VIETNAM).replace(second=0, microsecond=0)
        start, end = now - timedelta(hours=1), now + timedelta(minutes=1)
        await set_rule(slack, f"rules hours {hhmm(start)}-{hhmm(end)}")
        await ask(slack, "rules enforce on")
        telesale = await campaign_named(cc, TELESALE)
        closed = end + timedelta(minutes=1)
        assert f"pause {telesale.campaign_uuid}" in (await watch_of(rt).tick(closed)).switched
        await cc.campaigns.set_status(telesale.campaign_uuid, "stop")  # a person's choice
        opened = start + timedelta(days=1, minutes=1)
        started = (await watch_of(rt).tick(opened)).switched
        assert f"start {telesale.campaign_uuid}" not in started
        assert len(started) == 1  # the other campaign it paused, left as it was
        stopped = await campaign_named(cc, TELESALE)
        assert stopped.status == "stop"
        assert rt.storage.rule_watch.paused(TEAM) == {}


async def test_a_lead_into_a_campaign_dialing_outside_the_hours_warns_with_the_fix(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    give_roles(app)
    later = await hours_opening_later(slack)
    reply = await ask(slack, f"lead {TELESALE} 0912345678 lead_name=An", user=AGENT)
    said = shown(reply)
    assert "is dialing now" in said and "outside the calling hours" in said
    assert f"Pause it until {hhmm(later)}" in said
    assert "rules_watch_pause" in button_ids(reply)
    # Not dialing now, its own hours (08:00–20:00) still reach outside 09:00–10:00.
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        await cc.campaigns.set_status((await campaign_named(cc, TELESALE)).campaign_uuid, "stop")
    await ask(slack, "rules hours 09:00-10:00")
    reply = await ask(slack, f"lead {TELESALE} 0912345679 lead_name=Binh", user=AGENT)
    assert "hours of its own that reach outside" in shown(reply)
    assert "the start brings them inside" in shown(reply)


async def test_an_upload_into_a_campaign_dialing_outside_the_hours_warns_and_pauses_it(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    give_roles(app)
    await hours_opening_later(slack)
    rows = ["phone_number,lead_name", "0912345678,An", "0356789012,Chi"]
    await slack.driver.file_share(
        user=AGENT, channel=CALL_CENTER, name="leads.csv", content="\n".join(rows).encode()
    )
    prompt = await ask(slack, f"leads upload {TELESALE}", user=AGENT)
    said = shown(prompt)
    assert "Upload *2 leads*" in said and "is dialing now" in said
    assert "approval_confirm" in button_ids(prompt) and "rules_watch_pause" in button_ids(prompt)
    # The fix is one click away: Pause the campaign is `pause` as typed, with its confirm.
    before = len(slack.ephemerals(AGENT))
    delivery = await slack.driver.block_action(
        user=AGENT, action_id="rules_watch_pause", ephemeral_ts=prompt["ts"]
    )
    assert delivery.in_time
    answer = await slack.wait_for(
        lambda: slack.ephemerals(AGENT)[before] if len(slack.ephemerals(AGENT)) > before else None
    )
    assert "Pause campaign" in shown(answer) and TELESALE in shown(answer)
    assert "approval_confirm" in button_ids(answer)


async def test_the_lead_form_warns_in_its_prompt_too(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    give_roles(app)
    later = await hours_opening_later(slack)
    await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text=f"lead {TELESALE}")
    form = await slack.wait_for(
        lambda: next((v for v in slack.views(AGENT) if v.get("callback_id") == "lead_form"), None)
    )
    before = len(slack.ephemerals(AGENT))
    await slack.driver.view_submission(form["id"], {"phone": "0356 789 012", "lead_name": "Chi"})
    prompt = await slack.wait_for(  # submitting the form was the confirm: it is asked
        lambda: next(
            (m for m in slack.ephemerals(AGENT)[before:] if "Asked for approval" in shown(m)),
            None,
        )
    )
    assert "is dialing now" in shown(prompt) and f"Pause it until {hhmm(later)}" in shown(prompt)


async def test_a_breach_posted_by_a_process_that_stopped_is_not_posted_again(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    async with watch_app(settings, slack, pbx) as (rt, base):
        await hours_opening_later(slack)
        await ask(slack, f"rules channel {RULES_CHANNEL}")
        telesale = await campaign_named(cc, TELESALE)
        pbx.set_call_mode("immediate")
        record = pbx.originate(
            direction="outbound", destination="0912345678", campaign_uuid=telesale.campaign_uuid
        )["cdr"]
        async with httpx.AsyncClient() as http:
            assert (await http.post(callback_url(rt, base), json=record)).status_code == 200
        assert (await watch_of(rt).judge_noted()).posted == 1
        (posted,) = posts_saying(slack, "against the calling rules")
        # As if it stopped between its post and its record: claimed long ago, not judged.
        rows = rule_watch_records.c
        rt.storage.db.write(
            lambda conn: conn.execute(
                update(rule_watch_records)
                .where(rows.record_id == record["id"])
                .values(state="new", posted_ts=None, claimed_at=rt.storage.clock() - LEASE - 1)
            )
        )
        assert (await watch_of(rt).judge_noted()).posted == 0
        assert len(posts_saying(slack, "against the calling rules")) == 1
        (row,) = rt.storage.db.all(
            select(rows.state, rows.posted_ts).where(rows.record_id == record["id"])
        )
        assert (row["state"], row["posted_ts"]) == ("breach", posted["ts"])


async def test_many_breaches_in_one_pass_are_said_together_after_a_few(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, cc: CallCenter
) -> None:
    async with watch_app(settings, slack, pbx) as (rt, _):
        now = datetime.now(VIETNAM)
        await hours_opening_later(slack)
        await ask(slack, f"rules channel {RULES_CHANNEL}")
        await quiet(cc)
        telesale = await campaign_named(cc, TELESALE)
        pbx.set_call_mode("immediate")
        for n in range(8):
            pbx.originate(
                direction="outbound",
                destination=f"091234500{n}",
                campaign_uuid=telesale.campaign_uuid,
                outcome="busy",
            )
        report = await watch_of(rt).tick(datetime.now(UTC))
        assert report.posted == POSTS_PER_PASS and report.summarized >= 8 - POSTS_PER_PASS
        singles = posts_saying(slack, "The service placed a call against the calling rules")
        (summary,) = posts_saying(slack, "the service placed against the calling rules*")
        assert len(singles) == POSTS_PER_PASS
        assert f"*{report.summarized} more calls" in shown(summary)
        assert TELESALE in shown(summary) and "calling hours" in shown(summary)
        hour = timedelta(hours=1)
        counted = await placed_against_rules(rt.storage, TEAM, now - hour, now + hour)
        assert counted["total"] == report.posted + report.summarized
