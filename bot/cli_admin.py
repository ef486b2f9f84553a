"""Operator commands of the ``callops`` console script: ``workspace``, ``secrets``, ``audit``,
``db``.

These run on the server, next to the database, by whoever runs the app: they see every
workspace (the Slack side never does). Keys are verified before they are stored, never
printed, and every change is written to the audit log.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

from sqlalchemy.exc import SQLAlchemyError

from bot.service_clients import tls_context
from bot.settings import Settings
from callcenter import CallCenter, errors
from callcenter.addresses import AddressRefused, ServiceAddresses
from callcenter.models import TokenV3
from callcenter.tokens import expires_at_from
from commands.kernel.text import plural
from storage import (
    LATEST_VERSION,
    AuditLog,
    Database,
    Outcome,
    SecretBox,
    Storage,
    connect,
    copy_database,
    database_url,
    open_database,
    read_schema_version,
    write_csv,
    write_json,
)
from storage.clock import iso_utc
from storage.errors import (
    InvalidSecretKeyError,
    InvalidValueError,
    MissingSecretKeyError,
    SchemaTooNewError,
    StorageError,
)
from storage.validation import check_base_url, check_id, check_timezone, shown_url

Handler = Callable[[argparse.Namespace], int]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2

_CONFIG_ERRORS = (
    MissingSecretKeyError,
    InvalidSecretKeyError,
    InvalidValueError,
    SchemaTooNewError,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    workspace = subparsers.add_parser(
        "workspace", help="connect Slack workspaces to call-center accounts"
    )
    actions = workspace.add_subparsers(dest="workspace_command", required=True, metavar="ACTION")

    connect = actions.add_parser(
        "connect", help="verify an API key with the service and store it (encrypted)"
    )
    connect.add_argument("--team", required=True, help="Slack team id, e.g. T0123ABCD")
    connect.add_argument("--base-url", required=True, help="the call-center service's base URL")
    connect.add_argument(
        "--api-key",
        help="the call-center API key; omit it to type it at a prompt or pipe it on stdin "
        "(keeps it out of shell history and the process list)",
    )
    connect.add_argument("--timezone", help="IANA timezone for digests, e.g. Asia/Ho_Chi_Minh")
    connect.set_defaults(func=_guarded(_connect))

    listing = actions.add_parser("list", help="list workspaces (never shows keys)")
    listing.add_argument("--format", choices=("table", "json"), default="table")
    listing.set_defaults(func=_guarded(_list))

    disconnect = actions.add_parser(
        "disconnect", help="forget a workspace's API key and cached tokens (settings stay)"
    )
    disconnect.add_argument("--team", required=True, help="Slack team id")
    disconnect.set_defaults(func=_guarded(_disconnect))

    secrets_parser = subparsers.add_parser("secrets", help="manage the encryption of secrets")
    secrets_actions = secrets_parser.add_subparsers(
        dest="secrets_command", required=True, metavar="ACTION"
    )
    rotate = secrets_actions.add_parser(
        "rotate",
        help="re-encrypt every stored secret under the first key of CALLOPS_SECRET_KEY",
    )
    rotate.set_defaults(func=_guarded(_rotate))

    audit = subparsers.add_parser("audit", help="export the audit log to stdout")
    audit.add_argument("--team", help="only this Slack team id")
    audit.add_argument(
        "--since",
        type=_since,
        help="only entries at or after this date or time (ISO 8601; UTC unless it has an offset)",
    )
    audit.add_argument("--format", choices=("csv", "json"), default="csv")
    audit.set_defaults(func=_guarded(_audit))

    db = subparsers.add_parser("db", help="the database: migrate it, or move it to another one")
    db_actions = db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    migrate = db_actions.add_parser(
        "migrate", help="bring the database to the latest schema (the app also does at start)"
    )
    migrate.add_argument(
        "--db", help="a SQLite file path or a postgresql:// URL (default: CALLOPS_DB)"
    )
    migrate.set_defaults(func=_guarded(_db_migrate))
    copy = db_actions.add_parser(
        "copy",
        help="copy every row (secrets stay encrypted) into another database, e.g. from the "
        "SQLite file to PostgreSQL; stop the app first",
    )
    copy.add_argument(
        "--from", dest="source", required=True, help="the source: a SQLite path or a URL"
    )
    copy.add_argument(
        "--to", dest="target", required=True, help="the target: postgresql://... (or a path)"
    )
    copy.add_argument(
        "--force",
        action="store_true",
        help="replace everything in a target that already holds rows (its audit log too)",
    )
    copy.set_defaults(func=_guarded(_db_copy))


# -- plumbing ---------------------------------------------------------------------------


class _Refused(Exception):
    """A clean refusal: the message is printed as is, with this exit code."""

    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.code = code


def _guarded(handler: Handler) -> Handler:
    """Errors become one line on stderr and an exit code, never a traceback."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except _Refused as exc:
            print(f"error: {exc}", file=sys.stderr)
            return exc.code
        except _CONFIG_ERRORS as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_CONFIG
        except StorageError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_FAILED
        except SQLAlchemyError as exc:
            reason = getattr(exc, "orig", None) or exc
            print(f"error: the database (CALLOPS_DB) cannot be used: {reason}", file=sys.stderr)
            return EXIT_FAILED

    return run


