"""anomaly_episodes, anomaly_checks: anomaly alerts' episodes and the check's claim.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

FLOAT: sa.Double[float] = sa.Double().with_variant(sa.REAL(), "sqlite")
INT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "anomaly_episodes",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("alert_id", sa.Text(), nullable=False),
        sa.Column("scope_kind", sa.Text(), nullable=False),
        sa.Column("scope_key", sa.Text(), nullable=False),
        sa.Column("scope_name", sa.Text(), nullable=False),
        sa.Column("kpi", sa.Text(), nullable=False),
        sa.Column("open_key", sa.Text(), nullable=True),
        sa.Column("opened_at", FLOAT, nullable=False),
        sa.Column("value", FLOAT, nullable=False),
        sa.Column("usual", FLOAT, nullable=False),
        sa.Column("low", FLOAT, nullable=False),
        sa.Column("high", FLOAT, nullable=False),
        sa.Column("calls", INT, nullable=False),
        sa.Column("checked_slot", sa.Text(), nullable=False),
        sa.Column("channel", sa.Text(), nullable=True),
        sa.Column("message_ts", sa.Text(), nullable=True),
        sa.Column("closed_at", FLOAT, nullable=True),
        sa.Column("closed_how", sa.Text(), nullable=True),
        sa.CheckConstraint("scope_kind IN ('campaign', 'network')"),
        sa.CheckConstraint("closed_how IN ('recovered', 'snoozed', 'quiet')"),
        sa.ForeignKeyConstraint(["alert_id"], ["alerts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("anomaly_episodes_open", "anomaly_episodes", ["open_key"], unique=True)
    op.create_index("anomaly_episodes_alert", "anomaly_episodes", ["alert_id", "closed_at"])
    op.create_table(
        "anomaly_checks",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("slot", sa.Text(), nullable=False),
        sa.Column("claimed_at", FLOAT, nullable=False),
        sa.PrimaryKeyConstraint("team_id"),
    )


def downgrade() -> None:
    op.drop_table("anomaly_checks")
    op.drop_index("anomaly_episodes_alert", table_name="anomaly_episodes")
    op.drop_index("anomaly_episodes_open", table_name="anomaly_episodes")
    op.drop_table("anomaly_episodes")
