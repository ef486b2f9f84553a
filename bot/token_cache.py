"""The call-center client's token cache (callcenter's `TokenCache`) over a workspace's row.

`storage` knows nothing of callcenter, so it keeps the token as plain encrypted data; this
adapter is the one place the two meet.
"""

from __future__ import annotations

from callcenter.tokens import CachedToken
from storage import WorkspaceStore


class WorkspaceTokenCache:
    """One workspace's cached service token, shared by every process through the database."""

    def __init__(self, workspaces: WorkspaceStore, team_id: str) -> None:
        self._workspaces = workspaces
        self._team_id = team_id

    @property
    def team_id(self) -> str:
        return self._team_id

    def load(self) -> CachedToken | None:
        stored = self._workspaces.cached_token(self._team_id)
        return None if stored is None else CachedToken(stored.token, stored.expires_at)

    def save(self, token: CachedToken) -> None:
        self._workspaces.save_cached_token(self._team_id, token.token, token.expires_at)

    def clear(self) -> None:
        self._workspaces.clear_cached_token(self._team_id)
