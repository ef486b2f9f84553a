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

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Connection, RowMapping

from storage._rows import SealedStore, from_row
from storage.schema import step_runs
from storage.validation import check_id

_S = step_runs.c
_THIS = (_S.team_id == bindparam("team"), _S.approval_id == bindparam("approval"))
_LINK = insert(step_runs)
_GET = select(step_runs).where(*_THIS)
# The claim: only the caller whose UPDATE finds the run unsettled gets it.
_SETTLE = (
    update(step_runs)
    .where(*_THIS, _S.settled_at.is_(None))
    .values(settled_at=bindparam("now"), token_enc=None)
)
_DROP_TEAM_TOKENS = (
    update(step_runs)
    .where(_S.team_id == bindparam("team"), _S.token_enc.is_not(None))
    .values(token_enc=None)
)


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


class StepRunStore(SealedStore):
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
        values = {
            "team_id": check_id(team_id, "team id"),
            "approval_id": check_id(approval_id, "approval id"),
            "function_execution_id": check_id(function_execution_id, "function execution id"),
            "callback_id": callback_id,
            "outputs": json.dumps(dict(outputs), sort_keys=True),
            "token_enc": self._box.encrypt(token),
            "created_at": self._clock(),
        }

        def work(conn: Connection) -> RowMapping | None:
            conn.execute(_LINK, values)
            keys = {"team": values["team_id"], "approval": values["approval_id"]}
            return conn.execute(_GET, keys).mappings().first()

        row = self._db.write(work)
        assert row is not None
        return self._link(row)

    def get(self, team_id: str, approval_id: str) -> StepLink | None:
        row = self._db.first(_GET, {"team": team_id, "approval": approval_id})
        return self._link(row) if row else None

    def settle(self, team_id: str, approval_id: str) -> StepLink | None:
        """The waiting run, to exactly one caller (None to every other, and when no step
        waits on this request); its token is forgotten in the same move."""
        keys = {"team": team_id, "approval": approval_id}

        def work(conn: Connection) -> RowMapping | None:
            row = conn.execute(_GET, keys).mappings().first()
            if row is None or row["settled_at"] is not None:
                return None
            claimed = conn.execute(_SETTLE, {**keys, "now": self._clock()}).rowcount == 1
            return row if claimed else None

        row = self._db.write(work)
        return self._link(row) if row else None

    def drop_tokens_in(self, conn: Connection, team_id: str) -> int:
        """Forget the tokens of the workspace's waiting runs (the app was uninstalled, so
        they are revoked anyway), inside the caller's transaction; returns how many."""
        return conn.execute(_DROP_TEAM_TOKENS, {"team": team_id}).rowcount

    def _link(self, row: RowMapping) -> StepLink:
        outputs = json.loads(row["outputs"])
        return from_row(
            StepLink,
            row,
            outputs={str(k): str(v) for k, v in outputs.items()},
            token=None if row["token_enc"] is None else self._box.decrypt(row["token_enc"]),
        )
