"""How long another writer waits while a large do-not-call file is uploaded.

The upload reads the file with ``dnc upload``'s own code (``commands.rules.dnc.add_dnc_file``:
the uploads' reader, the phone parser, one short transaction per
``storage.calling_rules.BATCH`` numbers) into a fresh SQLite file, while a second thread
writes a calling rule every 10 ms and times each write: its longest wait is the longest
the upload held the write lock, plus the write itself.

    .venv/bin/python -m benchmarks.dnc_writers [--numbers 1000000]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

from cryptography.fernet import Fernet

from commands.rules.dnc import add_dnc_file
from storage import SecretBox, Storage


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--numbers", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="callops-dnc-writers-") as folder:
        path = Path(folder) / "registry.csv"
        rows = (f"09{n:08d}" for n in range(10_000_000, 10_000_000 + args.numbers))
        path.write_text("so_dien_thoai\n" + "\n".join(rows) + "\n", encoding="utf-8")
        store = Storage.open(
            str(Path(folder) / "callops.db"), SecretBox([Fernet.generate_key().decode()])
        )
        done = threading.Event()
        waits: list[float] = []

        def other_writer() -> None:
            while not done.is_set():
                started = time.monotonic()
                store.calling_rules.set_frequency("T_OTHER", 2, by="U_OTHER")
                waits.append(time.monotonic() - started)
                done.wait(0.01)

        writer = threading.Thread(target=other_writer)
        writer.start()
        started = time.monotonic()
        added, count = add_dnc_file(store, "T1", path)
        took = time.monotonic() - started
        done.set()
        writer.join()
        store.close()
        size = path.stat().st_size / 1e6
    print(
        f"{count.numbers:,} numbers ({size:.1f} MB): {added:,} added in {took:.1f} s; "
        f"the other writer: {len(waits):,} writes, longest {max(waits) * 1000:.0f} ms, "
        f"median {statistics.median(waits) * 1000:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
