"""Realistic, deterministic stand-in data: Vietnamese names, phone numbers, call records.

Everything draws from a ``random.Random`` the caller seeds, so the same seed gives the
same world.  Phone numbers are mobile numbers of the form ``0[35789]xxxxxxxx`` that
pass ``callcenter.rules.check_phone``; the leading digits name the network the way the
service's ``network`` keys do.
"""

from __future__ import annotations

import json
import random
import sqlite3
import unicodedata
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from callcenter.models import Cdr
from emulators.pbx.incidents import Incidents
from emulators.pbx.schema import CDR_FIELDS
from emulators.pbx.timeutil import SERVICE_FORMAT

LAST_NAMES = (
    "Nguyễn",
    "Trần",
    "Lê",
    "Phạm",
    "Hoàng",
    "Huỳnh",
    "Phan",
    "Vũ",
    "Võ",
    "Đặng",
    "Bùi",
    "Đỗ",
    "Hồ",
    "Ngô",
    "Dương",
    "Lý",
)
MIDDLE_NAMES = ("Văn", "Thị", "Hữu", "Minh", "Ngọc", "Thanh", "Quốc", "Đức", "Thu", "Gia", "Bảo")
FIRST_NAMES = (
    "An",
    "Bình",
    "Chi",
    "Dũng",
    "Giang",
    "Hà",
    "Hải",
    "Hạnh",
    "Hiếu",
    "Hoa",
    "Hùng",
    "Hương",
    "Khoa",
    "Lan",
    "Linh",
    "Long",
    "Mai",
    "Minh",
    "Nam",
    "Ngọc",
    "Phong",
    "Phúc",
    "Quân",
    "Quang",
    "Sơn",
    "Tâm",
    "Thảo",
    "Thắng",
    "Trang",
    "Trung",
    "Tuấn",
    "Vy",
    "Yến",
)
PROVINCES = tuple(
    tuple(place.split(" / "))
    for place in """
Hà Nội / Cầu Giấy / Dịch Vọng
TP Hồ Chí Minh / Quận 1 / Bến Nghé
TP Hồ Chí Minh / Bình Thạnh / Phường 25
Đà Nẵng / Hải Châu / Thạch Thang
Hải Phòng / Lê Chân / An Biên
Cần Thơ / Ninh Kiều / Tân An
Bình Dương / Thủ Dầu Một / Phú Cường
Khánh Hòa / Nha Trang / Lộc Thọ
""".strip().splitlines()
)
"""Province / district / ward of the seeded leads' addresses."""
STREETS = (
    "Lê Lợi",
    "Trần Hưng Đạo",
    "Nguyễn Huệ",
    "Hai Bà Trưng",
    "Lý Thường Kiệt",
    "Điện Biên Phủ",
)

NETWORK_PREFIXES: dict[str, tuple[str, ...]] = {
    "operator_a": ("086", "096", "097", "098", "032", "033", "034", "035", "036", "037", "038"),
    "operator_b": ("088", "091", "094", "081", "082", "083", "084", "085"),
    "operator_c": ("089", "090", "093", "070", "076", "077", "078", "079"),
    "operator_d": ("092", "056", "058"),
    "offnet": ("099", "059", "087"),
}
_PREFIX_NETWORK = {p: net for net, prefixes in NETWORK_PREFIXES.items() for p in prefixes}
_ALL_PREFIXES = tuple(_PREFIX_NETWORK)

# Cause and hang-up side of each call outcome, as a FreeSWITCH-based PBX reports them.
CAUSES: dict[str, str] = {
    "answered": "NORMAL_CLEARING",
    "busy": "USER_BUSY",
    "busy-line": "USER_BUSY",
    "no-answered": "NO_ANSWER",
    "not-available": "SUBSCRIBER_ABSENT",
    "cancel": "ORIGINATOR_CANCEL",
    "invalid": "UNALLOCATED_NUMBER",
    "congestion": "NORMAL_TEMPORARY_FAILURE",
    "drop": "NORMAL_CLEARING",
    "phone-block": "CALL_REJECTED",
}
CDR_STATUSES: tuple[str, ...] = tuple(CAUSES)

