"""The tables, declared once: the only description of callops' schema.

Every store writes its queries against these declarations, and SQLAlchemy compiles them for
SQLite or PostgreSQL. The Alembic revisions in ``storage/alembic`` create what is declared
here (the baseline was generated from it; a change here is a new revision, generated with
``python -m storage.alembic "what changed"``), and `tests/storage/test_upgrade.py` checks
that a database at head has nothing the declarations lack, nor lacks anything they have.

Types follow what callops has always stored: timestamps are Unix seconds in REAL (DOUBLE
PRECISION on PostgreSQL), integers are 64-bit (SQLite's INTEGER, PostgreSQL's BIGINT), flags
are 0/1 integers read as bools (`Flag`), lists are JSON text read as tuples (`StringList`),
and columns holding encrypted secrets end in ``_enc`` (secret rotation finds them by that
suffix).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import (
    REAL,
    BigInteger,
    CheckConstraint,
    Column,
    Double,
    ForeignKey,
    Identity,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeEngine

metadata = MetaData()

INT = BigInteger().with_variant(Integer(), "sqlite")
"""64-bit on both engines; on SQLite only INTEGER makes a key the rowid."""

FLOAT: Double[float] = Double().with_variant(REAL(), "sqlite")


class Flag(TypeDecorator[bool]):
    """A yes/no stored as 0/1 in an `INT` column, read back as a bool."""

    impl = BigInteger
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        return dialect.type_descriptor(Integer() if dialect.name == "sqlite" else BigInteger())

    def process_bind_param(self, value: Any, dialect: Dialect) -> int | None:
        return None if value is None else int(bool(value))

    def process_result_value(self, value: Any, dialect: Dialect) -> bool | None:
        return None if value is None else bool(value)


class StringList(TypeDecorator[tuple[str, ...]]):
    """A list of strings stored as JSON text, read back as a tuple."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        return None if value is None else json.dumps([str(v) for v in value])

    def process_result_value(self, value: Any, dialect: Dialect) -> tuple[str, ...] | None:
        return None if value is None else tuple(str(v) for v in json.loads(value))


def _flag(name: str, *, default: int) -> Column[bool]:
    return Column(name, Flag, nullable=False, server_default=text(str(default)))


def _list(name: str) -> Column[tuple[str, ...]]:
    return Column(name, StringList, nullable=False, server_default=text("'[]'"))


def _text(
    name: str, *, nullable: bool = True, primary_key: bool = False, default: str | None = None
) -> Column[str]:
    server_default = None if default is None else text(f"'{default}'")
    return Column(
        name,
        Text,
        nullable=nullable and not primary_key,
        primary_key=primary_key,
        server_default=server_default,
    )


def _real(name: str, *, nullable: bool = True, default: int | None = None) -> Column[float]:
    server_default = None if default is None else text(str(default))
    return Column(name, FLOAT, nullable=nullable, server_default=server_default)


def _int(name: str, *, nullable: bool = True, default: int | None = None) -> Column[int]:
    server_default = None if default is None else text(str(default))
    return Column(name, INT, nullable=nullable, server_default=server_default)


def _serial(name: str) -> Column[int]:
    """A key the database numbers: AUTOINCREMENT on SQLite (never reused), an identity on
    PostgreSQL (BY DEFAULT, so `callops db copy` can bring the ids it had)."""
    return Column(name, INT, Identity(), primary_key=True)


_AUTOINCREMENT: dict[str, Any] = {"sqlite_autoincrement": True}

alembic_version = Table(
    "alembic_version", MetaData(), Column("version_num", String(32), primary_key=True)
)
"""Alembic's own record of the revision a database is at (not callops data)."""

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
    CheckConstraint("default_language IN ('vi', 'en')"),
    _text("admin_locale"),
    _text("name_order", nullable=False, default="family-first"),
    CheckConstraint("name_order IN ('family-first', 'given-first')"),
    _flag("mask_phones", default=0),
    _text("timezone_source"),
    _int("retention_days", nullable=False, default=90),
    _text("chart_mode", nullable=False, default="native"),
)

people = Table(
    "people",
    metadata,
    _text("team_id", primary_key=True),
    _text("user_id", primary_key=True),
    _text("language"),
    CheckConstraint("language IN ('vi', 'en')"),
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
    CheckConstraint("role IN ('admin', 'operator', 'viewer')"),
    _text("granted_by"),
    _real("updated_at", nullable=False),
)

