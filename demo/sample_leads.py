"""The sample leads CSV the demo console offers to share, so ``leads upload`` can be tried
offline: the console cannot reach the visitor's files unless they pick one, and a
visitor rarely has a CSV of Vietnamese phone numbers at hand.

The file is made for the emulator's data: its good numbers pass the service's own
pattern (``callcenter.rules``, spec 7) and are not on the blacklist; a few bad rows (a
number too short, a duplicate, a blacklisted number, a row without a number, a row
with a column missing) show what the check catches.  The summary names the campaign to
upload it into, the first one with a default lead list.
"""

from __future__ import annotations

import csv
import io
import random
from dataclasses import dataclass

from callcenter import CallCenter
from callcenter.models import Campaign
from callcenter.rules import is_valid_phone
from commands.kernel.phones import normalize_phone

SAMPLE_NAME = "sample-leads.csv"
GOOD_ROWS = 20
NAMES = (
    "Nguyễn Văn An",
    "Trần Thị Bình",
    "Lê Minh Châu",
    "Phạm Quốc Dũng",
    "Hoàng Thu Hà",
    "Võ Thanh Hải",
    "Đặng Ngọc Lan",
    "Bùi Đức Minh",
    "Đỗ Thị Ngọc",
    "Huỳnh Văn Phúc",
)
PREFIXES = ("090", "091", "093", "097", "098", "035", "070", "083")


def good_numbers(count: int, blocked: set[str], seed: int = 16) -> list[str]:
    """``count`` distinct numbers the service accepts, none of them blocked."""
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        number = rng.choice(PREFIXES) + f"{rng.randrange(10_000_000):07d}"
        if is_valid_phone(number) and number not in blocked and number not in found:
            found.append(number)
    return found


def sample_csv(blocked: set[str]) -> tuple[bytes, int, int]:
    """The file, its good rows and its bad rows."""
    numbers = good_numbers(GOOD_ROWS, blocked)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["phone_number", "lead_name", "contract_number"])
    rows = [[n, NAMES[i % len(NAMES)], f"HD{2600 + i}"] for i, n in enumerate(numbers)]
    bad = [
        ["09123", "Số quá ngắn", "HD9001"],  # too short for the pattern
        [numbers[0], "Trùng số", "HD9002"],  # the same number as the first row
        ["", "Không có số", "HD9003"],  # no number
        [numbers[1][:-1] + "x", "Có chữ cái", "HD9004"],  # not digits
    ]
    if blocked:
        bad.append([sorted(blocked)[0], "Số bị chặn", "HD9005"])  # on the blacklist
    # Bad rows among the good ones, as they come in real files.
    for offset, row in enumerate(bad):
        rows.insert(3 + offset * 4, row)
    for row in rows:
        writer.writerow(row)
    out.write(f"{numbers[-1][:-1]}9,Thiếu cột\n")  # a column missing
    return out.getvalue().encode(), len(numbers), len(bad) + 1


def upload_target(campaigns: list[Campaign]) -> Campaign | None:
    """The campaign the sample is meant for: the first with a default lead list,
    preferring an autodialer (the dialer calls the uploaded leads)."""
    with_list = [c for c in campaigns if c.default_list_uuid]
    autodialers = [c for c in with_list if c.type == "autodialer"]
    preferred = autodialers or with_list
    return preferred[0] if preferred else None


@dataclass(frozen=True)
class SampleLeads:
    """The demo's sample CSV: what the console offers to share (``demo.offline`` hands it to
    the Slack stand-in, where the app meets the emulators)."""

    name: str
    content: bytes
    summary: str


async def sample_leads(cc: CallCenter) -> SampleLeads:
    blocked = {normalize_phone(b.phone_number) async for b in cc.blacklist.iterate()}
    campaigns = [c async for c in cc.campaigns.iterate(page_size=100)]
    content, good, bad = sample_csv(blocked)
    target = upload_target(campaigns)
    then = (
        f'then /callops leads upload "{target.campaign_name}"'
        if target
        else "then /callops leads upload <campaign>"
    )
    return SampleLeads(
        name=SAMPLE_NAME,
        content=content,
        summary=f"{good} good leads and {bad} bad rows for the check; {then}",
    )
