"""Bolt listeners grouped by Slack surface; ``register_all`` wires them onto an app.

``context`` first: its middleware tells every listener who is asking.  ``commands`` is
the slash command, ``interactions`` every button and form the families declare,
``events`` what Slack tells the app on its own.
"""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.listeners import commands, context, events, interactions
from bot.runtime import Runtime


def register_all(app: AsyncApp, runtime: Runtime) -> None:
    context.install(app, runtime)
    for module in (commands, interactions, events):
        module.register(app, runtime)
