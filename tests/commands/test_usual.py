"""The usual band of a generated month, worked out by hand: the median of the weeks and
3 × 1.4826 × MAD either side; one odd day does not move it; too few calls give none."""

from __future__ import annotations

from datetime import date, timedelta
from zoneinfo import ZoneInfo

import pytest

from callcenter.models import Cdr
from commands.reports import kpis, usual
from commands.reports.usual import (
    CENTER,
    USUAL_KPIS,
    UsualBand,
    UsualLearner,
    campaign_scope,
    is_outside,
    network_scope,
    usual_window,
    widths_outside,
)
from tests.commands.helpers import bytes_kept

VN = ZoneInfo("Asia/Ho_Chi_Minh")
MONDAYS = [date(2026, 11, 2) + timedelta(weeks=w) for w in range(4)]
"""Four Mondays; 02:xx on the service's clock (UTC) is 09:xx in Vietnam."""


def hour_of_calls(day: date, answered: int, calls: int = 20, **kw: str) -> list[Cdr]:
    """``calls`` outbound calls to a Viettel number at 09:00-09:59 local on ``day``, the
    first ``answered`` of them answered (60 s talk)."""
    return [
        Cdr(
            id=f"{day}-{kw.get('campaign_uuid', '')}-{n}",
            direction="outbound",
            status="answered" if n < answered else "no-answered",
            billsec=60 if n < answered else 0,
            duration=70 if n < answered else 30,
            extension="1001",
            to_number=kw.get("to_number", "0961234567"),
            campaign_uuid=kw.get("campaign_uuid", "C1"),
            time_started=f"{day} 02:{n % 60:02d}:00",
        )
        for n in range(calls)
    ]


def learned(answered: list[int], calls: int = 20) -> UsualLearner:
    learner = UsualLearner(VN)
    for day, count in zip(MONDAYS, answered, strict=True):
        learner.add_page(hour_of_calls(day, count, calls))
    return learner


def test_the_band_is_the_median_and_three_scaled_mads_of_the_weeks() -> None:
    # Answer rates 40, 50, 60 and 45 %: sorted 40 45 50 60, median 47.5; deviations
    # 7.5 2.5 2.5 12.5, MAD 5; half width 3 × 1.4826 × 5 = 22.239.
    levels = learned([8, 10, 12, 9]).levels()
    band = levels.band(campaign_scope("C1"), "answer_rate", 0, 9)
    assert band is not None
    assert (band.value, band.weeks, band.calls) == (47.5, 4, 80)
    assert band.low == pytest.approx(25.261) and band.high == pytest.approx(69.739)
    assert isinstance(band, UsualBand)
    # The same calls seen from the call center and from their network.
    assert levels.band(CENTER, "answer_rate", 0, 9) == band
    assert levels.band(network_scope("Viettel"), "asr", 0, 9) == band
    # Another hour, another weekday, another scope: nothing learned.
    assert levels.band(CENTER, "answer_rate", 0, 10) is None
    assert levels.band(CENTER, "answer_rate", 1, 9) is None
    assert levels.band(network_scope("Vinaphone"), "answer_rate", 0, 9) is None
    assert levels.band(CENTER, "no_such_kpi", 0, 9) is None
    # 20 calls each week: the volume's least half width is 20 % of it.
    calls = levels.band(CENTER, "calls", 0, 9)
    assert calls is not None and (calls.value, calls.low, calls.high) == (20, 16, 24)
    # Handle time counts over answered calls: only two weeks had 10 of them.
    assert levels.band(CENTER, "aht", 0, 9) is None
    aht = learned([10, 10, 12, 11]).levels().band(CENTER, "aht", 0, 9)
    assert aht is not None and (aht.value, aht.low, aht.high) == (60, 54, 66)
    assert levels.scopes("campaign") == [campaign_scope("C1")]


def test_an_odd_day_does_not_move_the_band() -> None:
    # 50, 50, 55 % and one bad Monday: whether it answered 45 %, 5 % or nothing, the
    # median is 50 and the MAD 2.5 (half width 11.1195).
    bands = [
        learned([10, 10, 11, bad]).levels().band(CENTER, "answer_rate", 0, 9) for bad in (9, 1, 0)
    ]
    assert bands[0] == bands[1] == bands[2]
    band = bands[0]
    assert band is not None
    assert band.value == 50
    assert band.low == pytest.approx(38.8805) and band.high == pytest.approx(61.1195)
    # The bad day itself is far outside it.
    assert is_outside(band, 5.0)
    assert widths_outside(band, 5.0) == pytest.approx((5.0 - 38.8805) / 22.239)


def test_too_few_calls_give_no_band() -> None:
    # Weeks of 9 calls do not count for a rate: two weeks of 20 are not enough.
    learner = UsualLearner(VN)
    for day, calls in zip(MONDAYS, (20, 9, 20, 9), strict=True):
        learner.add_page(hour_of_calls(day, calls // 2, calls))
    levels = learner.levels()
    assert levels.band(CENTER, "answer_rate", 0, 9) is None
    # Every week had calls: the volume has a band (median of 9 9 20 20 is 14.5).
    volume = levels.band(CENTER, "calls", 0, 9)
    assert volume is not None and volume.value == 14.5 and volume.weeks == 4
    # Three good weeks of four are enough.
    learner.add_page(hour_of_calls(MONDAYS[1], 10, 11)[9:])
    band = learner.levels().band(CENTER, "answer_rate", 0, 9)
    assert band is not None and band.weeks == 3


def test_four_weeks_alike_still_leave_a_band_within_the_kpis_limits() -> None:
    levels = learned([20, 20, 20, 20]).levels()
    band = levels.band(CENTER, "answer_rate", 0, 9)
    # MAD 0: the band is the percentage's least half width, cut at 100 %.
    assert band is not None and (band.value, band.low, band.high) == (100, 95, 100)
    assert not is_outside(band, 100.0) and not is_outside(band, 95.0)
    assert widths_outside(band, 90.0) == -1.0
    assert widths_outside(band, 97.0) == 0.0
    assert USUAL_KPIS["answer_rate"].ceiling == 100.0


def test_the_window_is_the_four_whole_weeks_before_today() -> None:
    window = usual_window(date(2026, 11, 30), VN)
    assert window.start.isoformat() == "2026-11-02T00:00:00+07:00"
    assert window.end.isoformat() == "2026-11-30T00:00:00+07:00"


def kept_after(pages: int) -> int:
    """Bytes the learner's own code holds after ``pages`` pages of one hour of calls."""
    template = hour_of_calls(MONDAYS[0], 10)
    return bytes_kept(UsualLearner(VN), template, pages, (usual.__file__, kpis.__file__))


def test_the_learners_memory_does_not_grow_with_the_records() -> None:
    kept_after(3)  # warm caches (the network of each number, the local hours)
    small, large = kept_after(10), kept_after(100)
    # The same few counters per scope, day and hour; 2,000 records grow nothing.
    assert large < small + 8192, (small, large)
