"""Benchmark of a real call center's volume: figures over half a million calls a day.

    .venv/bin/python benchmarks/volume.py [--volume 500000:7] [--latency-ms 50]
                                          [--app PATH] [--emulator-url URL]

The call-center emulator runs in its own process (``callops emulator --volume``, every
answer delayed by ``--latency-ms``).  Each figure is then computed in a fresh child
process, so its peak memory (RSS, the high-water mark of the whole process: Python,
the app's modules and the figure) is its own:

* ``daily`` / ``daily-5``: yesterday's digest, whole call center / five campaigns;
* ``weekly`` / ``weekly-5``: the last seven days' digest, whole / five campaigns;
* ``stats-week``, ``stats-today``: ``stats week`` and ``stats today`` (whole center);
* ``report-5``: the full report behind the weekly five-campaign digest;
* ``cdr``: ``cdr``'s first page (today);
* ``wallboard``: the wallboard's (Home tab) refresh.

The five campaigns are the five with the most calls in the week.  ``--app PATH`` runs
the figures with the code of another checkout (``git worktree add ../base main``) against
the same emulator, for a before/after table; the emulator always comes from this tree.
Service requests per figure come from the emulator's journal.  Printed: one row per
figure (seconds, peak RSS in MB, requests).  Targets: daily digest within 60 s, weekly
within 300 s, peak RSS under 300 MB, ``cdr`` and ``stats today`` within 5 s; exits 1 when
one is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# This folder holds modules named like the app's packages (``storage.py``): off the path,
# so the checkout being measured (``PYTHONPATH``) is what is imported.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
CASES = (
    "daily",
    "daily-5",
    "weekly",
    "weekly-5",
    "report-5",
    "stats-week",
    "stats-today",
    "cdr",
    "wallboard",
)
TARGETS = {
    "daily": 60.0,
    "daily-5": 60.0,
    "weekly": 300.0,
    "weekly-5": 300.0,
    "stats-today": 5.0,
    "cdr": 5.0,
}
RSS_TARGET_MB = 300.0
API_KEY = "demo-api-key"


# --- the driver ---------------------------------------------------------------------------


class Emulator:
    """``callops emulator --volume`` in a child process on a free loopback port."""

    def __init__(self, volume: str, latency_ms: int) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.volume = volume
        self.latency_ms = latency_ms
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Emulator:
        import httpx

        callops = Path(sys.executable).with_name("callops")
        started = time.perf_counter()
        self._process = subprocess.Popen(
            [
                str(callops),
                "emulator",
                "--port",
                str(self.port),
                "--seed",
                "1",
                "--latency-ms",
                str(self.latency_ms),
                "--volume",
                self.volume,
                "--call-mode",
                "manual",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while True:
            if self._process.poll() is not None:
                raise RuntimeError("the emulator stopped while seeding")
            try:
                httpx.get(f"{self.base_url}/_emulator/clock", timeout=1.0)
                break
            except httpx.HTTPError:
                time.sleep(0.5)
        print(f"emulator seeded {self.volume} in {time.perf_counter() - started:.0f} s")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=30)


def busiest_campaigns(base_url: str, days: int) -> list[str]:
    """The five campaigns with the most calls over the week, by the service's own
    autodialer/autocall listing and a count of each one's records."""
    import httpx

    with httpx.Client(base_url=base_url, timeout=60.0) as http:
        token = http.post("/v3/auth/token", json={"api_key": API_KEY}).json()["token"]
        http.headers["Authorization"] = f"Bearer {token}"
        campaigns = http.get("/v3/campaign", params={"limit": 1000, "offset": 0}).json()["data"]
        start = (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%d")
        totals = []
        for c in campaigns:
            if c["type"] not in ("autocall", "autodialer"):
                continue
            page = http.get(
                "/v3/cdr",
                params={"campaign_uuid": c["campaign_uuid"], "start_date": start},
            ).json()
            totals.append((page["total"], c["campaign_uuid"]))
    return [uuid for _, uuid in sorted(totals, reverse=True)[:5]]


def run_case(
    case: str, base_url: str, app: Path, campaigns: list[str], days: int
) -> dict[str, Any]:
    import httpx

    httpx.delete(f"{base_url}/_emulator/journal")
    env = {**os.environ, "PYTHONPATH": str(app), "CALLOPS_SERVICE_NETWORKS": "127.0.0.0/8"}
    out = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--case",
            case,
            "--emulator-url",
            base_url,
            "--campaigns",
            ",".join(campaigns),
            "--days",
            str(days),
        ],
        env=env,
        cwd=str(app),
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        return {"case": case, "error": out.stderr.strip().splitlines()[-1:]}
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    journal = httpx.get(f"{base_url}/_emulator/journal", timeout=60.0).json()
    result["requests"] = sum(1 for e in journal if not e["path"].startswith("/v3/auth"))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--volume", default="500000:7")
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--app", action="append", default=None, help="checkout(s) to measure")
    parser.add_argument("--emulator-url", default=None, help="use a running emulator")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--case", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--campaigns", default="", help=argparse.SUPPRESS)
    parser.add_argument("--days", type=int, default=7, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(asyncio.run(measure(args))))
        return 0
    apps = [Path(a).resolve() for a in (args.app or [str(ROOT)])]
    days = int(args.volume.partition(":")[2] or 7)
    if args.emulator_url:
        return report(args.emulator_url, apps, args.cases.split(","), days)
    with Emulator(args.volume, args.latency_ms) as emulator:
        return report(emulator.base_url, apps, args.cases.split(","), days)


