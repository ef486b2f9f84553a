"""Who and where: auth.test, users.*, conversations.*, team.info, Socket Mode's
apps.connections.open and OAuth's oauth.v2.access."""

from __future__ import annotations

import base64

from emulators.slack.core import ApiCall, Core, api_method, require_bot_member, resolve_channel
from emulators.slack.errors import SlackError
from emulators.slack.model import JSON, User, channel_json, user_json


@api_method("auth.test")
async def auth_test(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    token = call.token
    user_id = token.user_id if token is not None and token.user_id else team.bot_user_id
    user = core.state.user(user_id)
    body: JSON = {
        "url": f"https://{team.domain}.slack.com/",
        "team": team.name,
        "user": user.name,
        "team_id": team.id,
        "user_id": user.id,
        "is_enterprise_install": False,
    }
    if token is not None and token.kind == "bot":
        body["bot_id"] = team.bot_id
    return body


def _team_user(core: Core, call: ApiCall, ref: str | None) -> User:
    team = call.bot_team
    user = core.state.find_user(ref, team.id) if ref else None
    if user is None or user.team_id != team.id:
        raise SlackError("user_not_found")
    return user


@api_method("users.info")
async def users_info(core: Core, call: ApiCall) -> JSON:
    user = _team_user(core, call, call.text("user"))
    body = user_json(user, core.clock.now())
    if call.flag("include_locale"):
        body["locale"] = user.locale  # only when asked for, as Slack does
    return {"user": body}


@api_method("users.lookupByEmail")
async def users_lookup_by_email(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    email = call.required("email", "users_not_found").lower()
    for user in core.state.users_of(team.id):
        if (user.email or "").lower() == email:
            return {"user": user_json(user, core.clock.now())}
    raise SlackError("users_not_found")


@api_method("users.list")
async def users_list(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    now = core.clock.now()
    members = [user_json(u, now) for u in core.state.users_of(team.id)]
    return {"members": members, "cache_ts": int(now), "response_metadata": {"next_cursor": ""}}


@api_method("team.info")
async def team_info(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    return {
        "team": {
            "id": team.id,
            "name": team.name,
            "domain": team.domain,
            "email_domain": "",
            "icon": {"image_default": True},
            "enterprise_id": team.enterprise_id,
        }
    }


@api_method("conversations.info")
async def conversations_info(core: Core, call: ApiCall) -> JSON:
    channel = resolve_channel(core, call, call.text("channel"))
    is_member = call.bot_team.bot_user_id in channel.members
    body = channel_json(channel, is_member=is_member, with_count=call.flag("include_num_members"))
    return {"channel": body}


@api_method("conversations.members")
async def conversations_members(core: Core, call: ApiCall) -> JSON:
    channel = resolve_channel(core, call, call.text("channel"))
    return {"members": sorted(channel.members), "response_metadata": {"next_cursor": ""}}


@api_method("conversations.list")
async def conversations_list(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    wanted = set((call.text("types") or "public_channel").split(","))
    found = []
    for channel in core.state.channels_of(team.id):
        kind = (
            "im"
            if channel.is_im
            else ("private_channel" if channel.is_private else "public_channel")
        )
        member = team.bot_user_id in channel.members
        if kind not in wanted:
            continue
        if kind != "public_channel" and not member:
            continue
        found.append(channel_json(channel, is_member=member, with_count=True))
    return {"channels": found, "response_metadata": {"next_cursor": ""}}


@api_method("conversations.open")
async def conversations_open(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    refs = [u for u in (call.text("users") or "").split(",") if u]
    if len(refs) != 1:
        raise SlackError("not_enough_users" if not refs else "invalid_arguments")
    user = _team_user(core, call, refs[0])
    im = core.state.open_im(team.id, user.id)
    if call.flag("return_im"):
        return {"channel": channel_json(im, is_member=True)}
    return {"channel": {"id": im.id}}


HISTORY_MAX_LIMIT = 999
"""Slack caps ``limit`` of the history methods (it answers fewer, never an error)."""


def _ts_value(call: ApiCall, name: str) -> float | None:
    raw = call.text(name)
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        raise SlackError("invalid_ts_" + name) from None


def _window(call: ApiCall, messages: list[JSON], *, newest_first: bool, default: int) -> JSON:
    """``oldest``/``latest`` (``inclusive``), ``limit`` and ``cursor`` as Slack reads them,
    and message metadata only for ``include_all_metadata`` (Slack leaves it out otherwise)."""
    oldest, latest = _ts_value(call, "oldest"), _ts_value(call, "latest")
    inclusive = call.flag("inclusive")

    def inside(message: JSON) -> bool:
        ts = float(message["ts"])
        if oldest is not None and (ts < oldest or (ts == oldest and not inclusive)):
            return False
        return not (latest is not None and (ts > latest or (ts == latest and not inclusive)))

    found = [m for m in messages if inside(m)]
    if newest_first:
        found.reverse()
    try:
        limit = max(1, min(HISTORY_MAX_LIMIT, int(call.text("limit") or default)))
    except ValueError:
        raise SlackError("invalid_limit") from None
    start = _cursor_offset(call.text("cursor"))
    page = found[start : start + limit]
    more = start + limit < len(found)
    if not call.flag("include_all_metadata"):
        for message in page:
            message.pop("metadata", None)
    return {
        "messages": page,
        "has_more": more,
        "response_metadata": {"next_cursor": _cursor(start + limit) if more else ""},
    }


def _cursor(offset: int) -> str:
    return base64.b64encode(f"next_ts:{offset}".encode()).decode()


def _cursor_offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        kind, _, offset = base64.b64decode(cursor).decode().partition(":")
        if kind != "next_ts":
            raise ValueError(kind)
        return max(0, int(offset))
    except ValueError:
        raise SlackError("invalid_cursor") from None


@api_method("conversations.history")
async def conversations_history(core: Core, call: ApiCall) -> JSON:
    channel = resolve_channel(core, call, call.text("channel"))
    require_bot_member(call, channel)
    body = _window(call, core.state.messages(channel.id), newest_first=True, default=100)
    return {**body, "pin_count": 0}


@api_method("conversations.replies")
async def conversations_replies(core: Core, call: ApiCall) -> JSON:
    channel = resolve_channel(core, call, call.text("channel"))
    require_bot_member(call, channel)
    thread = core.state.thread(channel.id, call.required("ts", "thread_not_found"))
    if not thread:
        raise SlackError("thread_not_found")
    return _window(call, thread, newest_first=False, default=1000)


@api_method("apps.connections.open", auth="app")
async def apps_connections_open(core: Core, call: ApiCall) -> JSON:
    ticket = core.ids.opaque(24)
    core.socket_tickets[ticket] = core.clock.now()
    host = core.base_url.removeprefix("http://").rstrip("/")
    return {"url": f"ws://{host}/socket?ticket={ticket}&app_id={core.app_id}"}


@api_method("oauth.v2.access", auth="none")
async def oauth_v2_access(core: Core, call: ApiCall) -> JSON:
    """Trades an install's ``code`` for the bot token, or (``grant_type=refresh_token``, an
    app with token rotation on) a refresh token for a new access token and a new refresh
    token. With rotation on, access tokens are ``xoxe.xoxb-`` tokens that expire after
    ``expires_in`` seconds and each refresh token works once."""
    client_id, client_secret = call.basic_auth or (
        call.text("client_id") or "",
        call.text("client_secret") or "",
    )
    if client_id != core.client_id:
        raise SlackError("invalid_client_id")
    if client_secret != core.client_secret:
        raise SlackError("bad_client_secret")
    grant_type = call.text("grant_type") or "authorization_code"
    if grant_type == "refresh_token":
        presented = call.required("refresh_token", "invalid_refresh_token")
        grant = core.state.redeem_refresh_token(presented)
        team_id, user_id = grant.team_id, grant.user_id
    elif grant_type == "authorization_code":
        granted = core.state.oauth_codes.pop(call.text("code") or "", None)
        if granted is None:
            raise SlackError("invalid_code")
        team_id, user_id = granted
    else:
        raise SlackError("invalid_grant_type")
    team = core.state.team(team_id)
    lifetime = core.token_lifetime if core.token_rotation else None
    token, refresh = core.state.issue_bot_token(team.id, user_id, lifetime=lifetime)
    body: JSON = {
        "app_id": core.app_id,
        "authed_user": {"id": user_id},
        "scope": "commands,chat:write,users:read,files:read,files:write,channels:read",
        "token_type": "bot",
        "access_token": token.value,
        "bot_user_id": team.bot_user_id,
        "team": {"id": team.id, "name": team.name},
        "enterprise": None,
        "is_enterprise_install": False,
    }
    if refresh is not None:
        body["refresh_token"] = refresh.value
        body["expires_in"] = int(lifetime or 0)
    return body
