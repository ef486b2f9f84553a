"""What a family declares about an action, and what the approval workflow hands back.

Everything a family writes to add an action is here, in the kernel, so that neither the
kernel nor a family needs the approvals package to declare one: the parameters model
(``ActionParams``, one subclass per kind, next to its executor), what a command or form
asks for (``Proposal``), the declaration itself (``ActionSpec``: kind, default policy,
describer, executor, observer), what an executor may use (``ExecutionEnv``) and returns
(``ActionResult``, or ``ActionRefused``), and what an observer says (``Observation``).
The approvals package reads these declarations (``commands/approvals/actions.py``,
``ActionTable``), turns a proposal into a request and runs it.

An executor re-checks what may have changed since the request (the campaign still exists,
the call is still live) and raises ``ActionRefused`` before sending anything when it no
longer makes sense.  It makes its effectful call once: the client never retries those,
and nothing in the workflow does either.  When the process running an approved action
dies, recovery never runs it again: it asks the kind's observer (``observe=``), which only
reads the service; kinds without one end as "unknown: check before retrying".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer
from slack_sdk.models.blocks import ButtonElement

from callcenter import CallCenter
from commands.kernel.context import CommandContext
from commands.kernel.errors import MessageError
from commands.kernel.i18n import N_
from commands.kernel.slack_files import SlackFiles
from storage import Approval, KindPolicy, Mode, Role, Storage

APPROVAL = KindPolicy(Mode.APPROVAL)
"""The default of anything that makes calls or changes who or what dials: one approval
by an admin who is not the requester (DESIGN.md)."""
CONFIRM = KindPolicy(Mode.CONFIRM)
"""The default of what only stops dialing or is time-critical: the requester's confirm."""
NO_CONFIRM = KindPolicy(Mode.NONE)
"""Runs at once (nothing on the phone system changes)."""
ADMIN_APPROVAL = KindPolicy(Mode.APPROVAL, min_role=Role.ADMIN)
"""What cannot be undone: an admin asks, another admin approves."""


class ActionParams(BaseModel):
    """The parameters of one kind of action, as a typed model next to its executor.

    Storage keeps them as plain JSON (``to_json``), hashed as they are, and the registry
    reads them back with ``ActionSpec.read``.  Unknown keys are ignored on reading, so an
    approval stored by an earlier version still renders and runs.  A field listed in
    ``OMIT_WHEN_NONE`` is left out of the JSON when it is ``None``, exactly as the kinds
    stored their optional parameters before they were typed: the same parameters give
    the same JSON, hence the same hash, and approvals already asked for stay valid."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset()
    SECRET_FIELDS: ClassVar[frozenset[str]] = frozenset()
    """Fields sent once to the service and kept nowhere else (a password): left out of the
    stored JSON, hence of the hash, the card and the audit log; ``secret_json`` hands them
    to the workflow, which holds them encrypted apart until the approved call is made
    (``storage.approval_secrets``) and wipes them once the request is settled."""

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in self.OMIT_WHEN_NONE:
            if data.get(name) is None:
                data.pop(name, None)
        return data

    def to_json(self) -> dict[str, Any]:
        """The plain JSON stored with the approval (never a secret field)."""
        return self.model_dump(mode="json", exclude=set(self.SECRET_FIELDS))

    def secret_json(self) -> dict[str, Any]:
        """The secret fields that were given (empty when the kind has none)."""
        data = self.model_dump(mode="json", include=set(self.SECRET_FIELDS))
        return {k: v for k, v in data.items() if v not in (None, "")}


@dataclass(frozen=True)
class Proposal:
    """An action a command wants to run: its kind and the exact parameters (the model
    that kind declared; ``open_request`` refuses another)."""

    kind: str
    """The ``ActionSpec.kind`` of the family that declares it (``"campaign.start"``)."""
    params: ActionParams
    prompt_note: str | None = None
    """Escaped mrkdwn for the requester's prompt only, not the card: what else they
    could ask for instead (``notify rotate only``)."""


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


class ActionRefused(MessageError):
    """Re-validation at execution failed; nothing was sent.  ``message`` is plain text."""


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
    """Its name, stored with each request: ``"campaign.start"`` (a constant next to the
    executor, which the command's ``Proposal`` names too)."""
    policy: KindPolicy
    """What it takes by default before it runs (``APPROVAL``, ``CONFIRM``, ``NO_CONFIRM``,
    ``ADMIN_APPROVAL``); an admin may change it per workspace (``policy set``)."""
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
