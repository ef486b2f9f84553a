"""The list of families, and the tables the app reads from it.

A family (``commands/<package>/family.py``) declares its commands, actions, forms,
buttons, shortcuts and steps in one ``FAMILY``; nothing else registers them.  The
dispatcher reads ``HANDLERS`` and ``INTERACTIONS``, the approval workflow ``ACTIONS``,
and the bot and the manifest ``INTERACTIONS``.
"""

from __future__ import annotations

from typing import Any

from commands.admin.family import FAMILY as ADMIN
from commands.approvals import actions
from commands.approvals.actions import ActionSpec
from commands.approvals.family import FAMILY as APPROVALS
from commands.approvals.interactions import form_route
from commands.approvals.kinds import ActionKind
from commands.calls.family import FAMILY as CALLS
from commands.campaigns.family import FAMILY as CAMPAIGNS
from commands.digests.family import FAMILY as DIGESTS
from commands.directory.family import FAMILY as DIRECTORY
from commands.kernel.family import Family, Handler
from commands.kernel.help import FAMILY as HELP
from commands.kernel.interactions import Interactions
from commands.leads.family import FAMILY as LEADS
from commands.notifications.family import FAMILY as NOTIFICATIONS
from commands.reports.family import FAMILY as REPORTS
from commands.rules.family import FAMILY as RULES

FAMILIES: tuple[Family, ...] = (
    HELP,
    ADMIN,
    APPROVALS,
    CAMPAIGNS,
    REPORTS,
    CALLS,
    LEADS,
    DIRECTORY,
    DIGESTS,
    NOTIFICATIONS,
    RULES,
)

HANDLERS: dict[str, Handler] = {
    name: handler for family in FAMILIES for name, handler in family.commands.items()
}
"""Commands that work today; the rest of the catalog answers that it is coming."""

ACTIONS: dict[str, ActionSpec[Any]] = {
    ActionKind(spec.kind): spec for family in FAMILIES for spec in family.actions
}

INTERACTIONS = Interactions(
    clicks=tuple(route for family in FAMILIES for route in family.clicks),
    submissions=tuple(
        route
        for family in FAMILIES
        for route in (*family.submissions, *(form_route(form) for form in family.forms))
    ),
    shortcuts=tuple(route for family in FAMILIES for route in family.shortcuts),
    steps=tuple(route for family in FAMILIES for route in family.steps),
)
"""Every button, form, shortcut and workflow step the app answers."""

actions.ACTIONS.update(ACTIONS)  # the approval workflow's table (it cannot import this)
