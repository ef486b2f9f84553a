"""``users``, ``groups``, ``templates``, ``carriers``, ``gateways``, ``blacklist``."""

from __future__ import annotations

import pytest

from callcenter import CallCenter
from callcenter.models import GroupCreate, GroupUpdate
from commands.directory.listings import (
    PAGE_SIZE,
    blacklist,
    carriers,
    gateways,
    groups,
    templates,
    users,
)
from commands.kernel.grammar import UsageError
from commands.kernel.phones import show_phone
from commands.kernel.text import escape, number
from tests.commands.conftest import MakeContext
from tests.commands.helpers import next_page, table_rows, visible


async def test_users_page_with_the_service(cc: CallCenter, make_ctx: MakeContext) -> None:
    page = await cc.users.list(limit=PAGE_SIZE, offset=0)
    reply = await users(make_ctx(), [])
    text = visible(reply)
    assert f"Users: {number(page.total)}" in text
    header, *rows = table_rows(reply)
    assert header == ["Name", "Username", "Status", "Extension", "Role", "Groups"]
    assert [row[1] for row in rows] == [u.username for u in page.data]
    if page.total > PAGE_SIZE:
        assert f"Showing 1–{PAGE_SIZE} of {number(page.total)} users." in text
        words, offset = next_page(reply)
        assert words == ["users"]
        rest = table_rows(await users(make_ctx(offset=offset), []))
        second = await cc.users.list(limit=PAGE_SIZE, offset=offset)
        assert [row[1] for row in rest[1:]] == [u.username for u in second.data]


async def test_groups_come_from_memberships(cc: CallCenter, make_ctx: MakeContext) -> None:
    someone = (await cc.users.list(limit=1)).data[0]
    created = await cc.groups.create(GroupCreate(group_name="Night shift"))
    await cc.groups.update(
        created.group_uuid, GroupUpdate(group_name="Night shift", user_assigns=[someone.user_uuid])
    )
    text = visible(await groups(make_ctx(), []))
    assert "*Night shift*" in text and "1 member:" in text


async def test_templates_show_placeholders(cc: CallCenter, make_ctx: MakeContext) -> None:
    page = await cc.templates.list(limit=PAGE_SIZE)
    text = visible(await templates(make_ctx(), []))
    assert f"Templates: {number(page.total)}" in text
    for template in page.data:
        assert template.template_name in text
    assert "`{{name}}`" in text


async def test_carriers_gateways_and_blacklist(cc: CallCenter, make_ctx: MakeContext) -> None:
    carrier_page = await cc.carriers.list(limit=PAGE_SIZE)
    text = visible(await carriers(make_ctx(), []))
    for carrier in carrier_page.data:
        assert escape(carrier.carrier_name) in text
    assert "lines free" in text
    gateway_page = await cc.gateways.list(limit=PAGE_SIZE)
    text = visible(await gateways(make_ctx(), []))
    assert all(escape(g.gateway) in text for g in gateway_page.data)
    blocked = await cc.blacklist.list(limit=PAGE_SIZE)
    text = visible(await blacklist(make_ctx(), []))
    assert f"Blocked numbers: {number(blocked.total)}" in text
    assert all(show_phone(e.phone_number) in text for e in blocked.data)


@pytest.mark.parametrize("handler", [users, groups, templates, carriers, gateways, blacklist])
async def test_directory_commands_take_no_arguments(make_ctx: MakeContext, handler: object) -> None:
    with pytest.raises(UsageError):
        await handler(make_ctx(), ["extra"])  # type: ignore[operator]
