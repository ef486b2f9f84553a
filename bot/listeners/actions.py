"""Buttons: paging, opening and choosing campaigns, refreshing, disconnecting, App Home.

Every read-only button re-enters ``commands.dispatch`` with the command text it carries,
so a click is checked and answered exactly as the typed command would be.
"""

from __future__ import annotations

import json
import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.delivery import deliver
from bot.home import publish_home
from bot.listeners.payload import where
from bot.runtime import Runtime
from commands.admin.connection import DISCONNECT_ACTION, connect_modal
from commands.dispatch import dispatch
from commands.kernel.catalog import role_allows
from commands.kernel.paging import PAGE_ACTION, read_page_value
from commands.kernel.reply import error, notice
from commands.kernel.text import escape
from storage import Outcome, Role

CAMPAIGN_OPEN = re.compile(r"^campaign_open_\d+$")
CAMPAIGN_REFRESH = "campaign_refresh"
CAMPAIGN_CHOOSE = re.compile(r"^campaign_choose_\d+$")


def register(app: AsyncApp, rt: Runtime) -> None:
    async def rerun(
        body: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
        text: str,
        *,
        offset: int = 0,
        replace: bool,
    ) -> None:
        team, user, channel = where(body)
        ctx = await rt.context(
            client, team_id=team, user_id=user, channel_id=channel, offset=offset
        )
        outcome = await dispatch(ctx, text)
        await deliver(
            outcome,
            respond=respond,
            client=client,
            trigger_id=body.get("trigger_id"),
            replace_original=replace,
        )

    @app.action(re.compile(f"^{PAGE_ACTION}_(prev|next)$"))
    async def page(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
    ) -> None:
        await ack()
        command, offset = read_page_value(action["value"])
        await rerun(body, respond, client, command, offset=offset, replace=True)

    @app.action(CAMPAIGN_OPEN)
    async def open_campaign(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
    ) -> None:
        await ack()
        await rerun(body, respond, client, f"campaign {action['value']}", replace=False)

    @app.action(CAMPAIGN_REFRESH)
    async def refresh_campaign(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
    ) -> None:
        await ack()
        await rerun(body, respond, client, f"campaign {action['value']}", replace=True)

    @app.action(CAMPAIGN_CHOOSE)
    async def choose_campaign(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
    ) -> None:
        await ack()
        await rerun(body, respond, client, action["value"], replace=True)

    @app.action(DISCONNECT_ACTION)
    async def disconnect(
        ack: AsyncAck, body: dict[str, Any], respond: AsyncRespond, client: AsyncWebClient
    ) -> None:
        await ack()
        team, user, _ = where(body)
        role = await rt.roles.role(client, team, user)
        if not role_allows(role, Role.ADMIN):
            rt.storage.audit.append(
                team, user, "workspace.disconnect", {}, outcome=Outcome.REFUSED, detail="not admin"
            )
            await respond(**error("Only a callops admin can disconnect the workspace.").payload())
            return
        removed = rt.storage.workspaces.disconnect(team)
        await rt.clients.forget(team)
        rt.storage.audit.append(
            team_id=team,
            user_id=user,
            action="workspace.disconnect",
            params={},
            outcome=Outcome.OK,
            detail=None if removed else "already disconnected",
        )
        text = (
            f"<@{escape(user)}> disconnected this workspace from the call-center service."
            if removed
            else "This workspace was already disconnected."
        )
        reply = notice(text, emoji=":electric_plug:")
        reply.replace_original = True
        await respond(**reply.payload())

    @app.action("home_refresh")
    async def home_refresh(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        team, user, _ = where(body)
        await publish_home(rt, client, team_id=team, user_id=user)

    @app.action("home_connect")
    async def home_connect(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        team, user, _ = where(body)
        role = await rt.roles.role(client, team, user)
        if not role_allows(role, Role.ADMIN):
            return
        binding = rt.clients.binding(team)
        view = connect_modal(binding.base_url if binding else None)
        view.private_metadata = json.dumps({"channel": None})
        await client.views_open(trigger_id=body["trigger_id"], view=view)
