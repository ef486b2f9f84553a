"""Change cards say only what changes, as before → after, in escaped words."""

from __future__ import annotations

from commands.calls.autocall import AutocallParams, describe_autocall
from commands.directory.groups import GroupBefore, GroupUpdateParams, describe_group_update
from commands.directory.users import UserSettings, UserUpdateParams, describe_user_update

BEFORE = UserSettings(
    level="agent",
    role_uuid="r-1",
    role_name="Sales",
    extension="1007",
    is_active=True,
    enable_webrtc=False,
)


def user_change(**after: object) -> UserUpdateParams:
    fields: dict[str, object] = {
        "user_uuid": "u-1",
        "username": "agent.mai",
        **BEFORE.model_dump(),
        "before": BEFORE,
        "password": "pw-x",
        "confirm_password": "pw-x",
    }
    fields.update(after)
    return UserUpdateParams.model_validate(fields)


def test_a_user_card_lists_only_the_settings_that_change() -> None:
    text = describe_user_update(
        user_change(role_uuid="r-2", role_name="<Leads>", enable_webrtc=True)
    )
    assert "role: Sales → *&lt;Leads&gt;*" in text
    assert "WebRTC: no → *yes*" in text
    for unchanged in ("• level:", "• extension:", "• enabled:"):
        assert unchanged not in text
    assert "never shown" in text and "pw-x" not in text


def test_an_extension_left_empty_is_not_a_change_and_a_password_alone_is_said() -> None:
    text = describe_user_update(user_change(extension=""))
    assert "• extension:" not in text and "no setting changes" in text
    assert "password: set to the one typed in the form" in text


def group_change(**after: object) -> GroupUpdateParams:
    fields: dict[str, object] = {
        "group_uuid": "g-1",
        "old_name": "Telesale",
        "group_name": "Telesale",
        "group_description": "Outbound",
        "user_assigns": ["u-1", "u-2"],
        "member_names": ["an", "binh"],
        "before": GroupBefore(
            group_name="Telesale",
            group_description="Outbound",
            group_priority=1,
            user_assigns=["u-1", "u-3"],
            member_names=["an", "chi"],
        ),
    }
    fields.update(after)
    return GroupUpdateParams.model_validate(fields)


def test_a_group_card_shows_members_added_and_removed_and_nothing_unchanged() -> None:
    text = describe_group_update(group_change(group_name="Telesale 2", group_priority=1))
    assert "name: Telesale → *Telesale 2*" in text
    assert "members: 2 → *2* (added binh; removed chi)" in text
    for unchanged in ("description", "priority", "campaigns"):
        assert unchanged not in text


def test_group_campaigns_chosen_are_shown_as_set() -> None:
    text = describe_group_update(
        group_change(user_assigns=["u-1", "u-3"], campaign_assigns=["c-1"], campaign_names=["May"])
    )
    assert "campaigns: set to May" in text and "members" not in text


def test_an_autocall_card_warns_about_a_stopped_campaign_only() -> None:
    base = {"campaign_uuid": "c", "campaign_name": "Due HN", "phone_number": "0912345678"}
    stopped = describe_autocall(AutocallParams.model_validate(base | {"campaign_status": "stop"}))
    assert "is stopped" in stopped and '/callops start "Due HN"' in stopped
    running = describe_autocall(AutocallParams.model_validate(base | {"campaign_status": "start"}))
    assert "does not dial" not in running
    earlier = describe_autocall(AutocallParams.model_validate(base))
    assert "does not dial" not in earlier
