"""Write the next revision: what the declarations in `storage.schema` have that a database
at head lacks (Alembic's autogenerate), numbered after the newest one.

    python -m storage.alembic "what changed"

Then read the revision through, and raise `storage.migrations.LATEST_VERSION` to its number
(`tests/storage/test_upgrade.py` checks the two agree).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from alembic import command

from storage.database import open_database
from storage.migrations import LATEST_VERSION, alembic_config, revision_id


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m storage.alembic")
    parser.add_argument("message")
    parser.add_argument("--db", help="the database to compare (default: a new SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        db = open_database(args.db or Path(scratch) / "head.db")
        try:
            with db.engine.begin() as conn:
                config = alembic_config(conn)
                next_id = revision_id(LATEST_VERSION + 1)
                command.revision(config, args.message, autogenerate=True, rev_id=next_id)
        finally:
            db.close()


if __name__ == "__main__":
    main()
