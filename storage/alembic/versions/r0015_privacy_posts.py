"""privacy_posts and privacy_requests: which customers' numbers each message or file
callops posted shows, the customers' requests about their data, and how long a
workspace keeps customers' data in its channels.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

INT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
FLOAT: sa.Double[float] = sa.Double().with_variant(sa.REAL(), "sqlite")

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN (SQLite takes one with a constant default): recreating the table
    # would lose its unnamed CHECK constraints.
    op.add_column(
        "workspaces",
        sa.Column("retention_days", INT, server_default=sa.text("90"), nullable=False),
    )
    op.create_table(
        "privacy_posts",
        sa.Column("id", INT, sa.Identity(always=False), nullable=False),
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("channel", sa.Text(), nullable=False),
        sa.Column("ts", sa.Text(), nullable=True),
        sa.Column("file_id", sa.Text(), nullable=True),
        sa.Column("ref", sa.Text(), nullable=False),
        sa.Column("phone_hash", sa.Text(), nullable=False),
        sa.Column("phone_enc", sa.Text(), nullable=True),
        sa.Column("masked", INT, server_default=sa.text("1"), nullable=False),
        sa.Column("posted_at", FLOAT, nullable=False),
        sa.Column("redacted_at", FLOAT, nullable=True),
        sa.Column("erase_request", sa.Text(), nullable=True),
        sa.Column("lease_until", FLOAT, nullable=True),
        sa.Column("outcome", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("privacy_posts_team_hash", "privacy_posts", ["team_id", "phone_hash"])
    op.create_index("privacy_posts_team_ref", "privacy_posts", ["team_id", "ref"])
    op.create_index("privacy_posts_posted_at", "privacy_posts", ["posted_at"])
    op.create_table(
        "privacy_requests",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("team_id", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("phone_hash", sa.Text(), nullable=False),
        sa.Column("phone_enc", sa.Text(), nullable=True),
        sa.Column("received_at", FLOAT, nullable=False),
        sa.Column("acknowledged_at", FLOAT, nullable=True),
        sa.Column("due_at", FLOAT, nullable=False),
        sa.Column("requested_by", sa.Text(), nullable=False),
        sa.Column("handled_by", sa.Text(), nullable=True),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("report", sa.Text(), nullable=True),
        sa.Column("finished_at", FLOAT, nullable=True),
        sa.CheckConstraint("kind IN ('access', 'erase')"),
        sa.CheckConstraint("state IN ('open', 'working', 'done', 'refused')"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("privacy_requests_team", "privacy_requests", ["team_id", "state"])


def downgrade() -> None:
    op.drop_column("workspaces", "retention_days")
    op.drop_table("privacy_requests")
    op.drop_table("privacy_posts")
