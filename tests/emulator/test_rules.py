"""Every rule of spec sections 7 and 8 with its exact error shape, plus authentication.

Field errors are compared with what ``callcenter.rules`` computes for the same body, so
the client's pre-send checks and the emulator cannot drift apart.
"""

from __future__ import annotations

import uuid

import httpx
import pytest

from callcenter import rules
from emulators.pbx.testing import EmulatorServer
from tests.emulator.conftest import Api


def a_list_uuid(api: Api) -> str:
    return str(next(c["default_list_uuid"] for c in api.campaigns() if c["default_list_uuid"]))


# --- 7.1 / 7.2 lead creation ------------------------------------------------------------


@pytest.mark.parametrize(
    ("list_uuid", "phone", "expected_fields"),
    [
        ("short", "0912345678", ["list_uuid"]),
        (None, "", ["phone_number", "phone_number"]),
        (None, "12345", ["phone_number", "phone_number"]),
        (None, "0212345678", ["phone_number"]),
        (None, "091234567890", ["phone_number"]),
        ("short", "", ["list_uuid", "phone_number", "phone_number"]),
    ],
)
def test_lead_field_rules(
    api: Api, list_uuid: str | None, phone: str, expected_fields: list[str]
) -> None:
    body = {"list_uuid": list_uuid or a_list_uuid(api), "phone_number": phone}
    response = api.post("/v3/lead", json=body)
    assert response.status_code == 400
    errors = response.json()["error"]
    assert errors == rules.check_lead(body)
    assert [next(iter(e)) for e in errors] == expected_fields


def test_empty_phone_gets_both_the_length_and_the_pattern_message(api: Api) -> None:
    errors = api.post("/v3/lead", json={"list_uuid": a_list_uuid(api), "phone_number": ""}).json()
    assert errors == {
        "error": [
            {"phone_number": rules.min_length_message(rules.PHONE_MIN_LENGTH)},
            {"phone_number": rules.pattern_message(rules.PHONE_PATTERN)},
        ]
    }


def test_missing_and_mistyped_members_follow_the_schema_validator(api: Api) -> None:
    missing = api.post("/v3/lead", json={"phone_number": "0912345678"}).json()
    assert missing == {"error": [{"(root)": "list_uuid is required"}]}
    wrong = api.post("/v3/lead", json={"list_uuid": a_list_uuid(api), "phone_number": 912345678})
    assert wrong.json() == {
        "error": [{"phone_number": "Invalid type. Expected: string, given: integer"}]
    }
    not_object = api.post("/v3/lead", json=["list"])
    assert not_object.json() == {
        "error": [{"(root)": "Invalid type. Expected: object, given: array"}]
    }


def test_lead_in_an_unknown_list_is_not_found(api: Api) -> None:
    response = api.post(
        "/v3/lead", json={"list_uuid": str(uuid.uuid4()), "phone_number": "0912345678"}
    )
    assert (response.status_code, response.json()) == (404, {"error": "list not found"})


# --- 7.3 uploads -------------------------------------------------------------------------


def test_multi_without_list_uuid_is_a_plain_string_error(api: Api) -> None:
    response = api.post("/v3/lead/multi", json={"data": [{"phone_number": "0912345678"}]})
    assert (response.status_code, response.json()) == (400, {"error": "list_uuid is missing"})


def test_multi_with_a_bad_row_inserts_nothing(api: Api) -> None:
    list_uuid = a_list_uuid(api)
    before = api.get(f"/v3/list/{list_uuid}").json()["total_leads"]
    body = {"list_uuid": list_uuid, "data": [{"phone_number": "0912345678"}, {"phone_number": "x"}]}
    response = api.post("/v3/lead/multi", json=body)
    assert response.status_code == 400
    assert response.json()["error"] == rules.check_lead_multi(body)
    assert {next(iter(e)) for e in response.json()["error"]} == {"data.1.phone_number"}
    assert api.get(f"/v3/list/{list_uuid}").json()["total_leads"] == before


