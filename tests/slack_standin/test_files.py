"""files_upload_v2's three steps, files.info, and downloads that need the bot token."""

from __future__ import annotations

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import AGENT, CALL_CENTER, DIGESTS, SlackStandIn

CSV = "phone,name\n+33100000001,Ann\n+33100000002,Bob\n"


async def test_files_upload_v2_shares_to_the_channel(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    answer = await client.files_upload_v2(
        channel=CALL_CENTER,
        content=CSV,
        filename="leads.csv",
        title="Leads",
        initial_comment="Here are the leads",
    )
    file = answer["file"]
    assert file["name"] == "leads.csv" and file["title"] == "Leads"
    assert file["size"] == len(CSV) and file["mimetype"] == "text/csv"
    assert CALL_CENTER in file["channels"]
    [message] = slack.messages(CALL_CENTER)
    assert message["text"] == "Here are the leads"
    assert message["files"][0]["id"] == file["id"]
    info = await client.files_info(file=file["id"])
    assert info["file"]["shares"]["public"][CALL_CENTER][0]["ts"] == message["ts"]
    assert [e.method for e in slack.journal(kind="api")] == [
        "files.getUploadURLExternal",
        "files.completeUploadExternal",
        "files.info",
    ]
    _, content = slack.file(file["id"])
    assert content == CSV.encode()


async def test_upload_needs_a_channel_the_bot_is_in(client: AsyncWebClient) -> None:
    with pytest.raises(SlackApiError) as caught:
        await client.files_upload_v2(channel=DIGESTS, content="x", filename="x.txt")
    assert caught.value.response["error"] == "not_in_channel"
    with pytest.raises(SlackApiError) as caught:
        await client.files_info(file="F404")
    assert caught.value.response["error"] == "file_not_found"


async def test_download_with_and_without_the_bot_token(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    shared = await slack.driver.file_share(
        user=AGENT, channel=DIGESTS, name="leads.csv", content=CSV.encode()
    )
    assert shared is None  # bot not in #digests: no event
    url = slack.messages(DIGESTS)[0]["files"][0]["url_private_download"]
    async with aiohttp.ClientSession() as session:
        headers = {"Authorization": f"Bearer {slack.bot_token()}"}
        async with session.get(url, headers=headers) as response:
            assert response.status == 200 and await response.text() == CSV
        async with session.get(url) as response:  # Slack's sign-in page, not the data
            assert response.status == 200 and response.content_type == "text/html"
    assert [e.response["ok"] for e in slack.journal("download")] == [True, False]
