"""Property-based: whatever arrives (good values, wrong types, garbage, malformed JSON),
the emulator never answers 500, every 2xx body is its declared ``callcenter.models``
response with every field present, and every error body has one of the service's three
shapes."""

from __future__ import annotations

import json
import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from callcenter import models as m
from emulators.pbx.testing import EmulatorServer

PAGE_MODELS: dict[type[BaseModel], type[BaseModel]] = {
    m.Page[m.User]: m.User,
    m.Page[m.Campaign]: m.Campaign,
    m.Page[m.Template]: m.Template,
    m.Page[m.Carrier]: m.Carrier,
    m.Page[m.Gateway]: m.Gateway,
    m.Page[m.BlacklistEntry]: m.BlacklistEntry,
    m.Page[m.Cdr]: m.Cdr,
    m.Page[m.AutodialerStats]: m.AutodialerStats,
}


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    model: type[BaseModel]
    params: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    body: str = "none"  # none | json | multipart
    repeated: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return f"{self.method} {self.path}"


WINDOW = ("start_time", "end_time")
ENDPOINTS = (
    Endpoint("POST", "/v3/auth/token", m.TokenV3, fields=("api_key",), body="json"),
    Endpoint("POST", "/v1/auth/token", m.TokenV1, fields=("api_key",), body="json"),
    Endpoint("GET", "/v3/report/call/user", m.ReportUserList, WINDOW),
    Endpoint("GET", "/v2/report/extension", m.ExtensionReport, WINDOW),
    Endpoint("GET", "/v2/report/extension/summary", m.ExtensionSummaryList, WINDOW),
    Endpoint("GET", "/v2/report/extension/summary/day", m.ExtensionSummaryDayList, WINDOW),
    Endpoint("GET", "/v2/report/agent/time", m.AgentTimeList, WINDOW),
    Endpoint("GET", "/v2/stats", m.StatsList, ("start_date", "end_date", "interval")),
    Endpoint(
        "GET",
        "/v3/monitor-stats/campaign/autodialer",
        m.Page[m.AutodialerStats],
        ("interval", "campaign_uuid", "status", "limit", "offset"),
        repeated=("campaign_uuid", "status"),
    ),
    Endpoint(
        "POST",
        "/v3/lead",
        m.LeadCreated,
        fields=("list_uuid", "phone_number", "lead_name", "additional", "gender"),
        body="json",
    ),
    Endpoint("POST", "/v3/lead/file", m.LeadFileAccepted, body="multipart"),
    Endpoint(
        "POST", "/v3/lead/multi", m.LeadMultiResult, fields=("list_uuid", "data"), body="json"
    ),
    Endpoint("GET", "/v3/lead/{lead_uuid}", m.Lead),
    Endpoint("GET", "/v3/list/{list_uuid}", m.LeadList),
    Endpoint(
        "POST",
        "/v3/autocall/import",
        m.AutocallResult,
        fields=("campaign_uuid", "phone_number", "param"),
        body="json",
    ),
    Endpoint("GET", "/v3/user", m.Page[m.User], ("limit", "offset")),
    Endpoint("GET", "/v3/user/{user_uuid}", m.User),
    Endpoint(
        "PUT",
        "/v3/user/{user_uuid}",
        m.UserUpdated,
        fields=(
            "username",
            "level",
            "role_uuid",
            "password",
            "confirm_password",
            "email",
            "extension",
            "is_create_extension",
            "is_active",
            "enable_webrtc",
        ),
        body="json",
    ),
    Endpoint(
        "POST", "/v3/group", m.GroupCreated, fields=("group_name", "group_description"), body="json"
    ),
    Endpoint(
        "PUT",
        "/v3/group/{group_uuid}",
        m.GroupUpdated,
        fields=(
            "group_name",
            "group_description",
            "group_priority",
            "user_assigns",
            "campaign_assigns",
        ),
        body="json",
    ),
    Endpoint("GET", "/v3/campaign", m.Page[m.Campaign], ("type", "limit", "offset")),
    Endpoint(
        "PUT",
        "/v3/campaign/{campaign_uuid}",
        m.CampaignUpdated,
        fields=(
            "campaign_name",
            "type",
            "status",
            "concurrent_call",
            "mode_call",
            "carrier_uuid",
            "template_uuid",
            "network",
            "schedules",
            "recall_status",
            "callback_url",
            "type_autocall",
            "priority_recall",
        ),
        body="json",
    ),
    Endpoint("GET", "/v3/template", m.Page[m.Template], ("template_name", "limit", "offset")),
    Endpoint("GET", "/v3/carrier", m.Page[m.Carrier], ("limit", "offset")),
    Endpoint("GET", "/v3/gateway", m.Page[m.Gateway], ("limit", "offset")),
    Endpoint("GET", "/v1/blacklist", m.Page[m.BlacklistEntry], ("limit", "offset")),
    Endpoint(
        "GET",
        "/v3/cdr",
        m.Page[m.Cdr],
        (
            "start_date",
            "end_date",
            "start_date_ended",
            "end_date_ended",
            "extension",
            "status",
            "hotline",
            "phone",
            "direction",
            "campaign_uuid",
            "limit",
            "offset",
        ),
    ),
    Endpoint("GET", "/v1/call", m.ActiveCallList),
    Endpoint(
        "POST", "/v1/call/{call_id}/transfer", m.TransferResult, fields=("ext", "legs"), body="json"
    ),
)


