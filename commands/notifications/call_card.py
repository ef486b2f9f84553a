"""The compact card a call record becomes in a channel, and what threads it.

A supervisor reads a feed of these cards while the campaign runs, so the first line says
what happened (status, direction, who called whom) and the rest is detail to scan: time
on the line, the key the customer pressed, campaign, lead, agent, recording. Every value
comes from the service (or, through it, from a customer) and is escaped; the recording is
a link only when it is an http(s) URL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block, ContextBlock, MarkdownTextObject, SectionBlock

from callcenter.models import Cdr
from commands.calls.live import direction_label
from commands.kernel.periods import SERVICE_TZ
from commands.kernel.text import clip, code, duration, full_name, link, parse_service_time, truncate
from commands.reports.cdr import status_icon

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
    status = cdr.status.strip() or "unknown"
    text = f"{status_icon(status)} *{clip(status.replace('_', ' ').capitalize(), 40)}*"
    cause = cdr.cause.strip()
    if cause and cause.lower().replace("_", "-") != status.lower().replace("_", "-"):
        text += f" ({clip(cause, 60)})"
    return text


def _parties(cdr: Cdr) -> str:
    source = clip(cdr.from_number, 60) or "unknown"
    destination = clip(cdr.to_number, 60) or "unknown"
    return f"*{source}* → *{destination}*"


def _timing(cdr: Cdr) -> str:
    parts = [f":stopwatch: {duration(cdr.duration)}", f"talk {duration(cdr.billsec)}"]
    if cdr.press_key:
        parts.append(f"pressed {code(truncate(cdr.press_key, 20))}")
    if cdr.digits and cdr.digits != cdr.press_key:
        parts.append(f"digits {code(truncate(cdr.digits, 40))}")
    return " · ".join(parts)


def _who(cdr: Cdr, campaign_name: str | None) -> str:
    parts: list[str] = []
    if campaign_name:
        parts.append(f":mega: {clip(campaign_name, 100)}")
    elif cdr.campaign_uuid:
        parts.append(f":mega: campaign {code(cdr.campaign_uuid[:8])}")
    lead = []
    if cdr.customer_fullname.strip():
        lead.append(clip(cdr.customer_fullname.strip(), 80))
    if cdr.lead_uuid:
        lead.append(code(cdr.lead_uuid[:8]))
    if lead:
        parts.append("lead " + " ".join(lead))
    if cdr.extension or cdr.username:
        agent = full_name(cdr.fullname) or cdr.username
        where = f"ext {clip(cdr.extension, 30)}" if cdr.extension else ""
        named = f"({clip(agent, 80)})" if agent else ""
        parts.append(":bust_in_silhouette: agent " + " ".join(p for p in (where, named) if p))
    recording = (cdr.recording_url or cdr.autocall_recording_url).strip()
    if recording.lower().startswith(("http://", "https://")):
        parts.append(link(recording, ":studio_microphone: recording"))
    return " · ".join(parts)


def _when(cdr: Cdr, tz: ZoneInfo) -> str:
    moment = started_at(cdr)
    when = moment.astimezone(tz).strftime("%d %b %H:%M:%S") if moment else "time unknown"
    return f":clock3: {when} ({clip(tz.key, 40)}) · call {code(truncate(cdr.id, 64))}"


def call_card(cdr: Cdr, *, tz: ZoneInfo, campaign_name: str | None = None) -> CallCard:
    """The card for one record: what happened, then the details, then when."""
    headline = f"{_status(cdr)} · {direction_label(cdr.direction)} · {_parties(cdr)}"
    lines = [headline, _timing(cdr)]
    who = _who(cdr, campaign_name)
    if who:
        lines.append(who)
    body = truncate("\n".join(lines), SECTION_LIMIT)
    status = cdr.status.strip() or "unknown"
    text = truncate(
        f"Call {clip(status, 40)}: {clip(cdr.from_number, 60) or 'unknown'} → "
        f"{clip(cdr.to_number, 60) or 'unknown'}",
        300,
    )
    return CallCard(
        text=text,
        blocks=[
            SectionBlock(text=MarkdownTextObject(text=body)),
            ContextBlock(elements=[MarkdownTextObject(text=_when(cdr, tz))]),
        ],
    )


def outcome_card(cdr: Cdr, *, tz: ZoneInfo, campaign_name: str | None = None) -> CallCard:
    """The outcome of an autocall pushed from Slack, as a reply to the message that pushed it."""
    card = call_card(cdr, tz=tz, campaign_name=campaign_name)
    status = cdr.status.strip() or "unknown"
    pressed = f", pressed {code(truncate(cdr.press_key, 20))}" if cdr.press_key else ""
    intro = (
        f":telephone_receiver: *Outcome of this autocall:* {clip(status, 40)}{pressed}, "
        f"talk {duration(cdr.billsec)}"
    )
    return CallCard(
        text=truncate(f"Outcome of the autocall: {clip(status, 40)}", 300),
        blocks=[SectionBlock(text=MarkdownTextObject(text=truncate(intro, 3000))), *card.blocks],
    )
