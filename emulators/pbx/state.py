"""The emulator as one object: configuration, clock, database, journal, faults,
callbacks and the call simulation, reset together.

Handlers reach it through ``emulator(request)``; everything runs on the server's event
loop thread, so no request or simulation step ever sees another half-done.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from fastapi import Request

from emulators.pbx.callbacks import CallbackSender
from emulators.pbx.clock import EmulatorClock
from emulators.pbx.config import EmulatorConfig
from emulators.pbx.faults import Faults
from emulators.pbx.incidents import Incidents
from emulators.pbx.journal import Journal
from emulators.pbx.seed import seed_database
from emulators.pbx.simulation import Simulator
from emulators.pbx.store import Store, new_database
from emulators.pbx.volume import seed_volume


@dataclass(frozen=True)
class Domain:
    domain_uuid: str
    name: str
    api_key: str
    client_id: str
    api_user_uuid: str
    hotlines: tuple[str, ...]


class Emulator:
    def __init__(self, config: EmulatorConfig) -> None:
        self.config = config
        self.tz = config.tz
        self.clock = EmulatorClock()
        self.incidents = self._start_incidents()
        """Networks or campaigns not answering now (``emulators.pbx.incidents``)."""
        pristine = new_database()
        seed_database(pristine, config.seed, self.clock.now(), self.tz)
        self.volume_records = 0
        if config.volume is not None:
            self.volume_records = seed_volume(
                pristine,
                config.seed,
                self.clock.now(),
                self.tz,
                config.volume,
                incidents=self.incidents,
            )
        self.store = Store(pristine, config.db, spill=config.volume is not None)
        self.journal = Journal()
        self.faults = Faults(config.latency_ms, config.error_rate, config.seed)
        self.callbacks = CallbackSender(self.journal, self.clock.now)
        self.domains = self._load_domains()
        self.sim = Simulator(self)

    def _start_incidents(self) -> Incidents:
        now = self.clock.now()
        return Incidents(tuple(spec.at(now) for spec in self.config.incidents))

    @property
    def conn(self) -> sqlite3.Connection:
        return self.store.conn

    def now(self) -> float:
        return self.clock.now()

    def _load_domains(self) -> dict[str, Domain]:
        rows = self.store.pristine.execute(
            "SELECT domain_uuid, domain_name, api_key, client_id, api_user_uuid, hotlines "
            "FROM domains"
        ).fetchall()
        return {
            row[0]: Domain(row[0], row[1], row[2], row[3], row[4], tuple(json.loads(row[5])))
            for row in rows
        }

    def domain_by_api_key(self, api_key: str) -> Domain | None:
        return next((d for d in self.domains.values() if d.api_key == api_key), None)

    def domain_by_name(self, name: str) -> Domain | None:
        return next(
            (d for d in self.domains.values() if name in (d.name, d.domain_uuid, d.api_key)),
            None,
        )

    def reset(self) -> None:
        """Back to the seeded state: data, clock, call mode, faults, journal and the
        incidents given at start-up."""
        self.store.reset()
        self.clock.reset()
        self.journal.clear()
        self.faults.reset()
        self.sim.reset()
        self.incidents.items = self._start_incidents().items

    def tick(self) -> None:
        self.sim.run_until(self.clock.now())


def emulator(request: Request) -> Emulator:
    emu = request.app.state.emulator
    assert isinstance(emu, Emulator)
    return emu
