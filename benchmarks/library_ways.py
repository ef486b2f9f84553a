"""The library's way against the hand-written way it replaced, side by side in one run:
numbers and days written by Babel's formatters (``commands/kernel/formats.py``) and
numbers found in text by ``phonenumbers.PhoneNumberMatcher``
(``commands/kernel/phones.find_phones``).

    .venv/bin/python benchmarks/library_ways.py [--before 75afaa3] [--repeat 2000]

``--before`` is the commit whose hand-written modules are measured beside this tree's
(read from git, run against this tree's other modules).  Each row is timed in rounds,
the two ways interleaved, and the median round kept.  The figures a person could notice
are the per-reply ones: the figures of a 50-row table in Vietnamese, the numbers of a
message (the "Call back" shortcut) and of a 5,000-row refused-rows file (posted back
after an upload).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from commands.kernel import formats, phones  # noqa: E402
from commands.kernel.i18n import Audience, use_audience  # noqa: E402

HCM = ZoneInfo("Asia/Ho_Chi_Minh")
MESSAGE = "Khách gọi lại số +84 912 345 678 hoặc 0987.654.321, không gọi 024 3823 4567"


def before(module: str, rev: str) -> types.ModuleType:
    """``module`` as it was at ``rev``, importing this tree's other modules."""
    path = module.replace(".", "/") + ".py"
    source = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    loaded = types.ModuleType(f"before_{module.rsplit('.', 1)[-1]}")
    loaded.__file__ = path
    sys.modules[loaded.__name__] = loaded  # dataclasses and the like look it up
    exec(compile(source, path, "exec"), loaded.__dict__)  # noqa: S102 (our own git history)
    return loaded


def table_figures(fmt: Any) -> Callable[[], None]:
    """The figures of a 50-row table: three counts, a rate and a day with its time."""
    moments = [datetime(2026, 11, 26, 14, 27, tzinfo=HCM).replace(minute=m) for m in range(50)]

    def run() -> None:
        for row, moment in enumerate(moments):
            fmt.number(row * 1234)
            fmt.number(row * 17)
            fmt.number(row * 2.5)
            fmt.percent(row / 3)
            fmt.write_day(moment, time=True)

    return run


def refused_rows(rows: int) -> str:
    """A refused-rows file as an upload posts it back: mostly numbers the service takes
    (refused for another reason), some landlines and some that are no numbers."""
    pick = random.Random(1)
    lines = ["row,name,phone,reason"]
    for i in range(rows):
        kind = pick.randrange(4)
        if kind == 0:
            phone = f"09{pick.randrange(10**8):08d}"
        elif kind == 1:
            phone = f"+84 9{pick.randrange(100):02d} {pick.randrange(1000):03d} 678"
        elif kind == 2:
            phone = f"024 {pick.randrange(10**4):04d} {pick.randrange(10**4):04d}"
        else:
            phone = f"12{pick.randrange(10**6):06d}"
        lines.append(f"{i},Nguyễn Văn {i},{phone},Trùng khách hàng")
    return "\n".join(lines)


def timed(call: Callable[[], object], repeat: int) -> float:
    """Seconds per call of ``call`` over ``repeat`` calls."""
    start = time.perf_counter()
    for _ in range(repeat):
        call()
    return (time.perf_counter() - start) / repeat


def side_by_side(
    rows: list[tuple[str, Callable[[], object], Callable[[], object], int, str]], rounds: int
) -> None:
    print("| What | hand-written (before) | library (this tree) | ratio |")
    print("|---|---|---|---|")
    for label, hand, library, repeat, unit in rows:
        if hand() != library():
            print(f"| {label} | (outputs differ: {hand()!r} / {library()!r}) | | |")
        hands: list[float] = []
        libs: list[float] = []
        for n in range(rounds):
            pair = [(hand, hands), (library, libs)]
            for call, into in pair if n % 2 == 0 else reversed(pair):
                into.append(timed(call, repeat))
        scale = 1e6 if unit == "µs" else 1e3
        h, b = statistics.median(hands) * scale, statistics.median(libs) * scale
        print(f"| {label} | {h:,.1f} {unit} | {b:,.1f} {unit} | {b / h:.2f}x |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="75afaa3", help="the hand-written tree's commit")
    parser.add_argument("--repeat", type=int, default=2000, help="calls per round, per row")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    old_formats = before("commands.kernel.formats", args.before)
    old_phones = before("commands.kernel.phones", args.before)
    moment = datetime(2026, 11, 26, 14, 27, 5, tzinfo=HCM)
    refused = refused_rows(5000)
    n = args.repeat

    def both(fn: str, *a: Any, **kw: Any) -> tuple[Callable[[], object], Callable[[], object]]:
        return (lambda: getattr(old_formats, fn)(*a, **kw)), (
            lambda: getattr(formats, fn)(*a, **kw)
        )

    with use_audience(Audience(language="vi")):
        rows = [
            ("`number(1234.5)`, vi", *both("number", 1234.5), n, "µs"),
            ("`number(1234567)`, vi", *both("number", 1234567), n, "µs"),
            ("`percent(12.5)`, vi", *both("percent", 12.5), n, "µs"),
            ("`write_day(..., time=True)`, vi", *both("write_day", moment, time=True), n, "µs"),
            ("`write_date(...)`, vi", *both("write_date", moment.date()), n, "µs"),
            (
                "a 50-row table's figures (250 values), vi",
                table_figures(old_formats),
                table_figures(formats),
                max(1, n // 100),
                "ms",
            ),
            (
                "`find_phones`: a message",
                lambda: old_phones.find_phones(MESSAGE),
                lambda: phones.find_phones(MESSAGE),
                max(1, n // 4),
                "µs",
            ),
            (
                "`find_phones`: a 5,000-row refused-rows file",
                lambda: old_phones.find_phones(refused),
                lambda: phones.find_phones(refused),
                1,
                "ms",
            ),
        ]
        side_by_side(rows, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
