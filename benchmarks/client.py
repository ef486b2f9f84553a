"""Benchmark of the call-center client against the emulator, side by side with raw httpx.

    .venv/bin/python benchmarks/client.py [--cdrs 100000] [--calls 200] [--rounds 5]
    .venv/bin/python benchmarks/client.py --base-url http://127.0.0.1:8900  # a running emulator
    .venv/bin/python benchmarks/client.py --roads [--calls 200] [--rounds 5] [--concurrency 20]

Two figures, each with its target (``--roads`` measures the third instead):

1. Per-call overhead of ``cc.campaigns.list(limit=50)`` against a raw ``httpx`` GET of
   the same URL with the same token that also decodes the JSON (the least any caller
   does).  Calls alternate between the two in rounds, so drift in the emulator or the
   machine hits both alike; the ratio of the medians is the overhead.  Target <= 1.5x.
2. Memory while ``async for`` walks 100,000 CDRs (``cc.cdrs.iterate``, 500 a page):
   the tracemalloc peak above the level at the start, and the growth of the resident
   set sampled during the walk.  Target < 100 MB.  The emulator runs in this process
   (a server thread), so both figures include its own allocations: an upper bound.

3. ``--roads``: the client as callops builds it (``bot.service_clients``: every request
   through httpx's ``AsyncClient.request``, reads sent over aiohttp by
   ``bot.service_clients``) against the same client on httpx's own transport
   (``ServiceAddresses.transport``, what writes use).  Before 2026-11-29 the client also
   handed each request to the transport past ``AsyncClient.request``; the run that
   dropped that is in ``benchmarks/README.md``.  The emulator runs in its own
   process, so this process's CPU is the client's.  Per road: a command's service call
   (``cc.campaigns.list_all()``, what ``/callops campaigns`` asks) one at a time, wall
   and CPU time, rounds interleaved; then ``--concurrency`` commands at once on one
   client (a busy workspace), calls a second and p99.  Ratios are against the first.

Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from bot.service_clients import service_transport, tls_context
from callcenter import CallCenter
from callcenter.addresses import LOOPBACK_NETWORKS, ServiceAddresses, ServiceNetworks

OVERHEAD_TARGET = 1.5
MEMORY_TARGET_MB = 100.0
DEFAULT_API_KEY = "demo-api-key"


def rss_bytes() -> int:
    """Current resident set size (Linux /proc); falls back to the peak elsewhere."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@dataclass
class Overhead:
    raw_median_ms: float
    client_median_ms: float
    raw_p95_ms: float
    client_p95_ms: float
    items: int

    @property
    def ratio(self) -> float:
        return self.client_median_ms / self.raw_median_ms


@dataclass
class Memory:
    records: int
    seconds: float
    traced_peak_mb: float
    rss_growth_mb: float


async def _timed(call: Callable[[], Awaitable[Any]], times: int, into: list[float]) -> None:
    for _ in range(times):
        start = time.perf_counter()
        await call()
        into.append((time.perf_counter() - start) * 1000)


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1]


async def measure_overhead(base_url: str, api_key: str, calls: int, rounds: int) -> Overhead:
    async with CallCenter(base_url, api_key) as cc, httpx.AsyncClient() as raw:
        token = (await cc.auth.token()).token
        headers = {"Authorization": f"Bearer {token}"}
        url = base_url.rstrip("/") + "/v3/campaign"

        async def raw_call() -> Any:
            response = await raw.get(url, params={"limit": 50, "offset": 0}, headers=headers)
            response.raise_for_status()
            return response.json()

        async def client_call() -> Any:
            return await cc.campaigns.list(limit=50)

        items = len((await client_call()).data)
        if len((await raw_call())["data"]) != items:
            raise SystemExit("raw and client calls returned different pages")
        warm: list[float] = []
        await _timed(raw_call, 20, warm)
        await _timed(client_call, 20, warm)

        raw_ms: list[float] = []
        client_ms: list[float] = []
        for round_no in range(rounds):
            order = [(raw_call, raw_ms), (client_call, client_ms)]
            if round_no % 2:
                order.reverse()
            for call, into in order:
                await _timed(call, calls, into)
    return Overhead(
        raw_median_ms=statistics.median(raw_ms),
        client_median_ms=statistics.median(client_ms),
        raw_p95_ms=_p95(raw_ms),
        client_p95_ms=_p95(client_ms),
        items=items,
    )


