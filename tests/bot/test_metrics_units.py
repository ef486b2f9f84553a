"""The pieces of the operator's view that need no server: bounded labels, one registry
per process, the log filter that keeps secrets out, the JSON line format."""

from __future__ import annotations

import io
import json
import logging

from cryptography.fernet import Fernet
from prometheus_client.parser import text_string_to_metric_families

from bot import logs
from bot.metrics import (
    DatabaseFigures,
    Metrics,
    ack_kind,
    command_name,
    route_template,
    slack_method,
    work_name,
)
from bot.settings import Settings
from tests.registry import APP


def test_call_center_paths_become_route_templates() -> None:
    assert route_template("/v3/campaign") == "/v3/campaign"
    assert route_template("/v3/campaign/5f0c2c1e-3f0a-4a43-9d7e-2b1b4c7e9a10") == (
        "/v3/campaign/{id}"
    )
    assert route_template("/v1/call/a1b2c3%40pbx/transfer") == "/v1/call/{id}/transfer"
    assert route_template("/v3/monitor-stats/campaign/autodialer") == (
        "/v3/monitor-stats/campaign/autodialer"
    )
    assert route_template("/prefix/api/v3/user/42") == "/v3/user/{id}"
    assert route_template("/not/the/service") == "other"


def test_slack_methods_are_named_by_the_api_not_the_url() -> None:
    assert slack_method("http://127.0.0.1:9/api/chat.postMessage") == "chat.postMessage"
    assert slack_method("https://slack.com/api/oauth.v2.access") == "oauth.v2.access"
    assert slack_method("https://files.slack.com/upload/v1/CwABAAAAXgsA") == "upload"


def test_command_names_come_from_the_catalog_never_from_the_text() -> None:
    assert command_name("", APP) == "help"
    assert command_name("campaigns", APP) == "campaigns"
    assert command_name('campaign start "Sales HN"', APP) == command_name("campaign start x", APP)
    assert command_name("drop table xoxb-123", APP) == "unknown"
    assert command_name('"unterminated', APP) == "unknown"
    assert work_name(
        {"type": "block_actions", "actions": [{"action_id": "callops_page_next"}]}, APP
    ) == ("callops_page")
    assert work_name({"type": "event_callback", "event": {"type": "<script>"}}, APP) == "unknown"


def test_ack_kind_reads_the_body_slack_sent() -> None:
    assert ack_kind(b"token=x&team_id=T1&command=%2Fcallops&text=help") == "command"
    assert ack_kind(b"payload=%7B%22type%22%3A%22block_actions%22%7D") == "interaction"
    assert ack_kind(b'{"type":"event_callback","event":{}}') == "event"
    assert ack_kind(b'{"type":"url_verification"}') == "other"
    # A field's name, not text that happens to read like one.
    assert ack_kind(b"token=x&team_id=T1&text=command%3Dx&payload_size=3") == "other"


def test_each_runtime_has_registries_of_its_own() -> None:
    one, two = Metrics(), Metrics()
    one.commands.labels("help", "ok").inc()
    two.watch_database(lambda: DatabaseFigures(4, 12.5, {"pending": 2, "done": 0}))
    first = one.render().decode()
    second = two.render().decode()
    assert 'callops_commands_total{command="help",outcome="ok"} 1.0' in first
    assert 'command="help"' not in second
    assert "callops_callback_queue_depth" not in first
    gauges = {
        (s.name, tuple(s.labels.items())): s.value
        for family in text_string_to_metric_families(second)
        for s in family.samples
    }
    assert gauges[("callops_callback_queue_depth", ())] == 4
    assert gauges[("callops_callback_queue_oldest_age_seconds", ())] == 12.5
    assert gauges[("callops_approvals", (("state", "pending"),))] == 2


def emit(fmt: logs.LogFormat, *args: object, exc: BaseException | None = None) -> str:
    stream = io.StringIO()
    logger = logging.getLogger("tests.redaction")
    handler = logs.handler(stream, fmt)
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.setLevel(logging.INFO)
        if exc is None:
            logger.warning(" ".join(["%s"] * len(args)), *args)
        else:
            try:
                raise exc
            except BaseException:
                logger.exception(" ".join(["%s"] * len(args)), *args)
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    return stream.getvalue()


def test_secrets_never_reach_a_log_line() -> None:
    key = Fernet.generate_key().decode()
    token = Fernet(key.encode()).encrypt(b"the api key").decode()
    secrets = {
        "slack bot token": "xoxb-1234-5678-abcdefABCDEF",
        "rotating token": "xoxe.xoxb-1-MTIzNDU2Nzg5",
        "refresh token": "xoxe-1-My0xLTEyMzQ1Njc4OTAxMi0",
        "app token": "xapp-1-A123-456-abcdef",
        "fernet key": key,
        "fernet token": token,
        "bearer": "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig",
        "db url": "postgresql+psycopg://callops:s3cr3t-pw@db.internal:5432/callops",
        "api key field": '{"api_key": "k-live-9f8e7d6c"}',
    }
    for fmt in ("text", "json"):
        out = emit(fmt, *secrets.values())
        for hidden in ("1234-5678-abcdef", "MTIzNDU2", "My0xLTEy", "A123-456", key, token,
                       "eyJhbGciOiJIUzI1NiJ9", "s3cr3t-pw", "k-live-9f8e7d6c"):  # fmt: skip
            assert hidden not in out, (fmt, hidden)
        assert "db.internal:5432/callops" in out  # the rest of the line stays readable
        # A secret in an exception's message is blanked in the traceback too.
        failed = emit(fmt, "connect failed", exc=RuntimeError("auth xoxb-999-leak-me"))
        assert "999-leak-me" not in failed and "RuntimeError" in failed


def test_remembered_values_are_blanked_wherever_they_appear() -> None:
    logs.remember_secret("plain-looking-api-key-42")
    out = emit("text", "key=plain-looking-api-key-42;")
    assert "plain-looking-api-key-42" not in out


def test_json_lines_carry_the_work_they_belong_to() -> None:
    stream = io.StringIO()
    logger = logging.getLogger("tests.jsonlines")
    handler = logs.handler(stream, "json")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        cid = logs.begin(team="T1", name="campaigns")
        logger.info("one %s", "line")
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    [line] = [json.loads(raw) for raw in stream.getvalue().splitlines()]
    assert line["message"] == "one line"
    assert (line["team"], line["command"], line["correlation_id"]) == ("T1", "campaigns", cid)
    assert line["level"] == "INFO" and line["logger"] == "tests.jsonlines"
    assert line["time"].endswith("+00:00")


def test_settings_never_show_the_database_password() -> None:
    settings = Settings(_env_file=None, callops_db="postgresql://callops:hunter2@db/callops")
    assert "hunter2" not in repr(settings) and "hunter2" not in str(settings)
    assert settings.callops_log_format == "text"
    assert Settings(_env_file=None, callops_log_format="json").callops_log_format == "json"
