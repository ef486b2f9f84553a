"""Every ``/callops`` subcommand with its usage line, summary and the role it needs.

One table feeds the parser (longest match of the leading words), ``help``, the
permission check and the demo console's completion, so they cannot disagree.

Each command also has a Vietnamese alias typed without diacritics (``chien-dich`` for
``campaigns``, ``tam-dung tat-ca`` for ``pause all``; the table is in
``docs/glossary-vi.md``).  Both are matched folded, word by word, so ``chien dich``,
``Chiến dịch`` and ``chien-dich`` all name the campaigns command.  Usage lines and
summaries are marked for the catalog (``N_``) and translated where they are shown.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from commands.kernel.i18n import N_
from commands.kernel.matching import fold
from storage import Role


@dataclass(frozen=True)
class CommandSpec:
    name: str
    """The leading words, e.g. ``"pause all"`` or ``"digest add"``."""
    alias: str
    """The Vietnamese words, typed without diacritics: ``"tam-dung tat-ca"`` (a space
    between command words, hyphens inside one)."""
    usage: str
    """English and marked for the catalog (``N_``) where it has placeholders to
    translate; shown with ``_(spec.usage)``."""
    summary: str
    """Marked for the catalog; shown with ``_(spec.summary)``."""
    role: Role
    family: str
    examples: tuple[str, ...] = ()

    @functools.cached_property
    def words(self) -> tuple[str, ...]:
        return tuple(self.name.split())

    @functools.cached_property
    def alias_words(self) -> tuple[str, ...]:
        """The alias as it compares: folded, hyphens as spaces (``("tam", "dung")``)."""
        return tuple(fold(self.alias).split())

    @property
    def alias_usage(self) -> str:
        """The usage line with the alias in place of the English words."""
        return self.alias + self.usage[len(self.name) :]


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "help",
        "tro-giup",
        N_("help [command]"),
        N_("List the commands, or explain one."),
        Role.VIEWER,
        "general",
    ),
    CommandSpec(
        "connect",
        "ket-noi",
        "connect",
        N_("Connect this workspace to the call-center service."),
        Role.ADMIN,
        "general",
    ),
    CommandSpec(
        "disconnect",
        "ngat-ket-noi",
        "disconnect",
        N_("Forget this workspace's API key and tokens."),
        Role.ADMIN,
        "general",
    ),
    CommandSpec(
        "status",
        "trang-thai",
        "status",
        N_("Show the connection: domain and user behind the key."),
        Role.VIEWER,
        "general",
    ),
    CommandSpec(
        "campaigns",
        "chien-dich",
        "campaigns [autocall|autodialer|inbound|manual]",
        N_("List campaigns, optionally of one type."),
        Role.VIEWER,
        "campaigns",
        ("campaigns", "campaigns autocall"),
    ),
    CommandSpec(
        "campaign",
        "xem-chien-dich",
        N_("campaign <name>"),
        N_("A campaign's card: settings, schedule and live statistics."),
        Role.VIEWER,
        "campaigns",
        ('campaign "Summer sale"', "campaign summ"),
    ),
    CommandSpec(
        "start",
        "chay",
        N_("start <campaign>"),
        N_("Start a campaign (needs approval)."),
        Role.OPERATOR,
        "campaigns",
    ),
    CommandSpec(
        "pause",
        "tam-dung",
        N_("pause <campaign>"),
        N_("Pause a campaign."),
        Role.OPERATOR,
        "campaigns",
    ),
    CommandSpec(
        "pause all",
        "tam-dung tat-ca",
        "pause all",
        N_("Emergency brake: pause every started campaign."),
        Role.OPERATOR,
        "campaigns",
    ),
    CommandSpec(
        "stop",
        "dung",
        N_("stop <campaign>"),
        N_("Stop a campaign."),
        Role.OPERATOR,
        "campaigns",
    ),
    CommandSpec(
        "calls",
        "cuoc-goi",
        "calls",
        N_("Live calls, with Transfer buttons."),
        Role.VIEWER,
        "calls",
    ),
    CommandSpec(
        "transfer",
        "chuyen",
        N_("transfer <call_id> <ext> [aleg|bleg]"),
        N_("Transfer a live call to another extension."),
        Role.OPERATOR,
        "calls",
        ("transfer 7f3c… 1002 bleg",),
    ),
    CommandSpec(
        "autocall",
        "goi-tu-dong",
        N_("autocall <campaign> <phone> [key=value ...]"),
        N_("Push one automated call (opens a form when values are missing)."),
        Role.OPERATOR,
        "calls",
        ("autocall reminders 0912345678 name=An amount=150000",),
    ),
    CommandSpec(
        "lead",
        "khach-hang",
        N_("lead <lead_uuid> | lead <campaign|list_uuid> <phone> [key=value ...]"),
        N_(
            "Open a lead by its UUID, or insert one into a campaign's list (or a list by "
            "UUID); no phone opens a form."
        ),
        Role.VIEWER,
        "leads",
        ('lead "Summer sale" 0912345678 lead_name=An', "lead 0b6c…-… 0912345678"),
    ),
    CommandSpec(
        "leads upload",
        "khach-hang tai-len",
        N_("leads upload <campaign|list_uuid>"),
        N_("Check the CSV you shared here and upload it to a campaign's list (or a list)."),
        Role.OPERATOR,
        "leads",
        ('leads upload "Summer sale"',),
    ),
    CommandSpec(
        "list",
        "danh-sach-khach-hang",
        N_("list <list_uuid>"),
        N_("A lead list's totals."),
        Role.VIEWER,
        "leads",
    ),
    CommandSpec(
        "cdr",
        "ban-ghi",
        "cdr [id=] [phone=] [ext=] [status=] [direction=] [campaign=] [from=] [to=]",
        N_("Look up call records."),
        Role.VIEWER,
        "reports",
        ("cdr phone=0912345678", "cdr status=busy from=2026-11-01 to=2026-11-07"),
    ),
    CommandSpec(
        "stats",
        "thong-ke",
        "stats [today|yesterday|week|month] [interval=hour|day|week|month]",
        N_("Call statistics for a period."),
        Role.VIEWER,
        "reports",
        ("stats", "stats week interval=day"),
    ),
    CommandSpec(
        "monitor",
        "giam-sat",
        N_("monitor [campaign ...]"),
        N_("Autodialer statistics: leads, connection and dropped rates, agents."),
        Role.VIEWER,
        "reports",
    ),
    CommandSpec(
        "agents",
        "dtv",
        N_("agents [period]"),
        N_("Agent time: talk, wait, pause."),
        Role.VIEWER,
        "reports",
    ),
    CommandSpec(
        "extensions",
        "may-le",
        N_("extensions [period]"),
        N_("Calls per extension."),
        Role.VIEWER,
        "reports",
    ),
    CommandSpec(
        "users",
        "nguoi-dung",
        "users",
        N_("Users of the call center."),
        Role.VIEWER,
        "directory",
    ),
    CommandSpec(
        "groups",
        "nhom",
        "groups",
        N_("Groups of users."),
        Role.VIEWER,
        "directory",
    ),
    CommandSpec(
        "templates",
        "mau-loi-thoai",
        "templates",
        N_("Call templates and their placeholders."),
        Role.VIEWER,
        "directory",
    ),
    CommandSpec(
        "carriers",
        "nha-mang",
        "carriers",
        N_("Carriers and their free capacity."),
        Role.VIEWER,
        "directory",
    ),
    CommandSpec(
        "gateways",
        "cong-ket-noi",
        "gateways",
        N_("SIP gateways."),
        Role.VIEWER,
        "directory",
    ),
    CommandSpec(
        "blacklist",
        "danh-sach-chan",
        "blacklist",
        N_("Blocked numbers."),
        Role.VIEWER,
        "directory",
    ),
    CommandSpec(
        "group add",
        "nhom them",
        N_("group add <name> [-- <description>]"),
        N_("Create a group."),
        Role.OPERATOR,
        "directory",
    ),
    CommandSpec(
        "group edit",
        "nhom sua",
        N_("group edit <name>"),
        N_("Edit a group (opens a form)."),
        Role.OPERATOR,
        "directory",
    ),
    CommandSpec(
        "user edit",
        "nguoi-dung sua",
        N_("user edit <username>"),
        N_("Edit a user (opens a form)."),
        Role.ADMIN,
        "directory",
    ),
    CommandSpec(
        "digest add",
        "ban-tin them",
        N_(
            "digest add #channel <daily HH:MM|weekdays HH:MM|weekly <day> HH:MM|hourly|cron>"
            " [campaign ...] [sections=totals,campaigns,agents,chart] [lang=vi|en]"
        ),
        N_("Schedule a statistics digest."),
        Role.OPERATOR,
        "digests",
        ("digest add #digests daily 08:00", 'digest add #digests "0 8 * * 1-5" Summer'),
    ),
    CommandSpec(
        "digest list",
        "ban-tin danh-sach",
        "digest list",
        N_("Scheduled digests."),
        Role.VIEWER,
        "digests",
    ),
    CommandSpec(
        "digest remove",
        "ban-tin xoa",
        "digest remove <id>",
        N_("Delete a digest."),
        Role.OPERATOR,
        "digests",
    ),
    CommandSpec(
        "digest pause",
        "ban-tin tam-dung",
        "digest pause <id>",
        N_("Pause a digest."),
        Role.OPERATOR,
        "digests",
    ),
    CommandSpec(
        "digest resume",
        "ban-tin tiep-tuc",
        "digest resume <id>",
        N_("Resume a digest."),
        Role.OPERATOR,
        "digests",
    ),
    CommandSpec(
        "digest run",
        "ban-tin gui",
        "digest run <id>",
        N_("Post a digest now."),
        Role.OPERATOR,
        "digests",
    ),
    CommandSpec(
        "digest preview",
        "ban-tin xem-truoc",
        "digest preview [id]",
        N_("Show a digest to you only."),
        Role.VIEWER,
        "digests",
    ),
    CommandSpec(
        "alert add",
        "canh-bao them",
        N_("alert add #channel <metric> <op> <value> [campaign] [window] [lang=vi|en]"),
        N_("Alert a channel when a statistic crosses a threshold."),
        Role.OPERATOR,
        "digests",
        ("alert add #call-center dropped_rate > 5",),
    ),
    CommandSpec(
        "alert list",
        "canh-bao danh-sach",
        "alert list",
        N_("Threshold alerts."),
        Role.VIEWER,
        "digests",
    ),
    CommandSpec(
        "alert remove",
        "canh-bao xoa",
        "alert remove <id>",
        N_("Delete an alert."),
        Role.OPERATOR,
        "digests",
    ),
    CommandSpec(
        "notify",
        "thong-bao",
        "notify [add|list|remove|attach|detach|rotate]",
        N_("Post call records from the service's callbacks to channels."),
        Role.ADMIN,
        "notifications",
    ),
    CommandSpec(
        "policy",
        "chinh-sach",
        "policy",
        N_("Show or change who must approve what."),
        Role.ADMIN,
        "admin",
    ),
    CommandSpec(
        "policy set",
        "chinh-sach dat",
        N_(
            "policy set <kind> mode=approval|confirm|none approvers=admins|@a,@b self=yes|no "
            "expiry=30m"
        ),
        N_("Change what one kind of action needs."),
        Role.ADMIN,
        "admin",
        ("policy set campaign.start approvers=admins self=no expiry=30m",),
    ),
    CommandSpec(
        "policy channel",
        "chinh-sach kenh",
        "policy channel #channel|none",
        N_("Where approval cards are posted."),
        Role.ADMIN,
        "admin",
    ),
    CommandSpec(
        "role",
        "vai-tro",
        "role @user|workflows admin|operator|viewer",
        N_("Give a Slack user, or workflows run without a person, a role."),
        Role.ADMIN,
        "admin",
    ),
    CommandSpec(
        "listen",
        "nghe-thu",
        N_("listen <campaign> [key=value ...]"),
        N_("What a customer will hear from an autocall, without calling anyone."),
        Role.VIEWER,
        "calls",
        ("listen reminders amount=1500000 due=31/12/2026",),
    ),
    CommandSpec(
        "rules",
        "quy-dinh",
        "rules",
        N_("The calling rules: hours, calls per number, do-not-call list (Decree 91)."),
        Role.VIEWER,
        "rules",
    ),
    CommandSpec(
        "rules hours",
        "quy-dinh gio",
        N_("rules hours HH:MM-HH:MM [campaign]"),
        N_("When advertising calls may be made, for all or one campaign."),
        Role.ADMIN,
        "rules",
        ("rules hours 08:00-17:00",),
    ),
    CommandSpec(
        "rules advertising",
        "quy-dinh quang-cao",
        N_("rules advertising <campaign> on|off"),
        N_("Whether the calling rules apply to a campaign."),
        Role.ADMIN,
        "rules",
    ),
    CommandSpec(
        "rules frequency",
        "quy-dinh tan-suat",
        "rules frequency <N>",
        N_("Advertising calls one number may get in 24 hours."),
        Role.ADMIN,
        "rules",
    ),
    CommandSpec(
        "dnc add",
        "khong-goi them",
        N_("dnc add <phone> ..."),
        N_("Put numbers on the do-not-call list."),
        Role.OPERATOR,
        "rules",
        ("dnc add 0912 345 678",),
    ),
    CommandSpec(
        "dnc remove",
        "khong-goi xoa",
        N_("dnc remove <phone> ..."),
        N_("Take numbers off the do-not-call list."),
        Role.ADMIN,
        "rules",
    ),
    CommandSpec(
        "dnc check",
        "khong-goi kiem-tra",
        N_("dnc check <phone> ..."),
        N_("Whether numbers may be called."),
        Role.VIEWER,
        "rules",
    ),
    CommandSpec(
        "dnc upload",
        "khong-goi tai-len",
        "dnc upload",
        N_("Add every number of the CSV you shared here to the do-not-call list."),
        Role.OPERATOR,
        "rules",
    ),
    CommandSpec(
        "language",
        "ngon-ngu",
        "language vi|en|auto",
        N_("The language callops answers you in (auto: your Slack language)."),
        Role.VIEWER,
        "general",
        ("language vi", "language auto"),
    ),
    CommandSpec(
        "settings",
        "cai-dat",
        "settings [language vi|en] [timezone <IANA name>] [names family-first|given-first] "
        "[mask-phones on|off]",
        N_("Show or change the workspace's language, time zone, names and masked numbers."),
        Role.ADMIN,
        "admin",
        ("settings language vi", "settings timezone Asia/Ho_Chi_Minh", "settings mask-phones on"),
    ),
)


def _by_words() -> dict[tuple[str, ...], CommandSpec]:
    table: dict[tuple[str, ...], CommandSpec] = {}
    for spec in COMMANDS:
        for words in (spec.words, spec.alias_words):
            if words in table:
                raise ValueError(f"{words!r} names both {table[words].name} and {spec.name}")
            table[words] = spec
    return table


_BY_WORDS = _by_words()
"""The commands by their words, English and Vietnamese (folded): a typed line is looked
up a few words at a time (the observer naming the request for its logs and metrics,
then the dispatcher)."""
MAX_WORDS = max(len(words) for words in _BY_WORDS)
"""The most words a command is written with (``ban tin xem truoc``)."""


def match(tokens: list[str]) -> tuple[CommandSpec, list[str]] | None:
    """The command whose words lead ``tokens`` (longest match wins), and the rest.
    Words compare folded: ``Campaign``, ``CAMPAIGNS`` and ``Digest  Add`` all count, and
    so do the Vietnamese words with or without hyphens or diacritics (``chien-dich``,
    ``chien dich``, ``chiến dịch``).  A token is never split: ``tam-dung-tat-ca`` is
    ``pause all``, but no command ends in the middle of a word."""
    best: tuple[CommandSpec, int] | None = None
    words: list[str] = []
    for count, token in enumerate(tokens, start=1):
        folded = fold(token).split()
        if not folded:
            break
        words.extend(folded)
        if len(words) > MAX_WORDS:
            break
        spec = _BY_WORDS.get(tuple(words))
        if spec is not None:
            best = (spec, count)
    if best is None:
        return None
    spec, count = best
    return spec, tokens[count:]


def heads() -> dict[str, list[CommandSpec]]:
    """The commands by the word they start with, folded, in both languages: ``digest``
    and ``ban tin`` each name the digest commands (``help digest``)."""
    grouped: dict[str, list[CommandSpec]] = {}
    for spec in COMMANDS:
        grouped.setdefault(spec.words[0], []).append(spec)
        head = fold(spec.alias.split()[0])
        if head != spec.words[0]:
            grouped.setdefault(head, []).append(spec)
    return grouped


def find(name: str) -> CommandSpec | None:
    for spec in COMMANDS:
        if spec.name == name:
            return spec
    return None


def usage_of(name: str) -> str:
    """How to write the command ``name``, for a ``UsageError``.  An unknown name is a
    mistake in the code, not in the input, so it fails loudly instead of guessing."""
    spec = find(name)
    if spec is None:
        raise LookupError(f"no command is called {name!r}")
    return spec.usage


def role_allows(role: Role, needed: Role) -> bool:
    """Whether someone with ``role`` may run what needs ``needed`` (admin > operator > viewer)."""
    return role.at_least(needed)
