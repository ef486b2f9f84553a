"""The shape a Slack payload has before Bolt and the listeners read it.

Bolt's routing reads payloads as Slack documents them (``body["actions"][0]["action_id"]``,
``payload["team"]["id"]``, ``view["callback_id"]``) and fails with a 500 on anything else;
so do the app's own readers (a ``container`` that is not an object, ``private_metadata``
that is not a string).  Only Slack (or someone holding the signing secret) gets this far,
but a malformed payload is still a 400, not a crash: ``problem`` names the first field
that is not of the type Slack sends, and ``bot.request_guard`` refuses the request.

Only what is read is checked: ids (a string, or an object whose ``id`` is a string),
objects, strings, and the fields each payload type is routed by.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_IDS = ("team", "user", "channel", "enterprise")
"""A string id, or an object with a string ``id`` (or null)."""
_OBJECTS = (
    "view",
    "event",
    "container",
    "message",
    "previous_message",
    "item",
    "assistant_thread",
    "function_data",
    "state",
)
_STRINGS = (
    "type",
    "team_id",
    "user_id",
    "channel_id",
    "enterprise_id",
    "user_team",
    "event_id",
    "response_url",
    "trigger_id",
    "callback_id",
    "action_id",
    "block_id",
    "api_app_id",
    "token",
    "thread_ts",
    "ts",
    "command",
    "text",
    "challenge",
    "tab",
    "private_metadata",
    "app_installed_team_id",
    "function_execution_id",
    "bot_access_token",
)
_NESTED = ("event", "message", "previous_message", "item", "assistant_thread", "container")
"""Objects Bolt reads ids from in turn."""
_ROUTED_BY_CALLBACK = (
    "shortcut",
    "message_action",
    "interactive_message",
    "dialog_submission",
    "dialog_cancellation",
    "dialog_suggestion",
    "workflow_step_edit",
)


def _is_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _fields(payload: Mapping[str, Any], where: str) -> str | None:
    for key in _IDS:
        value = payload.get(key)
        if value is None or isinstance(value, str):
            continue
        if not isinstance(value, dict):
            return f"{where}{key} is not an id"
        if not _is_str(value.get("id")) or not _is_str(value.get("team_id")):
            return f"{where}{key}.id is not a string"
        if not _is_str(value.get("enterprise_id")):
            return f"{where}{key}.enterprise_id is not a string"
    for key in _OBJECTS:
        if key in payload and not isinstance(payload[key], dict):
            return f"{where}{key} is not an object"
    for key in _STRINGS:
        if not _is_str(payload.get(key)):
            return f"{where}{key} is not a string"
    return None


def _list_of_objects(value: Any) -> bool:
    return value is None or (
        isinstance(value, list) and all(isinstance(item, dict) for item in value)
    )


def problem(payload: Mapping[str, Any]) -> str | None:
    """The first field of ``payload`` that is not as Slack sends it, or None."""
    found = _fields(payload, "")
    if found:
        return found
    for key in _NESTED:
        nested = payload.get(key)
        if isinstance(nested, dict):
            found = _fields(nested, f"{key}.")
            if found:
                return found
    for key in ("authorizations", "response_urls"):
        if not _list_of_objects(payload.get(key)):
            return f"{key} is not a list of objects"
        for item in payload.get(key) or []:
            found = _fields(item, f"{key}[].")
            if found:
                return found
    return _routing(payload)


_INTERACTIVE = (
    "block_actions",
    "block_suggestion",
    "view_submission",
    "view_closed",
    "shortcut",
    "message_action",
)
"""Payloads a person caused: Slack names the person and their workspace in each."""


def _id_of(value: Any) -> Any:
    return value.get("id") if isinstance(value, dict) else value


def _team_of(payload: Mapping[str, Any]) -> Any:
    """The workspace, wherever Slack put it (Bolt looks in the same places)."""
    found_view, found_user = payload.get("view"), payload.get("user")
    view: Mapping[str, Any] = found_view if isinstance(found_view, dict) else {}
    user: Mapping[str, Any] = found_user if isinstance(found_user, dict) else {}
    return (
        view.get("app_installed_team_id")
        or _id_of(payload.get("team"))
        or payload.get("team_id")
        or user.get("team_id")
        or view.get("team_id")
    )


def _routing(payload: Mapping[str, Any]) -> str | None:
    """The fields a payload of each type is routed by, and who it comes from."""
    kind = payload.get("type")
    if kind in _INTERACTIVE:
        if not _id_of(payload.get("user")):
            return "user.id is missing"
        if not _team_of(payload):
            return "team is missing"
    if kind == "event_callback" and not payload.get("team_id"):
        return "team_id is missing"
    if kind == "block_actions":
        actions = payload.get("actions")
        if not actions or not _list_of_objects(actions):
            return "actions is not a list of objects"
        for action in actions:
            if not isinstance(action.get("action_id"), str):
                return "actions[].action_id is not a string"
            for key in ("block_id", "value", "type"):
                if not _is_str(action.get(key)):
                    return f"actions[].{key} is not a string"
            option = action.get("selected_option")
            if option is not None and not (
                isinstance(option, dict) and _is_str(option.get("value"))
            ):
                return "actions[].selected_option is not an option"
    elif kind == "block_suggestion":
        if not isinstance(payload.get("action_id"), str):
            return "action_id is not a string"
    elif kind in ("view_submission", "view_closed"):
        view = payload.get("view")
        if not isinstance(view, dict) or not isinstance(view.get("callback_id"), str):
            return "view.callback_id is not a string"
        if not isinstance(view.get("type"), str):
            return "view.type is not a string"
        state = view.get("state")
        if state is not None:
            values = state.get("values") if isinstance(state, dict) else None
            if not isinstance(values, dict) or not all(
                isinstance(inputs, dict) and all(isinstance(e, dict) for e in inputs.values())
                for inputs in values.values()
            ):
                return "view.state.values is not as Slack sends it"
        found = _fields(view, "view.")
        if found:
            return found
    elif kind in _ROUTED_BY_CALLBACK:
        if not isinstance(payload.get("callback_id"), str):
            return "callback_id is not a string"
    elif kind == "event_callback":
        event = payload.get("event")
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            return "event.type is not a string"
        step = event.get("workflow_step")
        if step is not None and not isinstance(step, dict):
            return "event.workflow_step is not an object"
        if event["type"] == "app_home_opened" and not event.get("user"):
            return "event.user is missing"
        if event["type"] == "function_executed":
            function = event.get("function")
            if not isinstance(function, dict) or not isinstance(function.get("callback_id"), str):
                return "event.function is not a function"
            if not isinstance(event.get("inputs", {}), dict):
                return "event.inputs is not an object"
    return None
