"""``consent``: a customer's agreement to advertising calls (Decree 91/2020/ND-CP).

    consent add <phone> [campaign] [until=DD/MM/YYYY] source=<text>
    consent remove <phone> [campaign]
    consent check <phone>
    consent list

A number on the national registry may receive advertising calls while a valid consent
covers it (for every campaign, or the one it names, until the end of its last day in
Vietnam); never a number on the company's opt-out list: the customer said no since.
What a consent means for a call is decided with the lists, in ``commands/rules/lists.py``.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from functools import partial

from slack_sdk.models.blocks import Block, HeaderBlock, PlainTextObject

from callcenter.models import Campaign
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError, check_keys, split_options
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.periods import SERVICE_TZ
from commands.kernel.phones import show_phone
from commands.kernel.reply import Outcome, Reply, context_line, notice, section
from commands.kernel.resolve import all_campaigns, pick_campaign
from commands.kernel.text import campaign_label, day, day_time, escape, mention, number
from commands.rules.dnc import typed_numbers
from commands.rules.lists import OPTOUT_NAME, REGISTRY_NAME, decree
from storage import Storage
from storage.call_lists import Consent
from storage.offload import off_loop

VIETNAM = SERVICE_TZ
"""A consent ends at the end of its last day where the customer is."""
SOON = 7 * 24 * 3600.0
"""Consents ending within this are listed in digests' rules line."""
MAX_SOURCE = 300
MAX_LISTED = 40


def _until(raw: str, command: str, today: date) -> float:
    """The end of the day ``DD/MM/YYYY`` in Vietnam, as a Unix time."""
    try:
        day_, month, year = (int(part) for part in raw.strip().split("/"))
        last = date(year, month, day_)
    except ValueError:
        raise UsageError(
            _("until= takes a day as DD/MM/YYYY, such as 31/12/2026."), usage_of(command)
        ) from None
    if last < today:
        raise UsageError(_("until= is a day that has passed."), usage_of(command))
    return datetime.combine(last + timedelta(days=1), time(), tzinfo=VIETNAM).timestamp()


def _phone_and_rest(words: list[str], command: str) -> tuple[str, list[str]]:
    """The number first (spaced as people write it), then a campaign's words."""
    for end in range(min(len(words), 5), 0, -1):
        try:
            numbers = typed_numbers(words[:end], command)
        except UsageError:
            continue
        if len(numbers) == 1:
            return numbers[0], words[end:]
    raise UsageError(_("Start with the customer's phone number."), usage_of(command))


async def _campaign(ctx: CommandContext, words: list[str]) -> Campaign | None:
    if not words:
        return None
    return pick_campaign(await all_campaigns(ctx.client()), " ".join(words))


async def add(ctx: CommandContext, args: list[str]) -> Outcome:
    command = "consent add"
    words, options = split_options(args, spaced=("source",))
    check_keys(
        options, ("until", "source"), what=N_("an option of this command"), usage=usage_of(command)
    )
    given = {k.lower(): v.strip() for k, v in options.items()}
    source = given.get("source", "")
    if not source:
        raise UsageError(
            _(
                "Say where the consent comes from: source=<text> (a signed form, a "
                "recorded call...)."
            ),
            usage_of(command),
        )
    phone, rest = _phone_and_rest(words, command)
    today = datetime.now(VIETNAM).date()
    until = _until(given["until"], command, today) if given.get("until") else None
    campaign = await _campaign(ctx, rest)
    storage = ctx.storage
    made = await off_loop(
        partial(
            storage.call_lists.add_consent,
            source=source[:MAX_SOURCE],
            by=ctx.user_id,
            campaign_uuid=campaign.campaign_uuid if campaign else None,
            campaign_name=campaign.campaign_name if campaign else None,
            until=until,
        ),
        ctx.team_id,
        phone,
    )
    await ctx.audit(
        "consent.add",
        {
            "consent": made.id,
            "campaign": made.campaign_uuid,
            "until": until,
            "source": made.source,
        },
    )
    text = _(
        "Recorded the consent of {phone} to advertising calls ({scope}, {expiry}; source: "
        "{source}). Advertising calls to it now pass {registry}; {optout} still refuses "
        "every call ({decree})."
    ).format(
        phone=show_phone(phone),
        scope=_scope(made),
        expiry=_expiry(made),
        source=escape(made.source),
        registry=_(REGISTRY_NAME),
        optout=_(OPTOUT_NAME),
        decree=decree(),
    )
    return notice(text, emoji=":handshake:")


def _scope(consent: Consent) -> str:
    if consent.campaign_uuid is None:
        return _("every campaign")
    return _("campaign {name}").format(name=campaign_label(consent.campaign_name))


def _expiry(consent: Consent) -> str:
    if consent.until is None:
        return _("until it is removed")
    return _("until the end of {day}").format(day=day(consent.until - 1, VIETNAM))


