"""``help`` and ``help <command>``: the catalog, read aloud.

Help works before the workspace is connected (it never asks for a client), and it is
built from ``commands.kernel.catalog`` alone, so a new command appears here the moment it is
registered.  Commands the asker's role cannot run are marked, not hidden: a viewer
should learn that ``start`` exists and whom to ask.

Read in Vietnamese, every command is shown by its Vietnamese alias (``chien-dich``) with
the English word beside it; both are typed the same way (``commands.kernel.catalog``).
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

from commands.kernel import paging
from commands.kernel.catalog import CommandSpec, in_use, role_allows, usage_for_reader
from commands.kernel.context import CommandContext
from commands.kernel.family import Family
from commands.kernel.i18n import N_, Language, _, current_language
from commands.kernel.interactions import OnClick
from commands.kernel.matching import alternatives, fold, scored_choices
from commands.kernel.reply import WRITING_TOPIC, Reply, context_line, once, section
from commands.kernel.text import code, escape, truncate
from storage import Role

FAMILY_TITLES = {
    "general": N_(":gear: General"),
    "campaigns": N_(":mega: Campaigns"),
    "calls": N_(":telephone_receiver: Calls"),
    "leads": N_(":clipboard: Leads"),
    "reports": N_(":bar_chart: Reports"),
    "directory": N_(":busts_in_silhouette: Directory"),
    "digests": N_(":newspaper: Digests and alerts"),
    "notifications": N_(":bell: Call notifications"),
    "admin": N_(":closed_lock_with_key: Administration"),
    "rules": N_(":scales: Calling rules"),
    "privacy": N_(":shield: Customers' personal data"),
}
WRITING_TITLE = N_("How to write names and values")
WRITING = N_(
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
    Role.VIEWER: N_("everyone"),
    Role.OPERATOR: N_("operators and admins"),
    Role.ADMIN: N_("admins only"),
}
ROLE_NAMES = {
    Role.VIEWER: N_("viewer"),
    Role.OPERATOR: N_("operator"),
    Role.ADMIN: N_("admin"),
}
"""A role as the reader calls it (``_(ROLE_NAMES[role])``); typed, it stays English."""


def role_name(role: Role) -> str:
    """``viewer``, ``operator``, ``admin`` in the reader's language."""
    return _(ROLE_NAMES[role])


def in_english() -> bool:
    return current_language() == "en"


def usage_line(spec: CommandSpec) -> str:
    """The usage as the reader writes it: English, or the alias with the placeholders
    in the reader's language (``tam-dung <chiến dịch>``)."""
    if in_english():
        return spec.usage
    return usage_for_reader(spec.usage)


def example_line(spec: CommandSpec, example: str) -> str:
    """An example as the reader types it: the alias in place of the English command
    words for a Vietnamese reader (the rest, names and ``key=value``, as written)."""
    if in_english() or not (example == spec.name or example.startswith(spec.name + " ")):
        return example
    return spec.alias + example[len(spec.name) :]


def _families() -> dict[str, list[CommandSpec]]:
    """Commands grouped by family, in the catalog's order."""
    grouped: dict[str, list[CommandSpec]] = {}
    for spec in in_use().commands:
        grouped.setdefault(spec.family, []).append(spec)
    return grouped


def _line(spec: CommandSpec, role: Role) -> str:
    lock = "" if role_allows(role, spec.role) else f" :lock: _{role_name(spec.role)}_"
    if in_english():
        return f"{code(spec.usage)} {escape(spec.summary)}{lock}"
    return f"{code(usage_line(spec))} ({code(spec.name)}) {escape(_(spec.summary))}{lock}"


def overview(role: Role) -> list[Block]:
    """Every command by family, those ``role`` cannot run marked; built once per role and
    language (``help`` is the command people type most), never changed after."""
    return list(_overview(role, current_language()))


@cache
def _overview(role: Role, language: Language) -> tuple[Block, ...]:
    """``language`` is the reader's (the one ``_`` uses): part of the cache's key."""
    blocks: list[Block] = [HeaderBlock(text=_("/callops commands"))]
    for family, specs in _families().items():
        title = _(FAMILY_TITLES[family]) if family in FAMILY_TITLES else escape(family.capitalize())
        body = f"*{title}*\n" + "\n".join(_line(s, role) for s in specs)
        blocks.append(section(body))
    blocks.append(writing_section())
    footer = _(
        "{help_command} explains one command. :lock: marks commands your role cannot run."
    ).format(help_command=code(_("/callops help <command>")))
    elements = [MarkdownTextObject(text=footer)]
    if language == "en":
        elements.append(MarkdownTextObject(text=VIETNAMESE_NOTE))
    blocks.append(ContextBlock(elements=elements))
    return tuple(once(block) for block in blocks)


