"""A refusal on the phone becomes a rule at once: "Customer refused further calls".

The button sits on call cards (``commands/notifications/call_card.py``), on the lead card
and in the call-back shortcut; a folded feed message offers the same as a select of its
records (``commands/notifications/fold_card.py``).  Each puts the customer's number on
the company's opt-out list with the call record as its source, says so in the card's
thread and is audited.  A notification route may name a key that means the same
(``notify add ... optout-key=9``): a record with that key pressed adds its number by
itself (``refuse_by_key``, run as the record is received).

What a button or an option carries may be forged: it names a call record (its id and
when it started, on the service's clock), a lead, or a number read from a message, and
the number put on the list is always read back from the service (the record, the
lead), never taken from the value, except for a number the shortcut found in a message,
which an operator could type anyway.  A second click adds nothing: the number is the
list's key.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Annotated

from pydantic import StringConstraints, model_validator
from slack_sdk.models.blocks import (
    ButtonElement,
    ConfirmObject,
    Option,
    PlainTextObject,
    StaticSelectElement,
)

from callcenter import CallCenter, errors
from callcenter.models import Cdr
from commands.kernel.context import CommandContext
from commands.kernel.i18n import _, use_audience
from commands.kernel.interactions import Click
from commands.kernel.modals import modal
from commands.kernel.periods import SERVICE_TZ
from commands.kernel.phones import normalize_phone, phone_problem, show_phone
from commands.kernel.reply import Outcome, Post, Reply, UpdateModal, error, notice, section
from commands.kernel.text import code, escape, parse_service_time, truncate
from commands.kernel.values import Token, Value, read
from commands.rules.lists import OPTOUT_NAME, decree
from storage import NotificationRoute, Storage
from storage.call_lists import CALL, KEY, TYPED
from storage.offload import off_loop

REFUSED_BUTTON = "optout_refused"
"""Customer refused further calls (a call card, the lead card, the call-back shortcut)."""
REFUSED_SELECT = "optout_refused_pick"
"""The same, for one of the records a folded feed message lists."""
REFUSED_ACTION = "dnc.optout"
"""The audit log's action for a number put on the opt-out list from a call."""
MAX_OPTION_VALUE = 150
"""Slack's limit on an option's value."""
MAX_OPTIONS = 100

_SERVICE_TIME = r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$"
_UUID = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"


class Refused(Value):
    """Which call the customer refused further calls on: a record (``c`` its id, ``t``
    when it started, ``e`` when only its end is known), a lead (``l``), or a number a
    message showed (``p``).  Exactly one of them."""

    c: Token | None = None
    t: Annotated[str, StringConstraints(pattern=_SERVICE_TIME)] | None = None
    e: bool = False
    l: Annotated[str, StringConstraints(pattern=_UUID)] | None = None  # noqa: E741
    p: Annotated[str, StringConstraints(min_length=1, max_length=40)] | None = None

    @model_validator(mode="after")
    def _one(self) -> Refused:
        shapes = [self.c is not None and self.t is not None, self.l is not None, self.p is not None]
        if sum(shapes) != 1 or (self.c is None) != (self.t is None):
            raise ValueError("names one call record, lead or number")
        return self


def record_value(cdr: Cdr) -> str | None:
    """What the button of a call record carries (None: the record cannot be found again,
    or has no customer's number)."""
    if not customer_phone(cdr):
        return None
    started = cdr.time_started.strip()
    moment = started or cdr.time_ended.strip()
    if not re.match(_SERVICE_TIME, moment) or not cdr.id.strip():
        return None
    given: dict[str, object] = {"c": cdr.id.strip(), "t": moment}
    if not started:
        given["e"] = True
    return json.dumps(given, separators=(",", ":"))


def customer_phone(cdr: Cdr) -> str | None:
    """The customer's side of a record, as the phone parser writes it, if a valid number."""
    raw = cdr.from_number if cdr.direction == "inbound" else cdr.to_number
    phone = normalize_phone((raw or cdr.to_number or cdr.from_number).strip())
    return phone if phone and not phone_problem(phone) else None


def refused_button(value: str) -> ButtonElement:
    return ButtonElement(
        text=_("Customer refused further calls"),
        action_id=REFUSED_BUTTON,
        value=value,
        style="danger",
        confirm=_confirm(),
    )


def _confirm() -> ConfirmObject:
    return ConfirmObject(
        title=_("Refused further calls?"),
        text=_(
            "The number goes on the company's opt-out list: no campaign will call it "
            "until an admin takes it off."
        ),
        confirm=_("Add to the opt-out list"),
        deny=_("Cancel"),
    )


def refused_select(
    records: Iterable[Cdr], label: Callable[[Cdr], str]
) -> StaticSelectElement | None:
    """The folded message's select: one option per record that can be found again."""
    options = []
    for cdr in records:
        value = record_value(cdr)
        if value is None or len(value) > MAX_OPTION_VALUE:
            continue
        options.append(Option(value=value, label=truncate(label(cdr), 75)))
    if not options:
        return None
    return StaticSelectElement(
        action_id=REFUSED_SELECT,
        placeholder=_("Customer refused further calls…"),
        options=options[-MAX_OPTIONS:],
        confirm=_confirm(),
    )


async def phone_button(cc: CallCenter, phone: str, *, label: str | None = None) -> ButtonElement:
    """The button for a number a message shows (the call-back shortcut): on its latest
    call record of today and yesterday when the service has one, else on the number."""
    since = (datetime.now(SERVICE_TZ) - timedelta(days=1)).strftime("%Y-%m-%d")
    latest: Cdr | None = None
    async for cdr in cc.cdrs.iterate(page_size=100, phone=phone, start_date=since):
        if customer_phone(cdr) == phone and (
            latest is None or cdr.time_started > latest.time_started
        ):
            latest = cdr
    value = record_value(latest) if latest is not None else None
    button = refused_button(value or json.dumps({"p": phone}, separators=(",", ":")))
    if label:
        button.text = PlainTextObject(text=label)
    return button


