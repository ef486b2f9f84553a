"""Clicks, form submissions, shortcuts and workflow steps, declared by their family.

A typed command is found in the catalog; everything else a person can do is found here.
Each family's ``FAMILY`` (``commands/<package>/family.py``) lists what it answers: the
action ids of its buttons, the callback ids of its modals, its shortcuts (message or
global) and its Workflow Builder steps, each with its handler and the least role that may
use it.  The ids are defined in the module next to the handler, and ``bot/`` registers
every declared id generically: it never names one itself.

Handlers have the shape of a typed command's: ``(ctx, click) -> Outcome``,
``(ctx, submission) -> Outcome``, ``(ctx, shortcut) -> Outcome`` and
``(ctx, run) -> Outcome``.  The dispatcher checks the role, runs the handler and words
its failures the same way for every surface.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from commands.kernel.context import CommandContext
from commands.kernel.reply import Outcome
from storage import Role

FormValues = dict[str, Any]
"""block_id -> what was entered: text, the chosen option's value, a list for
multi-selects and checkboxes (None when left empty)."""
Meta = dict[str, Any]
"""The modal's ``private_metadata``, as JSON."""
INTERACTIVITY_INPUT = "interactivity"
"""Every step's input of type ``slack#/types/interactivity``: who runs it."""
OPEN_CAMPAIGN = "campaign_open"
"""The Open campaign button (``campaign_open_<n>``, its value the campaign's UUID): the
campaigns family answers it, and the cards of other families (a lead, a call, a digest,
an alert) place it, so its id lives here, below both."""


@dataclass(frozen=True)
class Click:
    """One button (or select) a person used, as Slack's ``block_actions`` describes it."""

    action_id: str
    _: KW_ONLY
    value: str = ""
    block_id: str | None = None
    trigger_id: str | None = None
    message_ts: str | None = None
    """The message that holds the button (None in App Home and modals)."""
    thread_ts: str | None = None
    """The thread that message is a reply in (None: it is no reply), where a note about
    it belongs: Slack threads under a thread's first message, never under a reply."""
    ephemeral: bool = False
    """The button sits on an ephemeral message (which cannot be threaded under)."""
    view_id: str | None = None
    """The modal or Home tab that holds the button (None in messages)."""
    response_url: str | None = field(default=None, repr=False)
    """Where Slack lets the app rewrite the clicked message for a while (30 minutes, 5
    uses); a capability, so it is never shown or logged."""

    @classmethod
    def from_payload(cls, body: Mapping[str, Any], action: Mapping[str, Any]) -> Click:
        container = body.get("container") or {}
        message = body.get("message") or {}
        selected = action.get("selected_option")
        value = action.get("value")
        if value is None and isinstance(selected, dict):
            value = selected.get("value")
        return cls(
            action_id=str(action.get("action_id") or ""),
            value=str(value or ""),
            block_id=action.get("block_id"),
            trigger_id=body.get("trigger_id"),
            message_ts=message.get("ts") or container.get("message_ts"),
            thread_ts=message.get("thread_ts") or container.get("thread_ts"),
            ephemeral=bool(container.get("is_ephemeral")),
            view_id=container.get("view_id") if container.get("type") == "view" else None,
            response_url=body.get("response_url") or None,
        )


@dataclass(frozen=True)
class Submission:
    """A submitted modal: its callback id, what was entered, and its private metadata."""

    callback_id: str
    values: FormValues = field(default_factory=dict)
    metadata: Meta = field(default_factory=dict)
    malformed: str | None = None
    """What of the form's state is not of the type Slack sends (forged), by place and
    kind; such a form is answered "out of date" and nothing in it is read."""

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> Submission:
        try:
            values, malformed = read_state(view), None
        except MalformedState as exc:
            # Nothing of it is read; the form's own fields are named, for the answer's place.
            values, malformed = dict.fromkeys(_input_blocks(view)), exc.where
        return cls(
            callback_id=str(view.get("callback_id") or ""),
            values=values,
            metadata=_decoded_metadata(view),
            malformed=malformed,
        )


ShortcutKind = Literal["message", "global"]


