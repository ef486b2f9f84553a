"""Modals that end in an action request: how their submissions are read and checked.

A submission is answered in two steps because Slack waits only 3 seconds for the ack:
``check`` runs first, locally and fast, and its messages go back on the fields
(``response_action: errors``); after the ack, ``build`` may ask the service (is the
number blacklisted? is the call still live?) and turns the values into a ``Proposal``,
or a ``Reply`` saying why not.  Submitting the form is the requester's confirm: it
showed exactly what will happen and its button says so.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from commands.approvals.workflow import Proposal
from commands.kernel.context import CommandContext
from commands.kernel.reply import Reply
from storage import Role

FormValues = dict[str, Any]
"""block_id -> what was entered: text, the chosen option's value, a list for
multi-selects and checkboxes (None when left empty)."""
Meta = dict[str, Any]
"""The modal's ``private_metadata``, as JSON."""

Check = Callable[[FormValues, Meta], dict[str, str]]
Build = Callable[[CommandContext, FormValues, Meta], Awaitable[Proposal | Reply]]


@dataclass(frozen=True)
class Form:
    callback_id: str
    check: Check
    build: Build
    role: Role = Role.OPERATOR
    """The least role that may submit it (as the command that opened it)."""


FORMS: dict[str, Form] = {}


def register_form(form: Form) -> Form:
    FORMS[form.callback_id] = form
    return form


def read_state(view: dict[str, Any]) -> FormValues:
    """Slack's ``view.state.values`` flattened to one value per input block."""
    found: FormValues = {}
    for block_id, inputs in (view.get("state") or {}).get("values", {}).items():
        for entry in inputs.values():
            found[block_id] = _value(entry)
    return found


def _value(entry: dict[str, Any]) -> Any:
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
    if kind == "number_input":
        return entry.get("value")
    return entry.get("value")


def meta(view: dict[str, Any]) -> Meta:
    try:
        value = json.loads(view.get("private_metadata") or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def text(values: FormValues, block: str) -> str:
    value = values.get(block)
    return str(value).strip() if isinstance(value, str) else ""
