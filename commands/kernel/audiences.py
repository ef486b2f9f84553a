"""Who reads what the app writes: the rules, in one place, that ``bot/`` applies to every
request and every post (and ``language``/``settings`` explain).

A person reads their replies, forms and Home tab in the language they chose
(``/callops language``), else their Slack locale, else the workspace's.  A message
posted to a channel is read by many: the language of the digest, alert or notification
route that posts it when it has its own, else the channel's own (an admin may give one
channel another language than the workspace's), else the workspace's; customers'
numbers masked when the workspace asks for it.  The language of a message is decided
once, when it is posted: what is added to it later (a result line, a thread note) is
written in it whoever clicked.  The workspace's language is the one an admin chose
(``/callops settings language``), else the Slack locale of the admin who connected it,
else English (a workspace connected from the command line).
"""

from __future__ import annotations

from collections.abc import Mapping

from commands.kernel.grammar import UsageError
from commands.kernel.i18n import (
    LANGUAGES,
    N_,
    NAME_ORDERS,
    Audience,
    Language,
    NameOrder,
    _,
    language_of,
)
from commands.kernel.matching import alternatives, fold
from storage import Person, Workspace


def workspace_language(workspace: Workspace | None) -> Language:
    """The language of the workspace's channels (and of people it knows nothing of)."""
    if workspace is None:
        return "en"
    return language_of(workspace.default_language) or language_of(workspace.admin_locale) or "en"


def _names(workspace: Workspace | None) -> NameOrder:
    order = workspace.name_order if workspace is not None else None
    for known in NAME_ORDERS:
        if order == known:
            return known
    return "family-first"


def person_language(
    person: Person | None, workspace: Workspace | None, slack_locale: str | None = None
) -> Language:
    """The language one person reads: their choice, else their Slack locale (as Slack
    just said it, else as last seen), else the workspace's."""
    chosen = language_of(person.language) if person is not None else None
    if chosen is not None:
        return chosen
    locale = slack_locale or (person.slack_locale if person is not None else None)
    return language_of(locale) or workspace_language(workspace)


def for_person(
    person: Person | None,
    workspace: Workspace | None,
    slack_locale: str | None = None,
    *,
    masked: bool = False,
) -> Audience:
    """One person reading their own replies: customers' numbers in full, unless
    ``masked`` (a viewer, who is not to see them: Law 91/2025/QH15 wants personal data
    shown only to who needs it)."""
    return Audience(
        language=person_language(person, workspace, slack_locale),
        names=_names(workspace),
        mask_phones=masked,
    )


def for_channel(
    workspace: Workspace | None, language: str | None = None, channel_language: str | None = None
) -> Audience:
    """A channel's readers: ``language`` when the post has its own (a digest's, an
    alert's or a route's ``lang=``), else the channel's own (``settings language vi|en
    #channel``), else the workspace's; customers' numbers masked unless the workspace
    turned that off."""
    return Audience(
        language=language_of(language)
        or language_of(channel_language)
        or workspace_language(workspace),
        names=_names(workspace),
        mask_phones=bool(workspace is None or workspace.mask_phones),
        public=True,
    )


LANGUAGE_NAMES: dict[Language, str] = {"vi": N_("Vietnamese"), "en": N_("English")}
LANGUAGE_OPTION = "lang"
"""``lang=vi|en`` on ``digest add``, ``alert add`` and ``notify add``: the language the
posts are written in, whatever the workspace's."""


def language_name(language: Language) -> str:
    """The language's name in the reader's language."""
    return _(LANGUAGE_NAMES[language])


def post_language(options: Mapping[str, str], usage: str) -> Language | None:
    """The ``lang=`` option of a command that sets up posts (None: not given)."""
    given = {key.lower(): value for key, value in options.items()}.get(LANGUAGE_OPTION)
    if given is None:
        return None
    found = language_of(given) if fold(given) in LANGUAGES else None
    if found is None:
        raise UsageError(
            _("'{value}' is not a language callops speaks: use {choices}.").format(
                value=given, choices=alternatives(LANGUAGES)
            ),
            usage,
        )
    return found


def post_language_aside(language: str | None) -> str:
    """`` (in Vietnamese)`` after a channel named inside a sentence, else nothing."""
    found = language_of(language)
    if found is None:
        return ""
    return " (" + _("in {language}").format(language=language_name(found)) + ")"


def post_language_note(language: str | None) -> str:
    """`` · in Vietnamese`` for a post with a language of its own, else nothing."""
    found = language_of(language)
    if found is None:
        return ""
    return " · " + _("in {language}").format(language=language_name(found))
