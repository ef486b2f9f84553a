"""How typed text becomes words: quotes, Slack's escaping, mentions, options."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from commands.kernel.grammar import (
    ANY_KEY,
    ChannelRef,
    UsageError,
    UserRef,
    check_keys,
    join_words,
    parse_channel,
    parse_user,
    replace_run,
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
    with pytest.raises(UsageError, match=r"the quote .* before 'Summer' is not closed"):
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


def test_a_quote_inside_a_word_is_a_letter() -> None:
    assert tokenize("lead x 0912 lead_name=O'Brien note=it’s") == [
        "lead",
        "x",
        "0912",
        "lead_name=O'Brien",
        "note=it's",
    ]
    assert tokenize('autocall x 0912 name="Nguyễn Văn An"') == [
        "autocall",
        "x",
        "0912",
        "name=Nguyễn Văn An",
    ]


def test_links_slack_made_become_what_was_typed() -> None:
    words = tokenize("lead x 0912 email=<mailto:an@vd.vn|an@vd.vn> web=<http://vd.vn> y=<tel:0912>")
    assert words[3:] == ["email=an@vd.vn", "web=http://vd.vn", "y=tel:0912"]
    assert tokenize("role <@U123|bob> admin") == ["role", "<@U123|bob>", "admin"]


def test_free_text_values_run_to_the_next_key() -> None:
    words = tokenize("x 0912 lead_name=Nguyễn Văn An address=12 Lê Lợi, Q1 gender=male")
    positional, options = split_options(words, spaced=ANY_KEY)
    assert positional == ["x", "0912"]
    assert options == {
        "lead_name": "Nguyễn Văn An",
        "address": "12 Lê Lợi, Q1",
        "gender": "male",
    }
    # Keys not declared free text stay one word: the words after are positional again.
    positional, options = split_options(
        tokenize("#ops status=busy Gọi lại campaign=Vay tiêu dùng"), spaced=("campaign",)
    )
    assert positional == ["#ops", "Gọi", "lại"]
    assert options == {"status": "busy", "campaign": "Vay tiêu dùng"}


def test_an_unknown_key_names_the_nearest() -> None:
    with pytest.raises(UsageError) as caught:
        check_keys({"stauts": "busy"}, ("phone", "status"), what="a filter", usage="cdr")
    assert caught.value.message == (
        "'stauts=' is not a filter. Did you mean `status=`? Use phone=, status=."
    )
    assert caught.value.usage == "cdr"
    check_keys({"STATUS": "busy"}, ("phone", "status"), what="a filter", usage="cdr")


def test_the_words_that_named_a_campaign_are_replaced_in_place() -> None:
    words = ["autocall", "nhac", "lich", "0912", "name=An", "Binh"]
    assert replace_run(words, "nhac lich", "U-1") == ["autocall", "U-1", "0912", "name=An", "Binh"]
    assert replace_run(["cdr", "campaign=goi", "lai", "status=busy"], "goi lai", "U-1") == [
        "cdr",
        "campaign=U-1",
        "status=busy",
    ]
    assert replace_run(["monitor", "Summer", "sale,", "vay"], "Summer sale", "U-1") == [
        "monitor",
        "U-1,",
        "vay",
    ]
    assert replace_run(["campaign", "x"], "nowhere", "U-1") is None


@given(
    st.lists(
        st.text(
            # Curly quotes are read as straight ones (some Slack clients type them), so no
            # word tokenize gives back holds one: the words a button carries never do.
            alphabet=st.characters(
                blacklist_categories=("Cs", "Cc"),
                blacklist_characters="\u201c\u201d\u201e\u2018\u2019",
            ),
            min_size=0,
            max_size=12,
        ),
        max_size=6,
    )
)
def test_joined_words_read_back_as_the_same_words(words: list[str]) -> None:
    # What a button carries must re-run as exactly the words it was built from.
    assert tokenize(join_words(words)) == words


def test_a_date_and_its_time_are_one_value() -> None:
    positional, options = split_options(
        tokenize("0912 from=2026-11-01 08:00 to=2026-11-02 17:30:00 9")
    )
    assert options == {"from": "2026-11-01 08:00", "to": "2026-11-02 17:30:00"}
    assert positional == ["0912", "9"]
