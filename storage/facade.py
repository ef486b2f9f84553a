"""`Storage`: every store over one database connection, built in one place."""

from __future__ import annotations

from pathlib import Path

from sqlite_utils import Database

from storage.alerts import AlertStore
from storage.approval_secrets import ApprovalSecretStore
from storage.approvals import ApprovalStore
from storage.audit import AuditLog
from storage.call_feed import CallFeedStore
from storage.clock import Clock, system_clock
from storage.database import DEFAULT_BUSY_TIMEOUT, open_database
from storage.digests import DigestStore
from storage.installations import InstallationStore, OAuthStateStore
from storage.notices import NoticeStore
from storage.notifications import CallbackTokenStore, DedupStore, RouteStore
from storage.policy import PolicyStore
from storage.roles import RoleStore
from storage.secrets import SecretBox, rotate_secrets
from storage.step_runs import StepRunStore
from storage.workspaces import WorkspaceStore


class Storage:
    """All stores of one process. Use one `Storage` per thread (SQLite connections are not
    shared across threads); other processes open their own on the same file."""

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
        self.policies = PolicyStore(db, clock=clock)
        self.approvals = ApprovalStore(db, box, self.policies, clock=clock)
        self.approval_secrets = ApprovalSecretStore(db, box, clock=clock)
        self.audit = AuditLog(db, clock=clock)
        self.digests = DigestStore(db, clock=clock)
        self.alerts = AlertStore(db, clock=clock)
        self.notices = NoticeStore(db, clock=clock)
        self.routes = RouteStore(db, clock=clock)
        self.callback_tokens = CallbackTokenStore(db, box, clock=clock)
        self.dedup = DedupStore(db, clock=clock)
        self.call_feed = CallFeedStore(db, box, self.dedup, clock=clock)
        self.installations = InstallationStore(db, box, self.roles, clock=clock)
        self.oauth_states = OAuthStateStore(db, clock=clock)
        self.step_runs = StepRunStore(db, box, clock=clock)

    @classmethod
    def open(
        cls,
        path: str | Path,
        box: SecretBox,
        *,
        clock: Clock = system_clock,
        default_timezone: str = "UTC",
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> Storage:
        db = open_database(path, busy_timeout=busy_timeout)
        return cls(db, box, clock=clock, default_timezone=default_timezone)

    def rotate_secrets(self) -> int:
        return rotate_secrets(self.db, self.box)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Storage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
