"""What Slack does with a reply to an interaction: a POST to a response_url, or the body of
a slash command's acknowledgement.

``response_type`` ephemeral (default) shows the reply to the user only; ``in_channel``
posts it as the bot, without the bot having to be a member; ``replace_original`` rewrites
the message the interaction came from (for a slash command: the last reply sent through the
same URL); ``delete_original`` removes it.
"""

from __future__ import annotations

from typing import Any

from emulators.slack.blockkit import MESSAGE_BLOCK_LIMIT, check_blocks, check_text, fill_ids
from emulators.slack.core import Core
from emulators.slack.errors import SlackError, invalid_blocks
from emulators.slack.model import JSON, ResponseUrl


def apply_reply(core: Core, record: ResponseUrl, body: Any, problems: list[str]) -> None:
    if not isinstance(body, dict):
        raise SlackError("invalid_payload", status=400)
    state = core.state
    target = record.source or record.last
    if body.get("delete_original"):
        if target is None:
            raise SlackError("message_not_found", status=404)
        _delete(core, target)
        return
    text = body.get("text") or ""
    blocks = body.get("blocks")
    block_problems = check_blocks(blocks, limit=MESSAGE_BLOCK_LIMIT)
    problems.extend(block_problems + check_text(text))
    if block_problems:
        error = invalid_blocks(block_problems)
        error.status = 400
        raise error
    if check_text(text):
        raise SlackError("msg_too_long", status=400)
    if not text and not blocks:
        raise SlackError("no_text", status=400)
    blocks = fill_ids(blocks, core.ids.short_block_id) if blocks else None
    if body.get("replace_original") and target is not None:
        kind, where, ts = target
        if kind == "message":
            changes: JSON = {"text": text, "blocks": blocks}
            state.update_message(
                state.channel(where), ts, changes, editor=state.team(record.team_id).bot_user_id
            )
        else:
            state.replace_ephemeral(ts, text=text, blocks=blocks)
        return
    if body.get("response_type") == "in_channel":
        team = state.team(record.team_id)
        message = state.bot_message(
            team, text=text, blocks=blocks, ts=core.ids.ts(core.clock.now())
        )
        if body.get("thread_ts"):
            message["thread_ts"] = body["thread_ts"]
        stored = state.add_message(state.channel(record.channel_id), message)
        record.last = ("message", record.channel_id, stored["ts"])
        return
    ephemeral = state.add_ephemeral(
        record.team_id,
        channel_id=record.channel_id,
        user_id=record.user_id,
        text=text,
        blocks=blocks,
        thread_ts=body.get("thread_ts"),
        source="response_url",
    )
    record.last = ("ephemeral", record.user_id, ephemeral["ts"])


def _delete(core: Core, target: tuple[str, str, str]) -> None:
    kind, where, ts = target
    if kind == "message":
        core.state.delete_message(core.state.channel(where), ts)
    else:
        core.state.delete_ephemeral(ts)
