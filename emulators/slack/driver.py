"""The signed driver: sends the app what Slack sends, the way Slack sends it.

Every method builds the real payload from the stand-in's records (the stored message a
button sits in, the open modal, a fresh trigger_id and response_url), delivers it over HTTP
to the app's request URL (signed v0) or over an open Socket Mode connection, waits for the
acknowledgement, and then does what Slack does with the acknowledgement: a slash command's
ack body becomes the reply the user sees, a view_submission's ``response_action`` updates
the modal stack, an ack later than 3 s makes Slackbot say the command failed.

Each call returns a ``Delivery`` (status, body, ack time). Methods are coroutines that may
be awaited from any event loop; the work runs on the stand-in's loop.  A sender that must
not share that loop (a benchmark timing acks while the stand-in serves the app's Web API
calls) builds slash commands with ``prepare_slash_command``, signs and sends them with
``request_headers`` and ``post`` from its own process, and hands the answers back to
``settle_slash_command``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypedDict, TypeVar, Unpack
from urllib.parse import urlencode

import aiohttp

from emulators.slack import payloads
from emulators.slack.blockkit import find_action
from emulators.slack.core import Core
from emulators.slack.errors import SlackError
from emulators.slack.methods_files import file_body
from emulators.slack.methods_views import checked_view
from emulators.slack.model import JSON, Channel, ResponseUrl, Team, User
from emulators.slack.replies import apply_reply
from emulators.slack.signing import signed_headers
from emulators.slack.socket_mode import SocketHub
from emulators.slack.workflows import parameter_problems

T = TypeVar("T")
Transport = Literal["http", "socket"]
ACK_DEADLINE = 3.0
FORM = "application/x-www-form-urlencoded"


class SendOptions(TypedDict, total=False):
    transport: Transport  # default: Socket Mode if a connection is open, else HTTP
    bad_signature: bool  # sign with the wrong secret
    timestamp_skew: float  # date the request this many seconds in the past
    ack_timeout: float  # how long to wait for the ack (default 10 s; Slack gives up at 3)


def message_container(ts: str, channel: str, *, ephemeral: bool = False) -> JSON:
    """Where a click on a message's element came from, as Slack's ``container`` says it."""
    return {"type": "message", "message_ts": ts, "channel_id": channel, "is_ephemeral": ephemeral}


@dataclass
class Delivery:
    """One request delivered to the app, and how the app acknowledged it."""

    kind: str  # slash_command, block_actions, view_submission, view_closed, ...
    payload: JSON  # what was sent: the form fields of a command, else the JSON payload
    team_id: str
    transport: Transport = "http"
    status: int = 0  # HTTP status; over Socket Mode 200 when acked; 0 when no answer came
    body: str = ""  # the ack body (Socket Mode: the ack's payload as JSON, or "")
    ack_seconds: float = 0.0
    user_id: str | None = None
    trigger_id: str | None = None
    response_url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    sent_body: str = ""
    content_type: str = "application/json"
    envelope_type: str = ""
    accepts_response_payload: bool = False
    retry_num: int = 0
    sent_headers: dict[str, str] = field(default_factory=dict)
    """The headers it went out with over HTTP (timestamp and signature included)."""

    @property
    def acked(self) -> bool:
        return self.status == 200

    @property
    def in_time(self) -> bool:
        """Acknowledged within Slack's 3 seconds."""
        return self.acked and self.ack_seconds <= ACK_DEADLINE

    def json(self) -> Any:
        if not self.body:
            return None
        try:
            return json.loads(self.body)
        except json.JSONDecodeError:
            return None


def request_headers(
    secret: str, delivery: Delivery, *, timestamp: int, corrupt: bool = False
) -> dict[str, str]:
    """The headers Slack sends ``delivery`` over HTTP with: its content type, Slackbot's
    user agent and the v0 signature of its body at ``timestamp`` (``corrupt``: signed
    with the wrong secret)."""
    return {
        "Content-Type": delivery.content_type,
        "User-Agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
        **signed_headers(secret, delivery.sent_body, timestamp=timestamp, corrupt=corrupt),
    }


