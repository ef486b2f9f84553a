"""Getting a command's outcome in front of the user: a reply through ``response_url``, or a
modal opened with the trigger id (which Slack honours for 3 seconds only)."""

from __future__ import annotations

import logging

from slack_bolt.async_app import AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from commands.kernel.reply import OpenModal, Outcome, notice

log = logging.getLogger(__name__)


async def deliver(
    outcome: Outcome,
    *,
    respond: AsyncRespond,
    client: AsyncWebClient,
    trigger_id: str | None,
    private_metadata: str | None = None,
    replace_original: bool = False,
) -> None:
    if isinstance(outcome, OpenModal):
        view = outcome.view
        if private_metadata and not view.private_metadata:
            view.private_metadata = private_metadata
        try:
            await client.views_open(trigger_id=trigger_id or "", view=view)
        except SlackApiError as exc:
            error = exc.response.get("error")
            log.warning("views.open failed: %s", error)
            text = "Slack did not let me open the form in time; please run the command again."
            await respond(**notice(text, emoji=":hourglass:").payload())
        return
    payload = outcome.payload()
    if replace_original:
        payload["replace_original"] = True
    await respond(**payload)
