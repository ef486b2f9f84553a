"""The opt-out list, the registry's versions and consents, on both engines; and the
single do-not-call list of before moved into the opt-out list by the revision."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import text

from storage import Storage, migrate, open_database, patience
from storage.migrations import BASELINE
from tests.storage.conftest import FakeClock, at_once, raw


def test_the_opt_out_list_keeps_who_when_and_from_what(store: Storage, clock: FakeClock) -> None:
    lists = store.call_lists
    assert lists.add_optout("T1", ["0912345678", "0987654321"], source="typed", by="U1") == [
        "0912345678",
        "0987654321",
    ]
    clock.advance(60)
    added = lists.add_optout(
        "T1", ["0912345678", "0356789012"], source="call", by="U2", call_id="call-1"
    )
    assert added == ["0356789012"]  # a number already on it is not added twice
    entries = lists.optouts("T1", ["0912345678", "0356789012", "0911111111"])
    assert set(entries) == {"0912345678", "0356789012"}
    assert (entries["0912345678"].source, entries["0912345678"].added_by) == ("typed", "U1")
    assert (entries["0356789012"].source, entries["0356789012"].call_id) == ("call", "call-1")
    assert lists.optouts("T2", ["0912345678"]) == {}
    assert lists.remove_optout("T1", ["0912345678", "0911111111"], by="U3") == ["0912345678"]
    assert lists.optout_size("T1") == 2
    changes = lists.optout_changes("T1", limit=10)
    assert [(c.change, c.phone, c.changed_by) for c in changes] == [
        ("remove", "0912345678", "U3"),
        ("add", "0356789012", "U2"),
        ("add", "0987654321", "U1"),
        ("add", "0912345678", "U1"),
    ]


def test_each_registry_upload_is_a_version_and_the_old_ones_stay_readable(
    store: Storage,
) -> None:
    lists = store.call_lists
    first = lists.upload_registry(
        "T1",
        [("0912345678", "2025-03-01"), ("0987654321", None), ("0912345678", None)],
        by="U1",
        file_name="may.csv",
    )
    assert first is not None
    assert (first.version, first.numbers, first.added, first.removed) == (1, 2, 2, 0)
    second = lists.upload_registry(
        "T1", [("0987654321", "2025-02-01"), ("0356789012", None)], by="U2", file_name="june.csv"
    )
    assert second is not None
    assert (second.version, second.numbers, second.added, second.removed) == (2, 2, 1, 1)
    assert set(lists.on_registry("T1", ["0912345678", "0987654321", "0356789012"])) == {
        "0987654321",
        "0356789012",
    }
    old = {e.phone: e.registered_on for e in lists.registry_entries("T1", 1)}
    # A later file dated a number an earlier one did not: the date is the number's.
    assert old == {"0912345678": "2025-03-01", "0987654321": "2025-02-01"}
    now = {e.phone: e.registered_on for e in lists.registry_entries("T1", 2)}
    assert now == {"0987654321": "2025-02-01", "0356789012": None}
    assert [v.version for v in lists.registry_versions("T1")] == [2, 1]
    assert lists.registry_size("T1") == 2
    assert lists.upload_registry("T1", [], by="U1", file_name="empty.csv") is None
    assert lists.registry_version("T1") == second
    third = lists.upload_registry("T1", [("0912345678", None)], by="U1", file_name="back.csv")
    assert third is not None and (third.added, third.removed) == (1, 2)  # back on it
    assert {e.phone for e in lists.registry_entries("T1", 1)} == {"0912345678", "0987654321"}


def test_a_consent_holds_for_its_scope_until_its_day(store: Storage, clock: FakeClock) -> None:
    lists = store.call_lists
    lists.add_consent("T1", "0912345678", source="form 12", by="U1", campaign_uuid="C1")
    lists.add_consent("T1", "0912345678", source="call", by="U1", until=clock() + 3600)
    found = lists.consents_of("T1", ["0912345678"])
    assert [c.valid(clock(), "C2") for c in found] == [False, True]
    assert [c.valid(clock(), "C1") for c in found] == [True, True]
    assert [c.source for c in lists.expiring("T1", now=clock(), within=7 * 86400)] == ["call"]
    clock.advance(7200)
    assert [c.valid(clock(), "C2") for c in lists.consents_of("T1", ["0912345678"])] == [
        False,
        False,
    ]
    assert lists.remove_consents("T1", "0912345678", by="U2", campaign_uuid="C1") == 1
    assert [c.source for c in lists.consents_of("T1", ["0912345678"])] == ["call"]


def test_an_erased_number_is_replaced_everywhere_the_lists_keep_it(store: Storage) -> None:
    lists = store.call_lists
    lists.add_optout("T1", ["0912345678"], source="key", by=None, call_id="c1")
    lists.upload_registry("T1", [("0912345678", None)], by="U1", file_name="r.csv")
    lists.add_consent("T1", "0912345678", source="form", by="U1")
    assert lists.erase_number("T1", "0912345678", "h:abc") == 4
    assert lists.optouts("T1", ["h:abc"]) and not lists.optouts("T1", ["0912345678"])
    assert lists.on_registry("T1", ["h:abc"]) and lists.consents_of("T1", ["h:abc"])


def test_the_old_do_not_call_rows_move_to_the_opt_out_list(empty_db_url: str) -> None:
    db = open_database(empty_db_url)
    try:
        with db.engine.begin() as conn:
            from alembic import command

            from storage.migrations import alembic_config, revision_id

            command.downgrade(alembic_config(conn), revision_id(BASELINE))
            conn.execute(
                text("INSERT INTO dnc_numbers (team_id, phone, added_at) VALUES ('T1', :p, 5)"),
                {"p": "0912345678"},
            )
        migrate(db)
        rows = db.read(
            lambda conn: conn.execute(
                text("SELECT team_id, phone, added_at, source, added_by FROM optout_numbers")
            ).all()
        )
        assert [tuple(r) for r in rows] == [("T1", "0912345678", 5.0, "typed", None)]
    finally:
        db.close()


def test_two_uploads_at_once_make_two_whole_versions(store: Storage) -> None:
    files = [
        [(f"09120000{i:02d}", None) for i in range(40)],
        [(f"09120000{i:02d}", None) for i in range(20, 80)],
    ]
    made = at_once(
        2, lambda i: store.call_lists.upload_registry("T1", files[i], by="U1", file_name=f"{i}.csv")
    )
    assert sorted(v.version for v in made if v is not None) == [1, 2]
    first, second = sorted((v for v in made if v is not None), key=lambda v: v.version)
    assert first.added == first.numbers and first.removed == 0
    assert second.added + first.numbers - second.removed == second.numbers
    # 40 and 60 numbers, 20 in common, whichever came first
    assert (second.added, second.removed) in {(40, 20), (20, 40)}
    assert store.call_lists.registry_size("T1") == second.numbers


def test_two_clicks_at_once_add_a_number_once(store: Storage) -> None:
    def click(i: int) -> list[str]:
        return store.call_lists.add_optout(
            "T1", ["0912345678"], source="call", by=f"U{i}", call_id="c1"
        )

    assert sorted(len(added) for added in at_once(4, click)) == [0, 0, 0, 1]
    assert len(store.call_lists.optout_changes("T1", limit=10)) == 1


def _numbers(first: int, count: int) -> list[tuple[str, str | None]]:
    return [(f"09{n:08d}", None) for n in range(first, first + count)]


def test_a_large_upload_lets_other_writers_through_and_shows_only_when_whole(
    store: Storage,
) -> None:
    lists = store.call_lists
    first = lists.upload_registry("T1", _numbers(0, 2500), by="U1", file_name="v1.csv")
    assert first is not None
    seen: list[tuple[int | None, int, bool]] = []

    def file() -> Iterator[tuple[str, str | None]]:
        # Read between the upload's transactions: a writer that waits a tenth of a
        # second at most gets through, and readers still see the version before.
        for i, entry in enumerate(_numbers(1000, 2500)):
            if i == 1500:
                with patience(0.1, tries=1):
                    lists.add_optout("T1", ["0911111111"], source="typed", by="U2")
                version = lists.registry_version("T1")
                seen.append(
                    (
                        version.version if version else None,
                        lists.registry_size("T1"),
                        bool(lists.on_registry_now("T1", ["0900000000"])),
                    )
                )
            yield entry

    second = lists.upload_registry("T1", file(), by="U1", file_name="v2.csv")
    assert seen == [(1, 2500, True)]
    assert lists.on_optout("T1", ["0911111111"]) == {"0911111111"}
    assert second is not None
    assert (second.version, second.numbers, second.added, second.removed) == (2, 2500, 1000, 1000)
    assert lists.registry_size("T1") == 2500
    assert lists.on_registry_now("T1", ["0900000000", "0900003400"]) == {"0900003400"}


def test_an_upload_cut_half_way_leaves_the_version_before_in_force(store: Storage) -> None:
    lists = store.call_lists
    assert lists.upload_registry("T1", _numbers(0, 1500), by="U1", file_name="v1.csv")

    def cut() -> Iterator[tuple[str, str | None]]:
        yield from _numbers(1000, 1200)
        raise OSError("the disk went away")

    with pytest.raises(OSError):
        lists.upload_registry("T1", cut(), by="U1", file_name="cut.csv")
    # As if a crash had also cut the switch: a number opened and one closed at version 2.
    raw(
        store.db,
        "INSERT INTO registry_numbers (team_id, phone, since_version) VALUES ('T1', :p, 2)",
        {"p": "0900009999"},
    )
    raw(
        store.db,
        "UPDATE registry_numbers SET until_version = 2 WHERE team_id = 'T1' AND phone = :p",
        {"p": "0900000000"},
    )
    assert lists.registry_version("T1") is not None
    assert [v.version for v in lists.registry_versions("T1")] == [1]
    assert lists.registry_size("T1") == 1500
    assert lists.on_registry_now("T1", ["0900000000", "0900009999"]) == {"0900000000"}
    assert set(lists.on_registry("T1", ["0900000000", "0900009999"])) == {"0900000000"}
    assert len(list(lists.registry_entries("T1", 1))) == 1500
    # The next upload clears what was left and is version 2, counted against version 1.
    again = lists.upload_registry("T1", _numbers(1000, 1200), by="U1", file_name="v2.csv")
    assert again is not None
    assert (again.version, again.numbers, again.added, again.removed) == (2, 1200, 700, 1000)
    assert lists.on_registry_now("T1", ["0900000000", "0900009999", "0900002000"]) == {"0900002000"}
    assert len(list(lists.registry_entries("T1", 1))) == 1500
    assert raw(store.db, "SELECT count(*) FROM registry_staging") == [(0,)]
