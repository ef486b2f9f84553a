"""Workflow steps that wait on an approval request.

A step that asks for an action (start a campaign, push a call) is answered when its
request is settled, which may be minutes later and in another process: the approver's
click, the expiry sweep.  So the run is remembered here, beside the approval's id: the
run's id, its just-in-time bot token (encrypted, and dropped once used), and which fields
of the request's result become the step's outputs.  ``settle`` hands the run to exactly
one caller, so a step is completed once however many clicks or sweeps see it settled.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlite_utils import Database

from storage.clock import Clock, system_clock
from storage.secrets import SecretBox
from storage.validation import check_id


@dataclass(frozen=True)
class StepLink:
    team_id: str
    approval_id: str
    function_execution_id: str
    callback_id: str
    outputs: dict[str, str]
    """Output name -> key of the approval's result data (``lead_id`` -> ``lead_uuid``)."""
    token: str | None = field(repr=False)
    """None once the run was settled (the token is not kept after its one use)."""
    settled_at: float | None


class StepRunStore:
    def __init__(self, db: Database, box: SecretBox, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._box = box
        self._clock = clock

    def link(
        self,
        team_id: str,
        approval_id: str,
        *,
        function_execution_id: str,
        callback_id: str,
        token: str,
        outputs: Mapping[str, str],
    ) -> StepLink:
        """Remember that the run ``function_execution_id`` waits on ``approval_id``."""
        self._db.execute(
            """INSERT INTO step_runs (team_id, approval_id, function_execution_id, callback_id,
                   outputs, token_enc, created_at)
               VALUES (?, ?, ?, ?, ?, ?, ?)""",
            [
                check_id(team_id, "team id"),
                check_id(approval_id, "approval id"),
                check_id(function_execution_id, "function execution id"),
                callback_id,
                json.dumps(dict(outputs), sort_keys=True),
                self._box.encrypt(token),
                self._clock(),
            ],
        )
        found = self.get(team_id, approval_id)
        assert found is not None
        return found

    def get(self, team_id: str, approval_id: str) -> StepLink | None:
        rows = list(
            self._db.query(
                "SELECT * FROM step_runs WHERE team_id = ? AND approval_id = ?",
                [team_id, approval_id],
            )
        )
        return self._link(rows[0]) if rows else None

    def settle(self, team_id: str, approval_id: str) -> StepLink | None:
        """The waiting run, to exactly one caller (None to every other, and when no step
        waits on this request); its token is forgotten in the same move."""
        current = self.get(team_id, approval_id)
        if current is None or current.settled_at is not None:
            return None
        cursor = self._db.execute(
            """UPDATE step_runs SET settled_at = ?, token_enc = NULL
               WHERE team_id = ? AND approval_id = ? AND settled_at IS NULL""",
            [self._clock(), team_id, approval_id],
        )
        return current if cursor.rowcount == 1 else None

    def _link(self, row: dict[str, Any]) -> StepLink:
        outputs = json.loads(row["outputs"])
        return StepLink(
            team_id=row["team_id"],
            approval_id=row["approval_id"],
            function_execution_id=row["function_execution_id"],
            callback_id=row["callback_id"],
            outputs={str(k): str(v) for k, v in outputs.items()},
            token=None if row["token_enc"] is None else self._box.decrypt(row["token_enc"]),
            settled_at=row["settled_at"],
        )
