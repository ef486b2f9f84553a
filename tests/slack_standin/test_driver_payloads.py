"""The driver's requests, checked by slack_sdk's SignatureVerifier and against Slack's shapes."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import AGENT, APPROVALS, CALL_CENTER, SUPERVISOR, SlackStandIn
from tests.blocks import modal, plain, text_input
from tests.slack_standin.loopback import Receiver

MODAL = modal(
    "autocall",
    "Autocall",
    "Call",
    text_input("phone", "Phone"),
    {
        "type": "input",
        "block_id": "leg",
        "label": plain("Leg"),
        "element": {
            "type": "static_select",
            "action_id": "choice",
            "options": [
                {"text": plain("A-leg"), "value": "aleg"},
                {"text": plain("B-leg"), "value": "bleg"},
            ],
        },
    },
    {
        "type": "input",
        "block_id": "when",
        "optional": True,
        "label": plain("When"),
        "element": {"type": "datepicker", "action_id": "day"},
    },
    private_metadata="spring",
)


async def test_slash_command_is_signed_and_shaped_like_slacks(
    slack: SlackStandIn, receiver: Receiver
) -> None:
    delivery = await slack.driver.slash_command(
        user=SUPERVISOR, channel=CALL_CENTER, text="campaigns outbound"
    )
    assert delivery.status == 200 and delivery.transport == "http"
    assert 0 < delivery.ack_seconds < 3
    [received] = receiver.requests
    assert received.signature_valid
    assert received.headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert set(received.body) == {
        "token", "team_id", "team_domain", "channel_id", "channel_name", "user_id",
        "user_name", "command", "text", "api_app_id", "is_enterprise_install",
        "response_url", "trigger_id",
    }  # fmt: skip
    assert received.body["command"] == "/callops"
    assert received.body["text"] == "campaigns outbound"
    assert received.body["channel_name"] == "call-center"
    assert received.body["user_name"] == "sofia"
    assert received.body["response_url"].startswith(slack.base_url + "response/")


async def test_bad_signature_and_stale_timestamp_fail_verification(
    slack: SlackStandIn, receiver: Receiver
) -> None:
    forged = await slack.driver.slash_command(
        user=AGENT, channel=CALL_CENTER, text="x", bad_signature=True
    )
    stale = await slack.driver.slash_command(
        user=AGENT, channel=CALL_CENTER, text="x", timestamp_skew=301
    )
    assert (forged.status, stale.status) == (401, 401)
    assert [r.signature_valid for r in receiver.requests] == [False, False]
    # Slack tells the user when the app refuses a command
    assert [e["source"] for e in slack.ephemerals(AGENT)] == ["slackbot", "slackbot"]
    assert "dispatch_failed" in slack.ephemerals(AGENT)[0]["text"]


async def test_block_action_carries_the_stored_message(
    slack: SlackStandIn, client: AsyncWebClient, receiver: Receiver
) -> None:
    blocks = [
        {
            "type": "actions",
            "block_id": "campaign",
            "elements": [
                {
                    "type": "button",
                    "action_id": "approve",
                    "value": "req-7",
                    "style": "primary",
                    "text": {"type": "plain_text", "text": "Approve"},
                },
                {
                    "type": "static_select",
                    "action_id": "pick",
                    "options": [{"text": {"type": "plain_text", "text": "Spring"}, "value": "s"}],
                },
            ],
        }
    ]
    posted = await client.chat_postMessage(channel=APPROVALS, text="Approve?", blocks=blocks)
    await slack.driver.block_action(
        user=SUPERVISOR, channel=APPROVALS, ts=posted["ts"], action_id="approve"
    )
    await slack.driver.block_action(
        user=SUPERVISOR, channel=APPROVALS, ts=posted["ts"], action_id="pick", value="s"
    )
    first, second = (r.body for r in receiver.requests)
    assert all(r.signature_valid for r in receiver.requests)
    assert first["type"] == "block_actions"
    assert first["container"] == {
        "type": "message",
        "message_ts": posted["ts"],
        "channel_id": APPROVALS,
        "is_ephemeral": False,
    }
    assert first["message"] == slack.messages(APPROVALS)[0]
    assert first["channel"] == {"id": APPROVALS, "name": "approvals"}
    assert first["user"]["id"] == SUPERVISOR and first["team"]["id"] == "T0001"
    [action] = first["actions"]
    assert (action["action_id"], action["block_id"], action["value"]) == (
        "approve", "campaign", "req-7"
    )  # fmt: skip
    assert action["type"] == "button" and action["action_ts"]
    assert first["trigger_id"] != second["trigger_id"]
    assert second["actions"][0]["selected_option"]["value"] == "s"


async def test_view_submission_and_response_actions(
    slack: SlackStandIn, client: AsyncWebClient, receiver: Receiver
) -> None:
    trigger = slack.core.state.issue_trigger("T0001", AGENT)
    view = (await client.views_open(trigger_id=trigger, view=MODAL))["view"]

    def refuse(_: dict[str, Any]) -> web.Response:
        errors = {"phone": "Not a phone number"}
        return web.json_response({"response_action": "errors", "errors": errors})

    receiver.answer = refuse
    await slack.driver.view_submission(view["id"], {"phone": "12", "leg": "bleg"})
    body = receiver.requests[-1].body
    assert body["type"] == "view_submission"
    assert body["view"]["private_metadata"] == "spring"
    assert body["view"]["callback_id"] == "autocall"
    assert body["view"]["hash"] == view["hash"]
    values = body["view"]["state"]["values"]
    assert values["phone"]["value"] == {"type": "plain_text_input", "value": "12"}
    assert values["leg"]["choice"]["selected_option"]["value"] == "bleg"
    assert values["when"]["day"] == {"type": "datepicker", "selected_date": None}
    assert slack.view_errors(view["id"]) == {"phone": "Not a phone number"}
    assert [v["id"] for v in slack.views(AGENT)] == [view["id"]]

    receiver.answer = None
    await slack.driver.view_submission(view["id"], {"phone": "+33100", "leg": "aleg"})
    assert slack.views(AGENT) == []


async def test_required_input_blocks_submission_like_slacks_client(
    slack: SlackStandIn, client: AsyncWebClient, receiver: Receiver
) -> None:
    trigger = slack.core.state.issue_trigger("T0001", AGENT)
    view = (await client.views_open(trigger_id=trigger, view=MODAL))["view"]
    try:
        await slack.driver.view_submission(view["id"], {"leg": "aleg"})
    except ValueError as exc:
        assert "phone" in str(exc)
    else:
        raise AssertionError("an empty required input must not be submitted")
    assert receiver.requests == []


async def test_response_action_update_and_push(
    slack: SlackStandIn, client: AsyncWebClient, receiver: Receiver
) -> None:
    trigger = slack.core.state.issue_trigger("T0001", AGENT)
    view = (await client.views_open(trigger_id=trigger, view=MODAL))["view"]
    done = {
        "type": "modal",
        "title": {"type": "plain_text", "text": "Done"},
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "Call queued"}}],
    }
    receiver.answer = lambda _: web.json_response({"response_action": "push", "view": done})
    await slack.driver.view_submission(view["id"], {"phone": "+331", "leg": "aleg"})
    stack = slack.views(AGENT)
    assert [v["title"]["text"] for v in stack] == ["Autocall", "Done"]
    receiver.answer = lambda _: web.json_response({"response_action": "update", "view": done})
    await slack.driver.view_submission(view["id"], {"phone": "+331", "leg": "aleg"})
    assert [v["title"]["text"] for v in slack.views(AGENT)] == ["Done", "Done"]
    receiver.answer = lambda _: web.json_response({"response_action": "clear"})
    await slack.driver.view_submission(stack[1]["id"])
    assert slack.views(AGENT) == []


async def test_events_and_retries(slack: SlackStandIn, receiver: Receiver) -> None:
    first = await slack.driver.app_home_opened(SUPERVISOR)
    again = await slack.driver.resend(first)
    envelope, retried = (r.body for r in receiver.requests)
    assert envelope == retried
    assert envelope["type"] == "event_callback" and envelope["event_id"].startswith("Ev")
    assert envelope["event"]["type"] == "app_home_opened"
    assert envelope["event"]["channel"].startswith("D")
    assert envelope["authorizations"][0]["user_id"] == slack.team().bot_user_id
    assert receiver.requests[1].headers["X-Slack-Retry-Num"] == "1"
    assert receiver.requests[1].signature_valid and again.retry_num == 1
    verification = await slack.driver.url_verification("abc")
    assert verification.status == 200
    assert json.loads(receiver.requests[-1].raw)["challenge"] == "abc"


async def test_block_suggestion_returns_the_apps_options(
    slack: SlackStandIn, client: AsyncWebClient, receiver: Receiver
) -> None:
    search = {
        "type": "modal",
        "title": {"type": "plain_text", "text": "Campaign"},
        "blocks": [
            {
                "type": "input",
                "block_id": "campaign",
                "label": {"type": "plain_text", "text": "Campaign"},
                "element": {"type": "external_select", "action_id": "find", "min_query_length": 1},
            }
        ],
    }
    trigger = slack.core.state.issue_trigger("T0001", AGENT)
    view = (await client.views_open(trigger_id=trigger, view=search))["view"]
    option = {"text": {"type": "plain_text", "text": "Spring"}, "value": "c-1"}
    receiver.answer = lambda _: web.json_response({"options": [option]})
    answer = await slack.driver.block_suggestion(
        user=AGENT, view_id=view["id"], action_id="find", value="spr"
    )
    sent = receiver.requests[-1].body
    assert (sent["type"], sent["action_id"], sent["block_id"], sent["value"]) == (
        "block_suggestion", "find", "campaign", "spr"
    )  # fmt: skip
    assert answer.json() == {"options": [option]}
