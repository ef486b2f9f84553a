"""``callops serve`` and ``callops socket``: run the Slack app."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging

from bot.app import ConfigurationError
from bot.server import serve_forever, socket_forever
from bot.settings import Settings
from storage.errors import StorageError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = sub.add_parser("serve", help="run the Slack app over HTTP (POST /slack/events)")
    serve.add_argument("--host", default="0.0.0.0")  # noqa: S104 - a server's job is to listen
    serve.add_argument("--port", type=int, default=3000)
    serve.set_defaults(func=_serve)
    socket = sub.add_parser("socket", help="run the Slack app over Socket Mode")
    socket.set_defaults(func=_socket)


def _run(coro_factory: object) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(coro_factory)  # type: ignore[arg-type]
    except (ConfigurationError, StorageError) as exc:
        print(f"callops: {exc}")
        return 2
    return 0


def _serve(args: argparse.Namespace) -> int:
    return _run(serve_forever(Settings(), args.host, args.port))


def _socket(args: argparse.Namespace) -> int:
    return _run(socket_forever(Settings()))
