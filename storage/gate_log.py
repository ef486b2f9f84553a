"""The calling rules' decisions on advertising calls: what an inspector asks to see.

One row per decision the gate took for an advertising call (placed, refused, or a push
the service failed): when, the number, the campaign and its class, each rule's result,
and the request with who asked and who approved.  ``/callops compliance`` counts them
and exports them; nothing here decides anything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import insert, select

from storage._rows import Store
from storage.schema import audit_log, gate_decisions
from storage.validation import check_id

_G = gate_decisions.c
_A = audit_log.c
RULE_CHANGES = ("rules.hours", "rules.frequency")
"""The audit log's actions that may set a rule looser than the decree."""
LIMIT = 100_000
"""Decisions read for one period at most (a report, not a dump of the database)."""


@dataclass(frozen=True)
class GateDecision:
    at: float
    phone: str
    campaign_uuid: str
    campaign_name: str
    klass: str
    """``advertising`` or ``service``."""
    results: dict[str, str]
    """Each rule (``blacklist``, ``dnc``, ``hours``, ``frequency``) and its result."""
    outcome: str
    """``placed``, ``refused``, ``failed`` (the service answered it did not take the
    push) or ``unknown`` (the answer was lost: the call may have been placed)."""
    rule: str | None
    """The rule that refused it."""
    request_id: str | None
    requester: str | None
    approvers: tuple[str, ...]


class GateLogStore(Store):
    def record(
        self,
        team_id: str,
        *,
        phone: str,
        campaign_uuid: str,
        campaign_name: str,
        klass: str,
        results: Mapping[str, str],
        outcome: str,
        rule: str | None = None,
        request_id: str | None = None,
        requester: str | None = None,
        approvers: Sequence[str] = (),
    ) -> None:
        self._db.change(
            insert(gate_decisions),
            {
                "team_id": check_id(team_id, "team id"),
                "at": self._clock(),
                "phone": phone,
                "campaign_uuid": campaign_uuid,
                "campaign_name": campaign_name,
                "class": klass,
                "results": json.dumps(dict(results), sort_keys=True),
                "outcome": outcome,
                "rule": rule,
                "request_id": request_id,
                "requester": requester,
                "approvers": tuple(approvers),
            },
        )

    def between(self, team_id: str, since: float, until: float) -> list[GateDecision]:
        """The decisions in ``[since, until)``, oldest first."""
        query = (
            select(gate_decisions)
            .where(_G.team_id == team_id, _G.at >= since, _G.at < until)
            .order_by(_G.at, _G.id)
            .limit(LIMIT)
        )
        return [
            GateDecision(
                at=float(row["at"]),
                phone=str(row["phone"]),
                campaign_uuid=str(row["campaign_uuid"]),
                campaign_name=str(row["campaign_name"]),
                klass=str(row["class"]),
                results={str(k): str(v) for k, v in json.loads(row["results"]).items()},
                outcome=str(row["outcome"]),
                rule=row["rule"],
                request_id=row["request_id"],
                requester=row["requester"],
                approvers=tuple(row["approvers"] or ()),
            )
            for row in self._db.all(query)
        ]

    def rule_changes(self, team_id: str, since: float, until: float) -> list[RuleChange]:
        """The changes of the hours and the frequency in ``[since, until)``, oldest first,
        read from the audit log (who set what, and whether it was beyond the decree)."""
        query = (
            select(_A.at, _A.user_id, _A.action, _A.params)
            .where(
                _A.team_id == team_id,
                _A.action.in_(RULE_CHANGES),
                _A.at >= since,
                _A.at < until,
            )
            .order_by(_A.at, _A.id)
            .limit(LIMIT)
        )
        return [
            RuleChange(
                at=float(row["at"]),
                user_id=row["user_id"],
                action=str(row["action"]),
                params=dict(json.loads(row["params"] or "{}")),
            )
            for row in self._db.all(query)
        ]


@dataclass(frozen=True)
class RuleChange:
    at: float
    user_id: str | None
    action: str
    params: dict[str, object]

    @property
    def looser(self) -> bool:
        return bool(self.params.get("looser_than_decree"))
