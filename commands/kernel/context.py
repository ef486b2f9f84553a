"""What every command handler is given: who asked, where, with which role, and the ports.

Built by ``bot/`` for each request; handlers never look anything up in Slack or the
database themselves, which keeps them testable against the emulator alone.  The ports
every family uses (the database, Slack's look-ups, files and messages) are required
fields, so no handler checks for them; what the process holds once for a few families
(the digest poster, the service's addresses, the public URL, whether it is stopping)
is one shared ``AppPorts`` (``ctx.app``).  Only the call-center client may be missing:
a workspace may not be connected yet, which the dispatcher answers before a handler
that needs the service runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from slack_sdk.models.views import View

from callcenter import CallCenter
from callcenter.addresses import ServiceAddresses
from commands.kernel.i18n import Audience
from commands.kernel.reply import Reply
from commands.kernel.slack_files import SlackFiles
from storage import Outcome, Role, Storage, Workspace
from storage.offload import off_loop


@dataclass(frozen=True, kw_only=True)
class SlackChannel:
    """A channel as Slack describes it to the bot: enough to say whether posting can work."""

    id: str
    name: str
    is_member: bool
    """Whether the bot is in the channel (``chat.postMessage`` fails with
    ``not_in_channel`` otherwise)."""


class SlackLookup(Protocol):
    """Read-only Slack look-ups a command may need, answered by ``bot/`` with the Web API."""

    async def channel(self, ref: str) -> SlackChannel | None:
        """The channel with this id (``C123``) or name (``call-center``); None if unknown."""
        ...

    async def permalink(self, channel: str, ts: str) -> str | None:
        """The address of a message (``chat.getPermalink``); None when Slack has none
        (the message was deleted)."""
        ...


@dataclass(frozen=True)
class Posted:
    """Where a message went: enough to update it or thread under it later."""

    channel: str
    ts: str


@dataclass(frozen=True)
class StepExecution:
    """A workflow step run to complete later: its id and its just-in-time bot token."""

    function_execution_id: str
    token: str = field(repr=False)


class Messenger(Protocol):
    """The Slack messages sent besides an answer: what an ``Outcome`` names (a note in a
    thread, a DM, the App Home tab) and the approval flow's cards, sent by ``bot/``
    through its one outbox.  Failures are logged there and reported as
    ``None``/``False``: a message Slack refuses never breaks the action that wanted to
    send it."""

    async def post(
        self, channel: str, reply: Reply, *, thread_ts: str | None = None
    ) -> Posted | None:
        """Post in a channel (or a thread); the message's address, or None if refused."""
        ...

    async def update(self, channel: str, ts: str, reply: Reply) -> bool:
        """Rewrite a message the bot posted."""
        ...

    async def tell(self, user: str, channel: str | None, reply: Reply) -> None:
        """An ephemeral message in ``channel``, else (no channel, bot not in it) a DM."""
        ...

    async def rewrite(self, response_url: str, reply: Reply) -> bool:
        """Replace the message a ``response_url`` belongs to (an ephemeral prompt, which
        the Web API cannot update); False when Slack refused (the address expired or was
        used up)."""
        ...

    async def open_view(self, trigger_id: str, view: View) -> str | None:
        """Open a modal; its view id, or None when Slack refused (the trigger id lives
        3 seconds)."""
        ...

    async def update_view(self, view_id: str, view: View) -> bool:
        """Replace an open modal."""
        ...

    async def complete_step(
        self, execution: StepExecution, outputs: dict[str, Any] | None, *, error: str | None
    ) -> bool:
        """Tell Slack a workflow step finished (``outputs``) or failed (``error``), with
        the run's own just-in-time token; False when Slack refused (the run was already
        completed, or is gone)."""
        ...

    async def publish_home(self, user: str, view: View) -> bool:
        """Publish the person's App Home tab."""
        ...


class DigestActions(Protocol):
    """What the digest commands need from ``bot/``: a post now, and a nudge on changes."""

    async def post_now(
        self,
        team_id: str,
        digest_id: str,
        *,
        at: datetime,
        up_to_now: bool = False,
        asked_by: str | None = None,
    ) -> str:
        """Build and post the digest as of ``at``: its latest complete period, or (with
        ``up_to_now``) from its latest slot up to ``at``; returns the channel id.  The
        period is ``commands.digests.manage.run_request`` of the same arguments.
        Raises ``callcenter.errors.CallCenterError`` when the service fails, and
        ``DigestPostError`` when Slack refuses the post."""
        ...


