"""Benchmark of the digest fan-out: many workspaces whose digests fall due in one minute.

    .venv/bin/python benchmarks/digests.py [--workspaces 500] [--latency-ms 200]
                                           [--concurrency 50] [--inject-429 20]

Everything runs on loopback: the call-center emulator (``callops emulator`` in its own
process, as the real service is elsewhere; every answer delayed by ``--latency-ms``), the
Slack stand-in (a thread of this process, Slack's per-channel pace switched on, and
``--inject-429`` extra 429s on ``chat.postMessage`` with Retry-After 1 s), and the
scheduler in this process's event loop.  Each workspace has its own Slack team,
bot token (an OAuth installation in the database), channel and call-center connection,
and one daily digest with every section (totals, campaigns, agents, chart) whose local
time, across a dozen time zones, is the same UTC minute.

``run_due`` is called once for that minute, then again (it must find nothing left).
Printed: wall time until every digest is posted, peak concurrency, Slack 429s, digests
lost.  Target: all posted within 30 s, none lost.  Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from cryptography.fernet import Fernet

from bot.digest_scheduler import DigestScheduler
from bot.runtime import Runtime
from bot.settings import Settings
from callcenter.addresses import LOOPBACK_NETWORKS
from emulators.pbx.config import DEMO_API_KEYS
from emulators.slack import TEAM, SlackStandIn
from storage import InstallationRecord, SecretBox, Storage

TARGET_SECONDS = 30.0
ZONES = (
    "UTC",
    "Asia/Ho_Chi_Minh",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    "Europe/Berlin",
    "Europe/London",
    "America/New_York",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Australia/Adelaide",
    "Pacific/Auckland",
    "Africa/Nairobi",
)


class Emulator:
    """``callops emulator`` in a child process on a free loopback port."""

    def __init__(self, latency_ms: int) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.latency_ms = latency_ms
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Emulator:
        callops = Path(sys.executable).with_name("callops")
        self._process = subprocess.Popen(
            [str(callops), "emulator", "--port", str(self.port), "--seed", "1",
             "--latency-ms", str(self.latency_ms)],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.base_url}/_emulator/clock", timeout=1).raise_for_status()
                return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the emulator did not start")

    def __exit__(self, *exc: object) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=10)

    def requests(self) -> int:
        entries = httpx.get(f"{self.base_url}/_emulator/journal", timeout=30).json()
        return len(entries)


def _setup(
    storage: Storage, slack: SlackStandIn, pbx: Emulator, count: int, slot: datetime
) -> list[tuple[str, str]]:
    """``count`` workspaces, each with a digest due at ``slot``; (team, channel) pairs."""
    placed: list[tuple[str, str]] = []
    for i in range(count):
        team_id = TEAM if i == 0 else f"TB{i:05d}"
        team = slack.team(TEAM) if i == 0 else slack.add_team(f"Center {i}", id=team_id)
        channel = slack.add_channel(team_id, f"digests-{i}", id=f"CB{i:05d}", bot_member=True)
        storage.installations.save(
            InstallationRecord(
                user_id="U0001",
                team_id=team_id,
                bot_token=team.bot_tokens[0],
                bot_user_id=team.bot_user_id,
                bot_id=team.bot_id,
                installed_at=1.0,
            )
        )
        key = DEMO_API_KEYS[i % 2]
        storage.workspaces.connect(team_id, pbx.base_url, key)
        zone = ZONES[i % len(ZONES)]
        local = slot.astimezone(ZoneInfo(zone))
        storage.digests.add(
            team_id,
            channel=channel.id,
            schedule=f"daily {local:%H:%M}",
            timezone=zone,
            created_by="U0001",
        )
        placed.append((team_id, channel.id))
    return placed


async def run(workspaces: int, latency_ms: int, concurrency: int, inject_429: int) -> bool:
    logging.basicConfig(level=logging.WARNING)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Emulator(latency_ms) as pbx,
        SlackStandIn() as slack,
    ):
        settings = Settings(
            _env_file=None,
            slack_signing_secret=slack.signing_secret,
            slack_api_url=slack.api_url,
            callops_db=str(Path(tmp) / "callops.db"),
            callops_secret_key=Fernet.generate_key().decode(),
            callops_service_networks=LOOPBACK_NETWORKS,
        )
        storage = Storage.open(settings.callops_db, SecretBox.from_settings(settings.secret_keys))
        slot = (datetime.now(UTC) + timedelta(minutes=2)).replace(second=0, microsecond=0)
        started = time.perf_counter()
        placed = _setup(storage, slack, pbx, workspaces, slot)
        print(f"set up {len(placed)} workspaces in {time.perf_counter() - started:.1f} s")

        rt = Runtime.build(settings, storage)
        scheduler = DigestScheduler(rt.storage, rt.digests, concurrency=concurrency)
        slack.channel_pace(True)
        if inject_429:
            slack.ratelimit("chat.postMessage", times=inject_429, retry_after=1)
        slack.core.journal.clear()

        started = time.perf_counter()
        report = await scheduler.run_due(slot + timedelta(seconds=1))
        wall = time.perf_counter() - started
        again = await scheduler.run_due(slot + timedelta(seconds=5))

        digests = charts = 0
        lost: list[str] = []
        for team_id, channel in placed:
            messages = slack.messages(channel, team_id)
            posted = [m for m in messages if "digest:" in str(m.get("text", ""))]
            digests += len(posted)
            charts += sum(
                1
                for m in messages
                if m.get("upload")
                or any(b.get("type") == "data_visualization" for b in m.get("blocks") or [])
            )
            if len(posted) != 1:
                lost.append(team_id)
        entries = slack.journal()
        throttled = sum(1 for e in entries if e.status == 429)
        calls = sum(1 for e in entries if e.kind == "api")
        service_requests = pbx.requests()
        await rt.close()
        storage.close()

    failures = [k for k, v in report.outcomes.items() if v != "posted"]
    print(f"workspaces / digests due        {workspaces} / {report.due}")
    print(f"wall time until all posted      {wall:.2f} s (target < {TARGET_SECONDS:.0f} s)")
    print(f"posted / failed / lost          {report.posted} / {len(failures)} / {len(lost)}")
    print(f"charts (drawn by Slack or PNG)  {charts}")
    print(f"peak concurrency                {report.peak_concurrency} (bound {concurrency})")
    print(f"Slack 429s (injected {inject_429:>3})       {throttled}")
    print(f"Slack Web API calls             {calls}")
    print(f"call-center requests            {service_requests} at {latency_ms} ms each")
    print(f"second run in the same minute   {again.due} due, {again.posted} posted")
    if failures:
        print("failures:", {k: report.outcomes[k] for k in failures[:5]})
    return wall < TARGET_SECONDS and not lost and digests == workspaces and again.posted == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspaces", type=int, default=500)
    parser.add_argument("--latency-ms", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--inject-429", type=int, default=20)
    args = parser.parse_args()
    ok = asyncio.run(run(args.workspaces, args.latency_ms, args.concurrency, args.inject_429))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
