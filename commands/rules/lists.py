"""The two lists of Decree 91/2020/ND-CP and what they mean for a call, in one place.

- The company's opt-out list ("Khách từ chối nhận cuộc gọi"): the customer said no.
  It refuses every call of every campaign, advertising or not, and no consent lifts it.
- The national registry ("Danh sách không quảng cáo"): numbers whose owners refuse
  advertising.  It refuses advertising calls, unless a valid consent covers the number
  (and the campaign, when the consent names one); service calls are not its business.

``list_refusal`` (one number, one campaign) and ``refused_numbers`` (many numbers going
into a list some campaigns dial) are the only places that read the lists for a call;
the guard (``commands/rules/guard.py``) and the lead checks call them.  ``dnc list`` and
``dnc export`` live here too: what the lists hold, their latest changes and versions.
"""

from __future__ import annotations

import csv
import tempfile
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block, DividerBlock, HeaderBlock, PlainTextObject

from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError, split_options
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.phones import show_phone
from commands.kernel.reply import Outcome, Reply, context_line, error, notice, section
from commands.kernel.text import day_time, escape, mention, number
from storage import Storage
from storage.call_lists import CALL, KEY, TYPED, OptOut, RegistryEntry, RegistryVersion
from storage.offload import off_loop

OPTOUT = "optout"
REGISTRY = "registry"
"""The lists by the audit log's and the export's words (a refusal's ``rule``)."""

OPTOUT_NAME = N_("the company's opt-out list (customers who refused further calls)")
REGISTRY_NAME = N_("the national Do Not Advertise registry")
OPTOUT_TITLE = N_("Company opt-out list")
REGISTRY_TITLE = N_("National Do Not Advertise registry")
LATEST = 5
"""Changes and versions ``dnc list`` shows."""


def decree() -> str:
    return _("Decree 91/2020/ND-CP")


def source_words(entry: OptOut) -> str:
    """Where an opt-out came from, in words (a call record's id as it came)."""
    if entry.source == CALL:
        return _("call record {call}").format(call=entry.call_id or "?")
    if entry.source == KEY:
        return _("pressed key (call record {call})").format(call=entry.call_id or "?")
    return _("typed")


@dataclass(frozen=True)
class ListRefusal:
    """A call the lists forbid: ``rule`` is ``optout`` or ``registry``; ``message``
    names the list and the decree, for the reader."""

    rule: str
    message: str


def lists_verdict(
    storage: Storage,
    team_id: str,
    phones: list[str],
    *,
    campaign_uuids: Collection[str],
    advertising: bool,
    now: float,
) -> dict[str, str]:
    """Which of ``phones`` the lists refuse (number -> ``optout`` or ``registry``) for a
    call from ``campaign_uuids`` (any of them, for leads several campaigns dial).
    Blocking: one trip off the loop does every look-up."""
    lists = storage.call_lists
    refused = dict.fromkeys(lists.on_optout(team_id, phones), OPTOUT)
    if not advertising:
        return refused
    listed = [p for p in lists.on_registry_now(team_id, phones) if p not in refused]
    if not listed:
        return refused
    covered = {
        c.phone
        for c in lists.consents_of(team_id, listed)
        if any(c.valid(now, uuid) for uuid in (*campaign_uuids, None))
    }
    refused.update((p, REGISTRY) for p in listed if p not in covered)
    return refused


def refusal_words(phone: str, rule: str) -> str:
    if rule == OPTOUT:
        return _(
            "{phone} is on {list} ({decree}): no campaign may call it until it is taken off."
        ).format(phone=show_phone(phone), list=_(OPTOUT_NAME), decree=decree())
    return _(
        "{phone} is on {list} ({decree}): no advertising call without the customer's "
        "consent (`consent add`)."
    ).format(phone=show_phone(phone), list=_(REGISTRY_NAME), decree=decree())


async def list_refusal(
    storage: Storage,
    team_id: str,
    phone: str,
    *,
    campaign_uuid: str,
    advertising: bool,
    now: datetime | None = None,
) -> ListRefusal | None:
    """Why the lists forbid a call to ``phone`` from ``campaign_uuid`` (advertising or
    not), or None: the opt-out list for every call, the registry for advertising calls
    no valid consent covers."""
    moment = (now or datetime.now(UTC)).timestamp()
    found = await off_loop(
        lists_verdict,
        storage,
        team_id,
        [phone],
        campaign_uuids=(campaign_uuid,),
        advertising=advertising,
        now=moment,
    )
    rule = found.get(phone)
    return ListRefusal(rule, refusal_words(phone, rule)) if rule else None


