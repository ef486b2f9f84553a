"""``connect``, ``disconnect`` and ``status``: the workspace's link to the call-center service.

The API key opens a phone system that calls real customers, so it is typed only into a
modal (never into a channel), checked against the service before it is saved, and never
shown again: ``status`` names the domain and the user behind the token instead.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    InputBlock,
    MarkdownTextObject,
    PlainTextInputElement,
    SectionBlock,
    UrlInputElement,
)
from slack_sdk.models.views import View

from callcenter import CallCenter, errors
from commands.kernel.catalog import role_allows
from commands.kernel.context import CommandContext
from commands.kernel.failures import describe_failure
from commands.kernel.forms import text
from commands.kernel.i18n import _
from commands.kernel.interactions import Click, Interactions, OnClick, OnSubmit, Submission
from commands.kernel.reply import OpenModal, Outcome, PublishHome, Reply, notice
from commands.kernel.text import escape
from storage import Outcome as AuditOutcome
from storage import Role, Storage
from storage.errors import InvalidValueError
from storage.offload import off_loop

CONNECT_CALLBACK = "connect_workspace"
BASE_URL_BLOCK = "base_url"
API_KEY_BLOCK = "api_key"
"""Each input's action_id is its block_id: Slack rejects a view whose action_ids repeat."""
DISCONNECT_ACTION = "workspace_disconnect"
HOME_CONNECT_ACTION = "home_connect"
"""The Connect button of App Home's welcome (a workspace with no connection yet)."""
VERIFY_TIMEOUT = 2.0
"""Seconds the key check may take: Slack closes a modal's request after 3."""


def connect_modal(current_base_url: str | None = None) -> View:
    """Base URL and API key.  Slack has no password input, so the modal says the key is
    used once to check it and then stored encrypted, and the field is left empty even
    when a key is already saved."""
    url_input = UrlInputElement(action_id=BASE_URL_BLOCK, initial_value=current_base_url or None)
    key_input = PlainTextInputElement(
        action_id=API_KEY_BLOCK, placeholder="API key from your call-center operator"
    )
    return View(
        type="modal",
        callback_id=CONNECT_CALLBACK,
        title="Connect call center",
        submit="Connect",
        close="Cancel",
        blocks=[
            SectionBlock(
                text=MarkdownTextObject(
                    text="callops checks the key with the service before saving it. The key is "
                    "stored encrypted and is never shown again, to anyone."
                )
            ),
            InputBlock(
                block_id=BASE_URL_BLOCK,
                label="Service URL",
                element=url_input,
                hint="For example https://callcenter.example.com",
            ),
            InputBlock(block_id=API_KEY_BLOCK, label="API key", element=key_input),
        ],
    )


def not_connected(ctx: CommandContext) -> Reply:
    how = (
        "Run `/callops connect` to connect it."
        if role_allows(ctx.role, Role.ADMIN)
        else "Ask a callops admin to run `/callops connect`."
    )
    return notice(
        f"This workspace is not connected to a call-center service yet. {how}",
        emoji=":electric_plug:",
    )


async def connect(ctx: CommandContext, args: list[str]) -> OpenModal:
    return OpenModal(connect_modal(ctx.workspace.base_url if ctx.workspace else ctx.base_url))


async def disconnect(ctx: CommandContext, args: list[str]) -> Reply:
    if ctx.workspace is None or not ctx.workspace.connected:
        return notice("This workspace is not connected; there is nothing to disconnect.")
    confirm = ConfirmObject(
        title="Disconnect?",
        text="callops will forget the API key and stop all service calls for this workspace.",
        confirm="Disconnect",
        deny="Keep it",
        style="danger",
    )
    text = (
        f"Disconnect this workspace from *{escape(ctx.workspace.base_url or '')}*? Digests, alerts "
        "and commands stop working until an admin connects again."
    )
    return Reply(
        text="Disconnect this workspace?",
        blocks=[
            SectionBlock(text=MarkdownTextObject(text=text)),
            ActionsBlock(
                elements=[
                    ButtonElement(
                        text="Disconnect",
                        action_id=DISCONNECT_ACTION,
                        value=ctx.team_id,
                        style="danger",
                        confirm=confirm,
                    )
                ]
            ),
        ],
    )


async def status(ctx: CommandContext, args: list[str]) -> Reply:
    if ctx.cc is None:
        return not_connected(ctx)
    base = escape(ctx.base_url or ctx.cc.base_url)
    try:
        token = await ctx.cc.auth.verify()
    except errors.CallCenterError as exc:
        return notice(
            f"Connected to *{base}*, but {describe_failure(exc).inline}.", emoji=":warning:"
        )
    who = escape(token.user_id or "unknown user")
    try:
        user = await ctx.cc.users.get(token.user_id)
        who = f"{escape(user.username)} ({escape(user.level or 'user')})"
    except errors.CallCenterError:
        pass
    since = ""
    if ctx.workspace and ctx.workspace.connected_at:
        moment = datetime.fromtimestamp(ctx.workspace.connected_at, UTC).astimezone(ctx.tz)
        since = f" since {moment:%Y-%m-%d %H:%M}"
    lines = [
        f":large_green_circle: Connected to *{base}*{since}.",
        f"*Domain* `{escape(token.domain_uuid or '–')}` · *Service user* {who}",
        f"*Time zone* {escape(str(ctx.tz))} · *Your role* {escape(ctx.role)}",
    ]
    return Reply(
        text="Connected",
        blocks=[
            SectionBlock(text=MarkdownTextObject(text="\n".join(lines))),
            ContextBlock(elements=[MarkdownTextObject(text="The API key is never shown.")]),
        ],
    )