def _open_storage() -> Storage:
    settings = Settings()
    box = SecretBox.from_settings(settings.secret_keys)
    return Storage.open(settings.callops_db, box, default_timezone=settings.callops_timezone)


def _operator() -> str:
    """Who ran the command, for the audit log (the CLI has no Slack user)."""
    try:
        return f"cli:{getpass.getuser()}"
    except (OSError, KeyError):
        return "cli"


def _since(text: str) -> float:
    try:
        if len(text.strip()) == 10:
            day = date.fromisoformat(text.strip())
            moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date; write 2024-05-01 or 2024-05-01T08:00:00+07:00"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _read_api_key(given: str | None, stdin: TextIO) -> str:
    if given is not None:
        key = given
    elif stdin.isatty():
        key = getpass.getpass("call-center API key: ")
    else:
        key = stdin.readline()
    key = key.strip()
    if not key:
        raise _Refused("no API key given; pass --api-key or type it at the prompt", EXIT_CONFIG)
    return key


async def _verify(base_url: str, api_key: str, addresses: ServiceAddresses) -> TokenV3:
    """The key checked with the service at ``base_url``, where the service may be
    (``callcenter.addresses``: the same rule as the connect form's), and the answer
    checked to be the service's (a token, then a documented listing)."""
    transport = await addresses.transport_for(base_url, tls_context())
    async with CallCenter(base_url, api_key, transport=transport) as cc:
        return await cc.auth.verify_service()


def _verify_failure(exc: errors.CallCenterError, base_url: str) -> str:
    """Why connecting failed, in our words (the HTTP status at most)."""
    host = urlsplit(base_url).hostname or shown_url(base_url)
    if isinstance(exc, errors.AuthenticationError):
        return "the call-center service refused the API key"
    if isinstance(exc, errors.APIConnectionError):
        return f"could not reach the call-center service at {shown_url(base_url)}"
    if exc.status_code is not None and not 200 <= exc.status_code < 300:
        return (
            f"{host} answered with HTTP {exc.status_code}: "
            "it does not look like the call-center service"
        )
    return f"{host} did not answer as the call-center service does"


# -- commands ---------------------------------------------------------------------------


def _connect(args: argparse.Namespace) -> int:
    team = check_id(args.team, "--team")
    base_url = check_base_url(args.base_url)
    timezone = check_timezone(args.timezone) if args.timezone else None
    with _open_storage() as store:
        api_key = _read_api_key(args.api_key, sys.stdin)
        audit_params = {"base_url": base_url, "timezone": timezone}
        addresses = ServiceAddresses(Settings().service_networks)
        try:
            token = asyncio.run(_verify(base_url, api_key, addresses))
        except AddressRefused as exc:
            store.audit.append(
                team,
                _operator(),
                "workspace.connect",
                audit_params,
                outcome=Outcome.REFUSED,
                detail=exc.message,
            )
            raise _Refused(f"{exc.message}; nothing was saved") from None
        except errors.CallCenterError as exc:
            # Our words only: what the other side said (its reason phrase, a JSON
            # "error") may be any server's text, and is never repeated.
            refused = isinstance(exc, errors.APIStatusError)
            said = _verify_failure(exc, base_url)
            store.audit.append(
                team,
                _operator(),
                "workspace.connect",
                audit_params,
                outcome=Outcome.REFUSED if refused else Outcome.FAILED,
                detail=said,
            )
            raise _Refused(f"{said}; nothing was saved") from None
        workspace = store.workspaces.connect(team, base_url, api_key, timezone=timezone)
        # The verification already paid for a token: keep it for the first command.
        store.workspaces.save_cached_token(
            team, token.token, expires_at_from(token.expired_in, time.time())
        )
        store.audit.append(
            team,
            _operator(),
            "workspace.connect",
            {**audit_params, "timezone": workspace.timezone, "domain_uuid": token.domain_uuid},
        )
    print(
        f"workspace {team} connected to {base_url} "
        f"(domain {token.domain_uuid}, timezone {workspace.timezone})"
    )
    return EXIT_OK