async def measure_memory(base_url: str, api_key: str, records: int) -> Memory:
    async with CallCenter(base_url, api_key, timeout=60) as cc:
        await cc.auth.token()
        gc.collect()
        rss_start = rss_bytes()
        rss_peak = rss_start
        tracemalloc.start()
        traced_start, _ = tracemalloc.get_traced_memory()
        started = time.perf_counter()
        count = 0
        async for _cdr in cc.cdrs.iterate(page_size=500):
            count += 1
            if count % 500 == 0:
                rss_peak = max(rss_peak, rss_bytes())
            if count >= records:
                break
        seconds = time.perf_counter() - started
        _, traced_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    rss_peak = max(rss_peak, rss_bytes())
    return Memory(
        records=count,
        seconds=seconds,
        traced_peak_mb=(traced_peak - traced_start) / 1e6,
        rss_growth_mb=(rss_peak - rss_start) / 1e6,
    )


# --- --roads: the client as built against httpx's public API ---------------------------

ROADS = (
    "as built: AsyncClient.request, reads over aiohttp",
    "AsyncClient.request, httpx's own transport",
)
TIMEOUT_S = 10.0
"""``bot.service_clients``' timeout for every call."""


def road_client(road: int, base_url: str, api_key: str) -> tuple[CallCenter, httpx.AsyncClient]:
    """The client of ``road`` (an index into ``ROADS``), on the checked addresses, and
    the httpx client it sends through (its own, or one handed in: closed apart)."""
    addresses = ServiceAddresses(ServiceNetworks.parse(LOOPBACK_NETWORKS))
    tls = tls_context()
    if road == 0:  # as bot.service_clients builds it
        transport = service_transport(tls, addresses)
        owned = httpx.AsyncClient()  # nothing to close: the CallCenter closes its own
        return CallCenter(base_url, api_key, timeout=TIMEOUT_S, transport=transport), owned
    client = httpx.AsyncClient(transport=addresses.transport(tls), timeout=httpx.Timeout(TIMEOUT_S))
    return CallCenter(base_url, api_key, http_client=client), client


@dataclass
class Road:
    label: str
    wall_ms: list[float]
    cpu_ms: list[float]
    burst_rate: list[float]
    burst_p99_ms: list[float]


async def _one_at_a_time(cc: CallCenter, calls: int, road: Road) -> None:
    cpu_start = time.process_time()
    for _ in range(calls):
        start = time.perf_counter()
        await cc.campaigns.list_all()
        road.wall_ms.append((time.perf_counter() - start) * 1000)
    road.cpu_ms.append((time.process_time() - cpu_start) * 1000 / calls)


async def _burst(cc: CallCenter, calls: int, concurrency: int, road: Road) -> None:
    """``calls`` commands' calls, ``concurrency`` at a time, on one client."""
    latencies: list[float] = []
    left = iter(range(calls))

    async def worker() -> None:
        for _ in left:
            start = time.perf_counter()
            await cc.campaigns.list_all()
            latencies.append((time.perf_counter() - start) * 1000)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    road.burst_rate.append(calls / (time.perf_counter() - start))
    road.burst_p99_ms.append(statistics.quantiles(latencies, n=100)[-1])


