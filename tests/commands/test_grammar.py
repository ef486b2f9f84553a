"""How typed text becomes words: quotes, Slack's escaping, mentions, options."""

from __future__ import annotations

import pytest

from commands.kernel.grammar import (
    ChannelRef,
    UsageError,
    UserRef,
    parse_channel,
    parse_user,
    split_options,
    tokenize,
)


def test_quotes_straight_and_curly_keep_names_with_spaces_together() -> None:
    assert tokenize('campaign "Summer sale" now') == ["campaign", "Summer sale", "now"]
    assert tokenize("campaign \u201cSummer sale\u201d") == ["campaign", "Summer sale"]


def test_text_slack_escaped_reaches_the_service_as_typed() -> None:
    words = tokenize("autocall reminders 0912345678 name=A&amp;B note=&lt;b&gt; x=&amp;lt;")
    assert words[3:] == ["name=A&B", "note=<b>", "x=&lt;"]


def test_unclosed_quote_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="the quote .* before 'Summer' is not closed"):
        tokenize('campaign "Summer')


def test_escaped_and_plain_mentions_parse_alike() -> None:
    assert parse_user("<@U123|bob>") == UserRef(id="U123", name="bob")
    assert parse_user("<@U123>") == UserRef(id="U123", name=None)
    assert parse_user("@bob") == UserRef(id=None, name="bob")
    assert parse_user("bob") is None
    assert parse_channel("<#C42|digests>") == ChannelRef(id="C42", name="digests")
    assert parse_channel("#digests") == ChannelRef(id=None, name="digests")


def test_options_are_split_from_words_but_urls_stay_words() -> None:
    words, options = split_options(["a", "b=2", "https://x.example/?y=1", "b=3"])
    assert words == ["a", "https://x.example/?y=1"]
    assert options == {"b": "3"}