def _list(args: argparse.Namespace) -> int:
    with _open_storage() as store:
        workspaces = store.workspaces.list()
    rows = [
        {
            "team_id": w.team_id,
            "connected": w.connected,
            "base_url": w.base_url,
            "timezone": w.timezone,
            "approvals_channel": w.approvals_channel,
            "digests_channel": w.digests_channel,
            "notifications_channel": w.notifications_channel,
            "updated_at": iso_utc(w.updated_at),
        }
        for w in workspaces
    ]
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    if not rows:
        print(
            "no workspaces yet; connect one with: callops workspace connect --team T "
            "--base-url URL --api-key KEY"
        )
        return EXIT_OK
    header = ["TEAM", "CONNECTED", "BASE URL", "TIMEZONE", "CHANNELS (appr/dig/notif)", "UPDATED"]
    table = [
        [
            str(r["team_id"]),
            "yes" if r["connected"] else "no",
            str(r["base_url"] or "-"),
            str(r["timezone"]),
            "/".join(
                str(r[c] or "-")
                for c in ("approvals_channel", "digests_channel", "notifications_channel")
            ),
            str(r["updated_at"]),
        ]
        for r in rows
    ]
    widths = [max(len(line[i]) for line in [header, *table]) for i in range(len(header))]
    for line in [header, *table]:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)))
    return EXIT_OK


def _disconnect(args: argparse.Namespace) -> int:
    team = check_id(args.team, "--team")
    with _open_storage() as store:
        if store.workspaces.get(team) is None:
            raise _Refused(f"no workspace {team}; `callops workspace list` shows the known ones")
        removed = store.workspaces.disconnect(team)
        store.audit.append(
            team,
            _operator(),
            "workspace.disconnect",
            {},
            outcome=Outcome.OK,
            detail=None if removed else "was not connected",
        )
    if removed:
        print(f"workspace {team} disconnected: its API key and cached tokens are deleted")
    else:
        print(f"workspace {team} was not connected; nothing to remove")
    return EXIT_OK


def _rotate(args: argparse.Namespace) -> int:
    with _open_storage() as store:
        count = store.rotate_secrets()
        store.audit.append(None, _operator(), "secrets.rotate", {"secrets": count})
        keys = store.box.key_count
    print(
        f"re-encrypted {plural(count, 'stored secret')} under the first key of CALLOPS_SECRET_KEY"
    )
    if keys > 1:
        others = "the other key is" if keys == 2 else "the other keys are"
        print(f"{others} no longer needed for stored data and may be removed")
    return EXIT_OK


def _audit(args: argparse.Namespace) -> int:
    with _open_storage() as store:
        if args.team:
            entries = store.audit.entries(check_id(args.team, "--team"), since=args.since)
        else:
            entries = store.audit.all_entries(since=args.since)
    if args.format == "json":
        write_json(entries, sys.stdout)
    else:
        write_csv(entries, sys.stdout)
    return EXIT_OK


def _existing(target: str, what: str) -> str:
    """A database to read from must exist: opening a missing SQLite path would create it."""
    url = database_url(target)
    if url.get_backend_name() == "sqlite" and not Path(url.database or "").is_file():
        raise _Refused(f"no database at {url.database!r} ({what}); nothing was done")
    return target


def _db_migrate(args: argparse.Namespace) -> int:
    target = args.db or Settings().callops_db
    probe = connect(target)
    try:
        before = read_schema_version(probe, refuse_newer=True)
    finally:
        probe.close()
    db = open_database(target)
    try:
        after = read_schema_version(db)
        where = db.where
    finally:
        db.close()
    if after == before:
        print(f"database {where} is at the latest schema, version {after}")
    else:
        print(f"database {where} migrated from schema version {before} to version {after}")
    return EXIT_OK


def _db_copy(args: argparse.Namespace) -> int:
    source = connect(_existing(args.source, "--from"))
    try:
        version = read_schema_version(source, refuse_newer=True)
        if version != LATEST_VERSION:
            raise _Refused(
                f"the source {source.where} is at schema version {version}, this callops "
                f"at {LATEST_VERSION}: run `callops db migrate --db SOURCE` first (nothing "
                "was copied)"
            )
        target: Database = open_database(args.target)
        try:
            report = copy_database(source, target, force=args.force)
            AuditLog(target).append(
                None,
                _operator(),
                "db.copy",
                {"from": report.source, "rows": report.total, "replaced": report.replaced},
            )
        finally:
            target.close()
    finally:
        source.close()
    width = max(len(name) for name in report.rows)
    for name, count in report.rows.items():
        print(f"  {name.ljust(width)}  {count}")
    replaced = " (its previous contents replaced)" if report.replaced else ""
    print(
        f"copied {report.total} row(s) in {len(report.rows)} tables from {report.source} to "
        f"{report.target}{replaced}; row counts verified. Point CALLOPS_DB at the target and "
        "keep the same CALLOPS_SECRET_KEY."
    )
    return EXIT_OK