@dataclass(frozen=True)
class Shortcut:
    """A shortcut someone used: from the ⚡ menu (``global``) or on a message
    (``message``, Slack's ``message_action``, which carries the message)."""

    callback_id: str
    kind: ShortcutKind
    trigger_id: str | None = None
    message_text: str = ""
    message_ts: str | None = None
    channel_id: str | None = None

    @classmethod
    def from_payload(cls, body: Mapping[str, Any]) -> Shortcut:
        message = body.get("message") or {}
        channel = body.get("channel") or {}
        return cls(
            callback_id=str(body.get("callback_id") or ""),
            kind="message" if body.get("type") == "message_action" else "global",
            trigger_id=body.get("trigger_id"),
            message_text=str(message.get("text") or "") if isinstance(message, dict) else "",
            message_ts=(message.get("ts") if isinstance(message, dict) else None)
            or body.get("message_ts"),
            channel_id=channel.get("id") if isinstance(channel, dict) else None,
        )


@dataclass(frozen=True)
class StepRun:
    """One run of a workflow step (Slack's ``function_executed`` event).

    ``user_id`` is the person whose action started the workflow, read from the step's
    ``interactivity`` input (Slack fills its ``interactor``; the workflow's author cannot
    choose it), or None when the workflow was not started by a person: then the step
    acts as the workflow itself (``actor``), with the role an admin gave workflows."""

    callback_id: str
    function_execution_id: str
    inputs: dict[str, Any] = field(default_factory=dict)
    user_id: str | None = None
    workflow_execution_id: str | None = None
    token: str | None = field(default=None, repr=False)
    """The run's just-in-time bot token: completing the step needs it, also later (a
    step waiting on an approval is completed when the request is decided)."""

    @classmethod
    def from_event(cls, event: Mapping[str, Any], *, token: str | None) -> StepRun:
        function = event.get("function")
        callback_id = function.get("callback_id") if isinstance(function, Mapping) else None
        inputs = event.get("inputs") or {}
        inputs = dict(inputs) if isinstance(inputs, Mapping) else {}
        return cls(
            callback_id=str(callback_id or ""),
            function_execution_id=str(event.get("function_execution_id") or ""),
            inputs=inputs,
            user_id=interactor(inputs.get(INTERACTIVITY_INPUT)),
            workflow_execution_id=_slack_id(event.get("workflow_execution_id")),
            token=token,
        )

    @property
    def actor(self) -> str:
        """Who the audit log and the approval card name for a run without a person:
        ``workflow <id>``, the workflow's execution id (else the step's) as Slack gave
        it, so an admin can find the run in Workflow Builder's activity."""
        run_id = self.workflow_execution_id or _slack_id(self.function_execution_id)
        return f"workflow {run_id or 'unknown'}"

    def text(self, name: str) -> str:
        """An input as text, trimmed ('' when absent)."""
        value = self.inputs.get(name)
        if value is None:
            return ""
        return value.strip() if isinstance(value, str) else str(value).strip()


_SLACK_ID = re.compile(r"^[A-Za-z0-9]{1,64}$")


def _slack_id(value: Any) -> str | None:
    """An execution id as Slack writes them (letters and digits), or None: it is shown
    in cards and the audit log, so anything else is not taken."""
    return value if isinstance(value, str) and _SLACK_ID.match(value) else None


def interactor(value: Any) -> str | None:
    """The user id in a ``slack#/types/interactivity`` value, if it names one."""
    if not isinstance(value, Mapping):
        return None
    who = value.get("interactor")
    if isinstance(who, Mapping) and isinstance(who.get("id"), str) and who["id"]:
        return str(who["id"])
    return None


ClickHandler = Callable[[CommandContext, Click], Awaitable[Outcome]]
SubmitHandler = Callable[[CommandContext, Submission], Awaitable[Outcome]]
Validator = Callable[[CommandContext, Submission], Awaitable[dict[str, str] | None]]
ShortcutHandler = Callable[[CommandContext, Shortcut], Awaitable[Outcome]]
StepHandler = Callable[[CommandContext, StepRun], Awaitable[Outcome]]


