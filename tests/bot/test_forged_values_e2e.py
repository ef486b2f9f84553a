"""Forged values on every interaction the app declares, signed and sent through the Slack
stand-in: no answer may be "Something went wrong" and the app may log no traceback.

Anyone in a workspace can send a button's value, a modal's private metadata or a step's
inputs of their own making, signed as Slack signs them.  hypothesis draws values (JSON of
any shape, ``|``-separated parts, huge numbers, long text, ids of nothing) for each
declared action id (every suffix and a numbered one), each form's callback id (its
metadata and a text in each of its fields) and each workflow step's inputs; the clicks
and forms are made by an admin, so no role check stops them before the handler.
``pytest tests/bot/test_forged_values_e2e.py -s`` prints the counts.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from collections import Counter
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from slack_sdk.web.async_client import AsyncWebClient

from bot.runtime import Runtime
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, Delivery, SlackStandIn
from emulators.slack.signing import signed_headers
from tests import strategies
from tests.registry import INTERACTIONS

EXAMPLES = 6
"""Values per declared id (over 40 ids, so a few hundred requests in all)."""

json_values = strategies.json_values(
    integers=st.integers(min_value=-(10**30), max_value=10**30), text=30, key=10, size=4, leaves=12
)
values = st.one_of(
    st.text(min_size=1, max_size=60),
    json_values.map(json.dumps),
    st.lists(
        st.one_of(st.integers(-(10**25), 10**25).map(str), st.text(max_size=12)), max_size=6
    ).map("|".join),
    st.fixed_dictionaries(
        {"command": st.text(max_size=40), "offset": st.one_of(st.integers(), st.text())}
    ).map(json.dumps),
    st.sampled_from(["0", "-1", "99999999999999999999", "x|y|z|w", "{}", "[]", "null", "\u202e"]),
).filter(lambda v: 0 < len(v) <= 2000 and v.strip() != "")


def drawn(strategy: st.SearchStrategy[Any], count: int) -> list[Any]:
    """``count`` examples of ``strategy``, drawn by hypothesis (shrinking is no use here:
    every example is sent, and a failure names the id and value it was)."""
    found: list[Any] = []

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: Any) -> None:
        found.append(value)

    collect()
    return found[:count]


def as_object(value: str) -> dict[str, Any]:
    """``value`` as the object an ``object`` input holds (Workflow Builder sends no other)."""
    try:
        loaded = json.loads(value)
    except json.JSONDecodeError:
        return {"value": value}
    return loaded if isinstance(loaded, dict) else {"value": loaded}


def click_ids() -> list[str]:
    """Every click id, disconnecting the workspace last (every other needs it connected)."""
    ids: list[str] = []
    for route in INTERACTIONS.clicks:
        if route.suffixes:
            ids += [f"{route.action_id}_{suffix}" for suffix in route.suffixes]
        elif route.numbered:
            ids.append(f"{route.action_id}_0")
        else:
            ids.append(route.action_id)
    return sorted(ids, key=lambda i: i == "workspace_disconnect")


def everything_shown(slack: SlackStandIn, runs: list[str]) -> str:
    """Every message, ephemeral, DM and view the stand-in holds for the admin."""
    seen: list[Any] = [slack.ephemerals(SUPERVISOR), slack.dm(SUPERVISOR), slack.views(SUPERVISOR)]
    seen += [slack.messages(channel) for channel in (CALL_CENTER, "C0002")]
    seen += [slack.step_run(run).error for run in runs]
    return json.dumps(seen, ensure_ascii=False)


def handled(rt: Runtime, kind: str) -> float:
    total = 0.0
    for metric in rt.metrics.registry.collect():
        for sample in metric.samples:
            if sample.name == "callops_interactions_total" and sample.labels.get("kind") == kind:
                total += sample.value
    return total


async def test_forged_values_on_every_interaction_get_no_went_wrong_and_no_traceback(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    web = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
    sent: Counter[str] = Counter()

    for action_id in click_ids():
        for value in drawn(values, EXAMPLES):
            delivery = await click_forged(slack, action_id, value)
            assert delivery.status == 200, (action_id, value, delivery.body)
            sent["click"] += 1
    await slack.wait_for(lambda: handled(app, "click") >= sent["click"] or None, within=60)
    app.storage.workspaces.connect(TEAM, pbx.base_url, pbx.api_key)  # the click disconnected it

    for route in INTERACTIONS.submissions:
        for metadata, text in zip(drawn(values, EXAMPLES), drawn(values, EXAMPLES), strict=False):
            trigger = slack.core.state.issue_trigger(TEAM, SUPERVISOR)
            fields = form_fields(route.callback_id)
            blocks: list[dict[str, Any]] = [
                {
                    "type": "input",
                    "block_id": block_id,
                    "optional": True,
                    "label": {"type": "plain_text", "text": block_id},
                    "element": {"type": "plain_text_input", "action_id": block_id},
                }
                for block_id in fields
            ]
            opened = await web.views_open(
                trigger_id=trigger,
                view={
                    "type": "modal",
                    "callback_id": route.callback_id,
                    "title": {"type": "plain_text", "text": "Forged"},
                    "submit": {"type": "plain_text", "text": "Send"},
                    "private_metadata": metadata,
                    "blocks": blocks,
                },
            )
            view_id = str(opened["view"]["id"])
            delivery = await slack.driver.view_submission(
                view_id, dict.fromkeys(fields, text), user=SUPERVISOR
            )
            assert delivery.status == 200, (route.callback_id, metadata, delivery.body)
            assert "went wrong" not in delivery.body, (route.callback_id, metadata, text)
            sent["submission"] += 1
    await slack.wait_for(
        lambda: handled(app, "submission") >= sent["submission"] or None, within=60
    )

    runs: list[str] = []
    for step in INTERACTIONS.steps:
        for value in drawn(values, EXAMPLES):
            given: dict[str, Any] = {p.name: value for p in step.inputs if p.type == "string"}
            given |= {p.name: as_object(value) for p in step.inputs if p.type == "object"}
            delivery = await slack.driver.run_step(step.callback_id, user=SUPERVISOR, inputs=given)
            assert delivery.status == 200, (step.callback_id, value, delivery.body)
            runs.append(str(delivery.payload["event"]["function_execution_id"]))
            sent["step"] += 1
    await slack.wait_for(lambda: handled(app, "step") >= sent["step"] or None, within=60)

    shown = everything_shown(slack, runs)
    went_wrong = shown.count("went wrong")
    tracebacks = [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    print(f"\nforged values sent: {dict(sent)}; 'went wrong': {went_wrong}; tracebacks:")
    print(f"{len(tracebacks)}", Counter(r.getMessage().split(" (ref")[0] for r in tracebacks))
    assert went_wrong == 0, shown[shown.find("went wrong") - 300 :][:600]
    assert "This button is out of date; run the command again." in shown
    assert tracebacks == [], [r.getMessage() for r in tracebacks[:5]]
    assert sum(sent.values()) >= EXAMPLES * (len(click_ids()) + len(INTERACTIONS.steps))


def form_fields(callback_id: str) -> list[str]:
    """The block ids a form reads (so each of its fields gets a forged text)."""
    return FORM_FIELDS.get(callback_id, ["value"])


FORM_FIELDS: dict[str, list[str]] = {
    "connect_workspace": ["base_url", "api_key"],
    "approval_deny_reason": ["reason"],
    "autocall_form": ["phone", "param:name", "param:amount"],
    "call_transfer_form": ["ext", "ext_pick", "leg"],
    "lead_form": ["phone", "lead_name", "province"],
    "group_edit_form": [
        "group_name",
        "group_description",
        "group_priority",
        "members",
        "campaigns",
    ],
    "user_edit_form": ["level", "role", "extension", "flags", "password", "confirm_password"],
}
"""The block ids each form reads, as its module declares them."""


async def click_forged(slack: SlackStandIn, action_id: str, value: str) -> Delivery:
    """A message with a button carrying ``value``, as anyone could post it, and an admin's
    click on it."""
    web = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
    button: dict[str, Any] = {"type": "button", "action_id": action_id, "value": value}
    button["text"] = {"type": "plain_text", "text": "Go"}
    blocks = [{"type": "actions", "elements": [button]}]
    posted = await web.chat_postMessage(channel=CALL_CENTER, text="forged", blocks=blocks)
    return await slack.driver.block_action(
        user=SUPERVISOR, action_id=action_id, channel=CALL_CENTER, ts=str(posted["ts"])
    )


async def forged_click(slack: SlackStandIn, action_id: str, value: str) -> dict[str, Any]:
    """An admin's click on a button carrying ``value``, and the answer it gets."""
    before = len(slack.ephemerals(SUPERVISOR))
    await click_forged(slack, action_id, value)
    return await slack.wait_for(
        lambda: (
            slack.ephemerals(SUPERVISOR)[before]
            if len(slack.ephemerals(SUPERVISOR)) > before
            else None
        )
    )


