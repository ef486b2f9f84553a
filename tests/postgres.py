"""A real PostgreSQL server for the tests, started from Debian's ``postgresql`` package in a
temporary directory: its own cluster, a unix socket in that directory and a free TCP port on
127.0.0.1, stopped and deleted at the end of the session. Not a mock, not a shared server.

A suite uses it by importing the ``postgres_server`` fixture into its conftest;
``server.create_database()`` gives each test a fresh, empty database
(``server.drop_database(url)`` removes it again).

``initdb`` refuses to run as root, so as root the server runs as the ``postgres`` user the
package creates, in a directory handed over to it.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

INSTALL_HINT = "apt-get install -y postgresql"
_PACKAGE_DIR = "/usr/lib/postgresql"
_SUPERUSER = "postgres"


def postgres_bin_dir() -> Path | None:
    """The newest installed server's binaries, or None if the package is missing."""
    found = [
        path
        for path in Path(_PACKAGE_DIR).glob("*/bin")
        if (path / "initdb").exists() and (path / "pg_ctl").exists()
    ]
    return max(
        found, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0, default=None
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """One throw-away cluster; `url(name)` and `create_database()` hand out connections."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="callops-pg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root / "run"
        self.log = self.root / "server.log"
        self.port = _free_port()
        self._names = itertools.count(1)
        self._as_postgres = os.geteuid() == 0
        self._started = False

    def _run(self, *argv: str) -> None:
        command = [str(self.bin_dir / argv[0]), *argv[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", _SUPERUSER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(
                f"{' '.join(command)} failed ({done.returncode}):\n"
                f"{done.stdout}\n{done.stderr}\n{log}"
            )

    def start(self) -> None:
        self.socket_dir.mkdir()
        if self._as_postgres:
            owner = pwd.getpwnam(_SUPERUSER)
            for path in (self.root, self.socket_dir):
                os.chown(path, owner.pw_uid, owner.pw_gid)
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            _SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )
        # Durability settings are off: the cluster lives for one test session.
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.socket_dir} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")
        self._started = True

    def __enter__(self) -> PostgresServer:
        """Started; stopped and deleted again when it could not start."""
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._started:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
            self._started = False
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgresql://{_SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def _admin(self, sql: str) -> None:
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(sql)

    def create_database(self, *, template: str = "template0") -> str:
        """A fresh database, a copy of ``template`` (by default empty); returns its
        ``postgresql://`` URL. Copying a prepared template file by file takes a fraction of
        the time of building the same schema again in every test."""
        name = f"callops_test_{next(self._names)}"
        self._admin(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
        return self.url(name)

    def create_template(self, name: str, prepare: Callable[[str], None]) -> str:
        """A database for `create_database(template=name)`: created empty, then handed to
        ``prepare`` (its URL) to fill; nothing may stay connected to it afterwards."""
        self._admin(f'CREATE DATABASE "{name}" TEMPLATE template0')
        prepare(self.url(name))
        return name

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def database_files(self, url: str, *, wal: bool = True) -> list[Path]:
        """The files holding one database's tables, plus (``wal``) the write-ahead log
        shared by the cluster: everything a leak check must read. Flushes the buffers
        first."""
        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute("CHECKPOINT")
            row = conn.execute("SELECT oid FROM pg_database WHERE datname = %s", [name]).fetchone()
        assert row is not None, f"no database {name}"
        folders = [self.data / "base" / str(row[0])]
        if wal:
            folders.append(self.data / "pg_wal")
        return [p for folder in folders for p in sorted(folder.rglob("*")) if p.is_file()]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server. Fails (never skips) when the package is missing:
    the storage suite must run on both engines."""
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        pytest.fail(
            "PostgreSQL is not installed, and the storage tests run against a real server: "
            f"{INSTALL_HINT}",
            pytrace=False,
        )
    with PostgresServer(bin_dir) as server:
        yield server
