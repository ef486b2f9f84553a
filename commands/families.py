"""The families of the app, in the help's order.

A family (``commands/<package>/family.py``) declares its commands, actions, forms,
buttons, shortcuts, steps and background jobs in one ``FAMILY``; this list is what the
app factory is given by default (``bot.runtime.Runtime.build(families=FAMILIES)``), and
``commands/registry.py`` builds every table the app reads from it.  Importing this
module registers nothing.
"""

from __future__ import annotations

from commands.admin.family import FAMILY as ADMIN
from commands.approvals.family import FAMILY as APPROVALS
from commands.calls.family import FAMILY as CALLS
from commands.campaigns.family import FAMILY as CAMPAIGNS
from commands.digests.family import FAMILY as DIGESTS
from commands.directory.family import FAMILY as DIRECTORY
from commands.kernel.family import Family
from commands.kernel.help import FAMILY as HELP
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
