"""Leads end to end: one lead inserted after approval; a CSV shared in the channel checked
row by row (bad numbers, duplicates, blacklisted numbers, ragged rows), its bad rows
handed back as a CSV with line numbers, its good rows uploaded once after approval (also
by an app restarted in between), and the list's totals shown."""

from __future__ import annotations

import csv
import io

import pytest

from bot.runtime import Runtime
from bot.settings import Settings
from callcenter import CallCenter
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from storage import ApprovalState
from tests.bot.approval_helpers import (
    approved,
    ask,
    audit_outcomes,
    card_in,
    card_now,
    confirm,
    prompt_for,
    second_app,
    settled,
    shown,
)

pytestmark = pytest.mark.usefixtures("roles")


def a_list(pbx: EmulatorServer) -> str:
    return str(pbx.state("lists")[0]["list_uuid"])


async def blacklisted(pbx: EmulatorServer) -> str:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        return (await cc.blacklist.list()).data[0].phone_number


@pytest.mark.usefixtures("approvals")
async def test_one_lead_is_inserted_after_approval(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    list_uuid = a_list(pbx)
    prompt = await prompt_for(slack, f'lead {list_uuid} 0912345678 lead_name="An <Nguyen>"')
    assert "An &lt;Nguyen&gt;" in shown(prompt)
    await confirm(slack, prompt)
    done = await approved(slack, "0912 *** 678")  # the card masks the customer's number
    assert done["text"].endswith(": done")
    assert "0912 345 678" not in shown(done)
    sent = pbx.journal(method="POST", path="/v3/lead")
    assert len(sent) == 1
    assert sent[0]["body"]["lead_name"] == "An <Nguyen>"
    lead_uuid = app.storage.approvals.list(TEAM)[0].result["lead_uuid"]
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        lead = await cc.leads.get(lead_uuid)
    assert (lead.phone_number, lead.list_uuid) == ("0912345678", list_uuid)


async def test_bad_lead_input_is_refused_before_any_request(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    list_uuid = a_list(pbx)
    reply = await ask(slack, f"lead {list_uuid} 12345", user=AGENT)
    assert "not a phone number the service accepts" in shown(reply)
    reply = await ask(slack, "lead short-uuid 0912345678", user=AGENT)
    assert "36 characters" in shown(reply)
    reply = await ask(slack, f"lead {list_uuid} 0912345678 colour=red", user=AGENT)
    assert "'colour=' is not a lead field" in shown(reply)
    reply = await ask(slack, f"lead {list_uuid} 0912345678 lead_nam=Nguyễn Văn An", user=AGENT)
    assert "'lead_nam=' is not a lead field. Did you mean `lead_name=`?" in shown(reply)
    reply = await ask(slack, f"lead {list_uuid} {await blacklisted(pbx)}", user=AGENT)
    assert "blacklist" in shown(reply)
    assert app.storage.approvals.list(TEAM) == []
    assert pbx.journal(method="POST", path="/v3/lead") == []


def lead_file(blocked: str) -> bytes:
    rows = [
        "phone_number,lead_name,contract_number",
        "0912345678,An,C1",
        "0987654321,Binh,C2",
        "12345,Short,C3",
        "0912345678,Again,C4",
        f"{blocked},Blocked,C5",
        ",Nobody,C6",
        "0356789012,Ragged",
        "+84 35 678 9013,Chi,C8",
    ]
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.usefixtures("approvals")
async def test_a_csv_with_bad_rows_is_checked_and_its_good_rows_uploaded_once(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, settings: Settings
) -> None:
    list_uuid = a_list(pbx)
    blocked = await blacklisted(pbx)
    await slack.driver.file_share(
        user=AGENT, channel=CALL_CENTER, name="spring.csv", content=lead_file(blocked)
    )
    prompt = await prompt_for(slack, f"leads upload {list_uuid}")
    text = shown(prompt)
    assert "Upload *3 leads* from *spring.csv*" in text
    assert "8 rows checked" in text and "5 left out" in text
    assert "1 row without a number" in text and "1 number given twice" in text
    assert "1 row with the wrong number of columns" in text and "duplicates" not in text
    for line, reason in (
        (4, "not a phone number"),
        (5, "is already on line 2."),
        (6, "blacklist"),
        (7, "no phone number"),
        (8, "has 2 columns"),
    ):
        assert f"Line {line}:" in text and reason in text, (line, reason)
    # The rows to fix are customers' numbers: sent to the uploader alone, never the channel.
    fix = await slack.wait_for(
        lambda: next(
            (
                m
                for m in slack.dm(AGENT)
                if any(f["name"] == "spring-rows-to-fix.csv" for f in m.get("files", []))
            ),
            None,
        )
    )
    assert "rows of spring.csv to fix in a direct message" in text and "only you" in text
    channel_files = [f["name"] for m in slack.messages(CALL_CENTER) for f in m.get("files", [])]
    assert channel_files == ["spring.csv"]  # the agent's own share, and nothing else
    _, content = slack.file(fix["files"][0]["id"])
    rows = list(csv.reader(io.StringIO((content or b"").decode())))
    assert rows[0][:3] == ["line", "problem", "phone_number"]
    assert [r[0] for r in rows[1:]] == ["4", "5", "6", "7", "8"]
    await confirm(slack, prompt)
    card = await card_in(slack, APPROVALS, "spring.csv")
    assert pbx.journal(method="POST", path="/v3/lead/file") == []
    async for _ in second_app(settings, slack):
        await slack.driver.block_action(
            user=MANAGER, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
        )
        done = await card_now(slack, APPROVALS, card["ts"], settled)
    assert done["text"].endswith(": done"), shown(done)
    assert "Uploaded *3 leads*" in shown(done) and "now has" in shown(done)
    uploads = pbx.journal(method="POST", path="/v3/lead/file")
    assert len(uploads) == 1 and uploads[0]["body"]["rows"] == 3
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        totals = await cc.lists.get(list_uuid)
    assert (totals.total_upload, totals.total_success, totals.total_fail) == (3, 3, 0)
    assert app.storage.approvals.list(TEAM)[0].state is ApprovalState.DONE
    assert audit_outcomes(app, "lead.upload") == ["requested", "approved", "ok"]


async def test_upload_without_a_shared_csv_says_how_to_share_one(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    reply = await ask(slack, f"leads upload {a_list(pbx)}", user=AGENT)
    assert "Share the file here first" in shown(reply) and "phone_number" in shown(reply)
    await slack.driver.file_share(
        user=AGENT, channel=CALL_CENTER, name="notes.csv", content=b"name,city\nAn,Hue\n"
    )
    reply = await ask(slack, f"leads upload {a_list(pbx)}", user=AGENT)
    assert "no phone_number column" in shown(reply)
    assert app.storage.approvals.list(TEAM) == []


async def test_a_file_changed_after_the_check_is_not_uploaded(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    list_uuid = a_list(pbx)
    await slack.driver.file_share(
        user=AGENT, channel=CALL_CENTER, name="june.csv", content=b"phone_number\n0912345678\n"
    )
    prompt = await prompt_for(slack, f"leads upload {list_uuid}")
    approval = app.storage.approvals.list(TEAM)[0]
    stored = slack.core.state.file(approval.params["file_id"])
    assert stored is not None
    stored.content = b"phone_number\n0912345678\n0987654321\n"
    await confirm(slack, prompt)
    card = await card_in(slack, CALL_CENTER, "june.csv")
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="approval_approve", channel=CALL_CENTER, ts=card["ts"]
    )
    failed = await card_now(slack, CALL_CENTER, card["ts"], settled)
    assert failed["text"].endswith(": failed") and "not the one that was checked" in shown(failed)
    assert pbx.journal(method="POST", path="/v3/lead/file") == []
