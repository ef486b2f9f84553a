"""Where callops's own tables hold a customer's number: one question per store.

``privacy find`` asks every store the same question, by the number in clear (its
national form, as every table keeps it) and by its keyed hash (what the privacy tables
and the audit log's reveal entries keep instead).  Each store answers through a
``HeldIn`` hook: the default hook reads every text column of a table that has a
``team_id`` (and opens its encrypted ``_enc`` columns, the approvals' parameters and the
feed's queued records among them),
and a store that knows better (the do-not-call and consent lists, rebuilt elsewhere)
registers its own with ``register``, which takes the place of the default for its table.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Table, Text, func, or_, select
from sqlalchemy.engine import Connection

from storage.database import Database
from storage.errors import SecretDecryptError
from storage.schema import metadata
from storage.secrets import SecretBox

SKIPPED = frozenset({"privacy_posts", "workspaces", "service_tokens", "slack_installations"})
"""Tables that hold no customer data (or, for ``privacy_posts``, are read by hash on
their own, with the posts they name)."""


@dataclass(frozen=True)
class Held:
    """How many rows of one table hold the number (in clear or as its hash)."""

    table: str
    rows: int
    in_clear: bool
    """Whether the number is there in clear (False: only its keyed hash)."""


HeldIn = Callable[[Connection, str, str, str], Held | None]
"""(connection, team id, number, keyed hash) -> what the table holds, or None."""

_HOOKS: dict[str, HeldIn] = {}


def register(table: str, hook: HeldIn) -> None:
    """A store's own answer for its table, in place of the default text search."""
    _HOOKS[table] = hook


def _escaped(text: str) -> str:
    return "%" + text.replace("/", "//").replace("%", "/%").replace("_", "/_") + "%"


def _default_hook(table: Table, box: SecretBox) -> HeldIn | None:
    columns = [
        c
        for c in table.columns
        if isinstance(c.type, Text) and not c.name.endswith("_enc") and c.name != "team_id"
    ]
    sealed = [c for c in table.columns if c.name.endswith("_enc")]
    if "team_id" not in table.c or not (columns or sealed):
        return None

    def opened(conn: Connection, team_id: str, phone: str) -> int:
        """Rows whose sealed columns hold the number (each opened and read)."""
        if not sealed:
            return 0
        rows = conn.execute(select(*sealed).where(table.c.team_id == team_id))
        found = 0
        for row in rows:
            for value in row:
                if value is None:
                    continue
                try:
                    plain = box.decrypt(str(value))
                except SecretDecryptError:
                    continue
                if phone in plain:
                    found += 1
                    break
        return found

    def held(conn: Connection, team_id: str, phone: str, phone_hash: str) -> Held | None:
        def count(needle: str) -> int:
            pattern = _escaped(needle)
            query = (
                select(func.count())
                .select_from(table)
                .where(
                    table.c.team_id == team_id,
                    or_(*(c.like(pattern, escape="/") for c in columns)),
                )
            )
            return int(conn.execute(query).scalar() or 0)

        clear = (count(phone) if columns else 0) + opened(conn, team_id, phone)
        if clear:
            return Held(table.name, clear, in_clear=True)
        hashed = count(phone_hash) if columns else 0
        return Held(table.name, hashed, in_clear=False) if hashed else None

    return held


def where_held(
    db: Database, box: SecretBox, team_id: str, phone: str, phone_hash: str
) -> list[Held]:
    """Every table of callops's own that holds ``phone`` for ``team_id``, in one read."""

    def work(conn: Connection) -> list[Held]:
        found: list[Held] = []
        for table in metadata.sorted_tables:
            if table.name in SKIPPED:
                continue
            hook = _HOOKS.get(table.name) or _default_hook(table, box)
            if hook is None:
                continue
            answer = hook(conn, team_id, phone, phone_hash)
            if answer is not None and answer.rows:
                found.append(answer)
        return found

    return db.read(work)


