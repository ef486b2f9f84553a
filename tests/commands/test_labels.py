"""The words every family shares: counts, campaign names and statuses, moments."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from commands.kernel.text import campaign_label, day_time, mention, plural, status_label

SAIGON = ZoneInfo("Asia/Ho_Chi_Minh")


def test_counts_agree_with_their_noun() -> None:
    assert plural(1, "call") == "1 call"
    assert plural(0, "call") == "0 calls"
    assert plural(12034, "lead") == "12,034 leads"
    assert plural(2, "person", "people") == "2 people"


def test_a_campaign_without_a_name_is_still_named_and_names_are_escaped() -> None:
    assert campaign_label("") == "Unnamed campaign"
    assert campaign_label(None) == "Unnamed campaign"
    assert campaign_label("<!channel> sale", 12) == "&lt;!channel&gt; …"
    assert status_label("start") == status_label("running") == ":large_green_circle: running"
    assert status_label("<weird>") == "&lt;weird&gt;"


def test_moments_are_told_in_the_workspaces_zone() -> None:
    moment = datetime(2026, 11, 2, 1, 30, tzinfo=ZoneInfo("UTC"))
    assert day_time(moment, SAIGON) == "Mon 02 Nov 08:30"
    assert day_time(moment.timestamp(), SAIGON) == "Mon 02 Nov 08:30"
    assert day_time(moment.astimezone(SAIGON)) == "Mon 02 Nov 08:30"


def test_people_are_mentioned_by_id_and_nothing_else_pings() -> None:
    assert mention("U0123ABC") == "<@U0123ABC>"
    assert mention("<!here>") == "&lt;!here&gt;"
    assert mention(None) == "someone"
