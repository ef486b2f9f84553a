"""One declaration per family: everything a domain package adds to the app.

Each package's ``family.py`` holds one ``FAMILY``; ``commands/families.py`` lists them,
and ``commands/registry.py`` builds from a list the tables the app reads (the catalog,
the action table, the routes), so no module registers anything when it is imported.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from slack_sdk.models.blocks import Block

from callcenter.models import Cdr
from commands.kernel.actions import ActionSpec
from commands.kernel.catalog import CommandSpec
from commands.kernel.feed import Feed
from commands.kernel.forms import Form
from commands.kernel.interactions import OnClick, OnShortcut, OnStep, OnSubmit
from commands.kernel.jobs import Job
from commands.kernel.scheduled import Digests
from storage import NotificationRoute, Role, Storage

if TYPE_CHECKING:
    from slack_sdk.models.views import View

    from commands.kernel.context import CommandContext

HomeRenderer = Callable[["CommandContext"], Awaitable["View"]]
"""What renders the App Home tab for the person in the context."""


RecordObserver = Callable[[Storage, str, Sequence[NotificationRoute], Cdr], object]
"""What a family does with each call record the service calls back to a team: given the
database, the team, the team's routes the record matches, and the record, on the
receiver's database thread (blocking), before the record is queued; a resend runs it
again, so what it writes must be written once (an opt-out, a record noted for the
rules)."""


@dataclass(frozen=True)
class Reveal:
    """How the app shows customers' numbers (the privacy family declares it): in full to
    ``role`` and above, masked to the rest; a post that shows them masked gets
    ``button(ref)``, which reveals them to whoever clicks and may see them."""

    role: Role
    button: Callable[[str], Block]


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
    jobs: tuple[Job, ...] = ()
    """Its background work (``commands/kernel/jobs.py``), each job run by every serving
    process or by the scheduler's one, as it says."""
    home: HomeRenderer | None = None
    """The App Home tab as it is now, for one person (the reports family's wallboard);
    one family of the app declares it, and ``PublishHome()`` shows it."""
    on_record: tuple[RecordObserver, ...] = ()
    """What it does with each call record the service calls back (the receiver runs the
    app's observers in the families' order)."""
    reveal: Reveal | None = None
    """How customers' numbers are shown (one family of the app declares it: bot/ reads
    the role and the button from the registry)."""
    feed: Feed | None = None
    """How call records called back are routed and shown in channels (one family of the
    app declares it: the call feed in bot/ reads it from the registry)."""
    digests: Digests | None = None
    """What a digest's schedule means and what its post says (one family of the app
    declares it: the digest scheduler and poster in bot/ read it from the registry)."""
