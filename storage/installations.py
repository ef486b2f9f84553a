"""Slack installations and OAuth states, for Bolt's OAuth flow (wrapped in a later issue).

`InstallationRecord` uses slack_sdk's `Installation` field names, so the wrapper converts
with ``Installation(**asdict(record))`` and ``InstallationRecord.from_object(installation)``.
Tokens and the incoming-webhook URL (whoever has it can post) are encrypted at rest.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from enum import Enum
from functools import cached_property
from typing import Any

from sqlalchemy import ColumnElement, bindparam, delete, insert, or_, select, update
from sqlalchemy.engine import Connection, RowMapping

from storage._rows import SealedStore, Store, from_row
from storage.database import upsert
from storage.roles import Role, RoleStore
from storage.schema import oauth_states, slack_installations

log = logging.getLogger(__name__)

_I = slack_installations.c

_SECRET_FIELDS = (
    "bot_token",
    "bot_refresh_token",
    "user_token",
    "user_refresh_token",
    "incoming_webhook_url",
)


class RefreshClaim(Enum):
    """What `InstallationStore.claim_bot_refresh` found."""

    CLAIMED = "claimed"
    """This process refreshes the token now, and holds the lease until it is written."""
    NOT_DUE = "not_due"
    """The stored token no longer expires soon: another process refreshed it; read it."""
    BUSY = "busy"
    """Another process is refreshing it: wait a moment and read it."""
    PAUSED = "paused"
    """A refresh failed moments ago; none is tried until the pause ends (the current
    token is used meanwhile), so a refused refresh is not retried by every use."""
    GONE = "gone"
    """The installation or its refresh token is no longer there (uninstalled)."""


@dataclass(frozen=True, kw_only=True)
class InstallationRecord:
    user_id: str
    app_id: str | None = None
    enterprise_id: str | None = None
    enterprise_name: str | None = None
    enterprise_url: str | None = None
    team_id: str | None = None
    team_name: str | None = None
    bot_token: str | None = field(default=None, repr=False)
    bot_id: str | None = None
    bot_user_id: str | None = None
    bot_scopes: str = ""
    bot_refresh_token: str | None = field(default=None, repr=False)
    bot_token_expires_at: int | None = None
    user_token: str | None = field(default=None, repr=False)
    user_scopes: str = ""
    user_refresh_token: str | None = field(default=None, repr=False)
    user_token_expires_at: int | None = None
    incoming_webhook_url: str | None = field(default=None, repr=False)
    incoming_webhook_channel: str | None = None
    incoming_webhook_channel_id: str | None = None
    incoming_webhook_configuration_url: str | None = None
    is_enterprise_install: bool = False
    token_type: str | None = None
    installed_at: float = 0.0
    custom_values: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_object(cls, source: Any) -> InstallationRecord:
        """From anything with these attributes (slack_sdk's Installation); scope lists are
        joined with commas and datetimes become Unix seconds, as slack_sdk's stores do."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            value = getattr(source, f.name, None)
            if f.name in ("bot_scopes", "user_scopes"):
                value = _scopes(value)
            elif f.name in ("bot_token_expires_at", "user_token_expires_at"):
                value = None if value is None else int(_seconds(value))
            elif f.name == "installed_at":
                value = _seconds(value) if value is not None else 0.0
            elif f.name == "custom_values":
                value = dict(value or {})
            elif f.name == "is_enterprise_install":
                value = bool(value)
            values[f.name] = value
        return cls(**values)


def _scopes(value: str | Sequence[str] | None) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return ",".join(value)


def _seconds(value: float | int | datetime | str) -> float:
    if isinstance(value, datetime):
        return value.timestamp()
    return float(value)


_KEYS = ("enterprise_id", "team_id", "user_id")
_BY_USER = _I.user_id == bindparam("user")
_NEWEST = (_I.installed_at.desc(), _I.id.desc())


def _scope(org: bool) -> tuple[ColumnElement[bool], ...]:
    """An org-wide install belongs to the enterprise, whichever team it was started from."""
    if org:
        return (_I.enterprise_id == bindparam("enterprise"), _I.is_enterprise_install == 1)
    return (_I.enterprise_id == bindparam("enterprise"), _I.team_id == bindparam("team"))


_FIND = {
    (org, by_user): select(slack_installations)
    .where(*_scope(org), *((_BY_USER,) if by_user else ()))
    .order_by(*_NEWEST)
    .limit(1)
    for org in (False, True)
    for by_user in (False, True)
}
_FIND_BOT = {
    org: select(slack_installations)
    .where(*_scope(org), _I.bot_token_enc.is_not(None))
    .order_by(*_NEWEST)
    .limit(1)
    for org in (False, True)
}
_DELETE = {
    (org, by_user): delete(slack_installations).where(
        *_scope(org), *((_BY_USER,) if by_user else ())
    )
    for org in (False, True)
    for by_user in (False, True)
}
_DELETE_BOT = {
    org: update(slack_installations)
    .where(*_scope(org))
    .values(bot_token_enc=None, bot_refresh_token_enc=None)
    for org in (False, True)
}
_ROW = (
    _I.enterprise_id == bindparam("enterprise"),
    _I.team_id == bindparam("team"),
    _I.user_id == bindparam("user"),
)
"""One installation row, by its unique key."""
_NO_LEASE = or_(
    _I.bot_refresh_lease_until.is_(None), _I.bot_refresh_lease_until <= bindparam("now")
)
_CLAIM_REFRESH = (
    update(slack_installations)
    .where(
        *_ROW,
        _I.bot_refresh_token_enc.is_not(None),
        _I.bot_token_expires_at.is_not(None),
        _I.bot_token_expires_at <= bindparam("expiring_before"),
        _NO_LEASE,
    )
    .values(bot_refresh_lease_owner=bindparam("owner"), bot_refresh_lease_until=bindparam("until"))
)
_REFRESH_ROW = (
    select(
        _I.bot_refresh_token_enc,
        _I.bot_token_expires_at,
        _I.bot_refresh_lease_owner,
        _I.bot_refresh_lease_until,
    )
    .where(*_ROW)
    .with_for_update()
)
_WRITE_REFRESHED = (
    update(slack_installations)
    .where(*_ROW)
    .values(
        bot_token_enc=bindparam("bot_token_enc"),
        bot_refresh_token_enc=bindparam("bot_refresh_token_enc"),
        bot_token_expires_at=bindparam("expires_at"),
        bot_refresh_lease_owner=None,
        bot_refresh_lease_until=None,
    )
)
_RELEASE_REFRESH = (
    update(slack_installations)
    .where(*_ROW, _I.bot_refresh_lease_owner == bindparam("owner"))
    .values(bot_refresh_lease_owner=None, bot_refresh_lease_until=bindparam("until"))
)
_STATES = oauth_states.c
_PRUNE_STATES = delete(oauth_states).where(_STATES.expires_at <= bindparam("now"))
_ISSUE_STATE = insert(oauth_states)
_CONSUME_STATE = delete(oauth_states).where(
    _STATES.state == bindparam("state"), _STATES.expires_at > bindparam("now")
)


_SAVE = upsert(slack_installations, keys=_KEYS)


def _params(
    enterprise_id: str | None, team_id: str | None, user_id: str | None = None
) -> dict[str, str | None]:
    # '' stands for "none" in the key columns, so the UNIQUE key treats it as a value. (Bind
    # names differ from column names: SQLAlchemy keeps those for SET values.)
    return {"enterprise": enterprise_id or "", "team": team_id or "", "user": user_id}


class InstallationStore(SealedStore):
    @cached_property
    def _roles(self) -> RoleStore:
        """The installing user becomes an admin of the workspace."""
        return RoleStore(self._db, clock=self._clock)

    def save(self, record: InstallationRecord) -> None:
        """Store (or replace) the installation of this user in this team/enterprise and
        record the installing user as an admin of the team, in one transaction."""
        row: dict[str, Any] = {}
        for f in fields(record):
            value = getattr(record, f.name)
            if f.name in _SECRET_FIELDS:
                row[f"{f.name}_enc"] = None if value is None else self._box.encrypt(value)
            elif f.name == "custom_values":
                row[f.name] = json.dumps(value, sort_keys=True)
            else:
                row[f.name] = value
        row["enterprise_id"] = record.enterprise_id or ""
        row["team_id"] = record.team_id or ""
        row["installed_at"] = record.installed_at or self._clock()

        def work(conn: Connection) -> None:
            conn.execute(self._db.pick(_SAVE), row)
            if record.team_id and record.user_id:
                self._roles.set_role_in(
                    conn, record.team_id, record.user_id, Role.ADMIN, granted_by="install"
                )

        self._db.write(work)
        log.info(
            "saved Slack installation for enterprise %s team %s",
            record.enterprise_id,
            record.team_id,
        )

    def find(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool = False,
    ) -> InstallationRecord | None:
        """The latest installation of the team (or of that user in it)."""
        row = self._db.first(
            _FIND[is_enterprise_install, user_id is not None],
            _params(enterprise_id, team_id, user_id),
        )
        return self._record(row) if row else None

    def find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool = False,
    ) -> InstallationRecord | None:
        """The latest installation that carries a bot token (a user-only re-install has none)."""
        row = self._db.first(_FIND_BOT[is_enterprise_install], _params(enterprise_id, team_id))
        return self._record(row) if row else None

    def delete(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool = False,
    ) -> int:
        """Remove the team's installations (or one user's); returns how many."""
        key = _params(enterprise_id, team_id, user_id)
        return self._db.change(_DELETE[is_enterprise_install, user_id is not None], key)

    def delete_team_in(self, conn: Connection, team_id: str) -> int:
        """Remove every installation of the team, inside the caller's transaction."""
        return conn.execute(_DELETE[False, False], _params(None, team_id)).rowcount

    def delete_bot(
        self, *, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool = False
    ) -> int:
        """Forget the bot tokens (app uninstalled) but keep user installations."""
        return self._db.change(_DELETE_BOT[is_enterprise_install], _params(enterprise_id, team_id))

    # Token rotation: a single-use refresh token must be spent by exactly one process, and
    # the HTTP exchange with Slack must not run inside a transaction (a SQLite write lock
    # held across it would stall every writer). So a refresh is claimed, exchanged, then
    # written, in three short steps; bot/token_rotation.py drives them.

    def claim_bot_refresh(
        self, record: InstallationRecord, *, expiring_before: float, owner: str, lease: float
    ) -> RefreshClaim:
        """Take the refresh of ``record``'s bot token for ``lease`` seconds, if its token
        still expires before ``expiring_before`` and no other process holds the refresh
        (or its lease ran out: that process died). The claim is one compare-and-set: of
        processes claiming at once exactly one gets CLAIMED; once the new token is written
        it no longer expires soon, so a late claimer gets NOT_DUE and reads it."""
        now = self._clock()
        key = _params(record.enterprise_id, record.team_id, record.user_id)
        params = {
            **key,
            "expiring_before": int(expiring_before),
            "now": now,
            "owner": owner,
            "until": now + lease,
        }

        def work(conn: Connection) -> RefreshClaim:
            if conn.execute(_CLAIM_REFRESH, params).rowcount == 1:
                return RefreshClaim.CLAIMED
            row = conn.execute(_REFRESH_ROW, key).mappings().first()
            if row is None or row["bot_refresh_token_enc"] is None:
                return RefreshClaim.GONE
            expires_at = row["bot_token_expires_at"]
            if expires_at is None or expires_at > int(expiring_before):
                return RefreshClaim.NOT_DUE
            if row["bot_refresh_lease_owner"] is None:
                return RefreshClaim.PAUSED
            return RefreshClaim.BUSY

        return self._db.write(work)

    def finish_bot_refresh(
        self,
        record: InstallationRecord,
        *,
        owner: str,
        spent_refresh_token: str,
        bot_token: str,
        bot_refresh_token: str,
        expires_at: int,
    ) -> bool:
        """Store the tokens Slack gave for ``spent_refresh_token`` (encrypted) and release
        the refresh. They are written even if the lease ran out meanwhile: the refresh
        token was spent, so these are the only working tokens. They are not written if the
        row no longer holds the spent refresh token (the app was installed again meanwhile,
        with newer tokens); False then."""
        key = _params(record.enterprise_id, record.team_id, record.user_id)

        def work(conn: Connection) -> bool:
            row = conn.execute(_REFRESH_ROW, key).mappings().first()
            stored = None if row is None else row["bot_refresh_token_enc"]
            if stored is None or self._box.decrypt(stored) != spent_refresh_token:
                conn.execute(_RELEASE_REFRESH, {**key, "owner": owner, "until": None})
                return False
            values = {
                **key,
                "bot_token_enc": self._box.encrypt(bot_token),
                "bot_refresh_token_enc": self._box.encrypt(bot_refresh_token),
                "expires_at": expires_at,
            }
            conn.execute(_WRITE_REFRESHED, values)
            return True

        return self._db.write(work)

    def release_bot_refresh(
        self, record: InstallationRecord, *, owner: str, pause: float = 0.0
    ) -> None:
        """Give a claimed refresh up (the exchange failed); with a ``pause``, no process
        claims it again for that many seconds (`RefreshClaim.PAUSED`)."""
        until = self._clock() + pause if pause > 0 else None
        params = {
            **_params(record.enterprise_id, record.team_id, record.user_id),
            "owner": owner,
            "until": until,
        }
        self._db.change(_RELEASE_REFRESH, params)

    def _record(self, row: RowMapping) -> InstallationRecord:
        secrets = {name: row[f"{name}_enc"] for name in _SECRET_FIELDS}
        return from_row(
            InstallationRecord,
            row,
            **{name: sealed and self._box.decrypt(sealed) for name, sealed in secrets.items()},
            custom_values=json.loads(row["custom_values"]),
            enterprise_id=row["enterprise_id"] or None,
            team_id=row["team_id"] or None,
            bot_scopes=row["bot_scopes"] or "",
            user_scopes=row["user_scopes"] or "",
        )


class OAuthStateStore(Store):
    """OAuth `state` values: issued once, consumed once, before they expire."""

    def issue(self, expires_in: float = 600.0) -> str:
        state = secrets.token_urlsafe(24)
        now = self._clock()

        def work(conn: Connection) -> None:
            conn.execute(_PRUNE_STATES, {"now": now})
            conn.execute(_ISSUE_STATE, {"state": state, "expires_at": now + expires_in})

        self._db.write(work)
        return state

    def consume(self, state: str) -> bool:
        """True once for a valid, unexpired state; False for unknown, used or expired ones."""
        return self._db.change(_CONSUME_STATE, {"state": state, "now": self._clock()}) == 1
