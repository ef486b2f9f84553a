"""A bad day on demand: one mobile network, or one campaign, stops answering.

``callops emulator --incident network=Viettel:answer=0.05:from=10:00`` (several may be
given; ``campaign=<name or uuid>`` in place of ``network=``; ``until=HH:MM`` ends it):
from that time on Vietnam's clock, outbound calls to that network's numbers (or of that
campaign) are answered with that probability and otherwise ring out unanswered
(``no-answered``).  It is what happens when a network flags a caller's number as spam,
or a brand name registered with one network stops showing: the demo and the tests use it
to show an anomaly alert being found.

It applies to the calls the simulation places (``Simulator.originate``) and to the
records the emulator generates for a time after the start (``--volume``'s today,
``/_emulator/cdrs/volume``), and is also set through ``/_emulator/incidents`` and the
demo console.  A number's network is read from its prefix with the same table as the
app's reports (``commands.kernel.networks``: ``phonenumbers``' carrier data, completed
by the Ministry's allocation), copied here because the emulator imports none of the
app; a test holds the two to agreeing.  The records carry nothing new: only their
``status`` (and what follows from it) changes.
"""

from __future__ import annotations

import functools
import random
import unicodedata
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import phonenumbers
from phonenumbers import carrier

VIETNAM = ZoneInfo("Asia/Ho_Chi_Minh")
"""Incident times are read on Vietnam's clock, whatever zone the emulator writes in."""

NETWORK_PREFIXES: dict[str, tuple[str, ...]] = {
    "Viettel": (
        "086", "096", "097", "098", "032", "033", "034", "035", "036", "037", "038", "039",
    ),
    "Vinaphone": ("088", "091", "094", "081", "082", "083", "084", "085"),
    "MobiFone": ("089", "090", "093", "070", "076", "077", "078", "079"),
    "Vietnamobile": ("092", "052", "056", "058"),
    "Gmobile": ("099", "059"),
    "iTel": ("087",),
    "Reddi": ("055",),
}  # fmt: skip
"""The Ministry's allocation of national 10-digit mobile prefixes (the app's table),
for the prefixes ``phonenumbers``' carrier data leaves unnamed."""
_PREFIX_NETWORK = {p: name for name, prefixes in NETWORK_PREFIXES.items() for p in prefixes}
_LIBRARY_NAMES = {"G-Mobile": "Gmobile", "Mobifone": "MobiFone", "VinaPhone": "Vinaphone"}


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isalnum()).lower()


_NETWORK_NAMES = {_fold(name): name for name in NETWORK_PREFIXES}


@functools.lru_cache(maxsize=65536)
def network_of(phone: str) -> str:
    """The network that issued ``phone`` (``0912…``, ``+84 912…``), or ``""``: the
    library's carrier name, else the Ministry's table, as the app reads it."""
    try:
        parsed = phonenumbers.parse(phone, "VN")
    except phonenumbers.NumberParseException:
        return ""
    if parsed.country_code != 84:
        return ""
    named = carrier.name_for_number(parsed, "en")
    if named:
        return _LIBRARY_NAMES.get(named, named)
    national = "0" + str(parsed.national_number)
    return _PREFIX_NETWORK.get(national[:3], "") if len(national) == 10 else ""


class IncidentError(ValueError):
    """An incident that cannot be read; the message says how to write it."""


HOW = "write network=<name>:answer=<0..1>:from=HH:MM[:until=HH:MM] (or campaign=<name>)"


