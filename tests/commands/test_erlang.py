"""Erlang C against published worked examples."""

from __future__ import annotations

import math

import pytest

from commands.reports.erlang import (
    agents_needed,
    average_speed_of_answer,
    erlang_c,
    service_level,
    traffic,
)


def test_the_call_center_textbook_example() -> None:
    # 100 calls in 30 minutes, 180 s handle time: 10 erlangs.  The usual worked example
    # (e.g. Call Centre Helper's) gives, with 11 agents, a 68.21 % chance of waiting,
    # a 39 % service level at 20 s and 123 s average speed of answer; 14 agents for
    # 80 % in 20 s.
    erlangs = traffic(200, 180)
    assert erlangs == 10
    assert erlang_c(11, erlangs) == pytest.approx(0.6821, abs=5e-5)
    assert service_level(11, erlangs, 180, 20) == pytest.approx(0.3896, abs=5e-4)
    assert average_speed_of_answer(11, erlangs, 180) == pytest.approx(122.8, abs=0.05)
    assert service_level(13, erlangs, 180, 20) < 0.8 < service_level(14, erlangs, 180, 20)
    assert agents_needed(200, 180, target=0.8, seconds=20) == 14


def test_queueing_textbook_examples() -> None:
    # 120 customers an hour, 3 minutes each, 10 servers: "the probability of waiting is
    # about 0.10" (6 erlangs).
    assert erlang_c(10, traffic(120, 180)) == pytest.approx(0.1013, abs=5e-4)
    # 30 calls an hour, 5 minutes each: 6 people keep the chance of a delay under 10 %
    # (5 give 13 %).
    assert erlang_c(5, 2.5) == pytest.approx(0.1304, abs=5e-4)
    assert erlang_c(6, 2.5) == pytest.approx(0.0474, abs=5e-4)


def test_no_calls_and_too_few_agents() -> None:
    assert agents_needed(0, 180) == 0
    assert erlang_c(3, 0) == 0.0
    assert erlang_c(10, 10) == 1.0
    assert service_level(9, 10, 180, 20) == 0.0
    assert math.isinf(average_speed_of_answer(10, 10, 180))
    # A quiet hour still needs someone.
    assert agents_needed(1, 60) == 1
