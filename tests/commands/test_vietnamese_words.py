"""Vietnamese command words: every command has an alias typed without diacritics, found
however it is spaced, hyphenated or accented; "Did you mean" searches both languages;
help in Vietnamese shows the aliases and help in English does not change."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from commands.kernel.grammar import parse_direction
from commands.kernel.help import help_command, nearest_commands
from commands.kernel.i18n import Audience, _, use_audience
from commands.kernel.matching import fold
from commands.kernel.periods import parse_moment, parse_period
from commands.kernel.reply import error, plain_words
from tests.commands.conftest import MakeContext
from tests.commands.helpers import payload, visible
from tests.registry import CATALOG

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
VI = Audience(language="vi")


def test_every_command_has_its_own_alias_of_plain_words() -> None:
    aliases = [spec.alias for spec in CATALOG.commands]
    assert all(aliases), "every command has a Vietnamese alias"
    assert len({fold(a) for a in aliases}) == len(aliases), "no two commands share an alias"
    english = {spec.words for spec in CATALOG.commands}
    for spec in CATALOG.commands:
        assert spec.alias == spec.alias.lower() and spec.alias.isascii(), spec.alias
        assert spec.alias_words not in english, f"{spec.alias} is also an English command"


def test_an_alias_is_found_hyphenated_spaced_or_with_its_diacritics() -> None:
    for spec in CATALOG.commands:
        for typed in (spec.alias, spec.alias.replace("-", " "), spec.alias.upper()):
            found = CATALOG.match([*typed.split(), "rest"])
            assert found is not None and found[0] is spec, typed
            assert found[1] == ["rest"], typed
    found = CATALOG.match(["Chiến", "dịch"])
    assert found is not None and found[0].name == "campaigns" and found[1] == []
    found = CATALOG.match(["dừng", "Summer"])
    assert found is not None and found[0].name == "stop" and found[1] == ["Summer"]
    found = CATALOG.match(["Tạm-dừng", "tất", "cả"])
    assert found is not None and found[0].name == "pause all" and found[1] == []


def test_the_longest_command_wins_in_either_language() -> None:
    for typed, name in (
        (["tam-dung", "Summer"], "pause"),
        (["tam", "dung", "tat-ca"], "pause all"),
        (["ban-tin", "them", "#digests", "daily", "08:00"], "digest add"),
        (["khach-hang", "tai-len", "Summer"], "leads upload"),
        (["khach-hang", "Summer", "0912345678"], "lead"),
        (["nhom", "sua", "Sales"], "group edit"),
        (["nhom"], "groups"),
        (["digest", "add"], "digest add"),
    ):
        found = CATALOG.match(typed)
        assert found is not None and found[0].name == name, typed


def test_a_word_is_never_split_and_english_still_parses_as_before() -> None:
    assert CATALOG.match(["chien"]) is None
    assert CATALOG.match(["tam-dungx"]) is None
    found = CATALOG.match(["campaign", "summer-sale"])
    assert found is not None and found[0].name == "campaign" and found[1] == ["summer-sale"]
    found = CATALOG.match(["Digest", "Add", "#x"])
    assert found is not None and found[0].name == "digest add" and found[1] == ["#x"]


def test_did_you_mean_searches_both_languages() -> None:
    typed, hint, pointer = nearest_commands(["chien", "dic"])
    assert typed == "`chien dic`" and hint == " Did you mean `chien-dich`?"
    assert pointer == "`/callops help` lists every command."
    typed, hint, _pointer = nearest_commands(["tam-dug", "Summer"])
    assert typed == "`tam-dug`" and hint == " Did you mean `tam-dung`?"
    typed, hint, pointer = nearest_commands(["ban-tin", "the"])
    assert typed == "`ban-tin the`" and hint == " Did you mean `ban-tin them`?"
    assert pointer == "`/callops help ban-tin` explains them."
    # English typos are answered exactly as before.
    assert nearest_commands(["campain"])[1] == " Did you mean `campaign` or `campaigns`?"
    assert nearest_commands(["digest", "ad"])[1] == " Did you mean `digest add`?"


async def test_english_help_shows_no_alias_beside_the_commands_only_a_note(
    unconnected: MakeContext,
) -> None:
    text = visible(await help_command(unconnected(), []))
    assert "`pause &lt;campaign&gt;` Pause a campaign." in text
    assert "(`pause`)" not in text and "`tam-dung &lt;" not in text
    assert "Vietnamese command words work too" in text
    with use_audience(VI):
        assert "Vietnamese command words work too" not in visible(
            await help_command(unconnected(), [])
        )


async def test_help_in_vietnamese_lists_every_alias_beside_its_english_word(
    unconnected: MakeContext,
) -> None:
    with use_audience(VI):
        reply = await help_command(unconnected(), [])
        text = visible(reply)
        for spec in CATALOG.commands:
            assert f"(`{spec.name}`) {_(spec.summary)}" in text.replace("&lt;", "<").replace(
                "&gt;", ">"
            ), spec.name
            assert f"`{spec.alias}" in text, spec.alias
        payload(reply)
        one = visible(await help_command(unconnected(), ["tam-dung"]))
        assert "/callops tam-dung (pause)" in one and "`/callops pause " in one
        assert "`/callops tam-dung " in one
        family = visible(await help_command(unconnected(), ["ban", "tin"]))
        assert "`ban-tin them " in family and "(`digest add`)" in family
    english = visible(await help_command(unconnected(), ["tam-dung"]))
    assert "/callops pause" in english and "Pause a campaign." in english


def test_periods_and_directions_have_vietnamese_words() -> None:
    assert parse_period("hom-nay", TZ).word == "today"
    assert parse_period("Hôm nay", TZ).word == "today"
    assert parse_period("hom-qua", TZ).word == "yesterday"
    assert parse_period("tuan", TZ).word == "week"
    assert parse_period("Tháng", TZ).word == "month"
    assert parse_moment("hom-qua", TZ) == parse_moment("yesterday", TZ)
    assert parse_direction("goi-vao") == "inbound" == parse_direction("gọi vào")
    assert parse_direction("goi-ra") == "outbound" and parse_direction("noi-bo") == "local"
    assert parse_direction("in") == "inbound" and parse_direction("sideways") is None


def test_a_usage_line_is_left_out_of_plain_words_in_either_language() -> None:
    english = error("Give one username.", "user edit <username>")
    assert plain_words(english) == "Give one username."
    with use_audience(VI):
        vietnamese = error(_("Give one username."), "user edit <username>")
        assert plain_words(vietnamese) == _("Give one username.")
