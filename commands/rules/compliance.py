"""``compliance [today|yesterday|week|month|DD/MM/YYYY-DD/MM/YYYY]``: what an inspector asks.

For the period: the advertising calls asked for through callops and how each ended,
the refusals by rule, the settings looser than Decree 91/2020/ND-CP and who set them,
and (where the other parts of the rules keep them) the calls the service placed against
the rules and what the do-not-call lists held.  Export sends the asker, by direct
message, a CSV with one row per gate decision: the evidence itself.

The figures come from the gate's log (``storage.gate_log``), written where the decision
was taken (``commands.calls.autocall``); this module only reads.
"""

from __future__ import annotations

import csv
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from pydantic import Field
from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, HeaderBlock

from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.interactions import Click
from commands.kernel.periods import PeriodError, parse_period, span_words
from commands.kernel.phones import show_phone
from commands.kernel.reply import Outcome, Reply, context_line, error, notice, section
from commands.kernel.text import day_time, mention, number, truncate, zone_name
from commands.kernel.values import Value, read
from commands.rules.guard import DECREE_TZ, RULES, decree, looser_settings
from commands.rules.manage import looser_line
from commands.rules.watch import placed_against_rules
from storage import Storage
from storage.call_lists import CALL, KEY, TYPED
from storage.gate_log import GateDecision, RuleChange
from storage.offload import off_loop

EXPORT = "compliance_export"
_RANGE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})\s*[-–]\s*(\d{1,2})/(\d{1,2})/(\d{4})$")
MAX_DAYS = 366
RULE_NAMES = {
    "blacklist": N_("blacklist"),
    "dnc": N_("do-not-call list"),
    "optout": N_("company opt-out list"),
    "registry": N_("national Do Not Advertise registry"),
    "hours": N_("calling hours"),
    "frequency": N_("calls per number"),
}
REFUSAL_RULES = ("blacklist", "optout", "registry", "hours", "frequency")
"""The rules a refusal names (the lists by their own names), in the report's order."""
CSV_HEADER = (
    "time",
    "number",
    "campaign",
    "campaign_uuid",
    "class",
    *(f"rule_{rule}" for rule in RULES),
    "outcome",
    "refused_by",
    "request",
    "requester",
    "approvers",
)


@dataclass(frozen=True)
class Span:
    """The period asked for: ``[start, end)`` in the reader's zone, and its words."""

    start: datetime
    end: datetime
    label: str


def parse_span(args: list[str], tz: ZoneInfo, now: datetime) -> Span:
    text = " ".join(args).strip()
    match = _RANGE.match(text)
    if match:
        d1, m1, y1, d2, m2, y2 = (int(g) for g in match.groups())
        try:
            first, last = date(y1, m1, d1), date(y2, m2, d2)
        except ValueError:
            raise UsageError(
                _("'{text}' holds a date that does not exist.").format(text=text[:40]),
                usage_of("compliance"),
            ) from None
        if last < first or (last - first).days >= MAX_DAYS:
            raise UsageError(
                _("The period must end after it starts, and last at most {n} days.").format(
                    n=MAX_DAYS
                ),
                usage_of("compliance"),
            )
        start = datetime.combine(first, time(), tzinfo=tz)
        end = datetime.combine(last + timedelta(days=1), time(), tzinfo=tz)
        return Span(start, end, f"{span_words(start, end)} {zone_name(end)}")
    try:
        period = parse_period(text or None, tz, now=now, default="today")
    except PeriodError as exc:
        raise UsageError(
            str(exc) + " " + _("Or give two dates: DD/MM/YYYY-DD/MM/YYYY."),
            usage_of("compliance"),
        ) from None
    window = period.window()
    return Span(window.start, window.end, window.label())


@dataclass(frozen=True)
class ServiceBreaches:
    """Calls the service placed on its own against the rules (its records), by rule."""

    watched: bool
    """False while nothing watches what the service dials (then the counts mean nothing)."""
    by_rule: dict[str, int] = field(default_factory=dict)


