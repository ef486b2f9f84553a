"""Call-center KPIs: what each one means, and how it is counted from call records.

A manager reads the industry's figures (answer-seizure ratio, service level, average
handle time…), not raw counts.  This module is their one definition: each ``Kpi`` says
its formula, the call-record fields it reads (only fields the service's interface
documents for a call record, ``callcenter.models.Cdr``), the period and scope it is
counted over, and what it cannot know; ``help metrics`` and docs/kpis.md say the same.

``KpiTally`` counts them as a stream: it is a ``PageFold`` (``commands.reports.tally``),
fed by ``fold_records`` alone or beside a ``CallTally`` (``Folds``), and keeps a few
integers per call center, campaign, agent, local hour and mobile network, never the
records.  The one thing that grows with the records is the set of customer numbers the
repeat-call rate needs, and it is bounded by ``REPEAT_NUMBERS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import TypeVar
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block, HeaderBlock

from callcenter.models import Cdr
from commands.kernel.i18n import N_, _
from commands.kernel.networks import network_of
from commands.kernel.reply import Reply, context_line, section
from commands.kernel.text import code, escape
from commands.reports.tally import LocalHours

SERVICE_LEVEL_SECONDS = 20
"""Service level: an inbound call counts as answered in time within this many seconds
(the industry's usual 80/20 target)."""
SHORT_ABANDON_SECONDS = 5
"""An unanswered inbound call that lasted no longer than this is a short abandon (a
misdial, a caller who changed their mind): left out of abandonment and service level."""
REPEAT_DAYS = 7
"""Repeat calls: another inbound call from the same number within this many days."""
REPEAT_NUMBERS = 200_000
"""At most this many customer numbers are remembered for the repeat-call rate (about
20 MB); past it, new numbers are not remembered and the rate is a lower bound
(``KpiTally.repeat_capped``)."""
K = TypeVar("K", str, datetime)

KEYS = frozenset("0123456789*#")
"""The keys of a phone's keypad; anything else in ``press_key`` counts as "other"."""


@dataclass(frozen=True)
class Kpi:
    """One KPI's definition; every text is gettext (shown in both languages)."""

    key: str
    name: str
    formula: str
    fields: tuple[str, ...]
    """The call-record fields it reads (the spec's names)."""
    scope: str
    cannot_know: str


PERIOD = N_(
    "Any report period (today, yesterday, week, month), counted over calls that "
    "started in it, service time; per call center, campaign, agent (extension), "
    "local hour and mobile network."
)
"""Every KPI's period and grouping (the repeat-call rate's differs: see its scope)."""

NETWORK_NOTE = N_(
    "The mobile network is the one that issued the customer's number, read from its "
    "prefix: a number moved to another network keeps its first network."
)

KPIS: tuple[Kpi, ...] = (
    Kpi(
        "asr",
        N_("Answer-seizure ratio (ASR)"),
        N_("answered outbound calls ÷ outbound calls × 100"),
        ("direction", "status"),
        N_("Outbound calls (agents' and autocalls)."),
        N_("A call the network never placed leaves no call record, so it is not counted."),
    ),
    Kpi(
        "acd",
        N_("Average call duration (ACD)"),
        N_("talk time (billsec) of answered outbound calls ÷ answered outbound calls"),
        ("direction", "status", "billsec"),
        N_("Answered outbound calls."),
        N_("Talk time only: hold time inside a call is not in the record."),
    ),
    Kpi(
        "answer_rate",
        N_("Answer rate"),
        N_("answered calls ÷ calls × 100"),
        ("status",),
        N_("Every call, any direction."),
        N_("Whether the right person answered: a voicemail or a child answering counts."),
    ),
    Kpi(
        "abandonment",
        N_("Abandonment rate"),
        N_(
            "(unanswered inbound calls − short abandons) ÷ (inbound calls − short "
            "abandons) × 100; a short abandon is an unanswered inbound call of at most "
            "{short} s (duration)"
        ),
        ("direction", "status", "duration"),
        N_("Inbound calls."),
        N_("Whether the caller hung up or the queue gave up: both are unanswered."),
    ),
    Kpi(
        "service_level",
        N_("Service level"),
        N_(
            "inbound calls answered within {seconds} s of arriving (duration − billsec) "
            "÷ (inbound calls − short abandons) × 100"
        ),
        ("direction", "status", "duration", "billsec"),
        N_("Inbound calls."),
        N_("Time in a menu before the queue counts as waiting: the record does not split them."),
    ),
    Kpi(
        "asa",
        N_("Average speed of answer (ASA)"),
        N_("waiting time (duration − billsec) of answered inbound calls ÷ answered inbound calls"),
        ("direction", "status", "duration", "billsec"),
        N_("Answered inbound calls."),
        N_("Time in a menu before the queue counts as waiting."),
    ),
    Kpi(
        "aht",
        N_("Average handle time (AHT)"),
        N_("talk time (billsec) of answered calls with an agent ÷ those calls"),
        ("status", "extension", "billsec"),
        N_("Answered calls an agent (extension) took, any direction."),
        N_(
            "Hold time and after-call work (wrap-up) are not in call records: this is "
            "talk time, so it is below the industry's handle time."
        ),
    ),
    Kpi(
        "repeat_rate",
        N_("Repeat-call rate"),
        N_(
            "inbound calls from a number that already called within {days} days ÷ "
            "inbound calls × 100 (a stand-in for first-call resolution)"
        ),
        ("direction", "from_number", "time_started"),
        N_(
            "Inbound calls of a period of at most {days} days (today, yesterday, a "
            "week), counted within that period; per call center only."
        ),
        N_(
            "Calls before the period are not read, and whether the first call solved "
            "the matter is not recorded: this stands in for it."
        ),
    ),
    Kpi(
        "funnel",
        N_("Key-press funnel"),
        N_("autocalls → answered → pressed a key → calls per key"),
        ("app", "status", "press_key"),
        N_("Autocall calls (app autocall)."),
        N_("What the customer did after pressing a key, unless an agent took the call."),
    ),
)
"""Every KPI, in the order the help and docs/digests.md list them."""

NOT_IN_RECORDS = N_(
    "Call records cannot tell wrap-up (after-call work) time, occupancy (agents' time "
    "busy against time logged in) or customer satisfaction: no KPI here guesses them."
)


def definition_values() -> dict[str, int]:
    """The thresholds the formulas name, for ``str.format``."""
    return {
        "seconds": SERVICE_LEVEL_SECONDS,
        "short": SHORT_ABANDON_SECONDS,
        "days": REPEAT_DAYS,
    }


@dataclass(frozen=True)
class KpiCounts:
    """The counters every KPI but the repeat-call rate is made of, for one group."""

    calls: int = 0
    answered: int = 0
    outbound: int = 0
    outbound_answered: int = 0
    outbound_talk: int = 0
    inbound: int = 0
    inbound_answered: int = 0
    inbound_short_abandons: int = 0
    inbound_in_time: int = 0
    inbound_wait: int = 0
    agent_answered: int = 0
    agent_talk: int = 0
    autocalls: int = 0
    autocalls_answered: int = 0
    autocalls_pressed: int = 0
    keys: tuple[tuple[str, int], ...] = ()
    """Autocalls per key pressed (``"other"`` for anything not on a keypad), by key."""

    @property
    def asr(self) -> float | None:
        return _percent(self.outbound_answered, self.outbound)

    @property
    def acd(self) -> float | None:
        return self.outbound_talk / self.outbound_answered if self.outbound_answered else None

    @property
    def answer_rate(self) -> float | None:
        return _percent(self.answered, self.calls)

    @property
    def abandonment(self) -> float | None:
        offered = self.inbound - self.inbound_short_abandons
        return _percent(offered - self.inbound_answered, offered)

    @property
    def service_level(self) -> float | None:
        return _percent(self.inbound_in_time, self.inbound - self.inbound_short_abandons)

    @property
    def asa(self) -> float | None:
        return self.inbound_wait / self.inbound_answered if self.inbound_answered else None

    @property
    def aht(self) -> float | None:
        return self.agent_talk / self.agent_answered if self.agent_answered else None

    @property
    def funnel(self) -> tuple[int, int, int, dict[str, int]]:
        """Autocalls, answered, pressed a key, and per key."""
        return (self.autocalls, self.autocalls_answered, self.autocalls_pressed, dict(self.keys))


def _percent(part: int, whole: int) -> float | None:
    return 100.0 * part / whole if whole > 0 else None


_NAMES = tuple(f.name for f in fields(KpiCounts) if f.name != "keys")
(
    _CALLS,
    _ANSWERED,
    _OUT,
    _OUT_ANSWERED,
    _OUT_TALK,
    _IN,
    _IN_ANSWERED,
    _IN_SHORT,
    _IN_TIME,
    _IN_WAIT,
    _AGENT_ANSWERED,
    _AGENT_TALK,
    _AUTO,
    _AUTO_ANSWERED,
    _AUTO_PRESSED,
) = range(len(_NAMES))


class KpiCounter:
    """``KpiCounts`` while counting: integers added in place, one object per group."""

    __slots__ = ("keys", "values")

    def __init__(self) -> None:
        self.values = [0] * len(_NAMES)
        self.keys: dict[str, int] = {}

    def add_record(self, record: Cdr) -> None:
        v = self.values
        v[_CALLS] += 1
        answered = record.status.strip().lower() == "answered"
        talk = max(0, record.billsec)
        wait = max(0, record.duration - record.billsec)
        if answered:
            v[_ANSWERED] += 1
        direction = str(record.direction).strip().lower()
        if direction == "outbound":
            v[_OUT] += 1
            if answered:
                v[_OUT_ANSWERED] += 1
                v[_OUT_TALK] += talk
        elif direction == "inbound":
            v[_IN] += 1
            if answered:
                v[_IN_ANSWERED] += 1
                v[_IN_WAIT] += wait
                if wait <= SERVICE_LEVEL_SECONDS:
                    v[_IN_TIME] += 1
            elif record.duration <= SHORT_ABANDON_SECONDS:
                v[_IN_SHORT] += 1
        if answered and record.extension.strip():
            v[_AGENT_ANSWERED] += 1
            v[_AGENT_TALK] += talk
        if record.app.strip().lower() == "autocall":
            v[_AUTO] += 1
            if answered:
                v[_AUTO_ANSWERED] += 1
            key = record.press_key.strip()
            if key:
                v[_AUTO_PRESSED] += 1
                key = key if key in KEYS else "other"
                self.keys[key] = self.keys.get(key, 0) + 1

    def counts(self) -> KpiCounts:
        return KpiCounts(
            **dict(zip(_NAMES, self.values, strict=True)),
            keys=tuple(sorted(self.keys.items())),
        )


class KpiTally:
    """The KPIs of a stream of records, in total and per campaign, agent (extension),
    local hour (in ``tz``) and mobile network (of the customer's number).  Memory grows
    with the groups seen and, for the repeat-call rate, with the distinct inbound
    numbers up to ``REPEAT_NUMBERS``; never with the records themselves.

    The repeat-call rate is exact for a period of at most ``REPEAT_DAYS`` days: any two
    calls of such a period are within the days of each other, so a number's repeat calls
    are its calls less one, whatever order the pages arrive in."""

    def __init__(self, tz: ZoneInfo, *, repeat_numbers: int = REPEAT_NUMBERS) -> None:
        self.total = KpiCounter()
        self.campaigns: dict[str, KpiCounter] = {}
        self.agents: dict[str, KpiCounter] = {}
        self.hours: dict[datetime, KpiCounter] = {}
        self.networks: dict[str, KpiCounter] = {}
        self.records = 0
        self.repeat_capped = False
        """Some inbound number was not remembered: the repeat-call rate is a lower bound."""
        self._hour = LocalHours(tz)
        self._numbers: dict[str, int] = {}
        self._repeat_limit = repeat_numbers
        self._inbound_numbered = 0

    def add_page(self, records: Sequence[Cdr]) -> None:
        for record in records:
            self.add(record)

    def add(self, record: Cdr) -> None:
        self.records += 1
        self.total.add_record(record)
        _group(self.campaigns, record.campaign_uuid, record)
        _group(self.agents, record.extension.strip(), record)
        hour = self._hour(record.time_started)
        if hour is not None:
            _group(self.hours, hour, record)
        inbound = str(record.direction).strip().lower() == "inbound"
        customer = record.from_number if inbound else record.to_number
        _group(self.networks, network_of(customer) if customer else "", record, keep_empty=True)
        number = record.from_number.strip()
        if inbound and number:
            self._inbound_numbered += 1
            seen = self._numbers.get(number)
            if seen is not None:
                self._numbers[number] = seen + 1
            elif len(self._numbers) < self._repeat_limit:
                self._numbers[number] = 1
            else:
                self.repeat_capped = True

    @property
    def repeat_calls(self) -> int:
        """Inbound calls from a number that called before within the period."""
        return sum(n - 1 for n in self._numbers.values())

    @property
    def repeat_rate(self) -> float | None:
        return _percent(self.repeat_calls, self._inbound_numbered)

    def counts(self) -> KpiCounts:
        return self.total.counts()

    def campaign_counts(self) -> dict[str, KpiCounts]:
        return {k: c.counts() for k, c in self.campaigns.items()}

    def agent_counts(self) -> dict[str, KpiCounts]:
        return {k: c.counts() for k, c in self.agents.items()}

    def hour_counts(self) -> dict[datetime, KpiCounts]:
        return {k: c.counts() for k, c in self.hours.items()}

    def network_counts(self) -> dict[str, KpiCounts]:
        return {k: c.counts() for k, c in self.networks.items()}


def _group(groups: dict[K, KpiCounter], key: K, record: Cdr, *, keep_empty: bool = False) -> None:
    """Adds ``record`` to its group; no group for an empty key (no campaign, no agent)
    unless ``keep_empty`` (the unknown network, ``networks.UNKNOWN``, is a group)."""
    if key == "" and not keep_empty:
        return
    counter = groups.get(key)
    if counter is None:
        counter = groups[key] = KpiCounter()
    counter.add_record(record)


METRICS_TITLE = N_("Call-center KPIs: what each figure means")
FORMULA = N_("Formula")
FIELDS = N_("Call-record fields")
SCOPE = N_("Counted over")
CANNOT_KNOW = N_("Cannot know")


def metrics_reply() -> Reply:
    """``help metrics``: every KPI's definition in the reader's language, the same
    words as docs/digests.md's "KPIs"."""
    values = definition_values()
    blocks: list[Block] = [
        HeaderBlock(text=_(METRICS_TITLE)),
        section(escape(_(PERIOD)) + "\n" + escape(_(NETWORK_NOTE))),
    ]
    for kpi in KPIS:
        names = ", ".join(code(name) for name in kpi.fields)
        blocks.append(
            section(
                f"*{escape(_(kpi.name))}*\n"
                f"• {_(FORMULA)}: {escape(_(kpi.formula).format(**values))}\n"
                f"• {_(FIELDS)}: {names}\n"
                f"• {_(SCOPE)}: {escape(_(kpi.scope).format(**values))}\n"
                f"• {_(CANNOT_KNOW)}: {escape(_(kpi.cannot_know))}"
            )
        )
    blocks.append(context_line(":information_source: " + escape(_(NOT_IN_RECORDS))))
    return Reply(text=_(METRICS_TITLE), blocks=blocks)