CDR_DEFAULTS: dict[str, Any] = {
    name: (field.default if field.default is not None else None)
    for name, field in Cdr.model_fields.items()
}
CDR_DEFAULTS["id"] = ""


def new_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def phone_number(rng: random.Random, network: str | None = None) -> str:
    prefixes = NETWORK_PREFIXES[network] if network else _ALL_PREFIXES
    return f"{rng.choice(prefixes)}{rng.randrange(10_000_000):07d}"


def network_of(phone: str) -> str:
    return _PREFIX_NETWORK.get(phone[:3], "offnet")


@dataclass(frozen=True)
class Person:
    last: str
    middle: str
    first: str

    @property
    def full(self) -> str:
        return f"{self.last} {self.middle} {self.first}"

    @property
    def ascii_first(self) -> str:
        return ascii_fold(self.first).lower()

    @property
    def ascii_last(self) -> str:
        return ascii_fold(self.last).lower()


def person(rng: random.Random) -> Person:
    return Person(rng.choice(LAST_NAMES), rng.choice(MIDDLE_NAMES), rng.choice(FIRST_NAMES))


def ascii_fold(text: str) -> str:
    """``Đặng Thảo`` -> ``Dang Thao``: usernames and e-mail addresses stay ASCII."""
    text = text.replace("Đ", "D").replace("đ", "d")
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def param_value(name: str, who: str, rng: random.Random) -> str:
    """A plausible value for a template placeholder, written the way speech synthesis
    reads it (spec 4.5: digits with spaces are read one by one, ``#`` reads a number)."""
    if name == "name":
        return who
    if name in {"amount", "so_tien"}:
        return str(rng.randrange(5, 500) * 100_000)
    if name in {"date", "due_date", "ngay"}:
        return f"{rng.randrange(1, 29):02d}/{rng.randrange(1, 13):02d}/2025"
    if name == "time":
        return f"{rng.randrange(8, 18):02d}:{rng.choice(('00', '15', '30', '45'))}"
    if name == "otp":
        return " ".join(str(rng.randrange(10)) for _ in range(6))
    if name in {"contract", "contract_number"}:
        return f"#{rng.randrange(10_000, 99_999)}"
    return f"{name}-{rng.randrange(100, 999)}"


# --- call records -----------------------------------------------------------------------


@dataclass(frozen=True)
class Agent:
    user_uuid: str
    extension: str
    username: str
    fullname: str
    email: str


@dataclass(frozen=True)
class CampaignRef:
    campaign_uuid: str
    type: str
    leads: tuple[tuple[str, str, str], ...]
    placeholders: tuple[str, ...]
    agents: tuple[Agent, ...]
    name: str = ""


@dataclass(frozen=True)
class DomainContext:
    """What a domain's call records refer to: its agents, hotlines and campaigns."""

    domain_uuid: str
    domain_name: str
    agents: tuple[Agent, ...]
    hotlines: tuple[str, ...]
    caller_id: str
    campaigns: tuple[CampaignRef, ...]
    customers: tuple[tuple[str, str], ...]


