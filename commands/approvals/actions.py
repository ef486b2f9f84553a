"""The table of the actions the families declare, as the approval workflow reads it.

An approval stores only a kind and plain JSON parameters; after a restart, or in another
process, this table is what reads them back into the kind's typed parameters
(``ActionParams``) and turns those into words for the card (``describe``), into the one
service call that was approved (``execute``), and says what the kind takes by default
(``default_policy``).  The declarations themselves (``ActionSpec`` and what it names) are
in ``commands/kernel/actions.py``; each family lists its own in its ``FAMILY``, and
``commands/registry.py`` builds one ``ActionTable`` from the families the app was given.

The workflow's functions are called deep inside a request, a form or a background job, so the
table they read is the one in use in that task (``using``: set by the dispatcher and the
jobs runner from the app's own registry, never by importing a module); outside one,
``in_use`` fails loudly rather than guessing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from slack_sdk.models.blocks import ButtonElement

from commands.kernel.actions import ActionResult, ActionSpec, ExecutionEnv
from storage import Approval, ApprovalState, KindPolicy


class ActionTable:
    """Every declared action by kind; a kind declared twice is a mistake in a declaration
    and stops the app at once (as the catalog does for command words)."""

    def __init__(self, specs: Iterable[ActionSpec[Any]]) -> None:
        table: dict[str, ActionSpec[Any]] = {}
        for spec in specs:
            if str(spec.kind) in table:
                raise ValueError(f"the action {spec.kind} is declared twice")
            table[str(spec.kind)] = spec
        self._specs = table

    @property
    def kinds(self) -> tuple[str, ...]:
        """The declared kinds, in the families' order."""
        return tuple(self._specs)

    def spec_for(self, kind: str) -> ActionSpec[Any]:
        try:
            return self._specs[str(kind)]
        except KeyError:
            raise LookupError(f"no family of this app declares the action {kind}") from None

    def default_policies(self) -> dict[str, KindPolicy]:
        """What each kind takes by default, as its family declared it."""
        return {kind: spec.policy for kind, spec in self._specs.items()}


_IN_USE: ContextVar[ActionTable] = ContextVar("callops_actions")


@contextlib.contextmanager
def using(table: ActionTable) -> Iterator[ActionTable]:
    """Make ``table`` the one the workflow reads for the rest of the block (this task)."""
    token = _IN_USE.set(table)
    try:
        yield table
    finally:
        _IN_USE.reset(token)


def in_use() -> ActionTable:
    try:
        return _IN_USE.get()
    except LookupError:
        raise LookupError("no action table is in use: run inside the app's registry") from None


def spec_for(kind: str) -> ActionSpec[Any]:
    return in_use().spec_for(kind)


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
