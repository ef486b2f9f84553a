"""The actions that change the phone system, one entry per ``ActionKind``.

An approval stores only a kind and plain JSON parameters; after a restart, or in another
process, this table is what reads them back into the kind's typed parameters
(``ActionParams``, a model defined next to each executor) and turns those into words for
the card (``describe``) and into the one service call that was approved (``execute``).
Each family declares its ``ActionSpec``s in its ``FAMILY``; ``commands/families.py``
puts them in ``ACTIONS``, the one table read here.

An executor re-checks what may have changed since the request (the campaign still exists,
the call is still live) and raises ``ActionRefused`` before sending anything when it no
longer makes sense.  It makes its effectful call once: the client never retries those,
and nothing here does either.

When the process running an approved action dies (``kill -9``, a crash, a lost host) the
request stays ``executing`` and nobody knows whether the service got the call.  Recovery
(``commands.approvals.recovery``) never runs it again: it asks the service.  Where the
service can be read for the effect (a campaign's status, its callback URL) the action's
``ActionSpec`` has an *observer* (``observe=``); it only reads the service, never sends
anything that changes it, and says whether the effect is in place.  Kinds without one
(an autocall push, a transfer, a lead insert: nothing to look them up by) end as
"unknown: check before retrying".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import ButtonElement

from callcenter import CallCenter
from commands.kernel.context import CommandContext
from commands.kernel.i18n import N_
from commands.kernel.proposal import ActionParams
from commands.kernel.slack_files import SlackFiles
from storage import Approval, ApprovalState, Storage


@dataclass(frozen=True)
class Observation:
    """What the service shows now about one request's effect."""

    done: bool
    """True: the effect is in place; False: it is not (asking again is safe)."""
    text: str
    """One or two lines of escaped mrkdwn for the card."""
    data: dict[str, Any] = field(default_factory=dict)


Observer = Callable[[Mapping[str, Any], CallCenter], Awaitable[Observation]]


@dataclass(frozen=True, kw_only=True)
class ActionResult:
    """What one execution did, for the card and the approval record."""

    ok: bool
    text: str
    """One or two lines of escaped mrkdwn: what happened, in plain words."""
    data: dict[str, Any] = field(default_factory=dict)
    """Plain JSON facts kept with the approval (``call_id``, ``lead_uuid``...)."""
    announce: str | None = None
    """Escaped mrkdwn to post in the approvals channel as well (the emergency brake)."""


class ActionRefused(Exception):
    """Re-validation at execution failed; nothing was sent.  ``message`` is plain text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class ExecutionEnv:
    """What an executor may use: the workspace's service client, Slack's files (to
    download again a CSV that was approved by its checksum), and, for the actions that
    change the app's own settings as well (a new callback URL), its database, the team
    and the app's public address."""

    cc: CallCenter
    files: SlackFiles | None = None
    storage: Storage | None = None
    team_id: str = ""
    public_url: str | None = None
    tz: ZoneInfo = field(default_factory=lambda: ZoneInfo("UTC"))
    """The workspace's zone, for what the result says (the calling rules read Vietnam's
    clock whatever it is)."""
    request_id: str | None = None
    requester: str | None = None
    approvers: tuple[str, ...] = ()
    """The request being run, who asked and who decided (the calling rules' evidence)."""


def execution_env(ctx: CommandContext) -> ExecutionEnv | None:
    """What the executors of this request's workspace may use; None when the workspace is
    not connected to the service."""
    if ctx.cc is None:
        return None
    return ExecutionEnv(
        cc=ctx.cc,
        files=ctx.files,
        storage=ctx.storage,
        team_id=ctx.team_id,
        public_url=ctx.app.public_url,
        tz=ctx.tz,
    )


P = TypeVar("P", bound=ActionParams)


@dataclass(frozen=True, kw_only=True)
class ActionSpec(Generic[P]):
    kind: str
    """One of ``ActionKind`` (``kinds.py``, where its default policy is)."""
    title: str
    """Card header: ``Start campaign`` (marked with ``N_``, shown with ``_``)."""
    confirm_label: str
    """The requester's button: ``Start``, ``Transfer``, ``Upload leads`` (marked with
    ``N_``, shown with ``_``)."""
    params: type[P]
    """The model of this kind's parameters."""
    describe: Callable[[P], str]
    """Escaped mrkdwn saying exactly what will happen, from the parameters."""
    execute: Callable[[P, ExecutionEnv], Awaitable[ActionResult]]
    unknown_outcome: str = N_("it may or may not have been done")
    """Plain words for when the service's answer was lost after sending: the action may
    or may not have happened (``describe_failure``'s ``effect``; marked with ``N_``,
    translated where it is used)."""
    follow_ups: Callable[[Approval], list[ButtonElement]] | None = None
    """Buttons a done request's card offers to go on from what it made (open the lead,
    find the call's record), from its stored parameters and result."""
    observe: Observer | None = None
    """Reads the service to tell whether an interrupted run took effect; None when the
    effect cannot be looked up."""

    def read(self, stored: Mapping[str, Any], secret: Mapping[str, Any] | None = None) -> P:
        """The stored JSON (and, for the execution, the request's secret fields) as this
        kind's parameters (``pydantic.ValidationError`` if they do not fit)."""
        return self.params.model_validate({**stored, **(secret or {})})


ACTIONS: dict[str, ActionSpec[Any]] = {}
"""Every declared action by kind; filled once, from the families, by
``commands/families.py`` (the approval workflow cannot import the families: they import
it)."""


def use(specs: Iterable[ActionSpec[Any]]) -> None:
    """Make ``specs`` the action table; a kind declared twice is a mistake in a
    declaration and stops the app at once (as ``catalog.use`` does for command words)."""
    table: dict[str, ActionSpec[Any]] = {}
    for spec in specs:
        if str(spec.kind) in table:
            raise ValueError(f"the action {spec.kind} is declared twice")
        table[str(spec.kind)] = spec
    ACTIONS.clear()
    ACTIONS.update(table)


def spec_for(kind: str) -> ActionSpec[Any]:
    try:
        return ACTIONS[str(kind)]
    except KeyError:
        raise LookupError(f"no family in commands.families declares {kind}") from None


def describe(kind: str, params: Mapping[str, Any]) -> str:
    """What the stored ``params`` of ``kind`` will do, in words for the card."""
    spec = spec_for(kind)
    return spec.describe(spec.read(params))


async def execute(
    kind: str,
    params: Mapping[str, Any],
    env: ExecutionEnv,
    *,
    secret: Mapping[str, Any] | None = None,
) -> ActionResult:
    """Perform one approved action; returns what to show.  ``secret``: the fields held
    apart from the stored parameters (``ActionParams.SECRET_FIELDS``)."""
    spec = spec_for(kind)
    return await spec.execute(spec.read(params, secret), env)


def follow_up_buttons(approval: Approval) -> list[ButtonElement]:
    """What a done request's card offers next (nothing for a kind that declares none)."""
    spec = spec_for(approval.kind)
    if approval.state is not ApprovalState.DONE or spec.follow_ups is None:
        return []
    return spec.follow_ups(approval)[:5]
