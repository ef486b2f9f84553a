"""The kinds of risky action, and what each takes by default before it runs.

The store keeps a kind as its plain string and only what an admin changed; the kinds,
their defaults, and the merge of the two live here, with the actions.

Defaults follow DESIGN.md: changes that make calls or change who/what dials (start,
autocall push, lead insert and upload, group and user changes, attaching callbacks) need
one approval by an admin who is not the requester; pause, stop and transfer only stop
dialing or are time-critical, so a confirm by the requester is enough; "pause all" is the
emergency brake any operator can pull with one confirm. `lead.insert` needs approval like
`lead.upload`: one lead is one real customer the dialer will call. `notify.route` only
decides which Slack channel hears about calls (nothing changes on the phone system), so
it needs no confirmation. `notify.rotate` (a new callback URL, and the campaigns that
used the old one pointed at it again) needs the requesting admin's confirm: it restores
callbacks that were already attached, and it is the fix when the URL has leaked.
"""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum
from typing import Any

from storage import KindPolicy, Mode, PolicyStore


class ActionKind(StrEnum):
    CAMPAIGN_START = "campaign.start"
    CAMPAIGN_PAUSE = "campaign.pause"
    CAMPAIGN_STOP = "campaign.stop"
    CAMPAIGN_PAUSE_ALL = "campaign.pause_all"
    CALL_TRANSFER = "call.transfer"
    AUTOCALL_PUSH = "autocall.push"
    LEAD_INSERT = "lead.insert"
    LEAD_UPLOAD = "lead.upload"
    GROUP_CREATE = "group.create"
    GROUP_UPDATE = "group.update"
    USER_UPDATE = "user.update"
    NOTIFY_ATTACH = "notify.attach"
    NOTIFY_ROTATE = "notify.rotate"
    NOTIFY_ROUTE = "notify.route"


_APPROVAL = KindPolicy(Mode.APPROVAL)
_CONFIRM = KindPolicy(Mode.CONFIRM)

DEFAULT_POLICY: dict[ActionKind, KindPolicy] = {
    ActionKind.CAMPAIGN_START: _APPROVAL,
    ActionKind.CAMPAIGN_PAUSE: _CONFIRM,
    ActionKind.CAMPAIGN_STOP: _CONFIRM,
    ActionKind.CAMPAIGN_PAUSE_ALL: _CONFIRM,
    ActionKind.CALL_TRANSFER: _CONFIRM,
    ActionKind.AUTOCALL_PUSH: _APPROVAL,
    ActionKind.LEAD_INSERT: _APPROVAL,
    ActionKind.LEAD_UPLOAD: _APPROVAL,
    ActionKind.GROUP_CREATE: _APPROVAL,
    ActionKind.GROUP_UPDATE: _APPROVAL,
    ActionKind.USER_UPDATE: _APPROVAL,
    ActionKind.NOTIFY_ATTACH: _APPROVAL,
    ActionKind.NOTIFY_ROTATE: _CONFIRM,
    ActionKind.NOTIFY_ROUTE: KindPolicy(Mode.NONE),
}


def policy_for(policies: PolicyStore, team_id: str, kind: str) -> KindPolicy:
    """What ``kind`` takes in the workspace: what its admins set, else the default."""
    kind = ActionKind(kind)
    return policies.stored(team_id, kind) or DEFAULT_POLICY[kind]


def all_policies(policies: PolicyStore, team_id: str) -> dict[ActionKind, KindPolicy]:
    """Every kind's policy in the workspace (a stored kind no longer declared is left out)."""
    stored = policies.overrides(team_id)
    return {kind: stored.get(kind.value, default) for kind, default in DEFAULT_POLICY.items()}


def update_policy(
    policies: PolicyStore,
    team_id: str,
    kind: str,
    *,
    updated_by: str | None = None,
    **changes: Any,
) -> KindPolicy:
    """Change some fields of a kind's policy (e.g. ``expiry_seconds=600``)."""
    policy = replace(policy_for(policies, team_id, kind), **changes)
    policies.set(team_id, kind, policy, updated_by=updated_by)
    return policy
