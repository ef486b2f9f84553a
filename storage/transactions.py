"""One way to write several rows as a unit across processes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlite_utils import Database


@contextmanager
def write_transaction(db: Database) -> Iterator[Database]:
    """A transaction that holds the write lock from its first statement.

    A deferred transaction that reads and then writes can fail with SQLITE_BUSY when another
    process committed in between (the busy timeout cannot help there); BEGIN IMMEDIATE waits
    for the lock first, so the whole block either commits or rolls back as one.
    Nested use becomes a savepoint of the outer transaction.
    """
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise
    else:
        db.conn.execute("COMMIT")
