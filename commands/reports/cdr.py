"""``cdr [id=] [phone=] [ext=] [status=] [direction=] [campaign=] [from=] [to=]``: call records.

Pages come from the service (``limit``/``offset`` and its ``total``): a day of call
records can run to tens of thousands, far too many to fetch to page here.

The Next/Previous buttons carry the command rebuilt with an explicit window
(``from=``/``to=`` to the second), so paging through "the last 24 hours" keeps looking
at the same 24 hours while new calls arrive, and a page never shifts under the reader.

Besides ``key=value`` filters, a bare phone number is taken as ``phone=`` and a bare
UUID as ``campaign=``, or, when no campaign has it, as ``id=`` (a call id from an
autocall's result is its record's id); ``campaign=`` takes a name with spaces, unquoted.

``id=`` finds one record by its id, or the first characters of it as the table shows
them.  The service cannot filter its records by id, so the records of the window (the
last 24 hours unless ``from=``/``to=`` say otherwise, narrowed by any other filter) are
read until it is found.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    Block,
    HeaderBlock,
)

from callcenter.models import Campaign, Cdr
from callcenter.resources.cdrs import CdrFilters
from commands.calls.live import direction_label
from commands.campaigns.cards import guess_note
from commands.kernel.call_words import (
    STATUS_WORDS,
    fold_status,
    outcome_words,
    status_words,
)
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import (
    UsageError,
    check_keys,
    parse_direction,
    quote_word,
    split_options,
)
from commands.kernel.i18n import N_, _
from commands.kernel.matching import did_you_mean
from commands.kernel.names import written_name
from commands.kernel.paging import pager, showing
from commands.kernel.periods import (
    SERVICE_TZ,
    PeriodError,
    format_moment,
    parse_moment,
    to_service,
)
from commands.kernel.phones import (
    normalize_phone,
    phone_problem,
    record_number,
    show_parties,
    show_phone,
)
from commands.kernel.reply import Reply, context_line, section
from commands.kernel.resolve import (
    CampaignMatch,
    CampaignNotFound,
    all_campaigns,
    find_campaign,
)
from commands.kernel.tables import Cell, Column, Link, table
from commands.kernel.text import (
    clip,
    code,
    day_time,
    duration,
    escape,
    number,
    parse_service_time,
    truncate,
    zone_name,
)

PAGE_SIZE = 10
DEFAULT_WINDOW = timedelta(hours=24)
FILTER_KEYS = ("id", "phone", "ext", "status", "direction", "campaign", "from", "to")
ID_SHOWN = 8
"""How much of a record's id the table shows: enough to tell records apart, and ``id=``
takes it."""

_PHONE_PART = re.compile(r"^\+?[\d().\-]+$")
_EXTENSION = re.compile(r"^[0-9A-Za-z*#]{1,20}$")
_STATUS = re.compile(r"^[A-Za-z][A-Za-z_\-]{0,39}$")
_RECORD_ID = re.compile(r"^[0-9A-Za-z][0-9A-Za-z\-]{7,63}$")  # ID_SHOWN characters or more
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


@dataclass
class CdrQuery:
    """The parsed filters; ``start``/``end`` are aware, in the workspace's zone."""

    start: datetime | None = None
    end: datetime | None = None
    phone: str | None = None
    extension: str | None = None
    status: str | None = None
    direction: str | None = None
    campaign: Campaign | None = None
    campaign_query: str | None = None
    record_id: str | None = None
    bare_uuid: bool = False
    """The campaign was a bare UUID: if no campaign has it, it is taken as ``id=``."""

    def filters(self) -> CdrFilters:
        """What the service is asked for (``id=`` it cannot filter by)."""
        return CdrFilters(
            start_date=to_service(self.start) if self.start else None,
            end_date=to_service(self.end) if self.end else None,
            extension=self.extension,
            status=self.status,
            phone=self.phone,
            direction=self.direction,
            campaign_uuid=self.campaign.campaign_uuid if self.campaign else None,
        )

    def command(self, tz: ZoneInfo) -> str:
        """The command text that shows exactly these records again (for buttons)."""
        parts = ["cdr"]
        for key, value in (
            ("id", self.record_id),
            ("phone", self.phone),
            ("ext", self.extension),
            ("status", self.status),
            ("direction", self.direction),
        ):
            if value:
                parts.append(quote_word(f"{key}={value}"))
        if self.campaign is not None:
            parts.append(f"campaign={self.campaign.campaign_uuid}")
        if self.start is not None:
            parts.append(quote_word(f"from={format_moment(self.start, tz)}"))
        if self.end is not None:
            parts.append(quote_word(f"to={format_moment(self.end, tz)}"))
        return " ".join(parts)

    def describe(self, tz: ZoneInfo) -> str:
        """The filters in words, for the context line under the header."""
        start = day_time(self.start, tz) if self.start else _("the beginning")
        end = day_time(self.end, tz) if self.end else _("now")
        zone = zone_name((self.end or self.start or datetime.now(tz)).astimezone(tz))
        parts = [f":calendar: {start} → {end} {zone}"]
        if self.record_id:
            parts.append(_("record {id}").format(id=code(self.record_id)))
        if self.phone:
            parts.append(_("phone {phone}").format(phone=code(show_phone(self.phone))))
        if self.extension:
            parts.append(_("ext {extension}").format(extension=code(self.extension)))
        if self.status:
            status = escape(status_words(self.status).lower())
            parts.append(_("status {status}").format(status=status))
        if self.direction:
            parts.append(direction_label(self.direction))
        if self.campaign is not None:
            name = clip(self.campaign.campaign_name, 150)
            parts.append(_("campaign *{name}*").format(name=name))
        return " · ".join(parts)


