"""Whether an advertising call may be made now, to this number, by Vietnam's rules.

Decree 91/2020/ND-CP allows advertising calls only within set hours, at most a set
number to one number in 24 hours, and never to a number on the do-not-call list.  These
checks run where callops places or prepares calls (an autocall push, a lead into an
advertising campaign's list, a campaign start); what does not go through callops they
cannot guard, and docs/compliance.md says so.

Every rule is read on Vietnam's clock (``DECREE_TZ``): the hours are the called
person's, whatever zone a workspace or a reader chose to see times in.

A campaign is advertising when it calls out (autocall, autodialer) and is not an OTP
autocall, unless an admin said otherwise for it (``rules advertising``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from callcenter import CallCenter
from callcenter.models import Campaign
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.periods import SERVICE_TZ, to_service
from commands.kernel.phones import blocked_numbers, show_phone
from commands.kernel.resolve import all_campaigns
from commands.kernel.text import day, number, parse_service_time, zone_name
from commands.rules.lists import list_refusal, refused_numbers
from storage import Storage
from storage.calling_rules import (
    DAY,
    DEFAULT_FREQUENCY,
    DEFAULT_HOURS,
    CallingRules,
    SetBy,
)
from storage.offload import off_loop

OUTBOUND_TYPES = frozenset({"autocall", "autodialer"})
OTP_AUTOCALL = "autocall_voice_otp"
REFUSED_ACTION = "calling_rules.refused"
"""The audit log's action for a call the calling rules stopped (digests count them)."""
DECREE_TZ = ZoneInfo("Asia/Ho_Chi_Minh")
"""The decree's clock: the called person's, in Vietnam (never a display setting)."""
DECREE = N_("Decree 91/2020/ND-CP")
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


def in_vietnam(moment: datetime) -> datetime:
    """``moment`` on the decree's clock: the called person's, in Vietnam, whatever zone
    the workspace or the reader displays."""
    return moment.astimezone(DECREE_TZ)


def decree() -> str:
    return _(DECREE)


def moment_words(when: datetime, now: datetime) -> str:
    """``08:00 today``, ``08:00 tomorrow`` or ``08:00 Thu 3 Dec``: ``when`` in its own
    zone, its day said against ``now`` seen in that zone."""
    days = (when.date() - now.astimezone(when.tzinfo).date()).days
    hhmm = when.strftime("%H:%M")
    if days == 0:
        return _("{time} today").format(time=hhmm)
    if days == 1:
        return _("{time} tomorrow").format(time=hhmm)
    return _("{time} {day}").format(time=hhmm, day=day(when))


def next_words(when: datetime, now: datetime, reader: ZoneInfo | None) -> str:
    """The next allowed moment for the reader: in their zone, with Vietnam's beside it
    when the two clocks differ (``20:00 today EST (08:00 tomorrow, Vietnam time)``)."""
    vietnam = in_vietnam(when)
    if reader is None or when.astimezone(reader).utcoffset() == vietnam.utcoffset():
        return _("{when} (Vietnam time)").format(when=moment_words(vietnam, now))
    local = when.astimezone(reader)
    return _("{when} {zone} ({vietnam}, Vietnam time)").format(
        when=moment_words(local, now),
        zone=zone_name(local),
        vietnam=moment_words(vietnam, now),
    )


DECREE_HOURS: Window = DEFAULT_HOURS
"""08:00-17:00: the decree's hours for advertising calls (Article 13), unless agreed
otherwise with the person called."""
DECREE_FREQUENCY = DEFAULT_FREQUENCY
"""One advertising call to a number in 24 hours (Article 13), unless agreed otherwise."""
LOOSER = N_("looser than Decree 91")


def hours_looser(window: Window) -> bool:
    """Whether ``window`` allows calls at any minute the decree's hours do not."""
    start, end = window
    return not (start < end and start >= DECREE_HOURS[0] and end <= DECREE_HOURS[1])


def frequency_looser(frequency: int) -> bool:
    return frequency > DECREE_FREQUENCY


def looser_settings(rules: CallingRules) -> list[tuple[str, str, SetBy | None]]:
    """The workspace's settings beyond the decree: which (``hours``, ``frequency`` or a
    campaign's ``hours:<uuid>``), its value in words, and who set it."""
    found: list[tuple[str, str, SetBy | None]] = []
    if hours_looser(rules.hours):
        found.append(("hours", window_words(rules.hours), rules.hours_set))
    if frequency_looser(rules.frequency):
        found.append(("frequency", str(rules.frequency), rules.frequency_set))
    for uuid, own in sorted((rules.campaigns or {}).items()):
        if own.hours is not None and hours_looser(own.hours):
            found.append((f"hours:{uuid}", window_words(own.hours), own.hours_set))
    return found


