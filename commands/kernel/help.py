"""``help`` and ``help <command>``: the catalog, read aloud.

Help works before the workspace is connected (it never asks for a client), and it is
built from ``commands.kernel.catalog`` alone, so a new command appears here the moment it is
registered.  Commands the asker's role cannot run are marked, not hidden: a viewer
should learn that ``start`` exists and whom to ask.
"""

from __future__ import annotations

from functools import cache

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from commands.kernel.catalog import COMMANDS, CommandSpec, find, match, role_allows
from commands.kernel.context import CommandContext
from commands.kernel.matching import alternatives, fold, suggest
from commands.kernel.reply import WRITING_TOPIC, Reply
from commands.kernel.text import code, escape, truncate
from storage import Role

FAMILY_TITLES = {
    "general": ":gear: General",
    "campaigns": ":mega: Campaigns",
    "calls": ":telephone_receiver: Calls",
    "leads": ":clipboard: Leads",
    "reports": ":bar_chart: Reports",
    "directory": ":busts_in_silhouette: Directory",
    "digests": ":newspaper: Digests and alerts",
    "notifications": ":bell: Call notifications",
    "admin": ":closed_lock_with_key: Administration",
    "rules": ":scales: Calling rules",
}
WRITING_TITLE = "How to write names and values"
WRITING = (
    "• *Names* may have spaces, quoted or not: `campaign goi lai khach hang ct` or "
    '`campaign "Gọi lại khách hàng CT"`. Case, accents and spacing do not matter; the start '
    "of a name is enough when only one campaign starts that way, and a near miss is "
    "offered as _Did you mean_.\n"
    "• What follows a name comes after it: `autocall Nhắc lịch hẹn HN 0912345678 name=An`.\n"
    "• *Several campaigns*: separate them with commas, or quote each: "
    "`monitor Gọi lại khách hàng CT, Vay tiêu dùng HCM`.\n"
    "• *Options* are `key=value`. A free-text value (a person's name, an address, "
    "`campaign=`) may have spaces and runs to the next `key=`: "
    "`lead &lt;list&gt; 0912345678 lead_name=Nguyễn Văn An address=12 Lê Lợi`. Quote a value to "
    "end it sooner; put such options last.\n"
    "• *Channels and people*: `#channel` and `@name`, typed or picked from Slack's menu."
)
ROLE_NOTE = {
    Role.VIEWER: "everyone",
    Role.OPERATOR: "operators and admins",
    Role.ADMIN: "admins only",
}


def _families() -> dict[str, list[CommandSpec]]:
    """Commands grouped by family, in the catalog's order."""
    grouped: dict[str, list[CommandSpec]] = {}
    for spec in COMMANDS:
        grouped.setdefault(spec.family, []).append(spec)
    return grouped


def _line(spec: CommandSpec, role: Role) -> str:
    lock = "" if role_allows(role, spec.role) else f" :lock: _{spec.role}_"
    return f"{code(spec.usage)} {escape(spec.summary)}{lock}"


def overview(role: Role) -> list[Block]:
    """Every command by family, those ``role`` cannot run marked.  Built once per role:
    it depends on the catalog and the role alone, and ``help`` is the command people
    type most (its lines were a fifth of the CPU of answering it, ``benchmarks/ack.py``).
    Each call gets its own list; the blocks in it are not changed after they are built."""
    return list(_overview(role))


@cache
def _overview(role: Role) -> tuple[Block, ...]:
    blocks: list[Block] = [HeaderBlock(text="/callops commands")]
    for family, specs in _families().items():
        title = FAMILY_TITLES.get(family, escape(family.capitalize()))
        body = f"*{title}*\n" + "\n".join(_line(s, role) for s in specs)
        blocks.append(SectionBlock(text=MarkdownTextObject(text=truncate(body, 3000))))
    blocks.append(writing_section())
    blocks.append(
        ContextBlock(
            elements=[
                MarkdownTextObject(
                    text=f"{code('/callops help <command>')} explains one command. "
                    ":lock: marks commands your role cannot run."
                )
            ]
        )
    )
    return tuple(blocks)


