"""The demo console's window onto the stand-in: a small JSON API, a live feed, static pages.

The console (``console/``: HTML, CSS and JavaScript, no build step) is a Slack client for
one person at a time. It reads what the stand-in holds (channels, messages, threads, the
person's ephemeral messages, open modals, App Home) and acts only through the signed
driver, so the app receives exactly the requests Slack would send. Nothing here decides
what a command or a click means; that is the app's job.

Routes, all under ``/console``:

* ``GET /console/`` and ``/console/static/<file>``: the page.
* ``GET /console/api/workspace``: team, people, channels, and the ``/callops`` completions.
* ``GET /console/api/state?user=U&channel=C``: what ``user`` sees: the channel's messages
  (with thread replies), their ephemeral messages there, their modal stack with field
  errors, their App Home.
* ``GET /console/api/events``: Server-Sent Events, one per change on the ``EventBus``.
* ``POST /console/api/command|action|submit|close|home|message``: the driver's
  ``slash_command``, ``block_action``, ``view_submission``, ``view_closed``,
  ``app_home_opened`` and ``user_message``.
* ``POST /console/api/file`` (multipart: ``user``, ``channel``, ``file``, optional
  ``text``): the person shares a file into the channel, the driver's ``file_share``; the
  file becomes their message with the file, as when someone drops a file into Slack.
* ``GET /console/files/<file id>/<name>``: a shared file's bytes (the signed-in person may
  see the files of channels they are in, as in Slack's own client).
* ``GET /console/samples/<name>``: a sample file the demo offers to share (``samples``),
  which the page then shares like any file from the visitor's computer.
* Workflow steps and shortcuts: ``console_workflows.py``.
* The call-center emulator's incidents (a network that stops answering):
  ``console_incidents.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import mimetypes
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from aiohttp import BodyPartReader, web

from emulators.slack.bus import StandInEvent
from emulators.slack.console_incidents import add_incident_routes
from emulators.slack.core import Core
from emulators.slack.driver import Delivery, SlackDriver
from emulators.slack.model import JSON, User

STATIC_DIR = Path(__file__).with_name("console")
STATIC_FILES = (
    "index.html",
    "console.css",
    "console.js",
    "blocks.js",
    "dataviz.js",
    "dom.js",
    "mrkdwn.js",
    "emoji.json",  # the shortcode table, written by scripts/emoji_table.py
    "table.js",
    "workflows.js",
    "workflows.css",
    "incidents.js",
)
LIVE_KINDS = frozenset(
    {
        "message.posted",
        "message.updated",
        "message.deleted",
        "ephemeral.posted",
        "ephemeral.updated",
        "ephemeral.deleted",
        "view.opened",
        "view.pushed",
        "view.updated",
        "view.closed",
        "home.published",
        "file.shared",
        "delivery",
        "step.started",
        "step.completed",
        "step.failed",
    }
)
"""Bus events the page hears of; ``api.call`` (every journal entry) would only be noise."""
KEEPALIVE_SECONDS = 15.0
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
"""Files are held in memory by the stand-in; the demo's CSVs are a few kilobytes."""
MENTION = re.compile(r"(?<![\w&|])([@#])([a-z0-9][a-z0-9._-]*)", re.IGNORECASE)


@dataclass(frozen=True)
class Completion:
    """One ``/callops`` subcommand as the composer offers it."""

    name: str
    usage: str
    summary: str = ""


@dataclass(frozen=True)
class SampleFile:
    """A file the console offers to share, e.g. a leads CSV for the demo's campaign."""

    name: str
    content: bytes
    summary: str = ""

    def json(self) -> JSON:
        return {
            "name": self.name,
            "summary": self.summary,
            "size": len(self.content),
            "url": f"/console/samples/{self.name}",
        }


@dataclass
class ConsoleConfig:
    """What the console needs besides the stand-in's state.

    ``completions`` come from whoever starts the demo: the stand-in may not import the
    app's command catalogue, so the demo hands it over (at construction, or later with
    ``SlackStandIn.set_completions``)."""

    command: str = "/callops"
    completions: list[Completion] = field(default_factory=list)
    title: str = "callops demo"
    message_events: bool = False
    """Send the app a ``message`` event when someone posts (or shares a file) in a channel
    it is in."""
    samples: list[SampleFile] = field(default_factory=list)
    emulator_url: str = ""
    """The call-center emulator, for the page's incident control (``console_incidents``);
    "" when the console has none."""


