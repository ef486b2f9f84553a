"""Start-up options of the emulator, shared by the CLI, ``create_app`` and the test server."""

from __future__ import annotations

from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from emulators.pbx.incidents import IncidentSpec
from emulators.pbx.volume import Volume

CALL_MODES: tuple[str, ...] = ("immediate", "timed", "manual")
"""How live calls progress: ended at once, on the emulator clock, or only when told."""

DEMO_API_KEYS: tuple[str, str] = ("demo-api-key", "demo-api-key-2")
"""Public demo keys of the two seeded domains (``demo`` and ``demo2``)."""


@dataclass(frozen=True)
class EmulatorConfig:
    seed: int = 1
    token_ttl: int = 3600
    latency_ms: int = 0
    error_rate: float = 0.0
    call_mode: str = "timed"
    db: str | None = None
    timezone: str = "UTC"
    tick_seconds: float = 0.2
    volume: Volume | None = None
    """A real call center's records on top of the seeded data (``--volume``)."""
    incidents: tuple[IncidentSpec, ...] = ()
    """Networks or campaigns that stop answering (``--incident``), placed on the day
    the emulator starts."""

    def __post_init__(self) -> None:
        if self.call_mode not in CALL_MODES:
            raise ValueError(f"call mode must be one of {', '.join(CALL_MODES)}")
        if not 0.0 <= self.error_rate <= 1.0:
            raise ValueError("error rate must be between 0 and 1")
        if self.token_ttl <= 0:
            raise ValueError("token TTL must be a positive number of seconds")
        if self.latency_ms < 0:
            raise ValueError("latency must not be negative")
        try:
            ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {self.timezone!r}") from exc

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)
