"""The call card and the route filters, fed hostile and odd records directly."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block

from callcenter.models import Cdr
from commands.notifications.call_card import call_card, call_day, outcome_card, thread_subject
from commands.notifications.notify import feed_kinds, matching_channels, route_matches
from storage import NotificationRoute

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
CAMPAIGN = "6f1c2d3e-0000-4000-8000-000000000001"
OTHER = "6f1c2d3e-0000-4000-8000-000000000002"


def record(**fields: object) -> Cdr:
    base: dict[str, object] = {
        "id": "c0ffee00-0000-4000-8000-000000000001",
        "direction": "outbound",
        "status": "answered",
        "cause": "NORMAL_CLEARING",
        "duration": 65,
        "billsec": 52,
        "from_number": "02871234567",
        "to_number": "0912345678",
        "time_started": "2026-11-21 23:30:05",
        "press_key": "1",
        "digits": "1",
        "campaign_uuid": CAMPAIGN,
        "lead_uuid": "1ead0000-0000-4000-8000-000000000001",
        "extension": "1001",
        "fullname": "Nguyen Van An",
        "recording_url": "https://pbx.example.com/rec/1.mp3",
    }
    base.update(fields)
    return Cdr.model_validate(base)


def rendered(blocks: list[Block]) -> str:
    return json.dumps([b.to_dict() for b in blocks], ensure_ascii=False)


def test_the_card_says_what_happened_in_the_workspace_timezone() -> None:
    card = call_card(record(), tz=TZ, campaign_name="Reminders")
    text = rendered(card.blocks)
    for expected in (
        ":white_check_mark: *Answered*",
        "*028 7123 4567* → *0912 345 678*",
        "1m 05s",
        "talk 52s",
        "pressed `1`",
        "Reminders",
        "ext 1001",
        "Nguyen Van An",
        "<https://pbx.example.com/rec/1.mp3|:studio_microphone: recording>",
        # 23:30 UTC is 06:30 the next day in Ho Chi Minh City, written the one way.
        ":clock3: Sun 22 Nov 06:30 UTC+07 ·",
    ):
        assert expected in text, expected
    assert "digits" not in text  # same as the pressed key: said once
    assert "NORMAL_CLEARING" not in text and "cause" not in text  # the usual cause: unsaid
    assert card.text.startswith("Answered: 028 7123 4567 → 0912 345 678")


def test_status_and_cause_are_said_in_words() -> None:
    def headline(**fields: object) -> str:
        card = call_card(record(**fields), tz=TZ)
        return str(card.blocks[0].to_dict()["text"]["text"]).split("\n")[0]

    no_answer = headline(status="no-answered", cause="NO_ANSWER")
    assert no_answer.startswith(":hourglass: *No answer* · ")
    assert "NO_ANSWER" not in no_answer and "(" not in no_answer
    assert headline(status="busy-line", cause="USER_BUSY").startswith(":no_entry: *Line busy* ·")
    assert headline(status="not-available", cause="SUBSCRIBER_ABSENT").startswith(
        ":no_mobile_phones: *Not available* (phone off or out of reach) ·"
    )
    assert headline(status="phone-block", cause="CALL_REJECTED").startswith(
        ":no_entry_sign: *Blocked* (rejected) ·"
    )
    assert headline(status="NO_ANSWERED", cause="").startswith(":hourglass: *No answer* ·")


def test_a_cause_no_table_knows_is_shown_as_its_code_in_the_last_line() -> None:
    card = call_card(record(status="congestion", cause="BEARERCAPABILITY_NOTAVAIL"), tz=TZ)
    first, last = (rendered([b]) for b in card.blocks[:2])
    assert "*Congestion* ·" in first and "BEARERCAPABILITY" not in first
    assert "cause `BEARERCAPABILITY_NOTAVAIL`" in last


def test_the_lead_and_the_campaign_on_a_card_open_with_a_click() -> None:
    card = call_card(record(), tz=TZ)
    buttons = card.blocks[-1].to_dict()["elements"]
    assert [(b["action_id"], b["text"]["text"]) for b in buttons] == [
        ("lead_open", "Open lead"),
        ("campaign_open_0", "Open campaign"),
        ("optout_refused", "Customer refused further calls"),
    ]
    lead_uuid, campaign_uuid, refused = (b["value"] for b in buttons)
    assert json.loads(refused) == {"c": record().id, "t": record().time_started}
    assert lead_uuid == record().lead_uuid and campaign_uuid == record().campaign_uuid


def test_service_values_cannot_ping_or_inject_links() -> None:
    hostile = record(
        from_number="<!channel>",
        to_number="<@U0001>",
        customer_fullname="<!here> & co",
        fullname="<https://evil.example|click>",
        cause="<!everyone>",
        status="<b>",
        digits="<!subteam>",
        recording_url="javascript:alert(1)",
    )
    card = call_card(hostile, tz=TZ, campaign_name="<!channel> sale")
    text = rendered(card.blocks) + card.text
    for raw in ("<!channel>", "<@U0001>", "<!here>", "<!everyone>", "<https://evil", "<b>"):
        assert raw not in text, raw
    assert "&lt;!channel&gt;" in text
    assert "javascript:" not in text  # not a link, and not shown


def test_a_recording_url_cannot_break_out_of_its_link() -> None:
    card = call_card(record(recording_url="https://pbx.example.com/r.mp3|<!channel>"), tz=TZ)
    text = rendered(card.blocks)
    assert "<!channel>" not in text
    assert "%7C" in text


def test_huge_values_stay_within_slack_limits() -> None:
    card = call_card(
        record(customer_fullname="x" * 10_000, digits="9" * 5_000, cause="C" * 5_000),
        tz=TZ,
        campaign_name="n" * 5_000,
    )
    for block in card.blocks:
        block.to_dict()  # raises on Slack's limits
    assert len(card.text) <= 300


def test_a_record_with_almost_nothing_still_makes_a_card() -> None:
    card = call_card(Cdr.model_validate({"id": "x1"}), tz=TZ)
    text = rendered(card.blocks)
    assert "Unknown" in text and "time unknown" in text


def test_the_outcome_card_leads_with_the_outcome() -> None:
    card = outcome_card(record(status="busy", press_key="", digits="", billsec=0), tz=TZ)
    text = rendered(card.blocks)
    assert "Outcome of this autocall:* busy," in text
    no_answer = outcome_card(record(status="no-answered", cause="NO_ANSWER"), tz=TZ)
    assert "Outcome of this autocall:* no answer," in rendered(no_answer.blocks)
    assert no_answer.text == "Outcome of the autocall: no answer"


def test_threads_follow_the_customer_number_then_the_lead() -> None:
    inbound = record(direction="inbound", from_number="0987654321", to_number="1900")
    assert thread_subject(inbound) == "number:0987654321"
    assert thread_subject(record()) == "number:0912345678"
    no_number = record(from_number="", to_number="")
    assert thread_subject(no_number) == "lead:1ead0000-0000-4000-8000-000000000001"
    assert thread_subject(record(from_number="", to_number="", lead_uuid="")) is None


def test_the_day_is_the_local_day_of_the_call() -> None:
    received = datetime(2026, 1, 1, tzinfo=UTC)
    assert call_day(record(), TZ, received) == "2026-11-22"
    assert call_day(record(time_started="", time_ended=""), TZ, received) == "2026-01-01"


def route(**fields: object) -> NotificationRoute:
    base: dict[str, object] = {
        "id": "r1",
        "team_id": "T1",
        "channel": "C1",
        "campaigns": (),
        "statuses": (),
        "directions": (),
        "presskey_only": False,
        "created_by": "U1",
        "created_at": 0.0,
    }
    base.update(fields)
    return NotificationRoute(**base)  # type: ignore[arg-type]


def test_route_filters_each_narrow_and_empty_ones_let_everything_through() -> None:
    assert route_matches(route(), record())
    assert route_matches(route(campaigns=(CAMPAIGN.upper(),)), record())
    assert not route_matches(route(campaigns=(OTHER,)), record())
    assert route_matches(route(statuses=("answered", "busy")), record(status="ANSWERED"))
    assert route_matches(route(statuses=("no-answered",)), record(status="NO_ANSWERED"))
    assert not route_matches(route(statuses=("busy",)), record())
    assert route_matches(route(directions=("outbound",)), record())
    assert not route_matches(route(directions=("inbound",)), record())
    assert route_matches(route(presskey_only=True), record())
    assert not route_matches(route(presskey_only=True), record(press_key="", digits=""))


def test_a_channel_named_by_two_routes_gets_one_card() -> None:
    routes = [
        route(id="a", channel="C1"),
        route(id="b", channel="C2", statuses=("busy",)),
        route(id="c", channel="C1", statuses=("answered",)),
        route(id="d", channel="C3"),
    ]
    assert matching_channels(routes, record()) == ["C1", "C3"]


def test_a_record_folds_unless_notable_and_the_route_says_how_a_notable_one_goes() -> None:
    plain = record(press_key="", digits="", extension="", username="", fullname="")
    routes = [
        route(id="a", channel="C1"),
        route(id="b", channel="C2", fold=False),
        route(id="c", channel="C3", notable=("answered",)),
        route(id="d", channel="C1", fold=False),  # C1 goes by its first route
    ]
    assert feed_kinds(routes, plain) == {"C1": "fold", "C2": "fold", "C3": "note"}
    pressed = record(extension="", username="", fullname="")
    assert feed_kinds(routes, pressed) == {"C1": "note", "C2": "card", "C3": "note"}
    agent = record(press_key="", digits="", extension="101", username="", fullname="")
    assert feed_kinds(routes, agent) == {"C1": "note", "C2": "card", "C3": "note"}
