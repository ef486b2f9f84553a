"""Customers' requests about their data, with their clocks.

``privacy requests`` lists the open requests and those finished in the last 30 days:
what (access or erasure), received, acknowledged, due, days left, who handles it.
``privacy request add <phone> access|erase [received=DD/MM/YYYY]`` records one that came by
phone or letter (received that day, else today).  By our reading of Law 91/2025/QH15 and
Decree 356/2025/ND-CP (docs/privacy.md), a request is acknowledged within 2 working days and
completed within 15 days of being received; callops acknowledges it the moment it is
recorded and counts the 15 days from when it was received.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from commands.kernel.catalog import usage_for_reader, usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError, split_options
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.reply import Outcome, Reply, notice, section
from commands.kernel.text import code, day, escape, mention, number, truncate
from commands.privacy.find import typed_phone
from storage import off_loop
from storage.privacy_requests import PrivacyRequest

DUE_DAYS = 15
"""Days from a request's receipt to its answer (our reading of Decree 356/2025/ND-CP)."""
RECENT_DAYS = 30
"""Finished requests stay in the listing this long."""
KIND_WORDS = {"access": N_("access"), "erase": N_("erasure")}
STATE_WORDS = {
    "open": N_("open"),
    "working": N_("in progress"),
    "done": N_("done"),
    "refused": N_("refused"),
}


def due_after(received: float, tz: ZoneInfo) -> float:
    """The end of the day ``DUE_DAYS`` days after ``received``, in the workspace's zone."""
    local = datetime.fromtimestamp(received, tz) + timedelta(days=DUE_DAYS)
    end = local.replace(hour=23, minute=59, second=59, microsecond=0)
    return end.timestamp()


def days_left(request: PrivacyRequest, now: float) -> int:
    return int((request.due_at - now) // 86400)


def _received(value: str, tz: ZoneInfo, now: float) -> float:
    try:
        moment = datetime.strptime(value.strip(), "%d/%m/%Y").replace(tzinfo=tz)
    except ValueError:
        raise UsageError(
            _("'{value}' is not a day: write it DD/MM/YYYY.").format(value=value[:40]),
            usage_of("privacy request add"),
        ) from None
    if moment.timestamp() > now:
        raise UsageError(
            _("A request cannot be received in the future."), usage_of("privacy request add")
        )
    return moment.timestamp()


async def add(ctx: CommandContext, args: list[str]) -> Outcome:
    usage = usage_of("privacy request add")
    words, options = split_options(args)
    unknown = [k for k in options if k.lower() != "received"]
    if unknown:
        raise UsageError(
            _("'{key}=' is not an option here: use received=DD/MM/YYYY.").format(key=unknown[0]),
            usage,
        )
    if not words or words[-1].lower() not in KIND_WORDS:
        raise UsageError(_("Say which request it is: access or erase."), usage)
    kind = words[-1].lower()
    phone = typed_phone(words[:-1], "privacy request add")
    storage = ctx.storage
    now = storage.clock()
    given = {k.lower(): v for k, v in options.items()}.get("received")
    received = _received(given, ctx.tz, now) if given else now
    request = await off_loop(
        lambda: storage.privacy_requests.open(
            ctx.team_id,
            kind,
            phone,
            requested_by=ctx.user_id,
            received_at=received,
            due_at=due_after(received, ctx.tz),
        )
    )
    await ctx.audit(
        "privacy.request.add",
        {"request": request.id, "kind": kind, "phone_hash": request.phone_hash},
    )
    then = (
        _("Run {command} to carry it out (another admin approves).").format(
            command=code("/callops " + usage_for_reader("privacy erase " + phone))
        )
        if kind == "erase"
        else _("Its answer, a CSV of what callops holds, is on its way to you by direct message.")
    )
    if kind == "access":
        await _answer_access(ctx, request, phone)
    return notice(
        _("Request {id} recorded: {kind}, due {due} ({days} days left). {then}").format(
            id=code(request.id),
            kind=_(KIND_WORDS[kind]),
            due=day(datetime.fromtimestamp(request.due_at, UTC), ctx.tz),
            days=number(max(0, days_left(request, now))),
            then=then,
        ),
        emoji=":shield:",
    )


async def _answer_access(ctx: CommandContext, request: PrivacyRequest, phone: str) -> None:
    """The access request's answer: a CSV of what callops holds, to the admin by DM."""
    from commands.privacy.access import send_access_answer

    await send_access_answer(ctx, request, phone)


async def listing(ctx: CommandContext, args: list[str]) -> Outcome:
    if args:
        raise UsageError(_("privacy requests takes nothing more."), usage_of("privacy requests"))
    storage = ctx.storage
    now = storage.clock()
    found = await off_loop(
        storage.privacy_requests.listing, ctx.team_id, since=now - RECENT_DAYS * 86400
    )
    title = _(":shield: *Customers' requests*")
    if not found:
        body = _("No request is open, and none was finished in the last {n} days.").format(
            n=number(RECENT_DAYS)
        )
        return Reply(text=body, blocks=[section(f"{title}\n{body}")])
    lines = [title]
    for r in found:
        left = days_left(r, now)
        clock = (
            ngettext("{n} day left", "{n} days left", left).format(n=number(left))
            if r.open and left >= 0
            else (_("overdue") if r.open else _(STATE_WORDS.get(r.state, r.state)))
        )
        lines.append(
            _(
                "• {id} {kind} · received {received} · acknowledged {ack} · due {due} · "
                "{clock} · {who}"
            ).format(
                id=code(r.id),
                kind=_(KIND_WORDS.get(r.kind, r.kind)),
                received=day(datetime.fromtimestamp(r.received_at, UTC), ctx.tz),
                ack=day(datetime.fromtimestamp(r.acknowledged_at, UTC), ctx.tz)
                if r.acknowledged_at
                else "–",
                due=day(datetime.fromtimestamp(r.due_at, UTC), ctx.tz),
                clock=escape(clock),
                who=mention(r.handled_by),
            )
        )
    body = truncate("\n".join(lines), 2900)
    return Reply(text=_("Customers' requests"), blocks=[section(body)])


def reminder(request: PrivacyRequest) -> Reply:
    """The reminder two working days before a request is due (it names no customer)."""
    body = _(
        ":alarm_clock: Customer request {id} ({kind}) is due {due}, handled by {who}. "
        "{command} lists it."
    ).format(
        id=code(request.id),
        kind=_(KIND_WORDS.get(request.kind, request.kind)),
        due=day(datetime.fromtimestamp(request.due_at, UTC)),
        who=mention(request.handled_by),
        command=code("/callops " + usage_for_reader("privacy requests")),
    )
    return Reply(text=_("A customer's request is due soon"), blocks=[section(body)])
