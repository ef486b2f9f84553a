"""When a digest goes out, and which stretch of time each post covers.

``<when>`` is ``daily HH:MM``, ``weekdays HH:MM``, ``weekly <day> HH:MM``, ``hourly`` or a
five-field cron expression.  Every form becomes one crontab line with cron's own weekday
numbers (0 or 7 = Sunday) and, from that, an APScheduler ``CronTrigger`` in the digest's
time zone: the same trigger the scheduler fires on, so "08:00 in New York" stays 08:00
across daylight-saving changes.  (APScheduler 3 numbers weekdays from Monday = 0 in
``from_crontab``; the weekday field is translated to names here so cron's numbering holds.)

A post covers the time since the previous slot of the same schedule, up to its own slot:
no call is counted in two digests and none falls between two.  The daily 08:00 digest
holds yesterday 08:00 to today 08:00, the Monday post of a weekday digest the whole
weekend with Friday.  The change is reported against the period the previous post covered.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger

from commands.kernel.i18n import N_, _
from commands.kernel.matching import did_you_mean, fold
from commands.kernel.periods import Window, span_words

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
"""APScheduler's weekday names, Monday first."""
_DAY_WORDS = {
    **{d: d for d in DAYS},
    "monday": "mon",
    "tuesday": "tue",
    "wednesday": "wed",
    "thursday": "thu",
    "friday": "fri",
    "saturday": "sat",
    "sunday": "sun",
    "tues": "tue",
    "thur": "thu",
    "thurs": "thu",
}
_VI_DAY_WORDS = {
    "t2": "mon", "thu hai": "mon", "t3": "tue", "thu ba": "tue", "t4": "wed", "thu tu": "wed",
    "t5": "thu", "thu nam": "thu", "t6": "fri", "thu sau": "fri", "t7": "sat",
    "thu bay": "sat", "cn": "sun", "chu nhat": "sun",
}  # fmt: skip
"""The days as a Vietnamese reader types them, folded (``T2``, ``thứ-hai``, ``CN``)."""
SCHEDULE_ALIASES = {
    "hang ngay": "daily",
    "ngay lam viec": "weekdays",
    "t2 t6": "weekdays",
    "hang tuan": "weekly",
    "hang gio": "hourly",
}
"""The schedule words as a Vietnamese reader types them, folded (``hang-ngay 08:00``);
the stored schedule keeps the English words."""
_CRON_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
"""Cron's weekday numbering: 0 (and 7) is Sunday."""
_WEEKLY_WORDS = {
    "mon": N_("Mondays at {time}"),
    "tue": N_("Tuesdays at {time}"),
    "wed": N_("Wednesdays at {time}"),
    "thu": N_("Thursdays at {time}"),
    "fri": N_("Fridays at {time}"),
    "sat": N_("Saturdays at {time}"),
    "sun": N_("Sundays at {time}"),
}
"""A weekly schedule in words, per day (translated where it is shown)."""

WHEN_USAGE = "daily HH:MM | weekdays HH:MM | weekly <day> HH:MM | hourly | <cron: m h dom mon dow>"
MIN_GAP = timedelta(hours=1)
"""Digests go out at most once an hour: more often is a feed, not a digest."""
_HHMM = re.compile(r"^(\d{1,2}):(\d{2})$")
_CRON_FIELD = re.compile(r"^[\d*/,\-]+$")
_CRON_DOW = re.compile(r"^[\w*/,\-]+$")
_LOOKBACKS = (
    timedelta(hours=2),
    timedelta(days=2),
    timedelta(days=8),
    timedelta(days=32),
    timedelta(days=367),
    timedelta(days=4 * 366),
)


class ScheduleError(ValueError):
    """What was typed is no schedule; the message says what would be."""


@dataclass(frozen=True)
class Schedule:
    text: str
    """The stored form: ``daily 08:00``, ``weekly mon 08:00``, ``hourly``, ``cron 0 8 * * 1-5``."""
    cron: str
    """The same as a crontab line (cron's weekday numbers)."""

    def describe(self) -> str:
        """For people: ``every day at 08:00``, ``Mondays at 08:00``, ``cron 0 8 * * 1-5``."""
        words = self.text.split()
        kind = words[0]
        if kind == "daily":
            return _("every day at {time}").format(time=words[1])
        if kind == "weekdays":
            return _("weekdays at {time}").format(time=words[1])
        if kind == "weekly":
            return _(_WEEKLY_WORDS[words[1]]).format(time=words[2])
        if kind == "hourly":
            return _("every hour")
        return f"cron {' '.join(words[1:])}"


