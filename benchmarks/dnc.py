"""The do-not-call list at the registry's scale: upload a million numbers, then check a
100,000-row lead file against it.

Each measure runs in a child process of its own, so its peak memory (ru_maxrss) is its
own: the upload reads the file with the ``dnc upload`` command's own reader
(``commands.rules.dnc.upload_registry_file``: the phone parser on every row, streamed
into ``CallListStore.upload_registry`` as the registry's first version) into a fresh
SQLite file; the check runs the lead upload's first pass (``phones_in``) and look-up
(``on_registry_now``) and, side by side, the lead check itself without them, so the figure
is what the list adds to an upload.

    .venv/bin/python benchmarks/dnc.py [--numbers 1000000] [--leads 100000]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PREFIXES = ("032", "033", "035", "038", "070", "077", "081", "086", "090", "091", "096", "098")


def numbers(count: int, seed: int) -> list[str]:
    """Distinct Vietnamese mobile numbers, written the ways a registry file writes them."""
    rng = random.Random(seed)
    seen: set[str] = set()
    while len(seen) < count:
        seen.add(rng.choice(PREFIXES) + f"{rng.randrange(10**7):07d}")
    styles = (
        lambda n: n,
        lambda n: "+84" + n[1:],
        lambda n: f"{n[:4]} {n[4:7]} {n[7:]}",
        lambda n: "84" + n[1:],
    )
    return [styles[i % len(styles)](n) for i, n in enumerate(sorted(seen))]


def write_files(folder: Path, count: int, leads: int) -> tuple[Path, Path]:
    dnc_file = folder / "registry.csv"
    listed = numbers(count, seed=1)
    dnc_file.write_text("so_dien_thoai\n" + "\n".join(listed) + "\n", encoding="utf-8")
    lead_file = folder / "leads.csv"
    rng = random.Random(2)
    rows = ["phone_number,lead_name,province"]
    fresh = numbers(leads, seed=3)
    for i in range(leads):
        phone = listed[rng.randrange(count)] if i % 10 == 0 else fresh[i]
        rows.append(f'"{phone}",Khách {i},Hồ Chí Minh')
    lead_file.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return dnc_file, lead_file


def peak_mb() -> float:
    """This process's peak resident memory (VmHWM: it starts anew at exec, where
    ru_maxrss may keep the parent's, which made the files)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_upload(db: str, path: str) -> dict[str, float]:
    from commands.rules.dnc import upload_registry_file
    from storage import SecretBox, Storage

    storage = Storage.open(db, SecretBox.from_settings([], demo=True))
    started = time.perf_counter()
    made, count = upload_registry_file(
        storage, "T1", Path(path), by="U_BENCH", file_name=Path(path).name
    )
    stored = time.perf_counter()
    storage.close()
    return {
        "numbers": count.numbers,
        "added": made.added if made is not None else 0,
        "skipped": count.skipped,
        "total_s": stored - started,
        "peak_mb": peak_mb(),
    }


def child_check(db: str, path: str) -> dict[str, float]:
    import io

    from commands.leads.csv_check import check_leads_csv, phones_in
    from storage import SecretBox, Storage

    storage = Storage.open(db, SecretBox.from_settings([], demo=True))
    data = Path(path).read_bytes()
    started = time.perf_counter()
    plain = check_leads_csv(io.BytesIO(data), set())
    checked = time.perf_counter()
    phones = phones_in(io.BytesIO(data))
    listed = storage.call_lists.on_registry_now("T1", phones)
    looked_up = time.perf_counter()
    with_dnc = check_leads_csv(io.BytesIO(data), set(), dnc=listed)
    done = time.perf_counter()
    storage.close()
    return {
        "rows": plain.rows,
        "on_list": len(listed),
        "left_out": with_dnc.reasons.get("dnc", 0),
        "check_s": checked - started,
        "lookup_s": looked_up - checked,
        "check_with_dnc_s": (done - looked_up) + (looked_up - checked),
        "added_s": (done - looked_up) + (looked_up - checked) - (checked - started),
    }


def run_child(kind: str, db: str, path: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, db, path],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--numbers", type=int, default=1_000_000)
    parser.add_argument("--leads", type=int, default=100_000)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, db, path = args.child
        result = child_upload(db, path) if kind == "upload" else child_check(db, path)
        print(json.dumps(result))
        return 0
    with tempfile.TemporaryDirectory(prefix="callops-dnc-bench-") as folder:
        dnc_file, lead_file = write_files(Path(folder), args.numbers, args.leads)
        db = str(Path(folder) / "callops.db")
        upload = run_child("upload", db, str(dnc_file))
        check = run_child("check", db, str(lead_file))
    print(f"do-not-call upload: {upload['numbers']:,.0f} numbers read, {upload['added']:,.0f} new")
    print(f"  read, parsed and stored in {upload['total_s']:.1f} s (target < 60 s)")
    print(f"  peak memory of the process: {upload['peak_mb']:.0f} MB (target < 200 MB)")
    print(f"lead check of {check['rows']:,.0f} rows: {check['check_s']:.2f} s without the list")
    print(
        f"  with it: {check['check_with_dnc_s']:.2f} s ({check['on_list']:,.0f} on the list, "
        f"{check['left_out']:,.0f} left out); the list adds {check['added_s']:.2f} s "
        "(target < 2 s)"
    )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    raise SystemExit(main())
