"""Clicks and form submissions, declared by the family that owns them.

A typed command is found in the catalog; a click or a submitted form is found here.
Each family module lists what it answers in ``INTERACTIONS``: the action ids of its
buttons and the callback ids of its modals, each with its handler and the least role
that may use it.  The ids are defined in the family module next to the handler, and
``bot/`` registers every declared id generically: it never names one itself.

Handlers have the shape of a typed command's: ``(ctx, click) -> Outcome`` and
``(ctx, submission) -> Outcome``.  The dispatcher checks the role, runs the handler
and words its failures the same way for every surface.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from commands.kernel.context import CommandContext
from commands.kernel.reply import Outcome
from storage import Role

FormValues = dict[str, Any]
"""block_id -> what was entered: text, the chosen option's value, a list for
multi-selects and checkboxes (None when left empty)."""
Meta = dict[str, Any]
"""The modal's ``private_metadata``, as JSON."""


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
    ephemeral: bool = False
    """The button sits on an ephemeral message (which cannot be threaded under)."""

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
            ephemeral=bool(container.get("is_ephemeral")),
        )


@dataclass(frozen=True)
class Submission:
    """A submitted modal: its callback id, what was entered, and its private metadata."""

    callback_id: str
    values: FormValues = field(default_factory=dict)
    metadata: Meta = field(default_factory=dict)

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> Submission:
        return cls(
            callback_id=str(view.get("callback_id") or ""),
            values=read_state(view),
            metadata=read_metadata(view),
        )


ClickHandler = Callable[[CommandContext, Click], Awaitable[Outcome]]
SubmitHandler = Callable[[CommandContext, Submission], Awaitable[Outcome]]
Validator = Callable[[CommandContext, Submission], Awaitable[dict[str, str] | None]]


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

    def pattern(self) -> re.Pattern[str]:
        tail = ""
        if self.suffixes:
            tail = "_(" + "|".join(re.escape(s) for s in self.suffixes) + ")"
        elif self.numbered:
            tail = r"_\d+"
        return re.compile(f"^{re.escape(self.action_id)}{tail}$")

    def suffix(self, action_id: str) -> str:
        """The part after ``action_id_`` (``start`` of ``campaign_control_start``)."""
        return action_id[len(self.action_id) + 1 :]


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
class Interactions:
    clicks: tuple[OnClick, ...] = ()
    submissions: tuple[OnSubmit, ...] = ()

    def __add__(self, other: Interactions) -> Interactions:
        return Interactions(
            clicks=self.clicks + other.clicks, submissions=self.submissions + other.submissions
        )


def read_state(view: Mapping[str, Any]) -> FormValues:
    """Slack's ``view.state.values`` flattened to one value per input block."""
    found: FormValues = {}
    for block_id, inputs in (view.get("state") or {}).get("values", {}).items():
        for entry in inputs.values():
            found[block_id] = _value(entry)
    return found


def _value(entry: Mapping[str, Any]) -> Any:
    kind = entry.get("type")
    if kind in ("static_select", "radio_buttons", "external_select"):
        option = entry.get("selected_option")
        return option.get("value") if isinstance(option, dict) else None
    if kind in ("multi_static_select", "multi_external_select", "checkboxes"):
        return [o.get("value") for o in entry.get("selected_options") or [] if isinstance(o, dict)]
    if kind == "multi_users_select":
        return list(entry.get("selected_users") or [])
    if kind == "users_select":
        return entry.get("selected_user")
    if kind == "conversations_select":
        return entry.get("selected_conversation")
    if kind == "channels_select":
        return entry.get("selected_channel")
    return entry.get("value")


def read_metadata(view: Mapping[str, Any]) -> Meta:
    try:
        value = json.loads(view.get("private_metadata") or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
