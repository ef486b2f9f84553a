"""Two lists by their names: the company's opt-out list (with who, when and from what)
and the national registry (versioned uploads), customers' consents, a notification
route's opt-out key; the single do-not-call list of before is moved into the opt-out list.

Where the old rows go: the old list mixed numbers typed with ``dnc add`` (customers who
said no) and numbers from uploaded registry files, and kept nothing that tells them
apart.  They go to the opt-out list, as typed, with no author and the reason
"moved from the do-not-call list": the opt-out list refuses every call of every campaign
and no consent lifts it, so no number that was refused before is let through after.
Putting them on the registry instead would let a consent or a service campaign reach a
customer who personally refused.  An admin who knows some came from the registry can
upload the registry's file (it becomes version 1) and remove those from the opt-out
list; the move is one of the opt-out list's changes, so it shows in ``dnc list``.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from alembic import op

INT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
FLOAT: sa.Double[float] = sa.Double().with_variant(sa.REAL(), "sqlite")

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

MOVED = "moved from the do-not-call list"


def upgrade() -> None:
    op.create_table(
        "optout_numbers",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("phone", sa.Text(), nullable=False),
        sa.Column("added_at", FLOAT, nullable=False),
        sa.Column("added_by", sa.Text(), nullable=True),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("call_id", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.CheckConstraint("source IN ('typed', 'call', 'key')"),
        sa.PrimaryKeyConstraint("team_id", "phone"),
    )
    op.create_table(
        "optout_changes",
        sa.Column("id", INT, sa.Identity(always=False), nullable=False),
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("phone", sa.Text(), nullable=False),
        sa.Column("change", sa.Text(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("call_id", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("changed_by", sa.Text(), nullable=True),
        sa.Column("at", FLOAT, nullable=False),
        sa.CheckConstraint("change IN ('add', 'remove')"),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("optout_changes_by_time", "optout_changes", ["team_id", "at"])
    op.create_table(
        "registry_versions",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("version", INT, nullable=False),
        sa.Column("uploaded_at", FLOAT, nullable=False),
        sa.Column("uploaded_by", sa.Text(), nullable=True),
        sa.Column("file_name", sa.Text(), server_default=sa.text("''"), nullable=False),
        sa.Column("numbers", INT, server_default=sa.text("0"), nullable=False),
        sa.Column("added", INT, server_default=sa.text("0"), nullable=False),
        sa.Column("removed", INT, server_default=sa.text("0"), nullable=False),
        sa.PrimaryKeyConstraint("team_id", "version"),
    )
    op.create_table(
        "registry_numbers",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("phone", sa.Text(), nullable=False),
        sa.Column("since_version", INT, nullable=False),
        sa.Column("until_version", INT, nullable=True),
        sa.Column("registered_on", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("team_id", "phone", "since_version"),
    )
    op.create_table(
        "registry_staging",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("version", INT, nullable=False),
        sa.Column("phone", sa.Text(), nullable=False),
        sa.Column("registered_on", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("team_id", "version", "phone"),
    )
    op.create_table(
        "consents",
        sa.Column("id", INT, sa.Identity(always=False), nullable=False),
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("phone", sa.Text(), nullable=False),
        sa.Column("campaign_uuid", sa.Text(), nullable=True),
        sa.Column("campaign_name", sa.Text(), nullable=True),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("until", FLOAT, nullable=True),
        sa.Column("added_by", sa.Text(), nullable=True),
        sa.Column("added_at", FLOAT, nullable=False),
        sa.Column("removed_by", sa.Text(), nullable=True),
        sa.Column("removed_at", FLOAT, nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("consents_by_phone", "consents", ["team_id", "phone"])
    op.add_column("notification_routes", sa.Column("optout_key", sa.Text(), nullable=True))
    now = time.time()
    op.execute(
        sa.text(
            "INSERT INTO optout_numbers (team_id, phone, added_at, added_by, source, reason) "
            "SELECT team_id, phone, added_at, NULL, 'typed', :moved FROM dnc_numbers"
        ).bindparams(moved=MOVED)
    )
    op.execute(
        sa.text(
            "INSERT INTO optout_changes (team_id, phone, change, source, reason, changed_by, at) "
            "SELECT team_id, phone, 'add', 'typed', :moved, NULL, :now FROM dnc_numbers"
        ).bindparams(moved=MOVED, now=now)
    )
    op.drop_table("dnc_numbers")


def downgrade() -> None:
    # SQLite 3.35+ and PostgreSQL drop a column in place (a batch copy of the table
    # would lose its unnamed CHECK rules).
    op.execute("ALTER TABLE notification_routes DROP COLUMN optout_key")
    op.create_table(
        "dnc_numbers",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("phone", sa.Text(), nullable=False),
        sa.Column("added_at", FLOAT, nullable=False),
        sa.PrimaryKeyConstraint("team_id", "phone"),
    )
    op.execute(
        "INSERT INTO dnc_numbers (team_id, phone, added_at) "
        "SELECT team_id, phone, added_at FROM optout_numbers"
    )
    op.execute(
        "INSERT INTO dnc_numbers (team_id, phone, added_at) "
        "SELECT team_id, phone, 0 FROM registry_numbers r WHERE until_version IS NULL "
        "AND NOT EXISTS (SELECT 1 FROM optout_numbers o "
        "WHERE o.team_id = r.team_id AND o.phone = r.phone)"
    )
    for index, table in (
        ("consents_by_phone", "consents"),
        ("optout_changes_by_time", "optout_changes"),
    ):
        op.drop_index(index, table_name=table)
    for table in (
        "consents",
        "registry_staging",
        "registry_numbers",
        "registry_versions",
        "optout_changes",
        "optout_numbers",
    ):
        op.drop_table(table)