@dataclass(frozen=True)
class IncidentSpec:
    """An incident as written: its times are clock times, placed on a day by ``at``."""

    network: str = ""
    campaign: str = ""
    answer: float = 0.0
    start: time = time(0, 0)
    until: time | None = None

    @classmethod
    def parse(cls, text: str) -> IncidentSpec:
        """``network=Viettel:answer=0.05:from=10:00[:until=11:30]``; a value's own colons
        (the times') stay with it."""
        pairs: list[list[str]] = []
        for part in text.strip().split(":"):
            if "=" in part:
                key, _, value = part.partition("=")
                pairs.append([key.strip().lower(), value.strip()])
            elif pairs:
                pairs[-1][1] += ":" + part.strip()
            else:
                raise IncidentError(f"cannot read incident {text!r}: {HOW}")
        values: dict[str, str] = {}
        for key, value in pairs:
            if key not in ("network", "campaign", "answer", "from", "until"):
                raise IncidentError(f"unknown incident key {key!r}: {HOW}")
            values[key] = value
        return cls.of(
            network=values.get("network"),
            campaign=values.get("campaign"),
            answer=values.get("answer"),
            start=values.get("from"),
            until=values.get("until"),
        )

    @classmethod
    def of(
        cls,
        *,
        network: str | None = None,
        campaign: str | None = None,
        answer: str | float | None = None,
        start: str | None = None,
        until: str | None = None,
    ) -> IncidentSpec:
        """Checks and builds one from its parts (the CLI's and the control API's)."""
        if bool(network) == bool(campaign):
            raise IncidentError(f"name one network or one campaign: {HOW}")
        name = ""
        if network:
            found = _NETWORK_NAMES.get(_fold(network))
            if found is None:
                raise IncidentError(
                    f"unknown network {network!r}; one of {', '.join(NETWORK_PREFIXES)}"
                )
            name = found
        if answer is None or answer == "":
            raise IncidentError(f"give answer=<share of calls answered, 0..1>: {HOW}")
        try:
            share = float(str(answer).strip().rstrip("%")) / (
                100.0 if str(answer).strip().endswith("%") else 1.0
            )
        except ValueError:
            raise IncidentError(f"answer must be a number from 0 to 1, not {answer!r}") from None
        if not 0.0 <= share <= 1.0:
            raise IncidentError(f"answer must be from 0 to 1, not {answer!r}")
        begin = _clock_time(start or "00:00", "from")
        end = _clock_time(until, "until") if until else None
        if end is not None and end == begin:
            raise IncidentError("until must differ from from")
        return cls(name, (campaign or "").strip(), share, begin, end)

    def at(self, now: float) -> Incident:
        """The incident placed on the day of ``now`` (Vietnam's clock): from ``start``
        that day (earlier today, or later), until the first ``until`` after it."""
        today = datetime.fromtimestamp(now, VIETNAM).date()
        begins = datetime.combine(today, self.start, tzinfo=VIETNAM)
        ends: float | None = None
        if self.until is not None:
            end = datetime.combine(today, self.until, tzinfo=VIETNAM)
            if end <= begins:
                end += timedelta(days=1)
            ends = end.timestamp()
        return Incident(self, begins.timestamp(), ends)

    def __str__(self) -> str:
        what = f"network={self.network}" if self.network else f"campaign={self.campaign}"
        text = f"{what}:answer={self.answer:g}:from={self.start:%H:%M}"
        return text + (f":until={self.until:%H:%M}" if self.until else "")


def _clock_time(text: str, name: str) -> time:
    try:
        hours, _, minutes = text.strip().partition(":")
        return time(int(hours), int(minutes or 0))
    except ValueError:
        raise IncidentError(f"{name} must be a time HH:MM, not {text!r}") from None


@dataclass(frozen=True)
class Incident:
    """An incident on the emulator's clock: from ``begins`` to ``ends`` (None: on)."""

    spec: IncidentSpec
    begins: float
    ends: float | None

    def covers(self, at: float) -> bool:
        return at >= self.begins and (self.ends is None or at < self.ends)

    def matches(self, customer: str, campaign: tuple[str, str] | None) -> bool:
        """Whether a call to ``customer`` (of ``campaign``: uuid and name) is hit."""
        spec = self.spec
        if spec.network:
            return network_of(customer) == spec.network
        if campaign is None:
            return False
        uuid, name = campaign
        return spec.campaign == uuid or _fold(spec.campaign) == _fold(name)

    def view(self) -> dict[str, object]:
        return {
            "incident": str(self.spec),
            "network": self.spec.network or None,
            "campaign": self.spec.campaign or None,
            "answer": self.spec.answer,
            "begins": self.begins,
            "ends": self.ends,
        }


class Incidents:
    """The incidents in force (set at start-up and through the control surface)."""

    def __init__(self, incidents: tuple[Incident, ...] = ()) -> None:
        self.items: list[Incident] = list(incidents)

    def __bool__(self) -> bool:
        return bool(self.items)

    def outcome(
        self,
        status: str,
        *,
        direction: str,
        customer: str,
        campaign: tuple[str, str] | None,
        at: float,
        rng: random.Random,
    ) -> str:
        """The status of an outbound call under the incidents: ``answered`` with the
        incident's probability, else ``no-answered``.  Draws from ``rng`` only when an
        incident applies, so without one every seeded stream stays as it was."""
        if direction != "outbound":
            return status
        for incident in self.items:
            if incident.covers(at) and incident.matches(customer, campaign):
                return "answered" if rng.random() < incident.spec.answer else "no-answered"
        return status

    def views(self) -> list[dict[str, object]]:
        return [incident.view() for incident in self.items]