VIETNAMESE_NOTE = (
    "Vietnamese command words work too, without diacritics: `chien-dich`, `tam-dung`, "
    "`thong-ke`… (help read in Vietnamese lists them)."
)
"""Shown to English readers only; a Vietnamese reader sees the words beside each command."""


def writing_section() -> SectionBlock:
    return section(f"*:pencil2: {_(WRITING_TITLE)}*\n{_(WRITING)}")


def command_help(spec: CommandSpec, role: Role) -> Reply:
    allowed = role_allows(role, spec.role)
    who = _(ROLE_NOTE[spec.role])
    access = (
        _(":white_check_mark: You can run it ({who}).").format(who=who)
        if allowed
        else _(":lock: Needs the *{role}* role ({who}); ask an admin.").format(
            role=role_name(spec.role), who=who
        )
    )
    if in_english():
        title, written = f"/callops {spec.name}", code("/callops " + spec.usage)
    else:
        title = f"/callops {spec.alias} ({spec.name})"
        written = _("{alias} or {english}").format(
            alias=code("/callops " + usage_line(spec)), english=code("/callops " + _(spec.usage))
        )
    summary = _(spec.summary)
    usage = _("Usage: {usage}").format(usage=written)
    blocks: list[Block] = [
        HeaderBlock(text=truncate(title, 150)),
        section(f"{escape(summary)}\n\n{usage}"),
    ]
    if spec.examples:
        examples = "\n".join(code("/callops " + example_line(spec, e)) for e in spec.examples)
        heading = _("Examples")
        blocks.append(section(f"*{heading}*\n{examples}"))
    blocks.append(context_line(access))
    return Reply(text=f"/callops {usage_line(spec)}: {summary}", blocks=blocks)


def _family_help(word: str, specs: list[CommandSpec], role: Role) -> Reply:
    body = "\n".join(_line(s, role) for s in specs)
    heading = _("Commands starting with {word}")
    blocks: list[Block] = [section(f"*{heading.format(word=code(word))}*\n{body}")]
    return Reply(text=heading.format(word=word), blocks=blocks)


WRITING_WORDS = (WRITING_TOPIC, "names", "values", "grammar", "cach viet")
"""``help writing`` and its other names (``cach viet``: "how to write")."""


METRICS_WORDS = ("metrics", "metric", "kpi", "kpis", "chi so")
"""``help metrics`` and its other names (``chi so``: "indicators")."""


async def help_command(ctx: CommandContext, args: list[str]) -> Reply:
    if not args:
        return Reply(text=_("/callops commands"), blocks=overview(ctx.role))
    wanted = " ".join(args)
    if fold(wanted) in WRITING_WORDS:
        return Reply(text=_(WRITING_TITLE), blocks=[writing_section()])
    if fold(wanted) in METRICS_WORDS:
        # Imported here: the kernel does not depend on a domain at import time.
        from commands.reports.kpis import metrics_reply

        return metrics_reply()
    found = in_use().match(args)
    if found is not None and not found[1]:
        return command_help(found[0], ctx.role)
    family = _family(args)
    if family is not None and not family[2]:
        head, specs, _rest = family
        if len(specs) == 1:
            return command_help(specs[0], ctx.role)
        return _family_help(head, specs, ctx.role)
    if found is not None:
        # ``help transfer 7f3c 1002``: someone pasted a whole command; explain it.
        return command_help(found[0], ctx.role)
    typed, hint, pointer = nearest_commands(args)
    text = _(":grey_question: There is no command {typed}.{hint} {pointer}").format(
        typed=typed, hint=hint, pointer=pointer
    )
    return Reply(
        text=_("There is no command {typed}.").format(typed=escape(wanted)),
        blocks=[section(text)],
    )


