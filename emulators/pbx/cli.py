"""``callops emulator``: serve the call-center emulator until Ctrl-C."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from typing import Any

from emulators.pbx.config import CALL_MODES, DEMO_API_KEYS, EmulatorConfig
from emulators.pbx.incidents import IncidentSpec
from emulators.pbx.volume import Volume


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "emulator",
        help="serve the call-center emulator",
        description="Serve a stateful emulator of the call-center service (all of spec "
        "section 4) with seeded demo data, simulated calls and fault injection.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8900)
    parser.add_argument("--db", default=None, help="SQLite file to keep state in (default: memory)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the demo data and outcomes")
    parser.add_argument("--latency-ms", type=int, default=0, help="delay added to every request")
    parser.add_argument(
        "--error-rate", type=float, default=0.0, help="share of requests answered with a 500"
    )
    parser.add_argument("--token-ttl", type=int, default=3600, help="token lifetime in seconds")
    parser.add_argument("--call-mode", choices=CALL_MODES, default="timed")
    parser.add_argument("--timezone", default="UTC", help="zone of wall-clock times (IANA name)")
    parser.add_argument(
        "--volume",
        default=None,
        metavar="CALLS_PER_DAY[:DAYS]",
        help="add a real call center's records to domain demo: CALLS_PER_DAY on each of "
        "the DAYS days before today (default 7) and today's share so far, e.g. 500000:7",
    )
    parser.add_argument(
        "--incident",
        action="append",
        default=[],
        metavar="network=<name>:answer=<share>:from=HH:MM[:until=HH:MM]",
        help="from that time today (Vietnam's clock), outbound calls to that mobile "
        "network's numbers are answered with that probability (0..1); campaign=<name> in "
        "place of network= for one campaign; may be given more than once",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from emulators.pbx.app import create_app

    try:
        volume = Volume.parse(args.volume) if args.volume else None
        incidents = tuple(IncidentSpec.parse(text) for text in args.incident)
        config = EmulatorConfig(
            seed=args.seed,
            token_ttl=args.token_ttl,
            latency_ms=args.latency_ms,
            error_rate=args.error_rate,
            call_mode=args.call_mode,
            db=args.db,
            timezone=args.timezone,
            volume=volume,
            incidents=incidents,
        )
    except ValueError as exc:
        print(f"callops emulator: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    app = create_app(config)
    if volume is not None:
        emu = app.state.emulator
        print(
            f"Volume {volume}: {emu.volume_records:,} call records in domain demo "
            f"({time.perf_counter() - started:.1f} s)"
        )
    url = f"http://{args.host}:{args.port}"
    print(f"Call-center emulator on {url}  (API description: {url}/openapi.json)")
    print(
        f"Demo API keys (public): {DEMO_API_KEYS[0]} (domain demo), "
        f"{DEMO_API_KEYS[1]} (domain demo2)"
    )
    for spec in incidents:
        print(f"Incident: {spec} (Vietnam's clock)")
    print("Control surface: /_emulator/  -  Ctrl-C to stop")
    sys.stdout.flush()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return 0