def _hhmm(text: str) -> tuple[int, int]:
    match = _HHMM.match(text.strip())
    if not match:
        raise ScheduleError(
            _("'{text}' is not a time of day; write it as HH:MM, e.g. 08:00.").format(text=text)
        )
    hour, minute = int(match.group(1)), int(match.group(2))
    if hour > 23 or minute > 59:
        raise ScheduleError(
            _("'{text}' is not a time of day (hours 00-23, minutes 00-59).").format(text=text)
        )
    return hour, minute


def _folded(word: str) -> str:
    """A typed word as the Vietnamese tables hold it: folded, hyphens as spaces."""
    return " ".join(fold(word).replace("-", " ").replace("–", " ").split())


def _day(text: str) -> str:
    day = _DAY_WORDS.get(text.strip().lower()) or _VI_DAY_WORDS.get(_folded(text))
    if day is None:
        raise ScheduleError(
            _("'{text}' is not a day of the week; use mon, tue, … sun.").format(text=text)
        )
    return day


def _expand_dow_item(item: str) -> set[int]:
    """One comma item of cron's weekday field as cron numbers 0-6 (Sunday 0)."""
    base, _slash, step_text = item.partition("/")
    step = 1
    if step_text:
        if not step_text.isdigit() or int(step_text) == 0:
            raise ScheduleError(_("'{item}' is not a weekday step.").format(item=item))
        step = int(step_text)

    def number(word: str) -> int:
        lowered = word.lower()
        if lowered.isdigit() and 0 <= int(lowered) <= 7:
            return int(lowered) % 7 if int(lowered) == 7 else int(lowered)
        name = _DAY_WORDS.get(lowered)
        if name is None:
            raise ScheduleError(_("'{word}' is not a weekday (0-7 or mon-sun).").format(word=word))
        return _CRON_DAY_NAMES.index(name)

    if base == "*":
        first, last = 0, 6
    elif "-" in base:
        start_text, _dash, end_text = base.partition("-")
        first = number(start_text)
        last = 7 if end_text.strip() == "7" else number(end_text)
        if last < first:
            raise ScheduleError(
                _("'{item}' is a weekday range that runs backwards.").format(item=item)
            )
    else:
        first = last = number(base)
    return {value % 7 for value in range(first, last + 1, step)}


def _dow_names(field: str) -> str:
    if field == "*":
        return "*"
    days: set[int] = set()
    for item in field.split(","):
        if not item:
            raise ScheduleError(_("'{field}' is not a weekday field.").format(field=field))
        days |= _expand_dow_item(item)
    # Monday-first order, as APScheduler names them.
    return ",".join(DAYS[(d - 1) % 7] for d in sorted(days, key=lambda d: (d - 1) % 7))


def cron_trigger(cron: str, tz: ZoneInfo) -> CronTrigger:
    """The APScheduler trigger of a crontab line, in ``tz``, with cron's weekday numbers."""
    fields = cron.split()
    if len(fields) != 5:
        raise ScheduleError(
            _("a cron expression has 5 fields (m h dom mon dow), not {count}.").format(
                count=len(fields)
            )
        )
    minute, hour, day, month, dow = fields
    try:
        return CronTrigger(
            minute=minute,
            hour=hour,
            day=day,
            month=month,
            day_of_week=_dow_names(dow),
            timezone=tz,
        )
    except ValueError as exc:
        raise ScheduleError(
            _("'{cron}' is not a cron expression I can read ({problem}).").format(
                cron=cron, problem=exc
            )
        ) from exc


def _check_frequency(cron: str) -> None:
    trigger = cron_trigger(cron, ZoneInfo("UTC"))
    reference = datetime(2030, 1, 1, tzinfo=UTC)
    fires = list(_fires(trigger, reference, reference + timedelta(days=8), limit=400))
    if not fires:
        upcoming = trigger.get_next_fire_time(None, reference)
        if upcoming is None or upcoming - reference > timedelta(days=4 * 366):
            raise ScheduleError(_("'{cron}' never fires.").format(cron=cron))
        return
    for earlier, later in itertools.pairwise(fires):
        if later - earlier < MIN_GAP:
            raise ScheduleError(
                _("'{cron}' fires more than once an hour; digests go out at most hourly.").format(
                    cron=cron
                )
            )