async def disconnect_clicked(ctx: CommandContext, click: Click) -> Outcome:
    storage = _storage(ctx)
    removed = await off_loop(storage.workspaces.disconnect, ctx.team_id)
    await off_loop(
        storage.audit.append,
        team_id=ctx.team_id,
        user_id=ctx.user_id,
        action="workspace.disconnect",
        params={},
        outcome=AuditOutcome.OK,
        detail=None if removed else "already disconnected",
    )
    text = (
        f"<@{escape(ctx.user_id)}> disconnected this workspace from the call-center service."
        if removed
        else "This workspace was already disconnected."
    )
    reply = notice(text, emoji=":electric_plug:")
    reply.replace_original = True
    return reply


async def home_connect_clicked(ctx: CommandContext, click: Click) -> Outcome:
    view = connect_modal(ctx.base_url)
    view.private_metadata = json.dumps({"channel": None})
    return OpenModal(view)


async def verify_key(base_url: str, api_key: str) -> dict[str, str] | None:
    """``None`` when the key works, else a message for the field it concerns."""
    try:
        async with CallCenter(base_url, api_key, timeout=VERIFY_TIMEOUT, max_retries=0) as cc:
            await cc.auth.verify()
    except errors.CallCenterError as exc:
        # Nothing came back: the address is at fault; anything else concerns the key.
        words = describe_failure(exc)
        return {(BASE_URL_BLOCK if words.unreachable else API_KEY_BLOCK): words.plain(150)}
    except ValueError as exc:
        return {BASE_URL_BLOCK: str(exc)}
    return None


async def accept_connection(ctx: CommandContext, submission: Submission) -> dict[str, str] | None:
    """The connect form is answered within Slack's 3 seconds: the key is checked with the
    service, and saved only when it works, so a refusal lands on the field it concerns."""
    storage = _storage(ctx)
    base_url = text(submission.values, BASE_URL_BLOCK)
    api_key = text(submission.values, API_KEY_BLOCK)
    if not base_url.startswith(("http://", "https://")):
        return {BASE_URL_BLOCK: "Give the full address, starting with https://"}
    problems = await verify_key(base_url, api_key)
    if problems is None:
        try:
            # Connected from Slack: the admin's own zone and language, unless chosen.
            await off_loop(
                storage.workspaces.connect,
                ctx.team_id,
                base_url,
                api_key,
                slack_timezone=ctx.slack_tz,
                admin_locale=ctx.slack_locale,
            )
        except InvalidValueError as exc:
            problems = {BASE_URL_BLOCK: exc.words(_)}
    if problems is not None:
        await off_loop(
            storage.audit.append,
            ctx.team_id,
            ctx.user_id,
            "workspace.connect",
            {"base_url": base_url},
            outcome=AuditOutcome.REFUSED,
            detail="; ".join(problems.values()),
        )
    return problems


async def connected(ctx: CommandContext, submission: Submission) -> Outcome:
    base_url = text(submission.values, BASE_URL_BLOCK)
    await off_loop(
        _storage(ctx).audit.append,
        ctx.team_id,
        ctx.user_id,
        "workspace.connect",
        {"base_url": base_url},
    )
    channel = submission.metadata.get("channel")
    if channel and ctx.messenger is not None:
        reply = notice(
            f"Connected to *{escape(base_url)}*. Try `/callops status`.",
            emoji=":white_check_mark:",
        )
        await ctx.messenger.tell(ctx.user_id, str(channel), reply)
    return PublishHome()


def _storage(ctx: CommandContext) -> Storage:
    if ctx.storage is None:
        raise RuntimeError("connecting needs the app's database")
    return ctx.storage


HANDLERS = {"connect": connect, "disconnect": disconnect, "status": status}

INTERACTIONS = Interactions(
    clicks=(
        OnClick(
            DISCONNECT_ACTION, disconnect_clicked, role=Role.ADMIN, audit_as="workspace.disconnect"
        ),
        OnClick(HOME_CONNECT_ACTION, home_connect_clicked, role=Role.ADMIN),
    ),
    submissions=(
        OnSubmit(
            CONNECT_CALLBACK,
            connected,
            role=Role.ADMIN,
            validate=accept_connection,
            audit_as="workspace.connect",
        ),
    ),
)
