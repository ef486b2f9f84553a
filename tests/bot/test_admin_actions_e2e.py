"""Groups, users, policy and roles end to end.  Group and user changes wait for an admin;
the user form's password reaches the service once and is never shown, logged, audited or
stored in plain text; admins change the policy and give roles, and both take effect."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from bot.runtime import Runtime
from bot.settings import Settings
from callcenter import CallCenter
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from storage import Role
from tests.bot.approval_helpers import (
    ask,
    audit_outcomes,
    button_ids,
    campaigns,
    card_in,
    card_now,
    confirm,
    ephemeral_with,
    give_roles,
    latest_view,
    prompt_for,
    settled,
    shown,
    use_approvals_channel,
)
from tests.bot.test_commands_e2e import expect_replies

PASSWORD = "Tr0ub4dor&3-never-shown"


def database_bytes(settings: Settings) -> bytes:
    """The SQLite file as stored (with its write-ahead log), to look for plain text."""
    found = b""
    for suffix in ("", "-wal"):
        path = Path(settings.callops_db + suffix)
        if path.exists():
            found += path.read_bytes()
    return found


async def approve(slack: SlackStandIn, card: dict[str, Any], user: str = MANAGER) -> None:
    await slack.driver.block_action(
        user=user, action_id="approval_approve", channel=APPROVALS, ts=str(card["ts"])
    )


@pytest.mark.usefixtures("approvals")
async def test_group_add_is_approved_then_created_once(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    prompt = await prompt_for(slack, "group add Night shift -- Calls after 18h")
    assert "Night shift" in shown(prompt) and "Calls after 18h" in shown(prompt)
    await confirm(slack, prompt)
    card = await card_in(slack, APPROVALS, "Night shift")
    await approve(slack, card)
    done = await card_now(slack, APPROVALS, str(card["ts"]), settled)
    assert done["text"].endswith(": done")
    sent = pbx.journal(method="POST", path="/v3/group")
    assert [e["body"] for e in sent] == [
        {"group_name": "Night shift", "group_description": "Calls after 18h"}
    ]
    assert any(g["group_name"] == "Night shift" for g in pbx.state("groups"))


@pytest.mark.usefixtures("approvals")
async def test_a_group_name_of_several_words_needs_no_quotes(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    prompt = await prompt_for(slack, "group add Nhom Telesale HCM")
    assert "Create the group *Nhom Telesale HCM*." in shown(prompt)
    await confirm(slack, prompt)
    await approve(slack, await card_in(slack, APPROVALS, "Nhom Telesale HCM"))
    sent = await slack.wait_for(lambda: pbx.journal(method="POST", path="/v3/group") or None)
    assert [e["body"]["group_name"] for e in sent] == ["Nhom Telesale HCM"]
    prompt = await prompt_for(slack, 'group add "Ca đêm" description=Gọi sau 18 giờ')
    assert "*Ca đêm*: Gọi sau 18 giờ" in shown(prompt)


@pytest.mark.usefixtures("approvals")
async def test_a_duplicate_group_name_is_refused_before_any_approval_exists(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    reply = await ask(slack, "group add Night/shift", user=AGENT)
    assert "letters, digits, spaces" in shown(reply)
    existing = next(g for g in pbx.state("groups") if g["group_name"] == "Telesale")
    reply = await ask(slack, "group add TELESALE -- Another sales team", user=AGENT)
    assert "A group called 'Telesale' already exists" in shown(reply)
    assert existing["group_uuid"] in shown(reply) and "Nothing was asked" in shown(reply)
    assert "approval_confirm" not in button_ids(reply)
    # Refused at once: no request, no card for an approver, nothing sent to the service.
    assert app.storage.approvals.list(TEAM) == []
    assert [m for m in slack.messages(APPROVALS) if "TELESALE" in shown(m)] == []
    assert pbx.journal(method="POST", path="/v3/group") == []
    assert audit_outcomes(app, "group.create") == []


@pytest.mark.usefixtures("approvals")
async def test_group_edit_form_sets_members_and_keeps_campaigns(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    group = next(g for g in pbx.state("groups") if g["group_name"] == "Telesale")
    keep = group["members"][:2]
    await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text="group edit telesale")
    form = await latest_view(slack, AGENT, "group_edit_form")
    assert "Members" in shown(form) and "Campaigns" in shown(form)
    await slack.driver.view_submission(
        str(form["id"]),
        {
            "group_name": "Telesale",
            "group_description": "Outbound sales",
            "group_priority": "3",
            "members": keep,
            "campaigns": [],
        },
    )
    card = await card_in(slack, APPROVALS, "Outbound sales")
    # Only what changes, as before → after: the name stays, so it is not listed.
    text = shown(card)
    assert "description: Nhóm Telesale → *Outbound sales*" in text
    assert f"members: {len(group['members'])} → *2* (removed " in text
    assert "• name:" not in text and "campaigns" not in text
    await approve(slack, card)
    done = await card_now(slack, APPROVALS, str(card["ts"]), settled)
    assert done["text"].endswith(": done"), shown(done)
    sent = pbx.journal(method="PUT", path=f"/v3/group/{group['group_uuid']}")
    assert len(sent) == 1
    assert sent[0]["body"]["user_assigns"] == keep and "campaign_assigns" not in sent[0]["body"]
    after = next(g for g in pbx.state("groups") if g["group_uuid"] == group["group_uuid"])
    assert sorted(after["members"]) == sorted(keep)
    assert after["campaigns"] == group["campaigns"]


@pytest.mark.usefixtures("approvals")
async def test_group_edit_is_refused_at_once_for_a_taken_name_or_no_change(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    group = next(g for g in pbx.state("groups") if g["group_name"] == "Telesale")
    await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text="group edit telesale")
    form = await latest_view(slack, AGENT, "group_edit_form")
    as_it_is = {
        "group_name": "Telesale",
        "group_description": group["group_description"],
        "members": group["members"],
        "campaigns": [],
    }
    await slack.driver.view_submission(str(form["id"]), {**as_it_is, "group_name": "cskh"})
    assert await ephemeral_with(slack, AGENT, "Another group is already called 'CSKH'")
    await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text="group edit telesale")
    form = await latest_view(slack, AGENT, "group_edit_form")
    await slack.driver.view_submission(str(form["id"]), as_it_is)
    assert await ephemeral_with(slack, AGENT, "Nothing to change")
    assert app.storage.approvals.list(TEAM) == []
    assert slack.messages(APPROVALS) == []
    assert pbx.journal(method="PUT", path=f"/v3/group/{group['group_uuid']}") == []


async def test_user_edit_sends_the_password_once_and_never_shows_it(
    app: Runtime,
    slack: SlackStandIn,
    pbx: EmulatorServer,
    settings: Settings,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    give_roles(app)
    use_approvals_channel(app)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        people = [u async for u in cc.users.iterate()]
    user = next(u for u in people if u.username == "agent.mai")
    admin_role = next(u.role_uuid for u in people if u.level == "admin")
    reply = await ask(slack, "user edit agent.mai", user=AGENT)
    assert "needs the admin role" in shown(reply)
    await slack.driver.slash_command(
        user=SUPERVISOR, channel=CALL_CENTER, text="user edit agent.mai"
    )
    form = await latest_view(slack, SUPERVISOR, "user_edit_form")
    assert "used once for this change, then deleted" in shown(form)
    edit = {"level": "agent", "role": admin_role, "extension": "1077", "flags": ["enabled"]}
    await slack.driver.view_submission(
        str(form["id"]), edit | {"password": PASSWORD, "confirm_password": PASSWORD + "x"}
    )
    assert "differ" in slack.view_errors(str(form["id"]))["confirm_password"]
    await slack.driver.view_submission(
        str(form["id"]), edit | {"password": PASSWORD, "confirm_password": PASSWORD}
    )
    card = await card_in(slack, APPROVALS, "agent.mai")
    text = shown(card)
    assert "never shown" in text and "used once for this change, then deleted" in text
    # Only what changes, before → after: the level stays agent, so it is not listed.
    admin_role_name = next(u.role_name for u in people if u.role_uuid == admin_role)
    assert f"role: {user.role_name} → *{admin_role_name}*" in text
    assert f"extension: {user.extension} → *1077*" in text
    assert "• level:" not in text and "• enabled:" not in text
    (pending,) = app.storage.approvals.list(TEAM)
    assert "password" not in pending.params and "confirm_password" not in pending.params
    assert app.storage.approval_secrets.has_secret(TEAM, pending.id)
    await approve(slack, card, user=SUPERVISOR)
    assert await ephemeral_with(slack, SUPERVISOR, "someone else has to approve")
    await approve(slack, card)
    done = await card_now(slack, APPROVALS, str(card["ts"]), settled)
    assert done["text"].endswith(": done"), shown(done)
    sent = pbx.journal(method="PUT", path=f"/v3/user/{user.user_uuid}")
    assert len(sent) == 1 and sent[0]["body"]["extension"] == "1077"
    assert sent[0]["body"]["is_active"] is True and sent[0]["body"]["enable_webrtc"] is False
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        changed = await cc.users.get(user.user_uuid)
    assert (changed.extension, changed.role_uuid, changed.enable_webrtc) == (
        "1077",
        admin_role,
        False,
    )
    everything_slack_saw = json.dumps(
        [(e.params, e.response) for e in slack.journal()], ensure_ascii=False, default=str
    )
    assert PASSWORD not in everything_slack_saw
    assert PASSWORD.encode() not in database_bytes(settings)
    audited = [e for e in app.storage.audit.entries(TEAM) if e.action == "user.update"]
    assert audited and all("password" not in e.params for e in audited)
    # Kept only until the approved call was made.
    assert not app.storage.approval_secrets.has_secret(TEAM, pending.id)
    assert all(PASSWORD not in r.getMessage() for r in caplog.records)


@pytest.mark.usefixtures("roles")
async def test_admins_change_the_policy_and_it_takes_effect(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    reply = await ask(slack, "policy", user=AGENT)
    assert "needs the admin role" in shown(reply)
    reply = await ask(slack, "policy")
    assert "Start campaign" in shown(reply) and "by any admin" in shown(reply)
    assert "where the request is made" in shown(reply)
    reply = await ask(slack, "policy channel <#C0002|approvals>")
    assert "<#C0002>" in shown(reply)
    assert app.storage.workspaces.require(TEAM).approvals_channel == APPROVALS
    await expect_replies(
        slack,
        ("policy set start self=yes expiry=2h", "self-approval allowed", "2 h"),
        ("policy set pause mode=approval approvers=<@U0003|maria>", "by <@U0003>"),
        ("policy set pause mode=sometimes", "not a mode"),
    )
    target = next(c for c in await campaigns(pbx) if c.status == "start")
    prompt = await prompt_for(slack, f"pause {target.campaign_uuid}")
    assert "Ask for approval" in shown(prompt) and "<@U0003>" in shown(prompt)
    stopped = next(c for c in await campaigns(pbx) if c.status == "stop" and c.type == "manual")
    prompt = await prompt_for(slack, f"start {stopped.campaign_uuid}", user=SUPERVISOR)
    await confirm(slack, prompt, user=SUPERVISOR)
    card = await card_in(slack, APPROVALS, stopped.campaign_uuid)
    await approve(slack, card, user=SUPERVISOR)
    done = await card_now(slack, APPROVALS, str(card["ts"]), settled)
    assert done["text"].endswith(": done")
    assert audit_outcomes(app, "policy.set") == ["ok", "ok"]


async def test_admins_give_roles_and_viewers_become_operators(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = next(c for c in await campaigns(pbx) if c.status == "start")
    reply = await ask(slack, f"pause {target.campaign_uuid}", user=AGENT)
    assert "needs the operator role" in shown(reply)
    # The command that would grant it names the person, not a placeholder.
    assert f"/callops role <@{AGENT}> operator" in shown(reply)
    reply = await ask(slack, "role <@U0003|maria> admin", user=AGENT)
    assert "needs the admin role" in shown(reply)
    reply = await ask(slack, "role <@U0002|alex> operator")
    assert "<@U0002> is now operator" in shown(reply)
    told = await slack.wait_for(
        lambda: next((m for m in slack.dm(AGENT) if "made you" in shown(m)), None)
    )
    assert f"<@{SUPERVISOR}> made you operator" in shown(told)
    assert "push autocalls" in shown(told)
    assert app.storage.roles.stored_role(TEAM, AGENT) is Role.OPERATOR
    await prompt_for(slack, f"pause {target.campaign_uuid}")
    reply = await ask(slack, "role @alex operator")
    assert "mention them" in shown(reply)
    reply = await ask(slack, "role")
    assert "<@U0002>: operator" in shown(reply)
    assert audit_outcomes(app, "role.set") == ["ok"]
