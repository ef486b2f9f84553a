"""The schema, as an ordered list of migrations; version N means migrations 1..N applied.

Rules that keep upgrades safe: never edit a released migration, only append; every
migration runs inside the same transaction as the version bump, so a crash leaves the file
at the old version; columns holding encrypted secrets end in ``_enc`` (secret rotation finds
them by that suffix, so a new secret column is rotated without touching rotation code).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from sqlite_utils import Database

from storage.errors import SchemaTooNewError, StorageError
from storage.transactions import write_transaction

log = logging.getLogger(__name__)

Migration = Callable[[Database], None]

SECRET_SUFFIX = "_enc"  # noqa: S105 - a column-name suffix, not a password


def _sql(*statements: str) -> Migration:
    def run(db: Database) -> None:
        for statement in statements:
            db.execute(statement)

    return run


_APPROVAL_STATES = "'pending','approved','executing','done','failed','denied','expired','cancelled'"

_V1_INITIAL = _sql(
    # Workspace = one Slack team: its call-center binding and its settings. The key and base
    # URL are optional so settings survive a disconnect and single-workspace mode can keep
    # settings without storing a key.
    """CREATE TABLE workspaces (
        team_id TEXT PRIMARY KEY,
        base_url TEXT,
        api_key_enc TEXT,
        timezone TEXT NOT NULL,
        approvals_channel TEXT,
        digests_channel TEXT,
        notifications_channel TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        connected_at REAL
    )""",
    """CREATE TABLE service_tokens (
        team_id TEXT PRIMARY KEY,
        token_enc TEXT NOT NULL,
        expires_at REAL NOT NULL,
        updated_at REAL NOT NULL
    )""",
    """CREATE TABLE roles (
        team_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
        granted_by TEXT,
        updated_at REAL NOT NULL,
        PRIMARY KEY (team_id, user_id)
    )""",
    """CREATE TABLE approval_policies (
        team_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('approval', 'confirm', 'none')),
        approvers TEXT NOT NULL,
        allow_self_approval INTEGER NOT NULL,
        expiry_seconds INTEGER NOT NULL CHECK (expiry_seconds > 0),
        min_role TEXT NOT NULL CHECK (min_role IN ('admin', 'operator', 'viewer')),
        updated_by TEXT,
        updated_at REAL NOT NULL,
        PRIMARY KEY (team_id, kind)
    )""",
    f"""CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        params_enc TEXT NOT NULL,
        params_hash TEXT NOT NULL,
        approvers TEXT NOT NULL,
        allow_self_approval INTEGER NOT NULL,
        requester TEXT NOT NULL,
        decider TEXT,
        reason TEXT,
        state TEXT NOT NULL CHECK (state IN ({_APPROVAL_STATES})),
        created_at REAL NOT NULL,
        decided_at REAL,
        executed_at REAL,
        finished_at REAL,
        expires_at REAL NOT NULL,
        channel TEXT,
        message_ts TEXT,
        result TEXT
    )""",
    "CREATE INDEX approvals_team_state ON approvals (team_id, state, created_at)",
    "CREATE INDEX approvals_state_expiry ON approvals (state, expires_at)",
    """CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        team_id TEXT,
        user_id TEXT,
        action TEXT NOT NULL,
        params TEXT NOT NULL DEFAULT '{}',
        outcome TEXT NOT NULL,
        detail TEXT
    )""",
    "CREATE INDEX audit_log_team_at ON audit_log (team_id, at)",
    "CREATE INDEX audit_log_at ON audit_log (at)",
    # Append-only is enforced by the database itself, not by the absence of an API.
    """CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
       BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END""",
    """CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
       BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END""",
    # Field names follow slack_sdk's Installation so the later store wrapper is a mapping.
    # enterprise_id/team_id use '' for "none" so the UNIQUE key treats them as values.
    """CREATE TABLE slack_installations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        app_id TEXT,
        enterprise_id TEXT NOT NULL DEFAULT '',
        enterprise_name TEXT,
        enterprise_url TEXT,
        team_id TEXT NOT NULL DEFAULT '',
        team_name TEXT,
        bot_token_enc TEXT,
        bot_id TEXT,
        bot_user_id TEXT,
        bot_scopes TEXT,
        bot_refresh_token_enc TEXT,
        bot_token_expires_at INTEGER,
        user_id TEXT NOT NULL,
        user_token_enc TEXT,
        user_scopes TEXT,
        user_refresh_token_enc TEXT,
        user_token_expires_at INTEGER,
        incoming_webhook_url_enc TEXT,
        incoming_webhook_channel TEXT,
        incoming_webhook_channel_id TEXT,
        incoming_webhook_configuration_url TEXT,
        is_enterprise_install INTEGER NOT NULL DEFAULT 0,
        token_type TEXT,
        installed_at REAL NOT NULL,
        custom_values TEXT NOT NULL DEFAULT '{}',
        UNIQUE (enterprise_id, team_id, user_id)
    )""",
    "CREATE INDEX slack_installations_latest ON slack_installations "
    "(enterprise_id, team_id, installed_at)",
    """CREATE TABLE oauth_states (
        state TEXT PRIMARY KEY,
        expires_at REAL NOT NULL
    )""",
)

_V2_DIGESTS_NOTIFICATIONS = _sql(
    """CREATE TABLE digests (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        schedule TEXT NOT NULL,
        timezone TEXT NOT NULL,
        campaigns TEXT NOT NULL DEFAULT '[]',
        sections TEXT NOT NULL DEFAULT '[]',
        paused INTEGER NOT NULL DEFAULT 0,
        created_by TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        last_slot TEXT
    )""",
    "CREATE INDEX digests_team ON digests (team_id)",
    # One row per (digest, slot): the primary key is what makes a slot run once even with
    # two schedulers running.
    """CREATE TABLE digest_runs (
        digest_id TEXT NOT NULL REFERENCES digests (id) ON DELETE CASCADE,
        slot TEXT NOT NULL,
        claimed_at REAL NOT NULL,
        finished_at REAL,
        outcome TEXT,
        detail TEXT,
        PRIMARY KEY (digest_id, slot)
    )""",
    """CREATE TABLE notification_routes (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        campaigns TEXT NOT NULL DEFAULT '[]',
        statuses TEXT NOT NULL DEFAULT '[]',
        directions TEXT NOT NULL DEFAULT '[]',
        presskey_only INTEGER NOT NULL DEFAULT 0,
        created_by TEXT NOT NULL,
        created_at REAL NOT NULL
    )""",
    "CREATE INDEX notification_routes_team ON notification_routes (team_id)",
    # The callback URL's token: hashed for lookup (the receiver knows only the token),
    # encrypted so an admin can be shown the URL again.
    """CREATE TABLE callback_tokens (
        team_id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        token_enc TEXT NOT NULL,
        created_at REAL NOT NULL
    )""",
    """CREATE TABLE processed_callbacks (
        team_id TEXT NOT NULL,
        callback_id TEXT NOT NULL,
        processed_at REAL NOT NULL,
        PRIMARY KEY (team_id, callback_id)
    )""",
    "CREATE INDEX processed_callbacks_at ON processed_callbacks (processed_at)",
    """CREATE TABLE processed_events (
        team_id TEXT NOT NULL,
        event_id TEXT NOT NULL,
        processed_at REAL NOT NULL,
        PRIMARY KEY (team_id, event_id)
    )""",
    "CREATE INDEX processed_events_at ON processed_events (processed_at)",
)

_V3_CALL_FEED = _sql(
    # Call records accepted from the service and not yet posted to Slack, one row per
    # destination; a row goes only once Slack accepted the post, so a restart loses none.
    # `lane` orders the posts: a channel id for cards (posted in seq order per channel),
    # '~outcome:<record id>' for an autocall outcome waiting for the message that pushed
    # the call (each on its own, so one that waits holds up no other). The poster leases
    # a lane's head row before posting it, so two app processes never post it both.
    """CREATE TABLE callback_queue (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        team_id TEXT NOT NULL,
        lane TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('card', 'outcome')),
        record_id TEXT NOT NULL,
        payload_enc TEXT NOT NULL,
        received_at REAL NOT NULL,
        not_before REAL NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        lease_owner TEXT,
        lease_until REAL
    )""",
    "CREATE INDEX callback_queue_lane ON callback_queue (team_id, lane, seq)",
    # The first card of the day per (channel, lead or number): later cards thread under
    # it. The subject is a hash, so no phone number sits in this table.
    """CREATE TABLE call_threads (
        team_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        day TEXT NOT NULL,
        subject_hash TEXT NOT NULL,
        root_ts TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (team_id, channel, day, subject_hash)
    )""",
    "CREATE INDEX call_threads_created ON call_threads (created_at)",
)

_V4_ALERTS_NOTICES = _sql(
    # Threshold alerts on the autodialer statistics; the metric and operator are checked by
    # the command that creates them, so a new metric needs no migration.
    """CREATE TABLE alerts (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        metric TEXT NOT NULL,
        op TEXT NOT NULL,
        threshold REAL NOT NULL,
        campaign_uuid TEXT,
        campaign_name TEXT,
        window_minutes INTEGER NOT NULL CHECK (window_minutes > 0),
        snoozed_until REAL,
        created_by TEXT NOT NULL,
        created_at REAL NOT NULL
    )""",
    "CREATE INDEX alerts_team ON alerts (team_id)",
    # One row per (alert, campaign) currently past its threshold: the row IS the fired
    # state, so firing (INSERT OR IGNORE) and recovering (DELETE) happen once even with
    # two schedulers checking at the same minute.
    """CREATE TABLE alert_fired (
        alert_id TEXT NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
        subject TEXT NOT NULL,
        value REAL NOT NULL,
        fired_at REAL NOT NULL,
        channel TEXT,
        message_ts TEXT,
        PRIMARY KEY (alert_id, subject)
    )""",
    # A workspace-wide problem (revoked key, service down) told once in Slack: the row
    # exists from the first failure until the next success.
    """CREATE TABLE workspace_notices (
        team_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        detail TEXT,
        channel TEXT,
        opened_at REAL NOT NULL,
        PRIMARY KEY (team_id, kind)
    )""",
)

_V5_STEP_RUNS = _sql(
    # A workflow step waiting on an approval request: which run to complete when the
    # request is settled, with the run's just-in-time token (until it is used), and how
    # the request's result becomes the step's outputs. ``settled_at`` is claimed once.
    """CREATE TABLE step_runs (
        team_id TEXT NOT NULL,
        approval_id TEXT NOT NULL,
        function_execution_id TEXT NOT NULL,
        callback_id TEXT NOT NULL,
        outputs TEXT NOT NULL,
        token_enc TEXT,
        created_at REAL NOT NULL,
        settled_at REAL,
        PRIMARY KEY (team_id, approval_id)
    )""",
    "CREATE UNIQUE INDEX step_runs_execution ON step_runs (function_execution_id)",
)

_V6_APPROVAL_SECRETS = _sql(
    # What a request holds only until it is settled (storage/approval_secrets.py): a
    # one-time secret of the action, outside the hashed parameters, and the address of
    # the requester's prompt. Both encrypted; the row goes once the request is settled.
    """CREATE TABLE approval_secrets (
        team_id TEXT NOT NULL,
        approval_id TEXT NOT NULL,
        secret_enc TEXT,
        prompt_url_enc TEXT,
        prompt_url_at REAL,
        created_at REAL NOT NULL,
        PRIMARY KEY (team_id, approval_id)
    )""",
)

_V7_EXECUTION_LEASE = _sql(
    # The process running an approved action holds it until lease_until and renews the
    # lease while it runs; a row still 'executing' after its lease ran out was left by a
    # process that died, and recovery settles it (never by running it again).
    "ALTER TABLE approvals ADD COLUMN lease_until REAL",
)

MIGRATIONS: Sequence[Migration] = (
    _V1_INITIAL,
    _V2_DIGESTS_NOTIFICATIONS,
    _V3_CALL_FEED,
    _V4_ALERTS_NOTICES,
    _V5_STEP_RUNS,
    _V6_APPROVAL_SECRETS,
    _V7_EXECUTION_LEASE,
)
"""Index i holds the migration to version i + 1."""

LATEST_VERSION = len(MIGRATIONS)


def _has_version_table(db: Database) -> bool:
    rows = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchall()
    return bool(rows)


def read_schema_version(db: Database, *, refuse_newer: bool = False, where: str = "") -> int:
    """The file's schema version (0 for a new file); optionally refuse one from a newer callops."""
    version = 0
    if _has_version_table(db):
        row = db.execute("SELECT version FROM schema_version").fetchone()
        version = int(row[0]) if row else 0
    if refuse_newer and version > LATEST_VERSION:
        raise SchemaTooNewError(
            f"the database {where or 'file'} has schema version {version}, but this callops "
            f"knows versions up to {LATEST_VERSION}: upgrade callops, or set CALLOPS_DB to "
            "another file. The file was left untouched."
        )
    return version


def migrate(db: Database, *, target: int | None = None, where: str = "") -> int:
    """Apply pending migrations up to `target` (default: all) in one transaction.

    The write lock is taken first and the version re-read under it, so two processes starting
    together migrate once between them. Returns the version the file is at afterwards.
    """
    goal = LATEST_VERSION if target is None else target
    if not 0 <= goal <= LATEST_VERSION:
        raise StorageError(f"no schema version {goal}; known versions are 1..{LATEST_VERSION}")
    with write_transaction(db):
        db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        current = read_schema_version(db, refuse_newer=True, where=where)
        if not db.execute("SELECT 1 FROM schema_version").fetchall():
            db.execute("INSERT INTO schema_version (version) VALUES (0)")
        for version in range(current + 1, goal + 1):
            MIGRATIONS[version - 1](db)
            db.execute("UPDATE schema_version SET version = ?", [version])
            log.info("database migrated to schema version %d", version)
        return max(current, goal)