async def service_breaches(
    storage: Storage, team_id: str, start: datetime, end: datetime
) -> ServiceBreaches:
    """The call records of advertising campaigns that broke a rule in ``[start, end)``,
    counted by rule, as the rule watch judged them (``commands/rules/watch.py``); not
    watched while the workspace has no rules channel (the watch judges nothing then)."""
    settings = await off_loop(storage.rule_watch.settings, team_id)
    if settings.channel is None:
        return ServiceBreaches(watched=False)
    counts = await placed_against_rules(storage, team_id, start, end)
    return ServiceBreaches(
        watched=True, by_rule={rule: n for rule, n in counts.items() if rule != "total" and n}
    )


@dataclass(frozen=True)
class ListEvidence:
    """What the do-not-call lists held and took in during a period."""

    opt_outs_by_source: dict[str, int]
    consents_used: int
    versions: list[str]
    """The lists (and their versions) in force, in words."""


async def list_evidence(
    storage: Storage, team_id: str, start: datetime, end: datetime
) -> ListEvidence:
    """Opt-outs captured in the period by source, consents recorded in it, and the
    lists in force now (``commands/rules/lists.py``)."""
    since, until = start.timestamp(), end.timestamp()
    lists = storage.call_lists
    added = await off_loop(lists.optouts_added_between, team_id, since, until)
    consents = await off_loop(lists.consents_added_between, team_id, since, until)
    optouts = await off_loop(lists.optout_size, team_id)
    version = await off_loop(lists.registry_version, team_id)
    sources = {TYPED: _("typed"), CALL: _("from a call record"), KEY: _("by a pressed key")}
    in_force = [
        ngettext(
            "company opt-out list: {n} number", "company opt-out list: {n} numbers", optouts
        ).format(n=number(optouts)),
        _("national registry: version {version} of {when}, {n} numbers").format(
            version=number(version.version),
            when=day_time(version.uploaded_at, DECREE_TZ),
            n=number(version.numbers),
        )
        if version is not None
        else _("national registry: not uploaded"),
    ]
    return ListEvidence(
        opt_outs_by_source={sources.get(k, k): n for k, n in added.items() if n},
        consents_used=consents,
        versions=in_force,
    )


class ExportValue(Value):
    """What Export carries: the period, as seconds."""

    start: float = Field(ge=0, le=1e11)
    end: float = Field(ge=0, le=1e11)


def _counts_lines(decisions: list[GateDecision]) -> list[str]:
    outcomes = Counter(d.outcome for d in decisions)
    return [
        _("*Advertising calls asked through callops:* {n}").format(n=number(len(decisions))),
        _(
            "• placed: {placed} · refused: {refused} · not taken by the service: {failed} · "
            "answer lost: {unknown}"
        ).format(
            placed=number(outcomes["placed"]),
            refused=number(outcomes["refused"]),
            failed=number(outcomes["failed"]),
            unknown=number(outcomes["unknown"]),
        ),
    ]


def _refusal_lines(decisions: list[GateDecision]) -> list[str]:
    by_rule = Counter(d.rule for d in decisions if d.outcome == "refused" and d.rule)
    lines = [_("*Refusals by rule*")]
    for rule in REFUSAL_RULES:
        lines.append(f"• {_(RULE_NAMES[rule])}: {number(by_rule[rule])}")
    return lines


def _looser_lines(
    storage_rules_looser: list[str], changes: list[RuleChange], tz: ZoneInfo
) -> list[str]:
    lines = [_("*Settings looser than Decree 91*")]
    lines.extend(storage_rules_looser or [_("• none in force")])
    for change in changes:
        if change.looser:
            what = change.params.get("hours") or change.params.get("frequency")
            lines.append(
                _("• {when}: {who} set {action} {what}").format(
                    when=day_time(change.at, tz),
                    who=mention(change.user_id),
                    action=_("hours") if change.action == "rules.hours" else _("frequency"),
                    what=truncate(str(what), 40),
                )
            )
    return lines


