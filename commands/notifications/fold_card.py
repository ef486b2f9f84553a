"""The folded message: the call records of a busy channel as one table, edited as more come.

Slack takes about one message a second in a channel; a call center can end several
calls a second.  When records wait for a channel, the feed lists them in one message (a
row per call: time, number, campaign, outcome, agent, duration) and edits it while it
is the channel's latest feed message, young and not full, so a burst becomes a few
messages instead of a queue that falls further behind every second.

A table holds what Slack allows in one message: one table block of at most 100 rows
(the header row included), cells of plain text (never read as mrkdwn, so a customer's
name pings nobody).  The message's metadata names every record it shows, which is how
the feed, after a crash, knows what Slack already has (``bot.call_feed``); its size is
kept within ``METADATA_BUDGET``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import ActionsBlock, Block

from callcenter.models import Cdr
from commands.kernel.call_words import status_words
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.phones import show_phone
from commands.kernel.reply import context_line, section
from commands.kernel.tables import MAX_ROWS, Column, table
from commands.kernel.text import clock, duration, full_name, number, truncate, zone_name
from commands.notifications.call_card import CallCard, customer_number, started_at
from commands.rules.refusals import refused_select

FOLD_ROWS = MAX_ROWS - 1
"""Records one folded message lists: a table's rows less its header."""
METADATA_BUDGET = 8000
"""Characters of record ids a folded message's metadata carries at most; Slack documents
no figure for metadata, so this stays far below what a message may hold."""

_COLUMNS = (
    Column(N_("Time")),
    Column(N_("Number")),
    Column(N_("Campaign")),
    Column(N_("Outcome")),
    Column(N_("Agent")),
    Column(N_("Duration"), "right"),
)


def _agent(cdr: Cdr) -> str:
    name = full_name(cdr.fullname) or cdr.username.strip()
    extension = cdr.extension.strip()
    if extension and name:
        return f"{extension} ({name})"
    return extension or name


def _campaign(cdr: Cdr, names: Mapping[str, str]) -> str:
    if not cdr.campaign_uuid:
        return ""
    return names.get(cdr.campaign_uuid) or cdr.campaign_uuid[:8]


NOTABLE_MARK = "★"
"""Before the outcome of a notable record the folded message lists (its channel was
past its pace: ``bot.call_feed.NOTE_ROOM``)."""


def _outcome(cdr: Cdr, notable: Collection[str]) -> str:
    words = status_words(cdr.status)
    return f"{NOTABLE_MARK} {words}" if cdr.id in notable else words


def _option_label(cdr: Cdr, tz: ZoneInfo) -> str:
    """A record in the folded message's select: its time and the customer's number."""
    return f"{clock(started_at(cdr), tz, seconds=True)} {show_phone(customer_number(cdr))}"


def fold_card(
    records: Sequence[Cdr],
    *,
    tz: ZoneInfo,
    names: Mapping[str, str],
    notable: Collection[str] = frozenset(),
) -> CallCard:
    """The folded message listing ``records`` (oldest first; at most ``FOLD_ROWS``);
    those whose ids are in ``notable`` marked as such."""
    count = len(records)
    rows = [
        [
            clock(started_at(cdr), tz, seconds=True),
            customer_number(cdr),
            _campaign(cdr, names),
            _outcome(cdr, notable),
            _agent(cdr),
            duration(cdr.duration),
        ]
        for cdr in records
    ]
    grid = table(_COLUMNS, rows)
    if grid is None:
        raise ValueError(f"a folded message lists 1 to {FOLD_ROWS} records, not {count}")
    moments = [m for m in (started_at(cdr) for cdr in records) if m is not None]
    headline = ngettext(
        ":telephone_receiver: *{n} call*, listed together while calls come in fast",
        ":telephone_receiver: *{n} calls*, listed together while calls come in fast",
        count,
    ).format(n=number(count))
    blocks: list[Block] = [section(headline)]
    if moments:
        first, last = min(moments), max(moments)
        span = _("{start}–{end} {zone}").format(
            start=clock(first, tz), end=clock(last, tz), zone=zone_name(last.astimezone(tz))
        )
        blocks.append(context_line(span))
    if any(cdr.id in notable for cdr in records):
        blocks.append(
            context_line(
                _(
                    "{mark} a notable call, listed here because calls come in faster than "
                    "this channel can show them one by one."
                ).format(mark=NOTABLE_MARK)
            )
        )
    blocks.append(grid)
    refused = refused_select(records, lambda cdr: _option_label(cdr, tz))
    if refused is not None:
        blocks.append(ActionsBlock(block_id="fold_refused", elements=[refused]))
    text = ngettext("{n} call record", "{n} call records", count).format(n=number(count))
    return CallCard(text=truncate(text, 300), blocks=blocks)
