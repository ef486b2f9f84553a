"""Whatever is typed, every command answers within Slack's limits: a usage error for what
is too long, text cut with an ellipsis, never "Something went wrong".

Every command of the catalog is typed through the Slack stand-in with long arguments:
one long word full of characters that grow when escaped (``&`` becomes ``&amp;``) or
that JSON escapes, and hundreds of words.  The stand-in checks each message and view
against Block Kit's limits as Slack does (``invalid_sends``)."""

from __future__ import annotations

import pytest

from bot.runtime import Runtime
from commands.dispatch import MAX_COMMAND_CHARS
from emulators.slack import CALL_CENTER, SUPERVISOR, SlackStandIn
from tests.bot.approval_helpers import ask
from tests.bot.test_commands_e2e import shown
from tests.registry import CATALOG

LONG_WORD = ("&<>ệ" * 250)[:900]
MANY_WORDS = " ".join(["y"] * 300)

ANSWERS = ("response_url", "views.open", "chat.postEphemeral", "chat.postMessage")


def answers(slack: SlackStandIn) -> int:
    return sum(
        len(slack.journal(kind="response_url"))
        if name == "response_url"
        else len(slack.journal(name))
        for name in ANSWERS
    )


async def answer_to(slack: SlackStandIn, text: str) -> str:
    """Type ``/callops <text>`` as an admin; what the app answered, as shown."""
    before = answers(slack)
    delivery = await slack.driver.slash_command(user=SUPERVISOR, channel=CALL_CENTER, text=text)
    assert delivery.in_time, text[:40]
    await slack.wait_for(lambda: answers(slack) > before or None, within=10)
    entries = [*slack.journal(kind="response_url"), *slack.journal("views.open")]
    latest = max(entries, key=lambda e: e.at) if entries else None
    return str(latest.params if latest else "")


@pytest.mark.parametrize("tail", [LONG_WORD, MANY_WORDS], ids=["long word", "many words"])
async def test_every_command_with_long_input_answers_within_slacks_limits(
    app: Runtime, slack: SlackStandIn, tail: str
) -> None:
    broken = []
    for spec in CATALOG.commands:
        shown_text = await answer_to(slack, f"{spec.name} {tail}")
        if "Something went wrong" in shown_text:
            broken.append(spec.name)
    assert broken == []
    assert slack.invalid_sends() == []


async def test_help_with_a_section_worth_of_argument_is_a_usage_error(
    app: Runtime, slack: SlackStandIn
) -> None:
    reply = await ask(slack, "help " + "x" * 2950)
    assert f"callops reads commands of up to {MAX_COMMAND_CHARS:,}" in shown(reply)
    assert "Usage: `/callops help [command]`" in shown(reply)
    escaped = await ask(slack, "help " + "&" * 900)  # 4,500 characters once escaped
    assert "There is no command" in shown(escaped) and "…" in shown(escaped)


async def test_monitor_with_too_many_campaigns_is_a_usage_error(
    app: Runtime, slack: SlackStandIn
) -> None:
    reply = await ask(slack, "monitor x, " + ", ".join(["y"] * 60))
    assert "monitor watches up to 20 named campaigns at once, not 61" in shown(reply)
    assert "Usage: `/callops monitor" in shown(reply)
