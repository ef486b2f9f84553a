"""One declaration per family: everything a domain package adds to the app.

Each package's ``family.py`` holds one ``FAMILY``; ``commands/families.py`` lists them,
and the catalog, the dispatcher, the approval workflow, the manifest and the bot read
that list, so no module registers anything when it is imported.
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
    """Also the help's group of its commands, unless a ``CommandSpec`` names another."""
    commands: tuple[CommandSpec, ...] = ()
    """Its ``/callops`` commands, each with its handler, in the help's order."""
    actions: tuple[ActionSpec[Any], ...] = ()
    """The kinds of request it may open, with what describes, runs and observes them."""
    forms: tuple[Form, ...] = ()
    """Modals whose submission is the requester's confirm of one of ``actions``."""
    clicks: tuple[OnClick, ...] = ()
    submissions: tuple[OnSubmit, ...] = ()
    """Modals answered by the family's own handler (not a request)."""
    shortcuts: tuple[OnShortcut, ...] = ()
    steps: tuple[OnStep, ...] = ()
