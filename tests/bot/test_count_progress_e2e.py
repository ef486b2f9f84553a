"""A Full report or a digest preview whose count takes a while says so, shows how far it
got, and becomes the report or preview; its Stop button stops it."""

from __future__ import annotations

import pytest

from bot.runtime import Runtime
from commands.reports import progress
from commands.reports.figures import SHARED
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.digest_helpers import digests_in, shown
from tests.bot.test_commands_e2e import ask
from tests.bot.test_digests_e2e import add_digest


@pytest.fixture
def quick_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A count is "slow" after a tenth of a second here, and its note is rewritten often."""
    monkeypatch.setattr(progress, "FIRST_WORD", 0.1)
    monkeypatch.setattr(progress, "EVERY", 0.2)


async def digest_of_a_campaign(slack: SlackStandIn, pbx: EmulatorServer) -> dict[str, str]:
    pbx.generate_cdrs(5000, days=2)
    busiest = pbx.emulator.conn.execute(
        "SELECT campaign_uuid FROM cdrs WHERE campaign_uuid != '' AND t_start > ? "
        "GROUP BY campaign_uuid ORDER BY COUNT(*) DESC LIMIT 2",
        (pbx.now() - 2 * 86400,),
    ).fetchall()
    by_uuid = {c["campaign_uuid"]: c["campaign_name"] for c in pbx.state("campaigns")}
    names = [by_uuid[uuid] for (uuid,) in busiest]
    quoted = " ".join(f'"{name}"' for name in names)
    digest_id = await add_digest(slack, f"#call-center daily 00:00 {quoted} sections=totals")
    await ask(slack, f"digest run {digest_id}")
    digest: dict[str, str] = digests_in(slack, CALL_CENTER)[0]
    SHARED.clear()  # the report counts again rather than reuse the digest's count
    return digest


def notes(slack: SlackStandIn) -> list[str]:
    """Texts the app posted or rewrote saying it is counting."""
    return [
        str(e.params.get("text"))
        for e in slack.journal(kind="api")
        if e.method in ("chat.postMessage", "chat.update")
        and "Counting" in str(e.params.get("text"))
    ]


async def test_a_slow_report_says_it_is_counting_then_becomes_the_report(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, quick_notes: None
) -> None:
    digest = await digest_of_a_campaign(slack, pbx)
    # One campaign's records come at once, the other's are held: the note shows the
    # first while the second is awaited.
    pbx.fail_next("GET", "/v3/cdr", 200, hold_ms=1500)
    await slack.driver.block_action(
        user=SUPERVISOR, channel=CALL_CENTER, ts=digest["ts"], action_id="digest_full_report"
    )
    thread = await slack.wait_for(
        lambda: [
            m for m in slack.thread(CALL_CENTER, digest["ts"])[1:] if "Full report" in m["text"]
        ]
    )
    said = notes(slack)
    assert said and said[0].startswith(":hourglass_flowing_sand: Counting")
    assert any("call records… " in n and "done" in n for n in said)
    # The note became the report: one message in the thread, with no Stop button left.
    replies = slack.thread(CALL_CENTER, digest["ts"])[1:]
    assert len(replies) == 1 and replies == thread
    assert "Call statistics" in shown(replies[0]) and "count_stop" not in str(replies[0])


async def test_stop_ends_the_count_and_says_so(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, quick_notes: None
) -> None:
    digest = await digest_of_a_campaign(slack, pbx)
    pbx.fail_next("GET", "/v3/cdr", 200, hold_ms=1500, times=2)
    await slack.driver.block_action(
        user=SUPERVISOR, channel=CALL_CENTER, ts=digest["ts"], action_id="digest_full_report"
    )
    [note] = await slack.wait_for(
        lambda: [m for m in slack.thread(CALL_CENTER, digest["ts"])[1:] if "count_stop" in str(m)]
    )
    await slack.driver.block_action(
        user=SUPERVISOR, channel=CALL_CENTER, ts=note["ts"], action_id="count_stop"
    )
    await slack.wait_for(
        lambda: [
            m
            for m in slack.thread(CALL_CENTER, digest["ts"])[1:]
            if "Counting stopped" in m["text"]
        ]
    )
    replies = slack.thread(CALL_CENTER, digest["ts"])[1:]
    # The note says so and keeps no Stop button; no report follows.
    assert len(replies) == 1 and "Full report" not in replies[0]["text"]
    assert "count_stop" not in str(replies[0])


async def test_a_slow_preview_says_it_is_counting_then_becomes_the_preview(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, quick_notes: None
) -> None:
    await digest_of_a_campaign(slack, pbx)
    digest_id = digest_id_of(app)
    pbx.fail_next("GET", "/v3/cdr", 200, hold_ms=1500)
    note = await ask(slack, f"digest preview {digest_id}")
    assert "Counting" in shown(note) and "count_stop" in str(note)
    [preview] = await slack.wait_for(
        lambda: [m for m in slack.ephemerals(SUPERVISOR) if "Preview" in m["text"]]
    )
    # The preview took the note's place: no note is left.
    assert preview["ts"] == note["ts"]
    assert not [m for m in slack.ephemerals(SUPERVISOR) if "Counting" in m["text"]]


async def test_stopping_a_preview_says_so_in_its_place(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, quick_notes: None
) -> None:
    await digest_of_a_campaign(slack, pbx)
    pbx.fail_next("GET", "/v3/cdr", 200, hold_ms=1500, times=2)
    note = await ask(slack, f"digest preview {digest_id_of(app)}")
    await slack.driver.block_action(
        user=SUPERVISOR, ephemeral_ts=note["ts"], action_id="count_stop"
    )
    await slack.wait_for(
        lambda: [m for m in slack.ephemerals(SUPERVISOR) if "Counting stopped" in m["text"]]
    )
    assert not [m for m in slack.ephemerals(SUPERVISOR) if "Preview" in m["text"]]


def digest_id_of(app: Runtime) -> str:
    [digest] = app.storage.digests.list(TEAM)
    return digest.id
