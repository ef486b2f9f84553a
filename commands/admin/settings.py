"""``language`` (anyone, for themselves) and ``settings`` (admins, for the workspace).

    language vi|en|auto              the language callops answers you in (auto: Slack's)
    settings                         the workspace's language, time zone, names, numbers
    settings language vi|en          what channels read, and people Slack says nothing of
    settings timezone Asia/Ho_Chi_Minh
    settings names family-first|given-first
    settings mask-phones on|off      customers' numbers in channel posts
    settings charts native|image     charts drawn by Slack (where they fit) or sent as PNGs

A bad value changes nothing and says which values there are; every change is audited.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from zoneinfo import available_timezones

from commands.kernel.audiences import language_name, person_language, workspace_language
from commands.kernel.catalog import usage_for_reader, usage_of
from commands.kernel.channels import channel_for_posting
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import (
    LANGUAGES,
    N_,
    NAME_ORDERS,
    Language,
    _,
    language_of,
    use_language,
)
from commands.kernel.matching import alternatives, fold, suggest
from commands.kernel.reply import Reply, notice
from commands.kernel.text import code, escape
from commands.privacy.overview import MASKING_NOTICE
from commands.reports.chart_blocks import CHART_MODES, DEFAULT_MODE, chart_mode
from storage import Person, Storage, Workspace
from storage.errors import InvalidValueError
from storage.offload import off_loop

AUTO = "auto"
SETTINGS = ("language", "timezone", "names", "mask-phones", "retention", "charts")
SWITCHES = {"on": True, "off": False}
NOT_A_LANGUAGE = N_(  # the same words as for lang= (commands.kernel.audiences)
    "'{value}' is not a language callops speaks: use {choices}."
)
CHART_MODE_WORDS = {
    "native": N_("drawn by Slack where they fit, else as images"),
    "image": N_("sent as images"),
}
"""``settings charts``'s two values, in words (``storage.validation.CHART_MODES``)."""
NAME_ORDER_WORDS = {
    "family-first": N_("family name first (Nguyễn Văn An)"),
    "given-first": N_("given name first (Văn An Nguyễn)"),
}


def _choice(word: str, choices: tuple[str, ...], usage: str, refusal: str) -> str:
    """``word`` as one of ``choices`` (compared folded), else ``refusal`` (a sentence
    with ``{value}`` and ``{choices}``) naming them, and the nearest when a slip is
    likely."""
    folded = fold(word)
    for choice in choices:
        if fold(choice) == folded:
            return choice
    near = suggest(word, choices, limit=1)
    message = refusal.format(value=word, choices=alternatives(choices))
    if near:
        message += " " + _("Did you mean {choice}?").format(choice=code(near[0]))
    raise UsageError(message, usage)


# -- language: anyone, for themselves ---------------------------------------------------


async def language(ctx: CommandContext, args: list[str]) -> Reply:
    usage = usage_of("language")
    storage = ctx.storage
    if not args:
        person = await off_loop(storage.people.get, ctx.team_id, ctx.user_id)
        return _your_language(ctx, person, usage)
    if len(args) != 1:
        raise UsageError(_("Name one language: vi, en or auto."), usage)
    chosen = _choice(args[0], (*LANGUAGES, AUTO), usage, _(NOT_A_LANGUAGE))
    language: Language | None = None if chosen == AUTO else _language(chosen)
    await off_loop(storage.people.choose_language, ctx.team_id, ctx.user_id, language)
    await ctx.audit("person.language", {"language": chosen})
    now = person_language(Person(language, ctx.slack_locale), ctx.workspace)
    with use_language(now):  # said in the language they read from now on
        if language is None:
            text = _(
                "callops now follows your Slack language, else the workspace's: "
                "for now, {language}."
            ).format(language=language_name(now))
        else:
            text = _("From now on callops answers you in {language}.").format(
                language=language_name(now)
            )
        return notice(escape(text), emoji=":white_check_mark:")


def _language(code_: str) -> Language:
    """A code ``_choice`` let through, as the language it names."""
    found = language_of(code_)
    if found is None:
        raise InvalidValueError(f"not a language callops speaks: {code_!r}")
    return found


def _your_language(ctx: CommandContext, person: Person | None, usage: str) -> Reply:
    now = person_language(person, ctx.workspace, ctx.slack_locale)
    if person is not None and person.language:
        why = _("your choice")
    elif language_of(ctx.slack_locale) is not None:
        why = _("your Slack language")
    else:
        why = _("the workspace's language")
    text = _("callops answers you in {language} ({why}). Change it: {usage}").format(
        language=language_name(now), why=why, usage=f"/callops {usage}"
    )
    return notice(escape(text), emoji=":speech_balloon:")


# -- settings: admins, for the workspace -------------------------------------------------