approval_policies = Table(
    "approval_policies",
    metadata,
    _text("team_id", primary_key=True),
    _text("kind", primary_key=True),
    _text("mode", nullable=False),
    CheckConstraint("mode IN ('approval', 'confirm', 'none')"),
    _text("approvers", nullable=False),
    Column("allow_self_approval", Flag, nullable=False),
    _int("expiry_seconds", nullable=False),
    CheckConstraint("expiry_seconds > 0"),
    _text("min_role", nullable=False),
    CheckConstraint("min_role IN ('admin', 'operator', 'viewer')"),
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
    Column("allow_self_approval", Flag, nullable=False),
    _text("requester", nullable=False),
    _text("decider"),
    _text("reason"),
    _text("state", nullable=False),
    CheckConstraint(
        "state IN ('pending', 'approved', "
        "'executing', 'done', 'failed', 'denied', 'expired', 'cancelled')"
    ),
    _real("created_at", nullable=False),
    _real("decided_at"),
    _real("executed_at"),
    _real("finished_at"),
    _real("expires_at", nullable=False),
    _text("channel"),
    _text("message_ts"),
    _text("result"),
    _real("lease_until"),
    Index("approvals_team_state", "team_id", "state", "created_at"),
    Index("approvals_state_expiry", "state", "expires_at"),
)

audit_log = Table(
    "audit_log",
    metadata,
    _serial("id"),
    _real("at", nullable=False),
    _text("team_id"),
    _text("user_id"),
    _text("action", nullable=False),
    _text("params", nullable=False, default="{}"),
    _text("outcome", nullable=False),
    _text("detail"),
    Index("audit_log_team_at", "team_id", "at"),
    Index("audit_log_at", "at"),
    **_AUTOINCREMENT,
)
"""Append-only, enforced by the database: triggers refuse UPDATE and DELETE (and TRUNCATE
on PostgreSQL); the baseline revision creates them."""

slack_installations = Table(
    "slack_installations",
    metadata,
    _serial("id"),
    _text("app_id"),
    _text("enterprise_id", nullable=False, default=""),
    _text("enterprise_name"),
    _text("enterprise_url"),
    _text("team_id", nullable=False, default=""),
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
    _flag("is_enterprise_install", default=0),
    _text("token_type"),
    _real("installed_at", nullable=False),
    _text("custom_values", nullable=False, default="{}"),
    _text("bot_refresh_lease_owner"),
    _real("bot_refresh_lease_until"),
    UniqueConstraint("enterprise_id", "team_id", "user_id"),
    Index("slack_installations_latest", "enterprise_id", "team_id", "installed_at"),
    **_AUTOINCREMENT,
)
"""Field names follow slack_sdk's Installation; enterprise_id/team_id use '' for "none" so
the UNIQUE key treats them as values."""

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
    _list("campaigns"),
    _list("sections"),
    _flag("paused", default=0),
    _text("created_by", nullable=False),
    _real("created_at", nullable=False),
    _real("updated_at", nullable=False),
    _text("last_slot"),
    _text("language"),
    CheckConstraint("language IN ('vi', 'en')"),
    Index("digests_team", "team_id"),
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
    _list("campaigns"),
    _list("statuses"),
    _list("directions"),
    _flag("presskey_only", default=0),
    _text("created_by", nullable=False),
    _real("created_at", nullable=False),
    _text("language"),
    CheckConstraint("language IN ('vi', 'en')"),
    _flag("fold", default=1),
    _list("notable"),
    _text("optout_key"),
    Index("notification_routes_team", "team_id"),
)

callback_tokens = Table(
    "callback_tokens",
    metadata,
    _text("team_id", primary_key=True),
    Column("token_hash", Text, nullable=False, unique=True),
    _text("token_enc", nullable=False),
    _real("created_at", nullable=False),
)

processed_callbacks = Table(
    "processed_callbacks",
    metadata,
    _text("team_id", primary_key=True),
    _text("callback_id", primary_key=True),
    _real("processed_at", nullable=False),
    Index("processed_callbacks_at", "processed_at"),
)

