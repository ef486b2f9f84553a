"""``cdr``: filters, the service's paging, and bad input naming the key."""

from __future__ import annotations

import pytest

from callcenter import CallCenter
from commands.dispatch import dispatch
from commands.kernel.grammar import UsageError, tokenize
from commands.kernel.periods import parse_moment, to_service
from commands.kernel.phones import show_phone
from commands.kernel.reply import Reply
from commands.kernel.text import number
from commands.reports.cdr import PAGE_SIZE, call_records
from tests.commands.conftest import TZ, MakeContext
from tests.commands.helpers import buttons, next_page, table_rows, visible
from tests.registry import APP, CATALOG

CDR_USAGE = CATALOG.find("cdr").usage  # type: ignore[union-attr]


async def _service_total(cc: CallCenter, start: str, end: str, **filters: str) -> int:
    page = await cc.cdrs.list(
        start_date=to_service(parse_moment(start, TZ)),
        end_date=to_service(parse_moment(end, TZ, end=True)),
        limit=1,
        **filters,  # type: ignore[arg-type]
    )
    return page.total


async def test_a_window_pages_through_the_service(cc: CallCenter, make_ctx: MakeContext) -> None:
    args = ["from=yesterday", "to=yesterday"]
    total = await _service_total(cc, "yesterday", "yesterday")
    assert total > 2 * PAGE_SIZE
    first = await call_records(make_ctx(), args)
    text = visible(first)
    assert f"Call records: {number(total)}" in text
    assert f"Showing 1–{PAGE_SIZE} of {number(total)} call records." in text
    words, offset = next_page(first)
    assert words[0] == "cdr" and offset == PAGE_SIZE
    second = await call_records(make_ctx(offset=offset), words[1:])
    assert f"Showing {PAGE_SIZE + 1}–{2 * PAGE_SIZE} of {number(total)}" in visible(second)
    back = [b for b in buttons(second) if b["action_id"].endswith("_prev")]
    assert back, "page two offers Previous"


async def test_default_window_is_the_last_24_hours(make_ctx: MakeContext) -> None:
    text = visible(await call_records(make_ctx(), []))
    assert "Call records:" in text and " UTC+07\n" in text  # the window in the workspace's zone


async def test_direction_and_phone_filters(cc: CallCenter, make_ctx: MakeContext) -> None:
    outbound = await call_records(make_ctx(), ["direction=out", "from=yesterday", "to=today"])
    header, *rows = table_rows(outbound)
    assert rows and all(row[header.index("Direction")] == "out" for row in rows)
    sample = (await cc.cdrs.list(limit=1)).data[0]
    phone = sample.to_number or sample.from_number
    found = await call_records(make_ctx(), [phone, "from=2020-01-01"])
    assert f"phone `{show_phone(phone)}`" in visible(found)
    header, *rows = table_rows(found)
    sides = header.index("From"), header.index("To")
    assert rows and all(show_phone(phone) in (row[sides[0]], row[sides[1]]) for row in rows)


async def test_campaign_by_prefix_and_an_ambiguous_one(
    cc: CallCenter, make_ctx: MakeContext
) -> None:
    campaigns = [c async for c in cc.campaigns.iterate()]
    dialer = next(c for c in campaigns if c.type == "autodialer")
    text = visible(await call_records(make_ctx(), [f"campaign={dialer.campaign_name}"]))
    assert f"campaign *{dialer.campaign_name}*" in text
    prefix = dialer.campaign_name.split()[0]
    matches = [c for c in campaigns if c.campaign_name.casefold().startswith(prefix.casefold())]
    assert len(matches) > 1
    choose = await dispatch(make_ctx(), f"cdr campaign={prefix} status=answered", registry=APP)
    assert isinstance(choose, Reply)
    values = [b["value"] for b in buttons(choose) if b["action_id"].startswith("campaign_choose")]
    # The choice keeps the other filter and names the campaign by its UUID.
    assert sorted(values) == sorted(
        f"cdr campaign={c.campaign_uuid} status=answered" for c in matches
    )
    chosen = await call_records(make_ctx(), tokenize(values[0])[1:])
    assert "campaign *" in visible(chosen) and "status answered" in visible(chosen)


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["foo=1"], "'foo='"),
        (["direction=sideways"], "direction="),
        (["status="], "status="),
        (["from=tomorrow-ish"], "from="),
        (["to=2026-02-30"], "to="),
        (["ext=10 01"], "ext="),
        (["phone=abc"], "phone="),
        (["from=2026-11-07", "to=2026-11-01"], "from= is after to="),
        (["hello"], "'hello'"),
        (["campaign=no such campaign"], "campaign="),
    ],
)
async def test_bad_filters_name_the_key(make_ctx: MakeContext, args: list[str], names: str) -> None:
    with pytest.raises(UsageError) as caught:
        await call_records(make_ctx(), args)
    assert names in caught.value.message
    assert caught.value.usage == CDR_USAGE
