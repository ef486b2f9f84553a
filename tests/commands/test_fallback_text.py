"""A message's plain-text fallback is as safe as its blocks, and is escaped only once."""

from __future__ import annotations

import pytest

from commands.kernel.reply import Reply
from commands.kernel.text import BIDI_CONTROLS, escape, fallback


@pytest.mark.parametrize(
    ("text", "safe"),
    [
        ("Hi <!channel>", "Hi &lt;!channel>"),
        ("<!here|here> <!everyone>", "&lt;!here|here> &lt;!everyone>"),
        ("<!subteam^S0123|ops>", "&lt;!subteam^S0123|ops>"),
        ("<@someone> <#general>", "&lt;@someone> &lt;#general>"),
        ("Sale \u202egpj.exe\u2066", "Sale gpj.exe"),
        # The app's own mentions and links stay, and escaped text is not escaped again.
        ("<@U0123ABC> in <#C0001|call-center>", "<@U0123ABC> in <#C0001|call-center>"),
        ("<https://example.com|the report>", "<https://example.com|the report>"),
        (escape("An <!channel> & co"), "An &lt;!channel&gt; &amp; co"),
    ],
)
def test_fallback_neutralises_broadcasts_and_bidi(text: str, safe: str) -> None:
    assert fallback(text) == safe


def test_a_reply_sends_its_text_through_the_fallback() -> None:
    payload = Reply(text="Lead An <!here> \u202eX").payload()
    assert payload["text"] == "Lead An &lt;!here> X"
    assert not any(c in payload["text"] for c in BIDI_CONTROLS)