@dataclass
class World:
    http: httpx.Client
    ids: dict[str, list[str]]
    good: dict[str, list[Any]]


@pytest.fixture(scope="module")
def world(emulator_server: EmulatorServer) -> Iterator[World]:
    server = emulator_server
    server.reset()
    server.set_call_mode("manual")
    http = httpx.Client(base_url=server.base_url, timeout=10.0, trust_env=False)
    token = http.post("/v3/auth/token", json={"api_key": server.api_key}).json()["token"]
    http.headers["Authorization"] = f"Bearer {token}"
    campaigns = http.get("/v3/campaign", params={"limit": 100}).json()["data"]
    users = http.get("/v3/user", params={"limit": 100}).json()["data"]
    cdrs = http.get("/v3/cdr", params={"limit": 50, "offset": 0}).json()["data"]
    calls = [server.originate()["call_id"] for _ in range(3)]
    carriers = http.get("/v3/carrier").json()["data"]
    ids = {
        "lead_uuid": [c["lead_uuid"] for c in cdrs if c["lead_uuid"]][:5],
        "list_uuid": [c["default_list_uuid"] for c in campaigns if c["default_list_uuid"]][:5],
        "user_uuid": [u["user_uuid"] for u in users][:5],
        "group_uuid": [g["group_uuid"] for u in users for g in u["groups"] or []][:5],
        "campaign_uuid": [c["campaign_uuid"] for c in campaigns][:10],
        "call_id": calls,
    }
    good: dict[str, list[Any]] = {
        **ids,
        "start_time": ["2020-01-01 00:00:00", "2030-12-31 23:59:59", "2024-02-29"],
        "end_time": ["2030-12-31 23:59:59", "2020-01-01"],
        "start_date": ["2020-01-01", "2024-05-05 10:00:00", "2024-05-05T10:00:00Z"],
        "end_date": ["2030-01-01", "2024-05-06 10:00:00"],
        "start_date_ended": ["2020-01-01"],
        "end_date_ended": ["2030-01-01 00:00:00"],
        "interval": ["hour", "day", "week", "month", "60", "1440"],
        "status": ["answered", "ANSWERED", "running", "pause", "start", "stop", "busy"],
        "type": ["autocall", "autodialer", "inbound", "manual"],
        "direction": ["inbound", "outbound", "local"],
        "limit": ["0", "1", "10", "500", "5000"],
        "offset": ["0", "3", "100000"],
        "extension": [u["extension"] for u in users][:3],
        "ext": [u["extension"] for u in users][:3],
        "legs": ["aleg", "bleg"],
        "phone_number": ["0912345678", "0387654321", "84123"],
        "phone": [c["to_number"] for c in cdrs][:3],
        "hotline": ["19006868"],
        "template_name": ["Nhắc", "OTP", ""],
        "api_key": [server.api_key, server.api_key_2, "nope"],
        "campaign_name": [*[c["campaign_name"] for c in campaigns][:3], "Tên mới"],
        "group_name": ["Nhóm mới", "CSKH", "x y_z.1-2"],
        "username": ["agent.new", [u["username"] for u in users][1]],
        "level": ["admin", "agent", "supervisor"],
        "role_uuid": [u["role_uuid"] for u in users][:2],
        "password": ["pw", ""],
        "confirm_password": ["pw"],
        "mode_call": ["direct", "serial", "parralel"],
        "priority_recall": ["normal", "recall"],
        "type_autocall": ["autocall_voice_tts", ""],
        "carrier_uuid": [c["carrier_uuid"] for c in carriers],
        "template_uuid": [c["template_uuid"] for c in campaigns if c["template_uuid"]][:2],
        "param": [{"name": "An"}, {"name": "An", "amount": "100000", "due_date": "01/01/2026"}],
        "data": [[{"phone_number": "0912345678", "after_day": 1}], []],
        "network": [{"operator_a": 1, "offnet": 2}],
        "schedules": [[{"monday_start_time": 1}]],
        "recall_status": [["busy"], []],
        "user_assigns": [[u["user_uuid"] for u in users][:2]],
        "campaign_assigns": [[c["campaign_uuid"] for c in campaigns][:1]],
        "concurrent_call": [0, 3],
        "group_priority": [1],
        "is_create_extension": [True, False],
        "is_active": [True, False],
        "enable_webrtc": [True],
    }
    yield World(http, ids, good)
    http.close()


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
garbage_text = st.text(max_size=40)
segment = st.text(
    alphabet=string.ascii_letters + string.digits + "-_.~", min_size=1, max_size=40
).filter(lambda s: s not in {".", ".."})  # dot segments are folded away by the URL itself


