"""One declaration per family: everything a domain package adds to the app.

Each package (``commands/campaigns``, ``commands/calls``...) has a ``family.py`` with one
``FAMILY``: its typed commands (``CommandSpec``: words, Vietnamese alias, usage, summary,
role, help group and handler), the actions it may ask for
(each ``ActionSpec`` carries its describer, executor and observer), the forms that end in
one of those actions, and its buttons, other forms, shortcuts and workflow steps.
``commands/families.py`` lists the families; the dispatcher, the approval workflow, the
manifest and the bot read that list and nothing else, so no module registers anything
when it is imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from commands.approvals.actions import ActionSpec
from commands.kernel.catalog import CommandSpec
from commands.kernel.forms import Form
from commands.kernel.interactions import OnClick, OnShortcut, OnStep, OnSubmit


@dataclass(frozen=True)
class Family:
    name: str
    commands: tuple[CommandSpec, ...] = ()
    """Its ``/callops`` commands, each with its handler, in the help's order."""
    actions: tuple[ActionSpec[Any], ...] = ()
    """The kinds of request this family may open, with what runs them."""
    forms: tuple[Form, ...] = ()
    """Modals whose submission is the requester's confirm of one of ``actions``."""
    clicks: tuple[OnClick, ...] = ()
    submissions: tuple[OnSubmit, ...] = ()
    """Modals answered by the family's own handler (not a request)."""
    shortcuts: tuple[OnShortcut, ...] = ()
    steps: tuple[OnStep, ...] = ()
