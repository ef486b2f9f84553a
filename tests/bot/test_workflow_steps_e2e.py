"""Workflow Builder steps end to end: the stand-in sends ``function_executed`` as Slack
does, the app answers with ``functions.completeSuccess``/``completeError`` (with the run's
own token), and every action goes through the same role check, policy and approval card
as ``/callops``."""

from __future__ import annotations

from typing import Any

from bot.runtime import Runtime
from callcenter import CallCenter
from callcenter.models import Campaign
from commands.approvals.workflow import update_policy
from commands.directory.listings import placeholders
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from emulators.slack.workflows import StepRun
from storage import WORKFLOWS, ApprovalState, Mode, Role
from tests.bot.approval_helpers import (
    button_ids,
    campaign,
    campaigns,
    card_now,
    click_card,
    clocked,
    ephemeral_with,
    puts,
    settled,
    stopped_campaign,
    sweep,
)
from tests.bot.test_commands_e2e import ask, shown
from tests.clocks import SteppedClock

__all__ = ["clocked"]

JSON = dict[str, Any]


async def run(slack: SlackStandIn, step: str, user: str = SUPERVISOR, **inputs: Any) -> StepRun:
    """Start ``step`` as ``user`` and wait for the app's answer."""
    delivery = await slack.driver.run_step(step, user=user, inputs=inputs)
    assert delivery.in_time, delivery.body
    return await slack.wait_for_step(delivery.payload["event"]["function_execution_id"])


async def started(slack: SlackStandIn, step: str, user: str, **inputs: Any) -> str:
    delivery = await slack.driver.run_step(step, user=user, inputs=inputs)
    assert delivery.in_time
    return str(delivery.payload["event"]["function_execution_id"])


def one(items: list[Campaign], kind: str, status: str) -> Campaign:
    return next(c for c in items if c.type == kind and c.status == status)


def answered_with_run_token(slack: SlackStandIn) -> None:
    entries = slack.journal("functions.completeSuccess") + slack.journal("functions.completeError")
    assert entries, "the app answered no step"
    assert all(e.problems == [] for e in entries), [e.problems for e in entries]


# --- reading steps --------------------------------------------------------------------