def test_file_upload_without_list_uuid_or_file(api: Api) -> None:
    no_list = api.post("/v3/lead/file", files={"file": ("a.csv", b"phone_number\n", "text/csv")})
    assert (no_list.status_code, no_list.json()) == (400, {"error": "list_uuid is missing"})
    no_file = api.post("/v3/lead/file", data={"list_uuid": str(uuid.uuid4())})
    assert (no_file.status_code, no_file.json()) == (400, {"error": "http: no such file"})
    no_column = api.post(
        "/v3/lead/file",
        data={"list_uuid": a_list_uuid(api)},
        files={"file": ("a.csv", b"name\nAn\n", "text/csv")},
    )
    assert no_column.status_code == 400 and "phone_number" in no_column.json()["error"]


# --- 7.4 autocall -----------------------------------------------------------------------


def test_autocall_missing_members_under_root(api: Api) -> None:
    response = api.post("/v3/autocall/import", json={})
    assert response.status_code == 400
    assert (
        response.json()["error"]
        == rules.check_autocall({})
        == [
            {"(root)": "campaign_uuid is required"},
            {"(root)": "phone_number is required"},
            {"(root)": "param is required"},
        ]
    )
    partial = api.post("/v3/autocall/import", json={"phone_number": "0912345678"}).json()
    assert partial["error"] == [
        {"(root)": "campaign_uuid is required"},
        {"(root)": "param is required"},
    ]


def test_autocall_param_values_must_be_strings_and_cover_the_template(api: Api) -> None:
    campaign = next(
        c for c in api.campaigns(type="autocall") if c["template_name"] == "Nhắc thanh toán"
    )
    body = {"campaign_uuid": campaign["campaign_uuid"], "phone_number": "0912345678"}
    typed = api.post("/v3/autocall/import", json={**body, "param": {"amount": 5}}).json()
    assert typed == {"error": [{"param.amount": "Invalid type. Expected: string, given: integer"}]}
    missing = api.post("/v3/autocall/import", json={**body, "param": {"name": "An"}}).json()
    assert missing == {
        "error": [{"param": "amount is required"}, {"param": "due_date is required"}]
    }


def test_autocall_needs_an_autocall_campaign_of_the_domain(api: Api) -> None:
    dialer = api.campaigns(type="autodialer")[0]
    body = {"phone_number": "0912345678", "param": {}}
    wrong_type = api.post(
        "/v3/autocall/import", json={**body, "campaign_uuid": dialer["campaign_uuid"]}
    )
    assert wrong_type.status_code == 400 and "autocall" in wrong_type.json()["error"]
    unknown = api.post("/v3/autocall/import", json={**body, "campaign_uuid": str(uuid.uuid4())})
    assert (unknown.status_code, unknown.json()) == (404, {"error": "campaign not found"})


# --- 7.5 / 7.6 groups and users ----------------------------------------------------------


def test_group_name_rules_and_duplicates(api: Api) -> None:
    for name in ("", "<script>", "a/b"):
        response = api.post("/v3/group", json={"group_name": name})
        assert response.status_code == 400
        assert response.json()["error"] == rules.check_group_name(name)
    assert api.post("/v3/group", json={"group_name": "Nhóm A_1.x-y"}).status_code == 200
    again = api.post("/v3/group", json={"group_name": "NHÓM A_1.X-Y"})
    assert again.status_code == 409 and "exists" in again.json()["error"]


def test_group_update_unknown_group_and_rename_onto_another(api: Api) -> None:
    unknown = api.put(f"/v3/group/{uuid.uuid4()}", json={"group_name": "Ghost"})
    assert (unknown.status_code, unknown.json()) == (404, {"error": "group not found"})
    first = api.post("/v3/group", json={"group_name": "First"}).json()["group_uuid"]
    api.post("/v3/group", json={"group_name": "Second"})
    clash = api.put(f"/v3/group/{first}", json={"group_name": "Second"})
    assert clash.status_code == 409 and "exists" in clash.json()["error"]
    bad = api.put(f"/v3/group/{first}", json={"group_name": "x!"})
    assert bad.json()["error"] == rules.check_group_name("x!")


