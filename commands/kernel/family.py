"""One declaration per family: everything a domain package adds to the app.

Each package (``commands/campaigns``, ``commands/calls``...) has a ``family.py`` with one
``FAMILY``: its typed commands (catalog name -> handler; the usage line, alias and role
are the command's ``CommandSpec`` in ``kernel/catalog.py``), the actions it may ask for
(each ``ActionSpec`` carries its describer, executor and observer), the forms that end in
one of those actions, and its buttons, other forms, shortcuts and workflow steps.
``commands/families.py`` lists the families; the dispatcher, the approval workflow, the
manifest and the bot read that list and nothing else, so no module registers anything
when it is imported.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from commands.approvals.actions import ActionSpec
from commands.kernel.context import CommandContext
from commands.kernel.forms import Form
from commands.kernel.interactions import OnClick, OnShortcut, OnStep, OnSubmit
from commands.kernel.reply import Outcome

Handler = Callable[[CommandContext, list[str]], Awaitable[Outcome]]
"""A typed command: the words after the command's own, to what to show."""


@dataclass(frozen=True)
class Family:
    name: str
    commands: Mapping[str, Handler] = field(default_factory=dict)
    """Catalog name -> handler (``"pause all": pause_all``)."""
    actions: tuple[ActionSpec[Any], ...] = ()
    """The kinds of request this family may open, with what runs them."""
    forms: tuple[Form, ...] = ()
    """Modals whose submission is the requester's confirm of one of ``actions``."""
    clicks: tuple[OnClick, ...] = ()
    submissions: tuple[OnSubmit, ...] = ()
    """Modals answered by the family's own handler (not a request)."""
    shortcuts: tuple[OnShortcut, ...] = ()
    steps: tuple[OnStep, ...] = ()
