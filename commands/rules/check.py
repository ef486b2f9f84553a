"""``dnc check <phone>``: every calling rule for a number, as it stands now.

The do-not-call lists, the service's blacklist, the 24-hour frequency (with when the
number may be called again) and the hours, each with its answer, then one verdict per
campaign class: "may receive an advertising call now: no, until 08:00 tomorrow".  The
rules are read as the gate reads them when a call is placed (``commands.rules.guard``),
on Vietnam's clock, with the workspace's hours (a campaign's own hours may differ).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block, HeaderBlock

from callcenter import CallCenter
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import _, ngettext
from commands.kernel.phones import blocked_numbers, show_phone
from commands.kernel.reply import Outcome, Reply, context_line, section
from commands.kernel.resolve import all_campaigns
from commands.kernel.text import number
from commands.rules.dnc import typed_numbers
from commands.rules.guard import (
    Window,
    calls_in_last_day,
    decree,
    frequency_next,
    in_vietnam,
    is_advertising,
    next_allowed,
    next_words,
    window_words,
    within,
)
from storage import Storage
from storage.calling_rules import CallingRules
from storage.offload import off_loop

MAX_CHECKED = 10
"""Numbers one ``dnc check`` answers in full."""


@dataclass(frozen=True)
class NumberRules:
    """Each rule's answer for one number at one moment."""

    phone: str
    optout: bool
    """On the company's opt-out list: no call of any campaign."""
    registry: bool
    """On the national registry's current version."""
    consent: str | None
    """A valid consent's scope: "" for every campaign, a campaign's id, None for none."""
    blocked: bool
    calls: int
    limit: int
    frequency_until: datetime | None
    """When one more advertising call fits (None: one fits now)."""
    window: Window
    hours_until: datetime | None
    """When the hours next open (None: open now)."""

    @property
    def service_ok(self) -> bool:
        return not (self.blocked or self.optout)

    @property
    def listed_for_advertising(self) -> bool:
        """The lists refuse an advertising call from a campaign no consent names."""
        return self.optout or (self.registry and self.consent != "")

    @property
    def advertising_until(self) -> datetime | None:
        """When an advertising call is next allowed, if the lists allow one at all."""
        moments = [m for m in (self.hours_until, self.frequency_until) if m is not None]
        if not moments:
            return None
        later = max(moments)
        return next_allowed(self.window, in_vietnam(later))


async def number_rules(
    cc: CallCenter, storage: Storage, team_id: str, phone: str, now: datetime
) -> NumberRules:
    """Every rule for ``phone`` at ``now``: the same facts the gate reads."""
    rules: CallingRules = await off_loop(storage.calling_rules.rules, team_id)
    lists = storage.call_lists
    optout = bool(await off_loop(lists.on_optout, team_id, [phone]))
    registry = bool(await off_loop(lists.on_registry_now, team_id, [phone]))
    moment = now.timestamp()
    valid = [c for c in await off_loop(lists.consents_of, team_id, [phone]) if not c.removed_at]
    valid = [c for c in valid if c.until is None or c.until > moment]
    consent = (
        ""
        if any(c.campaign_uuid is None for c in valid)
        else (valid[0].campaign_uuid if valid else None)
    )
    blocked = phone in await blocked_numbers(cc)
    campaigns = await all_campaigns(cc)
    advertising = {c.campaign_uuid for c in campaigns if is_advertising(c, rules)}
    counted = await calls_in_last_day(cc, storage, team_id, phone, advertising, now)
    times = counted.times
    frequency_until = (
        frequency_next(times, rules.frequency, rules.hours, now)
        if len(times) >= rules.frequency
        else None
    )
    vietnam = in_vietnam(now)
    hours_until = (
        None
        if within(rules.hours, vietnam.hour * 60 + vietnam.minute)
        else next_allowed(rules.hours, vietnam)
    )
    return NumberRules(
        phone=phone,
        optout=optout,
        registry=registry,
        consent=consent,
        blocked=blocked,
        calls=len(times),
        limit=rules.frequency,
        frequency_until=frequency_until,
        window=rules.hours,
        hours_until=hours_until,
    )


