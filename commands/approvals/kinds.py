"""The kinds of risky action, and what each takes by default before it runs.

The store keeps a kind as its plain string and only what an admin changed; the kinds and
their defaults live here, and the workflow merges the two (``workflow.policy_for``).

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

from enum import StrEnum

from storage import KindPolicy, Mode, Role


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
    PRIVACY_ERASE = "privacy.erase"


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
    # It cannot be undone: an admin asks, another admin approves.
    ActionKind.PRIVACY_ERASE: KindPolicy(Mode.APPROVAL, min_role=Role.ADMIN),
}
