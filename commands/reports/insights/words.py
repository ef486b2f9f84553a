"""The words the page and the summary share: a weekday, an hour, a KPI's value in its
unit, where a value stands against its usual band, the best hours and the staffing."""

from __future__ import annotations

from commands.kernel.i18n import N_, _
from commands.kernel.periods import WEEKDAY_SHORT, WEEKDAYS
from commands.kernel.text import campaign_label, duration, number, percent
from commands.reports.insights.model import SERVICE_LEVEL_TARGET, Insights, Staffing
from commands.reports.kpis import SERVICE_LEVEL_SECONDS
from commands.reports.usual import USUAL_KPIS, UsualBand, widths_outside
from commands.rules.guard import Window as Hours
from commands.rules.guard import window_words

KPI_NAMES = {
    "calls": N_("Calls"),
    "answer_rate": N_("Answer rate"),
    "asr": N_("ASR"),
    "acd": N_("ACD"),
    "aht": N_("AHT"),
    "abandonment": N_("Abandonment"),
    "service_level": N_("Service level"),
    "asa": N_("ASA"),
}
"""Short KPI names for the rows (``help metrics`` defines each)."""


def weekday_word(weekday: int) -> str:
    return _(WEEKDAY_SHORT[WEEKDAYS[weekday]])


def hour_label(hour: int) -> str:
    return f"{hour:02d}:00"


def show(key: str, value: float | None) -> str:
    """A KPI's value in its unit."""
    if value is None:
        return "–"
    unit = USUAL_KPIS[key].unit
    if unit == "percent":
        return percent(value)
    if unit == "seconds":
        return duration(value)
    return number(round(value, 1))


def band_words(key: str, band: UsualBand | None, value: float | None) -> str:
    """``usual 45% (38–52%) · :arrow_down: 1.2 bands below`` or why there is no band."""
    if band is None:
        return _("no usual level yet")
    usual = _("usual {value} ({low}–{high})").format(
        value=show(key, band.value), low=show(key, band.low), high=show(key, band.high)
    )
    if value is None:
        return usual
    widths = widths_outside(band, value)
    if widths < 0:
        return (
            usual
            + " · "
            + _(":arrow_down: {n} band widths below").format(n=number(round(-widths, 1)))
        )
    if widths > 0:
        return (
            usual + " · " + _(":arrow_up: {n} band widths above").format(n=number(round(widths, 1)))
        )
    return usual + " · " + _("within it")


def best_words(ins: Insights) -> str:
    """``Mon 10:00 62%, 09:00 55%`` for the day's weekday."""
    best = ins.best(ins.weekday)
    if not best:
        return ""
    hours = ", ".join(f"{hour_label(h)} {percent(rate, 0)}" for _wd, h, rate in best)
    return f"{weekday_word(ins.weekday)} {hours}"


def hours_words(window: Hours) -> str:
    """``08:00–17:00``, or ``all day`` for a window of the whole day."""
    return _("all day") if window[0] == window[1] else window_words(window)


def staffing_words(s: Staffing) -> str:
    when = (
        _("next hour ({day} {hour})") if s.next_hour else _("the usual busiest hour ({day} {hour})")
    )
    text = _(
        "{when}: usual {calls} calls, AHT {aht}: *{needed} agents* needed for {target} "
        "answered within {seconds} s"
    ).format(
        when=when.format(day=weekday_word(s.weekday), hour=hour_label(s.hour)),
        calls=number(round(s.calls, 1)),
        aht=duration(s.aht),
        needed=number(s.needed),
        target=percent(SERVICE_LEVEL_TARGET * 100, 0),
        seconds=SERVICE_LEVEL_SECONDS,
    )
    if s.ready is not None:
        text += " · " + _("{ready} free now").format(ready=number(s.ready))
    return text


def scope_words(ins: Insights) -> str:
    """The campaign's name (escaped) or the call center."""
    return campaign_label(ins.name, 100) if ins.name else _("the whole call center")
