"""Benchmark of the lead upload: a 100,000-row CSV with 5 % bad rows, checked and uploaded.

    .venv/bin/python benchmarks/leads.py [--rows 100000] [--bad 0.05]

Both halves of ``/callops leads upload`` run as the app runs them, with the file coming
from a local stand-in for Slack's download (chunks of 64 KiB, as ``url_private_download``
streams it):

1. the request: download, SHA-256, row-by-row check (pattern, duplicates, blacklist),
   good and bad rows written to temporary files (``leads_upload.download_and_check``);
2. the approved upload: download again, verify the hash, check again, stream the good
   rows to ``POST /v3/lead/file``, read the list's totals (``execute_upload``).

The call-center emulator runs as a separate process (``callops emulator``), so the
memory figures are this process's alone: the tracemalloc peak above the start and the
peak resident set (``ru_maxrss``).  Targets: check + upload under 10 s, under 150 MB.  ``--trace``
adds the tracemalloc peak (and slows everything several times, so no time target then).
Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import socket
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from callcenter import CallCenter
from commands.kernel.actions import ExecutionEnv
from commands.kernel.phones import blocked_numbers
from commands.kernel.slack_files import SharedFile
from commands.leads.upload import UploadParams, download_and_check, execute_upload

TIME_TARGET_S = 10.0
MEMORY_TARGET_MB = 150.0
API_KEY = "demo-api-key"
CHUNK = 64 * 1024
PREFIXES = ("03", "05", "07", "08", "09")


class LocalFile:
    """``SlackFiles`` over a file on disk: what the bot's download would yield."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.shared = SharedFile(
            id="F0BENCH", name=path.name, size=path.stat().st_size, download_url="", user="U0"
        )

    async def latest_csv(self, channel: str, user: str) -> SharedFile | None:
        return self.shared

    async def find(self, file_id: str) -> SharedFile | None:
        return self.shared

    async def download(self, file: SharedFile) -> AsyncIterator[bytes]:
        with self.path.open("rb") as source:
            while chunk := source.read(CHUNK):
                yield chunk

    async def post(
        self, channel: str, *, filename: str, path: str, comment: str, thread_ts: str | None
    ) -> bool:
        return True

    async def send_to(self, user: str, *, filename: str, path: str, comment: str) -> bool:
        return True


def write_csv(path: Path, rows: int, bad_share: float, blocked: list[str]) -> int:
    """``rows`` leads, ``bad_share`` of them bad (a third malformed, a third repeated, a
    third blacklisted); returns how many are bad."""
    rng = random.Random(7)
    bad_every = max(1, round(1 / bad_share)) if bad_share > 0 else rows + 1
    bad = 0
    seen: list[str] = []
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write("phone_number,lead_name,contract_number\n")
        for i in range(rows):
            if i and i % bad_every == 0:
                kind = bad % 3
                phone = ("12345", rng.choice(seen), rng.choice(blocked))[kind]
                bad += 1
            else:
                phone = f"{rng.choice(PREFIXES)}{i:08d}"
                if len(seen) < 1000:
                    seen.append(phone)
            out.write(f"{phone},Customer {i},HD{i:07d}\n")
    return bad


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_emulator() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "emulator", "--port", str(port), "--call-mode", "manual"],
        cwd=Path(__file__).resolve().parents[1],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{url}/_emulator/clock", timeout=1.0)
            return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the emulator did not start")


async def measure(base_url: str, list_uuid: str, rows: int, bad_share: float, trace: bool) -> int:
    async with CallCenter(base_url, API_KEY, timeout=120.0) as cc:
        blocked = sorted(await blocked_numbers(cc))
        with tempfile.TemporaryDirectory(prefix="callops-bench-") as folder:
            source = Path(folder) / "leads.csv"
            bad = write_csv(source, rows, bad_share, blocked)
            size_mb = source.stat().st_size / 1e6
            files = LocalFile(source)
            rss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            if trace:
                tracemalloc.start()
            started = time.perf_counter()
            work = Path(folder) / "request"
            work.mkdir()
            sha256, report, _, _ = await download_and_check(files, files.shared, set(blocked), work)
            checked = time.perf_counter()
            params = UploadParams(
                list_uuid=list_uuid, file_id=files.shared.id, sha256=sha256, valid=report.valid
            )
            result = await execute_upload(params, ExecutionEnv(cc=cc, files=files))
            finished = time.perf_counter()
            peak = tracemalloc.get_traced_memory()[1] if trace else 0
            tracemalloc.stop()
            rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            totals = await cc.lists.get(list_uuid)
    total_s = finished - started
    peak_mb = peak / 1e6
    print(f"file: {rows:,} rows ({size_mb:.1f} MB), {bad:,} bad ({100 * bad / rows:.1f} %)")
    print(f"check (download, hash, every row): {checked - started:.2f} s")
    print(f"  valid {report.valid:,}, left out {report.invalid:,}: {dict(report.reasons)}")
    print(f"upload (download again, verify, check, stream, totals): {finished - checked:.2f} s")
    print(f"  service: list has {totals.total_leads:,} leads, success {totals.total_success:,}")
    print(f"check + upload: {total_s:.2f} s (target < {TIME_TARGET_S:.0f} s)")
    print(f"peak RSS of this process: {rss_peak:.1f} MB (at start {rss_start:.1f} MB)")
    if trace:
        print(f"tracemalloc peak (Python allocations; slows the run): {peak_mb:.1f} MB")
    print(f"memory target < {MEMORY_TARGET_MB:.0f} MB (peak RSS of this process)")
    ok = result.ok and rss_peak < MEMORY_TARGET_MB and (trace or total_s < TIME_TARGET_S)
    print("result:", "OK" if ok else "TARGET MISSED")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--bad", type=float, default=0.05)
    parser.add_argument(
        "--trace", action="store_true", help="also trace Python allocations (much slower)"
    )
    args = parser.parse_args()
    process, url = start_emulator()
    try:
        lists = httpx.get(f"{url}/_emulator/state/lists", params={"domain": "demo"}).json()
        return asyncio.run(measure(url, lists[0]["list_uuid"], args.rows, args.bad, args.trace))
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
