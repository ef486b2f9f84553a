"""A database as callops made it before the Alembic revisions: the SQL its numbered
migrations ran (kept in data/, recorded from that code), run by the driver itself so no
code of today touches the schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg

from storage.migrations import BASELINE
from tests.storage.conftest import sqlite_path

DATA = Path(__file__).with_name("data")


def make_legacy_database(url: str) -> None:
    """Create the schema of version `BASELINE` as the numbered migrations left it."""
    path = sqlite_path(url)
    dialect = "sqlite" if path else "postgresql"
    sql = (DATA / f"schema_v{BASELINE}.{dialect}.sql").read_text(encoding="utf-8")
    if path:
        with sqlite3.connect(path) as conn:
            conn.executescript(sql)
        return
    with psycopg.connect(url, autocommit=True) as pg:
        pg.execute(sql.encode())
