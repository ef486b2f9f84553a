"""The list of families, and the tables the app reads from it.

A family (``commands/<package>/family.py``) declares its commands, actions, forms,
buttons, shortcuts and steps in one ``FAMILY``; nothing else registers them.  The
catalog (parser, help, dispatcher) reads the commands, in the help's groups; the
approval workflow reads ``ACTIONS``; the dispatcher, the bot and the manifest read
``INTERACTIONS``.  The catalog and the approval workflow are imported by the
families, so this module hands them their tables once, here.
"""

from __future__ import annotations

from dataclasses import replace

from commands.admin.family import FAMILY as ADMIN
from commands.approvals import actions
from commands.approvals.family import FAMILY as APPROVALS
from commands.approvals.interactions import form_route
from commands.calls.family import FAMILY as CALLS
from commands.campaigns.family import FAMILY as CAMPAIGNS
from commands.digests.family import FAMILY as DIGESTS
from commands.directory.family import FAMILY as DIRECTORY
from commands.kernel import catalog
from commands.kernel.family import Family
from commands.kernel.help import FAMILY as HELP
from commands.kernel.help import FAMILY_TITLES
from commands.kernel.interactions import Interactions
from commands.leads.family import FAMILY as LEADS
from commands.notifications.family import FAMILY as NOTIFICATIONS
from commands.privacy.family import FAMILY as PRIVACY
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
    PRIVACY,
)

catalog.use(
    sorted(
        (
            replace(spec, family=spec.family or family.name)
            for family in FAMILIES
            for spec in family.commands
        ),
        key=lambda spec: [*FAMILY_TITLES, spec.family].index(spec.family),
    )
)

actions.use(spec for family in FAMILIES for spec in family.actions)

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