def decree_allows() -> str:
    """What the decree allows, in words for a confirm or a mark."""
    return _(
        "{decree} allows advertising calls only {window} (Vietnam time), at most {n} to "
        "one number in 24 hours."
    ).format(decree=decree(), window=window_words(DECREE_HOURS), n=number(DECREE_FREQUENCY))


@dataclass(frozen=True)
class Refusal:
    """A call the rules forbid: which rule, in words for the reader."""

    rule: str
    """``hours``, ``frequency``, ``optout``, ``registry`` or ``blacklist`` (the audit
    log's word)."""
    message: str
    until: datetime | None = None
    """When the rule next allows the call (None: not until a list changes)."""


def hours_refusal(window: Window, now: datetime, reader: ZoneInfo | None = None) -> Refusal | None:
    """The hours rule, read on Vietnam's clock (``now`` may be in any zone)."""
    vietnam = in_vietnam(now)
    if within(window, minutes_of(vietnam)):
        return None
    when = next_allowed(window, vietnam)
    return Refusal(
        "hours",
        _(
            "Calling hours ({decree}): advertising calls are allowed only {window}, "
            "Vietnam time; it is {now} there now. Calls are next allowed at {next}."
        ).format(
            decree=decree(),
            window=window_words(window),
            now=vietnam.strftime("%H:%M"),
            next=next_words(when, now, reader),
        ),
        when,
    )


def frequency_next(times: list[float], limit: int, window: Window, now: datetime) -> datetime:
    """When one more advertising call fits: once enough of the counted calls (``times``,
    seconds) are 24 hours old, and within the hours."""
    counted = sorted(times)
    frees = counted[len(counted) - limit] + DAY if len(counted) >= limit else now.timestamp()
    moment = datetime.fromtimestamp(max(frees, now.timestamp()), DECREE_TZ)
    return next_allowed(window, moment)


def frequency_refusal(
    phone: str,
    times: list[float],
    limit: int,
    window: Window,
    now: datetime,
    reader: ZoneInfo | None,
) -> Refusal:
    made = len(times)
    when = frequency_next(times, limit, window, now)
    return Refusal(
        "frequency",
        ngettext(
            "Calls per number ({decree}): {phone} already had {n} advertising call in the "
            "last 24 hours; the limit is {limit}. It may be called again at {next}.",
            "Calls per number ({decree}): {phone} already had {n} advertising calls in the "
            "last 24 hours; the limit is {limit}. It may be called again at {next}.",
            made,
        ).format(
            decree=decree(),
            phone=show_phone(phone),
            n=number(made),
            limit=number(limit),
            next=next_words(when, now, reader),
        ),
        when,
    )


@dataclass(frozen=True)
class Counted:
    """The advertising calls to a number in the 24 hours before a moment."""

    records: list[float]
    """Start times of the service's call records in advertising campaigns."""
    latest: float
    """The latest of them (0 without any): callops' pushes before it are in the records."""
    pushes: list[float]
    """callops' pushes (and held slots) after ``latest``."""

    @property
    def times(self) -> list[float]:
        return sorted(self.records + self.pushes)


async def records_in_last_day(
    cc: CallCenter, phone: str, advertising: set[str], now: datetime
) -> tuple[list[float], float]:
    """The service's call records of advertising campaigns to ``phone`` in the 24 hours
    before ``now``: their start times, and the latest."""
    since = now - timedelta(days=1)
    times: list[float] = []
    async for record in cc.cdrs.iterate(phone=phone, start_date=to_service(since), page_size=200):
        if record.campaign_uuid not in advertising:
            continue
        started = parse_service_time(record.time_started, SERVICE_TZ)
        times.append(started.timestamp() if started else now.timestamp())
    return times, max(times, default=0.0)


async def calls_in_last_day(
    cc: CallCenter,
    storage: Storage,
    team_id: str,
    phone: str,
    advertising: set[str],
    now: datetime,
) -> Counted:
    """Advertising calls to ``phone`` in the 24 hours before ``now``: the service's call
    records in advertising campaigns, plus pushes callops placed (or holds a slot for)
    after the latest of them (the records may not show those yet; a pushed call starts
    after its push)."""
    records, latest = await records_in_last_day(cc, phone, advertising, now)
    pushes = await off_loop(
        storage.calling_rules.pushes_since, team_id, phone, now.timestamp() - DAY
    )
    return Counted(records, latest, [at for at in pushes if at > latest])


def blacklist_refusal(phone: str) -> Refusal:
    return Refusal(
        "blacklist",
        _("{phone} is on the blacklist: it must not be called.").format(phone=show_phone(phone)),
    )


