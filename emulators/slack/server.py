"""The stand-in's HTTP surface (aiohttp): Web API at ``/api/<method>``, response URLs at
``/response/<id>``, file upload and download, the OAuth authorize page, Socket Mode's
WebSocket at ``/socket``.

Requests are read the way Slack reads them: arguments from the query string and from a
form-encoded, multipart or JSON body; the token from ``Authorization: Bearer`` or (except
for JSON bodies, where Slack ignores it) a ``token`` argument.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import secrets
from typing import Any
from urllib.parse import urlencode

from aiohttp import BodyPartReader, web

# Importing the method modules registers their methods in METHODS.
from emulators.slack import (  # noqa: F401
    methods_chat,
    methods_files,
    methods_functions,
    methods_info,
    methods_views,
)
from emulators.slack.core import METHODS, ApiCall, Core
from emulators.slack.errors import SlackError
from emulators.slack.model import JSON, Token
from emulators.slack.replies import apply_reply
from emulators.slack.socket_mode import SocketHub

CORE = web.AppKey("core", Core)
HUB = web.AppKey("hub", SocketHub)


def build_app(core: Core, hub: SocketHub) -> web.Application:
    app = web.Application(client_max_size=64 * 1024 * 1024)
    app[CORE] = core
    app[HUB] = hub
    app.router.add_route("*", "/api/{method}", handle_api)
    app.router.add_post("/response/{url_id}", handle_response_url)
    app.router.add_post("/upload/v1/{key}", handle_upload)
    app.router.add_get("/files-pri/{team_file}/download/{name}", handle_download)
    app.router.add_get("/files-pri/{team_file}/{name}", handle_download)
    app.router.add_get("/signin", handle_signin)
    app.router.add_get("/oauth/v2/authorize", handle_authorize)
    app.router.add_get("/socket", hub.handle)

    async def close_sockets(_: web.Application) -> None:
        await hub.close_all()

    app.on_shutdown.append(close_sockets)
    return app


async def read_arguments(request: web.Request) -> tuple[JSON, bool]:
    """All arguments of a call, and whether the body was JSON."""
    params: JSON = dict(request.query)
    if request.method != "POST" or not request.can_read_body:
        return params, False
    if request.content_type == "application/json":
        try:
            body = await request.json()
        except json.JSONDecodeError:
            raise SlackError("invalid_json") from None
        if not isinstance(body, dict):
            raise SlackError("invalid_json")
        params.update(body)
        return params, True
    form = await request.post()
    for key, value in form.items():
        if isinstance(value, str):
            params[key] = value
        elif isinstance(value, web.FileField):
            params[key] = value.file.read()
        else:
            params[key] = bytes(value)
    return params, False


def _bearer(request: web.Request) -> str | None:
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return None


def _basic(request: web.Request) -> tuple[str, str] | None:
    header = request.headers.get("Authorization", "")
    if not header.lower().startswith("basic "):
        return None
    try:
        decoded = base64.b64decode(header[6:]).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    client_id, _, client_secret = decoded.partition(":")
    return client_id, client_secret


def authenticate(core: Core, auth: str, value: str | None) -> Token | None:
    if auth == "none":
        return None
    if not value:
        raise SlackError("not_authed")
    token = core.state.token(value)
    if token is None:
        raise SlackError("invalid_auth")
    if token.revoked:
        raise SlackError("token_revoked")
    if token.expired or (token.expires_at is not None and core.clock.now() >= token.expires_at):
        raise SlackError("token_expired")
    if (auth == "app") != (token.kind == "app"):
        raise SlackError("not_allowed_token_type")
    return token


async def handle_api(request: web.Request) -> web.Response:
    core = request.app[CORE]
    method = request.match_info["method"]
    params: JSON = {}
    team_id: str | None = None
    call: ApiCall | None = None
    headers: dict[str, str] = {"X-Slack-Req-Id": secrets.token_hex(16)}
    try:
        spec = METHODS.get(method)
        if spec is None:
            raise SlackError("unknown_method", status=404)
        params, is_json = await read_arguments(request)
        form_token = None if is_json else params.get("token")
        params.pop("token", None)
        token = authenticate(core, spec.auth, _bearer(request) or form_token)
        team = core.state.team(token.team_id) if token and token.team_id else None
        team_id = team.id if team else None
        call = ApiCall(method, params, token, team, basic_auth=_basic(request))
        retry_after = core.limits.take_injected(method)
        if retry_after is not None:
            raise SlackError("ratelimited", status=429, headers={"Retry-After": str(retry_after)})
        body: JSON = {"ok": True, **(await spec.handler(core, call))}
        status = 200
    except SlackError as error:
        body, status = error.body(), error.status
        headers.update(error.headers)
    hold = core.holds.take(method)
    if hold is not None:
        await hold.wait()  # done, but the answer waits (see emulators.slack.holds)
        if hold.cut and request.transport is not None:
            request.transport.close()  # the answer is lost: the client sees the line drop
    core.journal.record(
        at=core.clock.now(),
        kind="api",
        method=method,
        team_id=team_id,
        params=_journal_params(params),
        status=status,
        response=body,
        problems=call.problems if call else [],
    )
    return web.json_response(body, status=status, headers=headers)


def _journal_params(params: JSON) -> JSON:
    """Bytes (multipart uploads) are journalled by size, not content."""
    return {k: (f"<{len(v)} bytes>" if isinstance(v, bytes) else v) for k, v in params.items()}


async def handle_response_url(request: web.Request) -> web.Response:
    core = request.app[CORE]
    url_id = request.match_info["url_id"]
    problems: list[str] = []
    body: Any = None
    team_id: str | None = None
    try:
        raw = await request.text()
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            raise SlackError("invalid_payload", status=400) from None
        record = core.state.use_response_url(url_id)
        team_id = record.team_id
        apply_reply(core, record, body, problems)
        answer: JSON = {"ok": True}
        status = 200
    except SlackError as error:
        answer, status = error.body(), error.status
    core.journal.record(
        at=core.clock.now(),
        kind="response_url",
        method=url_id,
        team_id=team_id,
        params=body if isinstance(body, dict) else {"body": body},
        status=status,
        response=answer,
        problems=problems,
    )
    return web.json_response(answer, status=status)


async def handle_upload(request: web.Request) -> web.Response:
    core = request.app[CORE]
    stored = core.state.file_by_upload_key(request.match_info["key"])
    if stored is None:
        return web.Response(status=404, text="not_found")
    if request.content_type.startswith("multipart/"):
        data = b""
        reader = await request.multipart()
        async for part in reader:
            if isinstance(part, BodyPartReader) and part.filename is not None:
                data = await part.read()
                break
    else:
        data = await request.read()
    stored.content = data
    core.journal.record(
        at=core.clock.now(),
        kind="upload",
        method="upload",
        team_id=stored.team_id,
        params={"file_id": stored.id, "bytes": len(data)},
        status=200,
        response={"ok": True},
    )
    return web.Response(text=f"OK - {len(data)}", content_type="text/plain")


async def handle_download(request: web.Request) -> web.StreamResponse:
    """Files need the bot token as a Bearer header; without it Slack answers with its
    sign-in page (HTML, status 200 after a redirect), which an app must not take for data."""
    core = request.app[CORE]
    team_id, _, file_id = request.match_info["team_file"].partition("-")
    stored = core.state.file(file_id)
    value = _bearer(request)
    token = core.state.token(value) if value else None
    allowed = (
        stored is not None
        and stored.content is not None
        and token is not None
        and not token.revoked
        and token.team_id == stored.team_id == team_id
    )
    core.journal.record(
        at=core.clock.now(),
        kind="download",
        method="download",
        team_id=stored.team_id if stored else None,
        params={"file_id": file_id, "authorized": token is not None},
        status=200 if allowed else 302,
        response={"ok": allowed},
    )
    if not allowed or stored is None or stored.content is None:
        raise web.HTTPFound(f"/signin?{urlencode({'redir': request.path})}")
    mimetype = mimetypes.guess_type(stored.name)[0] or "application/octet-stream"
    return web.Response(body=stored.content, content_type=mimetype)


async def handle_signin(request: web.Request) -> web.Response:
    page = "<!DOCTYPE html><html><head><title>Sign in | Slack</title></head><body></body></html>"
    return web.Response(text=page, content_type="text/html")


async def handle_authorize(request: web.Request) -> web.Response:
    """OAuth v2: the page where a user approves the install; here it approves at once.

    ``team`` and ``user`` query arguments choose who installs (default: the first team
    and its first admin), then the browser is sent back to ``redirect_uri`` with a code.
    """
    core = request.app[CORE]
    if request.query.get("client_id") != core.client_id:
        return web.Response(status=400, text="invalid_client_id")
    redirect_uri = request.query.get("redirect_uri", "")
    if not redirect_uri.startswith(("http://127.0.0.1", "http://localhost")):
        return web.Response(status=400, text="bad_redirect_uri")
    state = core.state
    team_id = request.query.get("team") or state.first_team_id()
    if team_id not in state.teams:
        return web.Response(status=400, text="invalid_team")
    user_id = request.query.get("user") or next(
        (u.id for u in state.users_of(team_id) if u.is_admin), ""
    )
    code = core.ids.opaque(18)
    state.oauth_codes[code] = (team_id, user_id)
    query = {"code": code, "state": request.query.get("state", "")}
    raise web.HTTPFound(f"{redirect_uri}?{urlencode(query)}")
