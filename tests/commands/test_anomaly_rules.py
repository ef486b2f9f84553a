"""When a reading is an anomaly, and when an episode ends: out of the band and four
sampling errors from the usual value to open, back within one error of the band to
close; a few dozen calls are needed before anything is judged."""

from __future__ import annotations

import math

import pytest

from commands.digests.anomalies import (
    MIN_HOUR_CALLS,
    Reading,
    is_word,
    read_scopes,
    sampling_error,
    scopes_of,
)
from commands.reports.kpis import KpiCounts
from commands.reports.usual import UsualBand, UsualLevels, campaign_scope, network_scope
from storage import Alert

BAND = UsualBand(value=55.0, low=45.0, high=65.0, weeks=4, calls=400)


def reading(value: float, calls: int, kpi: str = "answer_rate") -> Reading:
    return Reading(network_scope("Viettel"), "Viettel", kpi, value, BAND, calls)


def test_the_sampling_error_of_a_rate_is_binomial_and_of_a_duration_is_wider() -> None:
    assert sampling_error("answer_rate", 50.0, 100) == pytest.approx(5.0)
    assert sampling_error("acd", 100.0, 100) == pytest.approx(15.0)
    assert sampling_error("asr", 50.0, 0) == math.inf


@pytest.mark.parametrize(
    ("value", "calls", "outside", "inside"),
    [
        (20.0, 100, True, False),  # 35 points from usual, 7 errors of 5: an anomaly
        (40.0, 100, False, False),  # out of the band, 3 errors: noise, no change
        (42.0, 100, False, True),  # 3 points under the band, within one error: ended
        (60.0, 100, False, True),  # in the band
        (20.0, 9, False, False),  # 9 calls: the error is 16.6, four of them 66
    ],
)
def test_an_anomaly_needs_the_band_and_four_errors(
    value: float, calls: int, outside: bool, inside: bool
) -> None:
    assert (reading(value, calls).outside, reading(value, calls).inside) == (outside, inside)


def _alert(campaign: str | None) -> Alert:
    return Alert(
        "a1", "T1", "C1", "answer_rate", "anomaly", 0.0, campaign, None, 60, None, "U1", 0.0
    )


def test_an_alert_watches_its_campaign_or_every_campaign_and_named_network() -> None:
    counts = KpiCounts(calls=50, answered=20)
    campaigns = {"c1": counts, "c2": counts}
    networks = {"Viettel": counts, "": counts}
    assert set(scopes_of(_alert("c1"), campaigns, networks)) == {campaign_scope("c1")}
    assert set(scopes_of(_alert(None), campaigns, networks)) == {
        campaign_scope("c1"),
        campaign_scope("c2"),
        network_scope("Viettel"),
    }


def test_a_scope_is_read_only_with_enough_calls_and_a_band() -> None:
    few = KpiCounts(calls=MIN_HOUR_CALLS - 1, answered=1)
    enough = KpiCounts(calls=MIN_HOUR_CALLS, answered=3)
    week = KpiCounts(calls=100, answered=55)
    levels = UsualLevels({(network_scope("Viettel"), 0, 10): [week, week, week, week]})
    found = read_scopes(
        "answer_rate",
        {network_scope("Viettel"): enough, network_scope("MobiFone"): enough},
        {},
        levels,
        0,
        10,
    )
    assert [(r.name, r.calls, r.value) for r in found] == [("Viettel", MIN_HOUR_CALLS, 10.0)]
    assert found[0].outside
    assert read_scopes("answer_rate", {network_scope("Viettel"): few}, {}, levels, 0, 10) == []


@pytest.mark.parametrize("word", ["anomaly", "ANOMALIES", "bat-thuong", "bất thường", "batthuong"])
def test_the_word_is_read_in_both_languages(word: str) -> None:
    assert is_word(word)


def test_a_threshold_metric_is_not_the_word() -> None:
    assert not is_word("dropped_rate")
