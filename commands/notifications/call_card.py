"""The compact card a call record becomes in a channel, and what threads it.

A supervisor reads a feed of these cards while the campaign runs, so the first line says
what happened (the outcome in words, direction, who called whom) and the rest is detail
to scan: time on the line, the key the customer pressed, campaign, lead, agent,
recording, and when, in the workspace's zone.  Status and hang-up cause are said in
words (``commands.kernel.call_words``); only a cause no table knows is shown as its
code, in the last line.  Every value comes from the service (or, through it, from a
customer) and is escaped; the recording is a link only when it is an http(s) URL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
)

from callcenter.models import Cdr
from commands.calls.live import direction_label
from commands.kernel.call_words import (
    cause_words,
    outcome_words,
    status_icon,
    status_words,
    unknown_cause,
)
from commands.kernel.i18n import _
from commands.kernel.interactions import OPEN_CAMPAIGN
from commands.kernel.names import written_name
from commands.kernel.periods import SERVICE_TZ
from commands.kernel.phones import show_parties
from commands.kernel.reply import context_line, section
from commands.kernel.text import (
    clip,
    code,
    day_time,
    duration,
    escape,
    link,
    parse_service_time,
    truncate,
    zone_name,
)
from commands.leads.lead_links import is_uuid, open_lead_button
from commands.rules.refusals import record_value, refused_button

SECTION_LIMIT = 3000


@dataclass(frozen=True)
class CallCard:
    text: str
    """Notification fallback (escaped)."""
    blocks: list[Block]


def customer_number(cdr: Cdr) -> str:
    """The customer's side of the call: the caller of an inbound call, else the callee."""
    number = cdr.from_number if cdr.direction == "inbound" else cdr.to_number
    return (number or cdr.to_number or cdr.from_number).strip()


def thread_subject(cdr: Cdr) -> str | None:
    """What makes records "the same conversation": the customer's number (a lead has one
    number, and an autocall pushed twice to a number makes two leads), else the lead."""
    number = customer_number(cdr)
    if number:
        return "number:" + number
    lead = cdr.lead_uuid.strip().lower()
    return "lead:" + lead if lead else None


def started_at(cdr: Cdr) -> datetime | None:
    return parse_service_time(cdr.time_started or cdr.time_ended, SERVICE_TZ)


def call_day(cdr: Cdr, tz: ZoneInfo, received: datetime) -> str:
    """The local day a record belongs to (threads start afresh every day)."""
    moment = started_at(cdr) or received
    return moment.astimezone(tz).strftime("%Y-%m-%d")


def _status(cdr: Cdr) -> str:
    """``:hourglass: *No answer*``, or ``:no_mobile_phones: *Not available* (phone off or
    out of reach)`` when the cause tells more."""
    text = f"{status_icon(cdr.status)} *{clip(status_words(cdr.status), 40)}*"
    extra = cause_words(cdr.status, cdr.cause)
    return text + (f" ({escape(extra)})" if extra else "")


def _parties(cdr: Cdr) -> str:
    shown = show_parties(cdr.from_number, cdr.to_number, cdr.direction)
    source = clip(shown[0], 60) or _("unknown")
    destination = clip(shown[1], 60) or _("unknown")
    return f"*{source}* → *{destination}*"


def _timing(cdr: Cdr) -> str:
    parts = [
        f":stopwatch: {duration(cdr.duration, one_call=True)}",
        _("talk {talk}").format(talk=duration(cdr.billsec, one_call=True)),
    ]
    if cdr.press_key:
        parts.append(_("pressed {keys}").format(keys=code(truncate(cdr.press_key, 20))))
    if cdr.digits and cdr.digits != cdr.press_key:
        parts.append(_("digits {digits}").format(digits=code(truncate(cdr.digits, 40))))
    return " · ".join(parts)


