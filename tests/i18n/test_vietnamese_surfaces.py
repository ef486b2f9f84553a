"""Nothing shown is untranslated: every command of the catalog, the Home tab, the status
modal, a digest and the call cards, read in Vietnamese against the emulator's seeded data.

Each surface is rendered in-process inside ``use_audience(vi)`` (``dispatch`` as a typed
``/callops`` is, with a workspace connected to the emulator), every string it shows is
collected (``tests.i18n.shown``), the emulator's own names and texts are taken out, and
any common English word left that no Vietnamese translation uses fails the test, listed
with the command and the text it is in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from cryptography.fernet import Fernet
from slack_sdk.web.async_client import AsyncWebClient

from callcenter import CallCenter
from commands.dispatch import dispatch
from commands.families import FAMILIES
from commands.kernel.context import CommandContext
from commands.kernel.help import example_line
from commands.kernel.i18n import Audience, use_audience
from commands.kernel.reply import OpenModal, Reply, UpdateModal
from commands.notifications.call_card import call_card, outcome_card
from commands.reports.wallboard import not_connected_home, status_modal, wallboard
from emulators.pbx.testing import EmulatorServer
from emulators.slack import APPROVALS, CALL_CENTER, SlackStandIn
from storage import Role, SecretBox, Storage
from tests.contexts import command_context
from tests.i18n.shown import data_words, english_left, shown
from tests.registry import APP, CATALOG

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
TEAM = "T1"
VI = Audience(language="vi")
DATA_TABLES = ("users", "groups", "campaigns", "lists")


@pytest.fixture
def storage(tmp_path: Path, pbx: EmulatorServer) -> Iterator[Storage]:
    box = SecretBox([Fernet.generate_key().decode()])
    with Storage.open(tmp_path / "db.sqlite", box) as opened:
        # Connected by a Vietnamese-speaking admin: the workspace reads Vietnamese, so
        # ``language auto`` (the person follows the workspace) answers in it too.
        opened.workspaces.connect(
            TEAM, pbx.base_url, pbx.api_key, timezone=TZ.key, admin_locale="vi-VN"
        )
        yield opened


def context(
    cc: CallCenter, storage: Storage, pbx: EmulatorServer, slack: SlackStandIn
) -> CommandContext:
    """An admin's context in the stand-in's #call-center, where the bot is."""
    client = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
    return command_context(
        storage, team_id=TEAM, user_id="U0101", channel_id=CALL_CENTER, role=Role.ADMIN, tz=TZ,
        cc=cc, workspace=storage.workspaces.get(TEAM), base_url=pbx.base_url, client=client,
    )  # fmt: skip


