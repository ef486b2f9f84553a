"""Customers' requests about their data, each with its clock (Law 91/2025/QH15).

A request is to see what callops holds (``access``) or to erase it (``erase``).  It is
received (when the customer asked, which may be before it was typed in), acknowledged
(when an admin took it in callops), due (15 days after it was received, by the reading
in docs/privacy.md), handled by someone, and done with a report.  The number is sealed while
the request is open, so the work can be done, and dropped once it is: only its keyed
hash stays, so the request can still be found by the number.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, insert, select, update

from storage._rows import SealedStore, from_row, short_id
from storage.errors import SecretDecryptError
from storage.schema import privacy_requests
from storage.validation import check_id

_R = privacy_requests.c
_INSERT = insert(privacy_requests)
_GET = select(privacy_requests).where(_R.team_id == bindparam("team"), _R.id == bindparam("id"))
_LIST = (
    select(privacy_requests)
    .where(_R.team_id == bindparam("team"))
    .where((_R.finished_at.is_(None)) | (_R.finished_at >= bindparam("since")))
    .order_by(_R.due_at, _R.id)
)
_OPEN_ALL = select(privacy_requests).where(_R.state.in_(("open", "working")))
_SET_STATE = (
    update(privacy_requests)
    .where(_R.team_id == bindparam("team"), _R.id == bindparam("request"))
    .values(state=bindparam("new_state"))
)
_FINISH = (
    update(privacy_requests)
    .where(
        _R.team_id == bindparam("team"),
        _R.id == bindparam("request"),
        _R.state.in_(("open", "working")),
    )
    .values(
        state=bindparam("new_state"),
        report=bindparam("new_report"),
        finished_at=bindparam("now"),
        phone_enc=None,
    )
)

KINDS = ("access", "erase")


@dataclass(frozen=True)
class PrivacyRequest:
    id: str
    team_id: str
    kind: str
    phone_hash: str
    received_at: float
    acknowledged_at: float | None
    due_at: float
    requested_by: str
    handled_by: str | None
    state: str
    report: str | None
    finished_at: float | None

    @property
    def open(self) -> bool:
        return self.state in ("open", "working")


class PrivacyRequestStore(SealedStore):
    def open(
        self,
        team_id: str,
        kind: str,
        phone: str,
        *,
        requested_by: str,
        received_at: float,
        due_at: float,
        handled_by: str | None = None,
    ) -> PrivacyRequest:
        """Record a request, acknowledged now."""
        if kind not in KINDS:
            raise ValueError(f"unknown request kind {kind!r}")
        request_id = short_id()
        self._db.change(
            _INSERT,
            {
                "id": request_id,
                "team_id": check_id(team_id, "team id"),
                "kind": kind,
                "phone_hash": self._box.keyed_hash(phone),
                "phone_enc": self._box.encrypt(phone),
                "received_at": received_at,
                "acknowledged_at": self._clock(),
                "due_at": due_at,
                "requested_by": requested_by,
                "handled_by": handled_by or requested_by,
                "state": "open",
                "report": None,
                "finished_at": None,
            },
        )
        found = self.get(team_id, request_id)
        assert found is not None
        return found

    def get(self, team_id: str, request_id: str) -> PrivacyRequest | None:
        return self._one(PrivacyRequest, _GET, {"team": team_id, "id": request_id})

    def phone_of(self, team_id: str, request_id: str) -> str | None:
        """The number of an open request (None once it is done)."""
        row = self._db.first(_GET, {"team": team_id, "id": request_id})
        if row is None or row["phone_enc"] is None:
            return None
        try:
            return self._box.decrypt(str(row["phone_enc"]))
        except SecretDecryptError:
            return None

    def listing(self, team_id: str, *, since: float) -> list[PrivacyRequest]:
        """Open requests, and those finished since ``since``, soonest due first."""
        rows = self._db.all(_LIST, {"team": team_id, "since": since})
        return [from_row(PrivacyRequest, row) for row in rows]

    def all_open(self) -> list[PrivacyRequest]:
        return [from_row(PrivacyRequest, row) for row in self._db.all(_OPEN_ALL)]

    def note(self, team_id: str, request_id: str, report: str) -> None:
        """What was done so far (the report is finished by ``finish``)."""
        self._db.change(
            update(privacy_requests)
            .where(_R.team_id == team_id, _R.id == request_id)
            .values(report=report)
        )

    def working(self, team_id: str, request_id: str) -> bool:
        params = {"team": team_id, "request": request_id, "new_state": "working"}
        return self._db.change(_SET_STATE, params) == 1

    def finish(self, team_id: str, request_id: str, *, report: str, refused: bool = False) -> bool:
        """Done (or refused) with its report; True for the one caller that finished it."""
        params = {
            "team": team_id,
            "request": request_id,
            "new_state": "refused" if refused else "done",
            "new_report": report,
            "now": self._clock(),
        }
        return self._db.change(_FINISH, params) == 1
