"""channel_languages: a channel's own language, for the posts callops writes there.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

FLOAT: sa.Double[float] = sa.Double().with_variant(sa.REAL(), "sqlite")

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "channel_languages",
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("channel", sa.Text(), nullable=False),
        sa.Column("language", sa.Text(), nullable=False),
        sa.Column("set_by", sa.Text(), nullable=True),
        sa.Column("updated_at", FLOAT, nullable=False),
        sa.CheckConstraint("language IN ('vi', 'en')"),
        sa.PrimaryKeyConstraint("team_id", "channel"),
    )


def downgrade() -> None:
    op.drop_table("channel_languages")
