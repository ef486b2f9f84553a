"""The stand-in's whole Slack: teams, users, channels, messages, ephemerals, views, files.

One ``State`` per stand-in. Every operation takes the lock, so query helpers may be called
from a test thread while the server's loop changes things. Returned messages and views are
deep copies: a test cannot change the stand-in's Slack by mutating what it was given.
Every change is published on the ``EventBus`` (the future console's live feed).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from emulators.slack.bus import EventBus
from emulators.slack.clock import Clock
from emulators.slack.errors import SlackError
from emulators.slack.ids import IdFactory
from emulators.slack.model import (
    JSON,
    Channel,
    RefreshGrant,
    ResponseUrl,
    StoredFile,
    Team,
    Token,
    TokenKind,
    Trigger,
    User,
)

TRIGGER_TTL = 3.0
RESPONSE_URL_TTL = 30 * 60.0
RESPONSE_URL_USES = 5
MODAL_STACK_LIMIT = 3

_Ref = TypeVar("_Ref")


class State:
    def __init__(self, clock: Clock, ids: IdFactory, bus: EventBus, app_name: str) -> None:
        self.clock = clock
        self.ids = ids
        self.bus = bus
        self.app_name = app_name
        self._lock = threading.RLock()
        self.clear()

    def clear(self) -> None:
        with self._lock:
            self.teams: dict[str, Team] = {}
            self.users: dict[str, User] = {}
            self.channels: dict[str, Channel] = {}
            self.tokens: dict[str, Token] = {}
            self._messages: dict[str, dict[str, JSON]] = {}
            self._ephemerals: dict[str, JSON] = {}
            self._views: dict[str, JSON] = {}
            self._view_owner: dict[str, tuple[str, str]] = {}
            self._view_errors: dict[str, dict[str, str]] = {}
            self._stacks: dict[tuple[str, str], list[str]] = {}
            self._homes: dict[tuple[str, str], str] = {}
            self.files: dict[str, StoredFile] = {}
            self.deleted_files: set[str] = set()
            self.triggers: dict[str, Trigger] = {}
            self.response_urls: dict[str, ResponseUrl] = {}
            self.oauth_codes: dict[str, tuple[str, str]] = {}
            self.refresh_tokens: dict[str, RefreshGrant] = {}

    # ------------------------------------------------------------------ seeding

    def add_team(
        self,
        *,
        id: str | None = None,
        name: str,
        domain: str | None = None,
        app_id: str,
        bot_token: str | None = None,
    ) -> Team:
        with self._lock:
            team_id = id or self.ids.next("T")
            if team_id in self.teams:
                raise ValueError(f"team {team_id} already exists")
            bot_user_id = self.ids.next("U")
            bot_id = self.ids.next("B")
            token = bot_token or f"xoxb-{team_id}-{self.ids.opaque(18)}"
            team = Team(
                id=team_id,
                name=name,
                domain=domain or name.lower().replace(" ", "-"),
                app_id=app_id,
                bot_user_id=bot_user_id,
                bot_id=bot_id,
                bot_tokens=[token],
            )
            self.teams[team_id] = team
            self.users[bot_user_id] = User(
                id=bot_user_id,
                team_id=team_id,
                name=self.app_name.lower(),
                real_name=self.app_name,
                is_bot=True,
                bot_id=bot_id,
            )
            self.tokens[token] = Token(value=token, team_id=team_id, kind="bot")
            return team

    def add_user(
        self,
        team_id: str,
        name: str,
        *,
        id: str | None = None,
        real_name: str | None = None,
        is_admin: bool = False,
        is_owner: bool = False,
        tz: str = "UTC",
        email: str | None = None,
        locale: str = "en-US",
    ) -> User:
        with self._lock:
            self.team(team_id)
            user = User(
                id=id or self.ids.next("U"),
                team_id=team_id,
                name=name,
                real_name=real_name or name.title(),
                is_admin=is_admin or is_owner,
                is_owner=is_owner,
                tz=tz,
                email=email,
                locale=locale,
            )
            if user.id in self.users:
                raise ValueError(f"user {user.id} already exists")
            self.users[user.id] = user
            return user

    def add_channel(
        self,
        team_id: str,
        name: str,
        *,
        id: str | None = None,
        members: Iterable[str] = (),
        bot_member: bool = True,
        is_private: bool = False,
    ) -> Channel:
        with self._lock:
            team = self.team(team_id)
            channel = Channel(
                id=id or self.ids.next("G" if is_private else "C"),
                team_id=team_id,
                name=name.lstrip("#"),
                created=int(self.clock.now()),
                is_private=is_private,
                members={self.user(m, team_id).id for m in members},
            )
            if channel.id in self.channels:
                raise ValueError(f"channel {channel.id} already exists")
            if bot_member:
                channel.members.add(team.bot_user_id)
            self.channels[channel.id] = channel
            self._messages[channel.id] = {}
            return channel

    def add_token(
        self, value: str, *, team_id: str | None, kind: TokenKind, user_id: str | None = None
    ) -> Token:
        with self._lock:
            token = Token(value=value, team_id=team_id, kind=kind, user_id=user_id)
            self.tokens[value] = token
            if kind == "bot" and team_id is not None:
                self.team(team_id).bot_tokens.append(value)
            return token

    def issue_bot_token(
        self, team_id: str, user_id: str, *, lifetime: float | None
    ) -> tuple[Token, RefreshGrant | None]:
        """A new bot token of ``team_id`` granted by ``user_id``'s install. With a
        ``lifetime`` (token rotation on) it is an expiring ``xoxe.xoxb-`` token that stops
        working ``lifetime`` seconds from now (stand-in clock), and comes with a refresh
        token."""
        with self._lock:
            team = self.team(team_id)
            if lifetime is None:
                value = f"xoxb-{team.id}-{self.ids.opaque(18)}"
                return self.add_token(value, team_id=team.id, kind="bot"), None
            value = f"xoxe.xoxb-1-{team.id}-{self.ids.opaque(24)}"
            token = self.add_token(value, team_id=team.id, kind="bot")
            token.expires_at = self.clock.now() + lifetime
            grant = RefreshGrant(
                value=f"xoxe-1-{self.ids.opaque(32)}", team_id=team.id, user_id=user_id
            )
            self.refresh_tokens[grant.value] = grant
            return token, grant

    def redeem_refresh_token(self, value: str) -> RefreshGrant:
        """Use a refresh token, once: a second use (or an unknown one, or one of a workspace
        that uninstalled the app) is ``invalid_refresh_token``."""
        with self._lock:
            grant = self.refresh_tokens.get(value)
            if grant is None or grant.used or grant.team_id not in self.teams:
                raise SlackError("invalid_refresh_token")
            grant.used = True
            return grant

    def add_step_token(self, team_id: str, function_execution_id: str) -> Token:
        """A step run's just-in-time bot token: the bot's powers in ``team_id``, until the
        run is answered.  Not one of the team's installed bot tokens."""
        with self._lock:
            self.team(team_id)
            value = f"xwfp-{team_id}-{self.ids.opaque(18)}"
            token = Token(
                value=value,
                team_id=team_id,
                kind="bot",
                function_execution_id=function_execution_id,
            )
            self.tokens[value] = token
            return token

    def expire_token(self, value: str) -> None:
        with self._lock:
            token = self.tokens.get(value)
            if token is not None:
                token.expired = True

    def revoke_tokens(self, team_id: str) -> None:
        """What uninstalling the app does to a workspace's tokens: calls now fail."""
        with self._lock:
            for token in self.tokens.values():
                if token.team_id == team_id:
                    token.revoked = True
            for grant in self.refresh_tokens.values():
                if grant.team_id == team_id:
                    grant.used = True

    def set_bot_member(self, channel_id: str, member: bool) -> None:
        with self._lock:
            channel = self.channel(channel_id)
            bot = self.team(channel.team_id).bot_user_id
            if member:
                channel.members.add(bot)
            else:
                channel.members.discard(bot)

    # ------------------------------------------------------------------ lookups

    def team(self, team_id: str) -> Team:
        with self._lock:
            try:
                return self.teams[team_id]
            except KeyError:
                raise LookupError(f"no team {team_id!r}") from None

    def _find(
        self, ref: str, sigil: str, table: dict[str, _Ref], named: Callable[[_Ref, str], bool]
    ) -> _Ref | None:
        """An entry of ``table`` by id, ``<{sigil}ID|name>``, ``{sigil}name`` or a name that
        ``named`` accepts: Slack escapes references one way and people type them another."""
        ref = ref.strip()
        if ref.startswith("<" + sigil) and ref.endswith(">"):
            ref = ref[2:-1].split("|", 1)[0]
        with self._lock:
            if ref in table:
                return table[ref]
            name = ref.lstrip(sigil)
            return next((entry for entry in table.values() if named(entry, name)), None)

    def find_user(self, ref: str, team_id: str | None = None) -> User | None:
        """A user by id, ``<@U123|name>``, ``@name`` or name (names within ``team_id``)."""
        return self._find(
            ref,
            "@",
            self.users,
            lambda user, name: user.name == name and team_id in (None, user.team_id),
        )

    def user(self, ref: str, team_id: str | None = None) -> User:
        user = self.find_user(ref, team_id)
        if user is None:
            raise LookupError(f"no user {ref!r}")
        return user

    def find_channel(self, ref: str, team_id: str | None = None) -> Channel | None:
        """A channel by id, ``<#C123|name>``, ``#name`` or name (names within ``team_id``)."""
        return self._find(
            ref,
            "#",
            self.channels,
            lambda channel, name: (
                not channel.is_im and channel.name == name and team_id in (None, channel.team_id)
            ),
        )

    def channel(self, ref: str, team_id: str | None = None) -> Channel:
        channel = self.find_channel(ref, team_id)
        if channel is None:
            raise LookupError(f"no channel {ref!r}")
        return channel

    def users_of(self, team_id: str) -> list[User]:
        with self._lock:
            return [u for u in self.users.values() if u.team_id == team_id]

    def channels_of(self, team_id: str) -> list[Channel]:
        with self._lock:
            return [c for c in self.channels.values() if c.team_id == team_id]

    def first_team_id(self) -> str:
        with self._lock:
            return next(iter(self.teams))

    def token(self, value: str) -> Token | None:
        with self._lock:
            return self.tokens.get(value)

    def open_im(self, team_id: str, user_id: str) -> Channel:
        """The DM channel between the bot and a user, created on first use as Slack does."""
        with self._lock:
            for channel in self.channels.values():
                if channel.is_im and channel.team_id == team_id and channel.im_user == user_id:
                    return channel
            team = self.team(team_id)
            channel = Channel(
                id=self.ids.next("D"),
                team_id=team_id,
                name="directmessage",
                created=int(self.clock.now()),
                is_im=True,
                im_user=user_id,
                members={user_id, team.bot_user_id},
            )
            self.channels[channel.id] = channel
            self._messages[channel.id] = {}
            return channel

    # ------------------------------------------------------------------ messages

    def bot_message(self, team: Team, *, text: str, blocks: Any, ts: str) -> JSON:
        message: JSON = {
            "type": "message",
            "text": text,
            "user": team.bot_user_id,
            "bot_id": team.bot_id,
            "app_id": team.app_id,
            "ts": ts,
            "team": team.id,
            "bot_profile": {
                "id": team.bot_id,
                "app_id": team.app_id,
                "name": self.app_name,
                "deleted": False,
                "team_id": team.id,
                "updated": int(float(ts)),
                "icons": {"image_48": "https://avatars.standin.invalid/app_48.png"},
            },
        }
        if blocks:
            message["blocks"] = blocks
        return message

    def add_message(self, channel: Channel, message: JSON) -> JSON:
        """Store a fully shaped message (ts already set); keeps thread counters right."""
        with self._lock:
            stored = copy.deepcopy(message)
            thread_ts = stored.get("thread_ts")
            if thread_ts and thread_ts != stored["ts"]:
                parent = self._messages[channel.id].get(thread_ts)
                if parent is not None:
                    parent["thread_ts"] = thread_ts
                    parent["reply_count"] = int(parent.get("reply_count", 0)) + 1
                    users = list(parent.get("reply_users", []))
                    if stored.get("user") not in users:
                        users.append(stored.get("user"))
                    parent["reply_users"] = users
                    parent["reply_users_count"] = len(users)
                    parent["latest_reply"] = stored["ts"]
                    stored["parent_user_id"] = parent.get("user")
            self._messages[channel.id][stored["ts"]] = stored
            result = copy.deepcopy(stored)
        self.bus.publish("message.posted", channel.team_id, channel=channel.id, message=result)
        return copy.deepcopy(result)

    def get_message(self, channel_id: str, ts: str) -> JSON | None:
        with self._lock:
            message = self._messages.get(channel_id, {}).get(ts)
            return copy.deepcopy(message) if message is not None else None

    def update_message(self, channel: Channel, ts: str, changes: JSON, *, editor: str) -> JSON:
        with self._lock:
            message = self._messages[channel.id].get(ts)
            if message is None:
                raise SlackError("message_not_found")
            for key, value in changes.items():
                if value is None:
                    message.pop(key, None)
                else:
                    message[key] = copy.deepcopy(value)
            message["edited"] = {"user": editor, "ts": self.ids.ts(self.clock.now())}
            result = copy.deepcopy(message)
        self.bus.publish("message.updated", channel.team_id, channel=channel.id, message=result)
        return copy.deepcopy(result)

    def delete_message(self, channel: Channel, ts: str) -> None:
        with self._lock:
            if self._messages[channel.id].pop(ts, None) is None:
                raise SlackError("message_not_found")
        self.bus.publish("message.deleted", channel.team_id, channel=channel.id, ts=ts)

    def messages(self, channel_id: str) -> list[JSON]:
        """The channel's history as a person sees it: top-level messages, oldest first."""
        with self._lock:
            items = list(self._messages.get(channel_id, {}).values())
            return copy.deepcopy(
                [
                    m
                    for m in items
                    if m.get("thread_ts") in (None, m["ts"])
                    or m.get("subtype") == "thread_broadcast"
                ]
            )

    def thread(self, channel_id: str, ts: str) -> list[JSON]:
        """The parent then its replies, oldest first."""
        with self._lock:
            items = list(self._messages.get(channel_id, {}).values())
            return copy.deepcopy([m for m in items if m["ts"] == ts or m.get("thread_ts") == ts])

    # ------------------------------------------------------------------ ephemerals

    def add_ephemeral(
        self,
        team_id: str,
        *,
        channel_id: str,
        user_id: str,
        text: str,
        blocks: Any,
        thread_ts: str | None,
        source: str,
    ) -> JSON:
        ts = self.ids.ts(self.clock.now())
        record: JSON = {
            "type": "message",
            "subtype": "ephemeral",
            "team": team_id,
            "channel": channel_id,
            "user": user_id,
            "ts": ts,
            "text": text,
            "source": source,
        }
        if blocks:
            record["blocks"] = copy.deepcopy(blocks)
        if thread_ts:
            record["thread_ts"] = thread_ts
        with self._lock:
            self._ephemerals[ts] = record
            result = copy.deepcopy(record)
        self.bus.publish("ephemeral.posted", team_id, user=user_id, message=result)
        return copy.deepcopy(result)

    def get_ephemeral(self, ts: str) -> JSON | None:
        with self._lock:
            record = self._ephemerals.get(ts)
            return copy.deepcopy(record) if record is not None else None

    def replace_ephemeral(self, ts: str, *, text: str, blocks: Any) -> JSON:
        with self._lock:
            record = self._ephemerals.get(ts)
            if record is None:
                raise SlackError("message_not_found")
            record["text"] = text
            if blocks:
                record["blocks"] = copy.deepcopy(blocks)
            else:
                record.pop("blocks", None)
            result = copy.deepcopy(record)
        self.bus.publish("ephemeral.updated", result["team"], user=result["user"], message=result)
        return copy.deepcopy(result)

    def delete_ephemeral(self, ts: str) -> None:
        with self._lock:
            record = self._ephemerals.pop(ts, None)
        if record is None:
            raise SlackError("message_not_found")
        self.bus.publish("ephemeral.deleted", record["team"], user=record["user"], ts=ts)

    def ephemerals(self, user_id: str) -> list[JSON]:
        with self._lock:
            return copy.deepcopy([e for e in self._ephemerals.values() if e["user"] == user_id])

    # ------------------------------------------------------------------ views

    def _new_view(self, team: Team, view: JSON, *, root: str | None, previous: str | None) -> JSON:
        view_id = self.ids.next("V")
        stored: JSON = {
            "id": view_id,
            "team_id": team.id,
            "type": view.get("type"),
            "blocks": copy.deepcopy(view.get("blocks") or []),
            "private_metadata": view.get("private_metadata", ""),
            "callback_id": view.get("callback_id", ""),
            "state": {"values": {}},
            "hash": self.ids.view_hash(self.clock.now()),
            "clear_on_close": bool(view.get("clear_on_close", False)),
            "notify_on_close": bool(view.get("notify_on_close", False)),
            "close": view.get("close"),
            "submit": view.get("submit"),
            "previous_view_id": previous,
            "root_view_id": root or view_id,
            "app_id": team.app_id,
            "external_id": view.get("external_id", ""),
            "app_installed_team_id": team.id,
            "bot_id": team.bot_id,
        }
        if "title" in view:
            stored["title"] = copy.deepcopy(view["title"])
        self._views[view_id] = stored
        return stored

    def open_view(self, team: Team, user_id: str, view: JSON, *, push: bool) -> JSON:
        with self._lock:
            key = (team.id, user_id)
            stack = self._stacks.setdefault(key, [])
            if push and len(stack) >= MODAL_STACK_LIMIT:
                raise SlackError("push_limit_reached")
            if not push:
                for old in stack:
                    self._view_owner.pop(old, None)
                stack.clear()
            root = stack[0] if stack else None
            previous = stack[-1] if stack else None
            stored = self._new_view(team, view, root=root, previous=previous)
            self._view_owner[stored["id"]] = key
            stack.append(stored["id"])
            result = copy.deepcopy(stored)
        kind = "view.pushed" if push else "view.opened"
        self.bus.publish(kind, team.id, user=user_id, view=result)
        return copy.deepcopy(result)

    def find_view(self, view_id: str | None = None, external_id: str | None = None) -> JSON | None:
        with self._lock:
            if view_id:
                found = self._views.get(view_id)
            else:
                found = next(
                    (
                        v
                        for v in self._views.values()
                        if external_id and v.get("external_id") == external_id
                    ),
                    None,
                )
            return copy.deepcopy(found) if found is not None else None

    def view_owner(self, view_id: str) -> tuple[str, str] | None:
        with self._lock:
            return self._view_owner.get(view_id)

    def update_view(self, view_id: str, view: JSON, *, expected_hash: str | None) -> JSON:
        with self._lock:
            stored = self._views.get(view_id)
            if stored is None or view_id not in self._view_owner:
                raise SlackError("not_found")
            if expected_hash and expected_hash != stored["hash"]:
                raise SlackError("hash_conflict")
            for key in ("blocks", "private_metadata", "callback_id", "title", "close", "submit"):
                if key in view:
                    stored[key] = copy.deepcopy(view[key])
            for flag in ("clear_on_close", "notify_on_close"):
                if flag in view:
                    stored[flag] = bool(view[flag])
            if "external_id" in view:
                stored["external_id"] = view["external_id"]
            stored["hash"] = self.ids.view_hash(self.clock.now())
            self._view_errors.pop(view_id, None)
            team_id, user_id = self._view_owner[view_id]
            result = copy.deepcopy(stored)
        kind = "home.published" if result["type"] == "home" else "view.updated"
        self.bus.publish(kind, team_id, user=user_id, view=result)
        return copy.deepcopy(result)

    def set_view_state(self, view_id: str, values: JSON) -> None:
        with self._lock:
            if view_id in self._views:
                self._views[view_id]["state"] = {"values": copy.deepcopy(values)}

    def set_view_errors(self, view_id: str, errors: dict[str, str]) -> None:
        with self._lock:
            self._view_errors[view_id] = dict(errors)
            owner = self._view_owner.get(view_id)
        self.bus.publish(
            "view.updated", owner[0] if owner else None, view_id=view_id, errors=dict(errors)
        )

    def view_errors(self, view_id: str) -> dict[str, str]:
        with self._lock:
            return dict(self._view_errors.get(view_id, {}))

    def close_view(self, view_id: str, *, all_views: bool = False) -> list[str]:
        """Take a modal (or its whole stack) off the user's screen; returns the ids closed."""
        with self._lock:
            owner = self._view_owner.get(view_id)
            if owner is None:
                return []
            stack = self._stacks.get(owner, [])
            if view_id not in stack:
                return []
            if all_views:
                closed = list(stack)
                stack.clear()
            else:
                index = stack.index(view_id)
                closed = stack[index:]
                del stack[index:]
            for vid in closed:
                self._view_owner.pop(vid, None)
        for vid in closed:
            self.bus.publish("view.closed", owner[0], user=owner[1], view_id=vid)
        return closed

    def stack(self, team_id: str, user_id: str) -> list[JSON]:
        with self._lock:
            ids = self._stacks.get((team_id, user_id), [])
            return copy.deepcopy([self._views[v] for v in ids])

    def publish_home(
        self, team: Team, user_id: str, view: JSON, *, expected_hash: str | None
    ) -> JSON:
        with self._lock:
            key = (team.id, user_id)
            existing = self._homes.get(key)
            if existing is None:
                if expected_hash:
                    raise SlackError("hash_conflict")
                stored = self._new_view(team, view, root=None, previous=None)
                self._homes[key] = stored["id"]
                self._view_owner[stored["id"]] = key
                result = copy.deepcopy(stored)
                self.bus.publish("home.published", team.id, user=user_id, view=result)
                return copy.deepcopy(result)
        return self.update_view(existing, view, expected_hash=expected_hash)

    def home(self, team_id: str, user_id: str) -> JSON | None:
        with self._lock:
            view_id = self._homes.get((team_id, user_id))
            return copy.deepcopy(self._views[view_id]) if view_id else None

    # ------------------------------------------------------------------ triggers

    def issue_trigger(self, team_id: str, user_id: str) -> str:
        now = self.clock.now()
        trigger = Trigger(
            id=self.ids.trigger_id(now), team_id=team_id, user_id=user_id, issued_at=now
        )
        with self._lock:
            self.triggers[trigger.id] = trigger
        return trigger.id

    def use_trigger(self, trigger_id: Any, team_id: str) -> Trigger:
        """Spend a trigger id: valid once, for 3 seconds of the stand-in's clock."""
        with self._lock:
            trigger = self.triggers.get(str(trigger_id)) if trigger_id else None
            if trigger is None or trigger.team_id != team_id:
                raise SlackError("invalid_trigger_id")
            if trigger.used or self.clock.now() - trigger.issued_at > TRIGGER_TTL:
                raise SlackError("expired_trigger_id")
            trigger.used = True
            return trigger

    # ------------------------------------------------------------------ response urls

    def new_response_url(
        self,
        team_id: str,
        user_id: str,
        channel_id: str,
        source: tuple[str, str, str] | None,
    ) -> ResponseUrl:
        record = ResponseUrl(
            id=self.ids.opaque(18),
            team_id=team_id,
            user_id=user_id,
            channel_id=channel_id,
            created_at=self.clock.now(),
            source=source,
        )
        with self._lock:
            self.response_urls[record.id] = record
        return record

    def use_response_url(self, url_id: str) -> ResponseUrl:
        with self._lock:
            record = self.response_urls.get(url_id)
            if record is None:
                raise SlackError("invalid_url", status=404)
            if self.clock.now() - record.created_at > RESPONSE_URL_TTL:
                raise SlackError("expired_url", status=404)
            if record.uses >= RESPONSE_URL_USES:
                raise SlackError("used_url", status=404)
            record.uses += 1
            return record

    # ------------------------------------------------------------------ files

    def new_file(
        self,
        team_id: str,
        user_id: str,
        *,
        name: str,
        length: int,
        alt_txt: str | None = None,
        snippet_type: str | None = None,
        content: bytes | None = None,
    ) -> StoredFile:
        stored = StoredFile(
            id=self.ids.next("F"),
            team_id=team_id,
            user_id=user_id,
            name=name,
            title=name,
            created=int(self.clock.now()),
            length=length,
            content=content,
            alt_txt=alt_txt,
            snippet_type=snippet_type,
            upload_key=self.ids.opaque(18),
        )
        with self._lock:
            self.files[stored.id] = stored
        return stored

    def file_by_upload_key(self, key: str) -> StoredFile | None:
        with self._lock:
            return next((f for f in self.files.values() if f.upload_key == key), None)

    def file(self, file_id: str) -> StoredFile | None:
        with self._lock:
            return self.files.get(file_id)

    def delete_file(self, file_id: str) -> StoredFile | None:
        """Remove a file; every message that shared it keeps a tombstone in its place,
        as Slack shows "This file was deleted."."""
        with self._lock:
            stored = self.files.pop(file_id, None)
            if stored is None:
                return None
            for channel_id, stamps in stored.shares.items():
                for ts in stamps:
                    message = self._messages.get(channel_id, {}).get(ts)
                    if message is None:
                        continue
                    message["files"] = [
                        {"id": file_id, "mode": "tombstone"} if f.get("id") == file_id else f
                        for f in message.get("files") or []
                    ]
        return stored

    def channel_kinds(self) -> dict[str, str]:
        with self._lock:
            return {
                c.id: "im" if c.is_im else ("private" if c.is_private else "public")
                for c in self.channels.values()
            }
