"""Who reads which language: people's choices and Slack locales, and the workspace's
settings (language, names, masked numbers, who chose the zone), on both engines."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy.exc import IntegrityError

from storage import LATEST_VERSION, Person, Role, SecretBox, Storage, connect
from storage.errors import InvalidValueError
from storage.migrations import read_schema_version
from storage.validation import check_timezone
from tests.storage.conftest import FakeClock, raw
from tests.storage.legacy import make_legacy_database


def test_a_persons_choice_and_slack_locale_come_with_their_role(
    store: Storage, clock: FakeClock
) -> None:
    store.workspaces.connect("T1", "https://pbx.example.test", "key")
    store.roles.set_role("T1", "U1", Role.OPERATOR)
    assert store.requester("T1", "U1").person is None

    store.people.seen("T1", "U1", "vi-VN", "Asia/Ho_Chi_Minh")
    seen = store.requester("T1", "U1")
    assert seen.role is Role.OPERATOR
    assert seen.person == Person(None, "vi-VN", "Asia/Ho_Chi_Minh", clock())

    store.people.choose_language("T1", "U1", "en")
    assert store.requester("T1", "U1").person == Person("en", "vi-VN", "Asia/Ho_Chi_Minh", clock())
    # Slack says something new: the choice stays.
    clock.advance(60)
    store.people.seen("T1", "U1", "en-US", "Europe/Berlin")
    assert store.people.get("T1", "U1") == Person("en", "en-US", "Europe/Berlin", clock())
    # auto: back to the Slack locale.
    store.people.choose_language("T1", "U1", None)
    assert store.people.get("T1", "U1") == Person(None, "en-US", "Europe/Berlin", clock())
    # Someone who chose before Slack was asked about them: known, not yet seen.
    store.people.choose_language("T1", "U2", "vi")
    other = store.requester("T1", "U2")
    assert other.role is None and other.person == Person("vi", None, None, None)
    assert not other.person.seen
    # People are per workspace.
    assert store.requester("T2", "U1").person is None


def test_a_first_request_is_marked_and_its_asker_read_in_one_go(store: Storage) -> None:
    store.workspaces.connect("T1", "https://pbx.example.test", "key")
    store.roles.set_role("T1", "U1", Role.ADMIN)
    first, known = store.first_request("*", "sig:a", ("T1", "U1"))
    assert first and known == store.requester("T1", "U1")
    assert known.role is Role.ADMIN and known.api_key == "key"
    # The same id again is a replay, whoever asks; the mark is the dedup's own.
    assert store.first_request("*", "sig:a", ("T1", "U1"))[0] is False
    assert store.dedup.mark_event("*", "sig:a") is False
    # Without an asker nothing is read.
    assert store.first_request("*", "sig:b", None) == (True, None)


def test_a_language_callops_does_not_speak_is_refused(store: Storage) -> None:
    with pytest.raises(InvalidValueError):
        store.people.choose_language("T1", "U1", "fr")
    store.workspaces.ensure("T1")
    with pytest.raises(InvalidValueError):
        store.workspaces.set_language("T1", "de")
    with pytest.raises(InvalidValueError):
        store.workspaces.set_name_order("T1", "last-first")
    assert store.people.get("T1", "U1") is None
    workspace = store.workspaces.require("T1")
    assert (workspace.default_language, workspace.name_order) == (None, "family-first")


def test_workspace_settings_start_unset_and_change_one_at_a_time(store: Storage) -> None:
    fresh = store.workspaces.ensure("T1")
    assert fresh.default_language is None
    assert fresh.admin_locale is None
    assert fresh.name_order == "family-first"
    assert fresh.mask_phones is True  # a new workspace masks customers' numbers
    assert fresh.timezone_source is None

    store.workspaces.set_language("T1", "vi")
    store.workspaces.set_name_order("T1", "given-first")
    store.workspaces.set_mask_phones("T1", True)
    store.workspaces.set_timezone("T1", "Asia/Ho_Chi_Minh")
    changed = store.workspaces.require("T1")
    assert changed.default_language == "vi"
    assert changed.name_order == "given-first"
    assert changed.mask_phones is True
    assert (changed.timezone, changed.timezone_source) == ("Asia/Ho_Chi_Minh", "admin")
    assert store.requester("T1", "U1").workspace == changed

    store.workspaces.set_language("T1", None)
    store.workspaces.set_mask_phones("T1", False)
    back = store.workspaces.require("T1")
    assert (back.default_language, back.mask_phones) == (None, False)


def test_connecting_from_slack_takes_the_admins_zone_and_locale_once(store: Storage) -> None:
    first = store.workspaces.connect(
        "T1", "http://127.0.0.1:9", "k", slack_timezone="Asia/Ho_Chi_Minh", admin_locale="vi-VN"
    )
    assert (first.timezone, first.timezone_source) == ("Asia/Ho_Chi_Minh", "slack")
    assert first.admin_locale == "vi-VN"
    # Another admin connects again: the zone Slack gave stays, their locale is the new one.
    again = store.workspaces.connect(
        "T1", "http://127.0.0.1:9", "k2", slack_timezone="Europe/Berlin", admin_locale="en-US"
    )
    assert (again.timezone, again.admin_locale) == ("Asia/Ho_Chi_Minh", "en-US")
    # An admin's own choice is kept over any Slack zone later.
    store.workspaces.set_timezone("T1", "Asia/Bangkok")
    kept = store.workspaces.connect("T1", "http://127.0.0.1:9", "k3", slack_timezone="UTC")
    assert (kept.timezone, kept.timezone_source, kept.admin_locale) == (
        "Asia/Bangkok",
        "admin",
        "en-US",
    )


def test_connecting_from_the_command_line_keeps_the_default_zone(store: Storage) -> None:
    plain = store.workspaces.connect("T1", "http://127.0.0.1:9", "k")
    assert (plain.timezone, plain.timezone_source, plain.admin_locale) == ("UTC", None, None)
    # A zone Slack gives that this machine does not know is not a reason to fail.
    odd = store.workspaces.connect("T2", "http://127.0.0.1:9", "k", slack_timezone="Mars/Base")
    assert (odd.timezone, odd.timezone_source) == ("UTC", None)


@pytest.mark.parametrize("zone", ["America", "x" * 5000, "Asia/../Asia", "America/", "\x00"])
def test_a_profile_zone_that_is_not_a_zone_is_ignored_in_one_line(
    store: Storage, zone: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    joined = store.workspaces.connect("T3", "http://127.0.0.1:9", "k", slack_timezone=zone)
    assert (joined.timezone, joined.timezone_source) == ("UTC", None)
    ignored = [r for r in caplog.records if "is not a zone here; ignored" in r.getMessage()]
    assert len(ignored) == 1 and ignored[0].exc_info is None
    assert len(ignored[0].getMessage()) < 200
    with pytest.raises(InvalidValueError):
        check_timezone(zone)


def test_rows_written_before_the_revisions_read_with_the_settings_defaults(
    empty_db_url: str, box: SecretBox
) -> None:
    make_legacy_database(empty_db_url)
    old = connect(empty_db_url)
    raw(
        old,
        "INSERT INTO workspaces (team_id, base_url, timezone, created_at, updated_at) "
        "VALUES ('T1', 'http://127.0.0.1:9', 'Europe/Berlin', 1, 1)",
    )
    raw(
        old,
        "INSERT INTO digests (id, team_id, channel, schedule, timezone, created_by, "
        "created_at, updated_at) VALUES ('d1', 'T1', 'C1', 'daily 08:00', 'UTC', 'U1', 1, 1)",
    )
    old.close()

    with Storage.open(empty_db_url, box) as upgraded:
        assert read_schema_version(upgraded.db) == LATEST_VERSION
        workspace = upgraded.workspaces.require("T1")
        assert workspace.timezone == "Europe/Berlin"
        assert (workspace.name_order, workspace.mask_phones) == ("family-first", False)
        assert workspace.default_language is None
        assert raw(upgraded.db, "SELECT language FROM digests") == [(None,)]
        upgraded.people.choose_language("T1", "U1", "vi")
        assert upgraded.requester("T1", "U1").person == Person("vi", None, None, None)
        with pytest.raises(IntegrityError):
            raw(upgraded.db, "UPDATE workspaces SET name_order = 'sideways'")
