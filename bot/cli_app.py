"""``callops serve``, ``callops socket``, ``callops scheduler``, ``callops demo`` and
``callops emulator``: the processes that run the app, each until it is stopped.

The last two belong to the ``callops[demo]`` extra: the emulators and the demo wiring
(``emulators``, ``demo``) and their web stack (fastapi, uvicorn, python-multipart) come
with it only, so they are imported inside those commands, never at import time:
``callops serve`` and ``callops socket`` run without them, and ``callops demo`` and
``callops emulator``, when the extra is missing, say how to install it instead of
failing with a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import sys
from collections.abc import Coroutine
from typing import Any

from bot import logs, metrics_http
from bot.app import ConfigurationError
from bot.drain import Drain
from bot.jobs import JobRunner, env_of
from bot.metrics_http import METRICS_PATH
from bot.runtime import Runtime
from bot.server import EVENTS_PATH, serving, socket_mode
from bot.settings import Settings
from commands.kernel.jobs import SCHEDULER
from storage.errors import StorageError
from storage.offload import off_loop

log = logging.getLogger(__name__)

DEMO_MODULES = frozenset(
    {"demo", "emulators", "fastapi", "starlette", "uvicorn", "multipart", "python_multipart"}
)
"""Top-level modules the demo needs that a plain ``pip install callops`` may lack: the
extra's web stack (the demo and emulator packages ship in the wheel, but import it)."""


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
    scheduler.add_argument(
        "--metrics-port",
        type=int,
        default=None,
        help="serve this process's metrics at http://<host>:<port>/metrics (Prometheus)",
    )
    scheduler.add_argument(
        "--metrics-host",
        default="0.0.0.0",  # noqa: S104 - a scrape target listens
        help="address of the metrics server (with --metrics-port)",
    )
    scheduler.set_defaults(func=_scheduler)
    demo = sub.add_parser(
        "demo",
        help="the offline demo: emulator + app + Slack stand-in with a browser console",
    )
    demo.add_argument("--port", type=int, default=8800, help="port of the console (loopback)")
    demo.set_defaults(func=_demo)


