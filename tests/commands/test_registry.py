"""Registries are values: the app's tables are built from the families it is given, and
importing a module fills none of them."""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from commands.approvals import actions
from commands.calls.family import FAMILY as CALLS
from commands.campaigns.family import FAMILY as CAMPAIGNS
from commands.digests.family import FAMILY as DIGESTS
from commands.kernel import catalog
from commands.kernel.help import FAMILY as HELP
from commands.kernel.jobs import SCHEDULER, SERVING
from commands.notifications.family import FAMILY as NOTIFICATIONS
from commands.privacy.family import FAMILY as PRIVACY
from commands.privacy.reveal import SHOW_NUMBER_BLOCK
from commands.registry import build_registry
from commands.rules import refusals, watch
from storage import Role
from tests.registry import APP


def test_importing_the_catalog_and_the_workflow_fills_nothing() -> None:
    """In a fresh interpreter, every family imported and nothing put in use: no table
    answers, so no code can lean on one filled by an import."""
    probe = (
        "import commands.families, commands.dispatch, commands.approvals.workflow\n"
        "from commands.kernel import catalog\n"
        "from commands.approvals import actions\n"
        "looks = (catalog.in_use, actions.in_use,\n"
        "         lambda: catalog.usage_of('campaigns'),\n"
        "         lambda: actions.spec_for('campaign.start'))\n"
        "for look in looks:\n"
        "    try:\n"
        "        look()\n"
        "    except LookupError:\n"
        "        continue\n"
        "    raise SystemExit('a table was filled by importing')\n"
        "print('empty')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "empty"


def test_two_apps_from_two_lists_answer_different_commands() -> None:
    small = build_registry((HELP, CAMPAIGNS))
    other = build_registry((HELP, CALLS))
    assert small.catalog.match(["campaigns"]) is not None
    assert other.catalog.match(["campaigns"]) is None
    assert other.catalog.match(["calls"]) is not None
    assert small.catalog.match(["calls"]) is None
    assert small.actions.kinds == (
        "campaign.start",
        "campaign.pause",
        "campaign.stop",
        "campaign.pause_all",
    )
    assert other.actions.kinds == ("call.transfer", "autocall.push")
    assert small.interactions.click("campaign_open_3") is not None
    assert other.interactions.click("campaign_open_3") is None
    # The full app answers both, and a table in use is the one of the block.
    assert APP.catalog.match(["calls"]) is not None
    with other.using():
        assert catalog.in_use() is other.catalog
        assert actions.in_use().kinds == other.actions.kinds
        with pytest.raises(LookupError):
            actions.spec_for("campaign.start")
    assert catalog.in_use() is APP.catalog


def test_a_family_listed_twice_or_words_named_twice_stop_the_app() -> None:
    with pytest.raises(ValueError, match="listed twice"):
        build_registry((HELP, CAMPAIGNS, CAMPAIGNS))
    with pytest.raises(ValueError, match="names both"):
        catalog.Catalog([*CAMPAIGNS.commands, CAMPAIGNS.commands[0]])


def test_the_privacy_family_hands_over_who_sees_numbers_and_the_button() -> None:
    assert APP.reveal is not None and APP.reveal.role is Role.OPERATOR
    assert APP.reveal.button("ref12345").block_id == SHOW_NUMBER_BLOCK
    assert build_registry((HELP, CAMPAIGNS)).reveal is None  # nobody then, and no button
    with pytest.raises(ValueError, match="customers' numbers"):
        build_registry((HELP, PRIVACY, replace(CAMPAIGNS, reveal=PRIVACY.reveal)))


def test_each_job_says_where_it_runs() -> None:
    places = {job.name: job.where for job in APP.jobs}
    assert places == {
        "approvals.recover": SERVING,
        "approvals.expire": SERVING,
        "digests.alerts": SCHEDULER,
        "digests.anomalies": SCHEDULER,
        "rules.watch": SCHEDULER,
        "rules.judge": SCHEDULER,
        "privacy.notice": SCHEDULER,
        "privacy.work": SCHEDULER,
    }


def test_what_families_take_from_a_called_back_record_comes_with_them() -> None:
    assert APP.on_record == (refusals.refuse_by_key, watch.note_record)
    assert build_registry((HELP, CAMPAIGNS)).on_record == ()  # an app without the rules


def test_the_notifications_family_hands_over_how_records_are_told() -> None:
    assert APP.feed is not None and APP.feed is NOTIFICATIONS.feed
    assert APP.feed.fold_rows > 1 and APP.feed.metadata_budget > 0
    assert build_registry((HELP, CAMPAIGNS)).feed is None  # records are then told nowhere
    with pytest.raises(ValueError, match="call records"):
        build_registry((HELP, NOTIFICATIONS, replace(CAMPAIGNS, feed=NOTIFICATIONS.feed)))


def test_the_digests_family_hands_over_what_schedules_and_posts_mean() -> None:
    assert APP.digests is not None and APP.digests is DIGESTS.digests
    assert build_registry((HELP, CAMPAIGNS)).digests is None  # no digest is posted then
    with pytest.raises(ValueError, match="the digests"):
        build_registry((HELP, DIGESTS, replace(CAMPAIGNS, digests=DIGESTS.digests)))


NOT_FAMILIES = frozenset({"kernel", "registry", "dispatch", "families"})
"""The packages of ``commands`` that are no family: what bot/ may import."""


def family_imports(path: Path) -> list[str]:
    """The family modules (``commands.<family>...``) that ``path`` imports."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "commands" and len(parts) > 1 and parts[1] not in NOT_FAMILIES:
                found.append(name)
                break
    return found


def test_bot_names_no_family() -> None:
    """bot/ runs what the families declare (jobs, the feed, the digests, the reveal)
    from the registry; a bot/ module importing a family's module fails here."""
    root = Path(__file__).resolve().parents[2]
    naming = {
        path.relative_to(root).as_posix(): imports
        for path in sorted((root / "bot").rglob("*.py"))
        if (imports := family_imports(path))
    }
    assert naming == {}, naming
