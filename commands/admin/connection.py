"""``connect``, ``disconnect`` and ``status``: the workspace's link to the call-center service.

The API key opens a phone system that calls real customers, so it is typed only into a
modal (never into a channel), checked against the service before it is saved, and never
shown again: ``status`` names the domain and the user behind the token instead.
"""

from __future__ import annotations

import functools
import json
import ssl
from datetime import UTC, datetime
from typing import Annotated
from urllib.parse import urlsplit

import httpx
from pydantic import StringConstraints
from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ConfirmObject,
    InputBlock,
    PlainTextInputElement,
    UrlInputElement,
)
from slack_sdk.models.views import View

from callcenter import CallCenter, errors
from callcenter.addresses import AddressRefused, ServiceAddresses
from commands.calls.audio import speaker
from commands.kernel.catalog import role_allows
from commands.kernel.context import CommandContext
from commands.kernel.failures import describe_failure
from commands.kernel.forms import text
from commands.kernel.help import role_name
from commands.kernel.i18n import N_, _
from commands.kernel.interactions import Click, Submission
from commands.kernel.modals import modal
from commands.kernel.reply import (
    Also,
    OpenModal,
    Outcome,
    PublishHome,
    Reply,
    Tell,
    context_line,
    notice,
    section,
)
from commands.kernel.text import day_time, escape
from commands.kernel.values import Metadata, read_metadata
from storage import Outcome as AuditOutcome
from storage import Role
from storage.errors import InvalidValueError
from storage.offload import off_loop
from storage.validation import UrlProblem, base_url_problem, shown_url

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
        action_id=API_KEY_BLOCK, placeholder=_("API key from your call-center operator")
    )
    return modal(
        CONNECT_CALLBACK,
        _("Connect call center"),
        [
            section(
                _(
                    "callops checks the key with the service before saving it. The key is "
                    "stored encrypted and is never shown again, to anyone."
                )
            ),
            InputBlock(
                block_id=BASE_URL_BLOCK,
                label=_("Service URL"),
                element=url_input,
                hint=_("For example {url}").format(url="https://callcenter.example.com"),
            ),
            InputBlock(block_id=API_KEY_BLOCK, label=_("API key"), element=key_input),
        ],
        submit=_("Connect"),
    )


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for the key checks (building one loads the CA bundle)."""
    return httpx.create_ssl_context()


def not_connected(ctx: CommandContext) -> Reply:
    if role_allows(ctx.role, Role.ADMIN):
        words = _(
            "This workspace is not connected to a call-center service yet. "
            "Run `/callops connect` to connect it."
        )
    else:
        words = _(
            "This workspace is not connected to a call-center service yet. "
            "Ask a callops admin to run `/callops connect`."
        )
    return notice(words, emoji=":electric_plug:")


async def connect(ctx: CommandContext, args: list[str]) -> OpenModal:
    return OpenModal(connect_modal(ctx.workspace.base_url if ctx.workspace else ctx.base_url))


async def disconnect(ctx: CommandContext, args: list[str]) -> Reply:
    if ctx.workspace is None or not ctx.workspace.connected:
        return notice(_("This workspace is not connected; there is nothing to disconnect."))
    confirm = ConfirmObject(
        title=_("Disconnect?"),
        text=_("callops will forget the API key and stop all service calls for this workspace."),
        confirm=_("Disconnect"),
        deny=_("Keep it"),
        style="danger",
    )
    text = _(
        "Disconnect this workspace from {address}? Digests, alerts and commands stop working "
        "until an admin connects again."
    ).format(address=f"*{escape(ctx.workspace.base_url or '')}*")
    return Reply(
        text=_("Disconnect this workspace?"),
        blocks=[
            section(text),
            ActionsBlock(
                elements=[
                    ButtonElement(
                        text=_("Disconnect"),
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
            _("Connected to {address}, but {failure}.").format(
                address=f"*{base}*", failure=describe_failure(exc).inline
            ),
            emoji=":warning:",
        )
    who = escape(token.user_id or _("unknown user"))
    try:
        user = await ctx.cc.users.get(token.user_id)
        level = user.level or _("user")
        who = f"{escape(user.username)} ({escape(level)})"
    except errors.CallCenterError:
        pass
    address = f"*{base}*"
    if ctx.workspace and ctx.workspace.connected_at:
        moment = datetime.fromtimestamp(ctx.workspace.connected_at, UTC).astimezone(ctx.tz)
        connected = _(":large_green_circle: Connected to {address} since {moment}.").format(
            address=address, moment=day_time(moment)
        )
    else:
        connected = _(":large_green_circle: Connected to {address}.").format(address=address)
    lines = [
        connected,
        _("*Domain* {domain} · *Service user* {who}").format(
            domain=f"`{escape(token.domain_uuid or '–')}`", who=who
        ),
        _("*Time zone* {zone} · *Your role* {role}").format(
            zone=escape(str(ctx.tz)), role=escape(role_name(ctx.role))
        ),
    ]
    notes = [_("The API key is never shown.")]
    if speaker() is None:
        notes.append(
            _(
                "Autocall previews are shown but cannot be heard: espeak-ng is not installed "
                "where callops runs (apt-get install espeak-ng)."
            )
        )
    return Reply(
        text=_("Connected"),
        blocks=[
            section("\n".join(lines)),
            context_line(" ".join(notes)),
        ],
    )


async def disconnect_clicked(ctx: CommandContext, click: Click) -> Outcome:
    storage = ctx.storage
    removed = await off_loop(storage.workspaces.disconnect, ctx.team_id)
    await ctx.audit("workspace.disconnect", {}, detail=None if removed else "already disconnected")
    text = (
        _("{person} disconnected this workspace from the call-center service.").format(
            person=f"<@{escape(ctx.user_id)}>"
        )
        if removed
        else _("This workspace was already disconnected.")
    )
    reply = notice(text, emoji=":electric_plug:")
    reply.replace_original = True
    return reply


async def home_connect_clicked(ctx: CommandContext, click: Click) -> Outcome:
    view = connect_modal(ctx.base_url)
    view.private_metadata = json.dumps({"channel": None})
    return OpenModal(view)


async def verify_key(
    base_url: str, api_key: str, addresses: ServiceAddresses
) -> dict[str, str] | None:
    """``None`` when the key works, else a message for the field it concerns.

    The host is resolved once and must be where the service may be
    (``callcenter.addresses``); the key is then sent to exactly the addresses checked,
    never to whatever the name resolves to a moment later.  What the other side answered
    is never shown (it may be any internal service's page): the message says in our
    words what went wrong, with the HTTP status at most."""
    host = urlsplit(base_url).hostname or ""
    try:
        transport = await addresses.transport_for(base_url, tls_context())
    except AddressRefused as exc:
        return {BASE_URL_BLOCK: _address_refused(exc)}
    try:
        async with CallCenter(
            base_url, api_key, timeout=VERIFY_TIMEOUT, max_retries=0, transport=transport
        ) as cc:
            await cc.auth.verify_service()  # a token, then a documented listing
    except errors.AuthenticationError:
        return {API_KEY_BLOCK: _("The call-center service refused this API key.")}
    except errors.APIConnectionError:
        return {
            BASE_URL_BLOCK: _("callops could not reach {host}. Check the address.").format(
                host=host
            )
        }
    except errors.CallCenterError as exc:
        if exc.status_code is not None and not 200 <= exc.status_code < 300:
            words = _(
                "{host} answered with HTTP {status}: it does not look like the call-center "
                "service. Check the address."
            ).format(host=host, status=exc.status_code)
        else:
            words = _(
                "{host} did not answer as the call-center service does. Check the address."
            ).format(host=host)
        return {BASE_URL_BLOCK: words}
    return None


def _address_refused(exc: AddressRefused) -> str:
    if exc.reason == "not_found":
        return _("{host} could not be found. Check the address.").format(host=exc.host)
    return _(
        "{host} is on a private or reserved network, where callops does not send "
        "requests. Give the service's public address."
    ).format(host=exc.host)


URL_PROBLEMS: dict[UrlProblem, str] = {
    "not_http": N_("Give the full address, starting with https://"),
    "credentials": N_(
        "Leave the user name and password out of the address: callops signs in with the API key."
    ),
    "query": N_("Give the address without ? or #: a path is fine, a query is not."),
}


async def accept_connection(ctx: CommandContext, submission: Submission) -> dict[str, str] | None:
    """The connect form is answered within Slack's 3 seconds: the address is checked by
    the one rule for where the service may be, the key is checked with the service, and
    both are saved only when they work, so a refusal lands on the field it concerns."""
    storage = ctx.storage
    base_url = text(submission.values, BASE_URL_BLOCK)
    api_key = text(submission.values, API_KEY_BLOCK)
    problem = base_url_problem(base_url)
    if problem is not None:
        problems: dict[str, str] | None = {BASE_URL_BLOCK: _(URL_PROBLEMS[problem])}
    else:
        problems = await verify_key(base_url, api_key, ctx.app.addresses)
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
        await ctx.audit(
            "workspace.connect",
            {"base_url": shown_url(base_url)},  # a refused URL may carry a password
            outcome=AuditOutcome.REFUSED,
            detail="; ".join(problems.values()),
        )
    return problems


class ConnectMeta(Metadata):
    """Where the connect form was opened from (None: App Home), to say it worked there."""

    channel: Annotated[str, StringConstraints(pattern=r"^[A-Z0-9]{0,30}$")] | None = None


async def connected(ctx: CommandContext, submission: Submission) -> Outcome:
    base_url = text(submission.values, BASE_URL_BLOCK)
    await ctx.audit("workspace.connect", {"base_url": shown_url(base_url)})
    channel = read_metadata(ConnectMeta, submission.metadata).channel
    if not channel:
        return PublishHome()
    reply = notice(
        _("Connected to {address}. Try `/callops status`.").format(address=f"*{escape(base_url)}*"),
        emoji=":white_check_mark:",
    )
    return Also(PublishHome(), Tell(ctx.user_id, reply, channel=str(channel)))
