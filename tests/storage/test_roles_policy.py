from __future__ import annotations

import pytest

from commands.approvals.workflow import all_policies, policy_for, update_policy
from storage import ADMINS, KindPolicy, Mode, Role, Storage, effective_role
from storage.errors import InvalidValueError
from storage.policy import may_decide
from tests.registry import APP

DEFAULT_POLICY = APP.actions.default_policies()
"""What each kind takes by default, as its family declares it (``ActionSpec.policy``)."""


def test_users_nobody_named_are_viewers(store: Storage) -> None:
    stored = store.roles.stored_role("T1", "U1")
    assert stored is None
    assert effective_role(stored, is_workspace_admin=False, is_env_admin=False) is Role.VIEWER


def test_stored_roles_apply_per_team(store: Storage) -> None:
    store.roles.set_role("T1", "U1", Role.OPERATOR, granted_by="U0")
    assert store.roles.stored_role("T1", "U1") is Role.OPERATOR
    assert store.roles.stored_role("T2", "U1") is None
    assert store.roles.list_roles("T1") == {"U1": Role.OPERATOR}


def test_slack_admins_and_env_admins_are_admins_whatever_is_stored(store: Storage) -> None:
    store.roles.set_role("T1", "U1", Role.VIEWER)
    stored = store.roles.stored_role("T1", "U1")
    assert effective_role(stored, is_workspace_admin=True, is_env_admin=False) is Role.ADMIN
    assert effective_role(stored, is_workspace_admin=False, is_env_admin=True) is Role.ADMIN
    assert effective_role(stored, is_workspace_admin=False, is_env_admin=False) is Role.VIEWER


def test_the_installing_user_is_recorded_as_admin(store: Storage) -> None:
    from storage import InstallationRecord

    store.installations.save(InstallationRecord(user_id="UINSTALL", team_id="T1", bot_token="x"))
    assert store.roles.stored_role("T1", "UINSTALL") is Role.ADMIN


def test_role_names_are_parsed_with_a_helpful_error() -> None:
    assert Role.parse(" Operator ") is Role.OPERATOR
    with pytest.raises(InvalidValueError, match="admin, operator or viewer"):
        Role.parse("owner")
    assert Role.ADMIN.at_least(Role.OPERATOR) and not Role.VIEWER.at_least(Role.OPERATOR)


def test_default_policy_follows_the_design() -> None:
    approval = {
        "campaign.start",
        "autocall.push",
        "lead.insert",
        "lead.upload",
        "group.create",
        "group.update",
        "user.update",
        "notify.attach",
        "privacy.erase",
    }
    confirm = {
        "campaign.pause",
        "campaign.stop",
        "call.transfer",
        "campaign.pause_all",
        "notify.rotate",
    }
    # Every kind DESIGN.md names is declared; a kind added later states its own default.
    assert approval | confirm <= set(DEFAULT_POLICY)
    for kind, policy in DEFAULT_POLICY.items():
        assert policy.expiry_seconds == 30 * 60
        assert policy.allow_self_approval is False
        assert policy.approvers == ADMINS
        # Erasing a customer's data cannot be undone: only an admin asks for it.
        expected = Role.ADMIN if kind == "privacy.erase" else Role.OPERATOR
        assert policy.min_role is expected, kind
        if kind in approval:
            assert policy.mode is Mode.APPROVAL, kind
        elif kind in confirm:
            assert policy.mode is Mode.CONFIRM, kind


def test_a_team_can_override_one_kind_without_touching_others(store: Storage) -> None:
    named = KindPolicy(Mode.APPROVAL, approvers=("U7", "U8"), allow_self_approval=True)
    store.policies.set("T1", "lead.upload", named, updated_by="U0")

    assert policy_for(store.policies, "T1", "lead.upload") == named
    assert policy_for(store.policies, "T2", "lead.upload") == DEFAULT_POLICY["lead.upload"]
    merged = all_policies(store.policies, "T1")
    assert merged["lead.upload"] == named
    assert merged["campaign.start"] == DEFAULT_POLICY["campaign.start"]

    updated = update_policy(store.policies, "T1", "lead.upload", expiry_seconds=600)
    assert updated.expiry_seconds == 600 and updated.approvers == ("U7", "U8")
    store.policies.reset("T1", "lead.upload")
    assert policy_for(store.policies, "T1", "lead.upload") == DEFAULT_POLICY["lead.upload"]


@pytest.mark.parametrize(
    ("approvers", "allow_self", "decider", "role", "allowed"),
    [
        (ADMINS, False, "U2", Role.ADMIN, True),
        (ADMINS, False, "U2", Role.OPERATOR, False),
        (ADMINS, False, "U1", Role.ADMIN, False),  # the requester
        (ADMINS, True, "U1", Role.ADMIN, True),
        (("U5",), False, "U5", Role.VIEWER, True),
        (("U5",), False, "U2", Role.ADMIN, False),
    ],
)
def test_who_may_approve(
    approvers: tuple[str, ...] | str, allow_self: bool, decider: str, role: Role, allowed: bool
) -> None:
    policy = KindPolicy(Mode.APPROVAL, approvers=approvers, allow_self_approval=allow_self)  # type: ignore[arg-type]
    refusal = may_decide(
        policy.approvers, decider, role, "U1", allow_self_approval=policy.allow_self_approval
    )
    assert (refusal is None) is allowed


def test_nonsense_policies_are_refused() -> None:
    with pytest.raises(InvalidValueError):
        KindPolicy(Mode.APPROVAL, expiry_seconds=0)
    with pytest.raises(InvalidValueError):
        KindPolicy(Mode.APPROVAL, approvers=())


def test_a_requests_role_workspace_and_key_are_read_together(store: Storage) -> None:
    assert store.requester("T1", "U1") == (None, None, None, None)
    store.workspaces.connect("T1", "https://pbx.example.test", "key-of-team-one")
    store.roles.set_role("T1", "U1", Role.OPERATOR)
    role, workspace, api_key, person = store.requester("T1", "U1")
    assert role is Role.OPERATOR
    assert workspace is not None and workspace.team_id == "T1"
    assert workspace.base_url == "https://pbx.example.test"
    assert api_key == "key-of-team-one"
    assert person is None  # never seen, never chose a language
    # Another person of the same team: no role of their own, the same workspace.
    assert store.requester("T1", "U2")[0] is None
    assert store.requester("T1", "U2")[1:] == (workspace, "key-of-team-one", None)
    assert store.requester("T2", "U1") == (None, None, None, None)