processed_events = Table(
    "processed_events",
    metadata,
    _text("team_id", primary_key=True),
    _text("event_id", primary_key=True),
    _real("processed_at", nullable=False),
    Index("processed_events_at", "processed_at"),
)

callback_queue = Table(
    "callback_queue",
    metadata,
    _serial("seq"),
    _text("team_id", nullable=False),
    _text("lane", nullable=False),
    _text("kind", nullable=False),
    CheckConstraint("kind IN ('card', 'outcome')"),
    _text("record_id", nullable=False),
    _text("payload_enc", nullable=False),
    _real("received_at", nullable=False),
    _real("not_before", nullable=False, default=0),
    _int("attempts", nullable=False, default=0),
    _text("last_error"),
    _text("lease_owner"),
    _real("lease_until"),
    _text("post_as", nullable=False, default="card"),
    Index("callback_queue_lane", "team_id", "lane", "seq"),
    **_AUTOINCREMENT,
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
    Index("call_threads_created", "created_at"),
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
    CheckConstraint("window_minutes > 0"),
    _real("snoozed_until"),
    _text("created_by", nullable=False),
    _real("created_at", nullable=False),
    _text("language"),
    CheckConstraint("language IN ('vi', 'en')"),
    Index("alerts_team", "team_id"),
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

anomaly_episodes = Table(
    "anomaly_episodes",
    metadata,
    _text("id", primary_key=True),
    _text("team_id", nullable=False),
    Column("alert_id", Text, ForeignKey("alerts.id", ondelete="CASCADE"), nullable=False),
    _text("scope_kind", nullable=False),
    CheckConstraint("scope_kind IN ('campaign', 'network')"),
    _text("scope_key", nullable=False),
    _text("scope_name", nullable=False),
    _text("kpi", nullable=False),
    _text("open_key"),
    _real("opened_at", nullable=False),
    _real("value", nullable=False),
    _real("usual", nullable=False),
    _real("low", nullable=False),
    _real("high", nullable=False),
    _int("calls", nullable=False),
    _text("checked_slot", nullable=False),
    _text("channel"),
    _text("message_ts"),
    _real("closed_at"),
    _text("closed_how"),
    CheckConstraint("closed_how IN ('recovered', 'snoozed', 'quiet')"),
    Index("anomaly_episodes_open", "open_key", unique=True),
    Index("anomaly_episodes_alert", "alert_id", "closed_at"),
)
"""One anomaly alert's episode: a KPI out of its usual band for a campaign or a network,
from the check that found it to the one that saw it back.  ``open_key`` (alert, scope,
KPI) is set while it lasts and cleared when it closes: its uniqueness lets only one
checker open an episode, in any process."""

anomaly_checks = Table(
    "anomaly_checks",
    metadata,
    _text("team_id", primary_key=True),
    _text("slot", nullable=False),
    _real("claimed_at", nullable=False),
)
"""The latest minute whose anomaly check a process claimed, per workspace: of several
replicas ticking in the same minute, one checks."""

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
    Index("step_runs_execution", "function_execution_id", unique=True),
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
    _text("team_id", primary_key=True),
    _text("campaign_uuid", primary_key=True),
    _int("hours_start"),
    CheckConstraint("hours_start BETWEEN 0 AND 1439"),
    _int("hours_end"),
    CheckConstraint("hours_end BETWEEN 0 AND 1439"),
    _int("advertising"),
    CheckConstraint("advertising IN (0, 1)"),
    _int("frequency"),
    CheckConstraint("frequency >= 0"),
    _text("updated_by"),
    _real("updated_at", nullable=False),
    _text("hours_by"),
    _real("hours_at"),
    _text("advertising_by"),
    _real("advertising_at"),
    _text("frequency_by"),
    _real("frequency_at"),
    _text("brand"),
)

optout_numbers = Table(
    "optout_numbers",
    metadata,
    _text("team_id", primary_key=True),
    _text("phone", primary_key=True),
    _real("added_at", nullable=False),
    _text("added_by"),
    _text("source", nullable=False),
    CheckConstraint("source IN ('typed', 'call', 'key')"),
    _text("call_id"),
    _text("reason"),
)
"""The company's own opt-out list (Decree 91/2020/ND-CP: customers who refused further
calls): one row per number on it, with who put it there, when, and from what."""