@pytest.mark.parametrize(
    ("action_id", "value"),
    [
        ("callops_page_next", "not json"),
        ("callops_page_prev", '{"offset": 10}'),
        ("callops_page_next", '{"command": "campaigns", "offset": "ten"}'),
        ("callops_page_next", '{"command": "campaigns", "offset": -5}'),
        ("digest_full_report", "-|1700000000|1700086400"),
        ("digest_full_report", "-|1700000000|99999999999999999999|1699913600"),
        ("digest_full_report", "-|1700086400|1700000000|1699913600"),
        ("approval_approve", "x|y"),
        ("call_back_pick", '{"c": "3c25"}'),
    ],
)
async def test_a_forged_value_is_out_of_date_in_one_log_line(
    app: Runtime,
    slack: SlackStandIn,
    caplog: pytest.LogCaptureFixture,
    action_id: str,
    value: str,
) -> None:
    caplog.set_level(logging.INFO)
    answer = await forged_click(slack, action_id, value)
    assert "This button is out of date; run the command again." in answer["text"]
    refused = [r for r in caplog.records if "refused:" in r.getMessage()]
    assert len(refused) == 1 and refused[0].exc_info is None
    assert value not in refused[0].getMessage()  # what was forged is not logged
    assert not [r for r in caplog.records if r.exc_info]


