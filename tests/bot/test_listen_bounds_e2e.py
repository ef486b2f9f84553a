"""Listen within bounds: a burst of clicks runs a few espeak-ng processes at a time, and
every click is answered; a recording lost on its way to Slack is told to the person.

The real espeak-ng runs behind a wrapper first on ``PATH`` that only counts how many run
together (nothing of callops is replaced)."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from bot.runtime import Runtime
from callcenter.models import Campaign
from commands.calls.audio import AT_ONCE
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SUPERVISOR, SlackStandIn
from tests.bot.approval_helpers import ask, button_ids, shown

pytestmark = pytest.mark.usefixtures("roles")

SENT = "I sent you the audio in a direct message."
NOT_SENT = "I could not send you the audio in a direct message."


def counting_espeak(folder: Path, real: str) -> Path:
    """A wrapper named espeak-ng that notes how many copies run at once (each one, once
    started, counts the others running), then runs the real one."""
    runs = folder / "runs"
    runs.mkdir()
    wrapper = folder / "bin" / "espeak-ng"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        f'touch "{runs}/$$"\n'
        f'ls "{runs}" | wc -l >> "{folder}/seen"\n'
        f'{real} "$@"\n'
        "status=$?\n"
        f'rm -f "{runs}/$$"\n'
        "exit $status\n"
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return wrapper.parent


async def listen_reply(slack: SlackStandIn, campaign: Campaign) -> dict[str, object]:
    reply = await ask(
        slack, f"listen {campaign.campaign_uuid} name=An amount=1500000 due_date=31/12/2026"
    )
    assert "autocall_listen" in button_ids(reply)
    return reply


def answers(slack: SlackStandIn, words: str) -> int:
    return sum(1 for m in slack.ephemerals(SUPERVISOR) if words in str(m.get("text")))


async def test_a_hundred_listen_clicks_are_all_answered_a_few_voices_at_a_time(
    app: Runtime,
    slack: SlackStandIn,
    pbx: EmulatorServer,
    reminder: Campaign,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    espeak_ng: str,
) -> None:
    bin_dir = counting_espeak(tmp_path, espeak_ng)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    reply = await listen_reply(slack, reminder)
    clicks = 100
    deliveries = await asyncio.gather(
        *(
            slack.driver.block_action(
                user=SUPERVISOR, action_id="autocall_listen", ephemeral_ts=str(reply["ts"])
            )
            for _ in range(clicks)
        )
    )
    assert all(d.acked for d in deliveries)
    await slack.wait_for(lambda: answers(slack, SENT) >= clicks or None, within=300)
    recordings = [
        f
        for m in slack.dm(SUPERVISOR)
        for f in m.get("files", [])
        if f["name"] == "callops-preview.wav"
    ]
    seen = [int(n) for n in (tmp_path / "seen").read_text().split()]
    print(f"\n{clicks} clicks: {len(recordings)} recordings sent; espeak-ng at once: {max(seen)}")
    assert len(recordings) == clicks and len(seen) == clicks
    assert max(seen) <= AT_ONCE


async def test_a_recording_lost_on_its_way_is_told_to_the_person(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, reminder: Campaign
) -> None:
    reply = await listen_reply(slack, reminder)
    slack.cut("files.completeUploadExternal")  # the network fails on the answer's way back
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="autocall_listen", ephemeral_ts=str(reply["ts"])
    )
    told = await slack.wait_for(
        lambda: next((m for m in slack.ephemerals(SUPERVISOR) if NOT_SENT in str(m)), None)
    )
    assert "went wrong" not in shown(told)
    # The next click, with the network back, gets its recording.
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="autocall_listen", ephemeral_ts=str(reply["ts"])
    )
    await slack.wait_for(lambda: answers(slack, SENT) >= 1 or None)