def _schedule(text: str, cron: str) -> Schedule:
    return Schedule(text=text, cron=cron)


def parse_when(tokens: list[str]) -> tuple[Schedule, list[str]]:
    """The ``<when>`` at the front of ``tokens``, and the words after it; refused if it
    fires more than hourly or never."""
    schedule, rest = _parse(tokens)
    _check_frequency(schedule.cron)
    return schedule, rest


def _parse(tokens: list[str]) -> tuple[Schedule, list[str]]:
    if not tokens:
        raise ScheduleError(_("Say when the digest goes out: {usage}.").format(usage=WHEN_USAGE))
    head, rest = tokens[0].lower(), tokens[1:]
    for size in (3, 2, 1):  # "hằng ngày", "ngày làm việc" typed as separate words
        english = SCHEDULE_ALIASES.get(_folded(" ".join(tokens[:size])))
        if english is not None and len(tokens) >= size:
            head, rest = english, tokens[size:]
            break
    if head in ("daily", "weekdays"):
        if not rest:
            raise ScheduleError(_("'{word}' needs a time, e.g. {word} 08:00.").format(word=head))
        hour, minute = _hhmm(rest[0])
        dow = "*" if head == "daily" else "1-5"
        return _schedule(f"{head} {hour:02d}:{minute:02d}", f"{minute} {hour} * * {dow}"), rest[1:]
    if head == "weekly":
        if len(rest) < 2:
            raise ScheduleError(_("'weekly' needs a day and a time, e.g. weekly mon 08:00."))
        day = _day(rest[0])
        hour, minute = _hhmm(rest[1])
        number = _CRON_DAY_NAMES.index(day)
        return (
            _schedule(f"weekly {day} {hour:02d}:{minute:02d}", f"{minute} {hour} * * {number}"),
            rest[2:],
        )
    if head == "hourly":
        return _schedule("hourly", "0 * * * *"), rest
    if head == "cron":
        return _cron(rest)
    return _cron(tokens)


SCHEDULE_WORDS = ("daily", "weekdays", "weekly", "hourly", "cron")
"""The words a schedule starts with (a typo of one is answered with the right one)."""


def _cron(tokens: list[str]) -> tuple[Schedule, list[str]]:
    if tokens and " " in tokens[0].strip():
        fields, rest = tokens[0].split(), tokens[1:]
    else:
        fields, rest = tokens[:5], tokens[5:]
    if (
        len(fields) != 5
        or not all(_CRON_FIELD.match(f) for f in fields[:4])
        or not _CRON_DOW.match(fields[4])
    ):
        shown = " ".join(tokens[:5]) or _("nothing")
        head = tokens[0].split()[0] if tokens and tokens[0].split() else ""
        raise ScheduleError(
            _("'{text}' is not a schedule; write {usage}.").format(text=shown, usage=WHEN_USAGE)
            + (did_you_mean(head, SCHEDULE_WORDS) if head and not head[0].isdigit() else "")
        )
    cron = " ".join(fields)
    cron_trigger(cron, ZoneInfo("UTC"))
    return _schedule(f"cron {cron}", cron), rest


@functools.lru_cache(maxsize=4096)
def parse_schedule(text: str) -> Schedule:
    """A stored schedule back into its parts (the same grammar as typed; it was checked
    when it was stored)."""
    schedule, rest = _parse(text.split())
    if rest:
        raise ScheduleError(_("'{text}' has words after the schedule.").format(text=text))
    return schedule


def trigger_for(text: str, tz: ZoneInfo | str) -> CronTrigger:
    """The trigger of a stored schedule in ``tz``; triggers are read-only, so one is shared
    by every digest with the same schedule and zone."""
    return _trigger(text, tz.key if isinstance(tz, ZoneInfo) else tz)


@functools.lru_cache(maxsize=4096)
def _trigger(text: str, zone: str) -> CronTrigger:
    return cron_trigger(parse_schedule(text).cron, ZoneInfo(zone))


