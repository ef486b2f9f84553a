"""chat.* methods: messages in channels, threads and DMs, ephemerals, permalinks."""

from __future__ import annotations

from typing import Any

from emulators.slack.blockkit import MESSAGE_BLOCK_LIMIT, check_blocks, check_text, fill_ids
from emulators.slack.core import ApiCall, Core, api_method, require_bot_member, resolve_channel
from emulators.slack.errors import SlackError, invalid_blocks
from emulators.slack.model import JSON


def checked_content(core: Core, call: ApiCall, *, require: bool = True) -> tuple[str, Any]:
    """The text and blocks of a message, after Slack's checks (problems go to the journal)."""
    text = call.text("text") or ""
    blocks = call.structured("blocks", error="invalid_blocks_format")
    if blocks is not None and not isinstance(blocks, list):
        raise SlackError("invalid_blocks_format")
    attachments = call.structured("attachments", error="invalid_attachments")
    block_problems = check_blocks(blocks, limit=MESSAGE_BLOCK_LIMIT)
    text_problems = check_text(text)
    call.problems.extend(block_problems + text_problems)
    if block_problems:
        raise invalid_blocks(block_problems)
    if text_problems:
        raise SlackError("msg_too_long")
    if require and not text and not blocks and not attachments:
        raise SlackError("no_text")
    return text, fill_ids(blocks, core.ids.short_block_id) if blocks else blocks


def _metadata(call: ApiCall) -> JSON | None:
    """Message metadata as Slack takes it: ``{"event_type": str, "event_payload": {...}}``.
    It is stored with the message and returned by the history methods only when asked
    for with ``include_all_metadata``."""
    metadata = call.structured("metadata", error="invalid_metadata_format")
    if metadata is None:
        return None
    if (
        not isinstance(metadata, dict)
        or not isinstance(metadata.get("event_type"), str)
        or not metadata["event_type"]
        or not isinstance(metadata.get("event_payload"), dict)
    ):
        raise SlackError("invalid_metadata_format")
    return {"event_type": metadata["event_type"], "event_payload": metadata["event_payload"]}


def _pace(core: Core, channel_id: str) -> None:
    retry_after = core.limits.take_channel_slot(channel_id)
    if retry_after is not None:
        raise SlackError("ratelimited", status=429, headers={"Retry-After": str(retry_after)})


@api_method("chat.postMessage")
async def post_message(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    channel = resolve_channel(core, call, call.text("channel"))
    require_bot_member(call, channel)
    text, blocks = checked_content(core, call)
    metadata = _metadata(call)
    thread_ts = call.text("thread_ts")
    if thread_ts and core.state.get_message(channel.id, thread_ts) is None:
        raise SlackError("thread_not_found")
    _pace(core, channel.id)
    message = core.state.bot_message(
        team, text=text, blocks=blocks, ts=core.ids.ts(core.clock.now())
    )
    if thread_ts:
        message["thread_ts"] = thread_ts
        if call.flag("reply_broadcast"):
            message["subtype"] = "thread_broadcast"
    if metadata:
        message["metadata"] = metadata
    attachments = call.structured("attachments")
    if attachments:
        message["attachments"] = attachments
    stored = core.state.add_message(channel, message)
    return {"channel": channel.id, "ts": stored["ts"], "message": stored}


@api_method("chat.postEphemeral")
async def post_ephemeral(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    channel = resolve_channel(core, call, call.text("channel"))
    user = core.state.find_user(call.required("user", "user_not_found"), team.id)
    if user is None or user.team_id != team.id:
        raise SlackError("user_not_found")
    if user.id not in channel.members:
        raise SlackError("user_not_in_channel")
    require_bot_member(call, channel)
    text, blocks = checked_content(core, call)
    record = core.state.add_ephemeral(
        team.id,
        channel_id=channel.id,
        user_id=user.id,
        text=text,
        blocks=blocks,
        thread_ts=call.text("thread_ts"),
        source="chat.postEphemeral",
    )
    return {"message_ts": record["ts"]}


def _own_message(core: Core, call: ApiCall, ts_param: str, refused: str) -> tuple[Any, JSON]:
    channel = resolve_channel(core, call, call.text("channel"))
    ts = call.required(ts_param, "message_not_found")
    message = core.state.get_message(channel.id, ts)
    if message is None:
        raise SlackError("message_not_found")
    if message.get("bot_id") != call.bot_team.bot_id:
        raise SlackError(refused)
    return channel, message


@api_method("chat.update")
async def update(core: Core, call: ApiCall) -> JSON:
    channel, message = _own_message(core, call, "ts", "cant_update_message")
    text, blocks = checked_content(core, call, require=False)
    metadata = _metadata(call)
    if core.limits.paces_updates:
        _pace(core, channel.id)
    changes: JSON = {}
    if "text" in call.params:
        changes["text"] = text
    if "blocks" in call.params:
        changes["blocks"] = blocks or None  # an empty array removes the blocks
    if "attachments" in call.params:
        changes["attachments"] = call.structured("attachments") or None
    if metadata is not None:
        changes["metadata"] = metadata  # Slack replaces it when given, keeps it otherwise
    if not changes:
        raise SlackError("no_text")
    updated = core.state.update_message(
        channel, message["ts"], changes, editor=call.bot_team.bot_user_id
    )
    return {
        "channel": channel.id,
        "ts": updated["ts"],
        "text": updated.get("text", ""),
        "message": updated,
    }


@api_method("chat.delete")
async def delete(core: Core, call: ApiCall) -> JSON:
    channel, message = _own_message(core, call, "ts", "cant_delete_message")
    core.state.delete_message(channel, message["ts"])
    return {"channel": channel.id, "ts": message["ts"]}


@api_method("chat.getPermalink")
async def get_permalink(core: Core, call: ApiCall) -> JSON:
    channel = resolve_channel(core, call, call.text("channel"))
    ts = call.required("message_ts", "message_not_found")
    message = core.state.get_message(channel.id, ts)
    if message is None:
        raise SlackError("message_not_found")
    domain = call.bot_team.domain
    link = f"https://{domain}.slack.com/archives/{channel.id}/p{ts.replace('.', '')}"
    parent = message.get("thread_ts")
    if parent and parent != ts:
        link += f"?thread_ts={parent}&cid={channel.id}"
    return {"channel": channel.id, "permalink": link}