optout_changes = Table(
    "optout_changes",
    metadata,
    _serial("id"),
    _text("team_id", nullable=False),
    _text("phone", nullable=False),
    _text("change", nullable=False),
    CheckConstraint("change IN ('add', 'remove')"),
    _text("source", nullable=False),
    _text("call_id"),
    _text("reason"),
    _text("changed_by"),
    _real("at", nullable=False),
    Index("optout_changes_by_time", "team_id", "at"),
    **_AUTOINCREMENT,
)
"""Every addition to and removal from the opt-out list, newest last (its history)."""

registry_versions = Table(
    "registry_versions",
    metadata,
    _text("team_id", nullable=False),
    _int("version", nullable=False),
    _real("uploaded_at", nullable=False),
    _text("uploaded_by"),
    _text("file_name", nullable=False, default=""),
    _int("numbers", nullable=False, default=0),
    _int("added", nullable=False, default=0),
    _int("removed", nullable=False, default=0),
    PrimaryKeyConstraint("team_id", "version"),
)
"""Each upload of the national registry ("Danh sách không quảng cáo"): a whole new
version of it, numbered from 1 in each workspace."""

registry_numbers = Table(
    "registry_numbers",
    metadata,
    _text("team_id", nullable=False),
    _text("phone", nullable=False),
    _int("since_version", nullable=False),
    _int("until_version"),
    _text("registered_on"),
    PrimaryKeyConstraint("team_id", "phone", "since_version"),
)
"""A number's stay on the registry: on it from ``since_version`` until the version that
dropped it (None: on it now).  Only changes make rows, so every version stays readable."""

registry_staging = Table(
    "registry_staging",
    metadata,
    _text("team_id", nullable=False),
    _int("version", nullable=False),
    _text("phone", nullable=False),
    _text("registered_on"),
    PrimaryKeyConstraint("team_id", "version", "phone"),
)
"""An upload's numbers while its version is computed (emptied in the same transaction)."""

consents = Table(
    "consents",
    metadata,
    _serial("id"),
    _text("team_id", nullable=False),
    _text("phone", nullable=False),
    _text("campaign_uuid"),
    _text("campaign_name"),
    _text("source", nullable=False),
    _real("until"),
    _text("added_by"),
    _real("added_at", nullable=False),
    _text("removed_by"),
    _real("removed_at"),
    Index("consents_by_phone", "team_id", "phone"),
    **_AUTOINCREMENT,
)
"""Customers' agreements to receive advertising calls despite the registry (never
despite the opt-out list): for every campaign or one, until a day or for good."""

outbound_pushes = Table(
    "outbound_pushes",
    metadata,
    _serial("id"),
    _text("team_id", nullable=False),
    _text("phone", nullable=False),
    _text("campaign_uuid", nullable=False),
    _real("at", nullable=False),
    Index("outbound_pushes_by_phone", "team_id", "phone", "at"),
    **_AUTOINCREMENT,
)

rule_watch = Table(
    "rule_watch",
    metadata,
    _text("team_id", primary_key=True),
    _text("channel"),
    _flag("enforce", default=0),
    _real("listed_until"),
    _text("updated_by"),
    _real("updated_at", nullable=False),
)
"""Where rule events go (``rules channel``), whether callops pauses advertising campaigns
outside the calling hours (``rules enforce``), and how far the call records were read."""

rule_watch_records = Table(
    "rule_watch_records",
    metadata,
    _text("team_id", primary_key=True),
    _text("record_id", primary_key=True),
    _text("campaign_uuid", nullable=False),
    _text("phone"),
    _real("started_at", nullable=False),
    _text("state", nullable=False, default="new"),
    CheckConstraint("state IN ('new', 'ok', 'breach')"),
    _list("rules"),
    _real("noted_at", nullable=False),
    _real("claimed_at"),
    _text("posted_ts"),
    Index("rule_watch_records_state", "team_id", "state"),
    Index("rule_watch_records_started", "team_id", "started_at"),
)
"""Each outbound call record of a watched workspace, once (by callback or listing): new,
then ok or a breach of the calling rules (which rules; the post in the rules channel)."""

