"""The bodies Slack sends to an app, shaped as Slack shapes them.

Pure functions of the stand-in's records; the driver decides where to send them. Values
picked by a "user" (a select option, a date, text typed in a modal) are turned into the
element-specific shapes Slack uses both in ``actions`` and in ``view.state.values``.
"""

from __future__ import annotations

import copy
from typing import Any

from emulators.slack.model import JSON, Channel, Team, User

VERIFICATION_TOKEN = "standin-verification-token"  # noqa: S105 - Slack's legacy, not a secret

_VALUE_KEYS: dict[str, str] = {
    "plain_text_input": "value",
    "email_text_input": "value",
    "url_text_input": "value",
    "number_input": "value",
    "static_select": "selected_option",
    "external_select": "selected_option",
    "radio_buttons": "selected_option",
    "overflow": "selected_option",
    "multi_static_select": "selected_options",
    "multi_external_select": "selected_options",
    "checkboxes": "selected_options",
    "datepicker": "selected_date",
    "timepicker": "selected_time",
    "datetimepicker": "selected_date_time",
    "users_select": "selected_user",
    "multi_users_select": "selected_users",
    "conversations_select": "selected_conversation",
    "multi_conversations_select": "selected_conversations",
    "channels_select": "selected_channel",
    "multi_channels_select": "selected_channels",
    "file_input": "files",
    "rich_text_input": "rich_text_value",
}
_OPTION_KEYS = {"selected_option", "selected_options"}


def user_ref(user: User) -> JSON:
    return {"id": user.id, "username": user.name, "name": user.name, "team_id": user.team_id}


def team_ref(team: Team) -> JSON:
    return {"id": team.id, "domain": team.domain}


def channel_ref(channel: Channel) -> JSON:
    return {"id": channel.id, "name": channel.name}


def slash_command_form(
    *,
    team: Team,
    user: User,
    channel: Channel,
    command: str,
    text: str,
    response_url: str,
    trigger_id: str,
) -> dict[str, str]:
    return {
        "token": VERIFICATION_TOKEN,
        "team_id": team.id,
        "team_domain": team.domain,
        "channel_id": channel.id,
        "channel_name": channel.name,
        "user_id": user.id,
        "user_name": user.name,
        "command": command,
        "text": text,
        "api_app_id": team.app_id,
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": trigger_id,
    }


def _options(element: JSON) -> list[JSON]:
    found = list(element.get("options") or [])
    for group in element.get("option_groups") or []:
        found.extend(group.get("options") or [])
    return found


def _option(element: JSON, choice: Any) -> JSON:
    if isinstance(choice, dict):
        return copy.deepcopy(choice)
    for option in _options(element):
        if option.get("value") == choice:
            return copy.deepcopy(option)
    if element.get("type") in {"external_select", "multi_external_select"}:
        return {"text": {"type": "plain_text", "text": str(choice)}, "value": str(choice)}
    raise ValueError(f"{element.get('action_id')!r} has no option with value {choice!r}")


def element_value(element: JSON, choice: Any) -> JSON:
    """The value part of a state entry or action for ``element`` when the user picks
    ``choice`` (None: left empty). A choice that is already a dict with the element's
    value key is taken as given."""
    kind = str(element.get("type"))
    key = _VALUE_KEYS.get(kind, "value")
    if isinstance(choice, dict) and key in choice:
        return {key: copy.deepcopy(choice[key])}
    if choice is None:
        empty: Any = [] if key.endswith("s") and key != "rich_text_value" else None
        return {key: empty}
    if key == "selected_option":
        return {key: _option(element, choice)}
    if key == "selected_options":
        choices = choice if isinstance(choice, list) else [choice]
        return {key: [_option(element, c) for c in choices]}
    if key.endswith("s") and key not in {"rich_text_value"}:
        return {key: list(choice) if isinstance(choice, list | tuple) else [choice]}
    return {key: choice}


def state_entry(element: JSON, choice: Any) -> JSON:
    return {"type": element.get("type"), **element_value(element, choice)}


def action_entry(block: JSON, element: JSON, choice: Any, action_ts: str) -> JSON:
    """One item of a block_actions payload's ``actions``."""
    kind = element.get("type")
    entry: JSON = {
        "action_id": element.get("action_id"),
        "block_id": block.get("block_id"),
        "type": kind,
        "action_ts": action_ts,
    }
    if kind == "button":
        entry["text"] = copy.deepcopy(element.get("text"))
        if "value" in element:
            entry["value"] = element["value"]
        if "style" in element:
            entry["style"] = element["style"]
        return entry
    if element.get("placeholder") is not None:
        entry["placeholder"] = copy.deepcopy(element["placeholder"])
    entry.update(element_value(element, choice))
    return entry


def is_empty(value: JSON) -> bool:
    inner = [v for k, v in value.items() if k != "type"]
    return all(v in (None, "", []) for v in inner)


def event_envelope(team: Team, event: JSON, *, event_id: str, event_time: int) -> JSON:
    return {
        "token": VERIFICATION_TOKEN,
        "team_id": team.id,
        "context_team_id": team.id,
        "context_enterprise_id": None,
        "api_app_id": team.app_id,
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": event_time,
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team.id,
                "user_id": team.bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-standin-{event_id}",
    }


def interaction_base(kind: str, team: Team, user: User, trigger_id: str | None) -> JSON:
    body: JSON = {
        "type": kind,
        "user": user_ref(user),
        "api_app_id": team.app_id,
        "token": VERIFICATION_TOKEN,
        "team": team_ref(team),
        "enterprise": None,
        "is_enterprise_install": False,
    }
    if trigger_id:
        body["trigger_id"] = trigger_id
    return body
