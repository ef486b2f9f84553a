"""Live calls and the campaign dialer, simulated on the emulator clock.

A live call rings, may be answered (connected to a free agent of the campaign, for an
autodialer), and ends as a call record whose ``id`` is the live call's ``call_id``; the
record is POSTed to the campaign's ``callback_url`` when it has one.  The campaign, lead
and agent of a live call live in this module's table, never on the wire: the agent
shows only as an extension among the call's parties (``presence``), and is on one live
call at most.  How calls progress depends on the call mode:

* ``timed``: each call has a planned ring and talk time and moves when the clock
  passes them (a ticker runs every 200 ms; ``advance`` replays everything in between
  in time order, so an hour passes in one request);
* ``manual``: calls move only when told (``/_emulator/calls/{id}/answer|hangup``);
* ``immediate``: a call ends as soon as it is placed, its record written at once.

A started autocall or autodialer campaign keeps up to ``concurrent_call`` calls to its
NEW leads (and RECALL leads whose time has come) in progress; pause or stop halts the
dialing, calls in progress finish normally.  Outcomes come from a generator seeded by
``--seed`` and reset with the emulator, so a test run is repeatable.
"""

from __future__ import annotations

import json
import random
import sqlite3
from typing import TYPE_CHECKING, Any

from callcenter.models import ActiveCall
from emulators.pbx import fakedata as fd
from emulators.pbx.errors import not_found, string_error, transfer_failed
from emulators.pbx.presence import on_calls, parties
from emulators.pbx.records import by_id
from emulators.pbx.schema import CDR_INSERT
from emulators.pbx.timeutil import fmt_service

if TYPE_CHECKING:
    from emulators.pbx.state import Domain, Emulator

MAX_STEPS = 200_000
"""Bound on the transitions one ``run_until`` replays (a runaway guard, never reached
by the seeded data)."""

LIVE_COLUMNS = (
    "call_id",
    "domain_uuid",
    "seq",
    "direction",
    "source",
    "destination",
    "dialed",
    "extension",
    "context",
    "receive_dest",
    "campaign_uuid",
    "lead_uuid",
    "app",
    "params",
    "customer_name",
    "sip_call_id",
    "created_at",
    "answered_at",
    "phase",
    "outcome",
    "ring_seconds",
    "talk_seconds",
    "due_at",
    "press_key",
    "transfers",
)
_LIVE_SELECT = ", ".join(LIVE_COLUMNS)

RECALL_NAMES = {
    "no-answered": "no-answered",
    "busy": "busy",
    "busy-line": "busy",
    "not-available": "not-available",
    "invalid": "invalid-number",
    "phone-block": "phone-block",
    "congestion": "congestion",
    "cancel": "failed",
    "drop": "failed",
}
"""Record status -> the campaign ``recall_status`` vocabulary."""


