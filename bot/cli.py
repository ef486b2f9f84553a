"""The ``callops`` console script: one parser, each command family registered by the
module that implements it, so adding a command never touches this file's logic."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

Register = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


def _registrars() -> list[Register]:
    from bot import cli_admin, cli_app

    return [cli_app.register, cli_app.register_emulator, cli_admin.register]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="callops", description="Run a call center's campaigns from Slack."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in _registrars():
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    return func(args)


if __name__ == "__main__":
    sys.exit(main())
