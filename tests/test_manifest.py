"""``app-manifest.yml`` is what an admin pastes into api.slack.com to create the app, so it
must be a manifest Slack accepts and must ask for what the code uses: the scopes the OAuth
flow requests, the events the app listens to, no more and no fewer."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs are pinned
import pytest
import yaml
from cryptography.fernet import Fernet
from slack_bolt.async_app import AsyncApp

from bot import manifest as declared
from bot.app import BOT_SCOPES, create_app
from bot.runtime import Runtime
from bot.settings import Settings
from commands.kernel.interactions import INTERACTIVITY_INPUT

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "app-manifest.yml"
SCHEMA = ROOT / "tests" / "manifest_schema" / "manifest.schema.1.0.0.json"
"""Slack's schema for classic app manifests, vendored (MIT): see its README."""


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    loaded = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def schema_problems(manifest: dict[str, Any]) -> list[str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(
        schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    )
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(manifest)
    ]


def test_manifest_validates_against_slacks_schema(manifest: dict[str, Any]) -> None:
    assert schema_problems(manifest) == []


def test_slacks_schema_refuses_a_manifest_slack_would_refuse(manifest: dict[str, Any]) -> None:
    broken = {**manifest, "display_information": {"description": "no name"}}
    assert schema_problems(broken) == ["display_information: 'name' is a required property"]


def test_bot_scopes_are_the_ones_the_app_requests(manifest: dict[str, Any]) -> None:
    scopes = manifest["oauth_config"]["scopes"]["bot"]
    assert sorted(scopes) == sorted(BOT_SCOPES)
    assert len(scopes) == len(set(scopes))
    assert "user" not in manifest["oauth_config"]["scopes"]  # callops acts as its bot only


def registered_events(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> set[str]:
    """The event types the real app wires listeners for, recorded as ``create_app`` runs."""
    seen: set[str] = set()
    original_event = AsyncApp.event
    original_message = AsyncApp.message
    original_function = AsyncApp.function

    def event(self: AsyncApp, event: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(event, dict):
            event = event.get("type")
        assert isinstance(event, str), f"a listener matches events by pattern: {event!r}"
        seen.add(event)
        return original_event(self, event, *args, **kwargs)

    def message(self: AsyncApp, *args: Any, **kwargs: Any) -> Any:
        seen.add("message")
        return original_message(self, *args, **kwargs)

    def function(self: AsyncApp, *args: Any, **kwargs: Any) -> Any:
        seen.add("function_executed")  # a step listener is a function_executed listener
        return original_function(self, *args, **kwargs)

    monkeypatch.setattr(AsyncApp, "event", event)
    monkeypatch.setattr(AsyncApp, "message", message)
    monkeypatch.setattr(AsyncApp, "function", function)
    settings = Settings(
        _env_file=None,
        slack_bot_token="xoxb-manifest-test",
        slack_signing_secret="manifest-test",
        slack_api_url="http://127.0.0.1:9/api/",
        callops_db=str(tmp_path / "callops.db"),
        callops_secret_key=Fernet.generate_key().decode(),
    )
    rt = Runtime.open(settings)
    try:
        create_app(rt)
    finally:
        rt.storage.close()
    return seen


def test_bot_events_are_exactly_the_ones_listened_to(
    manifest: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    subscribed = manifest["settings"]["event_subscriptions"]["bot_events"]
    assert len(subscribed) == len(set(subscribed))
    # ``message.channels``, ``message.im``, ... all arrive as the one ``message`` event.
    assert {e.split(".")[0] for e in subscribed} == registered_events(monkeypatch, tmp_path)


def test_slash_command_escapes_and_hints(manifest: dict[str, Any]) -> None:
    commands = manifest["features"]["slash_commands"]
    assert [c["command"] for c in commands] == ["/callops"]
    command = commands[0]
    assert command["should_escape"] is True  # mentions arrive as <@U…|name>, as parsed
    assert re.search(r"\bhelp\b", command["usage_hint"])
    assert len(command["description"]) <= 100


def test_surfaces_the_app_uses_are_switched_on(manifest: dict[str, Any]) -> None:
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert manifest["settings"]["socket_mode_enabled"] is True
    assert manifest["features"]["bot_user"]["display_name"]


def test_workflow_steps_are_the_declared_ones(manifest: dict[str, Any]) -> None:
    """What Workflow Builder offers is what the code answers, input for input."""
    assert manifest["functions"] == declared.functions()
    assert len(manifest["functions"]) >= 7
    settings = manifest["settings"]
    assert settings["function_runtime"] == "remote"
    assert settings["org_deploy_enabled"] is True
    for callback_id, function in manifest["functions"].items():
        inputs = function["input_parameters"]
        who = inputs[INTERACTIVITY_INPUT]
        # Optional: a scheduled or event-triggered workflow has nobody to give it.
        assert who["type"] == "slack#/types/interactivity", callback_id
        assert who["is_required"] is False, callback_id
        for name, parameter in [*inputs.items(), *function["output_parameters"].items()]:
            assert parameter["name"] == name, callback_id
            assert parameter["title"] and parameter["description"], (callback_id, name)


def test_shortcuts_are_the_declared_ones(manifest: dict[str, Any]) -> None:
    shortcuts = manifest["features"]["shortcuts"]
    assert shortcuts == declared.shortcuts()
    assert {(s["type"], s["name"]) for s in shortcuts} == {
        ("message", "Call back with callops"),
        ("global", "Call-center status"),
    }


def test_token_rotation_is_documented_and_can_be_turned_on(manifest: dict[str, Any]) -> None:
    """Off by default (a ``SLACK_BOT_TOKEN`` install cannot refresh); the manifest says
    beside the setting what turning it on needs, and the manifest with it on is one Slack
    accepts."""
    assert manifest["settings"]["token_rotation_enabled"] is False
    lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if "token_rotation_enabled:" in line)
    comment = []
    for line in reversed(lines[:at]):
        if not line.strip().startswith("#"):
            break
        comment.append(line)
    note = " ".join(comment)
    for needed in ("true", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_BOT_TOKEN"):
        assert needed in note, needed
    rotating = {**manifest, "settings": {**manifest["settings"], "token_rotation_enabled": True}}
    assert schema_problems(rotating) == []