def _family(tokens: list[str]) -> tuple[str, list[CommandSpec], list[str]] | None:
    """The commands that start with the first word typed (``digest``; ``ban-tin`` or
    ``ban tin`` in Vietnamese) as that word is written, those commands, and the words
    after it; None when no command starts so."""
    grouped = in_use().heads()
    for count in (2, 1):
        if len(tokens) < count:
            continue
        head = fold(" ".join(tokens[:count]))
        specs = grouped.get(head)
        if specs:
            english = specs[0].words[0] == head
            word = head if english else specs[0].alias.split()[0]
            return word, specs, tokens[count:]
    return None


def _sub(spec: CommandSpec, head: str) -> str:
    """What follows ``head`` in the command's words, as they are written."""
    if spec.words[0] == head:
        return " ".join(spec.words[1:])
    return " ".join(spec.alias.split()[1:])


def nearest_commands(tokens: list[str]) -> tuple[str, str, str]:
    """For words that name no command: what was not understood, "Did you mean" the
    nearest commands (or subcommands, when the first word is right), and where to read
    more; mrkdwn, escaped.  ``digest ad`` is answered with ``digest add``, ``chien dic``
    with ``chien-dich``: both languages are searched."""
    family = _family(tokens)
    if family is None or all(not _sub(s, family[0]) for s in family[1]):
        return _nearest_heads(tokens)
    head, specs, rest = family
    subs = [_sub(s, head) for s in specs if _sub(s, head)]
    near = [c for c, _score in scored_choices(rest[0], subs, limit=2)] if rest else []
    if near:
        hint = " " + _("Did you mean {choices}?").format(
            choices=alternatives([f"{head} {n}" for n in near], code)
        )
    else:
        hint = " " + _("{word} takes {choices}.").format(
            word=code(head), choices=alternatives(subs, code)
        )
    pointer = _("{help_command} explains them.").format(
        help_command=code(f"/callops {usage_for_reader('help')} {escape(head)}")
    )
    typed = " ".join(tokens[: len(tokens) - len(rest) + 1])
    return code(typed), hint, pointer


def _tokens_for(tokens: list[str], words: int) -> int:
    """How many of ``tokens`` hold the first ``words`` words (folded: ``tam-dung`` is two)."""
    seen = 0
    for count, token in enumerate(tokens, start=1):
        seen += len(fold(token).split())
        if seen >= words:
            return count
    return len(tokens)


ALIAS_MARGIN = 15.0
"""A Vietnamese word is suggested only this close to the best suggestion: ``chien dic``
is ``chien-dich``, not also ``xem-chien-dich`` and ``chuyen``.  (English suggestions
are listed as they always were.)"""


def _nearest_heads(tokens: list[str]) -> tuple[str, str, str]:
    """The nearest commands to words whose first ones start no command: English first
    words compared with the first word, Vietnamese aliases with as many words."""
    word = tokens[0]
    found: dict[str, tuple[float, int]] = {}
    for choice, score in scored_choices(word, {s.words[0] for s in in_use().commands}):
        found[choice] = (score, 1)
    for spec in in_use().commands:
        written = spec.alias.split()[0]
        count = _tokens_for(tokens, len(fold(written).split()))
        for choice, score in scored_choices(" ".join(tokens[:count]), [written]):
            if score > found.get(choice, (0.0, 0))[0]:
                found[choice] = (score, count)
    english = {s.words[0] for s in in_use().commands}
    top = max((score for score, _count in found.values()), default=0.0)
    kept = {
        choice: scored
        for choice, scored in found.items()
        if choice in english or scored[0] >= top - ALIAS_MARGIN
    }
    best = sorted(kept.items(), key=lambda item: -item[1][0])[:3]
    near = [choice for choice, _found in best]
    hint = (
        " " + _("Did you mean {choices}?").format(choices=alternatives(near, code)) if near else ""
    )
    shown = " ".join(tokens[: best[0][1][1]]) if best else word
    return (
        code(shown),
        hint,
        _("{help_command} lists every command.").format(
            help_command=code("/callops " + usage_for_reader("help"))
        ),
    )


FAMILY = Family(
    "help",
    commands=(
        CommandSpec(
            "help",
            "tro-giup",
            N_("help [command]"),
            N_("List the commands, or explain one."),
            Role.VIEWER,
            ("help", "help digest"),
            family="general",
            handler=help_command,
        ),
    ),
    clicks=(OnClick(paging.PAGE_ACTION, paging.page_clicked, suffixes=("prev", "next")),),
)
"""``help``, and the Previous / Next buttons of every paged reply."""
