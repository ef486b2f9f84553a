"""``help`` and ``help <command>``: the catalog, read aloud.

Help works before the workspace is connected (it never asks for a client), and it is
built from ``commands.kernel.catalog`` alone, so a new command appears here the moment it is
registered.  Commands the asker's role cannot run are marked, not hidden: a viewer
should learn that ``start`` exists and whom to ask.
"""

from __future__ import annotations

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from commands.kernel.catalog import COMMANDS, CommandSpec, find, match, role_allows
from commands.kernel.context import CommandContext
from commands.kernel.reply import Reply
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
}
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
    blocks: list[Block] = [HeaderBlock(text="/callops commands")]
    for family, specs in _families().items():
        title = FAMILY_TITLES.get(family, escape(family.capitalize()))
        body = f"*{title}*\n" + "\n".join(_line(s, role) for s in specs)
        blocks.append(SectionBlock(text=MarkdownTextObject(text=truncate(body, 3000))))
    blocks.append(
        ContextBlock(
            elements=[
                MarkdownTextObject(
                    text="`/callops help <command>` explains one command. "
                    ":lock: marks commands your role cannot run."
                )
            ]
        )
    )
    return blocks


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
    exact = find(wanted.lower())
    if exact is not None:
        return command_help(exact, ctx.role)
    first = args[0].lower()
    family = [s for s in COMMANDS if s.words[0] == first]
    if family and len(args) == 1:
        if len(family) == 1:
            return command_help(family[0], ctx.role)
        return _family_help(first, family, ctx.role)
    found = match(args)
    if found is not None:
        # ``help transfer 7f3c 1002``: someone pasted a whole command; explain it.
        return command_help(found[0], ctx.role)
    blocks: list[Block] = [
        SectionBlock(
            text=MarkdownTextObject(
                text=f":grey_question: There is no command {code(wanted)}. Here is what there is:"
            )
        ),
        DividerBlock(),
        *overview(ctx.role),
    ]
    return Reply(text=f"There is no command {escape(wanted)}.", blocks=blocks)


HANDLERS = {"help": help_command}
