"""The rule watch: where rule events go, enforcing the hours, the call records judged.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

FLOAT: sa.Double[float] = sa.Double().with_variant(sa.REAL(), "sqlite")
INT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rule_paused",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("campaign_uuid", sa.Text(), nullable=False),
        sa.Column("campaign_name", sa.Text(), nullable=False),
        sa.Column("slot", sa.Text(), nullable=False),
        sa.Column("paused_at", FLOAT, nullable=False),
        sa.PrimaryKeyConstraint("team_id", "campaign_uuid"),
    )
    op.create_table(
        "rule_watch",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("channel", sa.Text(), nullable=True),
        sa.Column("enforce", INT, server_default=sa.text("0"), nullable=False),
        sa.Column("listed_until", FLOAT, nullable=True),
        sa.Column("updated_by", sa.Text(), nullable=True),
        sa.Column("updated_at", FLOAT, nullable=False),
        sa.PrimaryKeyConstraint("team_id"),
    )
    op.create_table(
        "rule_watch_records",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("record_id", sa.Text(), nullable=False),
        sa.Column("campaign_uuid", sa.Text(), nullable=False),
        sa.Column("phone", sa.Text(), nullable=True),
        sa.Column("started_at", FLOAT, nullable=False),
        sa.Column("state", sa.Text(), server_default=sa.text("'new'"), nullable=False),
        sa.Column("rules", sa.Text(), server_default=sa.text("'[]'"), nullable=False),
        sa.Column("noted_at", FLOAT, nullable=False),
        sa.Column("claimed_at", FLOAT, nullable=True),
        sa.Column("posted_ts", sa.Text(), nullable=True),
        sa.CheckConstraint("state IN ('new', 'ok', 'breach')"),
        sa.PrimaryKeyConstraint("team_id", "record_id"),
    )
    op.create_index("rule_watch_records_started", "rule_watch_records", ["team_id", "started_at"])
    op.create_index("rule_watch_records_state", "rule_watch_records", ["team_id", "state"])
    op.create_table(
        "rule_watch_slots",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("slot", sa.Text(), nullable=False),
        sa.Column("at", FLOAT, nullable=False),
        sa.PrimaryKeyConstraint("team_id", "subject", "action", "slot"),
    )


def downgrade() -> None:
    op.drop_table("rule_watch_slots")
    op.drop_index("rule_watch_records_state", "rule_watch_records")
    op.drop_index("rule_watch_records_started", "rule_watch_records")
    op.drop_table("rule_watch_records")
    op.drop_table("rule_watch")
    op.drop_table("rule_paused")