def seeded_lines(pbx: EmulatorServer, call_id: str) -> dict[str, list[str]]:
    """Lines beyond the commands' own examples: the seeded data's real names and ids (a
    campaign of each status, a live call, a list), and wrong input, so answers that
    succeed and refusals are read too.  Optional: every command is run through its
    examples whether or not it is named here."""
    campaigns = pbx.state("campaigns")
    by_status = {c["status"]: c["campaign_name"] for c in reversed(campaigns)}
    autocall = next(c["campaign_name"] for c in campaigns if c["type"] == "autocall")
    lists = pbx.state("lists")
    users = pbx.state("users")
    groups = pbx.state("groups")
    name = campaigns[0]["campaign_name"]
    agent = next((u["username"] for u in users if u["username"].startswith("agent")), "x")
    channel = f"<#{CALL_CENTER}|call-center>"
    return {
        "help": ["help", "help campaign", "help writing", "help metrics"],
        "connect": ["connect"],
        "status": ["status"],
        "campaigns": ["campaigns", "campaigns autocall"],
        "campaign": [f'campaign "{name}"', "campaign khong-co-chien-dich-nay"],
        "start": [f'start "{by_status.get("stop", name)}"'],
        "pause": [
            f'pause "{by_status.get("start", name)}"',
            f'pause "{by_status.get("pause", name)}"',
        ],
        "pause all": ["pause all"],
        "stop": [f'stop "{by_status.get("start", name)}"'],
        "calls": ["calls"],
        "transfer": [f"transfer {call_id} 1002", "transfer"],
        "autocall": [f'autocall "{autocall}" 0912345678'],
        "lead": [f'lead "{name}" 0912345678 name=An'],
        "leads upload": [f'leads upload "{name}"'],
        "list": [f"list {lists[0]['list_uuid']}"],
        "cdr": ["cdr", "cdr status=answered"],
        "stats": ["stats", "stats week"],
        "monitor": ["monitor"],
        "agents": ["agents"],
        "extensions": ["extensions"],
        "insights": ["insights", f'insights "{name}" yesterday', "insights week"],
        "users": ["users"],
        "groups": ["groups"],
        "templates": ["templates"],
        "carriers": ["carriers"],
        "gateways": ["gateways"],
        "blacklist": ["blacklist"],
        "group add": ["group add Nhom moi"],
        "group edit": [f'group edit "{groups[0]["group_name"]}"'],
        "user edit": [f"user edit {agent}"],
        "digest add": [f"digest add {channel} daily 08:00"],
        "digest list": ["digest list"],
        "digest remove": ["digest remove 999"],
        "digest pause": ["digest pause 999"],
        "digest resume": ["digest resume 999"],
        "digest run": ["digest run 999"],
        "digest preview": ["digest preview"],
        "alert add": [f"alert add {channel} connection_rate < 30"],
        "alert list": ["alert list"],
        "alert remove": ["alert remove 999"],
        "notify": ["notify", "notify list"],
        "policy": ["policy"],
        "policy set": ["policy set campaign.start mode=approval"],
        "policy channel": [f"policy channel <#{APPROVALS}|approvals>"],
        "role": ["role <@U0102|mai> operator"],
        "listen": [f'listen "{autocall}" name=An', f'listen "{autocall}" name=31/02/2026'],
        "rules": ["rules"],
        "rules hours": ["rules hours 08:00-17:00", "rules hours 8 to 5", "rules hours 22:00-02:00"],
        "rules advertising": [f'rules advertising "{autocall}" on'],
        "rules channel": [
            "rules channel <#C0001|call-center>",
            "rules channel off",
            "rules channel",
        ],
        "rules enforce": ["rules enforce on", "rules enforce off", "rules enforce maybe"],
        "rules frequency": ["rules frequency 1", "rules frequency 0", "rules frequency 3"],
        "rules brand": ['rules brand "Ngân hàng ACB"', "rules brand"],
        "dnc add": ["dnc add 0912 345 678"],
        "dnc remove": ["dnc remove 0912345678"],
        "dnc check": ["dnc check 0912345678 0987654321"],
        "compliance": [
            "compliance",
            "compliance 01/11/2026-30/11/2026",
            "compliance 31/02/2026-01/03/2026",
        ],
        "dnc upload": ["dnc upload"],
        "dnc list": ["dnc list", "dnc list extra"],
        "dnc export": ["dnc export", "dnc export version=x"],
        "consent add": [
            "consent add 0912 345 678 until=31/12/2099 source=phiếu ký tên",
            "consent add 0912 345 678",
        ],
        "consent remove": ["consent remove 0912345678", "consent remove 0987654321"],
        "consent check": ["consent check 0912345678"],
        "consent list": ["consent list"],
        "language": ["language vi", "language xx"],
        "settings": [
            "settings",
            "settings names sideways",
            "settings retention soon",
            "settings retention 30",
            f"settings language vi {channel}",
            "settings language",
            "settings charts pictures",
            "settings charts image",
        ],
        "privacy": ["privacy"],
        "privacy find": ["privacy find 0912345678", "privacy find 12"],
        "privacy erase": ["privacy erase 0912345678"],
        "privacy requests": ["privacy requests"],
        "privacy request add": [
            "privacy request add 0912345678 erase received=01/11/2026",
            "privacy request add 0912345678 forget",
            # Run again once the numbers are on the lists, consented and asked about.
            "privacy requests",
            "privacy find 0912345678",
            "dnc list",
            "dnc check 0912345678",
            "consent check 0912345678",
            "compliance",
        ],
    }


LAST = "disconnect"
"""Run last: it forgets the workspace the other commands need."""


def typed(extra: dict[str, list[str]]) -> list[str]:
    """Every command of every family, family by family: each of its examples as a
    Vietnamese reader types it (``tam-dung tat-ca``, as ``help`` shows it to them), then
    its lines in ``extra``; ``disconnect`` last."""
    specs = [spec for family in FAMILIES for spec in family.commands]
    unknown = set(extra) - {spec.name for spec in specs}
    assert not unknown, f"not commands of the catalog: {unknown}"
    lines: list[str] = []
    last: list[str] = []
    with use_audience(VI):
        for spec in specs:
            own = [example_line(spec, example) for example in spec.examples]
            (last if spec.name == LAST else lines).extend([*own, *extra.get(spec.name, [])])
    return [*lines, "chiendich", *last]