class ConsoleError(Exception):
    """A console request that cannot be carried out; the message is shown to the visitor."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


CONFIG = web.AppKey("console_config", ConsoleConfig)
DRIVER = web.AppKey("console_driver", SlackDriver)
CORE = web.AppKey("console_core", Core)
STREAMS: web.AppKey[set[asyncio.Queue[str | None]]] = web.AppKey("console_streams")


def add_console_routes(
    app: web.Application, core: Core, driver: SlackDriver, config: ConsoleConfig
) -> None:
    app[CONFIG] = config
    app[DRIVER] = driver
    app[CORE] = core
    streams: set[asyncio.Queue[str | None]] = set()
    app[STREAMS] = streams
    app.router.add_get("/console", _to_page)
    app.router.add_get("/console/", _page)
    app.router.add_get("/console/static/{name}", _static)
    app.router.add_get("/console/api/workspace", _json(_workspace))
    app.router.add_get("/console/api/state", _json(_state))
    app.router.add_get("/console/api/events", _events)
    app.router.add_post("/console/api/command", _json(_command))
    app.router.add_post("/console/api/message", _json(_message))
    app.router.add_post("/console/api/action", _json(_action))
    app.router.add_post("/console/api/submit", _json(_submit))
    app.router.add_post("/console/api/close", _json(_close))
    app.router.add_post("/console/api/home", _json(_home))
    app.router.add_post("/console/api/file", _json(_share_file))
    app.router.add_get("/console/files/{file_id}/{name}", _file)
    app.router.add_get("/console/samples/{name}", _sample)
    add_incident_routes(app, lambda: config.emulator_url)

    async def end_streams(_: web.Application) -> None:
        for queue in list(streams):
            queue.put_nowait(None)

    app.on_shutdown.append(end_streams)


# ---------------------------------------------------------------------- plumbing

Handler = Callable[[web.Request], Awaitable[JSON]]


def _json(handler: Handler) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def respond(request: web.Request) -> web.Response:
        try:
            body = await handler(request)
        except ConsoleError as exc:
            return web.json_response({"ok": False, "error": str(exc)}, status=exc.status)
        except (LookupError, ValueError) as exc:
            message = exc.args[0] if exc.args else str(exc)
            return web.json_response({"ok": False, "error": str(message)}, status=400)
        except RuntimeError as exc:  # the app is not connected yet
            return web.json_response({"ok": False, "error": str(exc)}, status=503)
        return web.json_response({"ok": True, **body}, headers={"Cache-Control": "no-store"})

    return respond


async def _body(request: web.Request) -> JSON:
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ConsoleError("the request body must be JSON") from None
    if not isinstance(body, dict):
        raise ConsoleError("the request body must be a JSON object")
    return body


def _text(body: JSON, name: str, *, required: bool = True) -> str | None:
    value = body.get(name)
    if value is None or value == "":
        if required:
            raise ConsoleError(f"{name} is missing")
        return None
    if not isinstance(value, str):
        raise ConsoleError(f"{name} must be a string")
    return value


def _person(core: Core, ref: str | None) -> User:
    if not ref:
        raise ConsoleError("user is missing")
    person = core.state.find_user(ref)
    if person is None or person.is_bot:
        raise ConsoleError(f"no person {ref!r} in this Slack")
    return person


def _delivery(delivery: Delivery | None) -> JSON:
    if delivery is None:
        return {"delivered": False}
    return {
        "delivered": True,
        "kind": delivery.kind,
        "status": delivery.status,
        "acked": delivery.acked,
        "in_time": delivery.in_time,
        "ack_ms": round(delivery.ack_seconds * 1000),
        "answer": delivery.json(),
    }


# ---------------------------------------------------------------------- pages


async def _to_page(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/console/")


async def _page(request: web.Request) -> web.StreamResponse:
    return web.FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-store"})


async def _static(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    if name not in STATIC_FILES:
        raise web.HTTPNotFound()
    return web.FileResponse(STATIC_DIR / name, headers={"Cache-Control": "no-store"})


# ---------------------------------------------------------------------- reading


async def _workspace(request: web.Request) -> JSON:
    core, config = request.app[CORE], request.app[CONFIG]
    state = core.state
    team = state.team(request.query.get("team") or state.first_team_id())
    people = [
        {
            "id": u.id,
            "name": u.name,
            "real_name": u.real_name,
            "is_admin": u.is_admin,
        }
        for u in state.users_of(team.id)
        if not u.is_bot and not u.deleted
    ]
    channels = [
        {
            "id": c.id,
            "name": c.name,
            "is_private": c.is_private,
            "bot_member": team.bot_user_id in c.members,
            "members": sorted(c.members),
        }
        for c in state.channels_of(team.id)
        if not c.is_im
    ]
    return {
        "team": {"id": team.id, "name": team.name, "domain": team.domain},
        "bot": {"id": team.bot_user_id, "name": state.app_name},
        "people": people,
        "users": {
            u.id: {"name": u.name, "real_name": u.real_name} for u in state.users_of(team.id)
        },
        "channels": channels,
        "command": config.command,
        "completions": [asdict(c) for c in config.completions],
        "samples": [sample.json() for sample in config.samples],
        "max_upload": MAX_UPLOAD_BYTES,
        "title": config.title,
    }


def _with_files(core: Core, message: JSON) -> JSON:
    """Point each shared file at the console's file route: the browser has no bot token."""
    for item in message.get("files") or []:
        if isinstance(item, dict) and item.get("id"):
            name = str(item.get("name") or "file")
            item["console_url"] = f"/console/files/{item['id']}/{name}"
    return message


