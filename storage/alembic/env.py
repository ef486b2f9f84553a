"""Alembic's entry point, run on the connection `storage.migrations` hands it in the
config (inside the caller's transaction and lock), never on a URL of its own.

Batch mode makes a column change on SQLite a copy of the table, which is how SQLite alters
one; PostgreSQL alters in place. A new revision is generated from the declarations:

    python -m storage.alembic "what changed"
"""

from alembic import context

from storage.schema import metadata

context.configure(
    connection=context.config.attributes["connection"],
    target_metadata=metadata,
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
