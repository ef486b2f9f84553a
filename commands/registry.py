"""The tables one app reads, built from the list of families it is given.

``build_registry(FAMILIES)`` makes, from the families' declarations alone, the command
catalog (parser, help, dispatcher), the action table (the approval workflow), the routes
of every button, form, shortcut and workflow step (the dispatcher, the bot's listeners,
the manifest) and the background jobs (the bot's scheduler).  The app factory builds one
and hands it down (``bot.runtime.Runtime.build(families=...)``); nothing is filled in
when a module is imported, so two apps built from two lists answer two different sets of
commands side by side.

The handlers and the workflow read their app's tables where they are deep inside a
request (a usage line in the reader's words, the action a stored request names): the
dispatcher and the background workers put the registry in use for the task they run
(``Registry.using``), as the reader's language is put in use.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from commands.approvals import actions
from commands.approvals.actions import ActionTable
from commands.approvals.interactions import form_route
from commands.kernel import catalog
from commands.kernel.catalog import Catalog
from commands.kernel.family import Family, HomeRenderer, RecordObserver, Reveal
from commands.kernel.feed import Feed
from commands.kernel.help import FAMILY_TITLES
from commands.kernel.interactions import Interactions
from commands.kernel.jobs import Job
from commands.kernel.scheduled import Digests


@dataclass(frozen=True)
class Registry:
    families: tuple[Family, ...]
    catalog: Catalog
    actions: ActionTable
    interactions: Interactions
    jobs: tuple[Job, ...]
    """Every family's background jobs, in the families' order (``bot/jobs.py`` runs them)."""
    home: HomeRenderer | None
    """What the App Home tab shows (the one family that declares ``home``)."""
    on_record: tuple[RecordObserver, ...] = ()
    """What the families do with each call record called back, in their order
    (``bot/callbacks.py`` runs them)."""
    reveal: Reveal | None = None
    """Who sees customers' numbers in full and the button of a masked post (the one
    family that declares ``reveal``); None: nobody, and no button."""
    feed: Feed | None = None
    """How call records called back are routed and shown (the one family that declares
    ``feed``); None: records are taken and told nowhere."""
    digests: Digests | None = None
    """What digests' schedules mean and their posts say (the one family that declares
    ``digests``); None: no digest is scheduled or posted."""

    @contextlib.contextmanager
    def using(self) -> Iterator[Registry]:
        """This registry's catalog and action table are the ones the handlers and the
        approval workflow read for the rest of the block (this task, and the tasks it
        starts)."""
        with catalog.using(self.catalog), actions.using(self.actions):
            yield self


def build_registry(families: Iterable[Family]) -> Registry:
    """The app's tables from ``families``, in their order (the help groups the commands
    by ``FAMILY_TITLES``).  A command's words, an action's kind, or a second Home tab
    declared stops the app at once."""
    families = tuple(families)
    names = [family.name for family in families]
    if len(set(names)) != len(names):
        raise ValueError(f"a family is listed twice: {names}")
    specs = [
        replace(spec, family=spec.family or family.name)
        for family in families
        for spec in family.commands
    ]
    groups = list(FAMILY_TITLES)
    jobs = tuple(job for family in families for job in family.jobs)
    if len({job.name for job in jobs}) != len(jobs):
        raise ValueError(f"a background job is declared twice: {[job.name for job in jobs]}")
    homes = [family.home for family in families if family.home is not None]
    if len(homes) > 1:
        raise ValueError("more than one family declares the App Home tab")
    reveals = [family.reveal for family in families if family.reveal is not None]
    if len(reveals) > 1:
        raise ValueError("more than one family declares how customers' numbers are shown")
    feeds = [family.feed for family in families if family.feed is not None]
    if len(feeds) > 1:
        raise ValueError("more than one family declares how call records are told")
    digests = [family.digests for family in families if family.digests is not None]
    if len(digests) > 1:
        raise ValueError("more than one family declares the digests")
    return Registry(
        families=families,
        catalog=Catalog(
            sorted(
                specs, key=lambda s: groups.index(s.family) if s.family in groups else len(groups)
            )
        ),
        actions=ActionTable(spec for family in families for spec in family.actions),
        interactions=Interactions(
            clicks=tuple(route for family in families for route in family.clicks),
            submissions=tuple(
                route
                for family in families
                for route in (*family.submissions, *(form_route(f) for f in family.forms))
            ),
            shortcuts=tuple(route for family in families for route in family.shortcuts),
            steps=tuple(route for family in families for route in family.steps),
        ),
        jobs=jobs,
        home=homes[0] if homes else None,
        on_record=tuple(observer for family in families for observer in family.on_record),
        reveal=reveals[0] if reveals else None,
        feed=feeds[0] if feeds else None,
        digests=digests[0] if digests else None,
    )