# --- erasing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Erased:
    """What erasing a number did to one table: ``how`` is ``hashed`` (the number replaced
    by its keyed hash), ``removed`` (the number taken out of the rows), ``kept`` (the rows
    could not be changed: ``why`` says so)."""

    table: str
    rows: int
    how: str
    why: str = ""


Eraser = Callable[[Connection, SecretBox, str, str, str], Erased | None]
"""(connection, box, team id, number, keyed hash) -> what was done, or None (nothing held)."""

_ERASERS: dict[str, Eraser] = {}

HASHED_PREFIX = "h:"
"""How a list that must still match a number holds it once erased: ``h:`` and its keyed
hash (the do-not-call list: the customer is never called again)."""


def register_eraser(table: str, eraser: Eraser) -> None:
    """A store's own way to erase a number from its table (the do-not-call and consent
    lists keep a hash; a queue drops its rows...)."""
    _ERASERS[table] = eraser


def _hash_column(table: Table, column: str) -> Eraser:
    """Replace the number in ``column`` by ``h:<keyed hash>``: a list that must still
    match it (``storage.call_lists`` looks the hashed form up too)."""

    def erase(
        conn: Connection, box: SecretBox, team_id: str, phone: str, phone_hash: str
    ) -> Erased | None:
        col = table.c[column]
        found = conn.execute(
            select(func.count()).select_from(table).where(table.c.team_id == team_id, col == phone)
        ).scalar()
        if not found:
            return None
        hashed = HASHED_PREFIX + phone_hash
        already = conn.execute(
            select(func.count()).select_from(table).where(table.c.team_id == team_id, col == hashed)
        ).scalar()
        if already and any(c.primary_key for c in [col]):
            conn.execute(table.delete().where(table.c.team_id == team_id, col == phone))
        else:
            conn.execute(
                table.update()
                .where(table.c.team_id == team_id, col == phone)
                .values({column: hashed})
            )
        return Erased(table.name, int(found), "hashed")

    return erase


def _scrub(text: str, phone: str) -> str:
    """``text`` without ``phone`` in any way callops writes it (national, grouped, masked,
    international)."""
    forms = [
        phone,
        f"{phone[:4]} {phone[4:7]} {phone[7:]}",
        f"{phone[:4]} *** {phone[7:]}",
        "84" + phone[1:],
    ]
    for form in forms:
        text = text.replace(form, ERASED)
    return text


ERASED = "[erased]"
"""What stands where an erased number was."""


def _erase_approvals(
    conn: Connection, box: SecretBox, team_id: str, phone: str, phone_hash: str
) -> Erased | None:
    """Settled requests lose the number from their parameters and result; a request still
    open keeps it (it may yet run) and is reported."""
    from storage.schema import approvals

    a = approvals.c
    rows = conn.execute(
        select(a.id, a.params_enc, a.result, a.state).where(a.team_id == team_id)
    ).mappings()
    changed = kept = 0
    for row in rows:
        try:
            params = box.decrypt(str(row["params_enc"]))
        except SecretDecryptError:
            continue
        result = str(row["result"] or "")
        if phone not in params and _scrub(result, phone) == result:
            continue
        if row["state"] in ("pending", "approved", "executing"):
            kept += 1
            continue
        conn.execute(
            approvals.update()
            .where(a.team_id == team_id, a.id == row["id"])
            .values(
                params_enc=box.encrypt(_scrub(params, phone)),
                result=_scrub(result, phone) if row["result"] is not None else None,
            )
        )
        changed += 1
    if kept:
        return Erased("approvals", kept, "kept", "open")
    return Erased("approvals", changed, "removed") if changed else None


def _append_only(
    conn: Connection, box: SecretBox, team_id: str, phone: str, phone_hash: str
) -> Erased | None:
    """The audit log is append-only (its triggers refuse any change): entries that hold
    the number stay, as the record of what was done with it, and are reported."""
    from storage.schema import audit_log

    held = _default_hook(audit_log, box)
    found = held(conn, team_id, phone, phone_hash) if held else None
    if found is None or not found.in_clear:
        return None
    return Erased("audit_log", found.rows, "kept", "append-only")


