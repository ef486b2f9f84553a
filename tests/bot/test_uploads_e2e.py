"""Both uploads read what people save and lose nothing.

Through the Slack stand-in against the emulator, the do-not-call upload (`dnc upload`)
and the lead upload (`leads upload`) read the same files the same way: a stray quote
spoils its own line only, named with its line; Excel's "Unicode text" (UTF-16, tabs)
reads; a line with an oversize cell is named and the rest read; a binary file gets one
clear answer.  A large registry file becomes its new version in short transactions:
another writer that will not wait a whole second for the lock succeeds all through it,
and readiness stays 200."""

from __future__ import annotations

import asyncio
import codecs
import io
import threading
from collections.abc import AsyncIterator

import httpx
import pytest

from bot.runtime import Runtime
from commands.kernel.upload_reader import (
    BadLine,
    Row,
    UploadRefused,
    check_size,
    read_rows,
    save_upload,
)
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from storage.database import patience
from tests.bot.approval_helpers import ask, shown

pytestmark = pytest.mark.usefixtures("roles")

NUMBERS = [f"09{n:08d}" for n in range(12345670, 12345680)]
"""Ten numbers the service accepts, for the do-not-call list."""
STRAY = "opens a cell that does not close on this line."
LEADS = [f"03{n:08d}" for n in range(56789010, 56789020)]
"""Ten others, for lead lists (a listed number would be left out of them)."""


async def share(slack: SlackStandIn, name: str, content: bytes, user: str) -> None:
    await slack.driver.file_share(user=user, channel=CALL_CENTER, name=name, content=content)


def lead_lines(numbers: list[str]) -> list[str]:
    return ["phone_number,lead_name", *(f"{n},Khách {i}" for i, n in enumerate(numbers))]


async def dnc_upload(slack: SlackStandIn, name: str, content: bytes) -> str:
    await share(slack, name, content, SUPERVISOR)
    return shown(await ask(slack, "dnc upload", user=SUPERVISOR))


async def leads_upload(slack: SlackStandIn, pbx: EmulatorServer, name: str, content: bytes) -> str:
    list_uuid = str(pbx.state("lists")[0]["list_uuid"])
    await share(slack, name, content, AGENT)
    return shown(await ask(slack, f"leads upload {list_uuid}", user=AGENT))


