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

from sqlalchemy import bindparam, delete, exists, select, update
from sqlalchemy.engine import Connection

from storage._rows import SealedStore
from storage.approvals import ApprovalState
from storage.database import upsert
from storage.schema import approval_secrets, approvals

_S = approval_secrets.c
_A = approvals.c
_THIS = (_S.team_id == bindparam("team"), _S.approval_id == bindparam("approval"))
_OPEN = sorted(state for state in ApprovalState if not state.is_final)
"""States of a request that is not settled yet."""


# One row per request: a second write replaces only its own columns.
_KEEP_SECRET = upsert(approval_secrets, "secret_enc")
_REMEMBER_PROMPT = upsert(approval_secrets, "prompt_url_enc", "prompt_url_at")
# FOR UPDATE holds the row from the read on PostgreSQL (SQLite's write transaction already
# holds the database), so a second taker waits and then finds nothing.
_SECRET = select(_S.secret_enc).where(*_THIS, _S.secret_enc.is_not(None)).with_for_update()
_HAS_SECRET = select(_S.team_id).where(*_THIS, _S.secret_enc.is_not(None))
_PROMPT = (
    select(_S.prompt_url_enc, _S.prompt_url_at)
    .where(*_THIS, _S.prompt_url_enc.is_not(None))
    .with_for_update()
)
_DROP_PROMPT = (
    update(approval_secrets).where(*_THIS).values(prompt_url_enc=None, prompt_url_at=None)
)
_WIPE = update(approval_secrets).where(*_THIS).values(secret_enc=None)
_FORGET = delete(approval_secrets).where(*_THIS)
_FORGET_TEAM = delete(approval_secrets).where(_S.team_id == bindparam("team"))
_STILL_OPEN = exists().where(
    _A.team_id == _S.team_id,
    _A.id == _S.approval_id,
    _A.state.in_(_OPEN),
)
_WIPE_SETTLED = (
    update(approval_secrets).where(_S.secret_enc.is_not(None), ~_STILL_OPEN).values(secret_enc=None)
)
_DELETE_EMPTY = delete(approval_secrets).where(
    _S.secret_enc.is_(None),
    (_S.prompt_url_enc.is_(None)) | (_S.prompt_url_at <= bindparam("cutoff")),
)


class ApprovalSecretStore(SealedStore):
    def keep_secret(self, team_id: str, approval_id: str, secret: Mapping[str, Any]) -> None:
        """Hold ``secret`` (plain JSON) for the request until it runs or is settled."""
        text = json.dumps(dict(secret), sort_keys=True, separators=(",", ":"))
        values = {
            "team_id": team_id,
            "approval_id": approval_id,
            "secret_enc": self._box.encrypt(text),
            "created_at": self._clock(),
        }
        self._db.change(self._db.pick(_KEEP_SECRET), values)

    def take_secret(self, team_id: str, approval_id: str) -> dict[str, Any]:
        """The request's secret, deleted as it is read (empty when there is none, or when
        another caller took it first: the row is locked from the read)."""
        keys = {"team": team_id, "approval": approval_id}

        def work(conn: Connection) -> str | None:
            found: str | None = conn.execute(_SECRET, keys).scalar()
            if found is not None:
                conn.execute(_WIPE, keys)
            return found

        found = self._db.write(work)
        if found is None:
            return {}
        value: Any = json.loads(self._box.decrypt(found))
        return value if isinstance(value, dict) else {}

    def has_secret(self, team_id: str, approval_id: str) -> bool:
        keys = {"team": team_id, "approval": approval_id}
        return self._db.first(_HAS_SECRET, keys) is not None

    def remember_prompt(self, team_id: str, approval_id: str, response_url: str) -> None:
        """Where the requester's prompt can be rewritten (Slack's ``response_url``)."""
        now = self._clock()
        values = {
            "team_id": team_id,
            "approval_id": approval_id,
            "prompt_url_enc": self._box.encrypt(response_url),
            "prompt_url_at": now,
            "created_at": now,
        }
        self._db.change(self._db.pick(_REMEMBER_PROMPT), values)

    def take_prompt(self, team_id: str, approval_id: str, *, max_age: float) -> str | None:
        """The prompt's address if it is younger than ``max_age`` seconds, forgotten as it
        is read: the prompt is rewritten once, by whoever settles the request first."""
        keys = {"team": team_id, "approval": approval_id}

        def work(conn: Connection) -> tuple[str, float] | None:
            row = conn.execute(_PROMPT, keys).first()
            if row is None:
                return None
            conn.execute(_DROP_PROMPT, keys)
            return row.prompt_url_enc, float(row.prompt_url_at)

        taken = self._db.write(work)
        if taken is None or self._clock() - taken[1] >= max_age:
            return None
        return self._box.decrypt(taken[0])

    def wipe(self, team_id: str, approval_id: str) -> None:
        """Forget the request's secret (its prompt address stays, to say how it ended)."""
        self._db.change(_WIPE, {"team": team_id, "approval": approval_id})

    def forget(self, team_id: str, approval_id: str) -> None:
        """Delete all the request holds (its prompt was just rewritten by its own click)."""
        self._db.change(_FORGET, {"team": team_id, "approval": approval_id})

    def forget_team_in(self, conn: Connection, team_id: str) -> int:
        """Delete all the workspace's requests hold (its app was uninstalled), inside the
        caller's transaction; returns how many rows."""
        return conn.execute(_FORGET_TEAM, {"team": team_id}).rowcount

    def purge_settled(self, *, max_prompt_age: float) -> int:
        """Forget the secrets of settled requests, and delete rows left with nothing useful
        (no secret, and no prompt address younger than ``max_prompt_age`` seconds); returns
        how many rows changed."""
        cutoff = self._clock() - max_prompt_age

        def work(conn: Connection) -> int:
            wiped = conn.execute(_WIPE_SETTLED).rowcount
            deleted = conn.execute(_DELETE_EMPTY, {"cutoff": cutoff}).rowcount
            return wiped + deleted

        return self._db.write(work)
