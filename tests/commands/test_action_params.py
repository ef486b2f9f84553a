"""Each kind's parameters are a model, stored as the same plain JSON as before they were
typed: the same parameters hash the same, so approvals already asked for stay valid."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

import pytest

from commands.approvals import actions
from commands.approvals.cards import card
from commands.approvals.workflow import open_request
from commands.calls.transfer import TransferParams
from commands.campaigns.control import ControlParams
from commands.kernel.actions import Proposal
from storage import Approval, Mode, Role, Storage, params_hash
from tests.commands.helpers import visible

STORED: list[tuple[str, dict[str, Any]]] = [
    (
        "campaign.start",
        {
            "campaign_uuid": "c-1",
            "campaign_name": "Spring <sale>",
            "status": "start",
            "was": "stop",
            "concurrent_call": 5,
        },
    ),
    (
        "campaign.pause",
        {"campaign_uuid": "c-1", "campaign_name": "Spring", "status": "pause", "was": "start"},
    ),
    (
        "campaign.pause_all",
        {"campaigns": [{"campaign_uuid": "c-1", "campaign_name": "Spring"}]},
    ),
    (
        "call.transfer",
        {"call_id": "k", "ext": "1002", "legs": "bleg", "source": "0912", "destination": "1001"},
    ),
    (
        "autocall.push",
        {
            "campaign_uuid": "c-2",
            "campaign_name": "Reminders",
            "template_name": "Due",
            "phone_number": "0912345678",
            "param": {"name": "An", "amount": "150000"},
        },
    ),
    (
        "autocall.push",
        {
            "campaign_uuid": "c-2",
            "campaign_name": "Reminders",
            "template_name": "",
            "phone_number": "0912345678",
            "param": {},
            "campaign_status": "pause",
        },
    ),
    (
        "lead.insert",
        {
            "list_uuid": "l" * 36,
            "list_name": "May",
            "phone_number": "0912345678",
            "fields": {"lead_name": "An"},
        },
    ),
    (
        "lead.upload",
        {
            "list_uuid": "l" * 36,
            "list_name": "May",
            "file_id": "F1",
            "file_name": "leads.csv",
            "sha256": "ab" * 32,
            "rows": 3,
            "valid": 2,
            "invalid": 1,
            "reasons": {"pattern": 1},
            "problems": [{"line": 3, "phone": "12", "reason": "not a valid number"}],
        },
    ),
    ("group.create", {"group_name": "Night", "group_description": ""}),
    (
        "group.update",
        {
            "group_uuid": "g-1",
            "old_name": "Night",
            "group_name": "Night shift",
            "group_description": "",
            "user_assigns": ["u-1"],
            "member_names": ["an"],
        },
    ),
    (
        "group.update",
        {
            "group_uuid": "g-1",
            "old_name": "Night",
            "group_name": "Night",
            "group_description": "late",
            "user_assigns": [],
            "member_names": [],
            "group_priority": 0,
            "campaign_assigns": ["c-1"],
            "campaign_names": ["Spring"],
        },
    ),
    (
        "user.update",
        {
            "user_uuid": "u-1",
            "username": "an",
            "level": "agent",
            "role_uuid": "r-1",
            "role_name": "Agent",
            "extension": "",
            "is_active": True,
            "enable_webrtc": False,
            "before": {
                "level": "agent",
                "role_uuid": "r-0",
                "role_name": "Sales",
                "extension": "1001",
                "is_active": True,
                "enable_webrtc": False,
            },
        },
    ),
    (
        "notify.attach",
        {
            "campaign_uuid": "c-1",
            "campaign_name": "Spring",
            "attach": True,
            "callback_token_url": "https://app.example/callbacks/tok",
            "replaces_host": "crm.example",
        },
    ),
    (
        "notify.attach",
        {
            "campaign_uuid": "c-1",
            "campaign_name": "Spring",
            "attach": False,
            "callback_token_url": "",
        },
    ),
    (
        "notify.rotate",
        {"reattach": True, "campaigns": [{"campaign_uuid": "c-1", "campaign_name": "Spring"}]},
    ),
    ("notify.rotate", {"reattach": False, "campaigns": []}),
]


def operator_asks(storage: Storage, proposal: Proposal) -> tuple[Approval, Mode]:
    """An operator of team T1 asks for ``proposal`` in channel C1."""
    return open_request(
        storage, team_id="T1", user_id="U1", role=Role.OPERATOR, channel_id="C1", proposal=proposal
    )


@pytest.mark.parametrize(
    ("kind", "stored"), STORED, ids=[f"{k}-{i}" for i, (k, _) in enumerate(STORED)]
)
def test_stored_parameters_read_back_to_the_same_json_and_hash(
    kind: str, stored: dict[str, Any]
) -> None:
    spec = actions.spec_for(kind)
    model = spec.read(stored)
    assert isinstance(model, spec.params)
    assert model.to_json() == stored
    assert params_hash(model.to_json()) == params_hash(stored)
    assert actions.describe(kind, stored)


def test_a_new_request_stores_what_an_earlier_version_stored(storage: Storage) -> None:
    typed = ControlParams(campaign_uuid="c-1", campaign_name="Spring", status="pause", was="start")
    earlier = {"campaign_uuid": "c-1", "campaign_name": "Spring", "status": "pause", "was": "start"}
    approval, _ = operator_asks(storage, Proposal("campaign.pause", typed))
    assert approval.params == earlier
    assert approval.params_hash == params_hash(earlier)


def test_keys_an_earlier_version_stored_do_not_stop_the_card(storage: Storage) -> None:
    stored = dict(STORED[0][1], requested_from="home tab")
    approval = storage.approvals.create("T1", "campaign.start", stored, "U1")
    text = visible(card(approval, ZoneInfo("UTC")))
    assert "Start campaign" in text and "Spring &lt;sale&gt;" in text


def test_parameters_of_another_kind_are_refused_before_anything_is_stored(
    storage: Storage,
) -> None:
    transfer = TransferParams(call_id="k", ext="1002")
    with pytest.raises(TypeError, match=r"campaign\.start takes ControlParams"):
        operator_asks(storage, Proposal("campaign.start", transfer))
    assert storage.approvals.list("T1") == []


USER_UPDATE = next(stored for kind, stored in STORED if kind == "user.update")
SECRET = {"password": "s3cret-pass", "confirm_password": "s3cret-pass"}


def test_a_password_never_shows_in_a_repr() -> None:
    spec = actions.spec_for("user.update")
    model = spec.read(USER_UPDATE, SECRET)
    assert model.password == "s3cret-pass"
    assert "s3cret" not in repr(model) and "s3cret" not in str(model)


def test_a_password_is_a_secret_field_outside_the_stored_parameters() -> None:
    model = actions.spec_for("user.update").read(USER_UPDATE, SECRET)
    assert model.to_json() == USER_UPDATE
    assert model.secret_json() == SECRET
    assert "s3cret" not in actions.describe("user.update", USER_UPDATE)


def test_a_user_change_stored_with_its_password_by_an_earlier_version_still_renders() -> None:
    earlier = {k: v for k, v in USER_UPDATE.items() if k != "before"} | SECRET | {"nonce": "ab"}
    text = actions.describe("user.update", earlier)
    assert "level: agent" in text and "s3cret" not in text