async def on_do_not_call(
    storage: Storage, team_id: str, phones: list[str], *, advertising: bool = True
) -> set[str]:
    """Which of ``phones`` the lists forbid for a call of any campaign (the opt-out list)
    or, ``advertising``, of an advertising one no campaign-wide consent covers (the
    registry too): ``commands/rules/lists.py`` reads them."""
    return await refused_numbers(
        storage, team_id, phones, campaign_uuids=(), advertising=advertising
    )


PASSED = "pass"
FAIL = "fail"
SKIPPED = "not checked"
NOT_APPLICABLE = "not applicable"
RULES = ("blacklist", "dnc", "hours", "frequency")
"""Every rule a gate decision records, in the order they are checked."""


@dataclass
class Decision:
    """What the gate decided for one call: each rule's result, the refusal if any, and
    the frequency slot it holds (released unless the call is placed)."""

    campaign: Campaign
    phone: str
    advertising: bool
    results: dict[str, str]
    refusal: Refusal | None = None
    slot: int | None = None

    @property
    def klass(self) -> str:
        return "advertising" if self.advertising else "service"


async def decide(
    cc: CallCenter,
    storage: Storage,
    team_id: str,
    campaign: Campaign,
    phone: str,
    now: datetime,
    *,
    reader: ZoneInfo | None = None,
    campaigns: list[Campaign] | None = None,
    claim: bool = False,
) -> Decision:
    """Whether an autocall to ``phone`` from ``campaign`` may be placed now.  The
    blacklist and the do-not-call list hold for every campaign; the hours and the
    frequency for advertising ones, counted over every advertising campaign
    (``campaigns``, when the caller has read them already).  With ``claim``, an
    advertising call that passes holds its place in the 24-hour window in the database
    (``Decision.slot``) before the service is called: two pushes at once cannot both
    take the last place."""
    rules = await off_loop(storage.calling_rules.rules, team_id)
    advertising = is_advertising(campaign, rules)
    results = {rule: SKIPPED for rule in RULES}
    if not advertising:
        results["hours"] = results["frequency"] = NOT_APPLICABLE
    made = Decision(campaign, phone, advertising, results)
    blocked = phone in await blocked_numbers(cc)
    results["blacklist"] = FAIL if blocked else PASSED
    if blocked:
        made.refusal = blacklist_refusal(phone)
        return made
    listed = await list_refusal(
        storage, team_id, phone, campaign_uuid=campaign.campaign_uuid, advertising=advertising
    )
    results["dnc"] = FAIL if listed else PASSED
    if listed:
        made.refusal = Refusal(listed.rule, listed.message)
        return made
    if not advertising:
        return made
    window = rules.hours_of(campaign.campaign_uuid)
    refused = hours_refusal(window, now, reader)
    results["hours"] = FAIL if refused else PASSED
    if refused:
        made.refusal = refused
        return made
    if campaigns is None:  # read only now: most pushes were settled by the checks above
        campaigns = await all_campaigns(cc)
    kinds = {c.campaign_uuid for c in campaigns if is_advertising(c, rules)}
    kinds.add(campaign.campaign_uuid)
    counted = await calls_in_last_day(cc, storage, team_id, phone, kinds, now)
    if claim and len(counted.records) < rules.frequency:
        made.slot = await off_loop(
            storage.calling_rules.claim_slot,
            team_id,
            phone,
            campaign.campaign_uuid,
            limit=rules.frequency - len(counted.records),
            after=counted.latest,
        )
        if made.slot is None:  # another push took the place meanwhile: count again
            counted = await calls_in_last_day(cc, storage, team_id, phone, kinds, now)
    full = made.slot is None and (claim or len(counted.times) >= rules.frequency)
    results["frequency"] = FAIL if full else PASSED
    if full:
        made.refusal = frequency_refusal(phone, counted.times, rules.frequency, window, now, reader)
    return made


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


async def looser_words(storage: Storage, team_id: str) -> tuple[str, ...]:
    """The settings beyond the decree, in words for a digest's rules line."""
    rules = await off_loop(storage.calling_rules.rules, team_id)
    words: list[str] = []
    for rule, value, _set_by in looser_settings(rules):
        if rule == "hours":
            words.append(_("hours {window}").format(window=value))
        elif rule == "frequency":
            words.append(_("{n} calls to one number in 24 hours").format(n=value))
        else:
            words.append(_("a campaign's own hours {window}").format(window=value))
    return tuple(words)


async def refused_between(storage: Storage, team_id: str, start: datetime, end: datetime) -> int:
    """Calls the calling rules stopped in ``[start, end)``, for a digest."""
    return await off_loop(
        storage.audit.count, team_id, REFUSED_ACTION, start.timestamp(), end.timestamp()
    )
