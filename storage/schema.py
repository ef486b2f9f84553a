"""The tables as the stores query them, declared once for both engines.

The migrations (`storage.migrations`) create these tables; this module only describes the
current schema to SQLAlchemy so every query is written once and compiled for SQLite or
PostgreSQL. `tests/storage/test_migrations.py` checks that a migrated database has exactly
these tables and columns, so the two cannot drift apart.

Column types follow what the migrations create: timestamps are Unix seconds in REAL
(DOUBLE PRECISION on PostgreSQL), flags are 0/1 integers, lists are JSON text, and columns
holding encrypted secrets end in ``_enc``.
"""

from __future__ import annotations

from sqlalchemy import Column, Double, ForeignKey, Integer, MetaData, Table, Text

metadata = MetaData()


def _text(name: str, *, nullable: bool = True, primary_key: bool = False) -> Column[str]:
    return Column(name, Text, nullable=nullable, primary_key=primary_key)


def _real(name: str, *, nullable: bool = True) -> Column[float]:
    return Column(name, Double, nullable=nullable)


def _int(name: str, *, nullable: bool = True) -> Column[int]:
    return Column(name, Integer, nullable=nullable)


schema_version = Table("schema_version", metadata, _int("version", nullable=False))

workspaces = Table(
    "workspaces",
    metadata,
    _text("team_id", primary_key=True),
    _text("base_url"),
    _text("api_key_enc"),
    _text("timezone", nullable=False),
    _text("approvals_channel"),
    _text("digests_channel"),
    _text("notifications_channel"),
    _real("created_at", nullable=False),
    _real("updated_at", nullable=False),
    _real("connected_at"),
    _text("default_language"),
    _text("admin_locale"),
    _text("name_order", nullable=False),
    _int("mask_phones", nullable=False),
    _text("timezone_source"),
)

people = Table(
    "people",
    metadata,
    _text("team_id", primary_key=True),
    _text("user_id", primary_key=True),
    _text("language"),
    _text("slack_locale"),
    _text("slack_tz"),
    _real("seen_at"),
    _real("updated_at", nullable=False),
)

service_tokens = Table(
    "service_tokens",
    metadata,
    _text("team_id", primary_key=True),
    _text("token_enc", nullable=False),
    _real("expires_at", nullable=False),
    _real("updated_at", nullable=False),
)

roles = Table(
    "roles",
    metadata,
    _text("team_id", primary_key=True),
    _text("user_id", primary_key=True),
    _text("role", nullable=False),
    _text("granted_by"),
    _real("updated_at", nullable=False),
)

approval_policies = Table(
    "approval_policies",
    metadata,
    _text("team_id", primary_key=True),
    _text("kind", primary_key=True),
    _text("mode", nullable=False),
    _text("approvers", nullable=False),
    _int("allow_self_approval", nullable=False),
    _int("expiry_seconds", nullable=False),
    _text("min_role", nullable=False),
    _text("updated_by"),
    _real("updated_at", nullable=False),
)

approvals = Table(
    "approvals",
    metadata,
    _text("id", primary_key=True),
    _text("team_id", nullable=False),
    _text("kind", nullable=False),
    _text("params_enc", nullable=False),
    _text("params_hash", nullable=False),
    _text("approvers", nullable=False),
    _int("allow_self_approval", nullable=False),
    _text("requester", nullable=False),
    _text("decider"),
    _text("reason"),
    _text("state", nullable=False),
    _real("created_at", nullable=False),
    _real("decided_at"),
    _real("executed_at"),
    _real("finished_at"),
    _real("expires_at", nullable=False),
    _text("channel"),
    _text("message_ts"),
    _text("result"),
    _real("lease_until"),
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _real("at", nullable=False),
    _text("team_id"),
    _text("user_id"),
    _text("action", nullable=False),
    _text("params", nullable=False),
    _text("outcome", nullable=False),
    _text("detail"),
)

slack_installations = Table(
    "slack_installations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _text("app_id"),
    _text("enterprise_id", nullable=False),
    _text("enterprise_name"),
    _text("enterprise_url"),
    _text("team_id", nullable=False),
    _text("team_name"),
    _text("bot_token_enc"),
    _text("bot_id"),
    _text("bot_user_id"),
    _text("bot_scopes"),
    _text("bot_refresh_token_enc"),
    _int("bot_token_expires_at"),
    _text("user_id", nullable=False),
    _text("user_token_enc"),
    _text("user_scopes"),
    _text("user_refresh_token_enc"),
    _int("user_token_expires_at"),
    _text("incoming_webhook_url_enc"),
    _text("incoming_webhook_channel"),
    _text("incoming_webhook_channel_id"),
    _text("incoming_webhook_configuration_url"),
    _int("is_enterprise_install", nullable=False),
    _text("token_type"),
    _real("installed_at", nullable=False),
    _text("custom_values", nullable=False),
    _text("bot_refresh_lease_owner"),
    _real("bot_refresh_lease_until"),
)

oauth_states = Table(
    "oauth_states",
    metadata,
    _text("state", primary_key=True),
    _real("expires_at", nullable=False),
)

digests = Table(
    "digests",
    metadata,
    _text("id", primary_key=True),
    _text("team_id", nullable=False),
    _text("channel", nullable=False),
    _text("schedule", nullable=False),
    _text("timezone", nullable=False),
    _text("campaigns", nullable=False),
    _text("sections", nullable=False),
    _int("paused", nullable=False),
    _text("created_by", nullable=False),
    _real("created_at", nullable=False),
    _real("updated_at", nullable=False),
    _text("last_slot"),
    _text("language"),
)