async def _state(request: web.Request) -> JSON:
    core = request.app[CORE]
    state = core.state
    person = _person(core, request.query.get("user"))
    body: JSON = {"user": person.id}
    channel_ref = request.query.get("channel")
    if channel_ref:
        if channel_ref == "app":
            channel = state.open_im(person.team_id, person.id)
        else:
            channel = state.channel(channel_ref, person.team_id)
        messages = []
        for message in state.messages(channel.id):
            if int(message.get("reply_count") or 0) > 0:
                replies = state.thread(channel.id, message["ts"])
                message["replies"] = [
                    _with_files(core, r) for r in replies if r["ts"] != message["ts"]
                ]
            messages.append(_with_files(core, message))
        body["channel"] = {"id": channel.id, "name": channel.name, "is_im": channel.is_im}
        body["messages"] = messages
        body["ephemerals"] = [
            e for e in state.ephemerals(person.id) if e.get("channel") == channel.id
        ]
    views = state.stack(person.team_id, person.id)
    for view in views:
        view["errors"] = state.view_errors(view["id"])
    body["views"] = views
    body["home"] = state.home(person.team_id, person.id)
    return body


async def _file(request: web.Request) -> web.StreamResponse:
    core = request.app[CORE]
    stored = core.state.file(request.match_info["file_id"])
    if stored is None or stored.content is None:
        raise web.HTTPNotFound()
    mimetype = mimetypes.guess_type(stored.name)[0] or "application/octet-stream"
    return web.Response(body=stored.content, content_type=mimetype)


async def _sample(request: web.Request) -> web.StreamResponse:
    config = request.app[CONFIG]
    sample = next((f for f in config.samples if f.name == request.match_info["name"]), None)
    if sample is None:
        raise web.HTTPNotFound()
    mimetype = mimetypes.guess_type(sample.name)[0] or "application/octet-stream"
    return web.Response(
        body=sample.content, content_type=mimetype, headers={"Cache-Control": "no-store"}
    )