async def refused_numbers(
    storage: Storage,
    team_id: str,
    phones: list[str],
    *,
    campaign_uuids: Collection[str],
    advertising: bool,
) -> set[str]:
    """The numbers of ``phones`` the lists refuse for leads that ``campaign_uuids`` dial
    (``advertising``: any of them is)."""
    found = await off_loop(
        lists_verdict,
        storage,
        team_id,
        phones,
        campaign_uuids=campaign_uuids,
        advertising=advertising,
        now=datetime.now(UTC).timestamp(),
    )
    return set(found)


async def lists_field(storage: Storage, team_id: str) -> str:
    """The lists in a ``rules`` field: both, by name, with their sizes."""
    optouts, registry = await off_loop(_sizes, storage, team_id)
    return _("*Do-not-call lists*\n{optout}: {a}\n{registry}: {b}").format(
        optout=_(OPTOUT_TITLE), a=number(optouts), registry=_(REGISTRY_TITLE), b=number(registry)
    )


def _sizes(storage: Storage, team_id: str) -> tuple[int, int]:
    return storage.call_lists.optout_size(team_id), storage.call_lists.registry_size(team_id)


# --- dnc list ---------------------------------------------------------------------------


@dataclass
class Overview:
    optouts: int
    changes: list[tuple[str, str, str, float, str | None, str | None]]
    registry: int
    versions: list[tuple[int, float, str | None, str, int, int, int]]


def _overview(storage: Storage, team_id: str) -> Overview:
    lists = storage.call_lists
    changes = [
        (c.change, c.phone, c.source, c.at, c.changed_by, c.reason)
        for c in lists.optout_changes(team_id, limit=LATEST)
    ]
    versions = [
        (v.version, v.uploaded_at, v.uploaded_by, v.file_name, v.numbers, v.added, v.removed)
        for v in lists.registry_versions(team_id, limit=LATEST)
    ]
    return Overview(lists.optout_size(team_id), changes, lists.registry_size(team_id), versions)


def _change_line(change: tuple[str, str, str, float, str | None, str | None], tz: ZoneInfo) -> str:
    kind, phone, source, at, by, reason = change
    said = {TYPED: _("typed"), CALL: _("from a call record"), KEY: _("pressed key")}
    if kind == "add":
        line = _("• {when} {phone} added by {who} ({source})").format(
            when=day_time(at, tz),
            phone=show_phone(phone),
            who=mention(by) if by else "callops",
            source=said.get(source, source),
        )
    else:
        line = _("• {when} {phone} removed by {who}").format(
            when=day_time(at, tz), phone=show_phone(phone), who=mention(by)
        )
    return line + (f": {escape(reason)}" if reason else "")


def _version_line(version: tuple[int, float, str | None, str, int, int, int], tz: ZoneInfo) -> str:
    number_, at, by, file_name, numbers, added, removed = version
    return _(
        "• Version {version}: {when}, {who}, {file}: {n} numbers ({added} added, {removed} removed)"
    ).format(
        version=number_,
        when=day_time(at, tz),
        who=mention(by),
        file=escape(file_name),
        n=number(numbers),
        added=number(added),
        removed=number(removed),
    )


async def show_lists(ctx: CommandContext, args: list[str]) -> Outcome:
    if args:
        raise UsageError(_("dnc list takes no words."), usage_of("dnc list"))
    seen = await off_loop(_overview, ctx.storage, ctx.team_id)
    blocks: list[Block] = [HeaderBlock(text=PlainTextObject(text=_("Do-not-call lists")))]
    optout = ngettext(
        "*{title}*: {n} number. It refuses every call of every campaign ({decree}).",
        "*{title}*: {n} numbers. They refuse every call of every campaign ({decree}).",
        seen.optouts,
    ).format(title=_(OPTOUT_TITLE), n=number(seen.optouts), decree=decree())
    lines = [_change_line(c, ctx.tz) for c in seen.changes] or [_("No changes yet.")]
    blocks.append(section(optout + "\n" + "\n".join(lines)))
    blocks.append(DividerBlock())
    registry = ngettext(
        "*{title}*: {n} number. It refuses advertising calls without the customer's "
        "consent ({decree}).",
        "*{title}*: {n} numbers. They refuse advertising calls without the customer's "
        "consent ({decree}).",
        seen.registry,
    ).format(title=_(REGISTRY_TITLE), n=number(seen.registry), decree=decree())
    versions = [_version_line(v, ctx.tz) for v in seen.versions] or [
        _("Not uploaded yet: an admin shares the registry's file here and runs `dnc upload`.")
    ]
    blocks.append(section(registry + "\n" + "\n".join(versions)))
    blocks.append(
        context_line(
            _(
                "`dnc export` sends you both lists as a CSV; `dnc export version=N` the "
                "registry as version N had it."
            )
        )
    )
    text = _("{optout}: {a}; {registry}: {b}").format(
        optout=_(OPTOUT_TITLE),
        a=number(seen.optouts),
        registry=_(REGISTRY_TITLE),
        b=number(seen.registry),
    )
    return Reply(text=text, blocks=blocks)


