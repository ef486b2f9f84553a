"""What an operator sees, end to end: ``/metrics`` scraped from the served app after real
commands, clicks, callbacks and digests (counts checked against the emulator's and the
Slack stand-in's own journals and against the database), and the log lines of a served
command as JSON, one correlation id from the ack to the background work, no secret in
any of them."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot import logs
from bot.runtime import Runtime
from bot.settings import Settings
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from storage import ApprovalState, off_loop
from tests.bot.approval_helpers import give_roles, use_approvals_channel
from tests.bot.digest_helpers import FakeClock, app_with_clock
from tests.bot.feed_helpers import callback_url, feed_app, make_record, post, posted_record_ids
from tests.bot.test_approvals_e2e import requested_start
from tests.bot.test_commands_e2e import ask, shown

HCM = ZoneInfo("Asia/Ho_Chi_Minh")
UUID_SEGMENT = re.compile(r"/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(http: httpx.AsyncClient, base: str) -> Samples:
    response = await http.get(base + "/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    found: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(samples: Samples, metric: str, /, **labels: str) -> float:
    return samples.get((metric, tuple(sorted(labels.items()))), 0.0)


def total(samples: Samples, metric: str, /, **labels: str) -> float:
    """The sum over every series of ``metric`` whose labels include ``labels``."""
    want = set(labels.items())
    return sum(v for (n, lbls), v in samples.items() if n == metric and want <= set(lbls))


@pytest.fixture
async def served(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[tuple[Runtime, str]]:
    async with feed_app(settings, slack, pbx) as (rt, base):
        yield rt, base


async def test_metrics_follow_commands_clicks_callbacks_and_digests(
    served: tuple[Runtime, str], slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    rt, base = served
    give_roles(rt)
    use_approvals_channel(rt)
    async with httpx.AsyncClient() as http:
        before = await scrape(http, base)
        assert value(before, "callops_commands_total", command="campaigns", outcome="ok") == 0

        # A click and a pending approval: an agent asks to start a campaign by its id.
        target, _card = await requested_start(rt, slack, pbx)
        middle = await scrape(http, base)
        pbx.clear_journal()  # from here on, every request the emulator sees is the app's

        # Commands: one that works, one refused (an agent may not see the callback URL).
        reply = await ask(slack, "campaigns")
        assert "campaigns" in shown(reply)
        refused = await ask(slack, "notify", user=AGENT)
        assert "needs the admin role" in shown(refused)
        # A digest posted now, by hand.
        added = await ask(slack, "digest add #call-center daily 08:00 sections=totals")
        digest_id = shown(added).split("Digest `", 1)[1].split("`", 1)[0]
        ran = await ask(slack, f"digest run {digest_id}")
        assert "Posted" in shown(ran) or "posted" in shown(ran), shown(ran)

        after = await scrape(http, base)

    assert value(after, "callops_commands_total", command="campaigns", outcome="ok") == 1
    assert value(after, "callops_commands_total", command="notify", outcome="error") == 1
    assert value(after, "callops_commands_total", command="start", outcome="ok") == 1
    assert value(after, "callops_commands_total", command="digest run", outcome="ok") == 1
    assert (
        value(
            after,
            "callops_interactions_total",
            kind="click",
            name="approval_confirm",
            outcome="ok",
        )
        == 1
    )
    # Every answer on /slack/events was timed: five commands typed, one click.
    assert value(after, "callops_ack_seconds_count", kind="command") == 5
    assert value(after, "callops_ack_seconds_count", kind="interaction") == 1
    assert value(after, "callops_ack_seconds_bucket", kind="command", le="+Inf") == 5

    # Call-center requests by route template, as many as the emulator answered.
    assert not any(target.campaign_uuid in str(labels) for (_, labels) in after)
    answered = pbx.journal()
    assert any(e["path"] == "/v3/campaign" for e in answered)
    by_endpoint: dict[tuple[str, str], int] = {}
    for entry in answered:
        key = (entry["method"], UUID_SEGMENT.sub("/{id}", entry["path"]))
        by_endpoint[key] = by_endpoint.get(key, 0) + 1
    for (method, endpoint), count in by_endpoint.items():
        grew = total(
            after, "callops_callcenter_requests_total", method=method, endpoint=endpoint
        ) - total(middle, "callops_callcenter_requests_total", method=method, endpoint=endpoint)
        assert grew == count, (method, endpoint)
    assert total(after, "callops_callcenter_requests_total") - total(
        middle, "callops_callcenter_requests_total"
    ) == len(answered)
    assert total(after, "callops_callcenter_request_seconds_count") == total(
        after, "callops_callcenter_requests_total"
    )

    # Slack calls: the digest's and the approval card's posts, as the stand-in saw them.
    posts = len(slack.journal("chat.postMessage"))
    assert posts >= 2
    assert total(after, "callops_slack_api_calls_total", method="chat.postMessage") == posts
    assert value(after, "callops_digests_total", trigger="manual", outcome="posted") == 1

    # Approvals by state: what the database holds.
    counts = rt.storage.approvals.count_by_state()
    assert counts[ApprovalState.PENDING] == 1
    for state, count in counts.items():
        assert value(after, "callops_approvals", state=str(state)) == count


async def test_callback_queue_gauges_read_the_database(
    served: tuple[Runtime, str], slack: SlackStandIn
) -> None:
    rt, base = served
    rt.storage.routes.add(TEAM, channel=CALL_CENTER, created_by=SUPERVISOR)
    await rt.call_feed.stop()  # nobody drains the queue: what waits, waits
    records = [make_record() for _ in range(3)]
    async with httpx.AsyncClient() as http:
        for record in records:
            assert (await post(http, callback_url(rt, base), record)).status_code == 200
        waiting = await scrape(http, base)
        assert rt.storage.call_feed.pending() == 3
        assert value(waiting, "callops_callback_queue_depth") == 3
        assert value(waiting, "callops_callback_queue_oldest_age_seconds") >= 0

        rt.call_feed.start()
        await slack.wait_for(lambda: len(posted_record_ids(slack)) == 3 or None)
        await rt.call_feed.drained()
        drained = await scrape(http, base)
    assert rt.storage.call_feed.pending() == 0
    assert value(drained, "callops_callback_queue_depth") == 0
    assert value(drained, "callops_callback_queue_oldest_age_seconds") == 0
    # the three records waited together, so they went out in one folded message
    assert (
        value(drained, "callops_slack_api_calls_total", method="chat.postMessage", outcome="ok")
        == 1
    )


async def test_slack_429s_are_counted(served: tuple[Runtime, str], slack: SlackStandIn) -> None:
    rt, base = served
    rt.storage.routes.add(TEAM, channel=CALL_CENTER, created_by=SUPERVISOR)
    slack.ratelimit("chat.postMessage", times=2, retry_after=0)
    async with httpx.AsyncClient() as http:
        assert (await post(http, callback_url(rt, base), make_record())).status_code == 200
        await slack.wait_for(lambda: posted_record_ids(slack) or None)
        samples = await scrape(http, base)
    refused = sum(1 for e in slack.journal("chat.postMessage") if e.status == 429)
    assert refused == 2
    assert value(samples, "callops_slack_api_ratelimited_total", method="chat.postMessage") == 2
    assert (
        value(
            samples,
            "callops_slack_api_calls_total",
            method="chat.postMessage",
            outcome="ratelimited",
        )
        == 2
    )


# --- log lines --------------------------------------------------------------------------

APP_LOGGERS = ("bot", "commands", "callcenter", "storage", "slack_bolt", "slack_sdk")


@contextmanager
def captured(fmt: logs.LogFormat, level: int = logging.DEBUG) -> Iterator[io.StringIO]:
    """The process's log lines in ``fmt`` for the block, as ``callops serve`` writes them."""
    stream = io.StringIO()
    handler = logs.handler(stream, fmt)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(level)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


