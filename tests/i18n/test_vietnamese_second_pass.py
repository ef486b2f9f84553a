"""What the first pass at Vietnamese missed, checked for every case at once: usage lines
under errors, the writing hint, form labels, the service's own values, the rows-to-fix
CSV's header, the speech preview's region line and alert windows.

The surfaces changed after a click by someone of the other language, manual digest
runs and alert posts are checked end to end (``tests/bot/test_message_language_e2e.py``,
``tests/bot/test_channel_language_e2e.py``).
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from callcenter.models import Template
from commands.calls.autocall import field_label
from commands.calls.preview import preview, preview_mrkdwn
from commands.kernel.i18n import Audience, use_audience
from commands.kernel.periods import Window
from commands.kernel.reply import error
from commands.kernel.service_words import (
    autocall_kind_words,
    campaign_type_words,
    lead_status_words,
    voice_words,
)
from commands.leads.csv_check import check_leads_csv
from tests.i18n.shown import english_left
from tests.registry import CATALOG

VI = Audience(language="vi")


def test_every_usage_line_under_an_error_uses_the_vietnamese_command_words() -> None:
    with use_audience(VI):
        for spec in CATALOG.commands:
            said = error("x", spec.usage).text
            line = said.split("`/callops ", 1)[1].split("`", 1)[0].replace("&lt;", "<")
            assert line.startswith(spec.alias), (spec.name, line)
            # The second command word of a usage naming two forms is the alias too.
            assert f"| {spec.name} " not in line, (spec.name, line)
            assert "`/callops tro-giup cach-viet`" in said, said


def test_the_common_placeholders_and_the_services_values_read_in_vietnamese() -> None:
    with use_audience(VI):
        texts = [field_label(n) for n in ("name", "amount", "due_date", "date", "time", "otp")]
        texts += [campaign_type_words(t) for t in ("autodialer", "autocall", "manual", "inbound")]
        texts += [autocall_kind_words("autocall_voice_tts"), autocall_kind_words("autocall_audio")]
        texts += [lead_status_words(s) for s in ("new", "done", "recall", "failed")]
        texts += [voice_words(v) for v in ("male_south", "female_north")]
    left = english_left(texts)
    assert not left, "\n".join(left)
    assert "autodialer" not in texts and "male_south" not in texts


def test_the_rows_to_fix_file_names_its_own_columns_in_the_readers_language() -> None:
    source = io.BytesIO("phone_number,lead_name\nabc,An\n0912345678,Bình\n".encode())
    rejected = io.StringIO()
    with use_audience(VI):
        check_leads_csv(source, frozenset(), invalid_out=rejected)
    assert rejected.getvalue().splitlines()[0] == "dòng,lỗi,phone_number,lead_name"


def test_the_preview_says_which_region_it_read_in_in_vietnamese() -> None:
    template = Template(
        template_uuid="t", template_name="Nhắc", voice_type="tts", voice_tts="female_north",
        content="Số tiền {{amount}} đồng, hạn ngày {{due_date}}, mã {{otp}}.",
    )  # fmt: skip
    values = {"amount": "1001", "due_date": "05/05/2027", "otp": "4815"}
    with use_audience(VI):
        said = preview_mrkdwn(preview(template, values))
    assert "ngày ngày" not in said and "mùng năm" in said and "linh" in said
    assert not english_left([said.split("\n", 1)[1]]), said


def test_an_alerts_window_is_said_in_the_readers_language() -> None:
    window = Window.back_from(datetime.now(UTC), 120, ZoneInfo("Asia/Ho_Chi_Minh"))
    with use_audience(VI):
        said = window.label()
    assert "2 giờ gần nhất" in said and "giờ Việt Nam" in said
    assert not english_left([said]), said


def test_a_workflow_step_is_named_as_builder_shows_it_and_in_vietnamese() -> None:
    from commands.dispatch import step_name, workflows_refused
    from storage import Role

    with use_audience(VI):
        said = workflows_refused(step_name("Stop a campaign"), Role.OPERATOR, Role.VIEWER).text
    assert "'Stop a campaign (Dừng một chiến dịch)'" in said, said
    assert step_name("Stop a campaign") == "Stop a campaign"  # in English, once


def test_an_agents_pause_is_tam_nghi_and_an_unknown_login_range_one_dash() -> None:
    from commands.kernel.i18n import _
    from commands.reports.stats import agent_columns, logged_in_range

    with use_audience(VI):
        titles = [_(c.title) for c in agent_columns()]
    assert "Tạm nghỉ" in titles and "Tạm dừng" not in titles
    assert logged_in_range("–", "–") == "–" and logged_in_range("08:01", "17:30") == "08:01–17:30"


def test_a_start_outside_the_calling_hours_names_the_zone_in_the_readers_words() -> None:
    from commands.rules.dialing_hours import asked_outside, outside_warning

    window = (8 * 60, 17 * 60)
    asked = asked_outside(
        window, datetime(2026, 11, 28, 20, 5, tzinfo=ZoneInfo("Asia/Ho_Chi_Minh"))
    )
    assert asked == "20:05"
    with use_audience(VI):
        said = outside_warning(window, asked)
        # A request kept before the zone was dropped from it reads the same.
        kept = outside_warning(window, "20:05 Asia/Ho_Chi_Minh")
    assert said == kept and "20:05" in said and "giờ Việt Nam" in said, said
    assert "Asia/" not in said and not english_left([said]), said


def test_every_usage_lines_placeholders_read_in_vietnamese() -> None:
    """A usage translated with the alias first would get the English placeholders back
    from ``usage_for_reader`` (``quy-dinh kenh <#channel>``): none of the English usage's
    word placeholders is left in the Vietnamese line."""
    import re

    from commands.kernel.catalog import usage_for_reader

    placeholder = re.compile(r"<([^<>]*[a-z]{3,}[^<>]*)>")
    with use_audience(VI):
        lines = {spec.name: usage_for_reader(spec.usage) for spec in CATALOG.commands}
    left = {
        spec.name: (lines[spec.name], kept)
        for spec in CATALOG.commands
        if (kept := [p for p in placeholder.findall(spec.usage) if f"<{p}>" in lines[spec.name]])
    }
    assert not left, left
    assert "<#kênh>" in lines["rules channel"], lines["rules channel"]
