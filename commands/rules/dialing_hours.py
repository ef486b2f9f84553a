"""A campaign's own dialing hours, held against the calling rules' hours.

The service dials an outbound campaign within its ``local_start_time``-``local_end_time``
and, day by day, within its ``schedules`` (nanoseconds since midnight, spec 8.5).  When
those reach outside the hours advertising calls are allowed, starting the campaign as it
is would break the rules; the start request then carries the hours brought inside the
allowed window (``HoursFix``), and its approval starts the campaign with them in one PUT.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from callcenter.models import Campaign
from commands.kernel.actions import ActionParams
from commands.kernel.i18n import _
from commands.kernel.periods import WEEKDAY_SHORT, WEEKDAYS
from commands.kernel.text import escape
from commands.rules.guard import Window, clock, decree, window_words, within

NS_PER_MINUTE = 60 * 1_000_000_000
DAYS = WEEKDAYS


class DayChange(ActionParams):
    day: str
    was: tuple[int, int]
    now: tuple[int, int] | None
    """None: no dialing that day any more (nothing of it was inside the hours)."""


class HoursFix(ActionParams):
    """The campaign's dialing hours brought inside the allowed window."""

    window: tuple[int, int]
    local_was: tuple[str, str] | None = None
    local: tuple[str, str] | None = None
    days: tuple[DayChange, ...] = ()
    schedules: list[dict[str, int]] | None = None
    """Every schedule as it will be sent (only when a day changed)."""

    def changes(self) -> dict[str, Any]:
        """The fields to send with the start."""
        fields: dict[str, Any] = {}
        if self.local is not None:
            fields["local_start_time"], fields["local_end_time"] = self.local
        if self.schedules is not None:
            fields["schedules"] = self.schedules
        return fields


def _minutes(text: str) -> int | None:
    """``HH:MM`` or ``HH:MM:SS`` as minutes after midnight; None when it is not one."""
    parts = text.strip().split(":")
    if len(parts) < 2 or not all(p.isdigit() for p in parts):
        return None
    hours, minutes = int(parts[0]), int(parts[1])
    return hours * 60 + minutes if hours < 24 and minutes < 60 else None


def _service_time(minutes: int) -> str:
    return f"{clock(minutes)}:00"


def _inside(window: Window, start: int, end: int) -> bool:
    w_start, w_end = window
    return w_start <= start and end <= w_end


def _clip(window: Window, start: int, end: int) -> tuple[int, int] | None:
    clipped = (max(start, window[0]), min(end, window[1]))
    return clipped if clipped[0] < clipped[1] else None


def hours_fix(campaign: Campaign, window: Window) -> HoursFix | None:
    """The campaign's dialing hours brought inside ``window``, or None when they are
    inside already (or the window crosses midnight or spans the day: nothing to clip)."""
    if window[0] >= window[1]:
        return None
    local_was: tuple[str, str] | None = None
    local: tuple[str, str] | None = None
    start, end = _minutes(campaign.local_start_time), _minutes(campaign.local_end_time)
    has_days = any(
        (day.model_dump(mode="json").get(f"{name}_end_time") or 0) > 0
        for day in campaign.schedules or []
        for name in DAYS
    )
    if start is None or end is None or start >= end:
        if not has_days:  # no hours of its own: it would dial whenever it runs
            local_was = ("00:00", "24:00")
            local = (_service_time(window[0]), _service_time(window[1]))
    elif not _inside(window, start, end):
        clipped = _clip(window, start, end) or window
        local_was = (clock(start), clock(end))
        local = (_service_time(clipped[0]), _service_time(clipped[1]))
    schedules: list[dict[str, int]] = []
    days: list[DayChange] = []
    for schedule in campaign.schedules or []:
        wire = schedule.model_dump(mode="json")
        for day in DAYS:
            day_start = int(wire.get(f"{day}_start_time") or 0) // NS_PER_MINUTE
            day_end = int(wire.get(f"{day}_end_time") or 0) // NS_PER_MINUTE
            if day_start >= day_end or _inside(window, day_start, day_end):
                continue
            inside = _clip(window, day_start, day_end)
            days.append(DayChange(day=day, was=(day_start, day_end), now=inside))
            wire[f"{day}_start_time"] = (inside[0] if inside else 0) * NS_PER_MINUTE
            wire[f"{day}_end_time"] = (inside[1] if inside else 0) * NS_PER_MINUTE
        schedules.append(wire)
    if local is None and not days:
        return None
    return HoursFix(
        window=window,
        local_was=local_was,
        local=local,
        days=tuple(days),
        schedules=schedules if days else None,
    )


def describe_fix(fix: HoursFix) -> str:
    """The change, before → after, for the request's card."""
    lines = [
        _(
            ":scales: Its dialing hours reach outside the calling hours ({window}, Vietnam "
            "time, {decree}); approving starts it with them brought inside:"
        ).format(window=window_words(fix.window), decree=decree())
    ]
    if fix.local is not None and fix.local_was is not None:
        lines.append(
            _("• every day: {was} → {now}").format(
                was="–".join(fix.local_was), now="–".join(t[:5] for t in fix.local)
            )
        )
    for change in fix.days[:14]:
        now = window_words(change.now) if change.now else _("no calls")
        lines.append(
            _("• {day}: {was} → {now}").format(
                day=_(WEEKDAY_SHORT[change.day]), was=window_words(change.was), now=now
            )
        )
    return "\n".join(lines)


def asked_outside(window: Window, now: datetime) -> str | None:
    """``14:27`` (Vietnam's clock, as the warning says) when a start is asked for outside
    the calling hours, else None (kept with the request, so its card can say so whatever
    the time, in the card's language)."""
    if within(window, now.hour * 60 + now.minute):
        return None
    return now.strftime("%H:%M")


def asked_clock(asked_at: str) -> str:
    """The clock time of a stored ``asked_at``: requests kept before it was written
    without its zone carry ``14:27 Asia/Ho_Chi_Minh``, a zone the warning already names in
    the reader's words."""
    return asked_at.split(" ", 1)[0]


def outside_warning(window: Window, asked_at: str) -> str:
    return _(
        ":warning: Calling hours ({decree}): asked at {asked}, outside {window} Vietnam "
        "time; the campaign dials only within its dialing hours, from {start} Vietnam time."
    ).format(
        decree=decree(),
        asked=escape(asked_clock(asked_at)),
        window=window_words(window),
        start=clock(window[0]),
    )