def app_lines(stream: io.StringIO) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    return [line for line in lines if str(line["logger"]).startswith(APP_LOGGERS)]


async def test_a_served_command_logs_json_with_one_correlation_id(
    served: tuple[Runtime, str], slack: SlackStandIn
) -> None:
    with captured("json") as stream:
        reply = await ask(slack, "campaigns")
        assert "campaigns" in shown(reply)
        await slack.wait_for(lambda: "/callops campaigns: ok" in stream.getvalue() or None)
    for raw in stream.getvalue().splitlines():
        json.loads(raw)  # every line, the stand-ins' included, is one JSON object
    lines = app_lines(stream)
    mine = [line for line in lines if line["command"] == "campaigns"]
    assert mine and all(line["team"] == TEAM for line in mine)
    assert len({line["correlation_id"] for line in mine}) == 1
    loggers = {line["logger"] for line in mine}
    assert "bot.metrics" in loggers  # the ack, answered by the request's own task
    assert "bot.listeners.commands" in loggers  # the command, run after the ack
    done = next(line for line in mine if line["message"] == "/callops campaigns: ok")
    assert {"time", "level", "logger", "message"} <= done.keys()
    # Nothing else of the app ran meanwhile under that id.
    same = [line for line in lines if line["correlation_id"] == done["correlation_id"]]
    assert [line for line in same if line["command"] != "campaigns"] == []


