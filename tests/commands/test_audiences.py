"""Who reads what: the rules every request and every post is written by."""

from __future__ import annotations

import dataclasses

import pytest

from commands.admin.settings import closest_zone, known_zone
from commands.kernel.audiences import (
    for_channel,
    for_person,
    person_language,
    post_language,
    workspace_language,
)
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import Audience
from storage import Person, Workspace

BARE = Workspace(
    team_id="T1",
    base_url=None,
    has_api_key=False,
    timezone="UTC",
    approvals_channel=None,
    digests_channel=None,
    notifications_channel=None,
    created_at=0.0,
    updated_at=0.0,
    connected_at=None,
)


def workspace(**changes: object) -> Workspace:
    return dataclasses.replace(BARE, **changes)  # type: ignore[arg-type]


def test_a_workspace_speaks_its_admins_choice_else_its_connecting_admins_slack() -> None:
    assert workspace_language(None) == "en"
    assert workspace_language(BARE) == "en"  # connected from the command line
    assert workspace_language(workspace(admin_locale="vi-VN")) == "vi"
    assert workspace_language(workspace(admin_locale="fr-FR")) == "en"
    chosen = workspace(admin_locale="vi-VN", default_language="en")
    assert workspace_language(chosen) == "en"


def test_a_person_reads_their_choice_else_slack_else_the_workspace() -> None:
    viet = workspace(default_language="vi")
    assert person_language(None, viet) == "vi"  # never seen
    assert person_language(Person(slack_locale="en-US"), viet) == "en"
    assert person_language(Person(slack_locale="fr-FR"), viet) == "vi"
    assert person_language(Person(language="vi", slack_locale="en-US"), BARE) == "vi"
    # What Slack says now wins over what was seen before.
    assert person_language(Person(slack_locale="en-US"), BARE, "vi-VN") == "vi"


def test_channels_mask_numbers_when_asked_and_people_never_read_their_own_masked() -> None:
    masked = workspace(mask_phones=True, name_order="given-first", default_language="vi")
    assert for_channel(masked) == Audience("vi", "given-first", mask_phones=True, public=True)
    assert for_channel(masked, "en") == Audience("en", "given-first", mask_phones=True, public=True)
    assert for_person(None, masked) == Audience("vi", "given-first", mask_phones=False)
    # A viewer's own replies show customers' numbers masked (Law 91/2025/QH15).
    assert for_person(None, masked, masked=True).mask_phones
    # A workspace not set up yet masks, as a new one does.
    assert for_channel(None).mask_phones


def test_lang_option() -> None:
    assert post_language({}, "digest add") is None
    assert post_language({"LANG": "VI"}, "digest add") == "vi"
    with pytest.raises(UsageError, match="use `vi` or `en`"):
        post_language({"lang": "vi-VN"}, "digest add")


@pytest.mark.parametrize(
    ("typed", "zone", "near"),
    [
        ("asia/ho_chi_minh", "Asia/Ho_Chi_Minh", None),
        ("Asia/Ho_Chi_Mnh", None, "Asia/Ho_Chi_Minh"),
        ("Saigon", None, "Asia/Saigon"),
        ("Mars/Olympus", None, None),
    ],
)
def test_time_zones_by_name_and_by_slip(typed: str, zone: str | None, near: str | None) -> None:
    assert known_zone(typed) == zone
    if zone is None:
        assert closest_zone(typed) == near
