"""The approvals family's background jobs: settle what a stopped process left, then
expire what is overdue.

Every 15 seconds in every serving process (each step is claimed in the database, so
replicas never do it twice): requests a process was running when it died, or approved
and never claimed, are settled by asking the service (``recovery.recover``); pending
requests past their expiry are expired, their cards updated and their requesters told
(``ApprovalFlow.sweep``); the one-time secrets and prompt addresses a settled request
still holds are purged.  A team the bot cannot post in still has its requests settled
and expired (and audited); only its cards stay as they are.
"""

from __future__ import annotations

from commands.approvals.flow import PROMPT_URL_LIFETIME, ApprovalFlow
from commands.approvals.recovery import APPROVED_GRACE, recover
from commands.approvals.workflow import expire_due
from commands.kernel.jobs import Job, JobEnv
from storage import Approval
from storage.offload import off_loop

SWEEP_SECONDS = 15.0
PROBE = "approval_sweeper"


async def recover_abandoned(env: JobEnv) -> list[Approval]:
    """Settle every team's abandoned requests now; returns them."""
    storage = env.storage
    by_team: dict[str, list[Approval]] = {}
    for approval in await off_loop(storage.approvals.abandoned, approved_grace=APPROVED_GRACE):
        by_team.setdefault(approval.team_id, []).append(approval)
    settled: list[Approval] = []
    for team, abandoned in by_team.items():
        ctx = await env.team_context(team)
        if ctx is None:
            settled.extend(await recover(storage, abandoned, None, None))
        else:
            flow = ApprovalFlow(ctx)
            settled.extend(await recover(flow.storage, abandoned, ctx.cc, flow))
    return settled


async def expire_overdue(env: JobEnv) -> list[Approval]:
    """Expire every team's overdue requests now; returns them."""
    storage = env.storage
    expired: list[Approval] = []
    for team in await off_loop(storage.approvals.teams_with_pending):
        ctx = await env.team_context(team)
        if ctx is None:
            expired.extend(await off_loop(expire_due, storage, team))
            continue
        expired.extend(await ApprovalFlow(ctx).sweep())
    await off_loop(storage.approval_secrets.purge_settled, max_prompt_age=PROMPT_URL_LIFETIME)
    return expired


JOBS = (
    # At once on start, recovery first: what a previous process left behind is settled
    # before anything expires.
    Job(name="approvals.recover", run=recover_abandoned, every=SWEEP_SECONDS, probe=PROBE),
    Job(name="approvals.expire", run=expire_overdue, every=SWEEP_SECONDS, probe=PROBE),
)
