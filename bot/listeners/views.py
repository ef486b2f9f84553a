"""Modal submissions.  The connect form checks the key with the service before saving it,
within the 3 seconds Slack waits for the answer, and puts the service's refusal on the
field it concerns."""

from __future__ import annotations

import json
import logging
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.home import publish_home
from bot.runtime import Runtime
from callcenter import CallCenter, errors
from commands.admin.connection import API_KEY_BLOCK, BASE_URL_BLOCK, CONNECT_CALLBACK
from commands.kernel.catalog import role_allows
from commands.kernel.reply import notice
from commands.kernel.text import escape
from storage import Outcome, Role
from storage.errors import InvalidValueError

log = logging.getLogger(__name__)

VERIFY_TIMEOUT = 2.0
"""Seconds the key check may take: Slack closes the modal's request after 3."""


def _value(view: dict[str, Any], block: str) -> str:
    state = view["state"]["values"].get(block, {}).get(block, {})  # action_id == block_id
    return str(state.get("value") or "").strip()


async def verify_key(base_url: str, api_key: str) -> dict[str, str] | None:
    """``None`` when the key works, else Slack ``response_action: errors`` per block."""
    try:
        async with CallCenter(base_url, api_key, timeout=VERIFY_TIMEOUT, max_retries=0) as cc:
            await cc.auth.verify()
    except errors.AuthenticationError as exc:
        return {API_KEY_BLOCK: f"The service refused this key: {exc.message}"[:150]}
    except errors.APITimeoutError:
        return {BASE_URL_BLOCK: f"The service did not answer within {VERIFY_TIMEOUT:.0f} s."}
    except errors.APIConnectionError as exc:
        return {BASE_URL_BLOCK: f"Could not reach the service: {exc.message}"[:150]}
    except errors.CallCenterError as exc:
        return {API_KEY_BLOCK: f"The service said: {exc.message}"[:150]}
    except ValueError as exc:
        return {BASE_URL_BLOCK: str(exc)[:150]}
    return None


def register(app: AsyncApp, rt: Runtime) -> None:
    @app.view(CONNECT_CALLBACK)
    async def connect_submitted(
        ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient
    ) -> None:
        team = body["team"]["id"] if body.get("team") else body["user"]["team_id"]
        user = body["user"]["id"]
        role = await rt.roles.role(client, team, user)
        if not role_allows(role, Role.ADMIN):
            # Only a forged request gets here (viewers are never shown the form): record it.
            await ack(
                response_action="errors",
                errors={BASE_URL_BLOCK: "Only a callops admin can connect this workspace."},
            )
            rt.storage.audit.append(
                team, user, "workspace.connect", {}, outcome=Outcome.REFUSED, detail="not admin"
            )
            return
        base_url = _value(view, BASE_URL_BLOCK)
        api_key = _value(view, API_KEY_BLOCK)
        if not base_url.startswith(("http://", "https://")):
            await ack(
                response_action="errors",
                errors={BASE_URL_BLOCK: "Give the full address, starting with https://"},
            )
            return
        problems = await verify_key(base_url, api_key)
        if problems is None:
            try:
                rt.storage.workspaces.connect(team, base_url, api_key)
            except InvalidValueError as exc:
                problems = {BASE_URL_BLOCK: str(exc)[:150]}
        if problems is not None:
            rt.storage.audit.append(
                team,
                user,
                "workspace.connect",
                {"base_url": base_url},
                outcome=Outcome.REFUSED,
                detail="; ".join(problems.values()),
            )
            await ack(response_action="errors", errors=problems)
            return
        await ack()
        await rt.clients.forget(team)
        rt.storage.audit.append(team, user, "workspace.connect", {"base_url": base_url})
        channel = json.loads(view.get("private_metadata") or "{}").get("channel")
        if channel:
            reply = notice(
                f"Connected to *{escape(base_url)}*. Try `/callops status`.",
                emoji=":white_check_mark:",
            )
            try:
                await client.chat_postEphemeral(
                    channel=channel, user=user, text=reply.text, blocks=reply.payload()["blocks"]
                )
            except SlackApiError as exc:
                log.info(
                    "could not confirm the connection in %s: %s", channel, exc.response.get("error")
                )
        await publish_home(rt, client, team_id=team, user_id=user)