async def test_no_secret_reaches_a_log_line(
    served: tuple[Runtime, str], slack: SlackStandIn, pbx: EmulatorServer, settings: Settings
) -> None:
    rt, base = served
    rt.storage.routes.add(TEAM, channel=CALL_CENTER, created_by=SUPERVISOR)
    formats: tuple[logs.LogFormat, ...] = ("json", "text")
    for fmt in formats:
        with captured(fmt) as stream:
            reply = await ask(slack, "campaigns")
            assert "campaigns" in shown(reply)
            async with httpx.AsyncClient() as http:
                await post(http, callback_url(rt, base), make_record())
            await slack.wait_for(lambda: posted_record_ids(slack) or None)
            # A line that would carry secrets if nothing stood in its way.
            logging.getLogger("bot.test").warning(
                "connecting with %s and %s to postgresql://callops:hunter2-pw@db/callops",
                pbx.api_key,
                slack.bot_token(),
            )
        text = stream.getvalue()
        assert "/callops campaigns: ok" in text
        secrets = [
            slack.bot_token(),
            slack.signing_secret,
            pbx.api_key,
            "hunter2-pw",
            *settings.secret_keys,
        ]
        for secret in secrets:
            assert secret not in text, f"a secret reached the {fmt} log"
        assert logs.REDACTED in text


async def test_scheduled_digests_are_counted_posted_and_failed(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    clock = FakeClock(datetime.now(UTC) - timedelta(days=1))
    async with app_with_clock(settings, slack, pbx, clock) as rt:
        await ask(slack, "digest add #call-center hourly sections=totals")
        noon = datetime.now(HCM).replace(hour=12, minute=0, second=0, microsecond=0)
        noon += timedelta(days=2)
        assert (await rt.scheduler.run_due(noon + timedelta(seconds=5))).posted == 1
        slack.set_bot_member(CALL_CENTER, False)  # someone removed the bot from the channel
        assert (await rt.scheduler.run_due(noon + timedelta(hours=1, seconds=5))).failed == 1
        page = (await off_loop(rt.metrics.render)).decode()
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(page)
        for s in family.samples
    }
    assert value(samples, "callops_digests_total", trigger="scheduled", outcome="posted") == 1
    assert value(samples, "callops_digests_total", trigger="scheduled", outcome="failed") == 1
    refused = [e for e in slack.journal("chat.postMessage") if not e.ok]
    assert refused
    assert value(
        samples, "callops_slack_api_calls_total", method="chat.postMessage", outcome="error"
    ) == len(refused)
