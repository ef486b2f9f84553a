"""The approvals family: the requester's Confirm / Withdraw and the card's Approve / Deny.

Approvers need no fixed role here: the policy says who may decide each request, and
``decide``/``may_decide`` check it (with an audited refusal)."""

from __future__ import annotations

from commands.approvals import interactions as approval
from commands.approvals import sweep, workflow
from commands.kernel.family import Family
from commands.kernel.interactions import OnClick, OnSubmit
from storage import Role

FAMILY = Family(
    "approvals",
    clicks=(
        OnClick(workflow.CONFIRM_ACTION, approval.confirm, role=Role.VIEWER),
        OnClick(workflow.CANCEL_ACTION, approval.withdraw, role=Role.VIEWER),
        OnClick(workflow.APPROVE_ACTION, approval.approve, role=Role.VIEWER),
        OnClick(workflow.DENY_ACTION, approval.deny, role=Role.VIEWER),
    ),
    submissions=(
        OnSubmit(
            workflow.DENY_CALLBACK,
            approval.deny_submitted,
            role=Role.VIEWER,
            validate=approval.deny_reason,
        ),
    ),
    jobs=sweep.JOBS,
)