async def remove(ctx: CommandContext, args: list[str]) -> Outcome:
    phone, rest = _phone_and_rest(args, "consent remove")
    campaign = await _campaign(ctx, rest)
    storage = ctx.storage
    ended = await off_loop(
        partial(
            storage.call_lists.remove_consents,
            by=ctx.user_id,
            campaign_uuid=campaign.campaign_uuid if campaign else None,
        ),
        ctx.team_id,
        phone,
    )
    await ctx.audit(
        "consent.remove",
        {"campaign": campaign.campaign_uuid if campaign else None, "removed": ended},
    )
    if not ended:
        return notice(_("{phone} had no consent to remove.").format(phone=show_phone(phone)))
    return notice(
        ngettext(
            "Removed {n} consent of {phone}: the national registry refuses advertising calls "
            "to it again, if it is on it.",
            "Removed {n} consents of {phone}: the national registry refuses advertising calls "
            "to it again, if it is on it.",
            ended,
        ).format(n=number(ended), phone=show_phone(phone))
    )


def _state(storage: Storage, team_id: str, phone: str) -> tuple[list[Consent], bool, bool]:
    lists = storage.call_lists
    return (
        lists.consents_of(team_id, [phone]),
        bool(lists.on_registry(team_id, [phone])),
        bool(lists.optouts(team_id, [phone])),
    )


def _line(consent: Consent, now: float, ctx: CommandContext) -> str:
    state = _("valid") if consent.valid(now, consent.campaign_uuid) else _("expired")
    return _("• {scope}, {expiry} ({state}): {source}, recorded {when} by {who}").format(
        scope=_scope(consent),
        expiry=_expiry(consent),
        state=state,
        source=escape(consent.source),
        when=day_time(consent.added_at, ctx.tz),
        who=mention(consent.added_by),
    )


async def check(ctx: CommandContext, args: list[str]) -> Outcome:
    phone, rest = _phone_and_rest(args, "consent check")
    if rest:
        raise UsageError(_("consent check takes one phone number."), usage_of("consent check"))
    found, registry, optout = await off_loop(_state, ctx.storage, ctx.team_id, phone)
    now = datetime.now(UTC).timestamp()
    lines = [_line(c, now, ctx) for c in found] or [_("No consent recorded.")]
    shown = show_phone(phone)
    if optout:
        verdict = _("{phone} is on {list}: no call, whatever its consents ({decree}).").format(
            phone=shown, list=_(OPTOUT_NAME), decree=decree()
        )
    elif not registry:
        verdict = _("{phone} is not on {list}: advertising calls need no consent from it.").format(
            phone=shown, list=_(REGISTRY_NAME)
        )
    elif any(c.valid(now) for c in found):
        verdict = _(
            "{phone} is on {list}; its consent lets advertising calls of every campaign through."
        ).format(phone=shown, list=_(REGISTRY_NAME))
    elif any(c.valid(now, c.campaign_uuid) for c in found):
        verdict = _(
            "{phone} is on {list}; its consent lets the named campaigns' advertising calls through."
        ).format(phone=shown, list=_(REGISTRY_NAME))
    else:
        verdict = _(
            "{phone} is on {list} with no valid consent: no advertising call ({decree})."
        ).format(phone=shown, list=_(REGISTRY_NAME), decree=decree())
    return notice(verdict + "\n" + "\n".join(lines), emoji=":handshake:")


async def show(ctx: CommandContext, args: list[str]) -> Outcome:
    if args:
        raise UsageError(_("consent list takes no words."), usage_of("consent list"))
    now = datetime.now(UTC).timestamp()
    live = await off_loop(partial(ctx.storage.call_lists.live_consents, now=now), ctx.team_id)
    blocks: list[Block] = [HeaderBlock(text=PlainTextObject(text=_("Consents in force")))]
    if not live:
        blocks.append(section(_("No consent in force. `consent add` records one.")))
    else:
        lines = [
            f"{show_phone(c.phone)}: " + _line(c, now, ctx).removeprefix("• ")
            for c in live[:MAX_LISTED]
        ]
        blocks.append(section("\n".join(f"• {line}" for line in lines)))
        if len(live) > MAX_LISTED:
            blocks.append(
                context_line(
                    _("{n} more; `consent check <phone>` shows one number's.").format(
                        n=number(len(live) - MAX_LISTED)
                    )
                )
            )
    text = ngettext("{n} consent in force", "{n} consents in force", len(live)).format(
        n=number(len(live))
    )
    return Reply(text=text, blocks=blocks)


async def ending_soon(
    storage: Storage, team_id: str, now: datetime
) -> tuple[tuple[str, float], ...]:
    """Consents in force that end within 7 days (number, end), soonest first: the
    digests' rules line lists them."""
    found = await off_loop(
        partial(storage.call_lists.expiring, now=now.timestamp(), within=SOON), team_id
    )
    return tuple((c.phone, c.until) for c in found if c.until is not None)


def ending_words(consents: tuple[tuple[str, float], ...]) -> str:
    """The digests' words for consents ending soon ("" for none)."""
    if not consents:
        return ""
    shown = ", ".join(
        _("{phone} ({day})").format(phone=show_phone(phone), day=day(until - 1, VIETNAM))
        for phone, until in consents[:5]
    )
    more = len(consents) - 5
    if more > 0:
        shown += " " + _("and {n} more").format(n=number(more))
    return ngettext(
        "{n} customer's consent to advertising calls ends within 7 days: {list}",
        "{n} customers' consents to advertising calls end within 7 days: {list}",
        len(consents),
    ).format(n=number(len(consents)), list=shown)