def value_for(world: World, name: str) -> st.SearchStrategy[Any]:
    good = world.good.get(name)
    return st.one_of(st.sampled_from(good), json_values) if good else json_values


def query_value(world: World, name: str) -> st.SearchStrategy[str]:
    good = [v for v in world.good.get(name, []) if isinstance(v, str)]
    choices: list[st.SearchStrategy[str]] = [garbage_text, st.integers(-10, 10**6).map(str)]
    if good:
        choices.insert(0, st.sampled_from(good))
    return st.one_of(*choices)


@st.composite
def requests(draw: st.DrawFn, world: World, endpoint: Endpoint) -> dict[str, Any]:
    path = endpoint.path
    for name in ("lead_uuid", "list_uuid", "user_uuid", "group_uuid", "campaign_uuid", "call_id"):
        if "{" + name + "}" in path:
            known = world.ids[name]
            value = draw(st.one_of(st.sampled_from(known), segment) if known else segment)
            path = path.replace("{" + name + "}", value)
    params: list[tuple[str, str]] = []
    for name in endpoint.params:
        times = draw(st.integers(0, 3 if name in endpoint.repeated else 1))
        params += [(name, draw(query_value(world, name))) for _ in range(times)]
    if draw(st.booleans()):
        params.append((draw(st.sampled_from(["x", "limit", "a[b]"])), draw(garbage_text)))
    request: dict[str, Any] = {"method": endpoint.method, "url": path, "params": params}
    if endpoint.body == "json":
        shape = draw(st.integers(0, 9))
        if shape == 0:
            request["content"] = draw(st.binary(max_size=60))
            request["headers"] = {"content-type": "application/json"}
        elif shape == 1:
            request["json"] = draw(json_values)
        else:
            body = {}
            for name in endpoint.fields:
                if draw(st.integers(0, 4)):
                    body[name] = draw(value_for(world, name))
            if draw(st.booleans()):
                body[draw(st.text(max_size=10))] = draw(json_values)
            request["json"] = body
    elif endpoint.body == "multipart":
        data = {}
        if draw(st.booleans()):
            data["list_uuid"] = draw(
                st.one_of(st.sampled_from(world.ids["list_uuid"]), garbage_text)
            )
        files = None
        if draw(st.booleans()):
            rows = draw(
                st.lists(
                    st.tuples(
                        st.one_of(st.sampled_from(["0912345678", "0387654321"]), garbage_text),
                        garbage_text,
                    ),
                    max_size=5,
                )
            )
            header = draw(st.sampled_from(["phone_number,lead_name", "name,x", ""]))
            text = header + "\n" + "\n".join(f"{p},{n}" for p, n in rows)
            raw = draw(st.one_of(st.just(text.encode()), st.binary(max_size=60)))
            files = {"file": ("leads.csv", raw, "text/csv")}
        request["data"] = data
        if files:
            request["files"] = files
        elif not data:
            request["content"] = draw(st.binary(max_size=40))
            request["headers"] = {
                "content-type": draw(
                    st.sampled_from(
                        ["multipart/form-data; boundary=x", "multipart/form-data", "text/plain"]
                    )
                )
            }
    return request


def conforms(model: type[BaseModel], body: Any) -> None:
    assert isinstance(body, dict)
    assert set(model.model_fields) <= set(body), set(model.model_fields) - set(body)
    model.model_validate(body)
    item_model = PAGE_MODELS.get(model)
    if item_model is not None:
        for item in body["data"]:
            assert set(item_model.model_fields) <= set(item)
            item_model.model_validate(item)


def error_shape(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    if body.get("status") == "fail":
        return set(body) == {"status", "error"} and isinstance(body["error"], str)
    if set(body) != {"error"}:
        return False
    error = body["error"]
    return isinstance(error, str) or (
        isinstance(error, list)
        and all(
            isinstance(e, dict) and len(e) == 1 and all(isinstance(v, str) for v in e.values())
            for e in error
        )
    )


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.name)
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_no_500_and_every_answer_has_its_declared_shape(
    world: World, endpoint: Endpoint, data: st.DataObject
) -> None:
    request = data.draw(requests(world, endpoint))
    response = world.http.request(**request)
    assert response.status_code < 500, (request, response.text)
    body = json.loads(response.content)
    if response.status_code < 300:
        conforms(endpoint.model, body)
    else:
        assert response.status_code in {400, 401, 404, 405, 409}, response.status_code
        assert error_shape(body), body


def test_the_table_covers_every_endpoint(emulator_server: EmulatorServer) -> None:
    doc = httpx.get(f"{emulator_server.base_url}/openapi.json").json()
    operations = {
        f"{method.upper()} {path}" for path, ops in doc["paths"].items() for method in ops
    }
    assert operations == {e.name for e in ENDPOINTS}