digest_runs = Table(
    "digest_runs",
    metadata,
    Column("digest_id", Text, ForeignKey("digests.id", ondelete="CASCADE"), primary_key=True),
    _text("slot", primary_key=True),
    _real("claimed_at", nullable=False),
    _real("finished_at"),
    _text("outcome"),
    _text("detail"),
)

notification_routes = Table(
    "notification_routes",
    metadata,
    _text("id", primary_key=True),
    _text("team_id", nullable=False),
    _text("channel", nullable=False),
    _text("campaigns", nullable=False),
    _text("statuses", nullable=False),
    _text("directions", nullable=False),
    _int("presskey_only", nullable=False),
    _text("created_by", nullable=False),
    _real("created_at", nullable=False),
    _text("language"),
    _int("fold", nullable=False),
    _text("notable", nullable=False),
)

callback_tokens = Table(
    "callback_tokens",
    metadata,
    _text("team_id", primary_key=True),
    _text("token_hash", nullable=False),
    _text("token_enc", nullable=False),
    _real("created_at", nullable=False),
)

processed_callbacks = Table(
    "processed_callbacks",
    metadata,
    _text("team_id", primary_key=True),
    _text("callback_id", primary_key=True),
    _real("processed_at", nullable=False),
)

processed_events = Table(
    "processed_events",
    metadata,
    _text("team_id", primary_key=True),
    _text("event_id", primary_key=True),
    _real("processed_at", nullable=False),
)

callback_queue = Table(
    "callback_queue",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    _text("team_id", nullable=False),
    _text("lane", nullable=False),
    _text("kind", nullable=False),
    _text("record_id", nullable=False),
    _text("payload_enc", nullable=False),
    _real("received_at", nullable=False),
    _real("not_before", nullable=False),
    _int("attempts", nullable=False),
    _text("last_error"),
    _text("lease_owner"),
    _real("lease_until"),
    _text("post_as", nullable=False),
)

call_threads = Table(
    "call_threads",
    metadata,
    _text("team_id", primary_key=True),
    _text("channel", primary_key=True),
    _text("day", primary_key=True),
    _text("subject_hash", primary_key=True),
    _text("root_ts", nullable=False),
    _real("created_at", nullable=False),
)

call_folds = Table(
    "call_folds",
    metadata,
    _text("team_id", primary_key=True),
    _text("channel", primary_key=True),
    _text("root_ts", nullable=False),
    _real("opened_at", nullable=False),
    _int("held", nullable=False),
    _text("records_enc", nullable=False),
)

alerts = Table(
    "alerts",
    metadata,
    _text("id", primary_key=True),
    _text("team_id", nullable=False),
    _text("channel", nullable=False),
    _text("metric", nullable=False),
    _text("op", nullable=False),
    _real("threshold", nullable=False),
    _text("campaign_uuid"),
    _text("campaign_name"),
    _int("window_minutes", nullable=False),
    _real("snoozed_until"),
    _text("created_by", nullable=False),
    _real("created_at", nullable=False),
    _text("language"),
)

alert_fired = Table(
    "alert_fired",
    metadata,
    Column("alert_id", Text, ForeignKey("alerts.id", ondelete="CASCADE"), primary_key=True),
    _text("subject", primary_key=True),
    _real("value", nullable=False),
    _real("fired_at", nullable=False),
    _text("channel"),
    _text("message_ts"),
)

workspace_notices = Table(
    "workspace_notices",
    metadata,
    _text("team_id", primary_key=True),
    _text("kind", primary_key=True),
    _text("detail"),
    _text("channel"),
    _real("opened_at", nullable=False),
)

step_runs = Table(
    "step_runs",
    metadata,
    _text("team_id", primary_key=True),
    _text("approval_id", primary_key=True),
    _text("function_execution_id", nullable=False),
    _text("callback_id", nullable=False),
    _text("outputs", nullable=False),
    _text("token_enc"),
    _real("created_at", nullable=False),
    _real("settled_at"),
)

approval_secrets = Table(
    "approval_secrets",
    metadata,
    _text("team_id", primary_key=True),
    _text("approval_id", primary_key=True),
    _text("secret_enc"),
    _text("prompt_url_enc"),
    _real("prompt_url_at"),
    _real("created_at", nullable=False),
)

calling_rules = Table(
    "calling_rules",
    metadata,
    _text("team_id", nullable=False, primary_key=True),
    _text("campaign_uuid", nullable=False, primary_key=True),
    _int("hours_start"),
    _int("hours_end"),
    _int("advertising"),
    _int("frequency"),
    _text("updated_by"),
    _real("updated_at", nullable=False),
)

dnc_numbers = Table(
    "dnc_numbers",
    metadata,
    _text("team_id", nullable=False, primary_key=True),
    _text("phone", nullable=False, primary_key=True),
    _real("added_at", nullable=False),
)

outbound_pushes = Table(
    "outbound_pushes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _text("team_id", nullable=False),
    _text("phone", nullable=False),
    _text("campaign_uuid", nullable=False),
    _real("at", nullable=False),
)

DATA_TABLES: tuple[Table, ...] = tuple(t for t in metadata.sorted_tables if t is not schema_version)
"""Every table holding callops data, parents before children (the order to copy them in)."""
