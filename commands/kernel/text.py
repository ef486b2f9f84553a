"""Turning service and user values into safe, readable Slack text.

Everything that comes from the call-center service or from a user passes through
``escape`` before it reaches mrkdwn: Slack only treats ``&``, ``<`` and ``>`` as control
characters, and escaping exactly those makes ``<!channel>`` in a lead name show as text
instead of pinging a channel.

The same pass strips Unicode's bidirectional controls (``U+202A``–``U+202E``,
``U+2066``–``U+2069``, ``U+200E``/``U+200F``): a right-to-left override in a lead's name
would otherwise turn the rest of a line around, making ``gpj.exe`` read as ``exe.jpg`` or
a number read backwards.  Plain text (table cells, button labels) drops them through
``unbidi``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from callcenter.timefmt import parse_time
from commands.kernel.formats import duration as duration
from commands.kernel.formats import money as money
from commands.kernel.formats import number as number
from commands.kernel.formats import percent as percent
from commands.kernel.formats import write_clock, write_day
from commands.kernel.i18n import N_, _, current_language

_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,}$")
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"
"""Unicode's bidirectional embedding, override and isolate controls, and the two marks."""
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")
_NO_BIDI = dict.fromkeys(map(ord, BIDI_CONTROLS))


def unbidi(text: str) -> str:
    """``text`` without bidirectional controls (an ASCII text, the usual case, has none)."""
    if text.isascii() or _BIDI.search(text) is None:
        return text
    return text.translate(_NO_BIDI)


_SPECIAL = re.compile(
    r"<(?=[!#@])(?!@[UW][A-Z0-9]{2,}(?:\|[^<>]*)?>)(?!#[CGD][A-Z0-9]{2,}(?:\|[^<>]*)?>)"
)
"""The start of a special mention (``<!channel>``, ``<!here>``, ``<!everyone>``,
``<!subteam^…>``, ``<!date…>``) or of a user or channel mention that is not one of
the app's own id form (``<@U123>``, ``<#C123>``, which stay)."""


def fallback(text: str) -> str:
    """A message's plain-text ``text`` (the notification, the screen reader's words) as
    safe as its blocks: bidirectional controls dropped and no broadcast left to ping,
    whatever raw value a reply put in it.  Text that is escaped already passes
    unchanged, so it is never escaped twice."""
    return _SPECIAL.sub("&lt;", unbidi(text))


def escape(value: object) -> str:
    """Escape any value for mrkdwn (Slack's three control characters only), after dropping
    bidirectional controls.  ``&`` goes first, so the entities made for ``<`` and ``>``
    are not escaped again."""
    text = unbidi(str(value))
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def code(value: object) -> str:
    """Inline code span; backticks inside are replaced so the span cannot be broken out of."""
    return "`" + escape(value).replace("`", "ˋ") + "`"


def truncate(text: str, limit: int, ellipsis: str = "…") -> str:
    """Cut ``text`` to ``limit`` characters, marking the cut, for Block Kit's length limits
    (and without bidirectional controls: outside values in plain text pass here)."""
    text = unbidi(text)
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(ellipsis))] + ellipsis


def ratio_percent(part: int, whole: int, digits: int = 1) -> str:
    """``part`` of ``whole`` as a percentage; ``–`` when there is nothing to divide by."""
    if whole <= 0:
        return "–"
    return percent(100.0 * part / whole, digits)


NEW = N_("new")
"""A figure that was nothing in the previous period."""


def signed_change(current: float, previous: float) -> str:
    """Change against a previous period: ``▲ 12%``, ``▼ 3%``, ``new`` or ``=``."""
    if previous == 0:
        return _(NEW) if current else "="
    delta = 100.0 * (current - previous) / previous
    if abs(delta) < 0.05:
        return "="
    arrow = "▲" if delta > 0 else "▼"
    return f"{arrow} {percent(abs(delta), 0)}"


def parse_service_time(value: str | None, service_tz: ZoneInfo | None = None) -> datetime | None:
    """A service timestamp as an aware datetime (zone-less times in ``service_tz``, else
    UTC).  An unreadable value shows as absent rather than failing a whole reply."""
    try:
        parsed = parse_time(value)
    except ValueError:
        return None
    if parsed is not None and parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=service_tz or UTC)
    return parsed


def link(url: str | None, label: str) -> str:
    """A mrkdwn link only for an http(s) URL without whitespace, else escaped text; ``|``
    would end the URL part, so it is percent-encoded.  ``label`` must be escaped."""
    value = (url or "").strip()
    if not value.lower().startswith(("http://", "https://")) or any(c.isspace() for c in value):
        return escape(value)
    return f"<{escape(value.replace('|', '%7C'))}|{label}>"


def full_name(*parts: str | None) -> str:
    """Parts joined in the order given, skipping the empty ones (not escaped)."""
    return " ".join(p.strip() for p in parts if p and p.strip())


def clip(value: object, limit: int) -> str:
    """One outside value cut to ``limit`` characters, then escaped (cutting after escaping
    could split ``&lt;``), so one long name cannot push a row's other facts past a limit."""
    return escape(truncate(str(value), limit))


def caption(scope: str, window: str) -> str:
    """What a block of figures covers, written one way everywhere: ``Telesale HCM ·
    today 00:00–14:27 UTC+07``.  ``scope`` is mrkdwn already escaped; ``window`` is plain."""
    return f"{scope} · {escape(window)}"


