"""Every ``/callops`` subcommand with its usage line, summary and the role it needs.

One table feeds the parser (longest match of the leading words), ``help``, the
permission check and the demo console's completion, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Role = Literal["viewer", "operator", "admin"]
ROLE_RANK: dict[str, int] = {"viewer": 0, "operator": 1, "admin": 2}


@dataclass(frozen=True)
class CommandSpec:
    name: str
    """The leading words, e.g. ``"pause all"`` or ``"digest add"``."""
    usage: str
    summary: str
    role: Role
    family: str
    examples: tuple[str, ...] = ()

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(self.name.split())


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "help", "help [command]", "List the commands, or explain one.", "viewer", "general"
    ),
    CommandSpec(
        "connect",
        "connect",
        "Connect this workspace to the call-center service.",
        "admin",
        "general",
    ),
    CommandSpec(
        "disconnect",
        "disconnect",
        "Forget this workspace's API key and tokens.",
        "admin",
        "general",
    ),
    CommandSpec(
        "status",
        "status",
        "Show the connection: domain and user behind the key.",
        "viewer",
        "general",
    ),
    CommandSpec(
        "campaigns",
        "campaigns [autocall|autodialer|inbound|manual]",
        "List campaigns, optionally of one type.",
        "viewer",
        "campaigns",
        ("campaigns", "campaigns autocall"),
    ),
    CommandSpec(
        "campaign",
        "campaign <name>",
        "A campaign's card: settings, schedule and live statistics.",
        "viewer",
        "campaigns",
        ('campaign "Summer sale"', "campaign summ"),
    ),
    CommandSpec(
        "start", "start <campaign>", "Start a campaign (needs approval).", "operator", "campaigns"
    ),
    CommandSpec("pause", "pause <campaign>", "Pause a campaign.", "operator", "campaigns"),
    CommandSpec(
        "pause all",
        "pause all",
        "Emergency brake: pause every started campaign.",
        "operator",
        "campaigns",
    ),
    CommandSpec("stop", "stop <campaign>", "Stop a campaign.", "operator", "campaigns"),
    CommandSpec("calls", "calls", "Live calls, with Transfer buttons.", "viewer", "calls"),
    CommandSpec(
        "transfer",
        "transfer <call_id> <ext> [aleg|bleg]",
        "Transfer a live call to another extension.",
        "operator",
        "calls",
        ("transfer 7f3c… 1002 bleg",),
    ),
    CommandSpec(
        "autocall",
        "autocall <campaign> <phone> [key=value ...]",
        "Push one automated call (opens a form when values are missing).",
        "operator",
        "calls",
        ("autocall reminders 0912345678 name=An amount=150000",),
    ),
    CommandSpec(
        "lead",
        "lead <campaign|list_uuid> <phone> [key=value ...]",
        "Insert one lead into a campaign's list (or a list by UUID); no phone opens a form.",
        "operator",
        "leads",
        ('lead "Summer sale" 0912345678 lead_name=An', "lead 0b6c…-… 0912345678"),
    ),
    CommandSpec(
        "leads upload",
        "leads upload <campaign|list_uuid>",
        "Check the CSV you shared here and upload it to a campaign's list (or a list).",
        "operator",
        "leads",
        ('leads upload "Summer sale"',),
    ),
    CommandSpec("list", "list <list_uuid>", "A lead list's totals.", "viewer", "leads"),
    CommandSpec(
        "cdr",
        "cdr [phone=] [ext=] [status=] [direction=] [campaign=] [from=] [to=]",
        "Look up call records.",
        "viewer",
        "reports",
        ("cdr phone=0912345678", "cdr status=busy from=2026-11-01 to=2026-11-07"),
    ),
    CommandSpec(
        "stats",
        "stats [today|yesterday|week|month] [interval=hour|day|week|month]",
        "Call statistics for a period.",
        "viewer",
        "reports",
        ("stats", "stats week interval=day"),
    ),
    CommandSpec(
        "monitor",
        "monitor [campaign ...]",
        "Autodialer statistics: leads, connection and dropped rates, agents.",
        "viewer",
        "reports",
    ),
    CommandSpec("agents", "agents [period]", "Agent time: talk, wait, pause.", "viewer", "reports"),
    CommandSpec("extensions", "extensions [period]", "Calls per extension.", "viewer", "reports"),
    CommandSpec("users", "users", "Users of the call center.", "viewer", "directory"),
    CommandSpec("groups", "groups", "Groups of users.", "viewer", "directory"),
    CommandSpec(
        "templates", "templates", "Call templates and their placeholders.", "viewer", "directory"
    ),
    CommandSpec("carriers", "carriers", "Carriers and their free capacity.", "viewer", "directory"),
    CommandSpec("gateways", "gateways", "SIP gateways.", "viewer", "directory"),
    CommandSpec("blacklist", "blacklist", "Blocked numbers.", "viewer", "directory"),
    CommandSpec(
        "group add", "group add <name> [description]", "Create a group.", "operator", "directory"
    ),
    CommandSpec(
        "group edit", "group edit <name>", "Edit a group (opens a form).", "operator", "directory"
    ),
    CommandSpec(
        "user edit", "user edit <username>", "Edit a user (opens a form).", "admin", "directory"
    ),
    CommandSpec(
        "digest add",
        "digest add #channel <daily HH:MM|weekdays HH:MM|weekly <day> HH:MM|hourly|cron>"
        " [campaign ...] [sections=totals,campaigns,agents,chart]",
        "Schedule a statistics digest.",
        "operator",
        "digests",
        ("digest add #digests daily 08:00", 'digest add #digests "0 8 * * 1-5" Summer'),
    ),
    CommandSpec("digest list", "digest list", "Scheduled digests.", "viewer", "digests"),
    CommandSpec("digest remove", "digest remove <id>", "Delete a digest.", "operator", "digests"),
    CommandSpec("digest pause", "digest pause <id>", "Pause a digest.", "operator", "digests"),
    CommandSpec("digest resume", "digest resume <id>", "Resume a digest.", "operator", "digests"),
    CommandSpec("digest run", "digest run <id>", "Post a digest now.", "operator", "digests"),
    CommandSpec(
        "digest preview",
        "digest preview [id]",
        "Show a digest to you only.",
        "viewer",
        "digests",
    ),
    CommandSpec(
        "alert add",
        "alert add #channel <metric> <op> <value> [campaign] [window]",
        "Alert a channel when a statistic crosses a threshold.",
        "operator",
        "digests",
        ("alert add #call-center dropped_rate > 5",),
    ),
    CommandSpec("alert list", "alert list", "Threshold alerts.", "viewer", "digests"),
    CommandSpec("alert remove", "alert remove <id>", "Delete an alert.", "operator", "digests"),
    CommandSpec(
        "notify",
        "notify [add|list|remove|attach|detach|rotate]",
        "Post call records from the service's callbacks to channels.",
        "admin",
        "notifications",
    ),
    CommandSpec("policy", "policy", "Show or change who must approve what.", "admin", "admin"),
    CommandSpec(
        "policy set",
        "policy set <kind> mode=approval|confirm|none approvers=admins|@a,@b self=yes|no "
        "expiry=30m",
        "Change what one kind of action needs.",
        "admin",
        "admin",
        ("policy set campaign.start approvers=admins self=no expiry=30m",),
    ),
    CommandSpec(
        "policy channel",
        "policy channel #channel|none",
        "Where approval cards are posted.",
        "admin",
        "admin",
    ),
    CommandSpec(
        "role",
        "role @user admin|operator|viewer",
        "Give a Slack user a role.",
        "admin",
        "admin",
    ),
)


def match(tokens: list[str]) -> tuple[CommandSpec, list[str]] | None:
    """The command whose words lead ``tokens`` (longest match wins), and the rest."""
    lowered = [t.lower() for t in tokens]
    best: CommandSpec | None = None
    for spec in COMMANDS:
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


def role_allows(role: str, needed: str) -> bool:
    return ROLE_RANK.get(role, -1) >= ROLE_RANK[needed]
