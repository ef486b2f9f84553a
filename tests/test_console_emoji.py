"""The demo console draws every emoji shortcode the app writes, by Slack's names.

A shortcode the console does not know is shown as its text (``:mailbox:``), which is how
the console looked before its table came from Slack's own data; this fails instead.
"""

from __future__ import annotations

import json

from tests.shortcodes import TABLE, console_table, in_source, used_by_app


def test_every_shortcode_the_app_uses_is_in_the_console_table() -> None:
    table = console_table()
    used = used_by_app()
    missing = {f":{name}:": where for name, where in used.items() if name not in table}
    assert missing == {}, "the console cannot draw these; regenerate scripts/emoji_table.py"


def test_the_app_scan_reads_string_literals_not_times_or_docstrings() -> None:
    source = '''
def notice():
    """Uses :docstring_only: in prose."""
    when = "2024-05-01T08:00:00+07:00"
    return f":1234: {when} :mailbox:" + ":x::wave:"
'''
    assert in_source(source) == {"1234", "mailbox", "x", "wave"}
    assert len(used_by_app()) >= 10  # the app's replies are full of them


def test_the_table_uses_slacks_names_with_their_aliases() -> None:
    table = console_table()
    assert table["white_check_mark"] == "\u2705"
    assert table["heavy_multiplication_x"] == "\u2716\ufe0f"
    assert table["1234"] == "\U0001f522"
    assert table["large_green_circle"] == "\U0001f7e2"  # CLDR says green_circle
    assert table["double_vertical_bar"] == "\u23f8\ufe0f"
    assert table["+1"] == table["thumbsup"] == "\U0001f44d"
    assert len(table) > 1800  # the whole data set, not a hand-picked list


def test_the_table_says_where_it_comes_from_and_carries_its_licence() -> None:
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    assert data["source"].startswith("npm emoji-datasource@")
    assert "scripts/emoji_table.py" in data["generated_by"]
    assert data["license"].startswith("The MIT License")
    assert "Cal Henderson" in data["license"]
