"""The records the stand-in keeps, and their Slack wire shapes (users.info, conversations.info,
files.info...). Messages and views are kept directly in their wire shape (plain dicts)."""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

JSON = dict[str, Any]


@dataclass
class Team:
    id: str
    name: str
    domain: str
    app_id: str
    bot_user_id: str
    bot_id: str
    bot_tokens: list[str] = field(default_factory=list)
    enterprise_id: str | None = None


@dataclass
class User:
    id: str
    team_id: str
    name: str
    real_name: str
    is_admin: bool = False
    is_owner: bool = False
    tz: str = "UTC"
    email: str | None = None
    locale: str = "en-US"
    """What ``users.info`` says with ``include_locale`` (the person's Slack language)."""
    is_bot: bool = False
    bot_id: str | None = None
    deleted: bool = False


@dataclass
class Channel:
    id: str
    team_id: str
    name: str
    created: int
    is_private: bool = False
    is_im: bool = False
    im_user: str | None = None
    members: set[str] = field(default_factory=set)
    topic: str = ""
    purpose: str = ""


TokenKind = Literal["bot", "user", "app"]


@dataclass
class Token:
    value: str
    team_id: str | None  # app-level tokens belong to the app, not to a team
    kind: TokenKind
    user_id: str | None = None
    revoked: bool = False
    function_execution_id: str | None = None
    """Set on a workflow step run's just-in-time token (``function_executed``)."""
    expired: bool = False
    """A just-in-time token stops working once its run is answered."""
    expires_at: float | None = None
    """With token rotation on, when (stand-in clock) the access token stops working."""


@dataclass
class RefreshGrant:
    """A refresh token of an app with token rotation on: exchanged once for a new access
    token and a new refresh token; used again it is refused (``invalid_refresh_token``)."""

    value: str
    team_id: str
    user_id: str
    used: bool = False


@dataclass
class StoredFile:
    id: str
    team_id: str
    user_id: str
    name: str
    title: str
    created: int
    length: int
    content: bytes | None = None
    alt_txt: str | None = None
    snippet_type: str | None = None
    upload_key: str = ""
    shares: dict[str, list[str]] = field(default_factory=dict)  # channel id -> message ts list


@dataclass
class Trigger:
    id: str
    team_id: str
    user_id: str
    issued_at: float
    used: bool = False


@dataclass
class ResponseUrl:
    """A response_url handed to the app with one command or click.

    ``source`` is the message the interaction came from (``("message", channel, ts)`` or
    ``("ephemeral", user, ts)``); ``last`` what this URL posted most recently, which is what
    ``replace_original`` replaces when there is no source (slash commands).
    """

    id: str
    team_id: str
    user_id: str
    channel_id: str
    created_at: float
    source: tuple[str, str, str] | None = None
    last: tuple[str, str, str] | None = None
    uses: int = 0


def tz_fields(tz: str, now: float) -> JSON:
    zone = ZoneInfo(tz)
    moment = datetime.fromtimestamp(now, zone)
    offset = moment.utcoffset()
    return {
        "tz": tz,
        "tz_label": moment.tzname() or tz,
        "tz_offset": int(offset.total_seconds()) if offset is not None else 0,
    }


def user_json(user: User, now: float) -> JSON:
    display = user.name
    profile: JSON = {
        "real_name": user.real_name,
        "real_name_normalized": user.real_name,
        "display_name": display,
        "display_name_normalized": display,
        "first_name": user.real_name.split(" ")[0],
        "last_name": " ".join(user.real_name.split(" ")[1:]),
        "title": "",
        "phone": "",
        "status_text": "",
        "status_emoji": "",
        "image_48": f"https://avatars.standin.invalid/{user.id}_48.png",
        "image_72": f"https://avatars.standin.invalid/{user.id}_72.png",
        "team": user.team_id,
    }
    if user.email:
        profile["email"] = user.email
    if user.bot_id:
        profile["bot_id"] = user.bot_id
    return {
        "id": user.id,
        "team_id": user.team_id,
        "name": user.name,
        "deleted": user.deleted,
        "color": "9f69e7",
        "real_name": user.real_name,
        **tz_fields(user.tz, now),
        "profile": profile,
        "is_admin": user.is_admin,
        "is_owner": user.is_owner,
        "is_primary_owner": user.is_owner,
        "is_restricted": False,
        "is_ultra_restricted": False,
        "is_bot": user.is_bot,
        "is_app_user": False,
        "updated": int(now),
        "is_email_confirmed": True,
        "who_can_share_contact_card": "EVERYONE",
    }


