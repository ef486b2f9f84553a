"""``stats``, ``monitor``, ``agents``, ``extensions`` against the emulator."""

from __future__ import annotations

from datetime import datetime

import pytest

from callcenter import CallCenter
from commands.kernel.grammar import UsageError
from commands.kernel.periods import parse_period
from commands.kernel.text import duration, number, ratio_percent
from commands.reports.stats import agents, extensions, monitor, stats
from emulators.pbx.testing import EmulatorServer
from tests.commands.conftest import TZ, MakeContext
from tests.commands.helpers import next_page, payload, table_rows, visible
from tests.registry import CATALOG


async def test_stats_yesterday_matches_the_service(cc: CallCenter, make_ctx: MakeContext) -> None:
    reply = await stats(make_ctx(), ["yesterday"])
    start, end = parse_period("yesterday", TZ).service_bounds()
    rows = (await cc.reports.stats(start, end, interval="hour")).data
    total = sum(r.total for r in rows)
    answered = sum(r.answered for r in rows)
    assert total > 0
    text = visible(reply)
    assert f"*{number(total)} calls*" in text
    assert f"*{number(answered)} answered ({ratio_percent(answered, total)})*" in text
    assert "Talk time" in text and duration(sum(r.total_billsec for r in rows)) in text
    assert "by hour" in text and "calls  answered" in text


async def test_stats_week_by_day_and_every_period(
    pbx: EmulatorServer, cc: CallCenter, make_ctx: MakeContext
) -> None:
    pbx.freeze_clock()  # no call may end between the two readings
    week = visible(await stats(make_ctx(), ["week", "interval=day"]))
    assert "the last 7 days" in week and "by day" in week
    period = parse_period("week", TZ)
    table = week[week.index("```") : week.rindex("```")].splitlines()[1:]
    assert len(table) == 7  # seven local days, whatever clock the service counts on
    assert table[0].startswith(period.start.strftime("%a %d %b"))
    start, end = period.service_bounds()
    total = sum(r.total for r in (await cc.reports.stats(start, end, interval="hour")).data)
    assert sum(int(line.split()[3].replace(",", "")) for line in table) == total
    for word in ("today", "month"):
        payload(await stats(make_ctx(), [word]))
    assert "by week" in visible(await stats(make_ctx(), ["month", "interval=week"]))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["fortnight"], "'fortnight' is not a period"),
        (["interval=minute"], "interval="),
        (["week", "month"], "one period"),
        (["window=5"], "'window='"),
    ],
)
async def test_stats_bad_arguments(make_ctx: MakeContext, args: list[str], says: str) -> None:
    with pytest.raises(UsageError) as caught:
        await stats(make_ctx(), args)
    assert says in caught.value.message
    assert caught.value.usage == CATALOG.find("stats").usage  # type: ignore[union-attr]


async def test_monitor_all_and_one_campaign(
    pbx: EmulatorServer, cc: CallCenter, make_ctx: MakeContext
) -> None:
    pbx.freeze_clock()  # no call may end between the two readings
    figures = [s async for s in cc.reports.iterate_autodialer(60)]
    reply = await monitor(make_ctx(), [])
    text = visible(reply)
    assert "Autodialer monitor: last hour" in text
    assert f"of {number(len(figures))} campaigns" in text
    for item in figures[:10]:
        if item.status in ("start", "running"):
            assert item.campaign_name in text
    dialers = [c async for c in cc.campaigns.iterate(type="autodialer")]
    one = visible(await monitor(make_ctx(), [dialers[0].campaign_name, "window=2h"]))
    assert "last 2 hours" in one and dialers[0].campaign_name in one
    assert "1 of 1 campaign running" in one


async def test_monitor_bad_arguments(make_ctx: MakeContext) -> None:
    usage = CATALOG.find("monitor").usage  # type: ignore[union-attr]
    for args, says in ((["zzz nothing"], "No campaign"), (["window=soon"], "window=")):
        with pytest.raises(UsageError) as caught:
            await monitor(make_ctx(), args)
        assert says in caught.value.message and caught.value.usage == usage


def frozen_week(pbx: EmulatorServer) -> dict[str, datetime]:
    """This week as the service reads it, the clock frozen so that no call ends between
    the test's reading and the command's."""
    pbx.freeze_clock()
    start, end = parse_period("week", TZ).service_bounds()
    return {"start_time": start, "end_time": end}


async def test_agents_sorted_by_talk_time(
    pbx: EmulatorServer, cc: CallCenter, make_ctx: MakeContext
) -> None:
    rows = (await cc.reports.agent_time(**frozen_week(pbx))).data
    assert rows
    top = max(rows, key=lambda a: a.total_talk_sec)
    reply = await agents(make_ctx(), ["week"])
    assert f"*{number(len(rows))} agents*" in visible(reply)
    header, first_row, *_ = table_rows(reply)
    assert header[:3] == ["Agent", "Username", "Talk"]
    assert first_row[1] == top.username
    with pytest.raises(UsageError):
        await agents(make_ctx(), ["decade"])


async def test_extensions_sorted_by_calls(
    pbx: EmulatorServer, cc: CallCenter, make_ctx: MakeContext
) -> None:
    rows = (await cc.reports.extensions(**frozen_week(pbx))).data
    total = sum(r.total for r in rows)
    reply = await extensions(make_ctx(), ["week"])
    text = visible(reply)
    assert f"*{number(total)} calls* on {number(len(rows))} extensions" in text
    busiest = max(rows, key=lambda r: r.total)
    header, first_row, *_ = table_rows(reply)
    assert (header[0], first_row[0]) == ("Extension", busiest.extension)
    assert first_row[2] == number(busiest.total)
    if len(rows) > 15:
        words, offset = next_page(reply)
        assert words == ["extensions", "week"] and offset == 15
    with pytest.raises(UsageError) as caught:
        await extensions(make_ctx(), ["interval=day"])
    assert caught.value.usage == "extensions [period]"
