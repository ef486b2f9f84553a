"""Bolt listeners grouped by Slack surface; ``register_all`` wires them onto an app."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.listeners import (
    action_forms,
    actions,
    approvals,
    commands,
    digests,
    events,
    views,
)
from bot.runtime import Runtime


def register_all(app: AsyncApp, runtime: Runtime) -> None:
    for module in (commands, actions, views, events, digests, approvals, action_forms):
        module.register(app, runtime)
