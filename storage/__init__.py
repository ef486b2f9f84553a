"""Workspace storage on one database: a SQLite file (the embedded default) or PostgreSQL
(several replicas), through SQLAlchemy Core with one set of queries for both: workspaces
and their encrypted API keys, roles, approval policy and approvals, audit log, digests,
alerts, notification routes and the call feed, Slack installations.

Every read and write of workspace data takes the Slack team id; nothing returns another
workspace's rows. Imports only SQLAlchemy, cryptography and the stdlib: nothing of callops.
"""

from storage.alerts import Alert
from storage.approvals import Approval, ApprovalState, params_hash
from storage.audit import AuditLog, Outcome, redact, write_csv, write_json
from storage.call_feed import OpenFold, PushedMessage, QueuedRecord
from storage.copy import copy_database
from storage.database import Database, connect, database_url, open_database, patience
from storage.digests import DigestSchedule
from storage.facade import Requester, Storage
from storage.installations import InstallationRecord, RefreshClaim
from storage.migrations import LATEST_VERSION, migrate, read_schema_version
from storage.notifications import DedupStore, NotificationRoute
from storage.offload import BlockingOnLoopError, off_loop, off_loop_quick, set_loop_guard
from storage.people import Person
from storage.policy import ADMINS, KindPolicy, Mode, PolicyStore
from storage.roles import DEFAULT_ROLE, WORKFLOWS, Role, effective_role
from storage.secrets import SecretBox, rotate_secrets
from storage.workspaces import ServiceToken, Workspace, WorkspaceStore

__all__ = [
    "ADMINS",
    "DEFAULT_ROLE",
    "LATEST_VERSION",
    "WORKFLOWS",
    "Alert",
    "Approval",
    "ApprovalState",
    "AuditLog",
    "BlockingOnLoopError",
    "Database",
    "DedupStore",
    "DigestSchedule",
    "InstallationRecord",
    "KindPolicy",
    "Mode",
    "NotificationRoute",
    "OpenFold",
    "Outcome",
    "Person",
    "PolicyStore",
    "PushedMessage",
    "QueuedRecord",
    "RefreshClaim",
    "Requester",
    "Role",
    "SecretBox",
    "ServiceToken",
    "Storage",
    "Workspace",
    "WorkspaceStore",
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
