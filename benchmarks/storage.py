"""Benchmark of `storage` on a real SQLite file (WAL, synchronous=NORMAL, as the app runs it)
or, with ``--engine postgresql``, on a throw-away PostgreSQL server started from Debian's
``postgresql`` package (the same one the tests use).

    .venv/bin/python benchmarks/storage.py [--engine sqlite|postgresql] [--approvals 2000]
        [--audit 5000] [--db-dir DIR]

Figures:

1. Approvals decided per second with two processes contending: N pending approvals exist;
   two processes (spawned) walk the same list at the same time, one approving and one
   denying each, so every approval is fought over. Each approval must end with exactly one
   winner (checked); the rate is decided approvals per wall-clock second, and attempts per
   second counts the losers' refused attempts too.
2. Audit rows appended per second: one process appending rows one commit each (how the app
   writes them), then two processes appending at once.

Exits 1 if any approval had other than exactly one winner.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cryptography.fernet import Fernet

from storage import Role, SecretBox, Storage
from storage.errors import ApprovalStateError

TEAM = "T_BENCH"


def _decider(
    db: str,
    key: str,
    name: str,
    approve: bool,
    jobs: list[tuple[str, str]],
    barrier: Barrier,
    results: Queue[Any],
) -> None:
    won: list[str] = []
    with Storage.open(db, SecretBox([key])) as store:
        barrier.wait()
        started = time.perf_counter()
        for approval_id, digest in jobs:
            try:
                store.approvals.decide(
                    TEAM,
                    approval_id,
                    decider=name,
                    decider_role=Role.ADMIN,
                    approve=approve,
                    params_hash=digest,
                )
                won.append(approval_id)
            except ApprovalStateError:
                pass
        results.put((name, won, time.perf_counter() - started))


def _appender(db: str, key: str, count: int, barrier: Barrier, results: Queue[Any]) -> None:
    with Storage.open(db, SecretBox([key])) as store:
        barrier.wait()
        started = time.perf_counter()
        for i in range(count):
            store.audit.append(TEAM, "U_BENCH", "campaign.start", {"campaign": f"c-{i}"})
        results.put(time.perf_counter() - started)


def bench_approvals(db: str, key: str, count: int) -> tuple[float, float, dict[str, int], bool]:
    with Storage.open(db, SecretBox([key])) as store:
        jobs = []
        for i in range(count):
            approval = store.approvals.create(
                TEAM, "campaign.start", {"campaign_uuid": f"c-{i}"}, "U_REQ"
            )
            jobs.append((approval.id, approval.params_hash))
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(3)
    results: Any = ctx.Queue()
    procs = [
        ctx.Process(target=_decider, args=(db, key, name, approve, jobs, barrier, results))
        for name, approve in (("U_APPROVER", True), ("U_DENIER", False))
    ]
    for proc in procs:
        proc.start()
    barrier.wait()
    started = time.perf_counter()
    outcomes = [results.get() for _ in procs]
    elapsed = time.perf_counter() - started
    for proc in procs:
        proc.join()
    wins = {name: len(won) for name, won, _ in outcomes}
    all_won = [a for _, won, _ in outcomes for a in won]
    exactly_one = len(all_won) == count and len(set(all_won)) == count
    return count / elapsed, 2 * count / elapsed, wins, exactly_one


def bench_audit_single(db: str, key: str, count: int) -> float:
    with Storage.open(db, SecretBox([key])) as store:
        started = time.perf_counter()
        for i in range(count):
            store.audit.append(TEAM, "U_BENCH", "campaign.start", {"campaign": f"c-{i}"})
        return count / (time.perf_counter() - started)


def bench_audit_two(db: str, key: str, count: int) -> float:
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(3)
    results: Any = ctx.Queue()
    procs = [
        ctx.Process(target=_appender, args=(db, key, count, barrier, results)) for _ in range(2)
    ]
    for proc in procs:
        proc.start()
    barrier.wait()
    started = time.perf_counter()
    for _ in procs:
        results.get()
    elapsed = time.perf_counter() - started
    for proc in procs:
        proc.join()
    return 2 * count / elapsed


@contextmanager
def _database(engine: str, db_dir: str | None) -> Iterator[str]:
    """A SQLite path in a temporary directory, or a new database on a temporary server."""
    if engine == "sqlite":
        with tempfile.TemporaryDirectory(dir=db_dir) as tmp:
            yield str(Path(tmp) / "bench.db")
        return
    from tests.postgres import INSTALL_HINT, PostgresServer, postgres_bin_dir

    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        raise SystemExit(f"PostgreSQL is not installed: {INSTALL_HINT}")
    with PostgresServer(bin_dir) as server:
        yield server.create_database()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--approvals", type=int, default=2000)
    parser.add_argument("--audit", type=int, default=5000)
    parser.add_argument("--db-dir", help="directory for the SQLite file (default: a temp dir)")
    parser.add_argument("--engine", choices=("sqlite", "postgresql"), default="sqlite")
    args = parser.parse_args(argv)
    key = Fernet.generate_key().decode()
    print(f"engine: {args.engine}")
    with _database(args.engine, args.db_dir) as db:
        decided, attempts, wins, exactly_one = bench_approvals(db, key, args.approvals)
        single = bench_audit_single(db, key, args.audit)
        two = bench_audit_two(db, key, args.audit)
    print(f"approvals, two processes contending for each of {args.approvals:,}:")
    print(f"  decided      {decided:>10,.0f} /s")
    print(f"  attempts     {attempts:>10,.0f} /s (winners and refused losers)")
    print(f"  wins         {wins}  exactly one winner each: {'yes' if exactly_one else 'NO'}")
    print(f"audit rows appended, one commit each ({args.audit:,} per process):")
    print(f"  one process  {single:>10,.0f} /s")
    print(f"  two at once  {two:>10,.0f} /s (both together)")
    return 0 if exactly_one else 1


if __name__ == "__main__":
    sys.exit(main())
