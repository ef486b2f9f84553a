"""Fuzzing a running ``callops serve``: hypothesis makes requests to ``/slack/events`` and
``/callbacks/{token}`` (random bytes, JSON of any shape, Slack-like payloads with random
fields, deep nesting, bad or good signatures, a ``Content-Encoding`` the body does not
have) and no answer may be a 5xx.

Most Slack requests are signed with the app's real secret, so they get past the
signature check and reach the body checks and Bolt itself.  The counts of answers by
status are printed (``pytest tests/faults/test_fuzz.py -s``), and the app's log must hold
no traceback: what Slack would never send is refused at the door, with one line.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from emulators.slack.signing import signed_headers
from tests import strategies
from tests.faults.processes import AppProcess, Deployment

EXAMPLES = 300
"""Requests per endpoint."""

FORM = "application/x-www-form-urlencoded"

json_values = strategies.json_values(text=40, key=12, size=5, leaves=25)
ids = st.one_of(
    st.sampled_from([TEAM, SUPERVISOR, CALL_CENTER, "U0002", "C0002"]), st.text(max_size=12)
)
anything = st.one_of(ids, json_values)
slack_payloads = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "block_actions",
                "view_submission",
                "view_closed",
                "shortcut",
                "message_action",
                "block_suggestion",
                "event_callback",
                "url_verification",
                "interactive_message",
                "app_rate_limited",
                "nonsense",
            ]
        )
    },
    optional={
        "team": st.one_of(st.fixed_dictionaries({"id": ids}), anything),
        "user": st.one_of(st.fixed_dictionaries({"id": ids}), anything),
        "channel": st.one_of(st.fixed_dictionaries({"id": ids}), anything),
        "team_id": ids,
        "api_app_id": st.text(max_size=12),
        "trigger_id": st.text(max_size=20),
        "actions": st.lists(
            st.dictionaries(
                st.sampled_from(["action_id", "value", "block_id", "type", "selected_option"]),
                st.one_of(
                    st.sampled_from(
                        ["approval_approve", "approval_confirm", "callops_page_next", "x"]
                    ),
                    st.text(max_size=40),
                    json_values,
                ),
            ),
            max_size=3,
        ),
        "view": st.one_of(
            st.fixed_dictionaries(
                {"callback_id": st.text(max_size=20)},
                optional={
                    "type": st.sampled_from(["modal", "home", "workflow_step"]),
                    "private_metadata": st.text(max_size=60),
                    "state": json_values,
                },
            ),
            json_values,
        ),
        "container": json_values,
        "message": json_values,
        "event": st.one_of(
            st.fixed_dictionaries(
                {"type": st.sampled_from(["app_home_opened", "app_uninstalled", "x"])},
                optional={"user": ids, "tab": st.text(max_size=8)},
            ),
            json_values,
        ),
        "event_id": st.text(max_size=12),
        "challenge": st.text(max_size=12),
    },
)


def commands(response_url: str) -> st.SearchStrategy[dict[str, str]]:
    """Slash commands as Slack sends them (every field a string), with random text."""
    return st.fixed_dictionaries(
        {
            "command": st.sampled_from(["/callops", "/callops", "/other"]),
            "text": st.text(max_size=200),
            "team_id": ids,
            "user_id": ids,
            "channel_id": ids,
            "response_url": st.just(response_url),
        },
        optional={"trigger_id": st.text(max_size=20)},
    ).map(lambda fields: {k: str(v) for k, v in fields.items()})


def slack_bodies(response_url: str) -> st.SearchStrategy[tuple[bytes, str]]:
    """A body and its content type."""
    as_json = st.one_of(slack_payloads, json_values).map(
        lambda v: (json.dumps(v).encode(), "application/json")
    )
    as_form = st.one_of(slack_payloads, json_values).map(
        lambda v: (urlencode({"payload": json.dumps(v)}).encode(), FORM)
    )
    as_command = commands(response_url).map(lambda v: (urlencode(v).encode(), FORM))
    deep = st.integers(1, 50_000).map(lambda n: (b"[" * n, FORM))
    raw = st.tuples(st.binary(max_size=500), st.sampled_from([FORM, "application/json", "x/y"]))
    return st.one_of(as_json, as_form, as_command, deep, raw)


def header_text(size: int) -> st.SearchStrategy[str]:
    """What an HTTP client can put in a header: visible ASCII."""
    return st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=size)


def unsigned_headers() -> st.SearchStrategy[dict[str, str]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "X-Slack-Request-Timestamp": header_text(15),
            "X-Slack-Signature": header_text(70),
            "X-Slack-Retry-Num": header_text(3),
        },
    )


cdr_fields = ["direction", "status", "from_number", "to_number", "duration", "billsec", "app"]
call_records = st.fixed_dictionaries(
    {"id": st.text(min_size=1, max_size=40)},
    optional={
        **{
            name: st.one_of(st.text(max_size=60), st.integers(), json_values) for name in cdr_fields
        },
        "additional": st.one_of(st.dictionaries(st.text(max_size=10), st.text()), json_values),
        "time_started": st.text(max_size=25),
        "customer_fullname": st.text(max_size=80),
    },
)
callback_bodies = st.one_of(
    st.binary(max_size=500),
    json_values.map(lambda v: json.dumps(v).encode()),
    call_records.map(lambda v: json.dumps(v).encode()),
    st.integers(1, 50_000).map(lambda n: b"[" * n),
)


encodings = st.one_of(
    st.none(), st.none(), st.none(), st.sampled_from(["gzip", "deflate", "br", "identity", "zz"])
)
"""Mostly none; else a Content-Encoding over a body that is not so encoded (415, or 400
for one the HTTP parser itself refuses)."""


@pytest.fixture
def threaded_slack() -> Iterator[SlackStandIn]:
    with SlackStandIn() as stand_in:
        yield stand_in


@pytest.fixture
def served(
    tmp_path: Path, threaded_slack: SlackStandIn, pbx: EmulatorServer
) -> Iterator[tuple[AppProcess, Deployment]]:
    deployment = Deployment(tmp_path, threaded_slack, pbx)
    deployment.connect_workspace()
    with deployment.storage() as storage:  # accepted records become cards: render them too
        storage.routes.add(TEAM, channel=CALL_CENTER, created_by=SUPERVISOR)
    app = deployment.start_blocking()
    try:
        yield app, deployment
    finally:
        app.stop_blocking()


def test_fuzzed_requests_never_get_a_5xx(served: tuple[AppProcess, Deployment]) -> None:
    app, deployment = served
    secret = deployment.slack.signing_secret
    with deployment.storage() as storage:
        token = storage.callback_tokens.get_or_create(TEAM)
    statuses: dict[str, Counter[int]] = {"slack": Counter(), "callbacks": Counter()}
    fuzz = settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    with httpx.Client(base_url=app.url, trust_env=False, timeout=10) as http:

        @fuzz
        # A response URL the stand-in does not know (it answers 404, as Slack would).
        @given(body=slack_bodies(deployment.slack.base_url + "response/unknown"), data=st.data())
        def slack_request(body: tuple[bytes, str], data: Any) -> None:
            raw, content_type = body
            if data.draw(st.sampled_from([True] * 7 + [False] * 3), label="signed"):
                text = raw.decode("utf-8", errors="replace")
                raw = text.encode()
                # Signed at some second of the last four minutes: the same body drawn twice
                # is then (mostly) not a replay, and gets past the replay check too.
                age = data.draw(st.integers(0, 240), label="seconds old")
                headers = signed_headers(secret, text, timestamp=int(time.time()) - age)
            else:
                headers = data.draw(unsigned_headers())
            encoding = data.draw(encodings, label="Content-Encoding")
            if encoding is not None:
                headers = {**headers, "Content-Encoding": encoding}
            answer = http.post(
                "/slack/events", content=raw, headers={"Content-Type": content_type, **headers}
            )
            statuses["slack"][answer.status_code] += 1
            assert answer.status_code < 500, (raw[:80], headers, answer.text[:200])

        @fuzz
        @given(body=callback_bodies, encoding=encodings)
        def callback(body: bytes, encoding: str | None) -> None:
            headers = {"Content-Type": "application/json"}
            if encoding is not None:
                headers["Content-Encoding"] = encoding
            answer = http.post(f"/callbacks/{token}", content=body, headers=headers)
            statuses["callbacks"][answer.status_code] += 1
            assert answer.status_code < 500, (body[:80], answer.text[:200])

        callback()  # first: a fuzzed, signed app_uninstalled event revokes the callback URL
        slack_request()
        assert http.get("/healthz").status_code == 200
    print(
        "fuzz answers by status:",
        {k: dict(sorted(v.items())) for k, v in statuses.items()},
    )
    assert sum(statuses["slack"].values()) >= EXAMPLES
    assert sum(statuses["callbacks"].values()) >= EXAMPLES
    assert not any(status >= 500 for v in statuses.values() for status in v)
    assert "Traceback" not in app.log_text()