def load_context(conn: sqlite3.Connection, domain_uuid: str, rng: random.Random) -> DomainContext:
    domain_name, hotlines = conn.execute(
        "SELECT domain_name, hotlines FROM domains WHERE domain_uuid = ?", (domain_uuid,)
    ).fetchone()
    agents = tuple(
        Agent(u, ext, name, f"{last} {middle} {first}".strip(), email)
        for u, ext, name, last, middle, first, email in conn.execute(
            "SELECT user_uuid, extension, username, last_name, middle_name, first_name, email "
            "FROM users WHERE domain_uuid = ? AND extension != '' ORDER BY seq",
            (domain_uuid,),
        )
    )
    by_uuid = {a.user_uuid: a for a in agents}
    campaigns = []
    for campaign_uuid, ctype, body in conn.execute(
        "SELECT campaign_uuid, type, body FROM campaigns WHERE domain_uuid = ? "
        "AND type IN ('autocall', 'autodialer') ORDER BY seq",
        (domain_uuid,),
    ):
        leads = tuple(
            (lead_uuid, phone, json.loads(lbody).get("lead_name", ""))
            for lead_uuid, phone, lbody in conn.execute(
                "SELECT l.lead_uuid, l.phone_number, l.body FROM leads l "
                "JOIN lists s ON s.list_uuid = l.list_uuid WHERE s.campaign_uuid = ? "
                "AND l.status != 'NEW' ORDER BY l.seq LIMIT 200",
                (campaign_uuid,),
            )
        )
        members = tuple(
            by_uuid[u]
            for (u,) in conn.execute(
                "SELECT DISTINCT gu.user_uuid FROM group_campaigns gc "
                "JOIN group_users gu ON gu.group_uuid = gc.group_uuid WHERE gc.campaign_uuid = ?",
                (campaign_uuid,),
            )
            if u in by_uuid
        )
        template_uuid = json.loads(body).get("template_uuid", "")
        placeholders: tuple[str, ...] = ()
        row = conn.execute(
            "SELECT body FROM templates WHERE template_uuid = ?", (template_uuid,)
        ).fetchone()
        if row is not None:
            placeholders = tuple(placeholders_of(json.loads(row[0]).get("content", "")))
        name = str(json.loads(body).get("campaign_name", ""))
        campaigns.append(CampaignRef(campaign_uuid, ctype, leads, placeholders, members, name))
    customers = tuple((phone_number(rng), person(rng).full) for _ in range(400))
    caller = conn.execute(
        "SELECT body FROM carriers WHERE domain_uuid = ? ORDER BY seq LIMIT 1", (domain_uuid,)
    ).fetchone()
    caller_id = json.loads(caller[0]).get("caller_id", "") if caller else ""
    return DomainContext(
        domain_uuid,
        domain_name,
        agents,
        tuple(json.loads(hotlines)),
        caller_id,
        tuple(campaigns),
        customers,
    )


def placeholders_of(content: str) -> list[str]:
    """Names written ``{{name}}`` in a TTS template, in order, without repeats."""
    names: list[str] = []
    rest = content
    while "{{" in rest:
        _, _, tail = rest.partition("{{")
        name, sep, rest = tail.partition("}}")
        if not sep:
            break
        name = name.strip()
        if name and name not in names:
            names.append(name)
    return names


def cdr_row(domain_uuid: str, t_start: int, t_end: int, record: dict[str, Any]) -> tuple[Any, ...]:
    """A ``cdrs`` table row from a record holding some of the wire fields."""
    values = []
    for name in CDR_FIELDS:
        value = record.get(name, CDR_DEFAULTS[name])
        if name == "additional":
            value = json.dumps(value, ensure_ascii=False) if value is not None else ""
        values.append(value)
    return (domain_uuid, t_start, t_end, *values)


_HOUR_WEIGHTS = (
    (7, 2),
    (8, 8),
    (9, 12),
    (10, 13),
    (11, 11),
    (12, 5),
    (13, 7),
    (14, 11),
    (15, 12),
    (16, 11),
    (17, 8),
    (18, 4),
    (19, 3),
    (20, 2),
    (21, 1),
)
_HOURS = tuple(h for h, w in _HOUR_WEIGHTS for _ in range(w))


def business_time(day_start: float, rng: random.Random) -> int:
    """A call start within the day starting at ``day_start``, shaped like office hours."""
    return int(day_start) + rng.choice(_HOURS) * 3600 + rng.randrange(3600)