def channel_json(channel: Channel, *, is_member: bool, with_count: bool = False) -> JSON:
    if channel.is_im:
        return {
            "id": channel.id,
            "created": channel.created,
            "is_im": True,
            "is_org_shared": False,
            "user": channel.im_user,
            "is_user_deleted": False,
            "priority": 0,
            "context_team_id": channel.team_id,
        }
    body: JSON = {
        "id": channel.id,
        "name": channel.name,
        "is_channel": not channel.is_private,
        "is_group": channel.is_private,
        "is_im": False,
        "is_mpim": False,
        "is_private": channel.is_private,
        "created": channel.created,
        "is_archived": False,
        "is_general": False,
        "unlinked": 0,
        "name_normalized": channel.name,
        "is_shared": False,
        "is_org_shared": False,
        "is_pending_ext_shared": False,
        "pending_shared": [],
        "context_team_id": channel.team_id,
        "creator": "",
        "is_ext_shared": False,
        "shared_team_ids": [channel.team_id],
        "is_member": is_member,
        "topic": {"value": channel.topic, "creator": "", "last_set": 0},
        "purpose": {"value": channel.purpose, "creator": "", "last_set": 0},
        "previous_names": [],
    }
    if with_count:
        body["num_members"] = len(channel.members)
    return body


def file_json(f: StoredFile, *, base_url: str, domain: str, channel_kinds: dict[str, str]) -> JSON:
    """files.info's ``file`` object; ``channel_kinds`` maps each shared channel to
    ``public``/``private``/``im`` so ``channels``/``groups``/``ims`` and ``shares`` come out
    the way Slack splits them."""
    mimetype = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
    ext = f.name.rsplit(".", 1)[-1].lower() if "." in f.name else "binary"
    private = f"{base_url}files-pri/{f.team_id}-{f.id}/{f.name}"
    shares: JSON = {}
    for channel_id, tss in f.shares.items():
        kind = "public" if channel_kinds.get(channel_id) == "public" else "private"
        shares.setdefault(kind, {})[channel_id] = [
            {"reply_users": [], "reply_users_count": 0, "reply_count": 0, "ts": ts} for ts in tss
        ]
    return {
        "id": f.id,
        "created": f.created,
        "timestamp": f.created,
        "name": f.name,
        "title": f.title,
        "mimetype": mimetype,
        "filetype": ext,
        "pretty_type": ext.upper(),
        "user": f.user_id,
        "user_team": f.team_id,
        "editable": False,
        "size": f.length if f.content is None else len(f.content),
        "mode": "hosted",
        "is_external": False,
        "external_type": "",
        "is_public": any(channel_kinds.get(c) == "public" for c in f.shares),
        "public_url_shared": False,
        "display_as_bot": False,
        "username": "",
        "url_private": private,
        "url_private_download": f"{base_url}files-pri/{f.team_id}-{f.id}/download/{f.name}",
        "permalink": f"https://{domain}.slack.com/files/{f.user_id}/{f.id}/{f.name}",
        "permalink_public": f"https://slack-files.com/{f.team_id}-{f.id}-standin",
        "channels": [c for c in f.shares if channel_kinds.get(c) == "public"],
        "groups": [c for c in f.shares if channel_kinds.get(c) == "private"],
        "ims": [c for c in f.shares if channel_kinds.get(c) == "im"],
        "shares": shares,
        "comments_count": 0,
        "has_rich_preview": False,
        "file_access": "visible",
        **({"alt_txt": f.alt_txt} if f.alt_txt else {}),
    }
