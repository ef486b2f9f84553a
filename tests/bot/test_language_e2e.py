"""Who reads which language, end to end: each person's replies in their own language
(their choice, else their Slack locale, else the workspace's), channel posts in the
workspace's, and the admins' ``settings``.  The Vietnamese asserted here is this
feature's own translation (the catalog is built from the translators' fragments)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.runtime import Runtime
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from storage import Role, Workspace
from tests.blocks import elements
from tests.bot.approval_helpers import button_ids, card_in, confirm, prompt_for, stopped_campaign
from tests.bot.test_commands_e2e import ask, expect_replies, shown
from tests.bot.test_connect_e2e import top_view


def speaks(slack: SlackStandIn, user: str, locale: str) -> None:
    """What Slack's ``users.info`` says of the person's language."""
    slack.core.state.user(user, TEAM).locale = locale


def connected_workspace(app: Runtime) -> Workspace | None:
    found = app.storage.workspaces.get(TEAM)
    return found if found is not None and found.connected else None


def buttons(message: dict[str, Any]) -> list[str]:
    """The labels of a message's buttons, as people read them."""
    return [str(node["text"]["text"]) for node in elements(message.get("blocks", []), "button")]


async def test_the_same_command_answers_each_person_in_their_slack_language(
    app: Runtime, slack: SlackStandIn
) -> None:
    speaks(slack, AGENT, "vi-VN")
    viet = await ask(slack, "language", user=AGENT)
    english = await ask(slack, "language", user=SUPERVISOR)
    assert "callops trả lời bạn bằng tiếng Việt (ngôn ngữ Slack của bạn)" in shown(viet)
    assert "callops answers you in English (your Slack language)" in shown(english)
    # What Slack said is remembered with the person, for their next requests.
    person = await slack.wait_for(lambda: app.storage.people.get(TEAM, AGENT))
    assert (person.slack_locale, person.slack_tz) == ("vi-VN", "Europe/Paris")
    assert person.language is None


async def test_choosing_a_language_switches_that_person_only(
    app: Runtime, slack: SlackStandIn
) -> None:
    speaks(slack, AGENT, "vi-VN")
    speaks(slack, MANAGER, "vi-VN")
    switched = await ask(slack, "language en", user=AGENT)
    assert "From now on callops answers you in English." in shown(switched)
    assert "callops answers you in English (your choice)" in shown(
        await ask(slack, "language", user=AGENT)
    )
    assert "bằng tiếng Việt (ngôn ngữ Slack của bạn)" in shown(
        await ask(slack, "language", user=MANAGER)
    )
    # An English speaker choosing Vietnamese is answered in it at once.
    chosen = await ask(slack, "language VI", user=SUPERVISOR)
    assert "Từ nay callops trả lời bạn bằng tiếng Việt." in shown(chosen)
    # auto: back to the Slack locale, said in it.
    back = await ask(slack, "language auto", user=AGENT)
    assert "Từ nay callops theo ngôn ngữ Slack của bạn" in shown(back)
    assert app.storage.people.get(TEAM, AGENT).language is None  # type: ignore[union-attr]
    assert app.storage.people.get(TEAM, SUPERVISOR).language == "vi"  # type: ignore[union-attr]
    audited = [e.params for e in app.storage.audit.entries(TEAM) if e.action == "person.language"]
    assert {"language": "en"} in audited and {"language": "auto"} in audited


async def test_a_language_callops_does_not_speak_changes_nothing(
    app: Runtime, slack: SlackStandIn
) -> None:
    reply = await ask(slack, "language fr", user=AGENT)
    assert "'fr' is not a language callops speaks: use `vi`, `en` or `auto`." in shown(reply)
    assert app.storage.people.get(TEAM, AGENT) is None or (
        app.storage.people.get(TEAM, AGENT).language is None  # type: ignore[union-attr]
    )


async def test_settings_are_for_admins_and_a_bad_value_changes_nothing(
    app: Runtime, slack: SlackStandIn
) -> None:
    await expect_replies(slack, ("settings language vi", "needs the admin role"), user=AGENT)
    await expect_replies(
        slack,
        ("settings language fr", "use `vi` or `en`"),
        (
            "settings timezone Asia/Ho_Chi_Mnh",
            "is not a time zone I know",
            "Did you mean `Asia/Ho_Chi_Minh`?",
        ),
        ("settings colour blue", "'colour' is not a setting", "`mask-phones`"),
        ("settings mask-phones maybe", "use `on` or `off`"),
    )
    unchanged = app.storage.workspaces.require(TEAM)
    assert unchanged.default_language is None and unchanged.timezone == "Asia/Ho_Chi_Minh"
    assert unchanged.timezone_source is None and unchanged.mask_phones is True  # the default
    assert not [e for e in app.storage.audit.entries(TEAM) if e.action.startswith("settings.")]