def _who(cdr: Cdr, campaign_name: str | None) -> str:
    parts: list[str] = []
    if campaign_name:
        parts.append(f":mega: {clip(campaign_name, 100)}")
    elif cdr.campaign_uuid:
        parts.append(_(":mega: campaign {id}").format(id=code(cdr.campaign_uuid[:8])))
    lead = []
    if cdr.customer_fullname.strip():
        lead.append(clip(cdr.customer_fullname.strip(), 80))
    if cdr.lead_uuid:
        lead.append(code(cdr.lead_uuid[:8]))
    if lead:
        parts.append(_("lead {lead}").format(lead=" ".join(lead)))
    if cdr.extension or cdr.username:
        agent = written_name(cdr.fullname) or cdr.username
        where = (
            _("ext {extension}").format(extension=clip(cdr.extension, 30)) if cdr.extension else ""
        )
        named = f"({clip(agent, 80)})" if agent else ""
        parts.append(
            _(":bust_in_silhouette: agent {agent}").format(
                agent=" ".join(p for p in (where, named) if p)
            )
        )
    recording = (cdr.recording_url or cdr.autocall_recording_url).strip()
    if recording.lower().startswith(("http://", "https://")):
        parts.append(link(recording, _(":studio_microphone: recording")))
    return " · ".join(parts)


def _when(cdr: Cdr, tz: ZoneInfo) -> str:
    moment = started_at(cdr)
    when = f"{day_time(moment, tz)} {zone_name(moment.astimezone(tz))}" if moment else None
    parts = [":clock3: " + (when or _("time unknown"))]
    cause = unknown_cause(cdr.cause)
    if cause:
        parts.append(_("cause {code}").format(code=code(truncate(cause, 60))))
    parts.append(_("call {id}").format(id=code(truncate(cdr.id, 64))))
    return " · ".join(parts)


def call_card(cdr: Cdr, *, tz: ZoneInfo, campaign_name: str | None = None) -> CallCard:
    """The card for one record: what happened, then the details, then when."""
    headline = f"{_status(cdr)} · {direction_label(cdr.direction)} · {_parties(cdr)}"
    lines = [headline, _timing(cdr)]
    who = _who(cdr, campaign_name)
    if who:
        lines.append(who)
    body = truncate("\n".join(lines), SECTION_LIMIT)
    unknown = _("unknown")
    shown = show_parties(cdr.from_number, cdr.to_number, cdr.direction)
    source = clip(shown[0], 60) or unknown
    destination = clip(shown[1], 60) or unknown
    text = truncate(
        f"{clip(outcome_words(cdr.status, cdr.cause), 100)}: {source} → {destination}", 300
    )
    blocks: list[Block] = [
        section(body),
        context_line(_when(cdr, tz)),
    ]
    opens = _opens(cdr)
    refused = record_value(cdr)
    if refused is not None:
        opens.append(refused_button(refused))
    if opens:
        blocks.append(ActionsBlock(elements=opens))
    return CallCard(text=text, blocks=blocks)


def _opens(cdr: Cdr) -> list[ButtonElement]:
    """The ids the card shows, one click away: its lead and its campaign."""
    buttons: list[ButtonElement] = []
    if is_uuid(cdr.lead_uuid):
        buttons.append(open_lead_button(cdr.lead_uuid))
    if is_uuid(cdr.campaign_uuid):
        buttons.append(
            ButtonElement(
                text=_("Open campaign"), action_id=f"{OPEN_CAMPAIGN}_0", value=cdr.campaign_uuid
            )
        )
    return buttons


def outcome_card(cdr: Cdr, *, tz: ZoneInfo, campaign_name: str | None = None) -> CallCard:
    """The outcome of an autocall pushed from Slack, as a reply to the message that pushed it."""
    card = call_card(cdr, tz=tz, campaign_name=campaign_name)
    outcome = clip(status_words(cdr.status).lower(), 40)
    if cdr.press_key:
        intro = _(
            ":telephone_receiver: *Outcome of this autocall:* {outcome}, pressed {keys}, "
            "talk {talk}"
        )
    else:
        intro = _(":telephone_receiver: *Outcome of this autocall:* {outcome}, talk {talk}")
    intro = intro.format(
        outcome=outcome,
        keys=code(truncate(cdr.press_key, 20)),
        talk=duration(cdr.billsec, one_call=True),
    )
    return CallCard(
        text=truncate(_("Outcome of the autocall: {outcome}").format(outcome=outcome), 300),
        blocks=[section(intro), *card.blocks],
    )