async def _events(request: web.Request) -> web.StreamResponse:
    """One SSE ``data:`` line per change; the page re-reads what the change concerns."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    streams = request.app[STREAMS]

    def heard(event: StandInEvent) -> None:
        if event.kind not in LIVE_KINDS:
            return
        line = json.dumps({"kind": event.kind, "seq": event.seq, **_summary(event)})
        with contextlib.suppress(RuntimeError):  # loop closed while shutting down
            loop.call_soon_threadsafe(queue.put_nowait, line)

    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",
        }
    )
    await response.prepare(request)
    await response.write(b": connected\n\n")
    streams.add(queue)
    unsubscribe = request.app[CORE].bus.subscribe(heard)
    try:
        while True:
            try:
                line = await asyncio.wait_for(queue.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                await response.write(b": keep-alive\n\n")
                continue
            if line is None:
                break
            await response.write(f"data: {line}\n\n".encode())
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        unsubscribe()
        streams.discard(queue)
    return response


def _summary(event: StandInEvent) -> JSON:
    """The few fields the page uses to decide what to re-read (never message bodies)."""
    data = event.data
    summary: JSON = {}
    for key in ("channel", "user", "view_id", "ts", "run"):
        if isinstance(data.get(key), str):
            summary[key] = data[key]
    view = data.get("view")
    if isinstance(view, dict):
        summary["view_id"] = view.get("id")
    delivery = data.get("delivery")
    if isinstance(delivery, Delivery):
        summary.update(
            delivered=delivery.kind,
            user=delivery.user_id,
            status=delivery.status,
            ack_ms=round(delivery.ack_seconds * 1000),
        )
    return summary


# ---------------------------------------------------------------------- acting


def escape_mentions(core: Core, team_id: str, text: str) -> str:
    """What Slack does to a command's text when the command has ``should_escape``:
    ``&``, ``<`` and ``>`` arrive as ``&amp;``, ``&lt;`` and ``&gt;`` (as in every text
    Slack hands an app), and ``@name`` and ``#name`` of real users and channels become
    ``<@U…|name>`` and ``<#C…|name>``; anything else is left as typed."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    def replace(match: re.Match[str]) -> str:
        sigil, name = match.group(1), match.group(2)
        if sigil == "@":
            user = core.state.find_user(name, team_id)
            if user is not None and user.team_id == team_id:
                return f"<@{user.id}|{user.name}>"
        else:
            channel = core.state.find_channel(name, team_id)
            if channel is not None and channel.team_id == team_id and not channel.is_im:
                return f"<#{channel.id}|{channel.name}>"
        return match.group(0)

    return MENTION.sub(replace, text)


def split_command(typed: str, default: str) -> tuple[str, str]:
    """``"/callops campaigns"`` -> ``("/callops", "campaigns")``."""
    typed = typed.strip()
    if not typed.startswith("/"):
        return default, typed
    command, _, rest = typed.partition(" ")
    return command, rest.strip()


def _conversation(core: Core, person: User, ref: str) -> str:
    if ref == "app":
        return core.state.open_im(person.team_id, person.id).id
    channel = core.state.channel(ref, person.team_id)
    if not channel.is_im and person.id not in channel.members:
        raise ConsoleError(f"{person.name} is not in #{channel.name}")
    return channel.id


async def _command(request: web.Request) -> JSON:
    core, driver, config = request.app[CORE], request.app[DRIVER], request.app[CONFIG]
    body = await _body(request)
    person = _person(core, _text(body, "user"))
    channel = _conversation(core, person, _text(body, "channel") or "")
    command, text = split_command(_text(body, "text") or "", config.command)
    if command != config.command:
        raise ConsoleError(f"{command} is not a command of this app; try {config.command}")
    text = escape_mentions(core, person.team_id, text)
    delivery = await driver.slash_command(user=person.id, channel=channel, text=text)
    return _delivery(delivery)


async def _message(request: web.Request) -> JSON:
    """A person posts a plain message. The app hears of it only if it subscribes to
    message events (``ConsoleConfig.message_events``); callops' manifest does not, so by
    default the message is just stored, as Slack would, and no event is sent."""
    core, driver, config = request.app[CORE], request.app[DRIVER], request.app[CONFIG]
    body = await _body(request)
    person = _person(core, _text(body, "user"))
    channel_id = _channel_to_post_in(core, config, person, _text(body, "channel") or "")
    text = escape_mentions(core, person.team_id, _text(body, "text") or "")
    delivery = await driver.user_message(
        user=person.id, channel=channel_id, text=text, notify_app=config.message_events
    )
    return _delivery(delivery)


