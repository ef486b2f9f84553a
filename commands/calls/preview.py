"""What an autocall will say, shown before anyone is called: the template's content with
every placeholder replaced by its value as the service reads it (``speech``), and the
values it would misread refused with the field named.

Used wherever an autocall is asked for (the command, the form, the call-back shortcut,
the workflow step), on the approval card, and by ``listen``, which pushes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from callcenter.models import Template
from commands.calls.speech import (
    DEFAULT_VOICE,
    Reading,
    Rule,
    UnreadableValue,
    ValueProblem,
    Voice,
    read_value,
    spoken,
    voice_for,
)
from commands.kernel.i18n import N_, _
from commands.kernel.matching import fold
from commands.kernel.service_words import voice_words
from commands.kernel.text import clip, code, escape, truncate

RULE_WORDS = {
    Rule.AMOUNT: N_("read as an amount"),
    Rule.DIGITS: N_("read digit by digit"),
    Rule.NUMBER: N_("read as a number"),
    Rule.DATE: N_("read as a date"),
    Rule.AS_WRITTEN: N_("read as written"),
}
MAX_SHOWN = 2500
"""Characters of the spoken text a card shows (a section holds 3,000)."""


def problem_words(problem: ValueProblem) -> str:
    """What is wrong with a value, and what to write, for a field error or a reply."""
    if problem.kind == "bad_date":
        return _("This is not a date in the calendar; write dd/mm/yyyy or yyyy-mm-dd.")
    if problem.kind == "date_format" and problem.suggestion:
        return _(
            "The service reads a date written dd/mm/yyyy or yyyy-mm-dd only: write {suggestion}."
        ).format(suggestion=problem.suggestion)
    if problem.kind == "date_format":
        return _("The service reads a date written dd/mm/yyyy or yyyy-mm-dd only.")
    if problem.kind == "separators":
        return _(
            "Write an amount as plain digits, without dots, commas or spaces: {suggestion}."
        ).format(suggestion=problem.suggestion or "")
    if problem.kind == "empty_number":
        return _("A value starting with # must be digits, e.g. #15.")
    return _("The template needs this value.")


@dataclass(frozen=True)
class Preview:
    """The words the customer hears, and how each value was read."""

    text: str | None
    """None when the template plays a recording."""
    readings: dict[str, Reading]
    values: dict[str, str]
    """The values as typed."""
    voice: Voice = DEFAULT_VOICE
    """The forms the numbers were read with (the template's voice's region)."""
    voice_name: str = ""
    warnings: tuple[str, ...] = ()
    """Values the service reads, but not as meant (a code read as an amount)."""


class ValueRefused(ValueError):
    """A value the service would misread: which placeholder, and why in words."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name
        self.message = message


def read_values(values: Mapping[str, str], voice: Voice = DEFAULT_VOICE) -> dict[str, Reading]:
    """Each value's reading; ``ValueRefused`` names the first the service would misread."""
    readings: dict[str, Reading] = {}
    for name, value in values.items():
        try:
            readings[name] = read_value(value, voice)
        except UnreadableValue as exc:
            raise ValueRefused(name, problem_words(exc.problem)) from None
    return readings


def value_problems(values: Mapping[str, str]) -> dict[str, str]:
    """Every value the service would misread, by placeholder (a form's field errors)."""
    problems: dict[str, str] = {}
    for name, value in values.items():
        try:
            read_value(value)
        except UnreadableValue as exc:
            problems[name] = problem_words(exc.problem)
    return problems


CODE_WORDS = frozenset({"otp", "code", "ma", "pin"})
"""Words of a placeholder's name that say its value is a code, read digit by digit."""


def code_like(name: str) -> bool:
    """``otp``, ``ma_xac_nhan``, ``pin_code``: a placeholder whose value is a code."""
    return bool(CODE_WORDS & set(re.split(r"[^a-z0-9]+", fold(name))))


def code_warnings(readings: Mapping[str, Reading], values: Mapping[str, str]) -> list[str]:
    """A code read as an amount ("một trăm hai mươi ba nghìn…"): write it spaced."""
    warned = []
    for name, reading in readings.items():
        if reading.rule is Rule.AMOUNT and code_like(name):
            digits = re.sub(r"\D", "", values.get(name, ""))
            warned.append(
                _(
                    "{name} looks like a code but will be read as an amount; to have it read "
                    "digit by digit, separate the digits with spaces: {suggestion}."
                ).format(name=code(name), suggestion=code(" ".join(digits)))
            )
    return warned


def preview(template: Template | None, values: Mapping[str, str]) -> Preview:
    voice_name = template.voice_tts if template is not None else ""
    voice = voice_for(voice_name)
    readings = read_values(values, voice)
    typed = dict(values)
    warnings = tuple(code_warnings(readings, typed))
    if template is None or template.voice_type != "tts":
        return Preview(None, readings, typed, voice, voice_name, warnings)
    said = spoken(template.content or "", readings)
    return Preview(said, readings, typed, voice, voice_name, warnings)


def region_line(result: Preview) -> str:
    """Which region's forms the numbers were read with: the template's voice's."""
    if result.voice.region == "south":
        forms = _("southern forms (lẻ, ngàn)")
    else:
        forms = _("northern forms (linh, nghìn)")
    return _("Numbers are read with the {forms} of the template's voice, {voice}.").format(
        forms=forms, voice=voice_words(result.voice_name)
    )


def preview_mrkdwn(result: Preview, *, heading: bool = True) -> str:
    """The preview as a card shows it: the spoken text quoted, then each value's rule;
    ``heading``: said first (not under a header that says it already)."""
    if result.text is None:
        return _(":speaker: This campaign plays a recorded audio file: nothing is read aloud.")
    said = truncate(result.text, MAX_SHOWN).splitlines()
    quoted = "\n".join("> " + escape(line) for line in said if line.strip())
    lines = [_(":speaker: *What the customer will hear*")] if heading else []
    lines.append(quoted or "> …")
    for name, reading in list(result.readings.items())[:20]:
        lines.append(
            _("• {name} = {value}: {rule}").format(
                name=code(name),
                value=clip(result.values.get(name, ""), 60),
                rule=_(RULE_WORDS[reading.rule]),
            )
        )
    if result.voice_name and any(r.rule in NUMBER_RULES for r in result.readings.values()):
        lines.append(region_line(result))
    lines.extend(f":warning: {warning}" for warning in result.warnings)
    return "\n".join(lines)


NUMBER_RULES = (Rule.AMOUNT, Rule.NUMBER, Rule.DATE)
"""Readings that say numbers, so the region's forms show in them."""
