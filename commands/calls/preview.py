"""What an autocall will say, shown before anyone is called: the template's content with
every placeholder replaced by its value as the service reads it (``speech``), and the
values it would misread refused with the field named.

Used wherever an autocall is asked for (the command, the form, the call-back shortcut,
the workflow step), on the approval card, and by ``listen``, which pushes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from callcenter.models import Template
from commands.calls.speech import Reading, Rule, UnreadableValue, ValueProblem, read_value, spoken
from commands.kernel.i18n import N_, _
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


class ValueRefused(ValueError):
    """A value the service would misread: which placeholder, and why in words."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name
        self.message = message


def read_values(values: Mapping[str, str]) -> dict[str, Reading]:
    """Each value's reading; ``ValueRefused`` names the first the service would misread."""
    readings: dict[str, Reading] = {}
    for name, value in values.items():
        try:
            readings[name] = read_value(value)
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


def preview(template: Template | None, values: Mapping[str, str]) -> Preview:
    readings = read_values(values)
    typed = dict(values)
    if template is None or template.voice_type != "tts":
        return Preview(None, readings, typed)
    return Preview(spoken(template.content or "", readings), readings, typed)


def preview_mrkdwn(result: Preview) -> str:
    """The preview as a card shows it: the spoken text quoted, then each value's rule."""
    if result.text is None:
        return _(":speaker: This campaign plays a recorded audio file: nothing is read aloud.")
    said = truncate(result.text, MAX_SHOWN).splitlines()
    quoted = "\n".join("> " + escape(line) for line in said if line.strip())
    lines = [_(":speaker: *What the customer will hear*"), quoted or "> …"]
    for name, reading in list(result.readings.items())[:20]:
        lines.append(
            _("• {name} = {value}: {rule}").format(
                name=code(name),
                value=clip(result.values.get(name, ""), 60),
                rule=_(RULE_WORDS[reading.rule]),
            )
        )
    return "\n".join(lines)