async def _find_record(ctx: CommandContext, ref: Refused) -> Cdr | None:
    """The record a value names, read back from the service by its start (or end)."""
    assert ref.c is not None and ref.t is not None
    moment = parse_service_time(ref.t, SERVICE_TZ)
    if moment is None:
        return None
    after = (moment + timedelta(seconds=1)).strftime("%Y-%m-%d %H:%M:%S")
    window = (
        {"start_date_ended": ref.t, "end_date_ended": after}
        if ref.e
        else {"start_date": ref.t, "end_date": after}
    )
    async for cdr in ctx.client().cdrs.iterate(page_size=100, **window):
        if cdr.id.strip() == ref.c:
            return cdr
    return None


async def _lead_record(ctx: CommandContext, lead_uuid: str) -> tuple[str | None, str | None]:
    """A lead's number and its latest call record's id (None where there is none)."""
    cc = ctx.client()
    try:
        lead = await cc.leads.get(lead_uuid)
    except errors.NotFoundError:
        return None, None
    phone = normalize_phone(lead.phone_number)
    if not phone or phone_problem(phone):
        return None, None
    latest: Cdr | None = None
    day = lead.last_call_time.strip()[:10]
    if re.match(r"^\d{4}-\d{2}-\d{2}$", day):
        async for cdr in cc.cdrs.iterate(page_size=100, phone=phone, start_date=day):
            if cdr.lead_uuid.strip().lower() == lead_uuid and (
                latest is None or cdr.time_started > latest.time_started
            ):
                latest = cdr
    return phone, latest.id.strip() if latest is not None else None


async def refused_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Customer refused further calls: the number goes on the opt-out list, once."""
    ref = read(Refused, click.value)
    call_id: str | None = None
    source = CALL
    if ref.c is not None:
        cdr = await _find_record(ctx, ref)
        phone = customer_phone(cdr) if cdr is not None else None
        if cdr is None or phone is None:
            return error(_("This button is out of date; run the command again."))
        call_id = cdr.id.strip()
    elif ref.l is not None:
        phone, call_id = await _lead_record(ctx, ref.l.lower())
        if phone is None:
            return error(_("This button is out of date; run the command again."))
    else:
        phone = normalize_phone(ref.p or "")
        if not phone or phone_problem(phone):
            return error(_("This button is out of date; run the command again."))
        source = TYPED
    storage = ctx.storage
    added = await off_loop(
        _add,
        storage,
        ctx.team_id,
        phone,
        source,
        ctx.user_id,
        call_id,
        None if source == CALL else _("Customer refused further calls (a message)"),
    )
    await ctx.audit(
        REFUSED_ACTION,
        {"source": source, "call": call_id, "lead": ref.l, "added": bool(added)},
    )
    if not added:
        already = _("{phone} is on {list} already: no campaign calls it.").format(
            phone=show_phone(phone), list=_(OPTOUT_NAME)
        )
        if click.view_id:
            return UpdateModal(
                modal(REFUSED_BUTTON, _("Call back"), [section(already)], close=_("Close"))
            )
        return notice(already, emoji=":no_entry_sign:")
    with use_audience(ctx.channel_audience):  # the note is for the card's channel
        text = _(
            ":no_entry_sign: {user} recorded that the customer of {phone} refused further "
            "calls{call}: the number is on {list} from now, and no campaign will call it "
            "({decree})."
        ).format(
            user=f"<@{escape(ctx.user_id)}>",
            phone=show_phone(phone),
            call=_(" (call {id})").format(id=code(truncate(call_id, 64))) if call_id else "",
            list=_(OPTOUT_NAME),
            decree=decree(),
        )
    note = Reply(text=text, blocks=[section(text)], ephemeral=True)
    if click.view_id:  # the call-back shortcut's modal: the answer takes its place
        return UpdateModal(modal(REFUSED_BUTTON, _("Call back"), [section(text)], close=_("Close")))
    if ctx.channel_id and click.message_ts and not click.ephemeral:
        return Post(
            ctx.channel_id,
            replace(note, ephemeral=False),
            thread_ts=click.thread_ts or click.message_ts,
            otherwise=note,
        )
    return note


def _add(
    storage: Storage,
    team_id: str,
    phone: str,
    source: str,
    by: str,
    call_id: str | None,
    reason: str | None,
) -> bool:
    added = storage.call_lists.add_optout(
        team_id, [phone], source=source, by=by, call_id=call_id, reason=reason
    )
    return bool(added)


def refuse_by_key(
    storage: Storage, team_id: str, routes: Iterable[NotificationRoute], cdr: Cdr
) -> str | None:
    """A record with a route's opt-out key pressed puts its number on the opt-out list
    (blocking: the callback receiver runs it on its database thread); the number when it
    was added now, else None.  Only records of routes that match it count."""
    from commands.notifications.notify import route_matches

    keys = set(cdr.press_key.replace(",", " ").split()) | set(cdr.press_key.strip())
    wanted = {r.optout_key for r in routes if r.optout_key and route_matches(r, cdr)}
    if not wanted or not (wanted & keys):
        return None
    phone = customer_phone(cdr)
    if phone is None:
        return None
    call_id = cdr.id.strip()
    added = storage.call_lists.add_optout(team_id, [phone], source=KEY, by=None, call_id=call_id)
    if not added:
        return None
    storage.audit.append(
        team_id,
        None,
        REFUSED_ACTION,
        {"source": KEY, "call": call_id, "key": sorted(wanted & keys)[0], "added": True},
    )
    return phone
