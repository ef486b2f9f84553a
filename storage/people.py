"""People as callops knows them: the language each chose, and the Slack locale and time
zone ``users.info`` last gave for them.

The row is read with the person's role on every request (``Storage.requester``), so what
Slack said of someone is remembered here instead of asked for again; it is written only
when something changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, select
from sqlalchemy.engine import RowMapping

from storage._rows import Store
from storage.database import upsert
from storage.roles import Role
from storage.schema import people, roles
from storage.validation import check_id, check_language


@dataclass(frozen=True)
class Person:
    """What is stored of one person: their own language choice (None: follow Slack),
    and their Slack locale and zone as last seen (None: not seen yet)."""

    language: str | None = None
    slack_locale: str | None = None
    slack_tz: str | None = None
    seen_at: float | None = None

    @property
    def seen(self) -> bool:
        return self.seen_at is not None


_P = people.c
_KEY = (_P.team_id == bindparam("team_id"), _P.user_id == bindparam("user_id"))
_GET = select(_P.language, _P.slack_locale, _P.slack_tz, _P.seen_at).where(*_KEY)
_R = roles.c
ROLE_AND_PERSON = select(
    select(_R.role)
    .where(_R.team_id == bindparam("team_id"), _R.user_id == bindparam("user_id"))
    .scalar_subquery()
    .label("role"),
    *(
        select(column).where(*_KEY).scalar_subquery().label(column.name)
        for column in _GET.selected_columns
    ),
    select(_P.updated_at).where(*_KEY).scalar_subquery().label("known"),
)
"""A person's stored role and their row, always one row (by primary key):
``Storage.requester`` reads it beside the workspace's row in one statement, since each
statement a request runs costs SQLAlchemy's own work; ``role_and_person_of`` reads it."""


_CHOOSE = upsert(people, "language", "updated_at")
_SEEN = upsert(people, "slack_locale", "slack_tz", "seen_at", "updated_at")


def role_and_person_of(row: RowMapping) -> tuple[Role | None, Person | None]:
    """The stored role and the person (None for someone never stored) of a row holding
    ``ROLE_AND_PERSON``'s columns."""
    role = row["role"]
    person = (
        None
        if row["known"] is None
        else Person(row["language"], row["slack_locale"], row["slack_tz"], row["seen_at"])
    )
    return (Role(role) if role else None), person


class PeopleStore(Store):
    def get(self, team_id: str, user_id: str) -> Person | None:
        return self._one(Person, _GET, {"team_id": team_id, "user_id": user_id})

    def choose_language(self, team_id: str, user_id: str, language: str | None) -> None:
        """The person's own language; None clears it (they follow their Slack locale)."""
        now = self._clock()
        self._db.change(
            self._db.pick(_CHOOSE),
            {
                "team_id": check_id(team_id, "team id"),
                "user_id": check_id(user_id, "user id"),
                "language": check_language(language),
                "updated_at": now,
            },
        )

    def seen(self, team_id: str, user_id: str, locale: str | None, tz: str | None) -> None:
        """What Slack said of the person just now (their language choice stays)."""
        now = self._clock()
        self._db.change(
            self._db.pick(_SEEN),
            {
                "team_id": check_id(team_id, "team id"),
                "user_id": check_id(user_id, "user id"),
                "slack_locale": locale,
                "slack_tz": tz,
                "seen_at": now,
                "updated_at": now,
            },
        )
