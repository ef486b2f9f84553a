"""One notice to the admins of a workspace that still shows customers' numbers in full.

A workspace created from now on masks customers' numbers in channels; one created before
keeps the setting it had, so nothing changes under its people's feet.  Its admins are
told once, by direct message, what changed and how to mask their numbers too.  Once is
a row in ``workspace_notices`` (``storage.notices``): opened by the first scheduler that
gets there, in any process, and opened as well when an admin sets ``mask-phones``
either way (they have chosen; nothing to tell).  It is the family's job
``privacy.notice`` (``JOB``), run once a minute where the scheduler runs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from commands.kernel.audiences import for_person
from commands.kernel.i18n import _, use_audience
from commands.kernel.jobs import SCHEDULER, Job, JobEnv, JobOutbox, SlackRefused
from commands.kernel.reply import Reply, section
from commands.privacy.overview import MASKING_NOTICE, typed
from storage import Role, Storage, off_loop

log = logging.getLogger(__name__)


def _unmasked_without_notice(storage: Storage) -> list[str]:
    """Teams that show numbers in full and whose admins were not told (blocking)."""
    return [
        w.team_id
        for w in storage.workspaces.list()
        if not w.mask_phones and storage.notices.get(w.team_id, MASKING_NOTICE) is None
    ]


def notice_reply() -> Reply:
    body = _(
        ":shield: *Customers' numbers in your channels*\n"
        "Customers' phone numbers are personal data under Vietnam's Personal Data "
        "Protection Law (Law 91/2025/QH15), and Slack keeps messages outside Vietnam. "
        "callops now masks them (0912 *** 678) in every message it posts to a channel in "
        "new workspaces; the company's own numbers stay whole, and operators and admins "
        "can still see a number with the message's Show number button (audited).\n"
        "This workspace was set up before, so it keeps showing them in full. To mask them: "
        "{command}. {overview} shows what callops holds and where it goes."
    ).format(command=typed("settings mask-phones on"), overview=typed("privacy"))
    return Reply(text=_("Customers' numbers in your channels"), blocks=[section(body)])


async def _admins(
    storage: Storage, outbox: JobOutbox, team_id: str, env: Iterable[str]
) -> list[str]:
    stored = await off_loop(storage.roles.list_roles, team_id)
    people = {user for user, role in stored.items() if role is Role.ADMIN and user[:1] in "UW"}
    people.update(env)
    if await outbox.reachable(team_id):
        try:
            people.update(await outbox.workspace_admins(team_id))
        except SlackRefused as exc:
            log.info("users.list for the masking notice: %s", exc.error)
    return sorted(p for p in people if p)


async def tell_unmasked_workspaces(env: JobEnv) -> int:
    """Tell the admins of each workspace that still shows numbers in full, once; returns
    how many workspaces were told now."""
    storage, outbox = env.storage, env.outbox
    told = 0
    for team_id in await off_loop(_unmasked_without_notice, storage):
        if not await off_loop(storage.notices.open, team_id, MASKING_NOTICE):
            continue  # another process got there first
        if not await outbox.reachable(team_id):
            continue
        workspace = await off_loop(storage.workspaces.get, team_id)
        for admin in await _admins(storage, outbox, team_id, env.admins):
            person = await off_loop(storage.people.get, team_id, admin)
            with use_audience(for_person(person, workspace)):
                reply = notice_reply()
            try:
                await outbox.post(team_id, admin, reply)
            except SlackRefused as exc:
                log.info("masking notice to an admin: %s", exc.error)
        told += 1
    return told


JOB = Job(
    name="privacy.notice",
    run=tell_unmasked_workspaces,
    every=60.0,
    probe="scheduler",
    where=SCHEDULER,
)
