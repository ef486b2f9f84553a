"""files.* methods: the external upload flow of ``files_upload_v2``, files.info and
files.delete.

Step 1 (files.getUploadURLExternal) hands out an upload URL on the stand-in, step 2 POSTs
the bytes there (``upload.py``), step 3 (files.completeUploadExternal) shares the files to a
channel as one message from the bot, the way Slack does.
"""

from __future__ import annotations

from emulators.slack.core import ApiCall, Core, api_method, require_bot_member, resolve_channel
from emulators.slack.errors import SlackError
from emulators.slack.model import JSON, StoredFile, file_json


def file_body(core: Core, stored: StoredFile) -> JSON:
    team = core.state.team(stored.team_id)
    return file_json(
        stored,
        base_url=core.base_url,
        domain=team.domain,
        channel_kinds=core.state.channel_kinds(),
    )


@api_method("files.getUploadURLExternal")
async def get_upload_url(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    filename = call.required("filename")
    try:
        length = int(call.required("length"))
    except ValueError:
        raise SlackError("invalid_arguments") from None
    if length <= 0:
        raise SlackError("invalid_arguments")
    stored = core.state.new_file(
        team.id,
        team.bot_user_id,
        name=filename,
        length=length,
        alt_txt=call.text("alt_txt"),
        snippet_type=call.text("snippet_type"),
    )
    return {"upload_url": f"{core.base_url}upload/v1/{stored.upload_key}", "file_id": stored.id}


@api_method("files.completeUploadExternal")
async def complete_upload(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    entries = call.structured("files")
    if not isinstance(entries, list) or not entries:
        raise SlackError("invalid_arguments")
    stored_files: list[StoredFile] = []
    for entry in entries:
        file_id = entry.get("id") if isinstance(entry, dict) else None
        stored = core.state.file(str(file_id)) if file_id else None
        if stored is None or stored.team_id != team.id or stored.content is None:
            raise SlackError("file_not_found")
        if isinstance(entry, dict) and entry.get("title"):
            stored.title = str(entry["title"])
        stored_files.append(stored)
    targets = [c for c in (call.text("channels") or "").split(",") if c]
    if call.text("channel_id"):
        targets.insert(0, call.required("channel_id"))
    channels = [resolve_channel(core, call, ref) for ref in targets]
    for channel in channels:
        require_bot_member(call, channel)
    thread_ts = call.text("thread_ts")
    for channel in channels:
        ts = core.ids.ts(core.clock.now())
        for stored in stored_files:
            stored.shares.setdefault(channel.id, []).append(ts)
        message = core.state.bot_message(
            team, text=call.text("initial_comment") or "", blocks=None, ts=ts
        )
        message["files"] = [file_body(core, f) for f in stored_files]
        message["upload"] = True
        message["display_as_bot"] = False
        if thread_ts:
            message["thread_ts"] = thread_ts
        core.state.add_message(channel, message)
        core.bus.publish("file.shared", team.id, channel=channel.id, ts=ts)
    return {"files": [file_body(core, f) for f in stored_files]}


@api_method("files.info")
async def files_info(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    stored = core.state.file(call.required("file", "file_not_found"))
    if stored is None or stored.team_id != team.id:
        raise SlackError("file_not_found")
    return {
        "file": file_body(core, stored),
        "comments": [],
        "response_metadata": {"next_cursor": ""},
    }


@api_method("files.delete")
async def files_delete(core: Core, call: ApiCall) -> JSON:
    """Slack's files.delete: a bot token deletes the files its bot uploaded
    (``cant_delete_file`` for anyone else's); a file gone already is ``file_deleted``
    when Slack remembers it, else ``file_not_found``."""
    team = call.bot_team
    file_id = call.required("file", "file_not_found")
    stored = core.state.file(file_id)
    if stored is None:
        gone = file_id in core.state.deleted_files
        raise SlackError("file_deleted" if gone else "file_not_found")
    if stored.team_id != team.id:
        raise SlackError("file_not_found")
    if stored.user_id != team.bot_user_id:
        raise SlackError("cant_delete_file")
    core.state.delete_file(file_id)
    core.state.deleted_files.add(file_id)
    return {}
