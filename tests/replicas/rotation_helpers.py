"""A replica of the app, reduced to what races for a token: run as its own process
(``python -m tests.replicas.rotation_helpers``) with the app's environment (``CALLOPS_DB``,
``CALLOPS_SECRET_KEY``, ``SLACK_CLIENT_ID``/``SLACK_CLIENT_SECRET``, ``SLACK_API_URL``).

It opens the app's `Runtime` as ``callops serve`` does and then posts as the bot outside
any request, the way digests, alerts, call cards and the approval sweeper do
(``Runtime.bots``, which refreshes an expiring rotated token through the app's refresher).
It says ``ready`` on stdout, then for each line ``post <team> <channel> <text>`` on stdin
posts that text and answers ``ok <ts>`` or ``error <slack error>``; it ends at EOF.
The test writes the same line to two replicas at once, so both want a token together.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from slack_sdk.errors import SlackApiError

from bot.runtime import Runtime
from bot.settings import Settings
from storage import set_loop_guard


async def serve_lines(rt: Runtime) -> None:
    print("ready", flush=True)
    while line := await asyncio.to_thread(sys.stdin.readline):
        _, team, channel, text = line.rstrip("\n").split(" ", 3)
        client = await rt.bots.get(team)
        if client is None:
            print("error no_token", flush=True)
            continue
        try:
            response = await client.chat_postMessage(channel=channel, text=text)
        except SlackApiError as exc:
            print(f"error {exc.response['error']}", flush=True)
        else:
            print(f"ok {response['ts']}", flush=True)
    await rt.bots.close()


def main() -> None:
    set_loop_guard("strict")  # a store call on the event loop fails the race test
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)  # the test reads the log
    rt = Runtime.open(Settings(_env_file=None))
    try:
        asyncio.run(serve_lines(rt))
    finally:
        rt.storage.close()


if __name__ == "__main__":
    main()