# --- dnc export -------------------------------------------------------------------------

COLUMNS = ("number", "list", "source", "date", "who")


def write_export(
    storage: Storage, team_id: str, path: Path, version: int | None, tz: ZoneInfo
) -> int | None:
    """Write the CSV (blocking); how many rows, or None when ``version`` does not exist.
    Registry rows carry the number's registration date where its file had one, else the
    upload that brought it, and who uploaded that version."""
    lists = storage.call_lists
    chosen = lists.registry_version(team_id, version)
    if version is not None and chosen is None:
        return None
    versions = {v.version: v for v in lists.registry_versions(team_id, limit=1_000_000)}
    rows = 0
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        if version is None:
            for entry in lists.all_optouts(team_id):
                source = {TYPED: "typed", CALL: "call", KEY: "key"}.get(entry.source, entry.source)
                if entry.call_id:
                    source += f":{entry.call_id}"
                stamp = datetime.fromtimestamp(entry.added_at, tz).strftime("%Y-%m-%d %H:%M")
                writer.writerow((entry.phone, OPTOUT, source, stamp, entry.added_by or ""))
                rows += 1
        if chosen is not None:
            for item in _registry_rows(lists.registry_entries(team_id, chosen.version), versions):
                writer.writerow(item)
                rows += 1
    return rows


def _registry_rows(
    entries: Iterator[RegistryEntry], versions: dict[int, RegistryVersion]
) -> Iterator[tuple[str, ...]]:
    for entry in entries:
        since = versions.get(entry.since_version)
        registered = entry.registered_on or ""
        if not registered and since is not None:
            registered = datetime.fromtimestamp(since.uploaded_at, UTC).strftime("%Y-%m-%d")
        file_name = since.file_name if since is not None else ""
        by = (since.uploaded_by if since is not None else None) or ""
        yield (entry.phone, REGISTRY, f"upload:{file_name}", registered, by)


async def export(ctx: CommandContext, args: list[str]) -> Outcome:
    positional, options = split_options(args)
    unknown = [k for k in options if k.lower() != "version"]
    if positional or unknown:
        raise UsageError(_("dnc export takes only version=N."), usage_of("dnc export"))
    version: int | None = None
    if "version" in {k.lower() for k in options}:
        raw = next(v for k, v in options.items() if k.lower() == "version")
        if not raw.isdigit() or int(raw) < 1:
            raise UsageError(
                _("version= takes a version number (1, 2, ...)."), usage_of("dnc export")
            )
        version = int(raw)
    storage = ctx.storage
    with tempfile.TemporaryDirectory(prefix="callops-lists-") as folder:
        path = Path(folder) / "do-not-call.csv"
        rows = await off_loop(write_export, storage, ctx.team_id, path, version, ctx.tz)
        if rows is None:
            return error(
                _("The registry has no version {version}; `dnc list` shows its versions.").format(
                    version=version
                )
            )
        name = f"registry-v{version}.csv" if version else "do-not-call-lists.csv"
        sent = await ctx.files.send_to(
            ctx.user_id,
            filename=name,
            path=str(path),
            comment=ngettext(
                "{n} number of the do-not-call lists (number, list, source, date, who).",
                "{n} numbers of the do-not-call lists (number, list, source, date, who).",
                rows,
            ).format(n=number(rows)),
        )
    await ctx.audit("dnc.export", {"rows": rows, "version": version})
    if not sent:
        return error(_("I could not send you the file in a direct message."))
    return notice(
        _("I sent you the do-not-call lists in a direct message; only you can see them."),
        emoji=":lock:",
    )
