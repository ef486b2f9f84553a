"""Whether an advertising call may be made now, to this number, by Vietnam's rules.

Decree 91/2020/ND-CP allows advertising calls only within set hours, at most a set
number to one number in 24 hours, and never to a number on the do-not-call list.  These
checks run where callops places or prepares calls (an autocall push, a lead into an
advertising campaign's list, a campaign start); what does not go through callops they
cannot guard, and the README says so.

A campaign is advertising when it calls out (autocall, autodialer) and is not an OTP
autocall, unless an admin said otherwise for it (``rules advertising``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from callcenter import CallCenter
from callcenter.models import Campaign
from commands.kernel.i18n import _, ngettext
from commands.kernel.periods import SERVICE_TZ, to_service
from commands.kernel.phones import blocked_numbers, show_phone
from commands.kernel.resolve import all_campaigns
from commands.kernel.text import number, parse_service_time
from commands.rules.lists import list_refusal, refused_numbers
from storage import Storage
from storage.calling_rules import DAY, CallingRules
from storage.offload import off_loop

OUTBOUND_TYPES = frozenset({"autocall", "autodialer"})
OTP_AUTOCALL = "autocall_voice_otp"
REFUSED_ACTION = "calling_rules.refused"
"""The audit log's action for a call the calling rules stopped (digests count them)."""
Window = tuple[int, int]
"""Minutes after midnight: start, end (end < start crosses midnight)."""


def is_advertising(campaign: Campaign, rules: CallingRules) -> bool:
    override = rules.of(campaign.campaign_uuid).advertising
    if override is not None:
        return override
    return by_type(campaign)


def by_type(campaign: Campaign) -> bool:
    """What the campaign's type says, before any admin's word."""
    return campaign.type in OUTBOUND_TYPES and campaign.type_autocall != OTP_AUTOCALL


def clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def window_words(window: Window) -> str:
    return f"{clock(window[0])}–{clock(window[1])}"


def within(window: Window, minutes: int) -> bool:
    start, end = window
    if start == end:
        return True  # a window of the whole day
    if start < end:
        return start <= minutes < end
    return minutes >= start or minutes < end


def minutes_of(moment: datetime) -> int:
    return moment.hour * 60 + moment.minute


def next_allowed(window: Window, now: datetime) -> datetime:
    """The next moment calls are allowed, in ``now``'s zone (``now`` itself if now)."""
    if within(window, minutes_of(now)):
        return now
    start = time(window[0] // 60, window[0] % 60)
    today = datetime.combine(now.date(), start, tzinfo=now.tzinfo)
    return today if today > now else today + timedelta(days=1)


@dataclass(frozen=True)
class Refusal:
    """A call the rules forbid: which rule, in words for the reader."""

    rule: str
    """``hours``, ``frequency``, ``optout``, ``registry`` or ``blacklist`` (the audit
    log's word)."""
    message: str


def hours_refusal(window: Window, now: datetime) -> Refusal | None:
    if within(window, minutes_of(now)):
        return None
    when = next_allowed(window, now)
    day = "" if when.date() == now.date() else _(" tomorrow")
    return Refusal(
        "hours",
        _(
            "Advertising calls are allowed only {window} ({zone}); it is {now} now. "
            "Calls are next allowed at {next}{day}."
        ).format(
            window=window_words(window),
            zone=str(now.tzinfo),
            now=now.strftime("%H:%M"),
            next=when.strftime("%H:%M"),
            day=day,
        ),
    )


async def calls_in_last_day(
    cc: CallCenter,
    storage: Storage,
    team_id: str,
    phone: str,
    advertising: set[str],
    now: datetime,
) -> int:
    """Advertising calls to ``phone`` in the 24 hours before ``now``: the service's call
    records in advertising campaigns, plus pushes callops placed after the latest of
    them (the records may not show those yet; a pushed call starts after its push)."""
    since = now - timedelta(days=1)
    latest = 0.0
    count = 0
    async for record in cc.cdrs.iterate(phone=phone, start_date=to_service(since), page_size=200):
        if record.campaign_uuid not in advertising:
            continue
        count += 1
        started = parse_service_time(record.time_started, SERVICE_TZ)
        latest = max(latest, started.timestamp() if started else 0.0)
    pushes = await off_loop(
        storage.calling_rules.pushes_since, team_id, phone, now.timestamp() - DAY
    )
    return count + sum(1 for at in pushes if at > latest)


async def push_refusal(
    cc: CallCenter,
    storage: Storage,
    team_id: str,
    campaign: Campaign,
    phone: str,
    now: datetime,
    *,
    campaigns: list[Campaign] | None = None,
) -> Refusal | None:
    """Why an autocall to ``phone`` from ``campaign`` must not be placed now, or None.
    The blacklist and the opt-out list hold for every campaign, the registry for
    advertising ones (``commands/rules/lists.py``); the hours and the
    frequency for advertising ones, counted over every advertising campaign
    (``campaigns``, when the caller has read them already)."""
    if phone in await blocked_numbers(cc):
        return Refusal(
            "blacklist",
            _("{phone} is on the blacklist: it must not be called.").format(
                phone=show_phone(phone)
            ),
        )
    rules = await off_loop(storage.calling_rules.rules, team_id)
    ads = is_advertising(campaign, rules)
    listed = await list_refusal(
        storage, team_id, phone, campaign_uuid=campaign.campaign_uuid, advertising=ads
    )
    if listed is not None:
        return Refusal(listed.rule, listed.message)
    if not ads:
        return None
    refused = hours_refusal(rules.hours_of(campaign.campaign_uuid), now)
    if refused:
        return refused
    if campaigns is None:  # read only now: most pushes were settled by the checks above
        campaigns = await all_campaigns(cc)
    advertising = {c.campaign_uuid for c in campaigns if is_advertising(c, rules)}
    advertising.add(campaign.campaign_uuid)
    made = await calls_in_last_day(cc, storage, team_id, phone, advertising, now)
    if made >= rules.frequency:
        return Refusal(
            "frequency",
            ngettext(
                "{phone} already had {n} advertising call in the last 24 hours; the limit "
                "is {limit}.",
                "{phone} already had {n} advertising calls in the last 24 hours; the limit "
                "is {limit}.",
                made,
            ).format(phone=show_phone(phone), n=number(made), limit=number(rules.frequency)),
        )
    return None


DncLookup = Callable[[list[str]], Awaitable[set[str]]]
"""Which of these numbers are on the do-not-call list."""


async def dnc_for_list(
    cc: CallCenter, storage: Storage | None, team_id: str, list_uuid: str
) -> DncLookup | None:
    """The do-not-call look-up for leads going into ``list_uuid`` (None without the
    database): the opt-out list for every list, the registry too when an advertising
    campaign dials it, or no campaign names it (leads are there to be called)."""
    if storage is None:
        return None
    rules = await off_loop(storage.calling_rules.rules, team_id)
    dialers = [c for c in await all_campaigns(cc) if c.default_list_uuid == list_uuid]
    advertising = not dialers or any(is_advertising(c, rules) for c in dialers)
    uuids = [c.campaign_uuid for c in dialers]

    async def lookup(phones: list[str]) -> set[str]:
        return await refused_numbers(
            storage, team_id, phones, campaign_uuids=uuids, advertising=advertising
        )

    return lookup


async def refused_between(storage: Storage, team_id: str, start: datetime, end: datetime) -> int:
    """Calls the calling rules stopped in ``[start, end)``, for a digest."""
    return await off_loop(
        storage.audit.count, team_id, REFUSED_ACTION, start.timestamp(), end.timestamp()
    )
