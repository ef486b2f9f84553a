"""The words every family shares: counts, campaign names and statuses, moments."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from commands.calls.autocall import field_label
from commands.kernel.call_words import cause_words, outcome_words, status_words
from commands.kernel.paging import showing
from commands.kernel.text import (
    BIDI_CONTROLS,
    campaign_label,
    clip,
    clock,
    code,
    day,
    day_time,
    escape,
    mention,
    plural,
    status_label,
    truncate,
    when,
    zone_name,
)

SAIGON = ZoneInfo("Asia/Ho_Chi_Minh")


def test_counts_agree_with_their_noun() -> None:
    assert plural(1, "call") == "1 call"
    assert plural(0, "call") == "0 calls"
    assert plural(12034, "lead") == "12,034 leads"
    assert plural(2, "person", "people") == "2 people"


def test_only_slacks_three_control_characters_are_escaped_each_once() -> None:
    assert escape("<!channel> & <@U123|x>") == "&lt;!channel&gt; &amp; &lt;@U123|x&gt;"
    assert escape("&lt; is already an entity") == "&amp;lt; is already an entity"
    assert escape("Nhắc lịch hẹn *HN* _x_ `y`") == "Nhắc lịch hẹn *HN* _x_ `y`"
    assert escape(12034) == "12034"
    assert escape("") == ""
    assert code("a`b<c>") == "`aˋb&lt;c&gt;`"


def test_bidirectional_controls_are_dropped_from_mrkdwn_and_plain_text() -> None:
    forged = (
        "Sale \u202egpj.exe\u202c <b> \u2067Hà Nội\u2069\u200e\u200f\u202a\u202b\u202d\u2066\u2068"
    )
    assert escape(forged) == "Sale gpj.exe &lt;b&gt; Hà Nội"
    assert clip(forged, 200) == "Sale gpj.exe &lt;b&gt; Hà Nội"
    assert truncate(forged, 200) == "Sale gpj.exe <b> Hà Nội"
    assert not any(c in escape(BIDI_CONTROLS * 3) for c in BIDI_CONTROLS)
    assert escape("Nguyễn Văn An \u200d") == "Nguyễn Văn An \u200d"  # a joiner is no control


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
    # A service timestamp is on the service's clock (UTC) and is written the same way.
    assert day_time("2026-11-02 01:30:00", SAIGON) == "Mon 02 Nov 08:30"
    assert day("2026-11-02 01:30:00", SAIGON) == "Mon 02 Nov"
    assert day_time("2026-11-02 01:30:05", SAIGON, seconds=True) == "Mon 02 Nov 08:30:05"
    assert day_time(None, SAIGON) == day_time("", SAIGON) == clock(None, SAIGON) == "–"
    assert clock(moment, SAIGON) == "08:30"


def test_a_moment_of_today_is_its_time_and_another_day_says_which() -> None:
    moment = datetime(2026, 11, 2, 1, 30, tzinfo=ZoneInfo("UTC"))
    same_day = datetime(2026, 11, 2, 16, 59, tzinfo=ZoneInfo("UTC"))  # 23:59 in Saigon
    next_day = datetime(2026, 11, 2, 17, 0, tzinfo=ZoneInfo("UTC"))  # 00:00 the 3rd
    assert when(moment, SAIGON, now=same_day) == "08:30"
    assert when(moment, SAIGON, now=next_day) == "Mon 02 Nov 08:30"
    assert when(moment.timestamp(), SAIGON, now=same_day) == "08:30"


def test_a_zone_is_named_by_its_short_name_or_its_offset() -> None:
    assert zone_name(datetime(2026, 11, 2, tzinfo=SAIGON)) == "UTC+07"
    assert zone_name(datetime(2026, 7, 2, tzinfo=ZoneInfo("Europe/Paris"))) == "CEST"
    assert zone_name(datetime(2026, 7, 2, tzinfo=ZoneInfo("Asia/Kolkata"))) == "IST"
    assert zone_name(datetime(2026, 7, 2, tzinfo=ZoneInfo("Asia/Kathmandu"))) == "UTC+05:45"
    assert zone_name(ZoneInfo("UTC")) == "UTC"


def test_one_of_a_listing_is_one_item() -> None:
    def said(offset: int, shown: int, total: int, **noun: str) -> str:
        return str(showing(offset, shown, total, **noun).to_dict()["elements"][0]["text"])

    assert said(0, 1, 1, one="call record") == "1 call record."
    assert said(0, 0, 0, one="call record") == "No call records."
    assert said(0, 3, 3, one="match", many="matches") == "3 matches."
    assert said(10, 10, 1234, one="user") == "Showing 11–20 of 1,234 users."


def test_call_outcomes_are_words() -> None:
    assert status_words("no-answered") == status_words("NO_ANSWERED") == "No answer"
    assert status_words("busy-line") == "Line busy"
    assert status_words("some_new-status") == "Some new status"
    assert status_words("") == "Unknown"
    assert cause_words("no-answered", "NO_ANSWER") is None  # what the status says already
    assert cause_words("busy", "USER_BUSY") is None
    assert cause_words("answered", "NORMAL_CLEARING") is None
    assert cause_words("not-available", "SUBSCRIBER_ABSENT") == "phone off or out of reach"
    assert cause_words("busy", "SOMETHING_NEW") is None  # no words: shown as its code elsewhere
    assert outcome_words("invalid", "UNALLOCATED_NUMBER") == (
        "Invalid number (number does not exist)"
    )


def test_placeholders_are_labelled_by_their_name() -> None:
    assert field_label("name") == "Name"
    assert field_label("amount") == "Amount"
    assert field_label("due_date") == field_label("dueDate") == field_label("due-date")
    assert field_label("due_date") == "Due date"
    assert field_label("OTP") == "OTP" and field_label("otp_code") == "OTP"
    assert field_label("contract_no") == "Contract no"


def test_placeholders_are_labelled_in_the_readers_language() -> None:
    from commands.kernel.i18n import use_language

    with use_language("vi"):
        assert [field_label(n) for n in ("name", "amount", "due_date", "date", "time")] == [
            "Tên khách hàng", "Số tiền", "Ngày đến hạn", "Ngày", "Giờ",
        ]  # fmt: skip
        assert field_label("phone") == "Số điện thoại" and field_label("ma") == "Mã"
        assert field_label("otp") == "Mã OTP"
        # Another placeholder is shown as the template writes it, not in English words.
        assert field_label("contract_no") == "contract_no"


def test_people_are_mentioned_by_id_and_nothing_else_pings() -> None:
    assert mention("U0123ABC") == "<@U0123ABC>"
    assert mention("<!here>") == "&lt;!here&gt;"
    assert mention(None) == "someone"
