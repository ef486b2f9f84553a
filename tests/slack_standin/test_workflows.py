"""Workflow steps, shortcuts and tables in the stand-in, exactly as Slack documents them,
checked with third-party code (slack_sdk, a bare Bolt app) rather than with callops."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp
from slack_bolt.context.complete.async_complete import AsyncComplete
from slack_bolt.context.fail.async_fail import AsyncFail
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import CALL_CENTER, SUPERVISOR, SlackStandIn
from tests.slack_standin.loopback import Receiver, serve
from tests.slack_standin.refusals import refused

MANIFEST: dict[str, Any] = {
    "functions": {
        "reverse": {
            "title": "Reverse",
            "description": "Reverses a text",
            "input_parameters": {
                "who": {"type": "slack#/types/interactivity", "name": "who", "is_required": True},
                "text": {"type": "string", "name": "text", "is_required": True},
            },
            "output_parameters": {
                "reversed": {"type": "string", "name": "reversed", "is_required": True},
                "length": {"type": "integer", "name": "length", "is_required": True},
            },
        }
    },
    "features": {
        "shortcuts": [
            {"name": "Do it", "type": "message", "callback_id": "do_it", "description": "x"},
            {"name": "Status", "type": "global", "callback_id": "status", "description": "y"},
        ]
    },
}


@pytest.fixture
async def slack() -> AsyncIterator[SlackStandIn]:
    async with SlackStandIn(manifest=MANIFEST) as stand_in:
        yield stand_in


def table(rows: int, cells: int = 2) -> dict[str, Any]:
    return {
        "type": "table",
        "rows": [
            [{"type": "raw_text", "text": f"{r}.{c}"} for c in range(cells)] for r in range(rows)
        ],
    }


# --- the table block ---------------------------------------------------------------------


async def test_a_table_of_100_rows_and_20_cells_is_accepted(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    settings = [{"align": "right"}] + [None] * 19
    block = {**table(100, 20), "column_settings": settings}
    await client.chat_postMessage(channel=CALL_CENTER, text="t", blocks=[block])
    [message] = slack.messages(CALL_CENTER)
    assert message["blocks"][0]["type"] == "table" and len(message["blocks"][0]["rows"]) == 100
    assert slack.invalid_sends() == []


@pytest.mark.parametrize(
    ("blocks", "fragment"),
    [
        ([table(101)], "no more than 100 items allowed [json-pointer:/blocks/0/rows]"),
        ([table(2, 21)], "no more than 20 items allowed [json-pointer:/blocks/0/rows/0]"),
        ([table(2), table(2)], "only one table block is allowed per message"),
        (
            [{"type": "table", "rows": [[{"type": "mrkdwn", "text": "*x*"}]]}],
            "cells are raw_text or rich_text",
        ),
        ([{"type": "table", "rows": [[{"type": "raw_text", "text": ""}]]}], "non-empty string"),
        (
            [{**table(1), "column_settings": [{"align": "middle"}]}],
            "must be one of ['left', 'center', 'right']",
        ),
    ],
)
async def test_tables_that_break_slack_rules_are_refused(
    slack: SlackStandIn, client: AsyncWebClient, blocks: list[dict[str, Any]], fragment: str
) -> None:
    body = await refused(client.chat_postMessage(channel=CALL_CENTER, text="t", blocks=blocks))
    assert body["error"] == "invalid_blocks"
    assert any(fragment in e for e in body["errors"]), body["errors"]
    assert slack.messages(CALL_CENTER) == []


async def test_a_table_in_a_modal_is_refused(slack: SlackStandIn, client: AsyncWebClient) -> None:
    view = {"type": "modal", "title": {"type": "plain_text", "text": "T"}, "blocks": [table(2)]}
    body = await refused(client.views_publish(user_id=SUPERVISOR, view={**view, "type": "home"}))
    assert body["error"] == "invalid_blocks"
    assert any("only be used in messages" in e for e in body["errors"])


# --- shortcuts -----------------------------------------------------------------------------


async def test_a_message_shortcut_carries_the_message_and_a_response_url(
    slack: SlackStandIn, client: AsyncWebClient, receiver: Receiver
) -> None:
    posted = await client.chat_postMessage(channel=CALL_CENTER, text="Gọi lại 0912 345 678")
    delivery = await slack.driver.message_shortcut(
        user=SUPERVISOR, channel=CALL_CENTER, ts=posted["ts"], callback_id="do_it"
    )
    assert delivery.in_time
    body = receiver.requests[-1].body
    assert body["type"] == "message_action" and body["callback_id"] == "do_it"
    assert body["message"]["text"] == "Gọi lại 0912 345 678" and body["message_ts"] == posted["ts"]
    assert body["channel"]["id"] == CALL_CENTER and body["user"]["id"] == SUPERVISOR
    assert body["trigger_id"] and body["response_url"].startswith(slack.base_url)
    with pytest.raises(LookupError):
        await slack.driver.message_shortcut(
            user=SUPERVISOR, channel=CALL_CENTER, ts=posted["ts"], callback_id="status"
        )


async def test_a_global_shortcut_carries_a_trigger_only(
    slack: SlackStandIn, receiver: Receiver
) -> None:
    await slack.driver.global_shortcut(user=SUPERVISOR, callback_id="status")
    body = receiver.requests[-1].body
    assert body["type"] == "shortcut" and body["callback_id"] == "status" and body["trigger_id"]
    assert "response_url" not in body and "channel" not in body


# --- workflow steps --------------------------------------------------------------------------


async def test_function_executed_carries_inputs_an_id_and_a_run_token(
    slack: SlackStandIn, receiver: Receiver
) -> None:
    delivery = await slack.driver.run_step("reverse", user=SUPERVISOR, inputs={"text": "abc"})
    assert delivery.in_time
    envelope = receiver.requests[-1].body
    assert envelope["type"] == "event_callback"
    event = envelope["event"]
    assert event["type"] == "function_executed"
    assert event["function"]["callback_id"] == "reverse"
    assert [p["name"] for p in event["function"]["input_parameters"]] == ["who", "text"]
    assert event["inputs"]["text"] == "abc"
    assert event["inputs"]["who"]["interactor"]["id"] == SUPERVISOR
    assert event["function_execution_id"].startswith("Fx")
    token = event["bot_access_token"]
    assert token.startswith("xwfp-") and token != slack.bot_token()
    with pytest.raises(ValueError, match="text is required"):
        await slack.driver.run_step("reverse", user=SUPERVISOR, inputs={})
    with pytest.raises(LookupError):
        await slack.driver.run_step("nonesuch", user=SUPERVISOR)


async def run_id(slack: SlackStandIn, receiver: Receiver, text: str = "abc") -> tuple[str, str]:
    await slack.driver.run_step("reverse", user=SUPERVISOR, inputs={"text": text})
    event = receiver.requests[-1].body["event"]
    return event["function_execution_id"], event["bot_access_token"]


async def test_a_run_is_answered_once_with_outputs_that_fit(
    slack: SlackStandIn, receiver: Receiver
) -> None:
    run, token = await run_id(slack, receiver)
    jit = AsyncWebClient(token=token, base_url=slack.api_url)
    body = await refused(
        jit.functions_completeSuccess(function_execution_id=run, outputs={"reversed": 3})
    )
    assert body["error"] == "parameter_validation_failed"
    assert (
        "reversed must be of type string" in body["errors"]
        and "length is required" in body["errors"]
    )
    await jit.functions_completeSuccess(
        function_execution_id=run, outputs={"reversed": "cba", "length": 3}
    )
    done = slack.step_run(run)
    assert done.state == "completed" and done.outputs == {"reversed": "cba", "length": 3}
    # The run's token dies with the run; a second answer is refused.
    body = await refused(jit.functions_completeError(function_execution_id=run, error="late"))
    assert body["error"] == "token_expired"
    bot = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
    body = await refused(bot.functions_completeError(function_execution_id=run, error="late"))
    assert body["error"] == "execution_not_in_running_state"
    body = await refused(bot.functions_completeError(function_execution_id="Fx999", error="x"))
    assert body["error"] == "function_execution_not_found"


async def test_an_answer_with_the_bots_own_token_is_noted_as_a_problem(
    slack: SlackStandIn, receiver: Receiver
) -> None:
    run, _ = await run_id(slack, receiver)
    bot = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
    await bot.functions_completeError(function_execution_id=run, error="no")
    assert slack.step_run(run).error == "no"
    [entry] = slack.invalid_sends()
    assert "just-in-time token" in entry.problems[0]


async def test_bolt_function_listener_completes_and_fails(slack: SlackStandIn) -> None:
    app = AsyncApp(
        client=AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url),
        signing_secret=slack.signing_secret,
    )

    @app.function("reverse")
    async def reverse(inputs: dict[str, Any], complete: AsyncComplete, fail: AsyncFail) -> None:
        text = inputs["text"]
        if text == "boom":
            await fail("cannot reverse boom")
        else:
            await complete({"reversed": text[::-1], "length": len(text)})

    from aiohttp import web

    async def handle(request: web.Request) -> web.Response:
        return await to_aiohttp_response(await app.async_dispatch(await to_bolt_request(request)))

    web_app = web.Application()
    web_app.router.add_post("/slack/events", handle)
    async with serve(web_app) as url:
        slack.connect_app(url)
        first = await slack.driver.run_step("reverse", user=SUPERVISOR, inputs={"text": "xin chào"})
        second = await slack.driver.run_step("reverse", user=SUPERVISOR, inputs={"text": "boom"})
        ok = await slack.wait_for_step(first.payload["event"]["function_execution_id"])
        bad = await slack.wait_for_step(second.payload["event"]["function_execution_id"])
    assert ok.outputs == {"reversed": "oàhc nix", "length": 8}
    assert (bad.state, bad.error) == ("failed", "cannot reverse boom")
    assert slack.invalid_sends() == [], "Bolt answers with the run's own token"
    assert json.dumps(ok.json())
