"""Reading ``alert add`` conditions and judging autodialer figures against them."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from callcenter.models import AutodialerStats
from commands.digests.alerts import (
    describe,
    is_crossed,
    parse_condition,
    snooze_until,
    value_of,
    watched,
)
from commands.kernel.grammar import UsageError
from commands.kernel.periods import Window
from commands.reports.figures import DialerFigures
from storage import Alert


def _alert(
    metric: str = "dropped_rate", op: str = ">", threshold: float = 5.0, **kw: object
) -> Alert:
    fields: dict[str, object] = {
        "id": "a1", "team_id": "T1", "channel": "C1", "metric": metric, "op": op,
        "threshold": threshold, "campaign_uuid": None, "campaign_name": None,
        "window_minutes": 60, "snoozed_until": None, "created_by": "U1", "created_at": 0.0,
    }  # fmt: skip
    fields.update(kw)
    return Alert(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("dropped_rate > 5", ("dropped_rate", ">", 5.0)),
        ("dropped_rate &gt; 5", ("dropped_rate", ">", 5.0)),
        ("dropped >5%", ("dropped_rate", ">", 5.0)),
        ("connection_rate &lt;= 30.5", ("connection_rate", "<=", 30.5)),
        ("agents_ready below 2", ("agents_ready", "<", 2.0)),
        ("leads_in_progress >= 100", ("leads_in_progress", ">=", 100.0)),
    ],
)
def test_conditions_in_every_spelling(words: str, expected: tuple[str, str, float]) -> None:
    condition, rest = parse_condition([*words.split(), "Summer", "30m"], "usage")
    assert (condition.metric, condition.op, condition.threshold) == expected
    assert rest == ["Summer", "30m"]


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ("", "Name a metric"),
        ("mood > 5", "is not a metric"),
        ("dropped_rate", "Give an operator"),
        ("dropped_rate == 5", "is not an operator"),
        ("dropped_rate > x", "is not a number"),
        ("dropped_rate > 101", "percentage"),
    ],
)
def test_bad_conditions(words: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_condition(words.split(), "usage")


WINDOW = Window.back_from(datetime(2027, 5, 1, 8, tzinfo=UTC), 60, ZoneInfo("UTC"))


def _figures(**kw: object) -> DialerFigures:
    return DialerFigures.of(AutodialerStats.model_validate(kw), WINDOW)


def test_rates_are_not_judged_before_the_first_call() -> None:
    alert = _alert("connection_rate", "<", 20)
    assert value_of(alert, _figures(total_calls=0)) is None
    value = value_of(alert, _figures(total_calls=10, total_connected_customers=1))
    assert value == 10 and is_crossed(alert, value)
    counts = _alert("agents_ready", "<", 2)
    assert value_of(counts, _figures(total_calls=0, agents_ready=1)) == 1
    # The dropped rate is of connected calls: none connected, nothing to judge.
    dropped = _alert("dropped_rate", ">", 5)
    assert value_of(dropped, _figures(total_calls=10, dropped_calls=2)) is None
    assert (
        value_of(dropped, _figures(total_calls=10, total_connected_customers=4, dropped_calls=1))
        == 25
    )


def test_only_running_campaigns_are_watched() -> None:
    items = [
        _figures(campaign_uuid="a", status="running"),
        _figures(campaign_uuid="b", status="stop"),
        _figures(campaign_uuid="c", status="start"),
    ]
    assert [s.campaign_uuid for s in watched(_alert(), items)] == ["a", "c"]
    assert [s.campaign_uuid for s in watched(_alert(campaign_uuid="b"), items)] == []
    assert [s.campaign_uuid for s in watched(_alert(campaign_uuid="c"), items)] == ["c"]


def test_descriptions_and_snooze_ends() -> None:
    assert describe(_alert()) == "dropped-call rate > 5%"
    assert describe(_alert("agents_ready", "<", 2)) == "agents ready < 2"
    tz = ZoneInfo("Asia/Ho_Chi_Minh")
    now = datetime(2027, 5, 1, 20, 30, tzinfo=UTC)  # 03:30 on 2 May in Ho Chi Minh City
    assert snooze_until("1h", now, tz) == datetime(2027, 5, 1, 21, 30, tzinfo=UTC)
    assert snooze_until("tomorrow", now, tz) == datetime(2027, 5, 3, tzinfo=tz)
