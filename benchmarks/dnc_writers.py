"""How long another writer waits while a large registry file is uploaded.

The upload reads the file with ``dnc upload``'s own code
(``commands.rules.dnc.upload_registry_file``: the uploads' reader, the phone parser, then
``storage.call_lists.upload_registry``, one short transaction per
``storage.call_lists.STEP`` numbers) into a fresh SQLite file, twice: a first version of
N numbers, then a second that drops a tenth of them and adds as many (so staging,
closing and opening all run).  Meanwhile a second thread writes a calling rule every
10 ms and times each write: its longest wait is the longest the upload held the write
lock, plus the write itself.

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

from commands.rules.dnc import upload_registry_file
from storage import SecretBox, Storage


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--numbers", type=int, default=1_000_000)
    args = parser.parse_args()
    shift = args.numbers // 10
    with tempfile.TemporaryDirectory(prefix="callops-dnc-writers-") as folder:
        store = Storage.open(
            str(Path(folder) / "callops.db"), SecretBox([Fernet.generate_key().decode()])
        )
        for name, first in (("first version", 0), ("second version", shift)):
            path = Path(folder) / "registry.csv"
            start = 10_000_000 + first
            rows = (f"09{n:08d}" for n in range(start, start + args.numbers))
            path.write_text("so_dien_thoai\n" + "\n".join(rows) + "\n", encoding="utf-8")
            done = threading.Event()
            waits: list[float] = []

            def other_writer(done: threading.Event = done, waits: list[float] = waits) -> None:
                while not done.is_set():
                    began = time.monotonic()
                    store.calling_rules.set_frequency("T_OTHER", 2, by="U_OTHER")
                    waits.append(time.monotonic() - began)
                    done.wait(0.01)

            writer = threading.Thread(target=other_writer)
            writer.start()
            began = time.monotonic()
            made, count = upload_registry_file(store, "T1", path, by="U1", file_name=f"{name}.csv")
            took = time.monotonic() - began
            done.set()
            writer.join()
            size = path.stat().st_size / 1e6
            assert made is not None
            print(
                f"{name}: {count.numbers:,} numbers ({size:.1f} MB), version {made.version}: "
                f"{made.added:,} added, {made.removed:,} removed in {took:.1f} s; "
                f"the other writer: {len(waits):,} writes, longest {max(waits) * 1000:.0f} ms, "
                f"median {statistics.median(waits) * 1000:.0f} ms"
            )
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