class CdrFactory:
    """Builds historical call records for one domain; used by the seed and by
    ``/_emulator/cdrs/generate`` (100,000 records in a few seconds)."""

    def __init__(
        self,
        ctx: DomainContext,
        rng: random.Random,
        tz: tzinfo,
        incidents: Incidents | None = None,
    ) -> None:
        self.ctx = ctx
        self.rng = rng
        self.tz = tz
        self.incidents = incidents
        """A network or campaign that stops answering (``emulators.pbx.incidents``)."""
        self._host = f"{ctx.domain_name}.pbx.example.com"
        self._minutes: dict[int, str] = {}
        self.ended_by: int | None = None
        """When set, no call ends after it (records of a day still going on: a long call
        begun before now is cut at now rather than ending in the future)."""

    def _fmt(self, t: int) -> str:
        # Zone offsets are whole minutes, so a minute's prefix is shared by its seconds:
        # formatting 400,000 times for 100,000 records stays cheap.
        minute = t - t % 60
        prefix = self._minutes.get(minute)
        if prefix is None:
            prefix = datetime.fromtimestamp(minute, self.tz).strftime(SERVICE_FORMAT)[:-2]
            self._minutes[minute] = prefix
        return f"{prefix}{t % 60:02d}"

    def _customer(self) -> tuple[str, str]:
        rng = self.rng
        if rng.random() < 0.7:
            return rng.choice(self.ctx.customers)
        return phone_number(rng), person(rng).full

    def rows(self, starts: Iterable[int]) -> list[tuple[Any, ...]]:
        return [self.row(t) for t in starts]

    def row(self, t_start: int) -> tuple[Any, ...]:
        rng = self.rng
        ctx = self.ctx
        kind = rng.random()
        rec: dict[str, Any] = {"id": new_uuid(rng)}
        agent: Agent | None = rng.choice(ctx.agents) if ctx.agents else None
        campaign: CampaignRef | None = None
        customer, customer_name = self._customer()
        if kind < 0.35:
            direction, app = "inbound", "callcenter"
            status = _pick(rng, _INBOUND)
            hotline = rng.choice(ctx.hotlines)
            rec.update(from_number=customer, to_number=hotline, receive_dest=hotline)
            if status not in ("answered", "no-answered"):
                agent = None
                if status == "cancel" and rng.random() < 0.5:
                    app = "ivr"
        elif kind < 0.60 or not ctx.campaigns:
            direction, app = "outbound", "manual"
            status = _pick(rng, _OUTBOUND)
            rec.update(from_number=agent.extension if agent else "", to_number=customer)
        elif kind < 0.95:
            direction = "outbound"
            campaign = rng.choice(ctx.campaigns)
            app = campaign.type
            if campaign.leads:
                lead_uuid, customer, customer_name = rng.choice(campaign.leads)
                rec["lead_uuid"] = lead_uuid
            rec.update(
                campaign_uuid=campaign.campaign_uuid,
                from_number=ctx.caller_id,
                to_number=customer,
                customer_fullname=customer_name,
            )
            if campaign.type == "autocall":
                status = _pick(rng, _AUTOCALL)
                agent = None
                rec["additional"] = {
                    p: param_value(p, customer_name, rng) for p in campaign.placeholders
                }
            else:
                status = _pick(rng, _AUTODIALER)
                pool = campaign.agents or ctx.agents
                agent = rng.choice(pool) if pool and status == "answered" else None
        else:
            direction, app = "local", "local"
            status = "answered" if rng.random() < 0.85 else "no-answered"
            other = rng.choice(ctx.agents) if ctx.agents else None
            rec.update(
                from_number=agent.extension if agent else "",
                to_number=other.extension if other else "",
            )
        if self.incidents and direction == "outbound":
            hit = self.incidents.outcome(
                status,
                direction=direction,
                customer=customer,
                campaign=(campaign.campaign_uuid, campaign.name) if campaign else None,
                at=t_start,
                rng=rng,
            )
            if hit != status and campaign is not None and app == "autodialer":
                # An autodialer call has an agent only when the customer answered.
                pool = campaign.agents or ctx.agents
                agent = rng.choice(pool) if pool and hit == "answered" else None
            status = hit
        answered = status == "answered"
        ring = rng.randrange(3, 20) if answered else rng.randrange(3, 35)
        talk = int(rng.lognormvariate(4.3, 0.9)) + 5 if answered else 0
        if status == "drop":
            talk = 0
            ring = rng.randrange(5, 15)
        if self.ended_by is not None and t_start + ring + talk > self.ended_by:
            talk = max(1, self.ended_by - t_start - ring) if answered else 0
        t_end = t_start + ring + talk
        rec.update(
            direction=direction,
            status=status,
            app=app,
            cause=CAUSES[status],
            duration=ring + talk,
            billsec=talk,
            time_started=self._fmt(t_start),
            time_ringging=self._fmt(t_start + 1),
            time_ended=self._fmt(t_end),
            sip_call_id=f"{rng.getrandbits(64):016x}@{ctx.domain_name}",
            sip_hangup_disposition=rng.choice(("send_bye", "recv_bye"))
            if answered
            else rng.choice(("send_refuse", "recv_refuse", "send_cancel")),
        )
        if answered:
            rec["time_answered"] = self._fmt(t_start + ring)
            day = self._fmt(t_start)[:10].replace("-", "/")
            rec["recording_url"] = f"https://{self._host}/recordings/{day}/{rec['id']}.mp3"
            if campaign is not None and campaign.type == "autocall":
                rec["autocall_recording_url"] = rec["recording_url"]
                if rng.random() < 0.7:
                    delay = rng.randrange(4, min(talk, 20) + 5)
                    pressed = rng.choice(("1", "1", "2", "0"))
                    rec.update(
                        press_key=pressed,
                        digits=pressed,
                        time_presskey=self._fmt(t_start + ring + delay),
                        autocall_presskey_epoch=str(t_start + ring + delay),
                        presskey_delay=delay,
                    )
            elif rng.random() < 0.15:
                rec.update(rate=str(rng.randrange(3, 6)), note="Khách hài lòng")
        if agent is not None:
            rec.update(
                extension=agent.extension,
                fullname=agent.fullname,
                email=agent.email,
                username=agent.username,
            )
        return cdr_row(ctx.domain_uuid, t_start, t_end, rec)


