"""Notification routes (which call records go to which channel), the callback URL token
of each workspace, and the dedup tables that make redelivered callbacks and Slack events
act once."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy.engine import Connection

from storage._rows import SealedStore, Store, from_row, required, short_id
from storage.database import by_dialect, upsert
from storage.schema import (
    callback_tokens,
    notification_routes,
    processed_callbacks,
    processed_events,
)
from storage.validation import check_id, check_language

_R = notification_routes.c
_C = callback_tokens.c
_ROUTE = (_R.team_id == bindparam("team_id"), _R.id == bindparam("id"))
_ADD_ROUTE = insert(notification_routes)
_GET_ROUTE = select(notification_routes).where(*_ROUTE)
_LIST_ROUTES = (
    select(notification_routes)
    .where(_R.team_id == bindparam("team_id"))
    .order_by(_R.created_at, _R.id)
)
_REMOVE_ROUTE = delete(notification_routes).where(*_ROUTE)
_TOKEN = select(_C.token_enc).where(_C.team_id == bindparam("team_id"))
_TEAM_FOR = select(_C.team_id).where(_C.token_hash == bindparam("token_hash"))
_REVOKE = delete(callback_tokens).where(_C.team_id == bindparam("team_id"))
_PRUNE_CALLBACKS = delete(processed_callbacks).where(
    processed_callbacks.c.processed_at < bindparam("older_than")
)
_PRUNE_EVENTS = delete(processed_events).where(
    processed_events.c.processed_at < bindparam("older_than")
)


_ROTATE = upsert(callback_tokens, "token_hash", "token_enc", "created_at")
# The first mark of an id inserts its row; every later one conflicts on the primary key.
_MARK_CALLBACK = by_dialect(lambda insert: insert(processed_callbacks).on_conflict_do_nothing())
_MARK_EVENT = by_dialect(lambda insert: insert(processed_events).on_conflict_do_nothing())


@dataclass(frozen=True, kw_only=True)
class NotificationRoute:
    id: str
    team_id: str
    channel: str
    campaigns: tuple[str, ...]
    """Empty means every campaign (likewise for statuses and directions)."""
    statuses: tuple[str, ...]
    directions: tuple[str, ...]
    presskey_only: bool
    created_by: str
    created_at: float
    language: str | None = None
    """The language its posts are written in (``vi``/``en``); None: the workspace's."""
    fold: bool = True
    """A notable record goes as a thread reply on the channel's folded message while one
    is open (True), or always as a card of its own (False)."""
    notable: tuple[str, ...] = ()
    """Statuses whose records count as notable, besides a key pressed or an agent's call."""
    optout_key: str | None = None
    """A key that means "no more calls": a record with it pressed puts its number on the
    company's opt-out list (``commands/rules/refusals.py``)."""


class RouteStore(Store):
    def add(
        self,
        team_id: str,
        *,
        channel: str,
        created_by: str,
        campaigns: Iterable[str] = (),
        statuses: Iterable[str] = (),
        directions: Iterable[str] = (),
        presskey_only: bool = False,
        language: str | None = None,
        fold: bool = True,
        notable: Iterable[str] = (),
        optout_key: str | None = None,
    ) -> NotificationRoute:
        route_id = short_id()
        self._db.change(
            _ADD_ROUTE,
            {
                "id": route_id,
                "team_id": check_id(team_id, "team id"),
                "channel": check_id(channel, "channel id"),
                "campaigns": tuple(campaigns),
                "statuses": tuple(statuses),
                "directions": tuple(directions),
                "presskey_only": int(presskey_only),
                "language": check_language(language),
                "created_by": created_by,
                "created_at": self._clock(),
                "fold": int(fold),
                "notable": tuple(notable),
                "optout_key": optout_key,
            },
        )
        return required(self.get(team_id, route_id), "route", route_id)

    def get(self, team_id: str, route_id: str) -> NotificationRoute | None:
        return self._one(NotificationRoute, _GET_ROUTE, {"team_id": team_id, "id": route_id})

    def list(self, team_id: str) -> list[NotificationRoute]:
        return [
            from_row(NotificationRoute, row)
            for row in self._db.all(_LIST_ROUTES, {"team_id": team_id})
        ]

    def remove(self, team_id: str, route_id: str) -> bool:
        return self._db.change(_REMOVE_ROUTE, {"team_id": team_id, "id": route_id}) == 1


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class CallbackTokenStore(SealedStore):
    """The secret in each workspace's callback URL (`POST /callbacks/{token}`).

    The receiver knows only the token, so it is found by its SHA-256; the token is also kept
    encrypted so the admin can be shown the URL again when attaching another campaign.
    """

    def rotate(self, team_id: str) -> str:
        """A new token for the team (the old URL stops working at once)."""
        token = secrets.token_urlsafe(24)
        self._db.change(
            self._db.pick(_ROTATE),
            {
                "team_id": check_id(team_id, "team id"),
                "token_hash": _token_hash(token),
                "token_enc": self._box.encrypt(token),
                "created_at": self._clock(),
            },
        )
        return token

    def get(self, team_id: str) -> str | None:
        sealed = self._db.scalar(_TOKEN, {"team_id": team_id})
        return None if sealed is None else self._box.decrypt(sealed)

    def get_or_create(self, team_id: str) -> str:
        return self.get(team_id) or self.rotate(team_id)

    def team_for(self, token: str) -> str | None:
        """The team a callback URL token belongs to, or None for an unknown token."""
        team = self._db.scalar(_TEAM_FOR, {"token_hash": _token_hash(token)})
        return None if team is None else str(team)

    def revoke_in(self, conn: Connection, team_id: str) -> bool:
        """Revoke the team's token inside the caller's transaction (a workspace wipe)."""
        return conn.execute(_REVOKE, {"team_id": team_id}).rowcount == 1


class DedupStore(Store):
    """First-seen checks: True the first time an id is marked, False on every redelivery.

    Each mark is one ``INSERT ... ON CONFLICT DO NOTHING`` on the (team, id) primary key, so
    of two processes marking the same id at once exactly one inserts the row.
    """

    def mark_callback_in(self, conn: Connection, team_id: str, callback_id: str) -> bool:
        values = {"team_id": team_id, "callback_id": callback_id, "processed_at": self._clock()}
        return conn.execute(self._db.pick(_MARK_CALLBACK), values).rowcount == 1

    def mark_event(self, team_id: str, event_id: str) -> bool:
        return self._db.each(lambda conn: self.mark_event_in(conn, team_id, event_id))

    def mark_event_in(self, conn: Connection, team_id: str, event_id: str) -> bool:
        values = {"team_id": team_id, "event_id": event_id, "processed_at": self._clock()}
        return conn.execute(self._db.pick(_MARK_EVENT), values).rowcount == 1

    def prune(self, older_than: float) -> int:
        """Forget ids processed before `older_than` (Unix seconds); returns how many."""

        def work(conn: Connection) -> int:
            cutoff = {"older_than": older_than}
            removed = conn.execute(_PRUNE_CALLBACKS, cutoff).rowcount
            return removed + conn.execute(_PRUNE_EVENTS, cutoff).rowcount

        return self._db.write(work)
