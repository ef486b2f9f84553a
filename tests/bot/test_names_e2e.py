"""One person, one name: a Vietnamese name is written family first ("Vũ Bảo Minh") on
every surface that shows a person, end to end through the Slack stand-in against the
emulator's seeded people (each with a last, middle and first name)."""

from __future__ import annotations

import pytest

from bot.runtime import Runtime
from callcenter import CallCenter
from callcenter.models import User
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, SlackStandIn
from tests.bot.approval_helpers import ask, latest_view, shown
from tests.bot.test_call_actions_e2e import options_of

EXTENSION = "1001"


async def owner_of(pbx: EmulatorServer, extension: str) -> User:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        people = [u async for u in cc.users.iterate(page_size=100)]
    owner = next(u for u in people if u.extension == extension)
    assert owner.last_name and owner.middle_name and owner.first_name, "a three-part name"
    return owner


@pytest.mark.usefixtures("roles")
async def test_a_person_is_written_family_first_on_every_surface(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    person = await owner_of(pbx, EXTENSION)
    family_first = f"{person.last_name} {person.middle_name} {person.first_name}"
    given_first = f"{person.first_name} {person.middle_name} {person.last_name}"
    pbx.set_call_mode("manual")
    pbx.freeze_clock()
    call = pbx.originate(direction="inbound", source="0912000111", destination=EXTENSION)
    pbx.answer(call["call_id"])

    surfaces: dict[str, str] = {}
    listing = await ask(slack, "calls", user=AGENT)
    surfaces["calls"] = shown(listing)
    await slack.driver.block_action(
        user=AGENT, action_id="call_transfer_0", ephemeral_ts=listing["ts"]
    )
    form = await latest_view(slack, AGENT, "call_transfer_form")
    surfaces["transfer picker"] = " | ".join(options_of(form, "ext_pick").values())
    surfaces["users"] = shown(await ask(slack, "users"))
    if person.groups or person.group_name:
        surfaces["groups"] = shown(await ask(slack, "groups"))
    pbx.hangup(call["call_id"])
    surfaces["cdr"] = shown(await ask(slack, f"cdr ext={EXTENSION} from=today"))
    surfaces["extensions"] = shown(await ask(slack, "extensions today"))

    for surface, text in surfaces.items():
        assert family_first in text, surface
        assert given_first not in text, surface


async def test_a_list_owner_is_written_family_first(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        campaigns = [c async for c in cc.campaigns.iterate() if c.default_list_uuid]
        lists = [await cc.lists.get(c.default_list_uuid) for c in campaigns[:10]]
    owned = next(x for x in lists if x.lastname and x.firstname)
    text = shown(await ask(slack, f"list {owned.list_uuid}"))
    parts = (owned.lastname, owned.middlename, owned.firstname)
    assert " ".join(p for p in parts if p) in text