def mention(user_id: str | None) -> str:
    """A Slack user id as a mention (``<@U123>``); anything else (a name kept from an
    earlier version) as escaped text, and nobody as "someone"."""
    if not user_id:
        return "someone"
    return f"<@{user_id}>" if _USER_ID.match(user_id) else escape(user_id)


# --- shared labels: the same words for the same thing in every family -------------------

STATUS_WORD = {
    "start": N_("running"),
    "running": N_("running"),
    "pause": N_("paused"),
    "stop": N_("stopped"),
}
"""A campaign's status as the service spells it, in words (a table cell shows no emoji);
in English, ``status_word`` says it in the reader's language."""
_LIGHT = {
    "running": ":large_green_circle:",
    "paused": ":large_yellow_circle:",
    "stopped": ":red_circle:",
}
MODE_LABEL = {"direct": N_("direct"), "serial": N_("serial"), "parralel": N_("parallel")}
"""A campaign's calling mode (the service spells one of them ``parralel``)."""
UNNAMED_CAMPAIGN = N_("Unnamed campaign")
UNKNOWN = N_("unknown")
DAY = "%a %d %b"
"""``Mon 03 Nov``: a whole day, in English (``formats.write_day`` writes it for the
reader's language)."""


def status_label(status: str) -> str:
    """``:large_green_circle: running`` for ``start``; an unknown status as it came."""
    word = STATUS_WORD.get(status)
    if word is None:
        return escape(status) or _(UNKNOWN)
    return f"{_LIGHT[word]} {_(word)}"


def status_word(status: str) -> str:
    """``running`` for ``start``: the status without its traffic light."""
    word = STATUS_WORD.get(status)
    if word is None:
        return status or _(UNKNOWN)
    return _(word)


def mode_label(mode: str) -> str:
    label = MODE_LABEL.get(mode)
    return _(label) if label is not None else clip(mode, 30)


def campaign_label(name: str | None, limit: int = 150) -> str:
    """A campaign's name cut to ``limit`` and escaped, or "Unnamed campaign"."""
    return clip(name, limit) if name else _(UNNAMED_CAMPAIGN)


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 call``, ``2 calls``; English words only (the reader's language uses ``ngettext``)."""
    return f"{number(count)} {word if count == 1 else many or word + 's'}"


# --- moments: one way to write a time, in the workspace's zone, on every surface ---------

Moment = datetime | float | str | None
"""A moment as it reaches a surface: an aware datetime, a Unix time, a service timestamp
(``YYYY-MM-DD HH:MM:SS``, on the service's clock), or nothing."""


def aware(value: Moment) -> datetime | None:
    """Any ``Moment`` as an aware datetime (naive is UTC); None when absent or unreadable."""
    if value is None or isinstance(value, str):
        return parse_service_time(value) if value else None
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return datetime.fromtimestamp(value, UTC)


def _local(value: Moment, tz: ZoneInfo | None) -> datetime | None:
    moment = aware(value)
    if moment is None:
        return None
    return moment.astimezone(tz) if tz is not None else moment


def day_time(value: Moment, tz: ZoneInfo | None = None, *, seconds: bool = False) -> str:
    """``Sun 22 Nov 14:27`` in ``tz`` (else the moment's own zone); ``–`` when absent.
    ``seconds`` tells apart records a few seconds apart."""
    moment = _local(value, tz)
    if moment is None:
        return "–"
    return write_day(moment, time=True, seconds=seconds)


def day(value: Moment, tz: ZoneInfo | None = None) -> str:
    """``Sun 22 Nov``: the day of a moment in ``tz``, written as ``day_time`` writes it."""
    moment = _local(value, tz)
    return write_day(moment) if moment is not None else "–"


def clock(value: Moment, tz: ZoneInfo | None = None, *, seconds: bool = False) -> str:
    """``14:27`` in ``tz``: for a day the reader already knows; ``–`` when absent."""
    moment = _local(value, tz)
    if moment is None:
        return "–"
    return write_clock(moment, seconds=seconds)


def when(value: Moment, tz: ZoneInfo, *, now: datetime | None = None) -> str:
    """``14:27`` for a moment of today (in ``tz``), else the day and time."""
    moment = _local(value, tz)
    if moment is None:
        return "–"
    today = (now or datetime.now(UTC)).astimezone(tz).date()
    return clock(moment) if moment.date() == today else day_time(moment)


VIETNAM_ZONES = frozenset({"Asia/Ho_Chi_Minh", "Asia/Saigon"})


def zone_name(where: datetime | ZoneInfo) -> str:
    """The zone's short name (at ``where``, or now): ``ICT``-like where the zone database
    has one, else the offset (``UTC+07``), never a bare ``+07``; Vietnam's own zone is
    "giờ Việt Nam" to a Vietnamese reader, one label on every surface."""
    moment = datetime.now(where) if isinstance(where, ZoneInfo) else where
    zone = moment.tzinfo
    if isinstance(zone, ZoneInfo) and zone.key in VIETNAM_ZONES and current_language() != "en":
        return _("Vietnam time")
    short = moment.strftime("%Z")
    if not short or short[0] in "+-":
        offset = moment.strftime("%z")
        hours, minutes = offset[:3], offset[3:]
        return "UTC" + hours + ("" if minutes in ("", "00") else f":{minutes}")
    return short
