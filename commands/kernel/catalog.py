"""Every ``/callops`` subcommand with its usage line, summary and the role it needs.

One table feeds the parser (longest match of the leading words), ``help``, the
permission check and the demo console's completion, so they cannot disagree.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from commands.kernel.matching import fold
from storage import Role


@dataclass(frozen=True)
class CommandSpec:
    name: str
    """The leading words, e.g. ``"pause all"`` or ``"digest add"``."""
    usage: str
    summary: str
    role: Role
    family: str
    examples: tuple[str, ...] = ()

    @functools.cached_property
    def words(self) -> tuple[str, ...]:
        return tuple(self.name.split())


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "help", "help [command]", "List the commands, or explain one.", Role.VIEWER, "general"
    ),
    CommandSpec(
        "connect",
        "connect",
        "Connect this workspace to the call-center service.",
        Role.ADMIN,
        "general",
    ),
    CommandSpec(
        "disconnect",
        "disconnect",
        "Forget this workspace's API key and tokens.",
        Role.ADMIN,
        "general",
    ),
    CommandSpec(
        "status",
        "status",
        "Show the connection: domain and user behind the key.",
        Role.VIEWER,
        "general",
    ),
    CommandSpec(
        "campaigns",
        "campaigns [autocall|autodialer|inbound|manual]",
        "List campaigns, optionally of one type.",
        Role.VIEWER,
        "campaigns",
        ("campaigns", "campaigns autocall"),
    ),
    CommandSpec(
        "campaign",
        "campaign <name>",
        "A campaign's card: settings, schedule and live statistics.",
        Role.VIEWER,
        "campaigns",
        ('campaign "Summer sale"', "campaign summ"),
    ),
    CommandSpec(
        "start",
        "start <campaign>",
        "Start a campaign (needs approval).",
        Role.OPERATOR,
        "campaigns",
    ),
    CommandSpec("pause", "pause <campaign>", "Pause a campaign.", Role.OPERATOR, "campaigns"),
    CommandSpec(
        "pause all",
        "pause all",
        "Emergency brake: pause every started campaign.",
        Role.OPERATOR,
        "campaigns",
    ),
    CommandSpec("stop", "stop <campaign>", "Stop a campaign.", Role.OPERATOR, "campaigns"),
    CommandSpec("calls", "calls", "Live calls, with Transfer buttons.", Role.VIEWER, "calls"),
    CommandSpec(
        "transfer",
        "transfer <call_id> <ext> [aleg|bleg]",
        "Transfer a live call to another extension.",
        Role.OPERATOR,
        "calls",
        ("transfer 7f3c… 1002 bleg",),
    ),
    CommandSpec(
        "autocall",
        "autocall <campaign> <phone> [key=value ...]",
        "Push one automated call (opens a form when values are missing).",
        Role.OPERATOR,
        "calls",
        ("autocall reminders 0912345678 name=An amount=150000",),
    ),
    CommandSpec(
        "lead",
        "lead <campaign|list_uuid> <phone> [key=value ...]",
        "Insert one lead into a campaign's list (or a list by UUID); no phone opens a form.",
        Role.OPERATOR,
        "leads",
        ('lead "Summer sale" 0912345678 lead_name=An', "lead 0b6c…-… 0912345678"),
    ),
    CommandSpec(
        "leads upload",
        "leads upload <campaign|list_uuid>",
        "Check the CSV you shared here and upload it to a campaign's list (or a list).",
        Role.OPERATOR,
        "leads",
        ('leads upload "Summer sale"',),
    ),
    CommandSpec("list", "list <list_uuid>", "A lead list's totals.", Role.VIEWER, "leads"),
    CommandSpec(
        "cdr",
        "cdr [id=] [phone=] [ext=] [status=] [direction=] [campaign=] [from=] [to=]",
        "Look up call records.",
        Role.VIEWER,
        "reports",
        ("cdr phone=0912345678", "cdr status=busy from=2026-11-01 to=2026-11-07"),
    ),
    CommandSpec(
        "stats",
        "stats [today|yesterday|week|month] [interval=hour|day|week|month]",
        "Call statistics for a period.",
        Role.VIEWER,
        "reports",
        ("stats", "stats week interval=day"),
    ),
    CommandSpec(
        "monitor",
        "monitor [campaign ...]",
        "Autodialer statistics: leads, connection and dropped rates, agents.",
        Role.VIEWER,
        "reports",
    ),
    CommandSpec(
        "agents", "agents [period]", "Agent time: talk, wait, pause.", Role.VIEWER, "reports"
    ),
    CommandSpec(
        "extensions", "extensions [period]", "Calls per extension.", Role.VIEWER, "reports"
    ),
    CommandSpec("users", "users", "Users of the call center.", Role.VIEWER, "directory"),
    CommandSpec("groups", "groups", "Groups of users.", Role.VIEWER, "directory"),
    CommandSpec(
        "templates", "templates", "Call templates and their placeholders.", Role.VIEWER, "directory"
    ),
    CommandSpec(
        "carriers", "carriers", "Carriers and their free capacity.", Role.VIEWER, "directory"
    ),
    CommandSpec("gateways", "gateways", "SIP gateways.", Role.VIEWER, "directory"),
    CommandSpec("blacklist", "blacklist", "Blocked numbers.", Role.VIEWER, "directory"),
    CommandSpec(
        "group add", "group add <name> [description]", "Create a group.", Role.OPERATOR, "directory"
    ),
    CommandSpec(
        "group edit",
        "group edit <name>",
        "Edit a group (opens a form).",
        Role.OPERATOR,
        "directory",
    ),
    CommandSpec(
        "user edit", "user edit <username>", "Edit a user (opens a form).", Role.ADMIN, "directory"
    ),
    CommandSpec(
        "digest add",
        "digest add #channel <daily HH:MM|weekdays HH:MM|weekly <day> HH:MM|hourly|cron>"
        " [campaign ...] [sections=totals,campaigns,agents,chart]",
        "Schedule a statistics digest.",
        Role.OPERATOR,
        "digests",
        ("digest add #digests daily 08:00", 'digest add #digests "0 8 * * 1-5" Summer'),
    ),
    CommandSpec("digest list", "digest list", "Scheduled digests.", Role.VIEWER, "digests"),
    CommandSpec(
        "digest remove", "digest remove <id>", "Delete a digest.", Role.OPERATOR, "digests"
    ),
    CommandSpec("digest pause", "digest pause <id>", "Pause a digest.", Role.OPERATOR, "digests"),
    CommandSpec(
        "digest resume", "digest resume <id>", "Resume a digest.", Role.OPERATOR, "digests"
    ),
    CommandSpec("digest run", "digest run <id>", "Post a digest now.", Role.OPERATOR, "digests"),
    CommandSpec(
        "digest preview",
        "digest preview [id]",
        "Show a digest to you only.",
        Role.VIEWER,
        "digests",
    ),
    CommandSpec(
        "alert add",
        "alert add #channel <metric> <op> <value> [campaign] [window]",
        "Alert a channel when a statistic crosses a threshold.",
        Role.OPERATOR,
        "digests",
        ("alert add #call-center dropped_rate > 5",),
    ),
    CommandSpec("alert list", "alert list", "Threshold alerts.", Role.VIEWER, "digests"),
    CommandSpec("alert remove", "alert remove <id>", "Delete an alert.", Role.OPERATOR, "digests"),
    CommandSpec(
        "notify",
        "notify [add|list|remove|attach|detach|rotate]",
        "Post call records from the service's callbacks to channels.",
        Role.ADMIN,
        "notifications",
    ),
    CommandSpec("policy", "policy", "Show or change who must approve what.", Role.ADMIN, "admin"),
    CommandSpec(
        "policy set",
        "policy set <kind> mode=approval|confirm|none approvers=admins|@a,@b self=yes|no "
        "expiry=30m",
        "Change what one kind of action needs.",
        Role.ADMIN,
        "admin",
        ("policy set campaign.start approvers=admins self=no expiry=30m",),
    ),
    CommandSpec(
        "policy channel",
        "policy channel #channel|none",
        "Where approval cards are posted.",
        Role.ADMIN,
        "admin",
    ),
    CommandSpec(
        "role",
        "role @user|workflows admin|operator|viewer",
        "Give a Slack user, or workflows run without a person, a role.",
        Role.ADMIN,
        "admin",
    ),
    CommandSpec(
        "listen",
        "listen <campaign> [key=value ...]",
        "What a customer will hear from an autocall, without calling anyone.",
        Role.VIEWER,
        "calls",
        ("listen reminders amount=1500000 due=31/12/2026",),
    ),
    CommandSpec(
        "rules",
        "rules",
        "The calling rules: hours, calls per number, do-not-call list (Decree 91).",
        Role.VIEWER,
        "rules",
    ),
    CommandSpec(
        "rules hours",
        "rules hours HH:MM-HH:MM [campaign]",
        "When advertising calls may be made, for all or one campaign.",
        Role.ADMIN,
        "rules",
        ("rules hours 08:00-17:00",),
    ),
    CommandSpec(
        "rules advertising",
        "rules advertising <campaign> on|off",
        "Whether the calling rules apply to a campaign.",
        Role.ADMIN,
        "rules",
    ),
    CommandSpec(
        "rules frequency",
        "rules frequency <N>",
        "Advertising calls one number may get in 24 hours.",
        Role.ADMIN,
        "rules",
    ),
    CommandSpec(
        "dnc add",
        "dnc add <phone> ...",
        "Put numbers on the do-not-call list.",
        Role.OPERATOR,
        "rules",
        ("dnc add 0912 345 678",),
    ),
    CommandSpec(
        "dnc remove",
        "dnc remove <phone> ...",
        "Take numbers off the do-not-call list.",
        Role.ADMIN,
        "rules",
    ),
    CommandSpec(
        "dnc check",
        "dnc check <phone> ...",
        "Whether numbers may be called.",
        Role.VIEWER,
        "rules",
    ),
    CommandSpec(
        "dnc upload",
        "dnc upload",
        "Add every number of the CSV you shared here to the do-not-call list.",
        Role.OPERATOR,
        "rules",
    ),
)


def _by_first_word() -> dict[str, tuple[CommandSpec, ...]]:
    table: dict[str, list[CommandSpec]] = {}
    for spec in COMMANDS:
        table.setdefault(spec.words[0], []).append(spec)
    return {word: tuple(specs) for word, specs in table.items()}


_BY_FIRST_WORD = _by_first_word()
"""The commands by their first word: a typed line is matched against one short list
(the observer naming the request for its logs and metrics, then the dispatcher)."""


def match(tokens: list[str]) -> tuple[CommandSpec, list[str]] | None:
    """The command whose words lead ``tokens`` (longest match wins), and the rest.
    Words compare folded: ``Campaign``, ``CAMPAIGNS`` and ``Digest  Add`` all count."""
    lowered = [fold(t) for t in tokens[:3]]
    best: CommandSpec | None = None
    for spec in _BY_FIRST_WORD.get(lowered[0], ()) if lowered else ():
        words = spec.words
        if tuple(lowered[: len(words)]) == words and (best is None or len(words) > len(best.words)):
            best = spec
    if best is None:
        return None
    return best, tokens[len(best.words) :]


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