OPTIONS = [{"text": {"type": "plain_text", "text": name}, "value": name} for name in ("one", "two")]
KINDS: dict[str, tuple[dict[str, Any], Any]] = {
    "pick": ({"type": "static_select", "options": OPTIONS}, "one"),
    "picks": ({"type": "multi_static_select", "options": OPTIONS}, ["one", "two"]),
    "boxes": ({"type": "checkboxes", "options": OPTIONS}, ["two"]),
    "radio": ({"type": "radio_buttons", "options": OPTIONS}, "one"),
    "person": ({"type": "users_select"}, SUPERVISOR),
    "people": ({"type": "multi_users_select"}, [SUPERVISOR]),
    "where": ({"type": "conversations_select"}, CALL_CENTER),
}
"""One input of each kind a form reads, and what is chosen in it."""


def wrong_json(slack: SlackStandIn, payload: dict[str, Any], kind: str) -> tuple[str, str]:
    """A payload as Slack posts it (events as JSON, the rest as a form), and its type."""
    if kind == "event":
        return json.dumps(payload), "application/json"
    return urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"


def replaced(payload: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    forged = copy.deepcopy(payload)
    place: Any = forged
    for key in path[:-1]:
        place = place[key]
    place[path[-1]] = value
    return forged


async def send_forged(slack: SlackStandIn, payload: dict[str, Any], kind: str) -> tuple[int, str]:
    """Post ``payload`` signed with the app's secret, as someone holding it could."""
    assert slack.driver.request_url is not None
    body, content_type = wrong_json(slack, payload, kind)
    headers = {"Content-Type": content_type, **signed_headers(slack.signing_secret, body)}
    async with httpx.AsyncClient(timeout=30) as http:
        answer = await http.post(slack.driver.request_url, content=body, headers=headers)
    return answer.status_code, answer.text


async def submitted_payload(
    slack: SlackStandIn, web: AsyncWebClient, callback_id: str
) -> dict[str, Any]:
    """What Slack posts when the admin submits ``callback_id``'s form with text in its
    fields and a choice in an input of every other kind."""
    trigger = slack.core.state.issue_trigger(TEAM, SUPERVISOR)
    blocks: list[dict[str, Any]] = [
        {
            "type": "input",
            "block_id": block_id,
            "optional": True,
            "label": {"type": "plain_text", "text": block_id},
            "element": {"action_id": block_id, **element},
        }
        for block_id, element in [
            *((f, {"type": "plain_text_input"}) for f in form_fields(callback_id)),
            *((k, e) for k, (e, _) in KINDS.items()),
        ]
    ]
    opened = await web.views_open(
        trigger_id=trigger,
        view={
            "type": "modal",
            "callback_id": callback_id,
            "title": {"type": "plain_text", "text": "Forged"},
            "submit": {"type": "plain_text", "text": "Send"},
            "private_metadata": "{}",
            "blocks": blocks,
        },
    )
    chosen = dict.fromkeys(form_fields(callback_id), "text") | {k: v for k, (_, v) in KINDS.items()}
    delivery = await slack.driver.view_submission(
        str(opened["view"]["id"]), chosen, user=SUPERVISOR
    )
    return dict(delivery.payload)


TYPED = {
    "type",
    "value",
    "selected_option",
    "selected_options",
    "selected_user",
    "selected_users",
    "selected_conversation",
}
"""The fields of a form's state that callops reads: a wrong type there is "out of date"."""


async def test_wrong_json_types_in_every_field_get_no_traceback_and_no_500(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Every field of the payloads Slack sends (a form submission, a click, both kinds
    of shortcut, a workflow step) replaced by a value of another JSON type: a number
    where a text was, ``true`` where a list was.  Nothing answers 500 or logs a
    traceback, nothing shows "went wrong", and a form whose state holds a wrong type is
    "out of date"."""
    caplog.set_level(logging.INFO)
    web = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
    statuses: Counter[int] = Counter()
    out_of_date = 0
    forged: list[tuple[str, dict[str, Any], tuple[str | int, ...]]] = []

    for route in INTERACTIONS.submissions:
        payload = await submitted_payload(slack, web, route.callback_id)
        every = strategies.paths(payload)
        # The envelope once (it is read the same for every form), the state of each form.
        chosen = [p for p in every if p[:2] == ("view", "state")]
        if route is INTERACTIONS.submissions[0]:
            chosen = every
        forged += [("view_submission", payload, path) for path in chosen]

    clicked = await click_forged(slack, "callops_page_next", '{"command":"campaigns","offset":0}')
    forged += [
        ("block_actions", dict(clicked.payload), p) for p in strategies.paths(clicked.payload)
    ]
    posted = await web.chat_postMessage(channel=CALL_CENTER, text="Call back 0912 345 678")
    for shortcut in INTERACTIONS.shortcuts:
        if shortcut.kind == "message":
            used = await slack.driver.message_shortcut(
                user=SUPERVISOR,
                channel=CALL_CENTER,
                ts=str(posted["ts"]),
                callback_id=shortcut.callback_id,
            )
        else:
            used = await slack.driver.global_shortcut(
                user=SUPERVISOR, callback_id=shortcut.callback_id
            )
        forged += [("shortcut", dict(used.payload), p) for p in strategies.paths(used.payload)]
    step = INTERACTIONS.steps[0]
    inputs: dict[str, Any] = {p.name: "x" for p in step.inputs if p.type == "string"}
    inputs |= {p.name: {"value": "x"} for p in step.inputs if p.type == "object"}
    ran = await slack.driver.run_step(step.callback_id, user=SUPERVISOR, inputs=inputs)
    forged += [("event", dict(ran.payload), p) for p in strategies.paths(ran.payload)]

    runs: list[str] = []
    for kind, payload, path in forged:
        original: Any = payload
        for key in path:
            original = original[key]
        for wrong in drawn(strategies.wrong_type(original), 1):
            status, body = await send_forged(slack, replaced(payload, path, wrong), kind)
            statuses[status] += 1
            assert status < 500, (kind, path, wrong, body)
            assert "went wrong" not in body, (kind, path, wrong, body)
            in_state = kind == "view_submission" and path[:2] == ("view", "state")
            if in_state and len(path) == 6 and path[-1] in TYPED and wrong is not None:
                assert "This form is out of date; open it again." in body, (path, wrong, body)
                out_of_date += 1
    await asyncio.sleep(1)  # what was acknowledged runs on: let it finish before looking

    shown = everything_shown(slack, runs)
    tracebacks = [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    print(f"\nwrong-type payloads: {sum(statuses.values())}, by status {dict(statuses)};")
    print(f"forms answered out of date: {out_of_date}; tracebacks: {len(tracebacks)}")
    assert "went wrong" not in shown, shown[shown.find("went wrong") - 300 :][:600]
    assert tracebacks == [], [r.getMessage() for r in tracebacks[:5]]
    assert out_of_date >= len(INTERACTIONS.submissions) * len(KINDS)