def _rows(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


class Simulator:
    def __init__(self, emu: Emulator) -> None:
        self.emu = emu
        self.mode = emu.config.call_mode
        self.rng = random.Random(f"sim:{emu.config.seed}")
        self._streams: dict[str, random.Random] = {}
        self._seq = 0

    def stream(self, key: str) -> random.Random:
        """The random stream of one source of calls (a campaign's dialer, the control
        surface, autocall imports): what one source does never shifts another's draws,
        so a test's calls come out the same however the background dialing interleaves."""
        rng = self._streams.get(key)
        if rng is None:
            rng = self._streams[key] = random.Random(f"sim:{self.emu.config.seed}:{key}")
        return rng

    @property
    def conn(self) -> sqlite3.Connection:
        return self.emu.conn

    def reset(self) -> None:
        self.mode = self.emu.config.call_mode
        self.rng = random.Random(f"sim:{self.emu.config.seed}")
        self._streams = {}
        self._seq = 0

    # --- reading ------------------------------------------------------------------------

    def live(self, call_id: str, domain_uuid: str | None = None) -> dict[str, Any] | None:
        sql = f"SELECT {_LIVE_SELECT} FROM live_calls WHERE call_id = ?"
        params: list[Any] = [call_id]
        if domain_uuid is not None:
            sql += " AND domain_uuid = ?"
            params.append(domain_uuid)
        found = _rows(self.conn.execute(sql, params))
        return found[0] if found else None

    def live_calls(self, domain_uuid: str | None = None) -> list[dict[str, Any]]:
        if domain_uuid is None:
            cursor = self.conn.execute(f"SELECT {_LIVE_SELECT} FROM live_calls ORDER BY seq")
        else:
            cursor = self.conn.execute(
                f"SELECT {_LIVE_SELECT} FROM live_calls WHERE domain_uuid = ? ORDER BY seq",
                (domain_uuid,),
            )
        return _rows(cursor)

    def record(self, domain_uuid: str, call_id: str) -> dict[str, Any] | None:
        """The call record a finished call left."""
        return by_id(self.conn, domain_uuid, call_id)

    def wire(self, row: dict[str, Any]) -> dict[str, Any]:
        """The Active call object of spec 2.13, and nothing more: the campaign, lead and
        agent of the call stay in the emulator's own state (the agent shows only as an
        extension among the parties, ``presence.parties``)."""
        source, destination = parties(row)
        call = ActiveCall(
            call_id=row["call_id"],
            context=row["context"],
            created_time=fmt_service(row["created_at"], self.emu.tz),
            destination=destination,
            direction=row["direction"],
            ip="10.10.0.21",
            source=source,
            state="CS_EXECUTE",
        )
        return call.model_dump(mode="json")

    def control_view(self, row: dict[str, Any]) -> dict[str, Any]:
        """A live call as the control surface shows it to tests: the wire object plus
        the emulator's own state of the call, which the service never sends."""
        return {
            **self.wire(row),
            "domain": self.emu.domains[row["domain_uuid"]].name,
            "phase": row["phase"],
            "outcome": row["outcome"],
            "due_at": row["due_at"],
            "extension": row["extension"],
            "campaign_uuid": row["campaign_uuid"],
            "lead_uuid": row["lead_uuid"],
        }

    # --- placing calls ------------------------------------------------------------------

    def originate(
        self,
        domain: Domain,
        *,
        at: float,
        direction: str,
        source: str,
        destination: str,
        extension: str = "",
        context: str = "default",
        receive_dest: str = "",
        campaign: dict[str, Any] | None = None,
        lead_uuid: str = "",
        app: str = "",
        params: dict[str, str] | None = None,
        customer_name: str = "",
        outcome: str | None = None,
        ring_seconds: float | None = None,
        talk_seconds: float | None = None,
        stream: str = "calls",
    ) -> dict[str, Any]:
        """Place a call; returns the live-call row (already ended in immediate mode).
        Its outcome and timings are drawn from the random ``stream`` named."""
        rng = self.stream(stream)
        kind = campaign["type"] if campaign else direction
        customer = destination if direction != "inbound" else source
        blocked = self.conn.execute(
            "SELECT 1 FROM blacklist WHERE domain_uuid = ? AND phone_number = ?",
            (domain.domain_uuid, customer),
        ).fetchone()
        if blocked and outcome is None:
            outcome, ring_seconds, talk_seconds = "phone-block", 0.0, 0.0
        if outcome is None:
            drawn = fd.pick(rng, fd.SIM_OUTCOMES.get(kind, fd.SIM_OUTCOMES["outbound"]))
            outcome = self.emu.incidents.outcome(
                drawn,
                direction=direction,
                customer=customer,
                campaign=(campaign["campaign_uuid"], str(campaign.get("campaign_name", "")))
                if campaign
                else None,
                at=at,
                rng=rng,
            )
        if ring_seconds is None:
            ring_seconds = {
                "answered": rng.uniform(3, 15),
                "no-answered": rng.uniform(20, 30),
                "busy": rng.uniform(3, 6),
                "busy-line": rng.uniform(3, 6),
                "drop": rng.uniform(4, 10),
            }.get(outcome, rng.uniform(3, 8))
        if talk_seconds is None:
            if outcome != "answered":
                talk_seconds = 0.0
            elif kind == "autocall":
                talk_seconds = rng.uniform(15, 60)
            else:
                talk_seconds = min(600.0, rng.lognormvariate(4.0, 0.7) + 10)
        self._seq += 1
        call_id = fd.new_uuid(rng)
        row: dict[str, Any] = {
            "call_id": call_id,
            "domain_uuid": domain.domain_uuid,
            "seq": self._seq,
            "direction": direction,
            "source": source,
            "destination": destination,
            "dialed": destination,
            "extension": extension,
            "context": context,
            "receive_dest": receive_dest,
            "campaign_uuid": campaign["campaign_uuid"] if campaign else "",
            "lead_uuid": lead_uuid,
            "app": app,
            "params": json.dumps(params, ensure_ascii=False) if params is not None else "",
            "customer_name": customer_name,
            "sip_call_id": f"{rng.getrandbits(64):016x}@{domain.name}",
            "created_at": at,
            "answered_at": None,
            "phase": "ringing",
            "outcome": outcome,
            "ring_seconds": ring_seconds,
            "talk_seconds": talk_seconds,
            "due_at": at + ring_seconds if self.mode == "timed" else None,
            "press_key": "",
            "transfers": 0,
        }
        busy = on_calls(self.conn, domain.domain_uuid)
        taken = [p for p in parties(row) if p in busy]
        if taken:
            raise string_error(f"extension {taken[0]} is already on a live call", 409)
        with self.emu.store.tx() as conn:
            conn.execute(
                f"INSERT INTO live_calls ({_LIVE_SELECT}) VALUES "
                f"({', '.join('?' * len(LIVE_COLUMNS))})",
                [row[c] for c in LIVE_COLUMNS],
            )
            if self.mode == "immediate":
                self._complete(row)
        return row

    def _complete(self, row: dict[str, Any]) -> dict[str, Any]:
        """Play a call through to its end at once (immediate mode)."""
        if row["phase"] == "ringing":
            connected = self._ring_over(row, row["created_at"] + row["ring_seconds"])
            if connected is None:
                record = by_id(self.conn, row["domain_uuid"], row["call_id"])
                assert record is not None
                return record
            row = connected
        return self._finish(row, row["answered_at"] + row["talk_seconds"], "answered")

    # --- progress -------------------------------------------------------------------------

    def run_until(self, target: float) -> None:
        """Replay every transition due up to ``target``, in time order, dialing as slots free."""
        if self.mode == "timed":
            for _ in range(MAX_STEPS):
                found = _rows(
                    self.conn.execute(
                        f"SELECT {_LIVE_SELECT} FROM live_calls WHERE due_at IS NOT NULL "
                        "AND due_at <= ? ORDER BY due_at, seq LIMIT 1",
                        (target,),
                    )
                )
                if not found:
                    break
                row = found[0]
                with self.emu.store.tx():
                    at = row["due_at"]
                    if row["phase"] == "ringing":
                        self._ring_over(row, at)
                    else:
                        self._finish(row, at, "answered")
                    self.dial(at)
        self.dial(target)

    def _ring_over(self, row: dict[str, Any], at: float) -> dict[str, Any] | None:
        """Ringing ends: connect (returns the updated row) or end with the planned outcome."""
        if row["outcome"] != "answered":
            self._finish(row, at, row["outcome"])
            return None
        return self._connect(row, at)

    def _connect(self, row: dict[str, Any], at: float) -> dict[str, Any] | None:
        extension = row["extension"]
        campaign = self._campaign(row["campaign_uuid"]) if row["campaign_uuid"] else None
        rng = self.stream(f"connect:{row['campaign_uuid']}")
        wants_agent = row["direction"] == "inbound" or (
            campaign is not None and campaign["type"] == "autodialer"
        )
        if wants_agent and not extension:
            extension = self._free_agent(row["domain_uuid"], row["campaign_uuid"], rng)
            if not extension:
                # Nobody free to take the customer: an abandoned (inbound) or dropped call.
                self._finish(row, at, "drop" if row["direction"] != "inbound" else "cancel")
                return None
        press_key = ""
        if row["app"] == "autocall" and rng.random() < 0.6:
            press_key = rng.choice(("1", "1", "2"))
        row = {
            **row,
            "phase": "active",
            "answered_at": at,
            "extension": extension,
            "press_key": press_key,
            "due_at": at + row["talk_seconds"] if self.mode == "timed" else None,
        }
        self.conn.execute(
            "UPDATE live_calls SET phase = 'active', answered_at = ?, extension = ?, "
            "press_key = ?, due_at = ? WHERE call_id = ?",
            (at, extension, press_key, row["due_at"], row["call_id"]),
        )
        if campaign is not None and campaign.get("answer_callback_url"):
            domain = self.emu.domains[row["domain_uuid"]]
            self.emu.callbacks.send(
                campaign["answer_callback_url"],
                {**self.wire(row), "time_answered": fmt_service(at, self.emu.tz)},
                event="answer",
                domain=domain.name,
            )
        return row

    def _free_agent(self, domain_uuid: str, campaign_uuid: str, rng: random.Random) -> str:
        """A ready agent (of the campaign, when there is one) who is on no live call."""
        if campaign_uuid:
            sql = (
                "SELECT DISTINCT u.extension FROM users u "
                "JOIN group_users gu ON gu.user_uuid = u.user_uuid "
                "JOIN group_campaigns gc ON gc.group_uuid = gu.group_uuid "
                "WHERE gc.campaign_uuid = ? AND u.domain_uuid = ? AND u.extension != '' "
                "AND u.user_status = 'Available' AND u.agent_status = 'RESUME' ORDER BY u.seq"
            )
            params: tuple[Any, ...] = (campaign_uuid, domain_uuid)
        else:
            sql = (
                "SELECT u.extension FROM users u WHERE u.domain_uuid = ? AND u.extension != '' "
                "AND u.user_status = 'Available' AND u.agent_status = 'RESUME' "
                "AND u.level = 'agent' ORDER BY u.seq"
            )
            params = (domain_uuid,)
        busy = on_calls(self.conn, domain_uuid)
        free = [r[0] for r in self.conn.execute(sql, params) if r[0] not in busy]
        return rng.choice(free) if free else ""

    def _campaign(self, campaign_uuid: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT body FROM campaigns WHERE campaign_uuid = ?", (campaign_uuid,)
        ).fetchone()
        if row is None:
            return None
        body: dict[str, Any] = json.loads(row[0])
        return body

    def _finish(self, row: dict[str, Any], at: float, status: str) -> dict[str, Any]:
        """End a live call: write its record, move its lead on, send the callback."""
        tz = self.emu.tz
        domain = self.emu.domains[row["domain_uuid"]]
        t_start = int(row["created_at"])
        t_end = max(int(at), t_start)
        answered = status == "answered" and row["answered_at"] is not None
        t_answer = int(row["answered_at"]) if answered else None
        record: dict[str, Any] = {
            "id": row["call_id"],
            "sip_call_id": row["sip_call_id"],
            "cause": fd.CAUSES.get(status, "NORMAL_CLEARING"),
            "duration": t_end - t_start,
            "billsec": t_end - t_answer if t_answer is not None else 0,
            "direction": row["direction"],
            "status": status,
            "extension": row["extension"],
            "from_number": row["source"],
            "to_number": row["dialed"],
            "receive_dest": row["receive_dest"],
            "time_started": fmt_service(t_start, tz),
            "time_ringging": fmt_service(t_start, tz),
            "time_answered": fmt_service(t_answer, tz) if t_answer is not None else "",
            "time_ended": fmt_service(t_end, tz),
            "app": row["app"],
            "campaign_uuid": row["campaign_uuid"],
            "lead_uuid": row["lead_uuid"],
            "customer_fullname": row["customer_name"],
            "sip_hangup_disposition": "send_bye" if answered else "send_refuse",
            "additional": json.loads(row["params"]) if row["params"] else None,
        }
        if answered:
            day = record["time_started"][:10].replace("-", "/")
            url = f"https://{domain.name}.pbx.example.com/recordings/{day}/{row['call_id']}.mp3"
            record["recording_url"] = url
            if row["app"] == "autocall":
                record["autocall_recording_url"] = url
                if row["press_key"] and t_answer is not None:
                    delay = min(5, t_end - t_answer)
                    record.update(
                        press_key=row["press_key"],
                        digits=row["press_key"],
                        time_presskey=fmt_service(t_answer + delay, tz),
                        autocall_presskey_epoch=str(t_answer + delay),
                        presskey_delay=delay,
                    )
        if row["extension"]:
            agent = self.conn.execute(
                "SELECT username, last_name, middle_name, first_name, email FROM users "
                "WHERE domain_uuid = ? AND extension = ?",
                (row["domain_uuid"], row["extension"]),
            ).fetchone()
            if agent is not None:
                record.update(
                    username=agent[0],
                    fullname=" ".join(p for p in agent[1:4] if p),
                    email=agent[4],
                )
        with self.emu.store.tx() as conn:
            conn.execute(CDR_INSERT, fd.cdr_row(domain.domain_uuid, t_start, t_end, record))
            conn.execute("DELETE FROM live_calls WHERE call_id = ?", (row["call_id"],))
            campaign = self._campaign(row["campaign_uuid"]) if row["campaign_uuid"] else None
            if row["lead_uuid"]:
                self._lead_called(row, campaign, status, t_start, at)
        wire = by_id(self.conn, domain.domain_uuid, row["call_id"])
        assert wire is not None
        if campaign is not None and campaign.get("callback_url"):
            self.emu.callbacks.send(campaign["callback_url"], wire, event="cdr", domain=domain.name)
        return wire

    def _lead_called(
        self,
        row: dict[str, Any],
        campaign: dict[str, Any] | None,
        status: str,
        t_start: int,
        at: float,
    ) -> None:
        found = self.conn.execute(
            "SELECT called_count FROM leads WHERE lead_uuid = ?", (row["lead_uuid"],)
        ).fetchone()
        if found is None:
            return
        called = int(found[0]) + 1
        next_call: float | None = None
        if status == "answered":
            lead_status = "DONE"
        elif (
            campaign is not None
            and row["context"] == "campaign"
            and RECALL_NAMES.get(status) in (campaign.get("recall_status") or [])
            and called <= int(campaign.get("recall_times") or 0)
        ):
            lead_status = "RECALL"
            next_call = at + 60 * int(campaign.get("schedule_recall_duration") or 0)
        else:
            lead_status = "FAILED"
        self.conn.execute(
            "UPDATE leads SET status = ?, called_count = ?, last_call_at = ?, next_call_at = ?, "
            "updated_at = ? WHERE lead_uuid = ?",
            (lead_status, called, t_start, next_call, at, row["lead_uuid"]),
        )

    # --- the dialer -----------------------------------------------------------------------

    def dial(self, at: float) -> None:
        """Fill every started dialing campaign up to its ``concurrent_call``."""
        started = self.conn.execute(
            "SELECT campaign_uuid, domain_uuid, concurrent_call, body FROM campaigns "
            "WHERE status = 'start' AND type IN ('autocall', 'autodialer') ORDER BY seq"
        ).fetchall()
        for campaign_uuid, domain_uuid, concurrent, body in started:
            live = 0
            if self.mode != "immediate":
                live = self.conn.execute(
                    "SELECT COUNT(*) FROM live_calls WHERE campaign_uuid = ?", (campaign_uuid,)
                ).fetchone()[0]
            slots = int(concurrent) - int(live)
            if slots <= 0:
                continue
            campaign = json.loads(body)
            recall_first = campaign.get("priority_recall") == "recall"
            leads = self.conn.execute(
                "SELECT l.lead_uuid, l.phone_number, l.body FROM leads l "
                "JOIN lists s ON s.list_uuid = l.list_uuid "
                "WHERE s.campaign_uuid = ? AND s.active = 1 AND ("
                "(l.status = 'NEW' AND l.created_at + l.after_day * 86400 <= ?) OR "
                "(l.status = 'RECALL' AND l.next_call_at <= ?)) "
                "ORDER BY CASE WHEN l.status = ? THEN 0 ELSE 1 END, l.seq LIMIT ?",
                (campaign_uuid, at, at, "RECALL" if recall_first else "NEW", slots),
            ).fetchall()
            domain = self.emu.domains[domain_uuid]
            carrier_caller = self._caller_id(campaign)
            for lead_uuid, phone, lead_body in leads:
                self.conn.execute(
                    "UPDATE leads SET status = 'CALLING', updated_at = ? WHERE lead_uuid = ?",
                    (at, lead_uuid),
                )
                self.originate(
                    domain,
                    at=at,
                    direction="outbound",
                    source=carrier_caller,
                    destination=phone,
                    context="campaign",
                    campaign=campaign,
                    lead_uuid=lead_uuid,
                    app=campaign["type"],
                    customer_name=json.loads(lead_body).get("lead_name", ""),
                    stream=campaign_uuid,
                )

    def _caller_id(self, campaign: dict[str, Any]) -> str:
        row = self.conn.execute(
            "SELECT body FROM carriers WHERE carrier_uuid = ?", (campaign.get("carrier_uuid", ""),)
        ).fetchone()
        return str(json.loads(row[0]).get("caller_id", "")) if row else ""

    # --- steering -------------------------------------------------------------------------

    def set_mode(self, mode: str, now: float) -> None:
        previous, self.mode = self.mode, mode
        if mode == previous:
            return
        with self.emu.store.tx() as conn:
            if mode == "manual":
                conn.execute("UPDATE live_calls SET due_at = NULL")
            elif mode == "timed":
                conn.execute(
                    "UPDATE live_calls SET due_at = MAX(?, CASE phase WHEN 'ringing' "
                    "THEN created_at + ring_seconds ELSE answered_at + talk_seconds END)",
                    (now,),
                )
            else:
                for row in self.live_calls():
                    self._complete(row)

    def answer(self, domain_uuid: str | None, call_id: str, now: float) -> dict[str, Any]:
        row = self.live(call_id, domain_uuid)
        if row is None:
            raise not_found("call")
        if row["phase"] != "ringing":
            raise string_error("call is already answered", 409)
        with self.emu.store.tx():
            connected = self._connect({**row, "outcome": "answered"}, now)
        if connected is None:
            record = by_id(self.conn, row["domain_uuid"], call_id)
            return {"call_id": call_id, "ended": True, "cdr": record}
        self.conn.execute(
            "UPDATE live_calls SET outcome = 'answered' WHERE call_id = ?", (call_id,)
        )
        return {**self.control_view(connected), "ended": False}

    def hangup(
        self, domain_uuid: str | None, call_id: str, now: float, status: str | None
    ) -> dict[str, Any]:
        row = self.live(call_id, domain_uuid)
        if row is None:
            raise not_found("call")
        if row["phase"] == "active":
            final = "answered"
        else:
            final = status or ("cancel" if row["direction"] == "inbound" else "no-answered")
            if final not in fd.CAUSES or final == "answered":
                raise string_error(
                    "status must be one of: " + ", ".join(s for s in fd.CAUSES if s != "answered")
                )
        return self._finish(row, now, final)

    def transfer(self, domain: Domain, call_id: str, ext: str, legs: str) -> None:
        """Move a live call to another extension: ``ext`` takes the agent's side of the
        call (``presence.parties``) and the record's ``extension``, whichever leg is
        named.  An extension already on another live call is refused (``USER_BUSY``),
        so an agent is never on two calls at once."""
        row = self.live(call_id, domain.domain_uuid)
        if row is None:
            raise transfer_failed("CALL_NOT_FOUND", 404)
        registered = self.conn.execute(
            "SELECT 1 FROM users WHERE domain_uuid = ? AND extension = ? AND user_enabled = 'true'",
            (domain.domain_uuid, ext),
        ).fetchone()
        if registered is None:
            raise transfer_failed("USER_NOT_REGISTERED")
        if ext in on_calls(self.conn, domain.domain_uuid, except_call=call_id):
            raise transfer_failed("USER_BUSY", 409)
        self.conn.execute(
            "UPDATE live_calls SET extension = ?, transfers = transfers + 1 WHERE call_id = ?",
            (ext, call_id),
        )