# --- fire times -------------------------------------------------------------------------


def _fires(
    trigger: CronTrigger, start: datetime, end: datetime, *, limit: int = 100_000
) -> Iterator[datetime]:
    """Fire times in [start, end], oldest first."""
    moment = trigger.get_next_fire_time(None, start)
    count = 0
    while moment is not None and moment <= end and count < limit:
        yield moment
        count += 1
        moment = trigger.get_next_fire_time(None, moment + timedelta(microseconds=1))


def latest_fire(trigger: CronTrigger, at: datetime) -> datetime | None:
    """The last fire time at or before ``at`` (looking back up to four years)."""
    for span in _LOOKBACKS:
        last = None
        for moment in _fires(trigger, at - span, at):
            last = moment
        if last is not None:
            return last
    return None


def next_fire(trigger: CronTrigger, after: datetime) -> datetime | None:
    """The first fire time strictly after ``after``."""
    found: datetime | None = trigger.get_next_fire_time(None, after + timedelta(microseconds=1))
    return found


@dataclass(frozen=True)
class DigestPeriod:
    start: datetime
    """Aware, in the digest's zone; included."""
    end: datetime
    """Excluded: the slot itself (or, up to now, the moment it was asked for)."""
    previous_start: datetime
    """The period the change is reported against starts here ..."""
    tz: ZoneInfo
    previous_end: datetime | None = None
    """... and ends here (excluded); None: at ``start``, the whole previous period.  A
    period up to now is compared with the same stretch of the previous one."""

    @property
    def seconds(self) -> float:
        """Elapsed seconds (23 h over a spring-forward night): aware datetimes of one zone
        subtract as wall-clock times, so this goes through timestamps."""
        return self.end.timestamp() - self.start.timestamp()

    @property
    def interval(self) -> str:
        """The chart's bucket: hours for up to two days, days beyond."""
        return "hour" if self.seconds <= 2 * 86400 else "day"

    @property
    def previous_until(self) -> datetime:
        return self.previous_end or self.start

    def window(self) -> Window:
        return Window(self.start, self.end)

    def label(self) -> str:
        return span_words(self.start, self.end)

    def previous_label(self) -> str:
        return span_words(self.previous_start, self.previous_until)

    def service_bounds(self) -> tuple[datetime, datetime]:
        """Inclusive bounds to the second, as the service reads them."""
        return self.window().service_bounds()


def period_for_slot(trigger: CronTrigger, slot: datetime, tz: ZoneInfo) -> DigestPeriod:
    """The stretch a post at ``slot`` covers: from the previous slot to this one."""
    end = slot.astimezone(tz)
    start = latest_fire(trigger, end - timedelta(microseconds=1))
    if start is None:
        start = end - timedelta(days=1)
    start = start.astimezone(tz)
    previous = latest_fire(trigger, start - timedelta(microseconds=1))
    previous_start = (previous or start - (end - start)).astimezone(tz)
    return DigestPeriod(start=start, end=end, previous_start=previous_start, tz=tz)


def period_up_to(trigger: CronTrigger, now: datetime, tz: ZoneInfo) -> DigestPeriod:
    """From the schedule's latest slot up to ``now`` (``Up to now``), compared with the
    same stretch of the period before; at a slot itself, the period that just ended.
    ``now``'s own second is in the period (its end, excluded, is the next second), as it
    is in ``today``: a call that started this second counts."""
    end = now.astimezone(tz).replace(microsecond=0) + timedelta(seconds=1)
    slot = latest_fire(trigger, end)
    if slot is None or slot.timestamp() >= end.timestamp():
        return period_for_slot(trigger, slot or end, tz)
    start = slot.astimezone(tz)
    before = latest_fire(trigger, start - timedelta(microseconds=1))
    length = end.timestamp() - start.timestamp()
    previous_start = (before or start - timedelta(seconds=length)).astimezone(tz)
    previous_end = datetime.fromtimestamp(
        min(previous_start.timestamp() + length, start.timestamp()), tz
    )
    return DigestPeriod(
        start=start, end=end, previous_start=previous_start, tz=tz, previous_end=previous_end
    )


def slot_key(slot: datetime) -> str:
    """How a slot is recorded in storage: the UTC instant, unique across DST changes."""
    return slot.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
