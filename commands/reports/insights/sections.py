"""The sections of the ``insights`` page: the day against the usual, the best hours to
call, the networks and agents furthest from their usual, and the agents needed."""

from __future__ import annotations

from slack_sdk.models.blocks import Block

from commands.kernel.i18n import _
from commands.kernel.reply import section
from commands.kernel.text import clip, code, duration, escape, number, percent
from commands.reports.insights.model import MIN_AGENT_CALLS, Insights
from commands.reports.insights.words import (
    KPI_NAMES,
    band_words,
    best_words,
    hour_label,
    hours_words,
    show,
    staffing_words,
    weekday_word,
)


def now_section(ins: Insights) -> Block:
    if ins.hour is None:
        return section(_("*Against the usual*\n:zzz: No calls that day yet."))
    title = _("*Against the usual* · {day} {hour}{so_far}").format(
        day=weekday_word(ins.weekday),
        hour=hour_label(ins.hour),
        so_far=" " + _("(hour in progress)") if ins.in_progress else "",
    )
    rows = []
    for line in ins.lines:
        name = _(KPI_NAMES[line.key])
        if line.key == "calls":
            rows.append(
                _("• *{name}*: this hour *{hour}* · {band} · that day {day}").format(
                    name=name,
                    hour=show("calls", line.hour_value),
                    band=band_words("calls", line.hour_band, line.hour_value),
                    day=show("calls", line.day_value),
                )
            )
            continue
        rows.append(
            _(
                "• *{name}*: this hour *{hour}* · {band}\n      ↳ that day *{day}* · {day_band}"
            ).format(
                name=name,
                hour=show(line.key, line.hour_value),
                band=band_words(line.key, line.hour_band, line.hour_value),
                day=show(line.key, line.day_value),
                day_band=band_words(line.key, line.day_band, line.day_value),
            )
        )
    return section(title + "\n" + "\n".join(rows))


def best_sections(ins: Insights) -> list[Block]:
    title = _("*Best hours to call* · usual answer rate within the allowed hours {hours}").format(
        hours=hours_words(ins.allowed)
    )
    if not ins.grid:
        return [
            section(title + "\n" + _("No usual levels yet: too few calls in the last four weeks."))
        ]
    lines = [title]
    today = best_words(ins)
    if today:
        lines.append(
            _("• {day}: {hours}").format(
                day=weekday_word(ins.weekday), hours=today.split(" ", 1)[1]
            )
        )
    week = ins.best()
    if week:
        lines.append(
            _("• Any day: {hours}").format(
                hours=", ".join(
                    f"{weekday_word(wd)} {hour_label(h)} {percent(rate, 0)}" for wd, h, rate in week
                )
            )
        )
    hours = sorted({h for _wd, h in ins.grid})
    head = "     " + "".join(f"{weekday_word(wd)[:4]:>6}" for wd in range(7))
    grid = [head]
    for h in hours:
        cells = "".join(
            f"{(percent(ins.grid[wd, h], 0) if (wd, h) in ins.grid else '–'):>6}" for wd in range(7)
        )
        grid.append(f"{hour_label(h)}{cells}")
    return [section("\n".join(lines)), section("```\n" + "\n".join(grid) + "\n```")]


def network_section(ins: Insights) -> Block:
    title = _("*Mobile networks below their usual answer rate*")
    if not ins.networks:
        return section(title + "\n" + _("None: every network with a usual level is within it."))
    rows = [
        _("• *{name}*: {value} of {calls} calls · {band}").format(
            name=escape(n.name),
            value=percent(n.value),
            calls=number(n.calls),
            band=band_words("answer_rate", n.band, n.value),
        )
        for n in ins.networks
    ]
    return section(title + "\n" + "\n".join(rows))


def agent_section(ins: Insights) -> Block:
    title = _("*Agents furthest from the team* · team AHT {aht}, answer rate {rate}").format(
        aht=duration(ins.team.aht), rate=percent(ins.team.answer_rate)
    )
    if not ins.agents:
        return section(
            title
            + "\n"
            + _("No agent answered {n} calls or more that day.").format(n=MIN_AGENT_CALLS)
        )
    rows = [
        _("• {ext}: AHT {aht} · answer rate {rate} · {n} answered").format(
            ext=code(clip(a.extension, 30)),
            aht=duration(a.counts.aht),
            rate=percent(a.counts.answer_rate),
            n=number(a.counts.agent_answered),
        )
        for a in ins.agents
    ]
    return section(title + "\n" + "\n".join(rows))


def staffing_section(ins: Insights) -> Block:
    title = _("*Agents needed* (Erlang C)")
    if ins.staffing is None:
        return section(
            title + "\n" + _("No usual arrivals and handle time for that hour yet: too few calls.")
        )
    return section(title + "\n" + staffing_words(ins.staffing))
