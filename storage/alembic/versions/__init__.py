"""One module per revision; `storage.migrations.LATEST_VERSION` is the newest one's number."""