def _channel_to_post_in(core: Core, config: ConsoleConfig, person: User, ref: str) -> str:
    channel_id = _conversation(core, person, ref)
    if core.state.channel(channel_id).is_im:
        raise ConsoleError(f"The app's Messages tab is read-only; try {config.command} here")
    return channel_id


async def _share_file(request: web.Request) -> JSON:
    """A person drops a file into a channel (the page's attach button, drag and drop, or a
    sample).  Slack's client uploads it and shares it as the person's message; so does the
    driver.  The app hears of it as it would from Slack: a ``message`` event of subtype
    ``file_share`` only if it subscribes to message events (callops does not: it finds the
    file in the channel's history when asked to)."""
    core, driver, config = request.app[CORE], request.app[DRIVER], request.app[CONFIG]
    if not request.content_type.startswith("multipart/"):
        raise ConsoleError("send the file as multipart/form-data")
    fields: dict[str, str] = {}
    upload: tuple[str, bytes] | None = None
    reader = await request.multipart()
    async for part in reader:
        if not isinstance(part, BodyPartReader) or not part.name:
            continue
        if part.filename is not None:
            data = bytearray()
            while chunk := await part.read_chunk():
                data += chunk
                if len(data) > MAX_UPLOAD_BYTES:  # read no further than the limit
                    raise ConsoleError(
                        f"{part.filename} is larger than the stand-in keeps "
                        f"({MAX_UPLOAD_BYTES // (1024 * 1024)} MB)",
                        status=413,
                    )
            upload = (part.filename, bytes(data))
        else:
            fields[part.name] = await part.text()
    person = _person(core, fields.get("user"))
    channel_id = _channel_to_post_in(core, config, person, fields.get("channel") or "")
    if upload is None or not upload[0].strip():
        raise ConsoleError("file is missing")
    name, content = upload
    if not content:
        raise ConsoleError(f"{name} is empty; Slack does not share empty files")
    text = escape_mentions(core, person.team_id, fields.get("text") or "")
    delivery = await driver.file_share(
        user=person.id,
        channel=channel_id,
        name=name.strip(),
        content=content,
        text=text,
        notify_app=config.message_events,
    )
    return _delivery(delivery)


async def _action(request: web.Request) -> JSON:
    core, driver = request.app[CORE], request.app[DRIVER]
    body = await _body(request)
    person = _person(core, _text(body, "user"))
    delivery = await driver.block_action(
        user=person.id,
        action_id=_text(body, "action_id") or "",
        block_id=_text(body, "block_id", required=False),
        channel=_text(body, "channel", required=False),
        ts=_text(body, "ts", required=False),
        ephemeral_ts=_text(body, "ephemeral_ts", required=False),
        view_id=_text(body, "view_id", required=False),
        value=body.get("value"),
    )
    return _delivery(delivery)


async def _submit(request: web.Request) -> JSON:
    core, driver = request.app[CORE], request.app[DRIVER]
    body = await _body(request)
    person = _person(core, _text(body, "user"))
    values = body.get("values") or {}
    if not isinstance(values, dict):
        raise ConsoleError("values must map block ids to what was entered")
    view_id = _text(body, "view_id") or ""
    delivery = await driver.view_submission(view_id, values, user=person.id)
    return _delivery(delivery)


async def _close(request: web.Request) -> JSON:
    core, driver = request.app[CORE], request.app[DRIVER]
    body = await _body(request)
    person = _person(core, _text(body, "user"))
    delivery = await driver.view_closed(_text(body, "view_id") or "", user=person.id)
    return _delivery(delivery)


async def _home(request: web.Request) -> JSON:
    core, driver = request.app[CORE], request.app[DRIVER]
    body = await _body(request)
    person = _person(core, _text(body, "user"))
    return _delivery(await driver.app_home_opened(person.id))


def completions_from(items: Sequence[Completion | JSON | tuple[str, str, str]]) -> list[Completion]:
    """Accept the few shapes a caller may have at hand."""
    found: list[Completion] = []
    for item in items:
        if isinstance(item, Completion):
            found.append(item)
        elif isinstance(item, dict):
            found.append(
                Completion(
                    str(item["name"]),
                    str(item.get("usage", item["name"])),
                    str(item.get("summary", "")),
                )
            )
        else:
            name, usage, summary = item
            found.append(Completion(name, usage, summary))
    return found
