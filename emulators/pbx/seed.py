"""The seeded world: two domains with users, groups, campaigns, templates, lists, leads,
carriers, gateways, blacklist and a month of call records.

Deterministic for a given ``--seed`` and start instant: identifiers, names, numbers and
outcomes come from seeded generators; only the call-record times follow the clock, so
"the last 30 days" always has data.  Every campaign type appears in every status; the
first campaigns listed cover the twelve combinations, so a test looking for "a stopped
autodialer" finds one on the first page.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any

from callcenter.models import (
    BlacklistEntry,
    Campaign,
    Carrier,
    CarrierData,
    Gateway,
    Network,
    Prompt,
    Schedule,
    Template,
)
from emulators.pbx import fakedata as fd
from emulators.pbx.schema import CDR_INSERT
from emulators.pbx.timeutil import day_start, fmt_iso

NS_PER_HOUR = 3_600_000_000_000


@dataclass(frozen=True)
class DomainPlan:
    name: str
    api_key: str
    admins: int
    agents: int
    first_extension: int
    groups: tuple[str, ...]
    campaigns: int
    hotlines: tuple[str, ...]
    weekday_calls: int
    weekend_calls: int


PLANS: tuple[DomainPlan, ...] = (
    DomainPlan(
        "demo",
        "demo-api-key",
        2,
        14,
        1001,
        ("Telesale", "CSKH", "Thu hồi nợ", "Kỹ thuật"),
        60,
        ("19006868", "02873006868"),
        110,
        45,
    ),
    DomainPlan(
        "demo2",
        "demo-api-key-2",
        1,
        6,
        2001,
        ("Bán hàng", "Hỗ trợ"),
        16,
        ("19009999",),
        50,
        20,
    ),
)

TYPES = ("autocall", "autodialer", "inbound", "manual")
STATUSES = ("start", "pause", "stop")
BASE_NAMES: dict[str, tuple[str, ...]] = {
    "autocall": (
        "Nhắc lịch hẹn",
        "Nhắc thanh toán",
        "Xác nhận đơn hàng",
        "Gửi mã OTP",
        "Khảo sát hài lòng",
        "Thông báo khuyến mãi",
    ),
    "autodialer": (
        "Telesale thẻ tín dụng",
        "Gia hạn bảo hiểm",
        "Vay tiêu dùng",
        "Thu hồi nợ nhóm 2",
        "Chăm sóc khách VIP",
        "Mời nâng hạng thẻ",
    ),
    "inbound": ("Tổng đài CSKH", "Hotline bán hàng", "Hỗ trợ kỹ thuật", "Tiếp nhận khiếu nại"),
    "manual": ("Gọi lại khách hàng", "Xác minh hồ sơ", "Bổ sung hồ sơ", "Chăm sóc sau bán"),
}
BRANCHES = ("HN", "HCM", "ĐN", "CT")

TTS_TEMPLATES: tuple[tuple[str, str, str], ...] = (
    (
        "Chào hỏi khách hàng",
        "Lời chào và chuyển tư vấn viên",
        "Xin chào {{name}}, cảm ơn quý khách đã tin dùng dịch vụ của chúng tôi. "
        "Nhấn 1 để gặp tư vấn viên.",
    ),
    (
        "Nhắc thanh toán",
        "Nhắc khoản thanh toán đến hạn",
        "Kính chào {{name}}, khoản thanh toán {{amount}} đồng của quý khách đến hạn ngày "
        "{{due_date}}. Nhấn 1 để được hỗ trợ, nhấn 2 để nghe lại.",
    ),
    (
        "Xác nhận lịch hẹn",
        "Xác nhận hoặc đổi lịch hẹn",
        "Xin chào {{name}}, quý khách có lịch hẹn lúc {{time}} ngày {{date}}. "
        "Nhấn 1 để xác nhận, nhấn 2 để đổi lịch.",
    ),
    (
        "Mã OTP giao dịch",
        "Đọc mã xác thực",
        "Mã xác thực của quý khách là {{otp}}. Xin nhắc lại, mã xác thực là {{otp}}.",
    ),
    (
        "Khảo sát sau bán hàng",
        "Khảo sát mức độ hài lòng",
        "Xin chào {{name}}, quý khách vui lòng đánh giá dịch vụ: nhấn 1 nếu hài lòng, "
        "nhấn 2 nếu chưa hài lòng.",
    ),
)
AUDIO_TEMPLATES = ("Lời chào tổng đài", "Nhạc chờ", "Thông báo ngoài giờ")


def password_hash(password: str) -> str:
    return hashlib.sha256(password.encode()).hexdigest()


def seed_database(conn: sqlite3.Connection, seed: int, now: float, tz: tzinfo) -> None:
    """Fill an empty database (see ``store.new_database``) with the seeded world."""
    conn.execute("BEGIN")
    for plan in PLANS:
        _seed_domain(conn, plan, random.Random(f"{seed}:{plan.name}"), now, tz)
    conn.execute("COMMIT")


def _seed_domain(
    conn: sqlite3.Connection, plan: DomainPlan, rng: random.Random, now: float, tz: tzinfo
) -> None:
    def uid() -> str:
        return fd.new_uuid(rng)

    def iso(t: float) -> str:
        return fmt_iso(t, tz)

    domain_uuid = uid()
    since = now - 400 * 86400

    # roles and users
    roles = {level: uid() for level in ("admin", "supervisor", "agent")}
    role_names = {"admin": "Quản trị viên", "supervisor": "Giám sát", "agent": "Điện thoại viên"}
    for level, role_uuid in roles.items():
        conn.execute(
            "INSERT INTO roles VALUES (?, ?, ?)", (role_uuid, domain_uuid, role_names[level])
        )
    users: list[tuple[str, str]] = []
    seen_names: set[str] = set()
    for i in range(plan.admins + plan.agents):
        who = fd.person(rng)
        level = "admin" if i < plan.admins else "agent"
        base = f"{level if level == 'admin' else 'agent'}.{who.ascii_first}"
        username = base
        n = 2
        while username in seen_names:
            username, n = f"{base}{n}", n + 1
        seen_names.add(username)
        user_uuid = uid()
        available = level == "admin" or rng.random() < 0.75
        agent_status = "LOGGED_OUT"
        if available:
            agent_status = "PAUSE" if rng.random() < 0.25 else "RESUME"
        conn.execute(
            "INSERT INTO users VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                user_uuid,
                domain_uuid,
                i,
                username,
                who.first,
                who.middle,
                who.last,
                f"{username}@{plan.name}.example.com",
                level,
                roles[level],
                "true",
                "Available" if available else "Logged Out",
                agent_status,
                str(plan.first_extension + i),
                uid(),
                int(rng.random() < 0.5),
                password_hash(f"{username}-pass"),
                since + rng.randrange(30 * 86400),
                rng.randrange(20, 90) * 60,
            ),
        )
        users.append((user_uuid, level))
    conn.execute(
        "INSERT INTO domains VALUES (?, ?, ?, ?, ?, ?)",
        (domain_uuid, plan.name, plan.api_key, uid(), users[0][0], json.dumps(plan.hotlines)),
    )

    # groups: admins in none, agents spread over the groups
    groups = [(uid(), name) for name in plan.groups]
    department = uid()
    for i, (group_uuid, name) in enumerate(groups):
        conn.execute(
            "INSERT INTO groups VALUES (?, ?, ?, ?, ?, ?, ?)",
            (group_uuid, domain_uuid, i, name, f"Nhóm {name}", department, i + 1),
        )
    agents = [u for u, level in users if level == "agent"]
    for i, user_uuid in enumerate(agents):
        conn.execute(
            "INSERT INTO group_users VALUES (?, ?)", (groups[i % len(groups)][0], user_uuid)
        )
        if i % 5 == 0 and len(groups) > 1:
            other = groups[(i + 1) % len(groups)][0]
            conn.execute("INSERT INTO group_users VALUES (?, ?)", (other, user_uuid))

    # gateways and carriers
    gateways = []
    for i, name in enumerate(("gw-hni-01", "gw-hcm-01", "gw-dng-01")):
        gw = Gateway(
            gateway_uuid=uid(),
            domain_uuid=domain_uuid,
            gateway=name,
            description=f"SIP gateway {name[3:6].upper()}",
        )
        gateways.append(gw.gateway_uuid)
        conn.execute(
            "INSERT INTO gateways VALUES (?, ?, ?, ?)",
            (gw.gateway_uuid, domain_uuid, i, gw.model_dump_json()),
        )
    carriers = []
    carrier_specs = (
        ("Trunk chính", "channel_prefix", "02873008888", 60),
        ("SIP dự phòng", "sip_one_for_all", "02473009999", 30),
        ("Trunk CSKH", "channel_prefix", "02363007777", 20),
    )
    for i, (name, dial_type, caller_id, ccu) in enumerate(carrier_specs):
        network = Network(
            operator_a=ccu // 3,
            operator_b=ccu // 4,
            operator_c=ccu // 4,
            operator_d=ccu // 10,
            offnet=ccu // 10,
        )
        data = CarrierData(caller_id=caller_id)
        if dial_type == "channel_prefix":
            data = CarrierData(
                caller_id=caller_id,
                prefix_operator_a="91",
                prefix_operator_b="92",
                prefix_operator_c="93",
                prefix_operator_d="94",
                prefix_offnet="95",
            )
        created = since + i * 86400
        carrier = Carrier(
            domain_uuid=domain_uuid,
            carrier_uuid=uid(),
            carrier_name=name,
            gateway_uuid=gateways[i % len(gateways)],
            caller_id=caller_id,
            description=f"{name} ({dial_type})",
            dial_type=dial_type,
            status=True,
            created_at=iso(created),
            updated_at=iso(created + 3600),
            network=network,
            data=data,
            concurrent_call=ccu,
            carrier_remaining_ccu=network,
            remaining_concurrent_call=ccu,
            groups=None,
        )
        carriers.append(carrier)
        conn.execute(
            "INSERT INTO carriers VALUES (?, ?, ?, ?, ?)",
            (carrier.carrier_uuid, domain_uuid, i, name, carrier.model_dump_json()),
        )

    # templates: TTS with placeholders and press options, then audio files
    templates: list[Template] = []
    for name, description, content in TTS_TEMPLATES:
        press = [
            {"1": Prompt(voice_type="tts", content="Xin vui lòng chờ trong giây lát.")},
            {"2": Prompt(voice_type="audio_file", audio_file=uid())},
        ]
        templates.append(
            Template(
                template_uuid=uid(),
                template_name=name,
                description=description,
                voice_type="tts",
                content=content,
                voice_tts=rng.choice(("female_north", "male_south")),
                speed_tts=1.0,
                enable_option=True,
                press_options=press,
                press_timeout=5,
                inter_digit_timeout=3,
                max_timeout=15,
                exit_sound=Prompt(enable=True, voice_type="tts", content="Xin cảm ơn quý khách."),
                invalid_sound=Prompt(enable=True, voice_type="tts", content="Phím không hợp lệ."),
            )
        )
    for name in AUDIO_TEMPLATES:
        templates.append(
            Template(
                template_uuid=uid(),
                template_name=name,
                description=f"Tệp ghi âm {name.lower()}",
                voice_type="audio_file",
                audio_file=uid(),
                enable_option=False,
                press_options=None,
                exit_sound=Prompt(enable=False, voice_type="audio_file", audio_file=uid()),
                invalid_sound=Prompt(enable=False, voice_type="audio_file", audio_file=uid()),
            )
        )
    for i, stored in enumerate(templates):
        conn.execute(
            "INSERT INTO templates VALUES (?, ?, ?, ?, ?)",
            (
                stored.template_uuid,
                domain_uuid,
                i,
                stored.template_name,
                stored.model_dump_json(),
            ),
        )
    tts = templates[: len(TTS_TEMPLATES)]
    audio = templates[len(TTS_TEMPLATES) :]

    # blacklist
    for i in range(12):
        entry = BlacklistEntry(
            id=str(plan.first_extension * 10 + i),
            phone_number=fd.phone_number(rng),
            description=rng.choice(("Khách yêu cầu không gọi", "Số quấy rối", "Đã khiếu nại")),
        )
        conn.execute(
            "INSERT INTO blacklist VALUES (?, ?, ?, ?, ?)",
            (entry.id, domain_uuid, i, entry.phone_number, entry.model_dump_json()),
        )

    # campaigns: the twelve (type, status) pairs first, then older stopped/paused ones
    kinds = [(t, s) for s in STATUSES for t in TYPES]
    while len(kinds) < plan.campaigns:
        kinds.append((TYPES[len(kinds) % 4], "pause" if rng.random() < 0.2 else "stop"))
    used_names: set[str] = set()
    schedule = Schedule(
        **{
            f"{day}_{edge}_time": hours * NS_PER_HOUR
            for day, (start, end) in {
                "monday": (8, 20),
                "tuesday": (8, 20),
                "wednesday": (8, 20),
                "thursday": (8, 20),
                "friday": (8, 20),
                "saturday": (8, 12),
                "sunday": (0, 0),
            }.items()
            for edge, hours in (("start", start), ("end", end))
        }
    )
    list_seq = 0
    lead_seq = 0
    for i, (ctype, status) in enumerate(kinds):
        bases = BASE_NAMES[ctype]
        name = f"{bases[i // 4 % len(bases)]} {BRANCHES[i % len(BRANCHES)]}"
        n = 2
        while name in used_names:
            name = f"{bases[i // 4 % len(bases)]} {BRANCHES[i % len(BRANCHES)]} đợt {n}"
            n += 1
        used_names.add(name)
        campaign_uuid = uid()
        created = now - (len(kinds) - i) * 3 * 86400 - rng.randrange(86400)
        template: Template | None = None
        type_autocall = ""
        if ctype == "autocall":
            # The first autocall campaign greets by name only: {{name}} is all it needs.
            template = tts[0] if i < 12 else rng.choice(tts + audio[:1])
            type_autocall = (
                "autocall_audio"
                if template.voice_type == "audio_file"
                else "autocall_voice_otp"
                if "{{otp}}" in template.content
                else "autocall_voice_tts"
            )
        elif ctype == "inbound":
            template = audio[0]
        carrier = carriers[i % len(carriers)]
        group_pool = {
            "autodialer": [g for g in groups if g[1] in {"Telesale", "Thu hồi nợ", "Bán hàng"}],
            "inbound": [g for g in groups if g[1] in {"CSKH", "Kỹ thuật", "Hỗ trợ"}],
            "manual": groups[:1],
            "autocall": [],
        }[ctype] or groups[:1]
        assigned = group_pool if ctype != "autocall" else []
        list_uuid = uid() if ctype != "inbound" else ""
        campaign = Campaign(
            domain_uuid=domain_uuid,
            campaign_uuid=campaign_uuid,
            campaign_name=name,
            type=ctype,
            type_autocall=type_autocall,
            description=f"Chiến dịch {name.lower()}",
            active=status != "stop",
            concurrent_call={"autocall": 4, "autodialer": 3}.get(ctype, 10) + i % 3,
            ratio=1 + (ctype == "autodialer"),
            carrier_uuid=carrier.carrier_uuid,
            carrier_name=carrier.carrier_name,
            call_center_queue_uuid=uid() if ctype in {"inbound", "autodialer"} else "",
            call_center_queue_strategy="longest-idle-agent" if ctype != "autocall" else "",
            template_uuid=template.template_uuid if template else "",
            template_name=template.template_name if template else "",
            recall_times=2,
            limit_recall_duration=3600,
            schedule_recall="after",
            schedule_recall_duration=30,
            priority_recall="normal",
            recall_status=["busy", "no-answered", "not-available"],
            hopper=100,
            answer_callback_url="",
            callback_url="",
            local_start_time="08:00:00",
            local_end_time="20:00:00",
            customer_order="created_at",
            allow_manual_dial=ctype == "manual",
            allow_search_lead=ctype in {"manual", "inbound"},
            enable_callback_alert=False,
            enable_encrypt=False,
            default_list_uuid=list_uuid,
            script_uuid="",
            orig_campaign_uuid="",
            status=status,
            mode_call=("direct", "serial", "parralel")[i % 3],
            network=Network(operator_a=40, operator_b=25, operator_c=25, operator_d=5, offnet=5),
            run_id=uid() if status != "stop" else "",
            call_timeout=30,
            domain_name=plan.name,
            users=None,
            groups=[{"group_uuid": g, "group_name": n} for g, n in assigned] or None,
            statuses=None,
            schedules=[schedule],
            created_at=iso(created),
            updated_at=iso(created + rng.randrange(86400)),
        )
        conn.execute(
            "INSERT INTO campaigns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                campaign_uuid,
                domain_uuid,
                i,
                name,
                ctype,
                status,
                campaign.concurrent_call,
                created,
                campaign.model_dump_json(),
            ),
        )
        for group_uuid, _ in assigned:
            conn.execute("INSERT INTO group_campaigns VALUES (?, ?)", (group_uuid, campaign_uuid))
        if not list_uuid:
            continue
        conn.execute(
            "INSERT INTO lists VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                list_uuid,
                domain_uuid,
                list_seq,
                campaign_uuid,
                f"DS {name}",
                f"Danh sách khách hàng {name.lower()}",
                users[0][0],
                1,
                created,
                created,
                0.0,
                6,
                0,
                0,
                0,
                json.dumps(campaign.recall_status),
            ),
        )
        list_seq += 1
        fresh = {"start": 24, "pause": 12, "stop": 3}[status]
        called = 16 if status != "stop" else 25
        for k in range(fresh + called):
            lead_status = "NEW" if k < fresh else rng.choice(("DONE", "DONE", "RECALL", "FAILED"))
            _insert_lead(conn, rng, domain_uuid, list_uuid, lead_seq, lead_status, created, now)
            lead_seq += 1

    ctx = fd.load_context(conn, domain_uuid, rng)
    factory = fd.CdrFactory(ctx, rng, tz)
    first_day = datetime.fromtimestamp(day_start(now, tz), tz).replace(tzinfo=None)
    rows = []
    for back in range(30, -1, -1):
        day = (first_day - timedelta(days=back)).replace(tzinfo=tz)
        count = plan.weekday_calls if day.weekday() < 5 else plan.weekend_calls
        start = day.timestamp()
        times = sorted(fd.business_time(start, rng) for _ in range(count))
        rows.extend(factory.rows(t for t in times if t + 600 < now))
    conn.executemany(CDR_INSERT, rows)


def lead_body(rng: random.Random, phone: str, who: fd.Person) -> dict[str, Any]:
    province, district, ward = rng.choice(fd.PROVINCES)
    return {
        "lead_name": who.full,
        "lead_code": f"KH{rng.randrange(100_000, 999_999)}",
        "contract_number": f"HD2025-{rng.randrange(10_000, 99_999)}",
        "identity_number": f"0{rng.randrange(10**10, 10**11)}",
        "identity_issued_at": f"Công an {province}",
        "identity_issued_on": f"20{rng.randrange(10, 24)}-0{rng.randrange(1, 10)}-15",
        "address": f"{rng.randrange(1, 300)} {rng.choice(fd.STREETS)}",
        "province": province,
        "district": district,
        "ward": ward,
        "date_of_birth": f"19{rng.randrange(60, 99)}-{rng.randrange(1, 13):02d}-"
        f"{rng.randrange(1, 28):02d}",
        "gender": "female" if who.middle == "Thị" else rng.choice(("male", "female")),
        "additional": json.dumps(
            {"amount": str(rng.randrange(5, 300) * 100_000), "segment": rng.choice("ABC")}
        ),
        "network": fd.network_of(phone),
        "ref_code": f"REF{rng.randrange(1000, 9999)}",
    }


def _insert_lead(
    conn: sqlite3.Connection,
    rng: random.Random,
    domain_uuid: str,
    list_uuid: str,
    seq: int,
    status: str,
    created: float,
    now: float,
) -> None:
    phone = fd.phone_number(rng)
    body = lead_body(rng, phone, fd.person(rng))
    called = 0 if status == "NEW" else rng.randrange(1, 4)
    last = None if status == "NEW" else min(now, created + rng.randrange(86400, 20 * 86400))
    conn.execute(
        "INSERT INTO leads VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            fd.new_uuid(rng),
            domain_uuid,
            list_uuid,
            seq,
            phone,
            status,
            called,
            last,
            last + 1800 if status == "RECALL" and last else None,
            created,
            last or created,
            0,
            json.dumps(body, ensure_ascii=False),
        ),
    )