def _bad(message: str) -> UsageError:
    """A filter's problem; ``message`` names the key (``phone= needs…``)."""
    return UsageError(message, usage_of("cdr"))


def parse_query(args: list[str], tz: ZoneInfo, *, now: datetime | None = None) -> CdrQuery:
    """Read the filters; every problem names the key it is about."""
    # A campaign's name may have spaces: ``campaign=Gọi lại khách hàng CT status=busy``.
    # A number may be spaced out as people write it: ``phone=+84 912 345 678``.
    positional, options = split_options(args, spaced=("campaign",), numbers=("phone",))
    bare_uuid = False
    check_keys(options, FILTER_KEYS, what=_("a filter"), usage=usage_of("cdr"))
    options = {k.lower(): v.strip() for k, v in options.items()}
    number_words: list[str] = []
    for word in positional:
        if _UUID.match(word) and "campaign" not in options and "id" not in options:
            options["campaign"] = word
            bare_uuid = True
        elif _PHONE_PART.match(word) and "phone" not in options:
            number_words.append(word)
        else:
            raise UsageError(
                _(
                    "'{word}' is not a filter; write filters as key=value, e.g. phone=0912345678."
                ).format(word=word),
                usage_of("cdr"),
            )
    if number_words:
        options["phone"] = " ".join(number_words)
    for key, value in options.items():
        if not value:
            raise _bad(_("{key}= needs a value.").format(key=key))
    query = CdrQuery(bare_uuid=bare_uuid)
    if "id" in options:
        if not _RECORD_ID.match(options["id"]):
            raise _bad(
                _(
                    "id= takes a call record's id, or its first {n} characters or more, "
                    "e.g. id=3f2a9c1e."
                ).format(n=ID_SHOWN)
            )
        query.record_id = options["id"].lower()
    if "phone" in options:
        # The service stores a call under the national form (0912345678), whichever way
        # the number was typed, so the filter is sent in that form.
        phone = record_number(options["phone"])
        if phone is None:
            raise _bad(f"phone= {phone_problem(normalize_phone(options['phone']))}")
        query.phone = phone
    if "ext" in options:
        if not _EXTENSION.match(options["ext"]):
            raise _bad(_("ext= takes an extension such as ext=1001."))
        query.extension = options["ext"]
    if "status" in options:
        if not _STATUS.match(options["status"]):
            raise _bad(_("status= takes a call status such as status=answered or status=busy."))
        if fold_status(options["status"]) not in STATUS_WORDS:
            # A status the service never gives would only ever find nothing.
            known = sorted({k.replace("-", "_") for k in STATUS_WORDS})
            raise _bad(
                _("'{word}' is not a call status.").format(word=options["status"][:40])
                + did_you_mean(options["status"], known)
                + " "
                + _("Statuses: {statuses}.").format(statuses=", ".join(known))
            )
        query.status = options["status"]
    if "direction" in options:
        direction = parse_direction(options["direction"])
        if direction is None:
            raise _bad(_("direction= is inbound, outbound or local."))
        query.direction = direction
    for key in ("from", "to"):
        if key in options:
            try:
                moment = parse_moment(options[key], tz, end=key == "to", now=now)
            except PeriodError as exc:
                raise _bad(_("{key}= {problem}").format(key=key, problem=exc)) from exc
            if key == "from":
                query.start = moment
            else:
                query.end = moment
    if query.start is None and query.end is None:
        query.end = parse_moment("now", tz, now=now)
        query.start = query.end - DEFAULT_WINDOW
    if query.start is not None and query.end is not None and query.start > query.end:
        raise UsageError(_("from= is after to=; the window would be empty."), usage_of("cdr"))
    query.campaign_query = options.get("campaign")
    return query


RECORD_COLUMNS = (
    Column(N_("Record")),
    Column(N_("Time")),
    Column(N_("Direction")),
    Column(N_("From")),
    Column(N_("To")),
    Column(N_("Status")),
    Column(N_("Duration"), "right"),
    Column(N_("Talk"), "right"),
    Column(N_("Extension")),
    Column(N_("Pressed")),
    Column(N_("Campaign")),
    Column(N_("Recording")),
)
# Translators: a call's direction in a narrow table column (inbound, outbound, local).
DIRECTION_WORD = {"inbound": N_("in"), "outbound": N_("out"), "local": N_("local")}


