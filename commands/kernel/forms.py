"""Modals that end in an action request: how their submissions are read and checked.

A submission is answered in two steps because Slack waits only 3 seconds for the ack:
``check`` runs first, locally and fast, and its messages go back on the fields
(``response_action: errors``); a form may add ``verify``, which asks the service for
what only it knows (is this extension anybody's?) within a deadline well inside those
3 seconds, its messages going on the fields too; after the ack, ``build`` may ask the
service (is the number blacklisted? is the call still live?) and turns the values into a
``Proposal``, or a ``Reply`` saying why not.  Submitting the form is the requester's confirm: it
showed exactly what will happen and its button says so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from commands.kernel.actions import Proposal
from commands.kernel.context import CommandContext
from commands.kernel.interactions import FormValues, Meta
from commands.kernel.reply import Reply
from storage import Role

Check = Callable[[FormValues, Meta], dict[str, str]]
Build = Callable[[CommandContext, FormValues, Meta], Awaitable[Proposal | Reply]]
Verify = Callable[[CommandContext, FormValues, Meta], Awaitable[dict[str, str]]]


@dataclass(frozen=True)
class Form:
    callback_id: str
    check: Check
    build: Build
    role: Role = Role.OPERATOR
    """The least role that may submit it (as the command that opened it)."""
    verify: Verify | None = None
    """Run after ``check`` passed and before the ack; must answer within ~2 seconds."""


def text(values: FormValues, block: str) -> str:
    value = values.get(block)
    return str(value).strip() if isinstance(value, str) else ""
