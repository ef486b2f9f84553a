"""The schema's Alembic revisions; `storage.migrations` runs them (there is no alembic.ini)."""