class DigestPostError(Exception):
    """Slack refused a digest post; the message says why in words for people."""


@dataclass(frozen=True, kw_only=True)
class AppPorts:
    """What the process holds once and only a few families use: made by ``bot/`` when
    it starts, given unchanged to every request (``ctx.app``), so no handler checks
    whether it is there."""

    digests: DigestActions
    """Posting a digest now (``digest run``, the digests family); the scheduler reads the
    schedules from the database on every tick, so a change needs no telling."""
    addresses: ServiceAddresses
    """Where the call-center service may be, with the resolver that reads its names
    (``callcenter.addresses``): the connect form checks a new address against it."""
    public_url: str | None
    """The app's own public base URL (``CALLOPS_PUBLIC_URL``), for the callback URL the
    notifications family gives the service; None when not configured."""
    stopping: Callable[[], bool]
    """Whether this process is stopping (SIGTERM): work that could be cut off before
    its outcome is known (running an approved action) is not started then."""


@dataclass(kw_only=True)
class CommandContext:
    """One request: who asks, where, with which role, and the ports every family uses.

    The ports (``storage``, ``slack``, ``files``, ``messenger``, ``app``) are always
    there, so handlers use them without checking; ``cc`` alone may be missing, because
    a workspace may not be connected yet, and the dispatcher answers that before any
    handler that needs the service runs (handlers ask ``client()``)."""

    team_id: str
    user_id: str
    channel_id: str | None
    """Where the request came from; None for a workflow run or background work."""
    role: Role
    tz: ZoneInfo
    """The workspace's time zone."""
    storage: Storage
    """The app's database (settings, rules, approvals, the audit log)."""
    slack: SlackLookup
    """Channel look-ups (is the bot in that channel?) and permalinks."""
    files: SlackFiles
    """Files shared in Slack (a CSV to read) and files sent to people."""
    messenger: Messenger
    """Messages besides the answer (cards, thread notes, App Home, modals)."""
    app: AppPorts
    """What the process holds once, for the few families that use it."""
    cc: CallCenter | None = None
    """``None`` when the workspace is not connected; handlers that need it ask ``client()``."""
    workspace: Workspace | None = None
    """The stored connection, when there is one (single-workspace mode may have none)."""
    base_url: str | None = None
    """Where the service is, for ``status``; never the key."""
    offset: int = 0
    """Where a paged listing starts; set when someone clicks Next or Previous."""
    audience: Audience = field(default_factory=Audience)
    """Who reads the answer: the person's language (their choice, else their Slack
    locale, else the workspace's) and the workspace's name order; ``bot/`` runs the
    handler and its delivery inside ``use_audience(audience)``."""
    channel_audience: Audience = field(default_factory=Audience)
    """Who reads what is posted to a channel (an approval card, a notice): the
    workspace's language and name order, numbers masked if the workspace asks."""
    slack_locale: str | None = None
    """The person's Slack locale, as Slack last said it (None: not known yet)."""
    slack_tz: str | None = None
    """The person's Slack time zone, as Slack last said it (None: not known yet)."""
    response_url: str | None = None
    """The typed command's own ``response_url``: for an answer said in steps (a note that
    a long count is under way, then the answer in its place); None for clicks and forms."""

    def at(self, offset: int) -> CommandContext:
        """The same request, showing a listing from ``offset`` (a Next/Previous click)."""
        return replace(self, offset=max(0, offset))

    def client(self) -> CallCenter:
        if self.cc is None:
            raise NotConnectedError
        return self.cc

    async def audit(
        self,
        action: str,
        params: Mapping[str, Any],
        *,
        outcome: str = Outcome.OK,
        detail: str | None = None,
    ) -> None:
        """Record in the audit log what the person asking did."""
        await off_loop(
            self.storage.audit.append,
            self.team_id,
            self.user_id,
            action,
            params,
            outcome=outcome,
            detail=detail,
        )


class NotConnectedError(Exception):
    """The workspace has no call-center connection yet."""
