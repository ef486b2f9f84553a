"""`Storage`: every store over one database, built in one place."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from storage.alerts import AlertStore
from storage.anomalies import AnomalyStore
from storage.approval_secrets import ApprovalSecretStore
from storage.approvals import ApprovalStore
from storage.audit import AuditLog
from storage.call_feed import CallFeedStore
from storage.call_lists import CallListStore
from storage.calling_rules import CallingRuleStore
from storage.channel_languages import ChannelLanguageStore
from storage.clock import Clock, system_clock
from storage.database import DEFAULT_LOCK_TIMEOUT, Database, open_database
from storage.digests import DigestStore
from storage.errors import SecretDecryptError
from storage.feed_pruning import FeedPruning
from storage.gate_log import GateLogStore
from storage.installations import InstallationStore, OAuthStateStore
from storage.notices import NoticeStore
from storage.notifications import CallbackTokenStore, DedupStore, RouteStore
from storage.people import ROLE_AND_PERSON, PeopleStore, Person, role_and_person_of
from storage.policy import PolicyStore
from storage.privacy_posts import PrivacyPostStore
from storage.privacy_requests import PrivacyRequestStore
from storage.roles import Role, RoleStore
from storage.rule_watch import RuleWatchStore
from storage.schema import (
    approval_secrets,
    callback_tokens,
    service_tokens,
    slack_installations,
    step_runs,
    workspaces,
)
from storage.secrets import SecretBox, rotate_secrets
from storage.step_runs import StepRunStore
from storage.workspaces import WITH_KEY_COLUMNS, Workspace, WorkspaceStore

log = logging.getLogger(__name__)

_SECRET_TABLES = (
    workspaces,
    service_tokens,
    slack_installations,
    callback_tokens,
    approval_secrets,
    step_runs,
)
"""The tables a workspace wipe deletes secrets from."""

_WHO = ROLE_AND_PERSON.subquery("who")
_REQUESTER = select(_WHO, *WITH_KEY_COLUMNS).select_from(
    _WHO.outerjoin(workspaces, workspaces.c.team_id == bindparam("team_id"))
)
"""``Storage.requester`` in one statement: the person's role and row (always one row of
scalar subqueries) beside the workspace's row and sealed key, if there is one."""


@dataclass(frozen=True)
class WipeResult:
    """What `Storage.wipe_workspace_secrets` removed."""

    disconnected: bool
    """The workspace had an API key (now deleted with its cached tokens)."""
    installations: int
    """Slack installations (bot and user tokens) deleted."""
    callback_token: bool
    """The workspace had a callback URL token (now revoked: its URL answers 404)."""
    held: int
    """Rows of what open requests held: one-time secrets and prompt addresses deleted,
    waiting workflow steps' tokens forgotten."""
    scrubbed: bool
    """The old values were also cleared from the database's files (SQLite: zeroed and the
    write-ahead log emptied; PostgreSQL: the tables rewritten). False when another process
    kept that from finishing now; the rows are deleted either way."""


class Requester(NamedTuple):
    """What every request reads of who asks: their stored role, their workspace and its
    API key (decrypted), and what is stored of them (language, Slack locale and zone)."""

    role: Role | None
    workspace: Workspace | None
    api_key: str | None
    person: Person | None = None