rule_watch_slots = Table(
    "rule_watch_slots",
    metadata,
    _text("team_id", primary_key=True),
    _text("subject", primary_key=True),
    _text("action", primary_key=True),
    _text("slot", primary_key=True),
    _real("at", nullable=False),
)
"""What the rule watch did once across replicas: a campaign paused when one closing of
the calling hours came, resumed at one opening, a minute's reading of the records."""

rule_paused = Table(
    "rule_paused",
    metadata,
    _text("team_id", primary_key=True),
    _text("campaign_uuid", primary_key=True),
    _text("campaign_name", nullable=False),
    _text("slot", nullable=False),
    _real("paused_at", nullable=False),
)
"""Campaigns ``rules enforce`` paused itself, to start again when the hours open."""
frequency_locks = Table(
    "frequency_locks",
    metadata,
    _text("team_id", primary_key=True),
    _text("phone", primary_key=True),
    _real("at", nullable=False),
)
"""One row per number a frequency slot was claimed for: writing it first makes claims to
the same number wait for each other (a row lock on PostgreSQL; SQLite has one writer)."""

gate_decisions = Table(
    "gate_decisions",
    metadata,
    _serial("id"),
    _text("team_id", nullable=False),
    _real("at", nullable=False),
    _text("phone", nullable=False),
    _text("campaign_uuid", nullable=False),
    _text("campaign_name", nullable=False, default=""),
    _text("class", nullable=False),
    _text("results", nullable=False, default="{}"),
    _text("outcome", nullable=False),
    CheckConstraint("outcome IN ('placed', 'refused', 'failed', 'unknown')"),
    _text("rule"),
    _text("request_id"),
    _text("requester"),
    _list("approvers"),
    Index("gate_decisions_by_time", "team_id", "at"),
    **_AUTOINCREMENT,
)
"""Every advertising call the calling rules decided on: the evidence for an inspector."""

privacy_posts = Table(
    "privacy_posts",
    metadata,
    _serial("id"),
    _text("team_id", nullable=False),
    _text("channel", nullable=False),
    _text("ts"),
    _text("file_id"),
    _text("ref", nullable=False),
    _text("phone_hash", nullable=False),
    _text("phone_enc"),
    _flag("masked", default=1),
    _real("posted_at", nullable=False),
    _real("redacted_at"),
    _text("erase_request"),
    _real("lease_until"),
    _text("outcome"),
    Index("privacy_posts_team_hash", "team_id", "phone_hash"),
    Index("privacy_posts_team_ref", "team_id", "ref"),
    Index("privacy_posts_posted_at", "posted_at"),
    **_AUTOINCREMENT,
)
"""One row per customer's number a message or file callops posted shows: the number's
keyed hash (found again without the number in clear), the number sealed for "Show number"
(gone once erased or aged out), and where the post is (``channel`` + ``ts``, or
``file_id``).  ``ref`` is what the post's Show number button carries."""

privacy_requests = Table(
    "privacy_requests",
    metadata,
    _text("id", primary_key=True),
    _text("team_id", nullable=False),
    _text("kind", nullable=False),
    CheckConstraint("kind IN ('access', 'erase')"),
    _text("phone_hash", nullable=False),
    _text("phone_enc"),
    _real("received_at", nullable=False),
    _real("acknowledged_at"),
    _real("due_at", nullable=False),
    _text("requested_by", nullable=False),
    _text("handled_by"),
    _text("state", nullable=False),
    CheckConstraint("state IN ('open', 'working', 'done', 'refused')"),
    _text("report"),
    _real("finished_at"),
    Index("privacy_requests_team", "team_id", "state"),
)
"""A customer's request about their data (Law 91/2025/QH15): to see it (``access``) or
to erase it (``erase``), with its clock; the number sealed while the request is open,
only its keyed hash once done."""


channel_languages = Table(
    "channel_languages",
    metadata,
    _text("team_id", primary_key=True),
    _text("channel", primary_key=True),
    _text("language", nullable=False),
    CheckConstraint("language IN ('vi', 'en')"),
    _text("set_by"),
    _real("updated_at", nullable=False),
)
"""A channel's own language (``settings language vi|en #channel``): what its posts are
written in unless the digest, alert or route that posts has its own ``lang=``."""

DATA_TABLES: tuple[Table, ...] = tuple(metadata.sorted_tables)
"""Every table holding callops data, parents before children (the order to copy them in)."""