def _yes_no(ok: bool) -> str:
    return ":white_check_mark:" if ok else ":no_entry:"


def answer_lines(found: NumberRules, now: datetime, reader: ZoneInfo) -> list[str]:
    """The rules for one number, one line each, then the verdicts (mrkdwn)."""
    registry = _("not on it")
    if found.registry:
        registry = (
            _("on it; a consent covers every campaign")
            if found.consent == ""
            else _("on it; a consent covers one campaign")
            if found.consent
            else _("on it: no advertising call without the customer's consent")
        )
    lines = [
        _("{mark} Company opt-out list: {answer}").format(
            mark=_yes_no(not found.optout),
            answer=_("on it: no campaign may call it") if found.optout else _("not on it"),
        ),
        _("{mark} National Do Not Advertise registry: {answer}").format(
            mark=_yes_no(not found.registry or found.consent == ""), answer=registry
        ),
        _("{mark} Blacklist (the service's): {answer}").format(
            mark=_yes_no(not found.blocked),
            answer=_("on it: it must not be called") if found.blocked else _("not on it"),
        ),
    ]
    frequency = ngettext(
        "{calls} advertising call in the last 24 hours, of {limit} allowed",
        "{calls} advertising calls in the last 24 hours, of {limit} allowed",
        found.calls,
    ).format(calls=number(found.calls), limit=number(found.limit))
    if found.frequency_until is not None:
        frequency += _("; next allowed at {next}").format(
            next=next_words(found.frequency_until, now, reader)
        )
    lines.append(
        _("{mark} Calls per number: {answer}").format(
            mark=_yes_no(found.frequency_until is None), answer=frequency
        )
    )
    hours = _("{window} Vietnam time, open now").format(window=window_words(found.window))
    if found.hours_until is not None:
        hours = _("{window} Vietnam time, closed now; next allowed at {next}").format(
            window=window_words(found.window), next=next_words(found.hours_until, now, reader)
        )
    lines.append(
        _("{mark} Calling hours: {answer}").format(
            mark=_yes_no(found.hours_until is None), answer=hours
        )
    )
    if not found.service_ok or found.listed_for_advertising:
        advertising = _("no, not while the number is on a list")
    elif found.advertising_until is not None:
        advertising = _("no, until {next}").format(
            next=next_words(found.advertising_until, now, reader)
        )
    else:
        advertising = _("yes")
    lines.append(_("*May receive an advertising call now:* {answer}").format(answer=advertising))
    service = _("yes") if found.service_ok else _("no, not while the number is on a list")
    lines.append(_("*May receive a service call now:* {answer}").format(answer=service))
    return lines


async def check(ctx: CommandContext, args: list[str]) -> Outcome:
    numbers = typed_numbers(args, "dnc check")
    if len(numbers) > MAX_CHECKED:
        raise UsageError(
            _("dnc check answers every rule for at most {n} numbers at a time.").format(
                n=MAX_CHECKED
            )
        )
    storage = ctx.storage
    cc = ctx.client()
    now = datetime.now(UTC)
    blocks: list[Block] = [HeaderBlock(text=_("Calling rules for a number, now"))]
    for phone in numbers:
        found = await number_rules(cc, storage, ctx.team_id, phone, now)
        body = "\n".join([f"*{show_phone(phone)}*", *answer_lines(found, now, ctx.tz)])
        blocks.append(section(body))
    blocks.append(
        context_line(
            _(
                "Read as {decree} is set here, on Vietnam's clock, with the workspace's "
                "hours (a campaign may have its own); service calls are held only to the "
                "lists."
            ).format(decree=decree())
        )
    )
    return Reply(blocks=blocks, text=_("Calling rules for a number, now"))