def short_id(record_id: str) -> str:
    """A record's id as the table shows it (``id=`` takes it back)."""
    return record_id[:ID_SHOWN]


def _record_cells(cdr: Cdr, tz: ZoneInfo, campaign_names: Mapping[str, str]) -> list[Cell]:
    agent = written_name(cdr.fullname) or cdr.username
    extension = cdr.extension + (f" ({agent})" if agent and cdr.extension else "")
    recording = cdr.recording_url or cdr.autocall_recording_url
    return [
        short_id(cdr.id),
        day_time(parse_service_time(cdr.time_started, SERVICE_TZ), tz, seconds=True),
        _direction_word(cdr.direction),
        *show_parties(cdr.from_number, cdr.to_number, cdr.direction),
        outcome_words(cdr.status, cdr.cause),
        duration(cdr.duration, one_call=True),
        duration(cdr.billsec, one_call=True) if cdr.billsec else None,
        extension,
        cdr.press_key or cdr.digits,
        campaign_names.get(cdr.campaign_uuid),
        Link(recording.strip(), _("recording")) if recording.strip() else None,
    ]


def _direction_word(direction: str) -> str:
    word = DIRECTION_WORD.get(direction.lower())
    return _(word) if word else direction


def records_reply(
    records: Sequence[Cdr],
    *,
    total: int,
    query: CdrQuery,
    ctx: CommandContext,
    campaign_names: Mapping[str, str] | None = None,
) -> Reply:
    names = campaign_names or {}
    filters = context_line(truncate(query.describe(ctx.tz), 3000))
    if not records:
        return Reply(
            text=_("No call records match."),
            blocks=[
                section(_(":mag: No call records match.")),
                filters,
                *pager(query.command(ctx.tz), ctx.offset, PAGE_SIZE, total),
            ],
        )
    page = list(records[:PAGE_SIZE])
    title = _("Call records: {n}").format(n=number(total))
    blocks: list[Block] = [HeaderBlock(text=title), filters]
    grid = table(RECORD_COLUMNS, [_record_cells(c, ctx.tz, names) for c in page])
    if grid is not None:  # a page always fits one table
        blocks.append(grid)
    blocks.append(
        showing(ctx.offset, len(page), total, one=_("call record"), many=_("call records"))
    )
    blocks.extend(pager(query.command(ctx.tz), ctx.offset, PAGE_SIZE, total))
    return Reply(text=title, blocks=blocks)


async def call_records(ctx: CommandContext, args: list[str]) -> Reply:
    query = parse_query(args, ctx.tz)
    cc = ctx.client()
    campaigns = await all_campaigns(cc)
    found: CampaignMatch | None = None
    if query.campaign_query is not None:
        try:
            # Read-only: a clear nearest name is taken for a typo, and said so.
            found = find_campaign(campaigns, query.campaign_query, take_guess=True)
        except CampaignNotFound as exc:
            if not query.bare_uuid:
                raise _bad(
                    _(
                        "campaign= matches no campaign: '{query}' is no name, prefix or UUID."
                    ).format(query=exc.query)
                ) from exc
            # No campaign has it: a call id (from an autocall's result) is a record's id.
            query.record_id, query.campaign_query = query.campaign_query.lower(), None
        else:
            query.campaign = found.campaign
    names = {c.campaign_uuid: c.campaign_name for c in campaigns}
    if query.record_id is not None:
        return await _one_record(ctx, query, names)
    page = await cc.cdrs.list(**query.filters(), limit=PAGE_SIZE, offset=ctx.offset)
    reply = records_reply(page.data, total=page.total, query=query, ctx=ctx, campaign_names=names)
    note = guess_note([found] if found else [])
    if note is not None:
        reply.blocks.insert(1, note)
    return reply


async def _one_record(ctx: CommandContext, query: CdrQuery, names: Mapping[str, str]) -> Reply:
    """``id=``: the records of the window read until the one with that id (or those
    starting with it) is found; the service cannot filter by id."""
    wanted = query.record_id or ""
    found: list[Cdr] = []
    async for record in ctx.client().cdrs.iterate(**query.filters()):
        if record.id.lower() == wanted:
            found = [record]
            break
        if record.id.lower().startswith(wanted):
            found.append(record)
            if len(found) > PAGE_SIZE:
                break
    if not found:
        text = _(
            "No call record has the id {id} between {start} and {end}. A call's record is "
            "written when the call ends; for an older call, add from= (e.g. from=2026-11-01)."
        ).format(
            id=code(wanted),
            start=day_time(query.start, ctx.tz) if query.start else _("the beginning"),
            end=day_time(query.end, ctx.tz) if query.end else _("now"),
        )
        return Reply(
            text=text,
            blocks=[
                section(f":mag: {text}"),
            ],
        )
    return records_reply(found, total=len(found), query=query, ctx=ctx, campaign_names=names)