async def test_campaign_figures_are_the_services_and_bad_input_fails_clearly(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    running = one(await campaigns(pbx), "autodialer", "start")
    done = await run(slack, "campaign_figures", campaign=running.campaign_name, window="2h")
    assert done.state == "completed", done.error
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        items = [s async for s in cc.reports.iterate_autodialer(120, [running.campaign_uuid])]
    stats = items[0]
    assert done.outputs == {
        "calls": stats.total_calls,
        "answered": stats.total_connected_customers,
        "connection_rate": stats.customer_connection_rate,
        "dropped_rate": stats.dropped_call_rate,
        "agents_ready": stats.agents_ready,
        "window_minutes": 120,
    }

    bad_window = await run(slack, "campaign_figures", campaign=running.campaign_name, window="soon")
    assert bad_window.state == "failed"
    assert "'soon'" in str(bad_window.error) and "2h" in str(bad_window.error)

    unknown = await run(slack, "campaign_figures", campaign="No such campaign")
    assert unknown.state == "failed"
    assert unknown.error == (
        "No campaign is called 'No such campaign', starts with it or has a name close to it."
    )

    autocall = one(await campaigns(pbx), "autocall", "start")
    wrong_kind = await run(slack, "campaign_figures", campaign=autocall.campaign_uuid)
    assert wrong_kind.state == "failed" and "autodialer" in str(wrong_kind.error)
    answered_with_run_token(slack)


async def test_the_latest_call_with_a_number(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        page = await cc.cdrs.list(limit=50, offset=0)
    record = next(r for r in page.data if r.to_number and r.direction == "outbound")
    phone = record.to_number
    done = await run(slack, "call_lookup", phone=phone)
    assert done.state == "completed", done.error
    outputs = done.outputs or {}
    assert set(outputs) == {"status", "duration", "time", "recording_url"}
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        mine = [r async for r in cc.cdrs.iterate(phone=phone)]
    latest = max(mine, key=lambda r: r.time_started)
    assert (outputs["status"], outputs["duration"]) == (latest.status, latest.duration)
    assert isinstance(outputs["time"], int) and outputs["time"] > 1_500_000_000

    nobody = await run(slack, "call_lookup", phone="0399999999")
    assert nobody.state == "failed"
    assert nobody.error == "No call with 0399 999 999 in the last 30 days."


# --- who may run a step -----------------------------------------------------------------


async def test_a_viewer_is_refused_and_nothing_changes(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    paused = one(await campaigns(pbx), "autodialer", "pause")
    done = await run(slack, "campaign_start", user=AGENT, campaign=paused.campaign_name)
    assert done.state == "failed"
    assert done.error == (
        "The step 'Start a campaign' needs the operator role; you are a viewer. "
        f"An admin can change that with /callops role <@{AGENT}> operator."
    )
    assert (await campaign(pbx, paused.campaign_uuid)).status == "pause"
    assert app.storage.approvals.list(TEAM) == []
    assert "campaign_start" in [e.action for e in app.storage.audit.entries(TEAM)]


async def test_a_step_whose_interactivity_names_nobody_acts_as_the_workflow(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    running = one(await campaigns(pbx), "autodialer", "start")
    # The interactivity input points at nobody: the step reads with the workflows' role.
    done = await run(
        slack,
        "campaign_figures",
        campaign=running.campaign_name,
        interactivity={"interactivity_pointer": "x", "interactor": {"id": "", "secret": "s"}},
    )
    assert done.state == "completed", done.error


# --- steps no person started (a schedule, an event) -------------------------------------


async def unattended(slack: SlackStandIn, step: str, **inputs: Any) -> StepRun:
    """Run ``step`` as a scheduled workflow does: its interactivity input left empty."""
    delivery = await slack.driver.run_step(step, user=SUPERVISOR, inputs=inputs, unattended=True)
    assert delivery.in_time, delivery.body
    assert "interactivity" not in delivery.payload["event"]["inputs"]
    return await slack.wait_for_step(delivery.payload["event"]["function_execution_id"])


async def test_a_scheduled_pause_acts_with_the_role_given_to_workflows(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    running = one(await campaigns(pbx), "autodialer", "start")

    # Left as viewer (the default), the step fails with the reason and changes nothing.
    refused_run = await unattended(slack, "campaign_pause", campaign=running.campaign_uuid)
    assert refused_run.state == "failed"
    assert refused_run.error == (
        "The step 'Pause a campaign' needs the operator role; it ran without a person (a "
        "schedule or an event), so it acts with the role given to workflows, viewer. An "
        "admin can change that with /callops role workflows operator."
    )
    status = await campaign(pbx, running.campaign_uuid)
    assert status.status == "start"

    given = await ask(slack, "role workflows operator")
    assert "now act as operator" in shown(given)
    listing = await ask(slack, "role")
    assert "Workflow steps run without a person (scheduled or by an event): operator" in shown(
        listing
    )

    done = await unattended(slack, "campaign_pause", campaign=running.campaign_uuid)
    assert done.state == "completed", done.error
    assert done.outputs == {"status": "pause", "campaign_id": running.campaign_uuid}
    status = await campaign(pbx, running.campaign_uuid)
    assert status.status == "pause"
    pauses = [e for e in app.storage.audit.entries(TEAM) if e.action == "campaign.pause"]
    assert [e.outcome for e in pauses] == ["requested", "approved", "ok"]
    assert {e.user_id for e in pauses} == {f"workflow {done.workflow_execution_id}"}
    answered_with_run_token(slack)


async def test_a_scheduled_start_still_waits_for_an_approver(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    operators_and_channel(app)
    app.storage.roles.set_role(TEAM, WORKFLOWS, Role.OPERATOR)
    target = await stopped_campaign(pbx)
    delivery = await slack.driver.run_step(
        "campaign_start",
        user=SUPERVISOR,
        inputs={"campaign": target.campaign_uuid},
        unattended=True,
    )
    run_id = str(delivery.payload["event"]["function_execution_id"])
    card = await card_for(slack, target.campaign_uuid)
    assert "workflow Wx" in shown(card)
    assert slack.step_run(run_id).state == "running"
    await click_card(slack, card, "approval_approve", MANAGER, APPROVALS)
    done = await slack.wait_for_step(run_id)
    assert done.state == "completed", done.error
    assert done.outputs == {"status": "start", "campaign_id": target.campaign_uuid}


# --- actions: the same policy and approval as /callops ---------------------------------


def operators_and_channel(rt: Runtime) -> None:
    """AGENT runs workflows (operator); SUPERVISOR and MANAGER are admins; cards in #approvals."""
    rt.storage.roles.set_role(TEAM, AGENT, Role.OPERATOR)
    rt.storage.roles.set_role(TEAM, MANAGER, Role.ADMIN)
    rt.storage.workspaces.set_channels(TEAM, approvals=APPROVALS)


async def card_for(slack: SlackStandIn, uuid: str) -> JSON:
    return await slack.wait_for_message(
        APPROVALS, lambda m: "approval_approve" in button_ids(m) and uuid in shown(m)
    )


async def test_a_start_under_approval_completes_only_after_another_admin_approves(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    operators_and_channel(app)
    target = await stopped_campaign(pbx)
    run_id = await started(slack, "campaign_start", AGENT, campaign=target.campaign_uuid)
    card = await card_for(slack, target.campaign_uuid)
    assert "<@U0002>" in shown(card)
    assert slack.step_run(run_id).state == "running"

    # The requester cannot approve their own request; the step keeps waiting.
    await click_card(slack, card, "approval_approve", AGENT, APPROVALS)
    assert slack.step_run(run_id).state == "running"
    assert (await campaign(pbx, target.campaign_uuid)).status == "stop"

    approved = await click_card(slack, card, "approval_approve", MANAGER, APPROVALS)
    done = await slack.wait_for_step(run_id)
    assert done.state == "completed", done.error
    assert done.outputs == {"status": "start", "campaign_id": target.campaign_uuid}
    assert (await campaign(pbx, target.campaign_uuid)).status == "start"
    settled_card = await card_now(slack, APPROVALS, card["ts"], settled)
    assert settled_card["text"].endswith(": done")
    answered_with_run_token(slack)

    # The same click arriving again changes nothing and answers nothing again.
    await slack.driver.resend(approved, as_retry=False)
    assert await ephemeral_with(slack, MANAGER, "already approved")
    assert len(slack.journal("functions.completeSuccess")) == 1
    assert len(puts(pbx, f"/v3/campaign/{target.campaign_uuid}")) == 1


async def test_a_denied_start_fails_the_step_with_the_reason(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    operators_and_channel(app)
    target = await stopped_campaign(pbx)
    run_id = await started(slack, "campaign_start", AGENT, campaign=target.campaign_name)
    card = await card_for(slack, target.campaign_uuid)
    await click_card(slack, card, "approval_deny", MANAGER, APPROVALS)
    modal = await slack.wait_for(lambda: slack.views(MANAGER)[-1] if slack.views(MANAGER) else None)
    await slack.driver.view_submission(modal["id"], {"reason": "Not before the briefing"})
    done = await slack.wait_for_step(run_id)
    assert done.state == "failed"
    assert done.error == "Start campaign was denied by <@U0003>: Not before the briefing"
    assert (await campaign(pbx, target.campaign_uuid)).status == "stop"
    answered_with_run_token(slack)


async def test_an_unanswered_start_fails_the_step_when_it_expires(
    clocked: tuple[Runtime, SteppedClock], slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    rt, clock = clocked
    operators_and_channel(rt)
    target = await stopped_campaign(pbx)
    run_id = await started(slack, "campaign_start", AGENT, campaign=target.campaign_uuid)
    card = await card_for(slack, target.campaign_uuid)
    await slack.wait_for(lambda: rt.storage.approvals.list(TEAM)[0].message_ts)
    clock.advance(31 * 60)
    assert await sweep(rt) == 1
    done = await slack.wait_for_step(run_id)
    assert done.state == "failed"
    assert done.error == (
        "Start campaign: the approval request expired before anyone decided. Nothing was done."
    )
    expired = await card_now(slack, APPROVALS, card["ts"], settled)
    assert expired["text"].endswith(": expired")
    assert rt.storage.approvals.list(TEAM)[0].state is ApprovalState.EXPIRED
    # The run's token was used once and is gone from the database.
    link = rt.storage.step_runs.get(TEAM, rt.storage.approvals.list(TEAM)[0].id)
    assert link is not None and link.token is None and link.settled_at is not None


async def test_a_pause_needs_only_the_runners_confirm_and_completes_at_once(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    operators_and_channel(app)
    running = one(await campaigns(pbx), "autodialer", "start")
    done = await run(slack, "campaign_pause", AGENT, campaign=running.campaign_uuid)
    assert done.state == "completed", done.error
    assert done.outputs == {"status": "pause", "campaign_id": running.campaign_uuid}
    assert slack.messages(APPROVALS) == []
    again = await run(slack, "campaign_pause", AGENT, campaign=running.campaign_uuid)
    assert again.outputs == {"status": "pause", "campaign_id": running.campaign_uuid}
    assert [e.outcome for e in app.storage.audit.entries(TEAM) if e.action == "campaign.pause"] == [
        "requested",
        "approved",
        "ok",
    ]
    stop = await slack.driver.run_step(
        "campaign_stop", user=AGENT, inputs={"campaign": running.campaign_name}
    )
    stopped_run = await slack.wait_for_step(stop.payload["event"]["function_execution_id"])
    assert stopped_run.outputs == {"status": "stop", "campaign_id": running.campaign_uuid}
    assert [e.outcome for e in app.storage.audit.entries(TEAM) if e.action == "campaign.stop"] == [
        "requested",
        "approved",
        "ok",
    ]
    unknown = await run(slack, "campaign_stop", AGENT, campaign="Nothing like it")
    assert unknown.error == (
        "No campaign is called 'Nothing like it', starts with it or has a name close to it."
    )
    answered_with_run_token(slack)


async def test_the_approval_card_needs_an_approvals_channel(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    app.storage.roles.set_role(TEAM, AGENT, Role.OPERATOR)
    target = await stopped_campaign(pbx)
    done = await run(slack, "campaign_start", AGENT, campaign=target.campaign_uuid)
    assert done.state == "failed" and "/callops policy channel" in str(done.error)
    assert app.storage.approvals.list(TEAM)[0].state is ApprovalState.CANCELLED


# --- autocall and leads ----------------------------------------------------------------


def no_approvals(rt: Runtime) -> None:
    for kind in ("autocall.push", "lead.insert"):
        update_policy(rt.storage.policies, TEAM, kind, mode=Mode.NONE)


async def first_autocall(pbx: EmulatorServer) -> tuple[Campaign, list[str]]:
    """The first autocall campaign (its template greets by {{name}})."""
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        items = [c async for c in cc.campaigns.iterate()]
        campaign = next(c for c in items if c.type == "autocall" and c.status == "start")
        templates = [t async for t in cc.templates.iterate()]
    template = next(t for t in templates if t.template_uuid == campaign.template_uuid)
    return campaign, placeholders(template)


async def test_an_autocall_step_pushes_with_the_modals_checks(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    no_approvals(app)
    campaign, names = await first_autocall(pbx)
    values = " ".join(f'{n}="Nguyễn An"' for n in names)
    done = await run(
        slack, "autocall_push", campaign=campaign.campaign_uuid, phone="0912 345 678", values=values
    )
    assert done.state == "completed", done.error
    outputs = done.outputs or {}
    assert set(outputs) == {"call_id", "lead_id"} and all(outputs.values())
    pushed = [e for e in pbx.journal(method="POST") if e["path"].endswith("/autocall/import")]
    assert len(pushed) == 1

    as_object = await run(
        slack,
        "autocall_push",
        campaign=campaign.campaign_uuid,
        phone="0912345679",
        values_object={n: "An" for n in names},
    )
    assert as_object.state == "completed", as_object.error

    bad_phone = await run(
        slack, "autocall_push", campaign=campaign.campaign_uuid, phone="12345", values=values
    )
    assert bad_phone.state == "failed"
    assert bad_phone.error == (
        "'12345' is not a phone number the service accepts (10 digits starting 03, 05, 07, 08 "
        "or 09, or 84 followed by 8 digits or more)."
    )
    missing = await run(slack, "autocall_push", campaign=campaign.campaign_uuid, phone="0912345678")
    assert missing.state == "failed"
    assert missing.error == " ".join(
        f"The template needs a value for {n.replace('_', ' ')} ({n}=)." for n in names
    )
    unknown = await run(
        slack,
        "autocall_push",
        campaign=campaign.campaign_uuid,
        phone="0912345678",
        values=values + " colour=blue",
    )
    assert unknown.state == "failed" and "no placeholder colour" in str(unknown.error)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        entries = [e async for e in cc.blacklist.iterate()]
    blocked = entries[0].phone_number
    refused = await run(
        slack, "autocall_push", campaign=campaign.campaign_uuid, phone=blocked, values=values
    )
    assert refused.state == "failed" and "on the blacklist" in str(refused.error)
    pushed = [e for e in pbx.journal(method="POST") if e["path"].endswith("/autocall/import")]
    assert len(pushed) == 2
    answered_with_run_token(slack)


async def test_a_lead_step_adds_to_the_campaigns_list_or_a_named_list(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    no_approvals(app)
    target = next(c for c in await campaigns(pbx) if c.type == "autodialer" and c.default_list_uuid)
    done = await run(
        slack,
        "lead_add",
        campaign=target.campaign_name,
        phone="0912 345 678",
        name="Nguyễn An",
        fields='address="12 Lý Thái Tổ" province=HN',
    )
    assert done.state == "completed", done.error
    lead_id = (done.outputs or {})["lead_id"]
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        lead = await cc.leads.get(lead_id)
    assert (lead.list_uuid, lead.phone_number, lead.lead_name) == (
        target.default_list_uuid,
        "0912345678",
        "Nguyễn An",
    )
    by_list = await run(slack, "lead_add", list_id=target.default_list_uuid, phone="0987654321")
    assert by_list.state == "completed", by_list.error

    neither = await run(slack, "lead_add", phone="0912345678")
    assert neither.state == "failed" and "lead list" in str(neither.error)
    bad_field = await run(
        slack, "lead_add", list_id=target.default_list_uuid, phone="0912345678", fields="colour=red"
    )
    assert bad_field.state == "failed" and str(bad_field.error).startswith(
        "Unknown lead field colour"
    )
    short_list = await run(slack, "lead_add", list_id="abc", phone="0912345678")
    assert short_list.state == "failed" and "36 characters" in str(short_list.error)
    answered_with_run_token(slack)
