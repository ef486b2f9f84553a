"""Workspaces (one per Slack team): the call-center binding, its settings, its token cache.

The API key and cached tokens are encrypted and never part of `Workspace`, so a workspace can
be printed, logged or rendered without a chance of showing the key; only `api_key()` and
`cached_token()` decrypt.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import bindparam, delete, select, type_coerce, update
from sqlalchemy.engine import Connection, RowMapping

from storage._rows import SealedStore, from_row
from storage.clock import Clock, system_clock
from storage.database import Database, by_dialect, upsert
from storage.errors import N_, InvalidValueError, NotFoundError, SecretDecryptError
from storage.schema import Flag, service_tokens, workspaces
from storage.secrets import SecretBox
from storage.validation import (
    CHART_MODES,
    NAME_ORDERS,
    check_base_url,
    check_id,
    check_language,
    check_timezone,
)

log = logging.getLogger(__name__)


NEW_WORKSPACE_MASKS: Final = 1
"""A workspace created from now on masks customers' numbers in channels (personal data
under Law 91/2025/QH15); the column's own default stays 0, so a workspace that was
created before keeps the setting it had (its admins are told once: the privacy family's
``notice.py``)."""


class _Unchanged:
    def __repr__(self) -> str:
        return "UNCHANGED"


UNCHANGED: Final = _Unchanged()
"""Marks a setting the caller leaves as it is (None means "clear it")."""


@dataclass(frozen=True, kw_only=True)
class Workspace:
    team_id: str
    base_url: str | None
    has_api_key: bool
    timezone: str
    approvals_channel: str | None
    digests_channel: str | None
    notifications_channel: str | None
    created_at: float
    updated_at: float
    connected_at: float | None
    default_language: str | None = None
    """The language an admin chose for the workspace (``vi``/``en``); None: not chosen."""
    admin_locale: str | None = None
    """The Slack locale of the admin who connected the workspace (or set it up)."""
    name_order: str = "family-first"
    mask_phones: bool = False
    """Whether customers' numbers are masked in messages posted to channels (a new
    workspace starts with them masked; one from before keeps its setting)."""
    retention_days: int = 90
    """Days customers' numbers and names stay in the messages and files callops posted
    (then they are rewritten without them, and files deleted)."""
    chart_mode: str = "native"
    """How charts are sent: ``native`` (Slack's data_visualization block, where a chart
    fits) or ``image`` (a PNG, always)."""
    timezone_source: str | None = None
    """Who chose ``timezone``: None (the process default), ``slack`` (the connecting
    admin's Slack zone) or ``admin`` (``settings timezone``)."""

    @property
    def connected(self) -> bool:
        return self.has_api_key and self.base_url is not None


@dataclass(frozen=True)
class ServiceToken:
    """A workspace's cached call-center token, decrypted (kept out of reprs)."""

    token: str = field(repr=False)
    expires_at: float


_W = workspaces.c
_T = service_tokens.c
_COLUMNS = (
    *(column for column in workspaces.c if column.name != "api_key_enc"),
    type_coerce(_W.api_key_enc.is_not(None), Flag).label("has_api_key"),
)

_GET = select(*_COLUMNS).where(_W.team_id == bindparam("team"))
_LIST = select(*_COLUMNS).order_by(_W.team_id)
_API_KEY = select(_W.api_key_enc).where(_W.team_id == bindparam("team"))
WITH_KEY_COLUMNS = (*_COLUMNS, _W.api_key_enc)
"""A workspace row with its sealed API key (``workspace_and_key_of`` reads it)."""
_GET_WITH_KEY = select(*WITH_KEY_COLUMNS).where(_W.team_id == bindparam("team"))
_CACHED_TOKEN = select(_T.token_enc, _T.expires_at).where(_T.team_id == bindparam("team"))
_FORGET_TOKENS = delete(service_tokens).where(_T.team_id == bindparam("team"))
_DISCONNECT = (
    update(workspaces)
    .where(_W.team_id == bindparam("team"), _W.api_key_enc.is_not(None))
    .values(api_key_enc=None, connected_at=None, updated_at=bindparam("now"))
)


_ENSURE = by_dialect(
    lambda insert: insert(workspaces).on_conflict_do_nothing(index_elements=[_W.team_id])
)
_CONNECT = upsert(
    workspaces,
    "base_url",
    "api_key_enc",
    "updated_at",
    "connected_at",
    "timezone",
    "timezone_source",
    "admin_locale",
)
_SAVE_TOKEN = upsert(service_tokens, "token_enc", "expires_at", "updated_at")


class WorkspaceStore(SealedStore):
    def __init__(
        self, db: Database, box: SecretBox, *, clock: Clock = system_clock, default_timezone: str
    ) -> None:
        super().__init__(db, box, clock=clock)
        self._default_timezone = check_timezone(default_timezone)

    def get(self, team_id: str) -> Workspace | None:
        return self._one(Workspace, _GET, {"team": team_id})

    def get_with_key(self, team_id: str) -> tuple[Workspace | None, str | None]:
        """The workspace and its API key (decrypted; None without one) in one query: what
        every request's context needs.  Each store call costs SQLAlchemy's own work, so
        the row is read once instead of once per question (binding, key, time zone,
        settings)."""
        return self._db.each(lambda conn: self.get_with_key_in(conn, team_id))

    def get_with_key_in(
        self, conn: Connection, team_id: str
    ) -> tuple[Workspace | None, str | None]:
        return self.workspace_and_key_of(
            conn.execute(_GET_WITH_KEY, {"team": team_id}).mappings().first()
        )

    def workspace_and_key_of(self, row: RowMapping | None) -> tuple[Workspace | None, str | None]:
        """The workspace and its API key (decrypted) of a row holding ``WITH_KEY_COLUMNS``
        (None, or a ``team_id`` of None from an outer join: no such workspace)."""
        if row is None or row["team_id"] is None:
            return None, None
        sealed = row["api_key_enc"]
        return from_row(Workspace, row), None if sealed is None else self._box.decrypt(sealed)

    def require(self, team_id: str) -> Workspace:
        found = self.get(team_id)
        if found is None:
            raise NotFoundError(f"no workspace {team_id!r}; connect it first")
        return found

    def list(self) -> list[Workspace]:
        """All workspaces (operator view for `callops workspace list`); carries no secrets."""
        return [from_row(Workspace, r) for r in self._db.all(_LIST)]

    def ensure(self, team_id: str, *, timezone: str | None = None) -> Workspace:
        """The workspace row, created without a binding if missing (single-workspace mode)."""
        team_id = check_id(team_id, "team id")
        tz = check_timezone(timezone or self._default_timezone)
        now = self._clock()
        self._db.change(
            self._db.pick(_ENSURE),
            {
                "team_id": team_id,
                "timezone": tz,
                "created_at": now,
                "updated_at": now,
                "mask_phones": NEW_WORKSPACE_MASKS,
            },
        )
        return self.require(team_id)

    def connect(
        self,
        team_id: str,
        base_url: str,
        api_key: str,
        *,
        timezone: str | None = None,
        slack_timezone: str | None = None,
        admin_locale: str | None = None,
    ) -> Workspace:
        """Bind the team to a call center. Verify the key before calling this.

        A new key invalidates cached tokens (they belong to the old key's domain), in the same
        transaction. ``timezone`` is a zone chosen by whoever connects (the command line);
        without one, a zone chosen before stays, else ``slack_timezone`` (the Slack zone of
        the admin connecting from Slack), else the current or default one.
        ``admin_locale`` is that admin's Slack locale, the workspace's language until an
        admin chooses one (None keeps the one known).
        """
        team_id = check_id(team_id, "team id")
        url = check_base_url(base_url)
        if not api_key.strip():
            raise InvalidValueError(N_("the API key is empty"))
        chosen = check_timezone(timezone) if timezone is not None else None
        now = self._clock()
        values: dict[str, Any] = {
            "team_id": team_id,
            "base_url": url,
            "api_key_enc": self._box.encrypt(api_key.strip()),
            "created_at": now,
            "updated_at": now,
            "connected_at": now,
            "mask_phones": NEW_WORKSPACE_MASKS,
        }

        def work(conn: Connection) -> None:
            current = conn.execute(_GET, {"team": team_id}).mappings().first()
            zone, source = self._zone_on_connect(current, chosen, slack_timezone)
            known_locale = current["admin_locale"] if current is not None else None
            values.update(
                timezone=zone, timezone_source=source, admin_locale=admin_locale or known_locale
            )
            conn.execute(self._db.pick(_CONNECT), values)
            conn.execute(_FORGET_TOKENS, {"team": team_id})

        self._db.write(work)
        log.info("workspace %s connected to %s", team_id, url)
        return self.require(team_id)

    def _zone_on_connect(
        self, current: RowMapping | None, chosen: str | None, slack_timezone: str | None
    ) -> tuple[str, str | None]:
        """The zone (and who chose it) a workspace has once connected."""
        if chosen is not None:
            return chosen, "admin"
        if current is not None and current["timezone_source"] is not None:
            return current["timezone"], current["timezone_source"]
        if slack_timezone:
            try:
                return check_timezone(slack_timezone), "slack"
            except InvalidValueError:
                # One line, the name cut short: it is whatever the profile holds.
                log.info("Slack's zone %r is not a zone here; ignored", slack_timezone[:64])
        if current is not None:
            return current["timezone"], None
        return self._default_timezone, None

    def disconnect(self, team_id: str) -> bool:
        """Forget the API key and cached tokens; settings stay. False if there was no key."""
        removed = self._db.write(lambda conn: self.disconnect_in(conn, team_id))
        if removed:
            log.info("workspace %s disconnected", team_id)
        return removed

    def disconnect_in(self, conn: Connection, team_id: str) -> bool:
        """`disconnect` inside the caller's transaction."""
        changed = conn.execute(_DISCONNECT, {"team": team_id, "now": self._clock()}).rowcount
        conn.execute(_FORGET_TOKENS, {"team": team_id})
        return changed == 1

    def api_key(self, team_id: str) -> str | None:
        sealed = self._db.scalar(_API_KEY, {"team": team_id})
        return None if sealed is None else self._box.decrypt(sealed)

    def set_timezone(self, team_id: str, timezone: str) -> Workspace:
        """An admin's choice of zone, kept over any the workspace is connected with later."""
        return self._update(
            team_id, {"timezone": check_timezone(timezone), "timezone_source": "admin"}
        )

    def set_language(self, team_id: str, language: str | None) -> Workspace:
        """The workspace's default language (None: back to the connecting admin's)."""
        return self._update(team_id, {"default_language": check_language(language)})

    def set_name_order(self, team_id: str, order: str) -> Workspace:
        if order not in NAME_ORDERS:
            raise InvalidValueError(f"unknown name order {order!r}")
        return self._update(team_id, {"name_order": order})

    def set_mask_phones(self, team_id: str, mask: bool) -> Workspace:
        return self._update(team_id, {"mask_phones": int(mask)})

    def set_retention(self, team_id: str, days: int) -> Workspace:
        if not 0 <= days <= 3650:
            raise InvalidValueError(N_("a retention is 0 to 3650 days"))
        return self._update(team_id, {"retention_days": days})

    def set_chart_mode(self, team_id: str, mode: str) -> Workspace:
        if mode not in CHART_MODES:
            raise InvalidValueError(N_("charts are sent native or as an image"))
        return self._update(team_id, {"chart_mode": mode})

    def set_channels(
        self,
        team_id: str,
        *,
        approvals: str | _Unchanged | None = UNCHANGED,
        digests: str | _Unchanged | None = UNCHANGED,
        notifications: str | _Unchanged | None = UNCHANGED,
    ) -> Workspace:
        changes: dict[str, str | None] = {}
        for column, value in (
            ("approvals_channel", approvals),
            ("digests_channel", digests),
            ("notifications_channel", notifications),
        ):
            if not isinstance(value, _Unchanged):
                changes[column] = None if value is None else check_id(value, "channel id")
        return self._update(team_id, changes) if changes else self.require(team_id)

    # -- the service-token cache ---------------------------------------------------------

    def cached_token(self, team_id: str) -> ServiceToken | None:
        """The team's cached call-center token. One that cannot be decrypted (its key was
        removed) is a cache miss, not an error: the client fetches a new one with the key."""
        row = self._db.first(_CACHED_TOKEN, {"team": team_id})
        if row is None:
            return None
        try:
            token = self._box.decrypt(row["token_enc"])
        except SecretDecryptError:
            log.warning("cached service token of team %s is unreadable; ignoring it", team_id)
            return None
        return ServiceToken(token=token, expires_at=float(row["expires_at"]))

    def save_cached_token(self, team_id: str, token: str, expires_at: float) -> None:
        self._db.change(
            self._db.pick(_SAVE_TOKEN),
            {
                "team_id": team_id,
                "token_enc": self._box.encrypt(token),
                "expires_at": expires_at,
                "updated_at": self._clock(),
            },
        )
        log.debug("cached a service token for team %s", team_id)

    def clear_cached_token(self, team_id: str) -> None:
        self._db.change(_FORGET_TOKENS, {"team": team_id})

    def _update(self, team_id: str, changes: Mapping[str, str | int | None]) -> Workspace:
        changed = self._db.change(
            update(workspaces)
            .where(_W.team_id == team_id)
            .values(**changes, updated_at=self._clock())
        )
        if changed != 1:
            raise NotFoundError(f"no workspace {team_id!r}; connect it first")
        return self.require(team_id)
