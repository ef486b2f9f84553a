"""A person's name in the reader's order: family first unless they read given names
first, the same for the three-part names of the directory and the one-string names of
call records."""

from __future__ import annotations

from callcenter.models import AgentTime, User
from commands.kernel.i18n import Audience, use_audience
from commands.kernel.names import name_of, person_name, written_name
from commands.reports.figures import agent_name

GIVEN_FIRST = Audience(names="given-first")


def test_a_name_is_written_family_first_by_default() -> None:
    assert person_name("Vũ", "Bảo", "Minh") == "Vũ Bảo Minh"
    user = User(
        user_uuid="u", username="minh.vu", last_name="Vũ", middle_name="Bảo", first_name="Minh"
    )
    assert name_of(user) == "Vũ Bảo Minh"
    assert written_name("Vũ Bảo Minh") == "Vũ Bảo Minh"


def test_a_reader_who_reads_given_names_first_gets_them_first_everywhere() -> None:
    agent = AgentTime(username="minh.vu", last_name="Vũ", middle_name="Bảo", first_name="Minh")
    with use_audience(GIVEN_FIRST):
        assert person_name("Vũ", "Bảo", "Minh") == "Minh Bảo Vũ"
        assert agent_name(agent) == "Minh Bảo Vũ"
        assert written_name("Vũ Bảo Minh") == "Minh Bảo Vũ"
        assert written_name("Vũ  Minh ") == "Minh Vũ"


def test_missing_parts_are_skipped_and_nobody_falls_back_to_the_username() -> None:
    assert person_name("", " Bảo ", "Minh") == "Bảo Minh"
    assert person_name(None, None, None) == ""
    assert name_of(User(user_uuid="u", username="an"), "an") == "an"
    assert written_name("") == written_name(None) == ""
    with use_audience(GIVEN_FIRST):
        assert written_name("An") == "An"