@dataclass(frozen=True)
class OnClick:
    """A button family: ``action_id`` exactly, or ``action_id`` followed by one of
    ``suffixes`` (``_prev``/``_next``), or by ``_<n>`` when ``numbered`` (a block may not
    repeat an action id, so a list of Open buttons numbers them)."""

    action_id: str
    handler: ClickHandler
    _: KW_ONLY
    role: Role = Role.VIEWER
    suffixes: tuple[str, ...] = ()
    numbered: bool = False
    audit_as: str | None = None
    """The audit log's name for a refused click (default: the action id)."""

    def matcher(self) -> str | re.Pattern[str]:
        """What Bolt routes on: the exact id, or a pattern for a numbered or suffixed one."""
        if not (self.numbered or self.suffixes):
            return self.action_id
        tail = r"\d+" if self.numbered else "(" + "|".join(map(re.escape, self.suffixes)) + ")"
        return re.compile(f"^{re.escape(self.action_id)}_{tail}$")

    def answers(self, action_id: str) -> bool:
        """Whether a click on ``action_id`` is this family's: by the rule Bolt routes on."""
        found = self.matcher()
        return found == action_id if isinstance(found, str) else bool(found.match(action_id))


@dataclass(frozen=True)
class OnSubmit:
    """A modal's submission.  Slack waits 3 seconds for the answer to a submission, and
    only that answer can put messages on the form's fields: ``validate`` runs first
    (fast; ``None`` accepts) and ``handler`` runs after the form has closed."""

    callback_id: str
    handler: SubmitHandler
    _: KW_ONLY
    role: Role = Role.OPERATOR
    validate: Validator | None = None
    audit_as: str | None = None
    """The audit log's name for a refused submission (default: the callback id)."""


@dataclass(frozen=True)
class OnShortcut:
    """A shortcut in Slack's ⚡ menu (``global``) or a message's menu (``message``).  Its
    name and description are what people see there (the manifest lists them)."""

    callback_id: str
    handler: ShortcutHandler
    kind: ShortcutKind
    name: str
    description: str
    role: Role = Role.VIEWER


@dataclass(frozen=True)
class StepParam:
    """One input or output of a workflow step, as the manifest declares it."""

    name: str
    type: str
    title: str
    description: str
    required: bool = False
    hint: str | None = None

    def manifest(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "type": self.type,
            "title": self.title,
            "description": self.description,
            "is_required": self.required,
            "name": self.name,
        }
        if self.hint:
            entry["hint"] = self.hint
        return entry


PHONE_INPUT = StepParam(
    "phone",
    "string",
    "Phone number",
    "The customer's number: 10 digits starting 03, 05, 07, 08 or 09, or 84…",
    required=True,
)
"""The customer's number, as every step that calls or adds one asks for it."""


WHO_RUNS_IT = StepParam(
    INTERACTIVITY_INPUT,
    "slack#/types/interactivity",
    "Who runs it",
    "The person who started the workflow: callops checks their role, as for /callops. "
    "Leave it empty in a scheduled or event-triggered workflow: the step then acts with "
    "the role an admin gives workflows (/callops role workflows operator).",
    required=False,
    hint="Choose the interactivity of the person who used this workflow, if one did",
)


@dataclass(frozen=True)
class OnStep:
    """A Workflow Builder step (a custom function).  ``inputs`` and ``outputs`` are what
    the manifest's ``functions`` section declares for it (a test keeps them equal); every
    step takes ``interactivity`` first, so callops knows whose role to check (left empty,
    the role given to workflows)."""

    callback_id: str
    handler: StepHandler
    title: str
    description: str
    inputs: tuple[StepParam, ...]
    outputs: tuple[StepParam, ...]
    role: Role = Role.OPERATOR

    def manifest(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "description": self.description,
            "input_parameters": {p.name: p.manifest() for p in (WHO_RUNS_IT, *self.inputs)},
            "output_parameters": {p.name: p.manifest() for p in self.outputs},
        }


