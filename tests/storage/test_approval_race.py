"""Two processes decide (then claim) the same approval at the same instant, many times:
exactly one wins each round, and what runs is what was approved."""

from __future__ import annotations

import multiprocessing
from typing import Any

from storage import ApprovalState, SecretBox, Storage
from tests.storage import race_worker
from tests.storage.conftest import decide

ROUNDS = 150
TEAM = "T_RACE"


def test_two_processes_racing_give_exactly_one_winner_every_time(db_url: str, key: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    results: Any = ctx.Queue()
    deciders = {"U_APPROVER": True, "U_DENIER": False}
    jobs: dict[str, Any] = {name: ctx.Queue() for name in deciders}
    with Storage.open(db_url, SecretBox([key])) as store:
        workers = [
            ctx.Process(
                target=race_worker.run,
                args=(db_url, [key], TEAM, name, approve, barrier, jobs[name], results),
                daemon=True,
            )
            for name, approve in deciders.items()
        ]
        for worker in workers:
            worker.start()
        try:
            assert {results.get(timeout=60)[0] for _ in workers} == {"ready"}
            wins = {name: 0 for name in deciders}
            for round_no in range(ROUNDS):
                params = {"campaign_uuid": f"c-{round_no}", "round": round_no}
                approval = store.approvals.create(TEAM, "campaign.start", params, "U_REQ")
                for queue in jobs.values():
                    queue.put(("decide", approval.id, approval.params_hash))
                outcomes = [results.get(timeout=30) for _ in workers]
                winners = [o[1] for o in outcomes if o[0] == "won"]
                assert len(winners) == 1, outcomes
                wins[winners[0]] += 1
                final = store.approvals.require(TEAM, approval.id)
                assert final.decider == winners[0]
                assert final.state is (
                    ApprovalState.APPROVED if deciders[winners[0]] else ApprovalState.DENIED
                )

                # Now both try to run it: one runs, with exactly the approved parameters.
                if final.state is not ApprovalState.APPROVED:
                    approval = store.approvals.create(TEAM, "campaign.start", params, "U_REQ")
                    decide(store, TEAM, approval, decider="U_ADMIN")
                for queue in jobs.values():
                    queue.put(("claim", approval.id, None))
                outcomes = [results.get(timeout=30) for _ in workers]
                won = [o for o in outcomes if o[0] == "won"]
                assert len(won) == 1, outcomes
                assert won[0][3] == params
                assert store.approvals.require(TEAM, approval.id).state is (ApprovalState.EXECUTING)
            # Both processes really competed (each won some rounds).
            assert all(count > 0 for count in wins.values()), wins
        finally:
            for queue in jobs.values():
                queue.put(None)
            for worker in workers:
                worker.join(timeout=30)
    assert all(worker.exitcode == 0 for worker in workers)
