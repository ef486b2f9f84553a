"""Worker process of the two-process race test (spawned, so it lives in an importable module).

Each round the parent sends the same job to both workers; they meet at a barrier and fire
at the same instant; each reports whether it won.
"""

from __future__ import annotations

from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from typing import Any

from storage import Role, SecretBox, Storage
from storage.errors import ApprovalStateError


def run(
    db_url: str,
    keys: list[str],
    team: str,
    decider: str,
    approve: bool,
    barrier: Barrier,
    jobs: Queue[Any],
    results: Queue[Any],
) -> None:
    with Storage.open(db_url, SecretBox(keys)) as store:
        results.put(("ready", decider))
        while (job := jobs.get()) is not None:
            action, approval_id, digest = job
            barrier.wait(timeout=30)
            try:
                if action == "decide":
                    store.approvals.decide(
                        team,
                        approval_id,
                        decider=decider,
                        decider_role=Role.ADMIN,
                        approve=approve,
                        params_hash=digest,
                    )
                    results.put(("won", decider, approval_id, None))
                else:
                    claimed = store.approvals.claim_for_execution(team, approval_id)
                    results.put(("won", decider, approval_id, claimed.params))
            except ApprovalStateError as exc:
                results.put(("lost", decider, approval_id, exc.approval.state.value))
