"""Which customers' numbers each message and file callops posted shows.

Every post to a channel that shows a customer's number leaves one row per number: the
number's keyed hash (so ``privacy find`` finds the post again without the number kept in
clear), the number sealed with the workspace's secrets (so "Show number" can reveal it to
whoever may see it), and where the post is.  The row's ``ref`` is what the post's Show
number button carries: a random reference, never the number.  Erasing a number, or ageing
it out, drops the sealed number and marks the post as redacted; the hash stays, so the
record of what was done can still be found.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Connection

from storage._rows import SealedStore, from_row
from storage.errors import SecretDecryptError
from storage.schema import privacy_posts
from storage.validation import check_id

_P = privacy_posts.c
_INSERT = insert(privacy_posts)
_BY_REF = select(privacy_posts).where(_P.team_id == bindparam("team"), _P.ref == bindparam("ref"))
_BY_HASH = (
    select(privacy_posts)
    .where(_P.team_id == bindparam("team"), _P.phone_hash == bindparam("hash"))
    .order_by(_P.posted_at, _P.id)
)
_REF_OF = (
    select(_P.ref)
    .where(
        _P.team_id == bindparam("team"),
        _P.channel == bindparam("channel"),
        _P.ts == bindparam("ts"),
    )
    .order_by(_P.id)
    .limit(1)
)
_HASHES_OF = select(_P.phone_hash).where(
    _P.team_id == bindparam("team"),
    _P.channel == bindparam("channel"),
    _P.ts == bindparam("ts"),
    _P.redacted_at.is_(None),
)
_OLDER = (
    select(privacy_posts)
    .where(
        _P.posted_at < bindparam("before"),
        _P.redacted_at.is_(None),
        _P.team_id == bindparam("team"),
    )
    .order_by(_P.posted_at, _P.id)
    .limit(bindparam("limit"))
)
_MESSAGE_UNREDACTED = (
    _P.team_id == bindparam("team"),
    _P.channel == bindparam("where_channel"),
    _P.ts == bindparam("where_ts"),
    _P.redacted_at.is_(None),
)
"""One message's posts not redacted yet (an UPDATE's where binds other names than the
columns it sets)."""
_REDACT = (
    update(privacy_posts)
    .where(*_MESSAGE_UNREDACTED)
    .values(phone_enc=None, redacted_at=bindparam("now"))
)


_MARK = (
    update(privacy_posts)
    .where(
        _P.team_id == bindparam("team"),
        _P.phone_hash == bindparam("hash"),
        _P.redacted_at.is_(None),
    )
    .values(erase_request=bindparam("request"), phone_enc=None)
)
_MARK_OLDER = (
    update(privacy_posts)
    .where(
        _P.team_id == bindparam("team"),
        _P.posted_at < bindparam("before"),
        _P.redacted_at.is_(None),
        _P.erase_request.is_(None),
    )
    .values(erase_request=bindparam("request"), phone_enc=None)
)
_DUE = (
    select(privacy_posts)
    .where(
        _P.erase_request.is_not(None),
        _P.redacted_at.is_(None),
        (_P.lease_until.is_(None)) | (_P.lease_until < bindparam("now")),
    )
    .order_by(_P.id)
    .limit(bindparam("limit"))
)
_LEASE = (
    update(privacy_posts)
    .where(
        _P.id == bindparam("row"),
        _P.redacted_at.is_(None),
        (_P.lease_until.is_(None)) | (_P.lease_until < bindparam("now")),
    )
    .values(lease_until=bindparam("until"))
)
_SETTLE_MESSAGE = (
    update(privacy_posts)
    .where(*_MESSAGE_UNREDACTED)
    .values(
        phone_enc=None, redacted_at=bindparam("now"), outcome=bindparam("said"), lease_until=None
    )
)
_SETTLE_FILE = (
    update(privacy_posts)
    .where(
        _P.team_id == bindparam("team"),
        _P.file_id == bindparam("where_file"),
        _P.redacted_at.is_(None),
    )
    .values(
        phone_enc=None, redacted_at=bindparam("now"), outcome=bindparam("said"), lease_until=None
    )
)
_OF_REQUEST = select(privacy_posts).where(
    _P.team_id == bindparam("team"), _P.erase_request == bindparam("request")
)


def new_ref() -> str:
    """A reference a Show number button carries: random, so it says nothing of the number."""
    return secrets.token_urlsafe(12)


@dataclass(frozen=True)
class PostedNumber:
    """One customer's number one post shows (the number itself is not part of it)."""

    id: int
    team_id: str
    channel: str
    ts: str | None
    file_id: str | None
    ref: str
    phone_hash: str
    masked: bool
    posted_at: float
    redacted_at: float | None
    erase_request: str | None = None
    """Why it is to be rewritten: an erasure request's id, or ``retention``."""
    outcome: str | None = None
    """What became of it: ``rewritten``, ``deleted``, or why it could not be."""


