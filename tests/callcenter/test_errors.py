"""Error classification by body shape, client-side checks, and secrets kept out."""

from __future__ import annotations

import io

import httpx
import pytest

from callcenter import CallCenter, errors, rules
from callcenter.models import GroupCreate, GroupUpdate, LeadCreate, UserUpdate
from tests.callcenter.fakes import API_KEY, BASE_URL, FakeService, json_response


async def answer(
    status: int, body: object, *, method: str = "GET", path: str = "/v3/lead/x"
) -> errors.CallCenterError:
    service = FakeService()
    if isinstance(body, bytes):
        service.route(method, path, lambda r: httpx.Response(status, content=body))
    else:
        service.route(method, path, lambda r: json_response(status, body))
    async with service.client(max_retries=0) as cc:
        with pytest.raises(errors.CallCenterError) as caught:
            if path == "/v3/lead/x":
                await cc.leads.get("x")
            else:
                await cc.calls.transfer("call-1", "999")
    return caught.value


@pytest.mark.parametrize("status", [400, 422, 200])
async def test_field_array_is_a_field_validation_error_whatever_the_status(status: int) -> None:
    body = {
        "error": [
            {"phone_number": "String length must be greater than or equal to 10"},
            {"phone_number": "Does not match pattern"},
            {"(root)": "param is required"},
        ]
    }
    error = await answer(status, body)
    assert isinstance(error, errors.FieldValidationError)
    assert error.fields == {
        "phone_number": [
            "String length must be greater than or equal to 10",
            "Does not match pattern",
        ],
        "(root)": ["param is required"],
    }
    assert error.items == body["error"]
    assert error.status_code == status
    assert error.body == body


async def test_transfer_failure_shape_gives_its_code() -> None:
    path = "/v1/call/call-1/transfer"
    error = await answer(
        200, {"status": "fail", "error": "USER_NOT_REGISTERED"}, method="POST", path=path
    )
    assert isinstance(error, errors.TransferFailedError)
    assert error.code == "USER_NOT_REGISTERED"
    assert (error.method, error.path) == ("POST", path)


@pytest.mark.parametrize(
    ("status", "text", "kind"),
    [
        (400, "list_uuid is missing", errors.ServiceError),
        (200, "something went wrong", errors.ServiceError),
        (400, "group not found", errors.NotFoundError),
        (404, "no lead", errors.NotFoundError),
        (400, "group name already exists", errors.ConflictError),
        (400, "campaign_name is already taken", errors.ConflictError),
        (401, "token expired", errors.AuthenticationError),
        (403, "forbidden", errors.AuthenticationError),
        (429, "too many requests", errors.RateLimitError),
        (500, "database down", errors.ServerError),
    ],
)
async def test_string_error_classified_by_status_then_text(
    status: int, text: str, kind: type[errors.CallCenterError]
) -> None:
    error = await answer(status, {"error": text})
    assert type(error) is kind
    assert error.message == text


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (200, b"<html>oops</html>", errors.UnexpectedResponseError),
        (200, {"lead_name": "no uuid"}, errors.UnexpectedResponseError),
        (400, b"bad request", errors.UnexpectedResponseError),
        (404, b"", errors.NotFoundError),
        (502, b"<html>bad gateway</html>", errors.ServerError),
    ],
)
async def test_bodies_of_no_known_shape(
    status: int, body: object, kind: type[errors.CallCenterError]
) -> None:
    error = await answer(status, body)
    assert type(error) is kind
    assert error.status_code == status


# --- client-side checks ----------------------------------------------------------------


async def test_bad_lead_fails_with_the_services_items_and_no_request() -> None:
    service = FakeService()
    async with service.client() as cc:
        with pytest.raises(errors.FieldValidationError) as caught:
            await cc.leads.create(LeadCreate(list_uuid="short", phone_number=""))
    assert caught.value.items == rules.check_list_uuid("short") + rules.check_phone("")
    assert set(caught.value.fields) == {"list_uuid", "phone_number"}
    assert len(caught.value.fields["phone_number"]) == 2
    assert caught.value.status_code is None
    assert (caught.value.method, caught.value.path) == ("POST", "/v3/lead")
    assert service.requests == []


@pytest.mark.parametrize("name", ["", "Sales<script>", "a/b"])
async def test_bad_group_name_fails_before_sending(name: str) -> None:
    service = FakeService()
    async with service.client() as cc:
        with pytest.raises(errors.FieldValidationError) as create:
            await cc.groups.create(GroupCreate(group_name=name))
        with pytest.raises(errors.FieldValidationError):
            await cc.groups.update("g1", GroupUpdate(group_name=name))
    assert create.value.items == rules.check_group_name(name)
    assert service.requests == []


async def test_bad_user_update_fails_before_sending() -> None:
    service = FakeService()
    body = UserUpdate(
        username="bad name!", level="agent", role_uuid="r", password="", confirm_password=""
    )
    async with service.client() as cc:
        with pytest.raises(errors.FieldValidationError) as caught:
            await cc.users.update("u1", body)
    assert set(caught.value.fields) == {"username", "password"}
    assert service.requests == []


async def test_missing_autocall_member_reported_under_root() -> None:
    service = FakeService()
    async with service.client() as cc:
        with pytest.raises(errors.FieldValidationError) as caught:
            await cc.autocall.push("c1", "0912345678", None)  # type: ignore[arg-type]
        with pytest.raises(errors.FieldValidationError) as empty:
            await cc.autocall.push("", "", {})
    assert caught.value.fields == {"(root)": ["param is required"]}
    assert empty.value.items == [
        {"(root)": "campaign_uuid is required"},
        {"(root)": "phone_number is required"},
    ]
    assert service.requests == []


async def test_upload_without_list_uuid_fails_before_sending() -> None:
    service = FakeService()
    async with service.client() as cc:
        with pytest.raises(errors.ServiceError, match="list_uuid is missing"):
            await cc.leads.create_many("", [])
        with pytest.raises(errors.ServiceError, match="list_uuid is missing"):
            await cc.leads.upload_file("", io.BytesIO(b"phone_number\n"))
    assert service.requests == []


# --- secrets ---------------------------------------------------------------------------


async def test_api_key_never_in_repr_str_or_errors() -> None:
    service = FakeService()
    service.route(
        "POST", "/v3/auth/token", lambda r: json_response(401, {"error": "invalid api key"})
    )
    cc = service.client()
    texts = [repr(cc), str(cc), repr(cc.auth), repr(vars(cc)), repr(vars(cc._core))]
    for attempt in (cc.auth.verify(), cc.users.list()):
        with pytest.raises(errors.AuthenticationError) as caught:
            await attempt
        texts += [str(caught.value), repr(caught.value), repr(caught.value.body)]
    await cc.close()
    assert all(API_KEY not in text for text in texts)


async def test_transport_error_message_does_not_carry_the_key() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    async with CallCenter(
        BASE_URL, API_KEY, transport=httpx.MockTransport(refuse), max_retries=0
    ) as cc:
        with pytest.raises(errors.APIConnectionError) as caught:
            await cc.users.list()
    assert API_KEY not in str(caught.value) and API_KEY not in repr(caught.value)
    assert caught.value.path == "/v3/auth/token"


def test_error_str_names_the_request() -> None:
    error = errors.ServiceError(
        "group not found", status_code=400, method="PUT", path="/v3/group/g"
    )
    assert str(error) == "group not found [HTTP 400] (PUT /v3/group/g)"