async def compliance(ctx: CommandContext, args: list[str]) -> Outcome:
    storage = ctx.storage
    span = parse_span(args, ctx.tz, datetime.now(ctx.tz))
    since, until = span.start.timestamp(), span.end.timestamp()
    decisions = await off_loop(storage.gate_log.between, ctx.team_id, since, until)
    changes = await off_loop(storage.gate_log.rule_changes, ctx.team_id, since, until)
    rules = await off_loop(storage.calling_rules.rules, ctx.team_id)
    breaches = await service_breaches(storage, ctx.team_id, span.start, span.end)
    lists = await list_evidence(storage, ctx.team_id, span.start, span.end)
    in_force = [looser_line(r, v, s, ctx.tz) for r, v, s in looser_settings(rules)]
    if breaches.watched:
        service = [_("*Calls the service placed against the rules*")] + [
            f"• {_(RULE_NAMES.get(rule, rule))}: {number(n)}"
            for rule, n in sorted(breaches.by_rule.items())
        ]
    else:
        service = [
            _("*Calls the service placed against the rules*"),
            _("• not watched: only calls asked through callops are counted above"),
        ]
    opt_outs = [
        f"• {source}: {number(n)}" for source, n in sorted(lists.opt_outs_by_source.items())
    ] or [_("• none")]
    blocks: list[Block] = [
        HeaderBlock(text=truncate(_("Compliance: {period}").format(period=span.label), 150)),
        section("\n".join(_counts_lines(decisions))),
        section("\n".join(_refusal_lines(decisions))),
        section("\n".join(service)),
        section("\n".join(_looser_lines(in_force, changes, ctx.tz))),
        section(
            "\n".join(
                [
                    _("*Opt-outs captured*"),
                    *opt_outs,
                    _("*Consents recorded:* {n}").format(n=number(lists.consents_used)),
                    _("*Lists in force:* {lists}").format(lists="; ".join(lists.versions)),
                ]
            )
        ),
        ActionsBlock(
            elements=[
                ButtonElement(
                    text=_("Export"),
                    action_id=EXPORT,
                    value=ExportValue(start=since, end=until).model_dump_json(),
                )
            ]
        ),
        context_line(
            _(
                "Rules as {decree} is set in callops, read on Vietnam's clock. One CSV row "
                "per decision, sent to you alone."
            ).format(decree=decree())
        ),
    ]
    return Reply(blocks=blocks, text=_("Compliance: {period}").format(period=span.label))


def write_csv(path: Path, decisions: list[GateDecision], tz: ZoneInfo) -> None:
    """One row per decision; the number as the reader may see it."""
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(CSV_HEADER)
        for d in decisions:
            writer.writerow(
                (
                    datetime.fromtimestamp(d.at, tz).isoformat(timespec="seconds"),
                    show_phone(d.phone),
                    d.campaign_name,
                    d.campaign_uuid,
                    d.klass,
                    *(d.results.get(rule, "") for rule in RULES),
                    d.outcome,
                    d.rule or "",
                    d.request_id or "",
                    d.requester or "",
                    " ".join(d.approvers),
                )
            )


async def export_clicked(ctx: CommandContext, click: Click) -> Outcome:
    value = read(ExportValue, click.value)
    storage = ctx.storage
    decisions = await off_loop(storage.gate_log.between, ctx.team_id, value.start, value.end)
    with tempfile.TemporaryDirectory(prefix="callops-compliance-") as folder:
        path = Path(folder) / "callops-compliance.csv"
        await off_loop(write_csv, path, decisions, ctx.tz)
        sent = await ctx.files.send_to(
            ctx.user_id,
            filename="callops-compliance.csv",
            path=str(path),
            comment=_("The calling rules' decisions: {n} rows, one per decision.").format(
                n=number(len(decisions))
            ),
        )
    await ctx.audit(
        "compliance.export", {"start": value.start, "end": value.end, "rows": len(decisions)}
    )
    if not sent:
        return error(_("I could not send you the file in a direct message."))
    return notice(_("I sent you the CSV in a direct message."), emoji=":page_facing_up:")