_INBOUND = (("answered", 70), ("no-answered", 10), ("cancel", 14), ("busy", 3), ("busy-line", 3))
_OUTBOUND = (
    ("answered", 50),
    ("no-answered", 20),
    ("busy", 12),
    ("not-available", 9),
    ("invalid", 3),
    ("congestion", 2),
    ("cancel", 4),
)
_AUTOCALL = (
    ("answered", 58),
    ("no-answered", 18),
    ("busy", 9),
    ("not-available", 9),
    ("invalid", 3),
    ("congestion", 2),
    ("phone-block", 1),
)
_AUTODIALER = (
    ("answered", 52),
    ("no-answered", 18),
    ("busy", 9),
    ("not-available", 8),
    ("drop", 5),
    ("busy-line", 3),
    ("invalid", 3),
    ("congestion", 2),
)


def _pick(rng: random.Random, weighted: Sequence[tuple[str, int]]) -> str:
    total = sum(w for _, w in weighted)
    x = rng.randrange(total)
    for value, weight in weighted:
        if x < weight:
            return value
        x -= weight
    return weighted[-1][0]


def pick(rng: random.Random, weighted: Sequence[tuple[str, int]]) -> str:
    return _pick(rng, weighted)


SIM_OUTCOMES: dict[str, tuple[tuple[str, int], ...]] = {
    "autocall": _AUTOCALL,
    "autodialer": _AUTODIALER,
    "inbound": _INBOUND,
    "outbound": _OUTBOUND,
    "local": (("answered", 85), ("no-answered", 15)),
}
"""How simulated calls end, by kind of call."""