class Storage:
    """All stores of one process, over one pooled, thread-safe engine: use the same
    `Storage` from any thread (each call runs its own short transaction); other processes
    open their own on the same database."""

    def __init__(
        self,
        db: Database,
        box: SecretBox,
        *,
        clock: Clock = system_clock,
        default_timezone: str = "UTC",
    ) -> None:
        self.db = db
        self.box = box
        self.clock = clock
        self.workspaces = WorkspaceStore(db, box, clock=clock, default_timezone=default_timezone)
        self.roles = RoleStore(db, clock=clock)
        self.people = PeopleStore(db, clock=clock)
        self.channel_languages = ChannelLanguageStore(db, clock=clock)
        self.policies = PolicyStore(db, clock=clock)
        self.approvals = ApprovalStore(db, box, self.policies, clock=clock)
        self.approval_secrets = ApprovalSecretStore(db, box, clock=clock)
        self.audit = AuditLog(db, clock=clock)
        self.digests = DigestStore(db, clock=clock)
        self.alerts = AlertStore(db, clock=clock)
        self.anomalies = AnomalyStore(db, clock=clock)
        self.notices = NoticeStore(db, clock=clock)
        self.routes = RouteStore(db, clock=clock)
        self.callback_tokens = CallbackTokenStore(db, box, clock=clock)
        self.dedup = DedupStore(db, clock=clock)
        self.call_feed = CallFeedStore(db, box, clock=clock)
        self.feed_pruning = FeedPruning(db, clock=clock)
        self.installations = InstallationStore(db, box, clock=clock)
        self.oauth_states = OAuthStateStore(db, clock=clock)
        self.step_runs = StepRunStore(db, box, clock=clock)
        self.calling_rules = CallingRuleStore(db, clock=clock)
        self.call_lists = CallListStore(db, clock=clock)
        self.rule_watch = RuleWatchStore(db, clock=clock)
        self.gate_log = GateLogStore(db, clock=clock)
        self.call_lists.hasher = box.keyed_hash  # an erased number stays refused
        self.privacy_posts = PrivacyPostStore(db, box, clock=clock)
        self.privacy_requests = PrivacyRequestStore(db, box, clock=clock)

    @classmethod
    def open(
        cls,
        path: str | Path,
        box: SecretBox,
        *,
        clock: Clock = system_clock,
        default_timezone: str = "UTC",
        busy_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> Storage:
        """Open ``CALLOPS_DB``: a SQLite file path or a ``postgresql://`` URL, migrated to
        the latest schema. ``busy_timeout`` is the lock timeout of one try, in seconds."""
        db = open_database(path, busy_timeout=busy_timeout)
        return cls(db, box, clock=clock, default_timezone=default_timezone)

    def rotate_secrets(self) -> int:
        return rotate_secrets(self.db, self.box)

    def requester(self, team_id: str, user_id: str) -> Requester:
        """What every request's context reads: the person's stored role and language
        settings, the workspace (with its settings) and its API key (decrypted), in one
        trip to the database and one statement (each trip costs a connection checkout,
        each statement SQLAlchemy's own work)."""
        return self.db.each(lambda conn: self._requester_in(conn, team_id, user_id))

    def first_request(
        self, team_id: str, event_id: str, asker: tuple[str, str] | None
    ) -> tuple[bool, Requester | None]:
        """Mark a request seen (``DedupStore.mark_event``: True the first time) and, for a
        request whose ``asker`` (team, user) is known, read what its context reads
        (``requester``), in one trip: each trip off the event loop costs a thread hop and a
        connection checkout, and every command needs both.  The mark is written last, so on
        PostgreSQL a failed read leaves the request unmarked (nothing runs it either); a key
        that no longer opens is not a failed read: the request is marked, its key unread."""

        def work(conn: Connection) -> tuple[bool, Requester | None]:
            try:
                known = self._requester_in(conn, *asker) if asker else None
            except SecretDecryptError:
                known = None  # the context reads it again and says what is wrong
            return self.dedup.mark_event_in(conn, team_id, event_id), known

        return self.db.each(work)

    def _requester_in(self, conn: Connection, team_id: str, user_id: str) -> Requester:
        row = conn.execute(_REQUESTER, {"team_id": team_id, "user_id": user_id}).mappings().one()
        role, person = role_and_person_of(row)
        workspace, api_key = self.workspaces.workspace_and_key_of(row)
        return Requester(role, workspace, api_key, person)

    def wipe_workspace_secrets(self, team_id: str) -> WipeResult:
        """Delete every secret of a workspace whose app was uninstalled or whose tokens were
        revoked: its API key and cached tokens, its Slack installations, its callback URL
        token, what its open requests held (one-time secrets, prompt addresses, workflow
        step tokens), in one transaction; then clear the old values from the database's files as
        far as the engine allows."""

        def work(conn: Connection) -> tuple[bool, int, bool, int]:
            if self.db.is_sqlite:
                # Zero the deleted cells instead of leaving them in freed space.
                conn.exec_driver_sql("PRAGMA secure_delete = ON")
            return (
                self.workspaces.disconnect_in(conn, team_id),
                self.installations.delete_team_in(conn, team_id),
                self.callback_tokens.revoke_in(conn, team_id),
                self.approval_secrets.forget_team_in(conn, team_id)
                + self.step_runs.drop_tokens_in(conn, team_id),
            )

        disconnected, installations, token, held = self.db.write(work)
        return WipeResult(disconnected, installations, token, held, self._scrub())

    def _scrub(self) -> bool:
        if self.db.is_sqlite:
            # Older copies of the pages stay in the write-ahead log until it is checkpointed
            # and emptied; a reader in another process can keep that from finishing now.
            rows = self.db.sqlite_pragma("PRAGMA wal_checkpoint(TRUNCATE)")
            return bool(rows) and not rows[0][0]
        # PostgreSQL keeps deleted and updated rows as dead tuples until a vacuum, and a
        # plain vacuum only marks their space free: VACUUM FULL rewrites the tables without
        # them. It needs an exclusive lock, so it waits only briefly (readers queue behind
        # it) and leaves the rewrite to the next wipe if the tables are busy.
        names = ", ".join(t.name for t in _SECRET_TABLES)
        try:
            with self.db.engine.connect() as conn:
                conn.execution_options(isolation_level="AUTOCOMMIT")
                conn.exec_driver_sql("SET lock_timeout = 200")
                try:
                    conn.exec_driver_sql(f"VACUUM (FULL) {names}")
                finally:
                    conn.exec_driver_sql(f"SET lock_timeout = {self.db.lock_timeout_ms}")
        except DBAPIError as exc:
            log.info("could not rewrite the secret tables now: %s", exc.orig)
            return False
        return True

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Storage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