def writing_section() -> SectionBlock:
    return SectionBlock(text=MarkdownTextObject(text=f"*:pencil2: {WRITING_TITLE}*\n{WRITING}"))


def writing_help() -> Reply:
    return Reply(text=WRITING_TITLE, blocks=[writing_section()])


def command_help(spec: CommandSpec, role: Role) -> Reply:
    allowed = role_allows(role, spec.role)
    who = ROLE_NOTE[spec.role]
    access = (
        f":white_check_mark: You can run it ({who})."
        if allowed
        else f":lock: Needs the *{spec.role}* role ({who}); ask an admin."
    )
    blocks: list[Block] = [
        HeaderBlock(text=truncate(f"/callops {spec.name}", 150)),
        SectionBlock(
            text=MarkdownTextObject(
                text=truncate(
                    f"{escape(spec.summary)}\n\nUsage: {code('/callops ' + spec.usage)}", 3000
                )
            )
        ),
    ]
    if spec.examples:
        examples = "\n".join(code("/callops " + e) for e in spec.examples)
        blocks.append(
            SectionBlock(text=MarkdownTextObject(text=truncate(f"*Examples*\n{examples}", 3000)))
        )
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text=access)]))
    return Reply(text=f"/callops {spec.usage}: {spec.summary}", blocks=blocks)


def _family_help(word: str, specs: list[CommandSpec], role: Role) -> Reply:
    body = "\n".join(_line(s, role) for s in specs)
    blocks: list[Block] = [
        SectionBlock(
            text=MarkdownTextObject(
                text=truncate(f"*Commands starting with {code(word)}*\n{body}", 3000)
            )
        )
    ]
    return Reply(text=f"Commands starting with {word}", blocks=blocks)


async def help_command(ctx: CommandContext, args: list[str]) -> Reply:
    if not args:
        return Reply(text="/callops commands", blocks=overview(ctx.role))
    wanted = " ".join(args)
    if fold(wanted) in (WRITING_TOPIC, "names", "values", "grammar"):
        return writing_help()
    exact = find(" ".join(fold(a) for a in args))
    if exact is not None:
        return command_help(exact, ctx.role)
    first = fold(args[0])
    family = [s for s in COMMANDS if s.words[0] == first]
    if family and len(args) == 1:
        if len(family) == 1:
            return command_help(family[0], ctx.role)
        return _family_help(first, family, ctx.role)
    found = match(args)
    if found is not None:
        # ``help transfer 7f3c 1002``: someone pasted a whole command; explain it.
        return command_help(found[0], ctx.role)
    typed, hint, pointer = nearest_commands(args)
    text = f":grey_question: There is no command {typed}.{hint} {pointer}"
    return Reply(
        text=f"There is no command {escape(wanted)}.",
        blocks=[SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)))],
    )


def nearest_commands(tokens: list[str]) -> tuple[str, str, str]:
    """For words that name no command: what was not understood, "Did you mean" the
    nearest commands (or subcommands, when the first word is right), and where to read
    more; mrkdwn, escaped.  ``digest ad`` is answered with ``digest add``."""
    word = tokens[0]
    family = [s for s in COMMANDS if len(s.words) > 1 and s.words[0] == fold(word)]
    if not family:
        near = suggest(word, {s.words[0] for s in COMMANDS})
        hint = f" Did you mean {alternatives(near, code)}?" if near else ""
        return code(word), hint, "`/callops help` lists every command."
    subs = [" ".join(s.words[1:]) for s in family]
    near = suggest(tokens[1], subs, limit=2) if len(tokens) > 1 else []
    if near:
        hint = f" Did you mean {alternatives([f'{family[0].words[0]} {n}' for n in near], code)}?"
    else:
        hint = f" {code(family[0].words[0])} takes {alternatives(subs, code)}."
    pointer = f"`/callops help {escape(family[0].words[0])}` explains them."
    return code(" ".join(tokens[:2])), hint, pointer


HANDLERS = {"help": help_command}
