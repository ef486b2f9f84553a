"""The gate's decisions on advertising calls, kept as evidence.

Every advertising call the calling rules decided on (placed, refused, or a push the
service did not take) is written to the gate's log with each rule's result and the
request behind it; ``/callops compliance`` reads it back.  Service calls are not kept:
the decree's rules do not hold for them.
"""

from __future__ import annotations

from dataclasses import dataclass

from commands.rules.guard import Decision
from storage import Storage
from storage.offload import off_loop


@dataclass(frozen=True)
class Evidence:
    """The request behind a decision: its id, who asked, who approved."""

    request_id: str | None = None
    requester: str | None = None
    approvers: tuple[str, ...] = ()


async def log_decision(
    storage: Storage, team_id: str, decision: Decision, outcome: str, evidence: Evidence
) -> None:
    """Keep one advertising decision (``placed``, ``refused`` or ``failed``)."""
    if not decision.advertising:
        return
    await off_loop(
        storage.gate_log.record,
        team_id,
        phone=decision.phone,
        campaign_uuid=decision.campaign.campaign_uuid,
        campaign_name=decision.campaign.campaign_name,
        klass=decision.klass,
        results=decision.results,
        outcome=outcome,
        rule=decision.refusal.rule if decision.refusal else None,
        request_id=evidence.request_id,
        requester=evidence.requester,
        approvers=evidence.approvers,
    )