async def measure_roads(
    base_url: str, api_key: str, calls: int, rounds: int, concurrency: int
) -> list[Road]:
    roads = [Road(label, [], [], [], []) for label in ROADS]
    built = [road_client(n, base_url, api_key) for n in range(len(ROADS))]
    clients = [cc for cc, _ in built]
    try:
        shown = {len(await cc.campaigns.list_all()) for cc in clients}
        if len(shown) != 1:
            raise SystemExit(f"the roads returned different listings: {shown}")
        for cc in clients:  # warm: a token, kept-alive connections, caches
            await _burst(cc, concurrency * 4, concurrency, Road("", [], [], [], []))
        for round_no in range(rounds):
            order = list(zip(clients, roads, strict=True))
            if round_no % 2:
                order.reverse()
            for cc, road in order:
                gc.collect()
                await _one_at_a_time(cc, calls, road)
                await _burst(cc, calls, concurrency, road)
    finally:
        for cc, http in built:
            await cc.close()
            await http.aclose()
    return roads


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def emulator_process(seed: int) -> Iterator[str]:
    """``callops emulator`` in a process of its own, so its CPU is not the client's."""
    port = _free_port()
    argv = [sys.executable, "-m", "bot.cli", "emulator", "--host", "127.0.0.1"]
    argv += ["--port", str(port), "--seed", str(seed)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    with tempfile.TemporaryFile() as output:
        child = subprocess.Popen(argv, env=env, stdout=output, stderr=output)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if child.poll() is not None or time.monotonic() > deadline:
                        output.seek(0)
                        raise SystemExit(output.read().decode(errors="replace")[-2000:]) from None
                    time.sleep(0.05)
            yield f"http://127.0.0.1:{port}"
        finally:
            child.terminate()
            child.wait(timeout=30)


def print_roads(roads: list[Road], calls: int, rounds: int, concurrency: int) -> None:
    base = roads[0]

    def med(values: list[float]) -> float:
        return statistics.median(values)

    print(
        f"cc.campaigns.list_all() ({calls} calls a round, {rounds} rounds, interleaved; "
        f"bursts of {calls} with {concurrency} at once)"
    )
    print(
        "| Road | median ms | p95 ms | CPU ms per call | calls/s at "
        f"{concurrency} at once | p99 ms at {concurrency} at once |"
    )
    print("|---|---|---|---|---|---|")
    for road in roads:
        ratios = (
            med(road.wall_ms) / med(base.wall_ms),
            _p95(road.wall_ms) / _p95(base.wall_ms),
            med(road.cpu_ms) / med(base.cpu_ms),
            med(road.burst_rate) / med(base.burst_rate),
            med(road.burst_p99_ms) / med(base.burst_p99_ms),
        )
        figures = (
            med(road.wall_ms),
            _p95(road.wall_ms),
            med(road.cpu_ms),
            med(road.burst_rate),
            med(road.burst_p99_ms),
        )
        cells = " | ".join(
            f"{f:,.2f} ({r:.2f}x)" if f < 100 else f"{f:,.0f} ({r:.2f}x)"
            for f, r in zip(figures, ratios, strict=True)
        )
        print(f"| {road.label} | {cells} |")


def _emulator(args: argparse.Namespace) -> AbstractContextManager[Any]:
    if args.base_url:
        return nullcontext(None)
    from emulators.pbx.testing import EmulatorServer

    return EmulatorServer(seed=args.seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", help="use a running emulator instead of starting one")
    parser.add_argument("--api-key", default=DEFAULT_API_KEY)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cdrs", type=int, default=100_000, help="records to walk")
    parser.add_argument("--calls", type=int, default=200, help="calls per side per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--roads", action="store_true", help="the third figure only")
    parser.add_argument("--concurrency", type=int, default=20, help="--roads: at once")
    args = parser.parse_args(argv)

    if args.roads:
        with (
            nullcontext(args.base_url) if args.base_url else emulator_process(args.seed)
        ) as base_url:
            roads = asyncio.run(
                measure_roads(base_url, args.api_key, args.calls, args.rounds, args.concurrency)
            )
        print_roads(roads, args.calls, args.rounds, args.concurrency)
        return 0

    with _emulator(args) as emu:
        if emu is None:
            base_url, api_key = args.base_url, args.api_key
        else:
            base_url = emu.base_url
            api_key = getattr(emu, "api_key", args.api_key)
            print(f"emulator at {base_url}; adding {args.cdrs:,} CDRs ...", flush=True)
            emu.generate_cdrs(args.cdrs)

        overhead = asyncio.run(measure_overhead(base_url, api_key, args.calls, args.rounds))
        memory = asyncio.run(measure_memory(base_url, api_key, args.cdrs))

    overhead_ok = overhead.ratio <= OVERHEAD_TARGET
    memory_ok = (
        memory.records >= args.cdrs
        and memory.traced_peak_mb < MEMORY_TARGET_MB
        and memory.rss_growth_mb < MEMORY_TARGET_MB
    )
    samples = args.calls * args.rounds
    print()
    print(f"per call, GET /v3/campaign?limit=50 ({overhead.items} campaigns, {samples} calls each)")
    print(f"  {'':10}{'median ms':>12}{'p95 ms':>10}")
    print(f"  {'raw httpx':10}{overhead.raw_median_ms:>12.3f}{overhead.raw_p95_ms:>10.3f}")
    print(f"  {'client':10}{overhead.client_median_ms:>12.3f}{overhead.client_p95_ms:>10.3f}")
    verdict = "met" if overhead_ok else "MISSED"
    print(f"  ratio {overhead.ratio:.2f}x (target <= {OVERHEAD_TARGET}x): {verdict}")
    print()
    rate = memory.records / memory.seconds if memory.seconds else 0.0
    print(f"async for over {memory.records:,} CDRs in {memory.seconds:.1f} s ({rate:,.0f}/s)")
    print(f"  tracemalloc peak above start: {memory.traced_peak_mb:.1f} MB")
    print(f"  resident set growth:          {memory.rss_growth_mb:.1f} MB")
    verdict = "met" if memory_ok else "MISSED"
    print(f"  target < {MEMORY_TARGET_MB:.0f} MB: {verdict}")
    return 0 if overhead_ok and memory_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
