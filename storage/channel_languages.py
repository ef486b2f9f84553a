"""Channels with a language of their own (``settings language vi|en #channel``).

A workspace speaks one language in its channels unless an admin gives one channel
another: an English-speaking team's channel in a Vietnamese workspace.  Whatever callops
posts there (approval cards, digests, alerts, call cards) is written in it, unless the
digest, alert or route that posts has its own ``lang=``.
"""

from __future__ import annotations

from sqlalchemy import bindparam, delete, select

from storage._rows import Store
from storage.database import upsert
from storage.schema import channel_languages
from storage.validation import check_id, check_language

_C = channel_languages.c
_KEY = (_C.team_id == bindparam("team_id"), _C.channel == bindparam("channel"))
_GET = select(_C.language).where(*_KEY)
_ALL = select(_C.channel, _C.language).where(_C.team_id == bindparam("team_id"))
_SET = upsert(channel_languages, "language", "set_by", "updated_at")
_CLEAR = delete(channel_languages).where(*_KEY)


class ChannelLanguageStore(Store):
    def get(self, team_id: str, channel: str | None) -> str | None:
        """The channel's own language, or None (it reads the workspace's)."""
        if not channel:
            return None
        return self._db.read(
            lambda conn: conn.execute(_GET, {"team_id": team_id, "channel": channel}).scalar()
        )

    def all(self, team_id: str) -> dict[str, str]:
        """Every channel of the workspace with a language of its own."""
        rows = self._db.read(lambda conn: conn.execute(_ALL, {"team_id": team_id}).all())
        return {str(channel): str(language) for channel, language in rows}

    def set(self, team_id: str, channel: str, language: str | None, *, by: str | None) -> None:
        """Give ``channel`` its own language; None: back to the workspace's."""
        params = {"team_id": check_id(team_id, "team id"), "channel": check_id(channel, "channel")}
        if language is None:
            self._db.change(_CLEAR, params)
            return
        self._db.change(
            self._db.pick(_SET),
            {
                **params,
                "language": check_language(language),
                "set_by": by,
                "updated_at": self._clock(),
            },
        )
