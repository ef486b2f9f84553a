"""Select options for the directory's forms: Slack's limit on their number and length."""

from __future__ import annotations

from slack_sdk.models.blocks import Option

from commands.kernel.text import truncate

MAX_OPTIONS = 100
"""Slack's limit of options in one select."""


def option(value: str, label: str) -> Option:
    """One option, its label cut to Slack's 75 characters (the value when it has none)."""
    return Option(value=value, text=truncate(label or value, 75))
