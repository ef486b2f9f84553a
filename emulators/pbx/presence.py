"""Who is on which live call, read from what the service shows of each call.

A live call shows two parties, ``source`` and ``destination`` (spec 2.13), and nothing
that names an agent or a campaign.  So the emulator puts the agent where a PBX would:
the agent's extension is the party on the call center's side, the destination of an
inbound call and the source of an outbound or local one, while the customer's number
stays on the other side.  Before an agent takes the call that side shows what was
dialled (the hotline of an inbound call) or the caller id the carrier presents (an
outbound campaign call).

"An agent is on a call" means exactly what a client can check: one of the call's
parties is the agent's extension.  Everything that counts agents on calls (the choice
of a free agent, the transfer check, the autodialer statistics) reads this one module,
so an agent is on at most one live call and is counted once.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any


def parties(row: Mapping[str, Any]) -> tuple[str, str]:
    """``(source, destination)`` as a live-call row shows them on the wire.

    ``extension`` is the agent the emulator connected (the record's ``extension``);
    ``source`` and ``destination`` are the parties the call was placed with."""
    agent = str(row["extension"] or "")
    source, destination = str(row["source"]), str(row["destination"])
    if row["direction"] == "inbound":
        return source, agent or destination
    return agent or source, destination


def on_calls(
    conn: sqlite3.Connection, domain_uuid: str, *, except_call: str | None = None
) -> dict[str, str]:
    """Every user extension of the domain that is a party of a live call, mapped to the
    ``campaign_uuid`` of that call (empty for a call of no campaign).  ``except_call``
    leaves one call out (the call a transfer moves)."""
    extensions = {
        r[0]
        for r in conn.execute(
            "SELECT extension FROM users WHERE domain_uuid = ? AND extension != ''",
            (domain_uuid,),
        )
    }
    found: dict[str, str] = {}
    for call_id, direction, source, destination, extension, campaign_uuid in conn.execute(
        "SELECT call_id, direction, source, destination, extension, campaign_uuid "
        "FROM live_calls WHERE domain_uuid = ? ORDER BY seq",
        (domain_uuid,),
    ):
        if call_id == except_call:
            continue
        row = {
            "direction": direction,
            "source": source,
            "destination": destination,
            "extension": extension,
        }
        for party in parties(row):
            if party in extensions:
                found[party] = campaign_uuid
    return found
