"""Helpers of the call-feed tests: the app served with its callback URL, records, and
reading the cards back out of the Slack stand-in."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from cryptography.fernet import Fernet

from bot.feed_metadata import FOLD_KIND, read_payload
from bot.runtime import Runtime
from bot.server import serving
from bot.settings import Settings
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn


def stand_in_settings(slack: SlackStandIn, db: Path, **more: Any) -> Settings:
    """Settings for an app that talks to the Slack stand-in with its bot token, keeps its
    database at ``db`` under a fresh key, and reads times in Vietnam's zone."""
    return Settings(
        _env_file=None,
        slack_bot_token=slack.bot_token(),
        slack_signing_secret=slack.signing_secret,
        slack_api_url=slack.api_url,
        callops_db=str(db),
        callops_secret_key=Fernet.generate_key().decode(),
        callops_timezone="Asia/Ho_Chi_Minh",
        **more,
    )


@asynccontextmanager
async def feed_app(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[tuple[Runtime, str]]:
    """The app on loopback, connected to the emulator, its public URL set to where it
    listens (so the callback URL it hands out reaches it); yields it and that URL."""
    rt = Runtime.open(settings)
    rt.storage.workspaces.connect(TEAM, pbx.base_url, pbx.api_key)
    rt.storage.calling_rules.set_hours(TEAM, (0, 0))  # calls at any hour: see tests/bot/conftest.py
    try:
        async with serving(rt, port=0) as url:
            rt.settings.callops_public_url = url
            slack.connect_app(url + "/slack/events")
            yield rt, url
    finally:
        rt.storage.close()
    assert slack.invalid_sends() == [], "the app sent Block Kit that Slack would reject"


@asynccontextmanager
async def routed_feed(
    settings: Settings,
    slack: SlackStandIn,
    pbx: EmulatorServer,
    *,
    paced: bool = False,
    virtual: bool = False,
) -> AsyncIterator[tuple[Runtime, str]]:
    """``feed_app`` with every call's card routed to #call-center, as most feed tests
    start. ``paced``: the stand-in holds the app to Slack's per-channel pace, updates
    included; ``virtual``: the feed waits on the stand-in's clock (``virtual_pace``)."""
    if paced:
        slack.channel_pace(True, updates=True)
    async with feed_app(settings, slack, pbx) as (rt, base):
        if virtual:
            virtual_pace(rt, slack)
        rt.storage.routes.add(TEAM, channel=CALL_CENTER, created_by=SUPERVISOR)
        yield rt, base


def virtual_pace(rt: Runtime, slack: SlackStandIn) -> None:
    """Pace the feed on the stand-in's clock: a second between two cards is a clock move,
    not a wait, and the stand-in's own pace check sees exactly that second."""

    async def sleep(seconds: float) -> None:
        slack.clock.advance(seconds)
        await asyncio.sleep(0)

    rt.call_feed.use_clock(slack.clock.now, sleep)


def callback_url(rt: Runtime, base: str) -> str:
    return f"{base}/callbacks/{rt.storage.callback_tokens.get_or_create(TEAM)}"


def make_record(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "direction": "outbound",
        "status": "answered",
        "cause": "NORMAL_CLEARING",
        "duration": 40,
        "billsec": 31,
        "from_number": "02871234567",
        "to_number": "0912345678",
        "time_started": "2026-11-22 02:00:00",
        "time_ended": "2026-11-22 02:00:40",
        "app": "",
        "campaign_uuid": "",
        "lead_uuid": "",
    }
    body.update(fields)
    return body


async def post(http: httpx.AsyncClient, url: str, body: Any) -> httpx.Response:
    if isinstance(body, bytes | str):
        return await http.post(url, content=body, headers={"Content-Type": "application/json"})
    return await http.post(url, json=body)


def card_counts(slack: SlackStandIn, channels: list[str]) -> Counter[str]:
    """How many times each record shows across ``channels``, as a card (in threads
    included: the calls of one customer on one day are a thread under the first card) or
    as a row of a folded message."""
    seen: Counter[str] = Counter()
    for channel in channels:
        for top in slack.messages(channel):
            thread = slack.thread(channel, top["ts"]) if top.get("reply_count") else [top]
            for message in thread:
                payload = read_payload(message)
                seen.update(payload.shown() if payload else ())
    return seen


def posted_record_ids(slack: SlackStandIn, channel: str | None = None) -> list[str]:
    """Record ids of the cards Slack accepted, and of the rows folded messages gained,
    in the order it accepted them."""
    entries = sorted(
        slack.journal("chat.postMessage") + slack.journal("chat.update"), key=lambda e: e.seq
    )
    found: list[str] = []
    folds: dict[str, list[str]] = {}
    for entry in entries:
        if not entry.ok or (channel is not None and entry.params.get("channel") != channel):
            continue
        metadata = entry.params.get("metadata")
        if isinstance(metadata, str):
            metadata = json.loads(metadata)
        payload = read_payload({"metadata": metadata}) if metadata else None
        if payload is not None and payload.kind == FOLD_KIND:
            ts = str(entry.params.get("ts") or entry.response.get("ts"))
            before = folds.get(ts, [])
            found.extend(r for r in payload.record_ids if r not in before)
            folds[ts] = list(payload.record_ids)
        elif entry.method == "chat.postMessage":
            found.append(card_record_id(entry.params.get("blocks")))
    return found


def card_record_id(blocks: Any) -> str:
    """The call id a card shows in its context line (``call `<id>` ``)."""
    text = blocks if isinstance(blocks, str) else json.dumps(blocks)
    marker = "call `"
    start = text.rindex(marker) + len(marker)
    return text[start : text.index("`", start)]


def status_429s(slack: SlackStandIn) -> int:
    return sum(1 for e in slack.journal("chat.postMessage") if e.status == 429)
