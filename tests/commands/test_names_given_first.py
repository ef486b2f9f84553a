"""A reader who writes given names first reads them so on the directory's listings,
against the emulator's seeded people (each with a last, middle and first name)."""

from __future__ import annotations

from callcenter import CallCenter
from commands.directory.listings import users
from commands.kernel.i18n import Audience, use_audience
from tests.commands.conftest import MakeContext
from tests.commands.helpers import visible


async def test_the_users_listing_follows_the_reader_s_name_order(
    cc: CallCenter, make_ctx: MakeContext
) -> None:
    people = [u async for u in cc.users.iterate(page_size=100)]
    person = next(u for u in people if u.last_name and u.middle_name and u.first_name)
    family_first = f"{person.last_name} {person.middle_name} {person.first_name}"
    given_first = f"{person.first_name} {person.middle_name} {person.last_name}"
    with use_audience(Audience(names="given-first")):
        text = visible(await users(make_ctx(), []))
    assert given_first in text and family_first not in text
    text = visible(await users(make_ctx(), []))
    assert family_first in text and given_first not in text
