"""Each team's time zone: the one its workspace was given, else ``CALLOPS_TIMEZONE``.

Digests, alerts, call cards and approval cards all show times in it; they take this as a
plain ``Callable[[str], ZoneInfo]`` so none of them needs the runtime to ask.
"""

from __future__ import annotations

from zoneinfo import ZoneInfo

from storage import Storage, Workspace


class TeamZones:
    def __init__(self, storage: Storage, default: str) -> None:
        self._storage = storage
        self._default = default

    def __call__(self, team_id: str) -> ZoneInfo:
        return self.of(self._storage.workspaces.get(team_id))

    def of(self, workspace: Workspace | None) -> ZoneInfo:
        """The zone of a workspace row already read."""
        return ZoneInfo(workspace.timezone if workspace else self._default)