def test_user_update_rules(api: Api) -> None:
    users = api.data("/v3/user", limit=50)
    user = users[2]
    base = {
        "username": user["username"],
        "level": "agent",
        "role_uuid": user["role_uuid"],
        "password": "pw",
        "confirm_password": "pw",
    }
    for change in (
        {"username": ""},
        {"username": "bad name!"},
        {"password": ""},
        {"username": "ok", "password": ""},
    ):
        body = {**base, **change}
        response = api.put(f"/v3/user/{user['user_uuid']}", json=body)
        assert response.status_code == 400
        assert response.json()["error"] == rules.check_user_update(body)
    missing = api.put(f"/v3/user/{user['user_uuid']}", json={"username": "x"}).json()["error"]
    assert {"(root)": "password is required"} in missing
    mismatch = api.put(
        f"/v3/user/{user['user_uuid']}", json={**base, "confirm_password": "other"}
    ).json()
    assert list(mismatch["error"][0]) == ["confirm_password"]
    taken = api.put(
        f"/v3/user/{user['user_uuid']}", json={**base, "username": users[3]["username"]}
    )
    assert taken.status_code == 409 and "exists" in taken.json()["error"]
    unknown = api.put(f"/v3/user/{uuid.uuid4()}", json=base)
    assert (unknown.status_code, unknown.json()) == (404, {"error": "user not found"})


# --- 7.7 campaigns -----------------------------------------------------------------------


def test_campaign_rename_to_a_taken_name(api: Api) -> None:
    first, second = api.campaigns()[:2]
    response = api.put(
        f"/v3/campaign/{second['campaign_uuid']}",
        json={**second, "campaign_name": first["campaign_name"]},
    )
    assert response.status_code == 409
    assert response.json() == {"error": f"campaign name {first['campaign_name']} is already taken"}
    unchanged = next(c for c in api.campaigns() if c["campaign_uuid"] == second["campaign_uuid"])
    assert unchanged == second


def test_campaign_update_requires_name_and_type_and_known_values(api: Api) -> None:
    campaign = api.campaigns()[0]
    path = f"/v3/campaign/{campaign['campaign_uuid']}"
    assert api.put(path, json={"status": "start"}).json()["error"] == [
        {"(root)": "campaign_name is required"},
        {"(root)": "type is required"},
    ]
    bad = api.put(path, json={**campaign, "status": "running", "mode_call": "parallel"}).json()
    assert [next(iter(e)) for e in bad["error"]] == ["status", "mode_call"]
    unknown = api.put(f"/v3/campaign/{uuid.uuid4()}", json=campaign)
    assert (unknown.status_code, unknown.json()) == (404, {"error": "campaign not found"})


# --- 7.8 transfer ------------------------------------------------------------------------


def test_transfer_failures_use_the_status_fail_shape(pbx: EmulatorServer, api: Api) -> None:
    pbx.set_call_mode("manual")
    call = pbx.originate()
    unregistered = api.post(
        f"/v1/call/{call['call_id']}/transfer", json={"ext": "99999", "legs": "aleg"}
    )
    assert unregistered.status_code == 400
    assert unregistered.json() == {"status": "fail", "error": "USER_NOT_REGISTERED"}
    gone = api.post(f"/v1/call/{uuid.uuid4()}/transfer", json={"ext": "1001", "legs": "aleg"})
    assert (gone.status_code, gone.json()) == (404, {"status": "fail", "error": "CALL_NOT_FOUND"})
    bad_leg = api.post(f"/v1/call/{call['call_id']}/transfer", json={"ext": "1001", "legs": "cleg"})
    assert bad_leg.status_code == 400 and list(bad_leg.json()["error"][0]) == ["legs"]


def test_another_domains_extension_is_not_registered_here(
    pbx: EmulatorServer, api: Api, api2: Api
) -> None:
    pbx.set_call_mode("manual")
    call = pbx.originate()
    foreign = api2.data("/v3/user", limit=1)[0]["extension"]
    response = api.post(
        f"/v1/call/{call['call_id']}/transfer", json={"ext": foreign, "legs": "bleg"}
    )
    assert response.json() == {"status": "fail", "error": "USER_NOT_REGISTERED"}


# --- 8 limits ------------------------------------------------------------------------------


