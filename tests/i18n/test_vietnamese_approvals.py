"""Nothing shown is untranslated: an approval from request to outcome, read in Vietnamese.

Every surface a request goes through (the requester's prompt, the card at each state, the
deny form, the answers to a late click, the requester's notes, a workflow step's error,
recovery's note, the refusals) is rendered inside ``use_audience(vi)`` from a request
stored in SQLite on disk, and nothing shown may be English but the service's data (the
campaign's name) and what is never translated (emoji, mentions, commands).  It needs no
server: running the request without a connected service is one of the outcomes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from cryptography.fernet import Fernet

from commands.approvals.cards import asked, card, concluded, deny_modal, outcome_note, prompt
from commands.approvals.recovery import recovered_note
from commands.approvals.workflow import (
    RequestRefused,
    cancel,
    decide,
    expire_due,
    late_message,
    open_request,
    run_approved,
    step_outcome,
)
from commands.campaigns.control import ControlParams
from commands.kernel.actions import Proposal
from commands.kernel.i18n import Audience, use_audience
from commands.kernel.reply import StepFailed
from storage import Approval, Role, SecretBox, Storage
from tests.i18n.shown import data_words, english_left, shown

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
TEAM, REQUESTER, APPROVER = "T1", "U0101", "U0102"
NAME = "Thu hồi nợ tháng 11"
VI = Audience(language="vi")


class Clock:
    def __init__(self) -> None:
        self.now = 1_790_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def storage(tmp_path: Path, clock: Clock) -> Iterator[Storage]:
    box = SecretBox([Fernet.generate_key().decode()])
    with Storage.open(tmp_path / "db.sqlite", box, clock=clock) as opened:
        yield opened


def ask(storage: Storage, kind: str = "campaign.start") -> Approval:
    status = "start" if kind == "campaign.start" else "pause"
    params = ControlParams(
        campaign_uuid="6a1f0c1e-0000-4000-8000-000000000001",
        campaign_name=NAME,
        status=status,
        was="pause" if status == "start" else "start",
    )
    approval, _mode = open_request(
        storage,
        team_id=TEAM,
        user_id=REQUESTER,
        role=Role.OPERATOR,
        channel_id="C1",
        proposal=Proposal(kind, params),
    )
    return approval


def settled_surfaces(approval: Approval) -> list[str]:
    texts = shown(card(approval, TZ)) + shown(concluded(approval, TZ))
    texts.append(late_message(approval))
    note = outcome_note(approval)
    if note:
        texts.append(note)
    outcome = step_outcome(approval, {"campaign": "campaign_uuid"})
    if isinstance(outcome, StepFailed):
        texts.append(outcome.error)
    return texts


async def test_an_approval_from_request_to_outcome_reads_in_vietnamese(
    storage: Storage, clock: Clock
) -> None:
    texts: list[str] = []
    with use_audience(VI):
        # Asked, waiting: the prompt, the requester's "asked", the card, the deny form.
        waiting = ask(storage)
        texts += shown(prompt(waiting, TZ)) + shown(asked(waiting)) + shown(card(waiting, TZ))
        texts += shown(deny_modal(waiting, "{}"))
        texts.append(late_message(waiting))
        # The requester may not decide their own request.
        refused = decide(
            storage, TEAM, waiting.id, user=REQUESTER, role=Role.ADMIN, approve=False,
            params_hash=waiting.params_hash, reason="x",
        )  # fmt: skip
        texts.append(refused.message or "")
        # Denied with a reason.
        denied = decide(
            storage, TEAM, waiting.id, user=APPROVER, role=Role.ADMIN, approve=False,
            params_hash=waiting.params_hash, reason="Chờ sếp duyệt ngân sách",
        )  # fmt: skip
        texts += settled_surfaces(denied.approval)
        # Approved, then run without a connected service: it fails, saying so.
        second = ask(storage)
        approved = decide(
            storage, TEAM, second.id, user=APPROVER, role=Role.ADMIN, approve=True,
            params_hash=second.params_hash,
        )  # fmt: skip
        texts += shown(card(approved.approval, TZ))
        failed = await run_approved(storage, TEAM, second.id, None)
        texts += settled_surfaces(failed)
        # Withdrawn by the requester.
        third = ask(storage)
        withdrawn = cancel(storage, TEAM, third.id, user=REQUESTER, role=Role.OPERATOR)
        texts += settled_surfaces(withdrawn.approval)
        # Nobody decided in time.
        fourth = ask(storage)
        clock.now = fourth.expires_at + 1
        [expired] = expire_due(storage, TEAM)
        texts += settled_surfaces(expired)
        # A confirm: the requester alone decides.
        confirm = ask(storage, "campaign.pause")
        texts += shown(prompt(confirm, TZ))
        # Recovery's notes for a run a stopped process left behind.
        for result in ({"unknown": True}, {"not_run": True}, {"text": "Đã tạm dừng."}):
            texts.append(recovered_note(dataclasses.replace(failed, result=result)))
        # A viewer may not ask at all.
        with pytest.raises(RequestRefused) as viewer:
            open_request(
                storage, team_id=TEAM, user_id=APPROVER, role=Role.VIEWER, channel_id="C1",
                proposal=Proposal("campaign.pause", ControlParams(
                    campaign_uuid="6a1f0c1e-0000-4000-8000-000000000001", status="pause"
                )),
            )  # fmt: skip
        texts.append(viewer.value.message)
    left = english_left(texts, data_words([NAME, "Chờ sếp duyệt ngân sách"]))
    assert not left, f"{len(left)} texts shown in Vietnamese still read English:\n" + "\n".join(
        left
    )