async def test_a_stray_quote_spoils_its_own_line_in_both_uploads(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    dnc_rows = [*NUMBERS]
    dnc_rows[1] = '"' + dnc_rows[1] + ",note"
    text = await dnc_upload(slack, "registry.csv", "\n".join(dnc_rows).encode())
    assert "registry.csv is version 1 of the national Do Not Advertise registry: 9 numbers" in (
        text
    ), text
    assert "Line 2: A quote (" in text and STRAY in text
    lead_rows = lead_lines(LEADS)
    lead_rows[2] = '"' + lead_rows[2]
    text = await leads_upload(slack, pbx, "leads.csv", "\n".join(lead_rows).encode())
    assert "Upload *9 leads*" in text, text
    assert "Line 3: A quote (" in text and STRAY in text
    assert "1 line that cannot be read" in text


async def test_excel_unicode_text_is_read_by_both_uploads(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    # Excel's "Unicode text": UTF-16 little-endian with its mark, cells split by tabs.
    lines = ["so_dien_thoai\tghi_chu", *(f"{n}\tkhông gọi" for n in NUMBERS[:4])]
    content = codecs.BOM_UTF16_LE + "\r\n".join(lines).encode("utf-16-le")
    text = await dnc_upload(slack, "registry.txt.csv", content)
    assert "registry.txt.csv is version 1 of the national Do Not Advertise registry: 4 numbers" in (
        text
    ), text
    leads = "\r\n".join(line.replace(",", "\t") for line in lead_lines(LEADS[4:7]))
    text = await leads_upload(
        slack, pbx, "leads.csv", codecs.BOM_UTF16_LE + leads.encode("utf-16-le")
    )
    assert "Upload *3 leads*" in text, text
    # UTF-8 with a byte-order mark and semicolons, as Excel in a comma-decimal locale.
    semi = "\n".join(line.replace(",", ";") for line in lead_lines(LEADS[7:]))
    text = await leads_upload(slack, pbx, "semi.csv", codecs.BOM_UTF8 + semi.encode())
    assert "Upload *3 leads*" in text, text


async def test_an_oversize_cell_is_named_and_the_rest_read(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    huge = "x" * (200 * 1024)
    rows = [NUMBERS[0], f"{NUMBERS[1]},{huge}", *NUMBERS[2:5]]
    text = await dnc_upload(slack, "registry.csv", "\n".join(rows).encode())
    assert "is version 1 of the national Do Not Advertise registry: 4 numbers" in text, text
    assert "Line 2: The line is longer than 65,536 characters." in text
    lead_rows = lead_lines(LEADS[5:])
    lead_rows[1] = f"{LEADS[5]},{huge}"
    text = await leads_upload(slack, pbx, "leads.csv", "\n".join(lead_rows).encode())
    assert "Upload *4 leads*" in text, text
    assert "Line 2: The line is longer than 65,536 characters." in text
    assert "Something went wrong" not in text


async def test_the_national_registry_is_uploaded_by_admins_only(
    app: Runtime, slack: SlackStandIn
) -> None:
    await share(slack, "registry.csv", "\n".join(NUMBERS).encode(), AGENT)
    text = shown(await ask(slack, "dnc upload", user=AGENT))
    assert "admin" in text, text
    assert app.storage.call_lists.registry_version(TEAM) is None


async def test_a_binary_file_gets_one_clear_answer_from_both_uploads(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    # The start of a spreadsheet saved as .xlsx (a zip archive), named .csv.
    content = b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00" + bytes(range(256)) * 40
    expected = "The file is not a text table. Save it as CSV UTF-8"
    dnc_text = await dnc_upload(slack, "book.csv", content)
    lead_text = await leads_upload(slack, pbx, "book.csv", content)
    assert expected in dnc_text and expected in lead_text, (dnc_text, lead_text)
    assert app.storage.call_lists.registry_version(TEAM) is None
    assert pbx.journal(method="POST", path="/v3/lead/file") == []


async def test_a_file_over_the_limit_is_refused_before_it_is_read() -> None:
    with pytest.raises(UploadRefused, match="at most 256 MB can be uploaded"):
        check_size(300 * 1024 * 1024)

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(5):
            yield b"0912345678\n" * (1024 * 1024 // 11)

    saved = io.BytesIO()
    with pytest.raises(UploadRefused, match="over 3 MB, the most") as refused:
        await save_upload(chunks(), saved, limit=3 * 1024 * 1024)
    assert "Split it" in refused.value.message
    assert len(saved.getvalue()) <= 3 * 1024 * 1024  # it stopped at the limit


def test_every_line_is_a_row_or_named_with_its_reason() -> None:
    content = b'a,b\n"open,x\n1,"two ""quoted"""\n\n3,4\n5,"x"y"\n6,5" screen\n'
    items = list(read_rows(io.BytesIO(content)))
    rows = [(i.line, i.cells) for i in items if isinstance(i, Row)]
    bad = [(i.line, i.reason) for i in items if isinstance(i, BadLine)]
    assert rows == [
        (1, ["a", "b"]),
        (3, ["1", 'two "quoted"']),
        (5, ["3", "4"]),
        (7, ["6", '5" screen']),  # a quote inside a cell is a letter, as spreadsheets write it
    ]
    assert bad == [
        (2, 'A quote (") opens a cell that does not close on this line.'),
        (6, 'A quote (") in a cell is not written as two quotes ("").'),
    ]
    # Bytes that are not UTF-8 past the part looked at first spoil their line alone.
    content = b"0912345678\n" * 10_000 + b"\xff\xfe0987654321\n0356789012\n"
    items = list(read_rows(io.BytesIO(content)))
    assert [(i.line, i.reason) for i in items if isinstance(i, BadLine)] == [
        (10_001, "The line has bytes that are not text.")
    ]
    assert items[-1] == Row(10_002, ["0356789012"])
    # A file that starts with them is refused whole.
    with pytest.raises(UploadRefused, match="not a text table"):
        next(read_rows(io.BytesIO(b"\xc3\x28\xfd,1\n")))


async def while_writing(
    app: Runtime, slack: SlackStandIn, user: str, command: str
) -> tuple[str, list[str], list[int]]:
    """Run ``command`` while another thread writes to the database every few
    milliseconds, waiting at most a second for the lock, once (it is told "busy" if the
    upload holds the lock longer), and a load balancer probes ``/readyz``: the answer,
    the writes' outcomes and the probes' statuses."""
    storage = app.storage
    done = threading.Event()
    outcomes: list[str] = []
    ready: list[int] = []

    def other_writer() -> None:
        while not done.is_set():
            try:
                with patience(1.0, tries=1):
                    storage.calling_rules.set_frequency("T_OTHER", 2, by="U_OTHER")
                outcomes.append("ok")
            except Exception as exc:  # the failure is what is counted
                outcomes.append(type(exc).__name__)
            done.wait(0.02)

    async def probe_readiness() -> None:
        assert slack.driver.request_url is not None
        base = slack.driver.request_url.removesuffix("/slack/events")
        async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
            while not done.is_set():
                ready.append((await http.get(base + "/readyz")).status_code)
                await asyncio.sleep(0.05)

    writer = threading.Thread(target=other_writer)
    writer.start()
    prober = asyncio.create_task(probe_readiness())
    try:
        seen = {m["ts"] for m in slack.ephemerals(user)}
        await slack.driver.slash_command(user=user, channel=CALL_CENTER, text=command)
        reply = await slack.wait_for(
            lambda: next((m for m in slack.ephemerals(user) if m["ts"] not in seen), None),
            within=300,
        )
    finally:
        done.set()
        writer.join()
        await prober
    return shown(reply), outcomes, ready


async def test_a_large_registry_file_lets_other_writers_through(
    app: Runtime, slack: SlackStandIn
) -> None:
    count, shift = 150_000, 50_000
    first = ((f"09{n:08d}", None) for n in range(10_000_000, 10_000_000 + count))
    app.storage.call_lists.upload_registry(TEAM, first, by="U_ADMIN", file_name="may.csv")
    # The next version drops the first 50,000 numbers and adds 50,000 new ones: staging,
    # closing and opening all run while the other writer writes.
    start = 10_000_000 + shift
    content = "\n".join(f"09{n:08d}" for n in range(start, start + count)).encode()
    await share(slack, "national.csv", content, SUPERVISOR)
    text, outcomes, ready = await while_writing(app, slack, SUPERVISOR, "dnc upload")
    assert (
        f"national.csv is version 2 of the national Do Not Advertise registry: {count:,} "
        f"numbers, {shift:,} added and {shift:,} removed"
    ) in text, text
    assert len(outcomes) > 3 and set(outcomes) == {"ok"}, outcomes
    assert ready and set(ready) == {200}, ready
    lists = app.storage.call_lists
    assert lists.registry_size(TEAM) == count
    assert lists.on_registry_now(TEAM, ["0910000000", f"09{start + count - 1:08d}"]) == {
        f"09{start + count - 1:08d}"
    }


async def test_a_large_lead_file_lets_other_writers_through(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    count = 30_000
    app.storage.call_lists.add_optout(
        TEAM, [f"09{n:08d}" for n in range(20_000_000, 20_002_000)], source="typed", by="U1"
    )
    rows = [f"09{n:08d},Khách {n}" for n in range(20_000_000, 20_000_000 + count)]
    content = "\n".join(["phone_number,lead_name", *rows]).encode()
    list_uuid = str(pbx.state("lists")[0]["list_uuid"])
    await share(slack, "many.csv", content, AGENT)
    text, outcomes, ready = await while_writing(app, slack, AGENT, f"leads upload {list_uuid}")
    assert f"{count:,} rows checked" in text, text
    assert len(outcomes) > 3 and set(outcomes) == {"ok"}, outcomes
    assert ready and set(ready) == {200}, ready
