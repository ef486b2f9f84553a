"""A minimal slack_bolt AsyncApp (third-party code) to prove the stand-in drives Bolt the
way Slack does: it acks, answers through response_url and the Web API, opens modals."""

from __future__ import annotations

from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import SlackStandIn
from tests.blocks import modal, text_input

CONNECT_MODAL = modal(
    "connect", "Connect", "Connect", text_input("base_url", "Base URL"), notify_on_close=True
)

CARD: list[dict[str, Any]] = [
    {"type": "section", "text": {"type": "mrkdwn", "text": "*Spring* is running"}},
    {
        "type": "actions",
        "elements": [
            {
                "type": "button",
                "action_id": "pause",
                "value": "spring",
                "text": {"type": "plain_text", "text": "Pause"},
            }
        ],
    },
]


def build_bolt_app(slack: SlackStandIn, seen: list[str]) -> AsyncApp:
    app = AsyncApp(
        client=AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url),
        signing_secret=slack.signing_secret,
    )

    @app.command("/callops")
    async def callops(
        ack: AsyncAck, body: dict[str, Any], respond: AsyncRespond, client: AsyncWebClient
    ) -> None:
        seen.append(f"command:{body['text']}")
        if body["text"] == "quick":
            await ack(text="Quick answer in the ack")
            return
        await ack()
        if body["text"] == "connect":
            await client.views_open(trigger_id=body["trigger_id"], view=CONNECT_MODAL)
        else:
            await respond(response_type="in_channel", text="Spring is running", blocks=CARD)

    @app.action("pause")
    async def pause(ack: AsyncAck, body: dict[str, Any], respond: AsyncRespond) -> None:
        await ack()
        seen.append(f"action:{body['actions'][0]['value']}")
        await respond(replace_original=True, text=f"Spring paused by <@{body['user']['id']}>")

    @app.view("connect")
    async def connect(ack: AsyncAck, view: dict[str, Any], client: AsyncWebClient) -> None:
        url = view["state"]["values"]["base_url"]["value"]["value"]
        seen.append(f"view:{url}")
        if not url.startswith("http"):
            await ack(response_action="errors", errors={"base_url": "Must start with http"})
            return
        await ack()
        await client.chat_postMessage(channel="#call-center", text=f"Connected to {url}")

    @app.view_closed("connect")
    async def closed(ack: AsyncAck) -> None:
        await ack()
        seen.append("view_closed")

    @app.event("app_home_opened")
    async def home(event: dict[str, Any], client: AsyncWebClient) -> None:
        seen.append("event:app_home_opened")
        await client.views_publish(
            user_id=event["user"],
            view={
                "type": "home",
                "blocks": [{"type": "header", "text": {"type": "plain_text", "text": "Wallboard"}}],
            },
        )

    @app.event({"type": "message", "subtype": "file_share"})
    async def file_shared(event: dict[str, Any], client: AsyncWebClient) -> None:
        url = event["files"][0]["url_private_download"]
        headers = {"Authorization": f"Bearer {client.token}"}
        async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as got:
            rows = (await got.text()).strip().splitlines()[1:]
        seen.append(f"file:{len(rows)}")
        await client.chat_postMessage(
            channel=event["channel"], thread_ts=event["ts"], text=f"{len(rows)} leads read"
        )

    return app