async def test_an_admin_changes_settings_and_sees_where_each_comes_from(
    app: Runtime, slack: SlackStandIn
) -> None:
    before = await ask(slack, "settings")
    assert "Language: *English* (the default)" in shown(before)
    assert "Time zone: *Asia/Ho_Chi_Minh* (the app's default)" in shown(before)
    assert "Times are now shown in Europe/Berlin" in shown(
        await ask(slack, "settings timezone europe/berlin")
    )
    await ask(slack, "settings names given-first")
    assert "Mask customers' numbers in channels: *on* (the default)" in shown(before)
    await ask(slack, "settings mask-phones off")
    after = await ask(slack, "settings")
    assert "Time zone: *Europe/Berlin* (chosen by an admin)" in shown(after)
    assert "given name first" in shown(after)
    assert "Mask customers' numbers in channels: *off* (chosen by an admin)" in shown(after)
    workspace = app.storage.workspaces.require(TEAM)
    assert (workspace.timezone, workspace.name_order, workspace.mask_phones) == (
        "Europe/Berlin",
        "given-first",
        False,
    )
    actions = [e.action for e in app.storage.audit.entries(TEAM)]
    assert {"settings.timezone", "settings.names", "settings.mask_phones"} <= set(actions)
    # The workspace's language is what people Slack says nothing of read.
    await ask(slack, "settings language vi")
    shown_now = shown(await ask(slack, "settings"))
    assert "Ngôn ngữ: *tiếng Việt* (do quản trị viên chọn)" not in shown_now  # Sofia: en-US
    assert "Language: *Vietnamese* (chosen by an admin)" in shown_now


@pytest.mark.usefixtures("approvals")
async def test_channel_posts_use_the_workspace_language_and_replies_the_persons(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    await ask(slack, "settings language vi")
    target = await stopped_campaign(pbx)
    prompt = await prompt_for(slack, f"start {target.campaign_uuid}", user=AGENT)
    assert "Ask for approval" in shown(prompt)  # Alex's own reply: his en-US
    await confirm(slack, prompt, user=AGENT)
    card = await card_in(slack, APPROVALS, target.campaign_uuid)
    assert "approval_approve" in button_ids(card)
    assert buttons(card) == ["Phê duyệt", "Từ chối"]  # #approvals: the workspace's


async def test_a_workspace_connected_from_slack_takes_the_admins_zone_and_language(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    speaks(slack, SUPERVISOR, "vi-VN")
    slack.core.state.user(SUPERVISOR, TEAM).tz = "Asia/Bangkok"
    app.storage.workspaces.disconnect(TEAM)
    fresh = app.storage.workspaces.require(TEAM)
    assert fresh.timezone_source is None
    delivery = await slack.driver.slash_command(user=SUPERVISOR, channel=APPROVALS, text="connect")
    assert delivery.in_time
    view = await slack.wait_for(lambda: top_view(slack, SUPERVISOR))
    done = await slack.driver.view_submission(
        view["id"], {"base_url": pbx.base_url, "api_key": pbx.api_key}
    )
    assert done.in_time
    connected = await slack.wait_for(lambda: connected_workspace(app))
    assert (connected.timezone, connected.timezone_source) == ("Asia/Bangkok", "slack")
    assert connected.admin_locale == "vi-VN"
    # Nobody chose a language: Alex (en-US) reads English, the workspace's is Vietnamese.
    shown_to_alex = shown(await ask(slack, "language", user=AGENT))
    assert "callops answers you in English (your Slack language)" in shown_to_alex
    settings = shown(await ask(slack, "settings"))
    assert "Ngôn ngữ: *tiếng Việt* (theo ngôn ngữ Slack của quản trị viên" in settings
    assert "Múi giờ: *Asia/Bangkok*" in settings


async def test_digests_alerts_and_routes_keep_a_language_of_their_own(
    app: Runtime, slack: SlackStandIn
) -> None:
    added = await ask(slack, "digest add #call-center daily 08:00 lang=vi")
    assert "in <#C0001> · in Vietnamese" in shown(added)
    await ask(slack, "alert add #call-center dropped_rate > 5 lang=en")
    await ask(slack, "notify add #call-center lang=vi")
    assert app.storage.digests.list(TEAM)[0].language == "vi"
    assert app.storage.alerts.list(TEAM)[0].language == "en"
    assert app.storage.routes.list(TEAM)[0].language == "vi"
    assert "in Vietnamese" in shown(await ask(slack, "digest list"))
    assert "in English" in shown(await ask(slack, "alert list"))
    refused = await ask(slack, "digest add #call-center daily 09:00 lang=fr")
    assert "'fr' is not a language callops speaks: use `vi` or `en`" in shown(refused)
    assert len(app.storage.digests.list(TEAM)) == 1


async def test_someone_never_seen_reads_their_slack_language_from_the_first_reply(
    app: Runtime, slack: SlackStandIn
) -> None:
    # An admin by their stored role: no users.info is needed to know their role, but
    # their locale is looked up before the first answer all the same.
    app.storage.roles.set_role(TEAM, MANAGER, Role.ADMIN)
    speaks(slack, MANAGER, "vi-VN")
    first = await ask(slack, "language", user=MANAGER)
    assert "bằng tiếng Việt (ngôn ngữ Slack của bạn)" in shown(first), shown(first)


async def test_a_slow_slack_leaves_the_first_reply_in_the_workspace_language(
    app: Runtime, slack: SlackStandIn
) -> None:
    # users.info answers later than the first reply can wait: the workspace's language,
    # and the person's own from the next reply on.
    app.storage.roles.set_role(TEAM, MANAGER, Role.ADMIN)
    speaks(slack, MANAGER, "vi-VN")
    slack.hold("users.info", seconds=2.5)
    first = await ask(slack, "language", user=MANAGER)
    assert "callops answers you in English (the workspace's language)" in shown(first)
    await slack.wait_for(lambda: (p := app.storage.people.get(TEAM, MANAGER)) and p.seen)
    assert "bằng tiếng Việt (ngôn ngữ Slack của bạn)" in shown(
        await ask(slack, "language", user=MANAGER)
    )
