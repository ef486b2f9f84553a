"""workspaces.chart_mode: how a workspace's charts are sent (``native``, Slack's
data_visualization block, or ``image``, a PNG).

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN (SQLite takes one with a constant default): recreating the table
    # would lose its unnamed CHECK constraints.  The two values are checked in the store.
    op.add_column(
        "workspaces",
        sa.Column("chart_mode", sa.Text(), server_default=sa.text("'native'"), nullable=False),
    )


def downgrade() -> None:
    op.drop_column("workspaces", "chart_mode")
