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
    serve.add_argument(
        "--no-scheduler",
        action="store_true",
        help="do not post digests or check alerts here (run `callops scheduler` once instead)",
    )
    serve.set_defaults(func=_serve)
    socket = sub.add_parser("socket", help="run the Slack app over Socket Mode")
    socket.add_argument(
        "--no-scheduler", action="store_true", help="do not post digests or check alerts here"
    )
    socket.set_defaults(func=_socket)
    scheduler = sub.add_parser(
        "scheduler",
        help="run only the digest and alert scheduler (pair with `serve --no-scheduler`)",
    )
    scheduler.set_defaults(func=_scheduler)
    demo = sub.add_parser(
        "demo",
        help="the offline demo: emulator + app + Slack stand-in with a browser console",
    )
    demo.add_argument("--port", type=int, default=8800, help="port of the console (loopback)")
    demo.set_defaults(func=_demo)


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
    return _run(serve_forever(Settings(), args.host, args.port, scheduler=not args.no_scheduler))


def _socket(args: argparse.Namespace) -> int:
    return _run(socket_forever(Settings(), scheduler=not args.no_scheduler))


def _scheduler(args: argparse.Namespace) -> int:
    from bot.digest_scheduler import scheduler_forever

    return _run(scheduler_forever(Settings()))


def _demo(args: argparse.Namespace) -> int:
    from bot.demo import run

    return run(args.port)
