"""Every command shows how it is written, and its examples are what the tests run.

``CommandSpec.examples`` are the lines ``/callops help <command>`` shows (with the
Vietnamese words for a Vietnamese reader), and the per-command table of the surfaces
test (``tests/i18n/test_vietnamese_surfaces.py``) is built from them.  So a command added
without examples fails here, in ``make check``, instead of going unseen by the tests that
read every command in both languages.
"""

from __future__ import annotations

from commands.families import FAMILIES
from commands.kernel.catalog import CommandSpec
from commands.kernel.grammar import tokenize
from commands.kernel.help import example_line
from commands.kernel.i18n import Audience, use_audience
from tests.registry import CATALOG

SPECS: tuple[CommandSpec, ...] = tuple(spec for family in FAMILIES for spec in family.commands)


def test_every_command_of_every_family_has_examples() -> None:
    missing = [spec.name for spec in SPECS if not spec.examples]
    assert not missing, (
        f"commands without examples (add them to the CommandSpec in its family.py): {missing}"
    )


def test_every_example_runs_its_own_command_in_english_and_in_vietnamese() -> None:
    """An example is typed as written (English command words) and as the help shows it to
    a Vietnamese reader (the alias): both name the command it illustrates, with the same
    arguments, so ``pause all`` is not ``pause`` of a campaign called "all"."""
    wrong: list[str] = []
    for spec in SPECS:
        for example in spec.examples:
            english = CATALOG.match(tokenize(example))
            if english is None or english[0].name != spec.name:
                wrong.append(f"{spec.name}: {example!r} runs {english and english[0].name}")
                continue
            with use_audience(Audience(language="vi")):
                typed = example_line(spec, example)
            vietnamese = CATALOG.match(tokenize(typed))
            if not typed.startswith(spec.alias) or vietnamese != english:
                wrong.append(f"{spec.name}: {typed!r} runs {vietnamese and vietnamese[0].name}")
    assert not wrong, "\n".join(wrong)
