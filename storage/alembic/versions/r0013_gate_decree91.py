"""Decree 91 as a gate: who set each calling rule and when, a lock row per number whose
frequency slot is claimed, and the log of the gate's decisions on advertising calls.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

INT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
FLOAT: sa.Double[float] = sa.Double().with_variant(sa.REAL(), "sqlite")

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Who set each rule and when (the row's updated_by is whoever changed it last).
    # Plain ALTER TABLE on both engines (a batch copy on SQLite would drop the CHECKs).
    for rule in ("hours", "advertising", "frequency"):
        op.add_column("calling_rules", sa.Column(f"{rule}_by", sa.Text(), nullable=True))
        op.add_column("calling_rules", sa.Column(f"{rule}_at", FLOAT, nullable=True))
    # The registered brand name advertising calls should introduce themselves with.
    op.add_column("calling_rules", sa.Column("brand", sa.Text(), nullable=True))
    op.create_table(
        "frequency_locks",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("phone", sa.Text(), nullable=False),
        sa.Column("at", FLOAT, nullable=False),
        sa.PrimaryKeyConstraint("team_id", "phone"),
    )
    op.create_table(
        "gate_decisions",
        sa.Column("id", INT, sa.Identity(always=False), nullable=False),
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("at", FLOAT, nullable=False),
        sa.Column("phone", sa.Text(), nullable=False),
        sa.Column("campaign_uuid", sa.Text(), nullable=False),
        sa.Column("campaign_name", sa.Text(), server_default=sa.text("''"), nullable=False),
        sa.Column("class", sa.Text(), nullable=False),
        sa.Column("results", sa.Text(), server_default=sa.text("'{}'"), nullable=False),
        sa.Column("outcome", sa.Text(), nullable=False),
        sa.Column("rule", sa.Text(), nullable=True),
        sa.Column("request_id", sa.Text(), nullable=True),
        sa.Column("requester", sa.Text(), nullable=True),
        sa.Column("approvers", sa.Text(), server_default=sa.text("'[]'"), nullable=False),
        sa.CheckConstraint("outcome IN ('placed', 'refused', 'failed', 'unknown')"),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("gate_decisions_by_time", "gate_decisions", ["team_id", "at"])


def downgrade() -> None:
    op.drop_index("gate_decisions_by_time", table_name="gate_decisions")
    op.drop_table("gate_decisions")
    op.drop_table("frequency_locks")
    op.drop_column("calling_rules", "brand")
    for rule in ("hours", "advertising", "frequency"):
        op.drop_column("calling_rules", f"{rule}_at")
        op.drop_column("calling_rules", f"{rule}_by")
