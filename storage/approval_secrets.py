"""What an approval request holds only until it is settled, apart from its parameters.

Two things a request needs for a while and must not keep:

- **one-time secrets** of the action (the password a user change must send): encrypted,
  outside the hashed parameters (so neither the card, the audit log nor the hash carries
  them), handed to the execution once (``take_secret`` reads and deletes in one statement)
  and wiped as soon as the request is denied, cancelled or expires;
- **the requester's prompt address** (Slack's ``response_url`` of the click that asked for
  approval): a capability to rewrite that ephemeral message, kept encrypted so the prompt
  can lose its Withdraw button once the request is decided, and used once.

Each request has at most one row; ``wipe`` removes it, and ``purge_settled`` removes every
row whose request is settled (a safety net run by the approval sweeper, so a row left by a
crash between a transition and its wipe does not outlive the request by long).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlite_utils import Database

from storage.clock import Clock, system_clock
from storage.secrets import SecretBox
from storage.transactions import write_transaction

_SETTLED = "'done','failed','denied','expired','cancelled'"


class ApprovalSecretStore:
    def __init__(self, db: Database, box: SecretBox, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._box = box
        self._clock = clock

    def keep_secret(self, team_id: str, approval_id: str, secret: Mapping[str, Any]) -> None:
        """Hold ``secret`` (plain JSON) for the request until it runs or is settled."""
        text = json.dumps(dict(secret), sort_keys=True, separators=(",", ":"))
        self._db.execute(
            """INSERT INTO approval_secrets (team_id, approval_id, secret_enc, created_at)
               VALUES (?, ?, ?, ?)
               ON CONFLICT (team_id, approval_id) DO UPDATE SET secret_enc = excluded.secret_enc""",
            [team_id, approval_id, self._box.encrypt(text), self._clock()],
        )

    def take_secret(self, team_id: str, approval_id: str) -> dict[str, Any]:
        """The request's secret, deleted as it is read (empty when there is none, or when
        another caller took it first: the write lock is held from the read)."""
        with write_transaction(self._db):
            row = self._db.execute(
                """SELECT secret_enc FROM approval_secrets
                   WHERE team_id = ? AND approval_id = ? AND secret_enc IS NOT NULL""",
                [team_id, approval_id],
            ).fetchone()
            if row is None:
                return {}
            self.wipe(team_id, approval_id)
        value: Any = json.loads(self._box.decrypt(row[0]))
        return value if isinstance(value, dict) else {}

    def has_secret(self, team_id: str, approval_id: str) -> bool:
        row = self._db.execute(
            """SELECT 1 FROM approval_secrets
               WHERE team_id = ? AND approval_id = ? AND secret_enc IS NOT NULL""",
            [team_id, approval_id],
        ).fetchone()
        return row is not None

    def remember_prompt(self, team_id: str, approval_id: str, response_url: str) -> None:
        """Where the requester's prompt can be rewritten (Slack's ``response_url``)."""
        now = self._clock()
        self._db.execute(
            """INSERT INTO approval_secrets
                   (team_id, approval_id, prompt_url_enc, prompt_url_at, created_at)
               VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (team_id, approval_id) DO UPDATE
                   SET prompt_url_enc = excluded.prompt_url_enc,
                       prompt_url_at = excluded.prompt_url_at""",
            [team_id, approval_id, self._box.encrypt(response_url), now, now],
        )

    def take_prompt(self, team_id: str, approval_id: str, *, max_age: float) -> str | None:
        """The prompt's address if it is younger than ``max_age`` seconds, forgotten as it
        is read: the prompt is rewritten once, by whoever settles the request first."""
        with write_transaction(self._db):
            row = self._db.execute(
                """SELECT prompt_url_enc, prompt_url_at FROM approval_secrets
                   WHERE team_id = ? AND approval_id = ? AND prompt_url_enc IS NOT NULL""",
                [team_id, approval_id],
            ).fetchone()
            if row is None:
                return None
            self._db.execute(
                """UPDATE approval_secrets SET prompt_url_enc = NULL, prompt_url_at = NULL
                   WHERE team_id = ? AND approval_id = ?""",
                [team_id, approval_id],
            )
        if self._clock() - float(row[1]) >= max_age:
            return None
        return self._box.decrypt(row[0])

    def wipe(self, team_id: str, approval_id: str) -> None:
        """Forget the request's secret (its prompt address stays, to say how it ended)."""
        self._db.execute(
            "UPDATE approval_secrets SET secret_enc = NULL WHERE team_id = ? AND approval_id = ?",
            [team_id, approval_id],
        )

    def forget(self, team_id: str, approval_id: str) -> None:
        """Delete all the request holds (its prompt was just rewritten by its own click)."""
        self._db.execute(
            "DELETE FROM approval_secrets WHERE team_id = ? AND approval_id = ?",
            [team_id, approval_id],
        )

    def purge_settled(self, *, max_prompt_age: float) -> int:
        """Forget the secrets of settled requests, and delete rows left with nothing useful
        (no secret, and no prompt address younger than ``max_prompt_age`` seconds); returns
        how many rows changed."""
        cutoff = self._clock() - max_prompt_age
        with write_transaction(self._db):
            wiped = self._db.execute(
                f"""UPDATE approval_secrets SET secret_enc = NULL
                    WHERE secret_enc IS NOT NULL AND NOT EXISTS (
                        SELECT 1 FROM approvals a
                        WHERE a.team_id = approval_secrets.team_id
                          AND a.id = approval_secrets.approval_id
                          AND a.state NOT IN ({_SETTLED}))"""
            ).rowcount
            deleted = self._db.execute(
                """DELETE FROM approval_secrets WHERE secret_enc IS NULL
                   AND (prompt_url_enc IS NULL OR prompt_url_at <= ?)""",
                [cutoff],
            ).rowcount
        return wiped + deleted