def test_autodialer_statistics_repeated_parameters_and_defaults(api: Api) -> None:
    dialers = api.campaigns(type="autodialer")
    chosen = [dialers[0]["campaign_uuid"], dialers[3]["campaign_uuid"]]
    response = api.get(
        "/v3/monitor-stats/campaign/autodialer",
        params=[("interval", "60"), ("campaign_uuid", chosen[0]), ("campaign_uuid", chosen[1])],
    ).json()
    assert {s["campaign_uuid"] for s in response["data"]} == set(chosen)
    by_status = api.get(
        "/v3/monitor-stats/campaign/autodialer",
        params=[("interval", "60"), ("status", "running"), ("status", "pause"), ("limit", "100")],
    ).json()
    assert by_status["data"] and {s["status"] for s in by_status["data"]} == {"running", "pause"}
    everything = api.get("/v3/monitor-stats/campaign/autodialer", params={"interval": 60}).json()
    assert (everything["limit"], everything["offset"]) == (10, 0)
    assert everything["total"] == len(dialers) > 10 == len(everything["data"])
    missing = api.get("/v3/monitor-stats/campaign/autodialer")
    assert missing.status_code == 400
    assert missing.json() == {"error": [{"interval": "interval is required"}]}


def test_bad_query_parameters_answer_in_the_field_shape(api: Api) -> None:
    for path, params, field in (
        ("/v3/campaign", {"limit": "ten"}, "limit"),
        ("/v3/campaign", {"type": "robocall"}, "type"),
        ("/v3/user", {"offset": "-1"}, "offset"),
        ("/v3/cdr", {"limit": 5, "offset": 0, "start_date": "yesterday"}, "start_date"),
        ("/v3/cdr", {"limit": 5, "offset": 0, "direction": "sideways"}, "direction"),
        ("/v2/stats", {"interval": "year"}, "interval"),
    ):
        response = api.get(path, params=params)
        assert response.status_code == 400, (path, params)
        assert list(response.json()["error"][0]) == [field], (path, params)


def test_malformed_json_and_unknown_members(api: Api) -> None:
    response = api.http.post(
        "/v3/group", content=b'{"group_name": ', headers={"content-type": "application/json"}
    )
    assert response.status_code == 400 and isinstance(response.json()["error"], str)
    tolerant = api.post("/v3/group", json={"group_name": "Extra", "colour": "blue", "n": [1]})
    assert tolerant.status_code == 200


def test_unknown_paths_and_methods_answer_in_the_string_shape(api: Api) -> None:
    assert api.get("/v3/nothing").json() == {"error": "not found"}
    wrong = api.http.delete("/v3/campaign")
    assert (wrong.status_code, wrong.json()) == (405, {"error": "method not allowed"})


# --- 5 authentication --------------------------------------------------------------------


def test_authentication_failures(pbx: EmulatorServer) -> None:
    with httpx.Client(base_url=pbx.base_url) as http:
        assert http.get("/v3/campaign").status_code == 401
        bad = http.get("/v3/campaign", headers={"Authorization": "Bearer nope"})
        assert (bad.status_code, bad.json()) == (401, {"error": "token is invalid"})
        key = http.post("/v3/auth/token", json={"api_key": "not-a-key"})
        assert (key.status_code, key.json()) == (401, {"error": "invalid api key"})
        no_key = http.post("/v1/auth/token", json={})
        assert no_key.json() == {"error": [{"(root)": "api_key is required"}]}


def test_tokens_expire_on_the_emulator_clock(pbx: EmulatorServer, api: Api) -> None:
    pbx.freeze_clock()  # only the advances below move it, however slow the machine is
    assert api.http.get("/v3/carrier").status_code == 200
    pbx.advance(3599)
    assert api.http.get("/v3/carrier").status_code == 200
    pbx.advance(2)
    expired = api.http.get("/v3/carrier")
    assert (expired.status_code, expired.json()) == (401, {"error": "token is expired"})


def test_token_lifetime_follows_the_token_ttl_option() -> None:
    with EmulatorServer(token_ttl=30) as server, httpx.Client(base_url=server.base_url) as http:
        v3 = http.post("/v3/auth/token", json={"api_key": server.api_key}).json()
        v1 = http.post("/v1/auth/token", json={"api_key": server.api_key}).json()["data"]
        assert v3["expired_in"] == 30
        assert abs(v1["expired"] - server.now() - 30) < 2
        server.advance(31)
        response = http.get("/v1/call", headers={"Authorization": f"Bearer {v3['token']}"})
    assert response.status_code == 401
