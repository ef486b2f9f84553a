"""Benchmark of the call-record callbacks: how fast records are accepted, how fast cards drain.

    .venv/bin/python benchmarks/callbacks.py [--accept 2000] [--concurrency 32] [--drain 1000]
                                             [--channels 50]

Everything runs on loopback: the Slack stand-in with Slack's per-channel pace switched on
(1 message/s per channel, bursts of 3), the app serving ``/callbacks/{token}`` with its
poster, and a sender in a process of its own (as the service would be, apart from sharing
the CPU).

Figures:

1. Acceptance: ``--accept`` records POSTed by ``--concurrency`` senders while the poster
   runs; callbacks accepted per second, and the response time the sender saw (p50, p99;
   the issue asks for answers within 100 ms).
2. Drain at Slack's pace: ``--drain`` cards queued for ``--channels`` channels (the
   poster stopped while they arrive), then the time until every record is in Slack. A
   channel takes one message a second; the records that waited together go out in one
   folded message (``benchmarks/feed.py`` measures that under a steady stream).
3. The poster's own speed: the same cards for 4 channels with the pace kept on the
   stand-in's clock (moved forward instead of waited for): cards per second of real time
   the poster can push, and Slack 429s seen (must be 0).

Exits 1 if a record was not accepted, a card was lost or posted twice, or Slack said 429.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import time
import uuid
from multiprocessing.queues import Queue
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp

from bot.feed_metadata import read_payload
from bot.runtime import Runtime
from bot.server import serving
from callcenter.addresses import LOOPBACK_NETWORKS
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SUPERVISOR, TEAM, SlackStandIn
from tests.bot.feed_helpers import make_record, stand_in_settings


def record(channel_index: int, campaigns: list[str], k: int) -> dict[str, Any]:
    return make_record(
        to_number=f"09{k:08d}",
        campaign_uuid=campaigns[channel_index],
        press_key="1" if k % 2 else "",
    )


def _sender(url: str, bodies: list[dict[str, Any]], concurrency: int, out: Queue[Any]) -> None:
    """The service's side, in a process of its own (so it does not share the app's GIL)."""

    async def main() -> tuple[float, list[float]]:
        pending = list(reversed(bodies))
        times: list[float] = []
        connector = aiohttp.TCPConnector(limit=concurrency)
        async with aiohttp.ClientSession(connector=connector) as http:

            async def worker() -> None:
                while pending:
                    body = pending.pop()
                    started = time.perf_counter()
                    async with http.post(url, json=body) as answer:
                        await answer.read()
                        if answer.status != 200:
                            raise SystemExit(f"callback refused: HTTP {answer.status}")
                    times.append(time.perf_counter() - started)

            started = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return time.perf_counter() - started, times

    out.put(asyncio.run(main()))


def send_all(url: str, bodies: list[dict[str, Any]], concurrency: int) -> tuple[float, list[float]]:
    """POST every body from another process; its wall time and each response time (s)."""
    context = multiprocessing.get_context("spawn")
    out: Queue[Any] = context.Queue()
    process = context.Process(target=_sender, args=(url, bodies, concurrency, out))
    process.start()
    wall, times = out.get()
    process.join()
    if process.exitcode:
        raise SystemExit(f"the sender failed (exit {process.exitcode})")
    return float(wall), list(times)


async def posted(slack: SlackStandIn, bodies: list[dict[str, Any]]) -> list[str]:
    """The records of ``bodies`` Slack shows, each once: cards, and the rows of folded
    messages (a channel's records that waited together are one message, edited as more
    come; an edit shows the rows it had before too, records of an earlier step)."""
    sent = {str(b["id"]) for b in bodies}
    shown: dict[str, None] = {}
    for entry in slack.journal("chat.postMessage") + slack.journal("chat.update"):
        payload = read_payload({"metadata": entry.params.get("metadata")}) if entry.ok else None
        shown.update(dict.fromkeys(r for r in (payload.shown() if payload else ()) if r in sent))
    return list(shown)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(args: argparse.Namespace, workdir: Path) -> int:
    failures = 0
    with EmulatorServer(seed=1) as pbx:
        async with SlackStandIn() as slack:
            channels = [
                slack.add_channel(TEAM, f"feed-{i}", members=(SUPERVISOR,)).id
                for i in range(args.channels)
            ]
            campaigns = [str(uuid.uuid4()) for _ in channels]
            slack.channel_pace(True)
            settings = stand_in_settings(
                slack, workdir / "callops.db", callops_service_networks=LOOPBACK_NETWORKS
            )
            rt: Runtime = Runtime.open(settings)
            rt.storage.workspaces.connect(TEAM, pbx.base_url, pbx.api_key)
            for channel, campaign in zip(channels, campaigns, strict=True):
                rt.storage.routes.add(
                    TEAM, channel=channel, created_by=SUPERVISOR, campaigns=[campaign]
                )
            try:
                async with serving(rt, port=0) as base:
                    feed = rt.call_feed
                    url = f"{base}/callbacks/{rt.storage.callback_tokens.get_or_create(TEAM)}"

                    # 1. acceptance, with the poster running at Slack's pace
                    for senders, count in ((1, args.accept // 4), (args.concurrency, args.accept)):
                        bodies = [record(k % len(channels), campaigns, k) for k in range(count)]
                        wall, times = await asyncio.to_thread(send_all, url, bodies, senders)
                        print(
                            f"accepted {len(times):,} callbacks from {senders} sender(s) in "
                            f"{wall:.2f} s: {len(times) / wall:,.0f}/s; response p50 "
                            f"{statistics.median(times) * 1000:.1f} ms, p99 "
                            f"{percentile(times, 0.99) * 1000:.1f} ms, "
                            f"max {max(times) * 1000:.1f} ms"
                        )
                    await feed.stop()
                    rt.storage.call_feed.clear()
                    slack.core.journal.clear()
                    slack.channel_pace(True)

                    # 2. drain 1,000 queued cards at Slack's real pace
                    bodies = [record(k % len(channels), campaigns, k) for k in range(args.drain)]
                    await asyncio.to_thread(send_all, url, bodies, args.concurrency)
                    queued = rt.storage.call_feed.pending()
                    started = time.perf_counter()
                    feed.start()
                    await feed.drained(within=args.drain + 60)
                    drain = time.perf_counter() - started
                    cards = await posted(slack, bodies)
                    best = args.drain / len(channels)
                    print(
                        f"drained {queued:,} queued cards over {len(channels)} channels in "
                        f"{drain:.1f} s (one card a second would take ≥ {best - 1:.0f} s); "
                        f"429s: {sum(e.status == 429 for e in slack.journal('chat.postMessage'))}"
                    )
                    failures += len(cards) != args.drain

                    # 3. the poster's own speed, the pace kept on the stand-in's clock
                    await feed.stop()
                    slack.core.journal.clear()
                    slack.channel_pace(True)

                    async def move(seconds: float) -> None:
                        slack.clock.advance(seconds)
                        await asyncio.sleep(0)

                    feed.use_clock(slack.clock.now, move)
                    few = campaigns[:4]
                    bodies = [record(k % 4, few, k) for k in range(args.drain)]
                    await asyncio.to_thread(send_all, url, bodies, args.concurrency)
                    started = time.perf_counter()
                    feed.start()
                    await feed.drained(within=300)
                    elapsed = time.perf_counter() - started
                    cards = await posted(slack, bodies)
                    throttled = sum(e.status == 429 for e in slack.journal("chat.postMessage"))
                    print(
                        f"poster alone: {len(cards):,} cards for 4 channels in {elapsed:.2f} s "
                        f"({len(cards) / elapsed:,.0f} cards/s), stand-in clock moved "
                        f"{slack.clock.offset:,.0f} s; 429s: {throttled}"
                    )
                    failures += len(cards) != args.drain or throttled != 0
            finally:
                rt.storage.close()
    if failures:
        print("FAILED: cards were lost, duplicated or throttled", file=sys.stderr)
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accept", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--drain", type=int, default=1000)
    parser.add_argument("--channels", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(run(args, Path(tmp)))


if __name__ == "__main__":
    sys.exit(main())
