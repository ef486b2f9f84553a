"""Buttons on digests and alerts: the full report behind a digest, and Snooze on an alert.

The campaign buttons of both reuse ``campaign_open_<n>`` (``bot.listeners.actions``).
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.payload import where
from bot.runtime import Runtime
from callcenter import errors
from commands.digests.alerts import SNOOZE_HOUR_ACTION, SNOOZE_TOMORROW_ACTION, snooze_until
from commands.digests.content import FULL_REPORT_ACTION, full_report, read_full_report_value
from commands.dispatch import service_failure
from commands.kernel.catalog import role_allows
from commands.kernel.reply import error, notice
from commands.kernel.text import code, escape
from storage import Outcome, Role

log = logging.getLogger(__name__)

SNOOZE = re.compile(f"^({SNOOZE_HOUR_ACTION}|{SNOOZE_TOMORROW_ACTION})$")


def _where(body: dict[str, Any]) -> tuple[str, str, str | None, str | None, bool]:
    """Team, user, channel, message ts, and whether the message is ephemeral."""
    team, user, channel = where(body)
    container = body.get("container") or {}
    ts = (body.get("message") or {}).get("ts") or container.get("message_ts")
    return (
        team,
        user,
        channel or container.get("channel_id"),
        ts,
        bool(container.get("is_ephemeral")),
    )


def register(app: AsyncApp, rt: Runtime) -> None:
    @app.action(FULL_REPORT_ACTION)
    async def post_full_report(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
    ) -> None:
        await ack()
        team, user, channel, ts, ephemeral = _where(body)
        digest_id, period = read_full_report_value(action["value"], rt.timezone(team))
        digest = rt.storage.digests.get(team, digest_id) if digest_id else None
        if digest is not None:  # its own clock, which may differ from the workspace's now
            period = read_full_report_value(action["value"], ZoneInfo(digest.timezone))[1]
        in_thread = channel is not None and ts is not None and not ephemeral
        if in_thread and not rt.storage.dedup.mark_event(team, f"digest-full:{channel}:{ts}"):
            await respond(**notice("The full report is already in this digest's thread.").payload())
            return
        cc = await rt.clients.get(team)
        if cc is None:
            await respond(**error("This workspace is not connected any more.").payload())
            return
        try:
            reply = await full_report(cc, period)
        except errors.CallCenterError as exc:
            await respond(**service_failure(exc).payload())
            return
        if not in_thread:
            reply.ephemeral = True
            await respond(**reply.payload())
            return
        payload = reply.payload()
        try:
            await client.chat_postMessage(
                channel=channel or "",
                thread_ts=ts,
                text=f"Full report, asked for by <@{user}>: " + payload["text"],
                blocks=payload["blocks"],
            )
        except SlackApiError as exc:
            log.warning("full report: %s", exc.response.get("error"))
            reply.ephemeral = True
            await respond(**reply.payload())

    @app.action(SNOOZE)
    async def snooze(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
    ) -> None:
        await ack()
        team, user, channel, ts, _ = _where(body)
        role = await rt.roles.role(client, team, user)
        if not role_allows(role, Role.OPERATOR):
            await respond(
                **error(
                    f"Snoozing an alert needs the operator role; you are {role}. "
                    "An admin can change that with /callops role."
                ).payload()
            )
            return
        alert = rt.storage.alerts.get(team, str(action.get("value") or ""))
        if alert is None:
            await respond(**error("That alert was removed.").payload())
            return
        kind = "1h" if action["action_id"] == SNOOZE_HOUR_ACTION else "tomorrow"
        tz = rt.timezone(team)
        until = snooze_until(kind, datetime.now(UTC), tz)
        rt.storage.alerts.snooze(team, alert.id, until.timestamp())
        rt.storage.audit.append(
            team,
            user,
            "alert.snooze",
            {"alert": alert.id, "until": until.isoformat(timespec="minutes")},
            outcome=Outcome.OK,
        )
        text = (
            f":zzz: <@{escape(user)}> snoozed alert {code(alert.id)} until "
            f"{escape(until.astimezone(tz).strftime('%a %d %b %H:%M'))} ({escape(tz.key)}). "
            "If it is still crossed then, it is told once more."
        )
        try:
            await client.chat_postMessage(
                channel=channel or alert.channel, thread_ts=ts, text=text, unfurl_links=False
            )
        except SlackApiError as exc:
            log.warning("snooze note: %s", exc.response.get("error"))
            await respond(**notice(text, emoji="").payload())
