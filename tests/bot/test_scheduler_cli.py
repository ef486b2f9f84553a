"""``callops scheduler`` and ``callops serve --no-scheduler``: the scheduler in one process."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import httpx
import pytest
from cryptography.fernet import Fernet

from bot.cli import build_parser, main
from bot.cli_app import scheduler_forever
from bot.settings import Settings
from emulators.slack import SlackStandIn


def test_the_flags_are_there() -> None:
    parser = build_parser()
    assert parser.parse_args(["serve", "--no-scheduler"]).no_scheduler is True
    assert parser.parse_args(["serve"]).no_scheduler is False
    assert parser.parse_args(["socket", "--no-scheduler"]).no_scheduler is True


def test_the_scheduler_refuses_to_run_without_a_way_to_post(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("SLACK_BOT_TOKEN", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CALLOPS_DB", str(tmp_path / "callops.db"))
    monkeypatch.setenv("CALLOPS_SECRET_KEY", Fernet.generate_key().decode())
    assert main(["scheduler"]) == 2
    assert "SLACK_BOT_TOKEN" in capsys.readouterr().out


def scheduler_settings(tmp_path: Path, slack: SlackStandIn) -> Settings:
    """A single-workspace install on the stand-in, with its own database file."""
    return Settings(
        _env_file=None,
        slack_bot_token=slack.bot_token(),
        slack_api_url=slack.api_url,
        callops_db=str(tmp_path / "callops.db"),
        callops_secret_key=Fernet.generate_key().decode(),
    )


async def test_the_scheduler_process_runs_until_stopped(
    tmp_path: Path, slack: SlackStandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = scheduler_settings(tmp_path, slack)
    task = asyncio.create_task(scheduler_forever(settings))
    seen = ""
    async with asyncio.timeout(10):
        while "scheduler running" not in seen:
            await asyncio.sleep(0.02)  # waiting for the start-up line, not for time to pass
            seen += capsys.readouterr().out
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert "0 active digests" in seen


async def test_the_scheduler_serves_its_metrics_when_asked(
    tmp_path: Path, slack: SlackStandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    """``callops scheduler --metrics-port``: the digests it posts are counted where a
    Prometheus server can scrape them (port 0 here: any free one)."""
    assert build_parser().parse_args(["scheduler", "--metrics-port", "9108"]).metrics_port == 9108
    settings = scheduler_settings(tmp_path, slack)
    task = asyncio.create_task(
        scheduler_forever(settings, metrics_host="127.0.0.1", metrics_port=0)
    )
    seen = ""
    try:
        async with asyncio.timeout(10):
            while "scheduler running" not in seen:
                await asyncio.sleep(0.02)  # waiting for the start-up line
                seen += capsys.readouterr().out
        url = seen.split("metrics ", 1)[1].split(")", 1)[0]
        async with httpx.AsyncClient() as http:
            page = await http.get(url)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert page.status_code == 200
    assert "# TYPE callops_digests_total counter" in page.text
    assert "callops_callback_queue_depth 0.0" in page.text