async def settings(ctx: CommandContext, args: list[str]) -> Reply:
    usage = usage_of("settings")
    storage = ctx.storage
    if not args:
        workspace = await off_loop(storage.workspaces.get, ctx.team_id)
        channels = await off_loop(storage.channel_languages.all, ctx.team_id)
        return settings_reply(workspace, str(ctx.tz), channels)
    key = _choice(args[0], SETTINGS, usage, _("'{value}' is not a setting: use {choices}."))
    if key == "language" and len(args) == 3:
        return await _set_channel_language(ctx, storage, args[1], args[2], usage)
    if len(args) != 2:
        raise UsageError(_("Give {setting} one value.").format(setting=key), usage)
    change = _CHANGES[key]
    return await change(ctx, storage, args[1], usage)


def settings_reply(
    workspace: Workspace | None, zone: str, channels: dict[str, str] | None = None
) -> Reply:
    """The workspace's settings, each with where its value comes from, and the channels
    that read another language."""
    lines = [
        _("*Settings of this workspace*"),
        _line(
            _("Language"), language_name(workspace_language(workspace)), _language_source(workspace)
        ),
        _line(_("Time zone"), zone, _zone_source(workspace)),
        _line(
            _("Names"),
            _(NAME_ORDER_WORDS[_names(workspace)]),
            _default_or_admin(workspace is None or workspace.name_order == "family-first"),
        ),
        _line(
            _("Mask customers' numbers in channels"),
            _("on") if workspace is None or workspace.mask_phones else _("off"),
            _default_or_admin(workspace is None or workspace.mask_phones),
        ),
        _line(
            _("Keep customers' data in messages"),
            _("{days} days").format(days=workspace.retention_days if workspace else 90),
            _default_or_admin(workspace is None or workspace.retention_days == 90),
        ),
        _line(
            _("Charts"),
            _(CHART_MODE_WORDS[chart_mode(workspace)]),
            _default_or_admin(chart_mode(workspace) == DEFAULT_MODE),
        ),
    ]
    for channel, language in sorted((channels or {}).items()):
        found = language_of(language)
        if found is not None:
            lines.append(
                _("{channel} reads {language} (set by an admin)").format(
                    channel=f"<#{channel}>", language=language_name(found)
                )
            )
    lines.append(
        _("Change one: {usage}").format(
            usage=code(f"/callops {usage_for_reader(usage_of('settings'))}")
        )
    )
    return notice("\n".join(lines), emoji=":gear:")


def _line(label: str, value: str, source: str) -> str:
    return _("{label}: *{value}* ({source})").format(
        label=label, value=escape(value), source=source
    )


def _names(workspace: Workspace | None) -> str:
    order = workspace.name_order if workspace is not None else "family-first"
    return order if order in NAME_ORDER_WORDS else "family-first"


def _language_source(workspace: Workspace | None) -> str:
    if workspace is not None and workspace.default_language:
        return _("chosen by an admin")
    if workspace is not None and language_of(workspace.admin_locale):
        return _("the Slack language of the admin who connected the workspace")
    return _("the default")


def _zone_source(workspace: Workspace | None) -> str:
    source = workspace.timezone_source if workspace is not None else None
    if source == "admin":
        return _("chosen by an admin")
    if source == "slack":
        return _("the Slack time zone of the admin who connected the workspace")
    return _("the app's default")


def _default_or_admin(is_default: bool) -> str:
    return _("the default") if is_default else _("chosen by an admin")


Change = Callable[[CommandContext, Storage, str, str], Awaitable[Reply]]


async def _set_language(ctx: CommandContext, storage: Storage, value: str, usage: str) -> Reply:
    chosen = _language(_choice(value, LANGUAGES, usage, _(NOT_A_LANGUAGE)))
    await _save(
        ctx,
        storage,
        "settings.language",
        {"language": chosen},
        storage.workspaces.set_language,
        chosen,
    )
    return _changed(
        _(
            "Channels now read callops in {language}, and so does anyone Slack says nothing of."
        ).format(language=language_name(chosen))
    )


async def _set_channel_language(
    ctx: CommandContext, storage: Storage, value: str, channel_word: str, usage: str
) -> Reply:
    """One channel's own language (``auto``: back to the workspace's): whatever callops
    posts there is written in it, unless the digest, alert or route has its own."""
    chosen = _choice(value, (*LANGUAGES, AUTO), usage, _(NOT_A_LANGUAGE))
    channel = await channel_for_posting(ctx, channel_word, usage)
    language = None if chosen == AUTO else _language(chosen)
    await off_loop(storage.workspaces.ensure, ctx.team_id)
    await off_loop(storage.channel_languages.set, ctx.team_id, channel, language, by=ctx.user_id)
    await ctx.audit("settings.channel_language", {"channel": channel, "language": chosen})
    where = f"<#{channel}>"
    if language is None:
        text = _("{channel} now reads callops in the workspace's language, {language}.").format(
            channel=where, language=language_name(workspace_language(ctx.workspace))
        )
    else:
        text = _(
            "{channel} now reads callops in {language}: approval cards, digests, alerts and "
            "call cards posted there, unless one was given its own lang=."
        ).format(channel=where, language=language_name(language))
    return notice(text, emoji=":white_check_mark:")


