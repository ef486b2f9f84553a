"""Saying once when a workspace's scheduled posts cannot be made.

A workspace-wide failure (its API key refused, the service unreachable or failing, no
connection at all) would repeat for every slot of every digest, alert and anomaly check,
so it is told once, in the workspace's digest channel, and remembered in the database
(a notice) until a later attempt succeeds (``tell_recovery``).  Anything else (Slack
refusing one channel, say) belongs to that one post.
"""

from __future__ import annotations

import logging

from callcenter import errors
from commands.kernel.audiences import for_channel
from commands.kernel.context import NotConnectedError
from commands.kernel.failures import describe_failure
from commands.kernel.i18n import _, use_audience
from commands.kernel.jobs import JobOutbox, SlackRefused
from commands.kernel.reply import notice
from storage import Storage
from storage.offload import off_loop

log = logging.getLogger(__name__)

SERVICE_NOTICE = "service"
"""The notice kind of a workspace whose call-center service cannot be used."""


def workspace_failure(exc: BaseException) -> bool:
    """Whether ``exc`` will recur for every post of the workspace (so: tell people once)."""
    return (
        isinstance(exc, errors.CallCenterError | NotConnectedError)
        and describe_failure(exc).workspace_wide
    )


def failure_words(exc: BaseException) -> str:
    """Why digests and alerts stopped, in words an admin can act on (mrkdwn, escaped)."""
    if isinstance(exc, errors.CallCenterError | NotConnectedError):
        return describe_failure(exc).cause
    return _("something went wrong on our side")


async def tell_failure(
    storage: Storage, outbox: JobOutbox, team_id: str, channel: str, exc: BaseException
) -> bool:
    """Post the workspace's one notice about ``exc`` (if none is open); True if posted."""
    workspace = await off_loop(storage.workspaces.get, team_id)
    where = (workspace.digests_channel if workspace else None) or channel
    if not await off_loop(
        storage.notices.open, team_id, SERVICE_NOTICE, detail=type(exc).__name__, channel=where
    ):
        return False
    with use_audience(for_channel(workspace)):
        text = _(
            "Scheduled digests and alerts of this workspace are on hold: {why}. "
            "An admin can check with `/callops status` and reconnect with `/callops connect`. "
            "I keep trying at each slot and will not repeat this message; posts resume on "
            "their own once it works."
        ).format(why=failure_words(exc))
        reply = notice(text, emoji=":warning:")
    try:
        await outbox.post(team_id, where, reply, burst=3)
    except SlackRefused as refused:
        log.warning("team %s: could not post the failure notice: %s", team_id, refused.error)
    log.warning("team %s: digests on hold: %s", team_id, type(exc).__name__)
    return True


def tell_recovery(storage: Storage, team_id: str) -> bool:
    """The service works again for ``team_id``: the next failure is told afresh
    (blocking: on a database thread)."""
    return storage.notices.close(team_id, SERVICE_NOTICE)