def report(base_url: str, apps: list[Path], cases: list[str], days: int) -> int:
    campaigns = busiest_campaigns(base_url, days)
    missed = 0
    rows: dict[str, dict[str, dict[str, Any]]] = {}
    for app in apps:
        for case in cases:
            result = run_case(case, base_url, app, campaigns, days)
            rows.setdefault(case, {})[str(app)] = result
            print(f"{app.name:>16} {case:<12} {json.dumps(result)}", flush=True)
            if "error" in result:
                continue
            if app == apps[-1] or len(apps) == 1:
                over_time = result["seconds"] > TARGETS.get(case, float("inf"))
                over_rss = result["rss_mb"] > RSS_TARGET_MB
                missed += int(over_time or over_rss)
    print()
    header = " | ".join(f"{a.name}: s · MB · requests" for a in apps)
    print(f"| figure | {header} |")
    print("|---|" + "---|" * len(apps))
    for case, by_app in rows.items():
        cells = []
        for app in apps:
            r = by_app.get(str(app), {})
            if "error" in r:
                cells.append(f"error: {r['error']}")
            else:
                cells.append(f"{r['seconds']:.1f} · {r['rss_mb']:.0f} · {r['requests']}")
        print(f"| {case} | " + " | ".join(cells) + " |")
    return 1 if missed else 0


# --- one figure, in its own process --------------------------------------------------------


class _Ctx:
    """What the wallboard's snapshot reads of a command's context: the client, the zone."""

    def __init__(self, cc: Any, tz: Any) -> None:
        self._cc = cc
        self.tz = tz

    def client(self) -> Any:
        return self._cc


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    from commands.families import FAMILIES
    from commands.registry import build_registry

    with build_registry(FAMILIES).using():  # the app's tables, as the dispatcher has them
        return await _measure(args)


async def _measure(args: argparse.Namespace) -> dict[str, Any]:
    from zoneinfo import ZoneInfo

    from callcenter import CallCenter
    from commands.digests.content import DigestRequest, build_digest, full_report
    from commands.digests.schedules import DigestPeriod
    from commands.kernel.periods import parse_period
    from commands.reports.figures import Scope, call_figures
    from commands.reports.stats import stats_reply
    from commands.reports.wallboard import snapshot

    tz = ZoneInfo("UTC")
    campaigns = tuple(c for c in args.campaigns.split(",") if c)
    today = datetime.now(tz).replace(hour=0, minute=0, second=0, microsecond=0)
    week = timedelta(days=args.days)
    daily = DigestPeriod(today - timedelta(days=1), today, today - timedelta(days=2), tz, None)
    weekly = DigestPeriod(today - week, today, today - 2 * week, tz, None)
    case = args.case
    started = time.perf_counter()
    counted = 0
    async with CallCenter(args.emulator_url, API_KEY, timeout=120.0) as cc:
        started = time.perf_counter()
        if case in ("daily", "daily-5", "weekly", "weekly-5"):
            period = daily if case.startswith("daily") else weekly
            chosen = campaigns if case.endswith("-5") else ()
            digest = await build_digest(
                cc, DigestRequest(period, "Digest", campaigns=chosen), now=period.end
            )
            counted = digest.figures.totals.calls
        elif case == "report-5":
            reply = await full_report(cc, weekly, campaigns)
            counted = len(reply.blocks)
        elif case in ("stats-week", "stats-today"):
            window = parse_period(case.removeprefix("stats-"), tz).window()
            figures = await call_figures(cc, Scope(), window)
            stats_reply(figures, "day" if case == "stats-week" else "hour")
            counted = figures.totals.calls
        elif case == "cdr":
            page = await cc.cdrs.list(start_date=today, limit=20, offset=0)
            counted = page.total
        elif case == "wallboard":
            snap = await snapshot(_Ctx(cc, tz))  # type: ignore[arg-type]
            counted = getattr(getattr(snap.today, "totals", None), "calls", 0)
        else:
            raise SystemExit(f"unknown case {case}")
    seconds = time.perf_counter() - started
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "case": case,
        "seconds": round(seconds, 2),
        "rss_mb": round(rss_mb, 1),
        "calls": counted,
    }


if __name__ == "__main__":
    sys.exit(main())