def register_emulator(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``callops emulator``, whose options the emulator itself declares."""
    try:
        import emulators.pbx.cli as emulator_cli
    except ModuleNotFoundError as exc:
        _register_missing(sub, "emulator", "serve the call-center emulator", exc)
    else:
        emulator_cli.register(sub)


async def serve_forever(
    settings: Settings, host: str, port: int, *, scheduler: bool = True
) -> None:
    """Until SIGTERM or SIGINT, then drained (``bot.drain``) and closed."""
    rt = await off_loop(Runtime.open, settings)
    drain = Drain(settings.callops_drain_seconds)
    drain.on_signals(asyncio.get_running_loop())
    try:
        async with serving(rt, host=host, port=port, scheduler=scheduler, drain=drain) as url:
            log.info("callops listening on %s%s", url, EVENTS_PATH)
            print(
                f"callops: Slack request URL {url}{EVENTS_PATH}, health {url}/healthz, "
                f"ready {url}/readyz, metrics {url}{METRICS_PATH}",
                flush=True,
            )
            settle_heap()
            await drain.wait()
    finally:
        await off_loop(rt.storage.close)
    drain.mark("exiting")


def settle_heap() -> None:
    """Take what start-up built out of the garbage collector's sight (``gc.freeze``).

    Bolt, SQLAlchemy, pydantic's validators, the stores and the clients live as long as
    the process; a full collection walks every one of them, and no request is
    acknowledged meanwhile (``benchmarks/README.md``, "What decided each library
    choice").  Frozen objects are never collected (they are not garbage anyway); what
    requests allocate still is.
    """
    gc.collect()
    gc.freeze()


async def socket_forever(settings: Settings, *, scheduler: bool = True) -> None:
    """Until SIGTERM or SIGINT, then drained (``bot.drain``) and disconnected."""
    rt = await off_loop(Runtime.open, settings)
    drain = Drain(settings.callops_drain_seconds)
    drain.on_signals(asyncio.get_running_loop())
    try:
        async with socket_mode(rt, scheduler=scheduler, drain=drain):
            print("callops: connected to Slack over Socket Mode", flush=True)
            settle_heap()
            await drain.wait()
    finally:
        await off_loop(rt.storage.close)
    drain.mark("exiting")


async def scheduler_forever(
    settings: Settings,
    *,
    metrics_host: str = "0.0.0.0",  # noqa: S104 - a scrape target listens
    metrics_port: int | None = None,
) -> None:
    """``callops scheduler``: only the scheduler and the families' jobs that run with it
    (``bot.jobs``: the rule watch, the privacy chores), for a deployment whose web processes run
    with ``--no-scheduler`` (one scheduler in all; a second one would post nothing twice,
    but would fetch everything twice).  With ``metrics_port``, its metrics (digests
    posted and failed, the call-center and Slack calls they made) are served there."""
    if settings.slack_bot_token is None and not settings.slack_client_id:
        raise ConfigurationError(
            "callops scheduler posts as the bot: set SLACK_BOT_TOKEN (one workspace), or "
            "SLACK_CLIENT_ID/SLACK_CLIENT_SECRET with installations in CALLOPS_DB."
        )
    rt = await off_loop(Runtime.open, settings)
    jobs = JobRunner(rt.registry, env_of(rt), where=(SCHEDULER,))
    try:
        rt.scheduler.start()
        jobs.start()
        try:
            async with contextlib.AsyncExitStack() as stack:
                where = ""
                if metrics_port is not None:
                    url = await stack.enter_async_context(
                        metrics_http.serving(rt.metrics, metrics_host, metrics_port)
                    )
                    where = f", metrics {url}"
                count = len(await off_loop(rt.storage.digests.active))
                print(f"callops: scheduler running ({count} active digests{where})", flush=True)
                await asyncio.Event().wait()
        finally:
            await jobs.stop()
            await rt.scheduler.stop()
    finally:
        await rt.close()
        rt.storage.close()


def _run(work: Coroutine[Any, Any, None], settings: Settings) -> int:
    logs.configure(settings.callops_log_format, settings.secret_values())
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(work)
    except (ConfigurationError, StorageError) as exc:
        print(f"callops: {exc}")
        return 2
    return 0


def _serve(args: argparse.Namespace) -> int:
    settings = Settings()
    return _run(
        serve_forever(settings, args.host, args.port, scheduler=not args.no_scheduler), settings
    )


def _socket(args: argparse.Namespace) -> int:
    settings = Settings()
    return _run(socket_forever(settings, scheduler=not args.no_scheduler), settings)


def _scheduler(args: argparse.Namespace) -> int:
    settings = Settings()
    work = scheduler_forever(
        settings, metrics_host=args.metrics_host, metrics_port=args.metrics_port
    )
    return _run(work, settings)


def _demo(args: argparse.Namespace) -> int:
    try:
        from demo.offline import run
    except ModuleNotFoundError as exc:
        return missing_extra("demo", exc)
    return run(args.port)


def is_extra_module(exc: ModuleNotFoundError) -> bool:
    """Whether the module ``exc`` found missing is one the demo extra brings."""
    return (exc.name or "").split(".")[0] in DEMO_MODULES


def missing_extra(command: str, exc: ModuleNotFoundError) -> int:
    """Say which extra to install when ``exc`` is one of its modules; re-raise otherwise."""
    if not is_extra_module(exc):
        raise exc
    print(
        f"callops {command}: needs the demo extra ({exc.name} is not installed); "
        "install it with: pip install 'callops[demo]'",
        file=sys.stderr,
    )
    return 2


def _register_missing(
    sub: argparse._SubParsersAction[Any], command: str, summary: str, exc: ModuleNotFoundError
) -> None:
    """A stand-in for a command whose module is missing: it takes any arguments and says
    which extra brings it."""
    if not is_extra_module(exc):
        raise exc
    # No option prefix of its own, so that every argument, options too, lands in ``arguments``.
    parser = sub.add_parser(
        command, help=f"{summary} (needs callops[demo])", prefix_chars="\0", add_help=False
    )
    parser.add_argument("arguments", nargs="*")
    parser.set_defaults(func=lambda _args: missing_extra(command, exc))