async def _set_timezone(ctx: CommandContext, storage: Storage, value: str, usage: str) -> Reply:
    zone = known_zone(value)
    if zone is None:
        near = closest_zone(value)
        message = _(
            "'{value}' is not a time zone I know: use an IANA name such as Asia/Ho_Chi_Minh."
        ).format(value=value)
        if near:
            message += " " + _("Did you mean {choice}?").format(choice=code(near))
        raise UsageError(message, usage)
    await _save(
        ctx, storage, "settings.timezone", {"timezone": zone}, storage.workspaces.set_timezone, zone
    )
    return _changed(
        _("Times are now shown in {zone}; digests follow the zone each was made with.").format(
            zone=zone
        )
    )


async def _set_names(ctx: CommandContext, storage: Storage, value: str, usage: str) -> Reply:
    order = _choice(
        value, NAME_ORDERS, usage, _("'{value}' is not a way of writing names: use {choices}.")
    )
    await _save(
        ctx, storage, "settings.names", {"names": order}, storage.workspaces.set_name_order, order
    )
    return _changed(_("Names are now written {order}.").format(order=_(NAME_ORDER_WORDS[order])))


async def _set_mask_phones(ctx: CommandContext, storage: Storage, value: str, usage: str) -> Reply:
    mask = SWITCHES[
        _choice(value, tuple(SWITCHES), usage, _("'{value}' is neither on nor off: use {choices}."))
    ]
    await _save(
        ctx,
        storage,
        "settings.mask_phones",
        {"mask_phones": mask},
        storage.workspaces.set_mask_phones,
        mask,
    )
    # Chosen now: the one notice about the new default has nothing left to tell.
    await off_loop(storage.notices.open, ctx.team_id, MASKING_NOTICE)
    if mask:
        return _changed(_("Customers' numbers are now masked in messages posted to channels."))
    return _changed(_("Customers' numbers are now shown in full in messages posted to channels."))


async def _set_retention(ctx: CommandContext, storage: Storage, value: str, usage: str) -> Reply:
    try:
        days = int(value.strip())
    except ValueError:
        days = -1
    if not 0 <= days <= MAX_RETENTION_DAYS:
        raise UsageError(
            _("'{value}' is not a number of days from 0 to {most}.").format(
                value=value[:20], most=MAX_RETENTION_DAYS
            ),
            usage,
        )
    await _save(
        ctx, storage, "settings.retention", {"days": days}, storage.workspaces.set_retention, days
    )
    return _changed(
        _(
            "Customers' numbers and names are now kept {days} days in the messages and files "
            "callops posted; older ones are rewritten without them, daily."
        ).format(days=days)
    )


MAX_RETENTION_DAYS = 3650


async def _set_charts(ctx: CommandContext, storage: Storage, value: str, usage: str) -> Reply:
    mode = _choice(
        value, CHART_MODES, usage, _("'{value}' is not a way of sending charts: use {choices}.")
    )
    await _save(
        ctx, storage, "settings.charts", {"charts": mode}, storage.workspaces.set_chart_mode, mode
    )
    if mode == "image":
        return _changed(_("Charts are now sent as images (PNG files) after their message."))
    return _changed(
        _(
            "Charts are now drawn by Slack inside their message, with a summary in words; "
            "one too large for Slack's charts is still sent as an image."
        )
    )


async def _save(
    ctx: CommandContext,
    storage: Storage,
    action: str,
    params: dict[str, object],
    setter: Callable[..., Workspace],
    value: object,
) -> None:
    """Change one setting of the workspace (made if missing) and audit it."""
    await off_loop(storage.workspaces.ensure, ctx.team_id)
    await off_loop(setter, ctx.team_id, value)
    await ctx.audit(action, params)


def _changed(text: str) -> Reply:
    return notice(escape(text), emoji=":white_check_mark:")


_CHANGES: dict[str, Change] = {
    "language": _set_language,
    "timezone": _set_timezone,
    "names": _set_names,
    "mask-phones": _set_mask_phones,
    "retention": _set_retention,
    "charts": _set_charts,
}


@functools.cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(available_timezones()))


def known_zone(value: str) -> str | None:
    """The IANA zone ``value`` names, in its own spelling (any case), else None."""
    wanted = value.strip().casefold()
    for zone in _zones():
        if zone.casefold() == wanted:
            return zone
    return None


def closest_zone(value: str) -> str | None:
    """The zone a slip most likely meant: by its whole name, else by its city."""
    zones = _zones()
    found = suggest(value, zones, limit=1)
    if found:
        return found[0]
    cities = {zone.rsplit("/", 1)[-1]: zone for zone in zones}
    city = suggest(value.rsplit("/", 1)[-1], tuple(cities), limit=1)
    return cities[city[0]] if city else None
