"""Workspace storage on one database: a SQLite file (the embedded default) or PostgreSQL
(several replicas), through SQLAlchemy Core with one set of queries for both: workspaces
and their encrypted API keys, roles, approval policy and approvals, audit log, digests,
alerts, notification routes and the call feed, Slack installations.

Every read and write of workspace data takes the Slack team id; nothing returns another
workspace's rows. Imports only SQLAlchemy, cryptography and the stdlib: nothing of callops.
"""

from storage.alerts import Alert, AlertStore, FiredAlert
from storage.approval_secrets import ApprovalSecretStore
from storage.approvals import Approval, ApprovalState, ApprovalStore, canonical_json, params_hash
from storage.audit import AuditEntry, AuditLog, Outcome, redact, write_csv, write_json
from storage.call_feed import (
    OUTCOME_LANE,
    CallFeedStore,
    OpenFold,
    PushedMessage,
    QueuedRecord,
)
from storage.copy import CopyReport, copy_database
from storage.database import Database, connect, database_url, open_database, patience
from storage.digests import DigestRun, DigestSchedule, DigestStore
from storage.facade import Requester, Storage, WipeResult
from storage.installations import (
    InstallationRecord,
    InstallationStore,
    OAuthStateStore,
    RefreshClaim,
)
from storage.migrations import LATEST_VERSION, migrate, read_schema_version
from storage.notices import Notice, NoticeStore
from storage.notifications import CallbackTokenStore, DedupStore, NotificationRoute, RouteStore
from storage.offload import BlockingOnLoopError, off_loop, off_loop_quick, set_loop_guard
from storage.people import Person
from storage.policy import (
    ADMINS,
    KindPolicy,
    Mode,
    PolicyStore,
)
from storage.roles import DEFAULT_ROLE, WORKFLOWS, Role, RoleStore, effective_role
from storage.secrets import SecretBox, rotate_secrets
from storage.step_runs import StepLink, StepRunStore
from storage.workspaces import UNCHANGED, ServiceToken, Workspace, WorkspaceStore

__all__ = [
    "ADMINS",
    "DEFAULT_ROLE",
    "LATEST_VERSION",
    "OUTCOME_LANE",
    "UNCHANGED",
    "WORKFLOWS",
    "Alert",
    "AlertStore",
    "Approval",
    "ApprovalSecretStore",
    "ApprovalState",
    "ApprovalStore",
    "AuditEntry",
    "AuditLog",
    "BlockingOnLoopError",
    "CallFeedStore",
    "CallbackTokenStore",
    "CopyReport",
    "Database",
    "DedupStore",
    "DigestRun",
    "DigestSchedule",
    "DigestStore",
    "FiredAlert",
    "InstallationRecord",
    "InstallationStore",
    "KindPolicy",
    "Mode",
    "Notice",
    "NoticeStore",
    "NotificationRoute",
    "OAuthStateStore",
    "OpenFold",
    "Outcome",
    "Person",
    "PolicyStore",
    "PushedMessage",
    "QueuedRecord",
    "RefreshClaim",
    "Requester",
    "Role",
    "RoleStore",
    "RouteStore",
    "SecretBox",
    "ServiceToken",
    "StepLink",
    "StepRunStore",
    "Storage",
    "WipeResult",
    "Workspace",
    "WorkspaceStore",
    "canonical_json",
    "connect",
    "copy_database",
    "database_url",
    "effective_role",
    "migrate",
    "off_loop",
    "off_loop_quick",
    "open_database",
    "params_hash",
    "patience",
    "read_schema_version",
    "redact",
    "rotate_secrets",
    "set_loop_guard",
    "write_csv",
    "write_json",
]