@dataclass(frozen=True)
class Interactions:
    """Every button, form, shortcut and step of the app, gathered from the families and
    looked up by the id Slack sends, by the same rule Bolt routes on."""

    clicks: tuple[OnClick, ...] = ()
    submissions: tuple[OnSubmit, ...] = ()
    shortcuts: tuple[OnShortcut, ...] = ()
    steps: tuple[OnStep, ...] = ()

    def click(self, action_id: str) -> OnClick | None:
        return next((r for r in self.clicks if r.answers(action_id)), None)

    def submission(self, callback_id: str) -> OnSubmit | None:
        return next((r for r in self.submissions if r.callback_id == callback_id), None)

    def shortcut(self, callback_id: str) -> OnShortcut | None:
        return next((r for r in self.shortcuts if r.callback_id == callback_id), None)

    def step(self, callback_id: str) -> OnStep | None:
        return next((r for r in self.steps if r.callback_id == callback_id), None)


class MalformedState(Exception):
    """A submitted form's state is not of the types Slack sends."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


class _Option(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    value: str | None = None


class _Entry(BaseModel):
    """One input's state, as Slack documents each element's: every field a reader below
    takes is typed (strictly: ``5`` is not a text), the rest is left alone."""

    model_config = ConfigDict(extra="allow", strict=True)
    type: str | None = None
    value: str | None = None
    selected_option: _Option | None = None
    selected_options: list[_Option] | None = None
    selected_users: list[str] | None = None
    selected_user: str | None = None
    selected_conversation: str | None = None
    selected_channel: str | None = None
    selected_conversations: list[str] | None = None
    selected_channels: list[str] | None = None
    selected_date: str | None = None
    selected_time: str | None = None


def read_state(view: Mapping[str, Any]) -> FormValues:
    """Slack's ``view.state.values`` flattened to one value per input block; state of any
    other shape or type raises `MalformedState`."""
    state = view.get("state") or {}
    values = state.get("values", {}) if isinstance(state, Mapping) else None
    if not isinstance(values, Mapping):
        raise MalformedState("state.values: not an object")
    found: FormValues = {}
    for block_id, inputs in values.items():
        if not isinstance(inputs, Mapping):
            raise MalformedState("state.values.<block>: not an object")
        for entry in inputs.values():
            try:
                typed = _Entry.model_validate(entry)
            except ValidationError as exc:
                first = exc.errors(include_url=False, include_input=False)[0]
                where = ".".join(str(p) for p in first["loc"]) or "entry"
                problem = f"state.values.<block>.<input>.{where}: {first['type']}"
                raise MalformedState(problem) from None
            found[block_id] = _value(typed)
    return found


def _input_blocks(view: Mapping[str, Any]) -> list[str]:
    """The block ids of a view's inputs (the view Slack sends back is the app's own)."""
    blocks = view.get("blocks")
    return [
        block["block_id"]
        for block in (blocks if isinstance(blocks, list) else [])
        if isinstance(block, Mapping)
        and block.get("type") == "input"
        and isinstance(block.get("block_id"), str)
    ]


def _value(entry: _Entry) -> Any:
    kind = entry.type
    if kind in ("static_select", "radio_buttons", "external_select"):
        return entry.selected_option.value if entry.selected_option is not None else None
    if kind in ("multi_static_select", "multi_external_select", "checkboxes"):
        return [o.value for o in entry.selected_options or []]
    if kind == "multi_users_select":
        return list(entry.selected_users or [])
    if kind == "users_select":
        return entry.selected_user
    if kind == "conversations_select":
        return entry.selected_conversation
    if kind == "channels_select":
        return entry.selected_channel
    if kind == "multi_conversations_select":
        return list(entry.selected_conversations or [])
    if kind == "multi_channels_select":
        return list(entry.selected_channels or [])
    if kind == "datepicker":
        return entry.selected_date
    if kind == "timepicker":
        return entry.selected_time
    return entry.value


def _decoded_metadata(view: Mapping[str, Any]) -> Meta:
    """The modal's ``private_metadata`` JSON as a dict (empty when it is not one); a
    form reads its fields from it through ``values.read_metadata``, typed."""
    try:
        value = json.loads(view.get("private_metadata") or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