FREE_TEXT = re.compile(r"(?:\b(?:reason|source)=(\"[^\"]*\"|\S.*?)(?= \w+=|$)|#([\w-]+))")
"""Free text the reader types (``reason=``, ``source=``) and channel names (``#approvals``)."""


def typed_words(lines: list[str]) -> frozenset[str]:
    """The reader's own words in ``lines``: shown back as they were typed (a do-not-call
    entry's reason, a channel not found), they are theirs, not text to translate."""
    return data_words(part for line in lines for found in FREE_TEXT.findall(line) for part in found)


def english_command_words(texts: list[str]) -> list[str]:
    """``/callops privacy erase`` in a Vietnamese text: a command pointed to by its English
    words, where the reader types the alias (``/callops rieng-tu xoa``).  The help's
    "``/callops xem-chien-dich <tên>`` hoặc ``/callops campaign <tên>``" names both."""
    english = {spec.words[0] for spec in CATALOG.commands} - {
        spec.alias.split()[0] for spec in CATALOG.commands
    }
    return [
        f"{word} in {text[:160]!r}"
        for text in texts
        for word in re.findall(r"(?<!hoặc `)/callops ([a-z][a-z-]*)", text)
        if word in english
    ]


def outcome_texts(outcome: object) -> list[str]:
    if isinstance(outcome, Reply):
        return shown(outcome)
    if isinstance(outcome, OpenModal | UpdateModal):
        return shown(outcome.view)
    return []


async def seeded(pbx: EmulatorServer, cc: CallCenter) -> frozenset[str]:
    """The words of the seeded world: its rows, and the listings the state has no table for
    (people's full names, templates, carriers, gateways)."""
    rows: list[Any] = []
    for table in DATA_TABLES:
        rows += pbx.state(table)
    for listing in (cc.users, cc.templates, cc.carriers, cc.gateways):
        rows += [item.model_dump() async for item in listing.iterate()]
    return data_words(rows)


async def test_every_command_reads_in_vietnamese(
    cc: CallCenter, storage: Storage, pbx: EmulatorServer, slack: SlackStandIn
) -> None:
    calls = (await cc.calls.list()).data
    lines = typed(seeded_lines(pbx, calls[0].call_id if calls else "no-such-call"))
    ctx = context(cc, storage, pbx, slack)
    data = await seeded(pbx, cc) | typed_words(lines)
    problems: list[str] = []
    with use_audience(VI):
        for text in lines:
            outcome = await dispatch(ctx, text, registry=APP)
            texts = outcome_texts(outcome)
            problems += [f"/callops {text}: {p}" for p in english_left(texts, data)]
            problems += [f"/callops {text}: {p}" for p in english_command_words(texts)]
    assert not problems, f"{len(problems)} English texts shown in Vietnamese:\n" + "\n".join(
        problems
    )


async def test_the_home_tab_status_and_call_cards_read_in_vietnamese(
    cc: CallCenter, storage: Storage, pbx: EmulatorServer, slack: SlackStandIn
) -> None:
    ctx = context(cc, storage, pbx, slack)
    records = list((await cc.cdrs.list(limit=10)).data)
    surfaces: dict[str, list[str]] = {}
    with use_audience(VI):
        surfaces["Home tab"] = shown(await wallboard(ctx))
        surfaces["Home tab, not connected"] = shown(not_connected_home(Role.ADMIN))
        surfaces["status"] = shown(await status_modal(ctx))
        for i, cdr in enumerate(records):
            surfaces[f"call card {i}"] = shown(call_card(cdr, tz=TZ))
            surfaces[f"outcome card {i}"] = shown(outcome_card(cdr, tz=TZ))
    data = await seeded(pbx, cc) | data_words(r.model_dump() for r in records)
    problems = [
        f"{where}: {p}" for where, texts in surfaces.items() for p in english_left(texts, data)
    ]
    assert not problems, f"{len(problems)} English texts shown in Vietnamese:\n" + "\n".join(
        problems
    )