def _register_defaults() -> None:
    from storage.schema import (
        consents,
        frequency_locks,
        gate_decisions,
        optout_changes,
        optout_numbers,
        outbound_pushes,
        registry_numbers,
        registry_staging,
        rule_watch_records,
    )

    # The lists keep the number's hash: the customer is never called again.
    for table in (optout_numbers, optout_changes, registry_numbers, registry_staging, consents):
        register_eraser(table.name, _hash_column(table, "phone"))
    # The gate's evidence and the watch's records keep a hash of whom they were about.
    for table in (outbound_pushes, frequency_locks, gate_decisions, rule_watch_records):
        register_eraser(table.name, _hash_column(table, "phone"))
    register_eraser("approvals", _erase_approvals)
    register_eraser("audit_log", _append_only)


_register_defaults()


def erase_everywhere(
    db: Database, box: SecretBox, team_id: str, phone: str, phone_hash: str
) -> list[Erased]:
    """Erase ``phone`` from every table of callops's own, in one transaction: each table
    through its eraser; a table that holds it in clear with no eraser is reported kept."""

    def work(conn: Connection) -> list[Erased]:
        done: list[Erased] = []
        for table in metadata.sorted_tables:
            if table.name in SKIPPED or table.name == "privacy_requests":
                continue
            eraser = _ERASERS.get(table.name)
            if eraser is not None:
                result = eraser(conn, box, team_id, phone, phone_hash)
                if result is not None:
                    done.append(result)
                continue
            hook = _HOOKS.get(table.name) or _default_hook(table, box)
            found = hook(conn, team_id, phone, phone_hash) if hook else None
            if found is not None and found.rows and found.in_clear:
                done.append(Erased(table.name, found.rows, "kept", "no-eraser"))
        return done

    return db.write(work)


# --- ageing out ------------------------------------------------------------------------


def age_out(db: Database, box: SecretBox, team_id: str, before: float) -> dict[str, int]:
    """Hash the customers' numbers callops's own records made before ``before`` still hold
    in clear (retention): the advertising calls placed (the frequency rule looks back a
    day) and the settled requests' parameters and results.  The audit log is append-only
    and keeps its entries.  Returns the rows changed per table."""
    from storage.schema import approvals, outbound_pushes

    def work(conn: Connection) -> dict[str, int]:
        changed = {"outbound_pushes": 0, "approvals": 0}
        o = outbound_pushes.c
        old = conn.execute(
            select(o.id, o.phone).where(
                o.team_id == team_id, o.at < before, o.phone.not_like(HASHED_PREFIX + "%")
            )
        ).all()
        for row_id, phone in old:
            hashed = HASHED_PREFIX + box.keyed_hash(str(phone))
            conn.execute(outbound_pushes.update().where(o.id == row_id).values(phone=hashed))
            changed["outbound_pushes"] += 1
        a = approvals.c
        settled = conn.execute(
            select(a.id, a.params_enc, a.result).where(
                a.team_id == team_id,
                a.finished_at < before,
                a.state.in_(("done", "failed", "denied", "expired", "cancelled")),
            )
        ).all()
        for row_id, sealed, result in settled:
            try:
                params = json.loads(box.decrypt(str(sealed)))
            except (SecretDecryptError, ValueError):
                continue
            phone = params.get("phone_number") if isinstance(params, dict) else None
            if not isinstance(phone, str) or phone.startswith(HASHED_PREFIX):
                continue
            params["phone_number"] = HASHED_PREFIX + box.keyed_hash(phone)
            conn.execute(
                approvals.update()
                .where(a.id == row_id)
                .values(
                    params_enc=box.encrypt(json.dumps(params)),
                    result=_scrub(str(result), phone) if result is not None else None,
                )
            )
            changed["approvals"] += 1
        return changed

    return db.write(work)
