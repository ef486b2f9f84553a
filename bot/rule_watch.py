"""What the scheduler's ``watch`` option takes (``bot/digest_scheduler.py``).

The calling rules' watch is the rules family's background work now
(``commands/rules/watch_jobs.py``, declared in ``Family.jobs``) and runs where the
scheduler runs through ``bot/jobs.py``; the runtime gives the scheduler no watch.  This
shape stays only until the scheduler loses the option.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol


class RuleWatch(Protocol):
    async def tick(self, now: datetime | None = None) -> object: ...

    async def judge_noted(self) -> object: ...