class PrivacyPostStore(SealedStore):
    def phone_hash(self, phone: str) -> str:
        """The keyed hash every privacy table keeps of a customer's number."""
        return self._box.keyed_hash(phone)

    def record(
        self,
        team_id: str,
        channel: str,
        phones: Iterable[str],
        *,
        ref: str,
        ts: str | None = None,
        file_id: str | None = None,
        masked: bool,
    ) -> int:
        """Note that the post ``ts`` (or the file ``file_id``) in ``channel`` shows
        ``phones``; returns how many rows were written."""
        now = self._clock()
        known: set[str] = set()
        if ts is not None:
            params = {"team": team_id, "channel": channel, "ts": ts}
            known = {str(row["phone_hash"]) for row in self._db.all(_HASHES_OF, params)}
        rows = [
            {
                "team_id": check_id(team_id, "team id"),
                "channel": channel,
                "ts": ts,
                "file_id": file_id,
                "ref": ref,
                "phone_hash": self._box.keyed_hash(phone),
                "phone_enc": self._box.encrypt(phone),
                "masked": masked,
                "posted_at": now,
                "redacted_at": None,
            }
            for phone in dict.fromkeys(phones)
            if self._box.keyed_hash(phone) not in known
        ]
        if not rows:
            return 0
        self._db.write(lambda conn: conn.execute(_INSERT, rows))
        return len(rows)

    def ref_of(self, team_id: str, channel: str, ts: str) -> str | None:
        """The reference the message ``ts`` already carries (an edited message keeps its
        Show number button), or None."""
        found = self._db.scalar(_REF_OF, {"team": team_id, "channel": channel, "ts": ts})
        return None if found is None else str(found)

    def numbers_of(self, team_id: str, ref: str) -> list[str] | None:
        """The customers' numbers the post carrying ``ref`` shows, still held (an erased
        or aged-out number is gone); None for a reference no post carries."""
        rows = self._db.all(_BY_REF, {"team": team_id, "ref": ref})
        if not rows:
            return None
        found: list[str] = []
        for row in rows:
            sealed = row["phone_enc"]
            if sealed is None or row["redacted_at"] is not None:
                continue
            try:
                phone = self._box.decrypt(sealed)
            except SecretDecryptError:
                continue
            if phone not in found:
                found.append(phone)
        return found

    def showing(self, team_id: str, phone: str) -> list[PostedNumber]:
        """Every post and file that shows ``phone``, oldest first."""
        rows = self._db.all(_BY_HASH, {"team": team_id, "hash": self._box.keyed_hash(phone)})
        return [from_row(PostedNumber, row) for row in rows]

    def older_than(self, team_id: str, before: float, limit: int = 100) -> list[PostedNumber]:
        """Posts not yet redacted that were made before ``before`` (retention)."""
        rows = self._db.all(_OLDER, {"team": team_id, "before": before, "limit": limit})
        return [from_row(PostedNumber, row) for row in rows]

    def mark_for_erase(self, team_id: str, phone: str, request_id: str) -> int:
        """Every post showing ``phone`` is to be rewritten (or its file deleted) for the
        request ``request_id``; the sealed number goes at once.  Returns the rows marked."""
        params = {"team": team_id, "hash": self._box.keyed_hash(phone), "request": request_id}
        return self._db.change(_MARK, params)

    def mark_older(self, team_id: str, before: float, reason: str) -> int:
        """Every post made before ``before`` is to be rewritten (retention)."""
        params = {"team": team_id, "before": before, "request": reason}
        return self._db.change(_MARK_OLDER, params)

    def claim_due(self, *, lease: float, limit: int = 20) -> list[PostedNumber]:
        """Posts waiting to be rewritten, each claimed for ``lease`` seconds by this caller
        alone (another process, or this one after a restart, takes them once it lapses)."""
        now = self._clock()

        def work(conn: Connection) -> list[PostedNumber]:
            claimed: list[PostedNumber] = []
            for row in conn.execute(_DUE, {"now": now, "limit": limit}).mappings().all():
                taken = conn.execute(_LEASE, {"row": row["id"], "now": now, "until": now + lease})
                if taken.rowcount == 1:
                    claimed.append(from_row(PostedNumber, row))
            return claimed

        return self._db.write(work)

    def settle(
        self, team_id: str, channel: str, *, ts: str | None, file_id: str | None, outcome: str
    ) -> int:
        """The post (every number it showed) was rewritten, or its file deleted, or it
        could not be (``outcome`` says which); its sealed numbers are gone either way."""
        now = self._clock()
        if file_id:
            params = {"team": team_id, "where_file": file_id, "now": now, "said": outcome}
            return self._db.change(_SETTLE_FILE, params)
        params = {
            "team": team_id,
            "where_channel": channel,
            "where_ts": ts,
            "now": now,
            "said": outcome,
        }
        return self._db.change(_SETTLE_MESSAGE, params)

    def of_request(self, team_id: str, request_id: str) -> list[PostedNumber]:
        rows = self._db.all(_OF_REQUEST, {"team": team_id, "request": request_id})
        return [from_row(PostedNumber, row) for row in rows]

    def redacted(self, team_id: str, channel: str, ts: str) -> int:
        """The post was rewritten without numbers: its sealed numbers are dropped."""
        return self._db.change(
            _REDACT,
            {"team": team_id, "where_channel": channel, "where_ts": ts, "now": self._clock()},
        )