async def post(
    session: aiohttp.ClientSession,
    url: str,
    delivery: Delivery,
    headers: dict[str, str],
    limit: float,
) -> None:
    """POST ``delivery`` to the app's request ``url`` and fill in how it answered: status
    (0 when no answer came within ``limit`` seconds), body, headers and ``ack_seconds``,
    from the request handed to the session to the response read."""
    delivery.sent_headers = dict(headers)
    started = time.perf_counter()
    try:
        async with session.post(
            url,
            data=delivery.sent_body.encode(),
            headers=delivery.sent_headers,
            timeout=aiohttp.ClientTimeout(total=limit),
            allow_redirects=False,
        ) as response:
            delivery.body = await response.text()
            delivery.status = response.status
            delivery.headers = dict(response.headers)
    except (TimeoutError, aiohttp.ClientError) as exc:
        delivery.status = 0
        delivery.body = f"{type(exc).__name__}: {exc}"
    delivery.ack_seconds = time.perf_counter() - started


class SlackDriver:
    def __init__(self, core: Core, hub: SocketHub, *, signing_secret: str) -> None:
        self._core = core
        self._hub = hub
        self.signing_secret = signing_secret
        self.request_url: str | None = None
        self.transport: Literal["auto", "http", "socket"] = "auto"
        self.history: list[Delivery] = []
        self._session: aiohttp.ClientSession | None = None
        self._signed: dict[str, int] = {}
        """The latest timestamp each body was signed with (a resend signs a later one)."""

    @property
    def last(self) -> Delivery | None:
        return self.history[-1] if self.history else None

    # ------------------------------------------------------------ plumbing

    async def on_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the stand-in's loop, awaiting it from whichever loop calls."""
        loop = self._core.loop
        if loop is None:
            coro.close()
            raise RuntimeError("the Slack stand-in is not running")
        if asyncio.get_running_loop() is loop:
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _who(self, user: str, team: str | None) -> tuple[Team, User]:
        person = self._core.state.user(user, team)
        return self._core.state.team(person.team_id), person

    def _channel(self, ref: str, team: Team) -> Channel:
        person = self._core.state.find_user(ref, team.id) if ref[:1] in {"U", "W"} else None
        if person is not None and person.id == ref:
            return self._core.state.open_im(team.id, person.id)
        return self._core.state.channel(ref, team.id)

    def _message(self, channel_ref: str, ts: str, team: Team) -> tuple[Channel, JSON]:
        """The channel and the message a click names, which must exist."""
        channel = self._channel(channel_ref, team)
        message = self._core.state.get_message(channel.id, ts)
        if message is None:
            raise LookupError(f"no message {ts} in {channel.id}")
        return channel, message

    def _response_url(self, record: ResponseUrl) -> str:
        return f"{self._core.base_url}response/{record.id}"

    def _choose(self, options: SendOptions, *, http_only: bool = False) -> Transport:
        wanted = options.get("transport") or self.transport
        if wanted == "auto":
            return "socket" if self._hub.connected and not http_only else "http"
        return wanted

    async def _deliver(
        self,
        delivery: Delivery,
        options: SendOptions,
        *,
        http_only: bool = False,
        extra_headers: dict[str, str] | None = None,
        signed_after: int | None = None,
    ) -> Delivery:
        limit = options.get("ack_timeout", 10.0)
        delivery.transport = self._choose(options, http_only=http_only)
        if delivery.transport == "socket":
            ack = await self._hub.send(
                delivery.envelope_type,
                delivery.payload,
                accepts_response_payload=delivery.accepts_response_payload,
                wait=limit,
                retry_attempt=delivery.retry_num,
                retry_reason="timeout" if delivery.retry_num else "",
            )
            delivery.status = 200 if ack.acked else 0
            delivery.body = json.dumps(ack.payload) if ack.payload is not None else ""
            delivery.ack_seconds = ack.seconds
        else:
            await self._post(delivery, options, limit, extra_headers or {}, signed_after)
        self._record(delivery)
        return delivery

    def _record(self, delivery: Delivery) -> None:
        """A request sent and answered: in ``history``, and told to the bus's watchers."""
        self.history.append(delivery)
        self._core.bus.publish("delivery", delivery.team_id, delivery=delivery)

    async def _post(
        self,
        delivery: Delivery,
        options: SendOptions,
        limit: float,
        extra: dict[str, str],
        signed_after: int | None = None,
    ) -> None:
        """POST to the request URL, signed now (``signed_after``: a later second than that
        timestamp, as a request Slack sends again is signed afresh: never the same
        signature twice)."""
        timestamp = int(time.time() - options.get("timestamp_skew", 0.0))
        if signed_after is not None:
            timestamp = max(timestamp, signed_after + 1)
        if len(self._signed) > 10_000:
            self._signed.clear()
        self._signed[delivery.sent_body] = max(timestamp, self._signed.get(delivery.sent_body, 0))
        headers = {
            **request_headers(
                self.signing_secret,
                delivery,
                timestamp=timestamp,
                corrupt=options.get("bad_signature", False),
            ),
            **extra,
        }
        await self._send(delivery, headers, limit)

    async def _send(self, delivery: Delivery, headers: dict[str, str], limit: float) -> None:
        if not self.request_url:
            raise RuntimeError("no request URL set and no Socket Mode connection open")
        if self._session is None:
            self._session = aiohttp.ClientSession()
        await post(self._session, self.request_url, delivery, headers, limit)

    def _journal_ack(self, delivery: Delivery, problems: list[str], error: str | None) -> None:
        self._core.journal.record(
            at=self._core.clock.now(),
            kind="ack",
            method=delivery.kind,
            team_id=delivery.team_id,
            params={"body": delivery.json() if delivery.json() is not None else delivery.body},
            status=delivery.status,
            response={"ok": error is None, **({"error": error} if error else {})},
            problems=problems,
        )

    # ------------------------------------------------------------ slash commands

    async def slash_command(
        self,
        *,
        user: str,
        channel: str,
        text: str = "",
        command: str = "/callops",
        team: str | None = None,
        **options: Unpack[SendOptions],
    ) -> Delivery:
        return await self.on_loop(self._slash_command(user, channel, text, command, team, options))

    async def _slash_command(
        self,
        user_ref: str,
        channel_ref: str,
        text: str,
        command: str,
        team_ref: str | None,
        options: SendOptions,
    ) -> Delivery:
        delivery, record = self._slash_delivery(user_ref, channel_ref, text, command, team_ref)
        await self._deliver(delivery, options)
        self._after_slash(delivery, record, command)
        return delivery

    async def prepare_slash_command(
        self,
        *,
        user: str,
        channel: str,
        text: str = "",
        command: str = "/callops",
        team: str | None = None,
    ) -> Delivery:
        """The slash command ``slash_command`` would send (a fresh trigger id and
        ``response_url`` from the stand-in's records), built but not sent: for a sender
        with a loop of its own (another process), whose timing must not queue behind the
        stand-in's work.  It signs it with ``request_headers`` and sends it with ``post``
        over HTTP, then hands the answered delivery to ``settle_slash_command``."""

        async def build() -> Delivery:
            return self._slash_delivery(user, channel, text, command, team)[0]

        return await self.on_loop(build())

    async def settle_slash_command(self, delivery: Delivery) -> None:
        """Do with a slash command sent elsewhere (``prepare_slash_command``) and answered
        what ``slash_command`` does with the ack: kept in ``history``, its ack body shown
        as the reply, Slackbot's "failed" notice when it came late or not at all."""

        async def settle() -> None:
            url = delivery.response_url or ""
            record = self._core.state.response_urls[url.rsplit("/", 1)[-1]]
            delivery.transport = "http"
            self._record(delivery)
            self._after_slash(delivery, record, str(delivery.payload["command"]))

        await self.on_loop(settle())

    def _slash_delivery(
        self,
        user_ref: str,
        channel_ref: str,
        text: str,
        command: str,
        team_ref: str | None,
    ) -> tuple[Delivery, ResponseUrl]:
        state = self._core.state
        team, user = self._who(user_ref, team_ref)
        channel = self._channel(channel_ref, team)
        trigger_id = state.issue_trigger(team.id, user.id)
        record = state.new_response_url(team.id, user.id, channel.id, source=None)
        form = payloads.slash_command_form(
            team=team,
            user=user,
            channel=channel,
            command=command,
            text=text,
            response_url=self._response_url(record),
            trigger_id=trigger_id,
        )
        delivery = Delivery(
            kind="slash_command",
            payload=form,
            team_id=team.id,
            user_id=user.id,
            trigger_id=trigger_id,
            response_url=form["response_url"],
            sent_body=urlencode(form),
            content_type=FORM,
            envelope_type="slash_commands",
            accepts_response_payload=True,
        )
        return delivery, record

    def _after_slash(self, delivery: Delivery, record: ResponseUrl, command: str) -> None:
        if not delivery.in_time:
            reason = (
                "operation_timeout" if delivery.acked or delivery.status == 0 else "dispatch_failed"
            )
            self._core.state.add_ephemeral(
                record.team_id,
                channel_id=record.channel_id,
                user_id=record.user_id,
                text=f'{command} failed with the error "{reason}"',
                blocks=None,
                thread_ts=None,
                source="slackbot",
            )
            return
        if not delivery.body.strip():
            return
        body = delivery.json()
        reply = body if isinstance(body, dict) else {"text": delivery.body}
        problems: list[str] = []
        error: str | None = None
        try:
            apply_reply(self._core, record, reply, problems)
        except SlackError as exc:
            error = exc.code
        self._journal_ack(delivery, problems, error)

    # ------------------------------------------------------------ block actions

    async def block_action(
        self,
        *,
        user: str,
        action_id: str,
        channel: str | None = None,
        ts: str | None = None,
        view_id: str | None = None,
        ephemeral_ts: str | None = None,
        block_id: str | None = None,
        value: Any = None,
        team: str | None = None,
        **options: Unpack[SendOptions],
    ) -> Delivery:
        """Click (or pick ``value`` in) the element ``action_id`` of a message
        (``channel`` + ``ts``), an ephemeral message (``ephemeral_ts``) or a view
        (``view_id``: a modal or the Home tab). The element must be there."""
        return await self.on_loop(
            self._block_action(
                user, action_id, channel, ts, view_id, ephemeral_ts, block_id, value, team, options
            )
        )

    async def _block_action(
        self,
        user_ref: str,
        action_id: str,
        channel_ref: str | None,
        ts: str | None,
        view_id: str | None,
        ephemeral_ts: str | None,
        block_id: str | None,
        value: Any,
        team_ref: str | None,
        options: SendOptions,
    ) -> Delivery:
        state = self._core.state
        team, user = self._who(user_ref, team_ref)
        trigger_id = state.issue_trigger(team.id, user.id)
        body = payloads.interaction_base("block_actions", team, user, trigger_id)
        response_url: str | None = None
        if view_id is not None:
            view = state.find_view(view_id)
            if view is None or state.view_owner(view_id) is None:
                raise LookupError(f"view {view_id} is not open")
            blocks = view.get("blocks")
            body["container"] = {"type": "view", "view_id": view_id}
            body["view"] = view
        elif ephemeral_ts is not None:
            record = state.get_ephemeral(ephemeral_ts)
            if record is None:
                raise LookupError(f"no ephemeral message {ephemeral_ts}")
            channel = state.channel(record["channel"])
            blocks = record.get("blocks")
            body["container"] = message_container(ephemeral_ts, channel.id, ephemeral=True)
            body["channel"] = payloads.channel_ref(channel)
            url = state.new_response_url(
                team.id, user.id, channel.id, ("ephemeral", user.id, ephemeral_ts)
            )
            response_url = self._response_url(url)
        else:
            if channel_ref is None or ts is None:
                raise ValueError("block_action needs channel and ts, ephemeral_ts, or view_id")
            channel, message = self._message(channel_ref, ts, team)
            blocks = message.get("blocks")
            container = message_container(ts, channel.id)
            if message.get("thread_ts") and message["thread_ts"] != ts:
                container["thread_ts"] = message["thread_ts"]
            body["container"] = container
            body["channel"] = payloads.channel_ref(channel)
            body["message"] = message
            body["state"] = {"values": {}}
            url = state.new_response_url(team.id, user.id, channel.id, ("message", channel.id, ts))
            response_url = self._response_url(url)
        found = find_action(blocks, action_id, block_id)
        if found is None:
            raise LookupError(f"no element with action_id {action_id!r} there")
        action_ts = self._core.ids.ts(self._core.clock.now())
        body["actions"] = [payloads.action_entry(found[0], found[1], value, action_ts)]
        if response_url is not None:
            body["response_url"] = response_url
        delivery = self._interactive("block_actions", body, team, user, trigger_id, False)
        delivery.response_url = response_url
        return await self._deliver(delivery, options)

    def _interactive(
        self,
        kind: str,
        body: JSON,
        team: Team,
        user: User,
        trigger_id: str | None,
        accepts: bool,
    ) -> Delivery:
        return Delivery(
            kind=kind,
            payload=body,
            team_id=team.id,
            user_id=user.id,
            trigger_id=trigger_id,
            sent_body=urlencode({"payload": json.dumps(body)}),
            content_type=FORM,
            envelope_type="interactive",
            accepts_response_payload=accepts,
        )

    async def block_suggestion(
        self,
        *,
        user: str,
        action_id: str,
        value: str,
        view_id: str | None = None,
        channel: str | None = None,
        ts: str | None = None,
        team: str | None = None,
        **options: Unpack[SendOptions],
    ) -> Delivery:
        """Typing ``value`` into an external select; the app's ack body holds the options."""
        return await self.on_loop(
            self._block_suggestion(user, action_id, value, view_id, channel, ts, team, options)
        )

    async def _block_suggestion(
        self,
        user_ref: str,
        action_id: str,
        value: str,
        view_id: str | None,
        channel_ref: str | None,
        ts: str | None,
        team_ref: str | None,
        options: SendOptions,
    ) -> Delivery:
        state = self._core.state
        team, user = self._who(user_ref, team_ref)
        body = payloads.interaction_base("block_suggestion", team, user, None)
        if view_id is not None:
            view = state.find_view(view_id)
            if view is None:
                raise LookupError(f"no view {view_id}")
            blocks = view.get("blocks")
            body["container"] = {"type": "view", "view_id": view_id}
            body["view"] = view
        else:
            if channel_ref is None or ts is None:
                raise ValueError("block_suggestion needs view_id, or channel and ts")
            channel, message = self._message(channel_ref, ts, team)
            blocks = message.get("blocks")
            body["container"] = message_container(ts, channel.id)
            body["channel"] = payloads.channel_ref(channel)
            body["message"] = message
        found = find_action(blocks, action_id)
        if found is None:
            raise LookupError(f"no element with action_id {action_id!r} there")
        body.update({"action_id": action_id, "block_id": found[0].get("block_id"), "value": value})
        delivery = self._interactive("block_suggestion", body, team, user, None, True)
        return await self._deliver(delivery, options)

    # ------------------------------------------------------------ modals

    async def view_submission(
        self,
        view_id: str,
        values: dict[str, Any] | None = None,
        *,
        user: str | None = None,
        **options: Unpack[SendOptions],
    ) -> Delivery:
        """Press Submit on an open modal.

        ``values`` maps block_id to what the user entered: a plain value (text, an option's
        value, a date string, a user id, a list for multi-selects) or ``{action_id: value}``;
        inputs left out are sent empty, as Slack does. Like Slack's client, refuses
        (``ValueError``) when a required input is empty.
        """
        return await self.on_loop(self._view_submission(view_id, values or {}, user, options))

    async def _view_submission(
        self, view_id: str, values: dict[str, Any], user_ref: str | None, options: SendOptions
    ) -> Delivery:
        state = self._core.state
        view = state.find_view(view_id)
        owner = state.view_owner(view_id)
        if view is None or owner is None:
            raise LookupError(f"view {view_id} is not open")
        team, user = self._who(user_ref or owner[1], owner[0])
        state_values: JSON = {}
        for block in view.get("blocks") or []:
            element = block.get("element")
            if block.get("type") != "input" or not isinstance(element, dict):
                continue
            block_id, action_id = str(block.get("block_id")), str(element.get("action_id"))
            choice = values.get(block_id)
            if isinstance(choice, dict) and action_id in choice and "type" not in choice:
                choice = choice[action_id]
            entry = payloads.state_entry(element, choice)
            if not block.get("optional") and payloads.is_empty(entry):
                raise ValueError(f"required input {block_id!r} is empty; Slack would not submit")
            state_values[block_id] = {action_id: entry}
        state.set_view_state(view_id, state_values)
        submitted = state.find_view(view_id) or view
        trigger_id = state.issue_trigger(team.id, user.id)
        body = payloads.interaction_base("view_submission", team, user, trigger_id)
        body["view"] = submitted
        body["response_urls"] = []
        delivery = self._interactive("view_submission", body, team, user, trigger_id, True)
        await self._deliver(delivery, options)
        if delivery.in_time:
            self._after_submission(delivery, view_id, team, user)
        return delivery

    def _after_submission(self, delivery: Delivery, view_id: str, team: Team, user: User) -> None:
        state = self._core.state
        body = delivery.json()
        action = body.get("response_action") if isinstance(body, dict) else None
        problems: list[str] = []
        error: str | None = None
        try:
            if action is None:
                state.close_view(view_id)
            elif action == "clear":
                state.close_view(view_id, all_views=True)
            elif action == "errors":
                errors = body.get("errors") if isinstance(body, dict) else None
                if not isinstance(errors, dict) or not errors:
                    raise SlackError("invalid_arguments")
                state.set_view_errors(view_id, {str(k): str(v) for k, v in errors.items()})
            elif action in {"update", "push"}:
                raw = body.get("view") if isinstance(body, dict) else None
                try:
                    view = checked_view(self._core, None, raw, ("modal",))
                except SlackError as exc:
                    problems.extend(exc.extra.get("errors", []))
                    raise
                if action == "update":
                    state.update_view(view_id, view, expected_hash=None)
                else:
                    state.open_view(team, user.id, view, push=True)
            else:
                raise SlackError("invalid_arguments")
        except SlackError as exc:
            error = exc.code
        if body is not None or error is not None:
            self._journal_ack(delivery, problems, error)

    async def view_closed(
        self,
        view_id: str,
        *,
        user: str | None = None,
        force: bool = False,
        **options: Unpack[SendOptions],
    ) -> Delivery | None:
        """Close a modal with its Cancel button or the X. Slack tells the app only when the
        view asked for it (``notify_on_close``) or, here, when ``force`` is set; otherwise
        the modal just closes and None is returned."""
        return await self.on_loop(self._view_closed(view_id, user, force, options))

    async def _view_closed(
        self, view_id: str, user_ref: str | None, force: bool, options: SendOptions
    ) -> Delivery | None:
        state = self._core.state
        view = state.find_view(view_id)
        owner = state.view_owner(view_id)
        if view is None or owner is None:
            raise LookupError(f"view {view_id} is not open")
        team, user = self._who(user_ref or owner[1], owner[0])
        state.close_view(view_id, all_views=bool(view.get("clear_on_close")))
        if not (view.get("notify_on_close") or force):
            return None
        body = payloads.interaction_base("view_closed", team, user, None)
        body["view"] = view
        body["is_cleared"] = bool(view.get("clear_on_close"))
        delivery = self._interactive("view_closed", body, team, user, None, False)
        return await self._deliver(delivery, options)

    # ------------------------------------------------------------ events

    async def event(
        self, event: JSON, *, team: str | None = None, **options: Unpack[SendOptions]
    ) -> Delivery:
        """Deliver ``event`` in an ``event_callback`` envelope (``team`` defaults to the
        team of ``event["user"]``, else the first team)."""
        return await self.on_loop(self._event(event, team, options))

    async def _event(self, event: JSON, team_ref: str | None, options: SendOptions) -> Delivery:
        state = self._core.state
        if team_ref is None and isinstance(event.get("user"), str):
            person = state.find_user(event["user"])
            team_ref = person.team_id if person else None
        team = state.team(team_ref or state.first_team_id())
        now = self._core.clock.now()
        event = dict(event)
        event.setdefault("event_ts", self._core.ids.ts(now))
        envelope = payloads.event_envelope(
            team, event, event_id=self._core.ids.event_id(), event_time=int(now)
        )
        delivery = Delivery(
            kind="event_callback",
            payload=envelope,
            team_id=team.id,
            user_id=event.get("user") if isinstance(event.get("user"), str) else None,
            sent_body=json.dumps(envelope),
            envelope_type="events_api",
        )
        return await self._deliver(delivery, options)

    async def app_home_opened(
        self, user: str, *, tab: str = "home", **options: Unpack[SendOptions]
    ) -> Delivery:
        state = self._core.state
        person = state.user(user)
        im = state.open_im(person.team_id, person.id)
        event: JSON = {"type": "app_home_opened", "user": person.id, "channel": im.id, "tab": tab}
        home = state.home(person.team_id, person.id)
        if home is not None and tab == "home":
            event["view"] = home
        return await self.event(event, team=person.team_id, **options)

    async def user_message(
        self,
        *,
        user: str,
        channel: str,
        text: str,
        notify_app: bool = True,
        **options: Unpack[SendOptions],
    ) -> Delivery | None:
        """A person posts ``text``; the app hears of it only if the bot is in the channel
        and ``notify_app`` (the app subscribes to message events; callops does not)."""
        return await self.on_loop(
            self._user_post(user, channel, text, None, options, notify_app=notify_app)
        )

    async def file_share(
        self,
        *,
        user: str,
        channel: str,
        name: str,
        content: bytes,
        text: str = "",
        notify_app: bool = True,
        **options: Unpack[SendOptions],
    ) -> Delivery | None:
        """A person uploads a file to a channel (e.g. a CSV of leads), as Slack's client
        does: the file is stored (downloadable with the bot token) and shared as the
        person's message, which ``conversations.history`` and ``files.info`` show.  The
        ``message``/``file_share`` event goes to the app if the bot is in the channel and
        ``notify_app`` (None otherwise, as Slack sends nothing)."""
        return await self.on_loop(
            self._user_post(user, channel, text, (name, content), options, notify_app=notify_app)
        )

    async def _user_post(
        self,
        user_ref: str,
        channel_ref: str,
        text: str,
        upload: tuple[str, bytes] | None,
        options: SendOptions,
        *,
        notify_app: bool = True,
    ) -> Delivery | None:
        state = self._core.state
        team, user = self._who(user_ref, None)
        channel = self._channel(channel_ref, team)
        ts = self._core.ids.ts(self._core.clock.now())
        message: JSON = {
            "type": "message",
            "text": text,
            "user": user.id,
            "ts": ts,
            "team": team.id,
            "client_msg_id": self._core.ids.opaque(12),
        }
        if upload is not None:
            name, content = upload
            stored = state.new_file(
                team.id, user.id, name=name, length=len(content), content=content
            )
            stored.shares.setdefault(channel.id, []).append(ts)
            message["files"] = [file_body(self._core, stored)]
            message["upload"] = True
            message["display_as_bot"] = False
        state.add_message(channel, message)
        if upload is not None:
            self._core.bus.publish("file.shared", team.id, channel=channel.id, ts=ts)
        if not notify_app or team.bot_user_id not in channel.members:
            return None
        event = dict(message)
        event["channel"] = channel.id
        event["channel_type"] = (
            "im" if channel.is_im else ("group" if channel.is_private else "channel")
        )
        event["event_ts"] = ts
        if upload is not None:
            event["subtype"] = "file_share"
            event["upload"] = False
        return await self._event(event, team.id, options)

    async def app_uninstalled(self, team: str, **options: Unpack[SendOptions]) -> Delivery:
        """Uninstall the app from ``team``: its tokens stop working, then the event is sent."""
        self._core.state.revoke_tokens(team)
        return await self.event({"type": "app_uninstalled"}, team=team, **options)

    async def tokens_revoked(self, team: str, **options: Unpack[SendOptions]) -> Delivery:
        state = self._core.state
        state.revoke_tokens(team)
        bot = state.team(team).bot_user_id
        event: JSON = {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": [bot]}}
        return await self.event(event, team=team, **options)

    async def url_verification(
        self, challenge: str | None = None, **options: Unpack[SendOptions]
    ) -> Delivery:
        """The handshake Slack does when a request URL is saved (HTTP only)."""
        return await self.on_loop(self._url_verification(challenge, options))

    async def _url_verification(self, challenge: str | None, options: SendOptions) -> Delivery:
        body: JSON = {
            "token": payloads.VERIFICATION_TOKEN,
            "challenge": challenge or self._core.ids.opaque(24),
            "type": "url_verification",
        }
        team = self._core.state.first_team_id()
        delivery = Delivery(
            kind="url_verification",
            payload=body,
            team_id=team,
            sent_body=json.dumps(body),
        )
        return await self._deliver(delivery, options, http_only=True)

    # ------------------------------------------------------------ shortcuts

    async def global_shortcut(
        self,
        *,
        user: str,
        callback_id: str,
        team: str | None = None,
        **options: Unpack[SendOptions],
    ) -> Delivery:
        """Pick the app's global shortcut ``callback_id`` from the ⚡ menu (it must be in
        the installed manifest). Slack's ``shortcut`` payload carries a trigger id only."""
        return await self.on_loop(self._shortcut(user, callback_id, None, None, team, options))

    async def message_shortcut(
        self,
        *,
        user: str,
        channel: str,
        ts: str,
        callback_id: str,
        team: str | None = None,
        **options: Unpack[SendOptions],
    ) -> Delivery:
        """Pick the app's message shortcut ``callback_id`` on the message ``ts``: Slack's
        ``message_action`` payload carries the message, the channel, a trigger id and a
        ``response_url``."""
        return await self.on_loop(self._shortcut(user, callback_id, channel, ts, team, options))

    async def _shortcut(
        self,
        user_ref: str,
        callback_id: str,
        channel_ref: str | None,
        ts: str | None,
        team_ref: str | None,
        options: SendOptions,
    ) -> Delivery:
        state = self._core.state
        team, user = self._who(user_ref, team_ref)
        kind = "global" if channel_ref is None else "message"
        self._core.workflows.shortcut(callback_id, kind)
        trigger_id = state.issue_trigger(team.id, user.id)
        body = payloads.interaction_base(
            "shortcut" if kind == "global" else "message_action", team, user, trigger_id
        )
        body["callback_id"] = callback_id
        body["action_ts"] = self._core.ids.ts(self._core.clock.now())
        response_url: str | None = None
        if channel_ref is not None and ts is not None:
            channel, message = self._message(channel_ref, ts, team)
            record = state.new_response_url(team.id, user.id, channel.id, source=None)
            response_url = self._response_url(record)
            body["channel"] = payloads.channel_ref(channel)
            body["message_ts"] = ts
            body["message"] = message
            body["response_url"] = response_url
        delivery = self._interactive(
            "shortcut" if kind == "global" else "message_action",
            body,
            team,
            user,
            trigger_id,
            False,
        )
        delivery.response_url = response_url
        return await self._deliver(delivery, options)

    # ------------------------------------------------------------ workflow steps

    async def run_step(
        self,
        callback_id: str,
        *,
        user: str,
        inputs: JSON | None = None,
        team: str | None = None,
        unattended: bool = False,
        **options: Unpack[SendOptions],
    ) -> Delivery:
        """A workflow started by ``user`` reaches the app's step ``callback_id``: Slack sends
        ``function_executed`` with the inputs, a new ``function_execution_id`` and a
        just-in-time ``bot_access_token``.  An input of type ``slack#/types/interactivity``
        left out is filled for ``user``, as a workflow started by a click fills it, unless
        ``unattended`` (a scheduled or event-triggered workflow: nobody is there, so the
        input stays empty; ``user`` then only names the workspace, as the workflow's
        author).  Like Workflow Builder, refuses (``ValueError``) inputs that do not fit
        the step."""
        return await self.on_loop(
            self._run_step(callback_id, user, inputs or {}, team, options, unattended)
        )

    async def _run_step(
        self,
        callback_id: str,
        user_ref: str,
        inputs: JSON,
        team_ref: str | None,
        options: SendOptions,
        unattended: bool = False,
    ) -> Delivery:
        state = self._core.state
        team, user = self._who(user_ref, team_ref)
        function = self._core.workflows.function(callback_id)
        given = dict(inputs)
        for parameter in function.inputs:
            name = str(parameter.get("name"))
            interactive = parameter.get("type") == "slack#/types/interactivity"
            if interactive and name not in given and not unattended:
                given[name] = {
                    "interactivity_pointer": state.issue_trigger(team.id, user.id),
                    "interactor": {"id": user.id, "secret": self._core.ids.opaque(16)},
                }
        problems = parameter_problems(function.inputs, given)
        if problems:
            raise ValueError("; ".join(problems))
        run_id = self._core.ids.next("Fx")
        token = state.add_step_token(team.id, run_id)
        run = self._core.workflows.start(team.id, function, user.id, given, token.value, run_id)
        now = self._core.clock.now()
        event: JSON = {
            "type": "function_executed",
            "function": function.wire(team.app_id, int(run.started_at)),
            "inputs": given,
            "function_execution_id": run.id,
            "workflow_execution_id": run.workflow_execution_id,
            "event_ts": self._core.ids.ts(now),
            "bot_access_token": token.value,
        }
        return await self._event(event, team.id, options)

    # ------------------------------------------------------------ duplicates

    async def resend(
        self, delivery: Delivery, *, as_retry: bool = True, **options: Unpack[SendOptions]
    ) -> Delivery:
        """Send the same request again, as when Slack retries (events get
        ``X-Slack-Retry-Num``/``retry_attempt``) or a click arrives twice. The app's
        answer is returned but not applied to the stand-in a second time."""
        return await self.on_loop(self._resend(delivery, as_retry, options))

    async def _resend(self, original: Delivery, as_retry: bool, options: SendOptions) -> Delivery:
        retry_num = original.retry_num + 1 if as_retry else original.retry_num
        # Sent again as it was first sent; how the app answers is the new delivery's own.
        again = replace(
            original,
            status=0,
            body="",
            ack_seconds=0.0,
            headers={},
            sent_headers={},
            retry_num=retry_num,
        )
        extra: dict[str, str] = {}
        if as_retry and original.kind == "event_callback":
            extra = {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"}
        options.setdefault("transport", original.transport)
        return await self._deliver(
            again, options, extra_headers=extra, signed_after=self._signed.get(again.sent_body)
        )

    async def replay(self, delivery: Delivery) -> Delivery:
        """Send a request again byte for byte, its timestamp and signature included: what
        someone who captured it on the way could do (Slack itself never does this: a
        request it sends again is signed again)."""
        return await self.on_loop(self._replay(delivery))

    async def _replay(self, original: Delivery) -> Delivery:
        if original.transport != "http" or not original.sent_headers:
            raise ValueError("only a request delivered over HTTP can be replayed")
        again = dataclasses.replace(
            original, status=0, body="", ack_seconds=0.0, headers={}, sent_headers={}
        )
        await self._send(again, dict(original.sent_headers), 10.0)
        self._record(again)
        return again
