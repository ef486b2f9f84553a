"""The one describer of service failures: what a supervisor reads when the service fails."""

from __future__ import annotations

from typing import TYPE_CHECKING

from callcenter import CallCenter, errors
from commands.kernel.context import NotConnectedError
from commands.kernel.failures import FailureWords, describe_failure

if TYPE_CHECKING:
    from emulators.pbx.testing import EmulatorServer


async def failure_listing_campaigns(pbx: EmulatorServer, api_key: str) -> FailureWords:
    """How a failed campaigns listing reads (the listing must fail: no retries)."""
    async with CallCenter(pbx.base_url, api_key, max_retries=0) as cc:
        try:
            await cc.campaigns.list()
        except errors.CallCenterError as exc:
            return describe_failure(exc)
    raise AssertionError("the emulator served the listing")


async def test_a_refused_key_tells_an_admin_how_to_reconnect(pbx: EmulatorServer) -> None:
    words = await failure_listing_campaigns(pbx, "not-the-key")
    assert words.key_refused and words.workspace_wide and not words.unreachable
    assert words.text.startswith("The call-center service refused this workspace's API key (")
    assert words.text.endswith("An admin can reconnect with `/callops connect`.")
    assert words.inline.endswith("; an admin can reconnect with `/callops connect`")
    assert "not-the-key" not in words.text


async def test_a_failing_service_is_named_with_its_status(pbx: EmulatorServer) -> None:
    pbx.fail_next("GET", "/v3/campaign", 503, {"error": "maintenance <!channel>"}, times=5)
    words = await failure_listing_campaigns(pbx, pbx.api_key)
    assert words.cause == "the call-center service failed (maintenance &lt;!channel&gt;, HTTP 503)"
    assert words.text.endswith("Try again in a moment.")
    assert "<!channel>" in words.plain() and "&lt;" not in words.plain()


def test_an_unknown_outcome_says_what_may_have_happened_instead_of_try_again() -> None:
    lost = errors.APIConnectionError("connection reset", method="PUT", path="/v3/campaign/x")
    words = describe_failure(lost, effect="the campaign may or may not have started")
    assert words.text == (
        "The call-center service cannot be reached (connection reset), so the campaign may "
        "or may not have started. Check before trying again."
    )
    assert "Try again" not in words.text
    # A refusal means nothing happened: the effect is not mentioned.
    refused = errors.FieldValidationError([{"phone_number": "bad <pattern>"}])
    checked = describe_failure(refused, effect="the call may or may not have been placed")
    assert checked.text == (
        "The call-center service rejected some values: `phone_number`: bad &lt;pattern&gt;."
    )


def test_each_failure_has_its_own_words() -> None:
    cases: list[tuple[errors.CallCenterError | NotConnectedError, str]] = [
        (errors.APITimeoutError("timed out"), "The call-center service did not answer in time."),
        (
            errors.RateLimitError("slow down", retry_after=7),
            "The call-center service asks us to slow down for 7s. Try again shortly.",
        ),
        (errors.TransferFailedError("USER_NOT_REGISTERED"), "The transfer failed (USER_NOT_"),
        (
            errors.NotFoundError("campaign not found"),
            "The call-center service could not find it (campaign not found).",
        ),
        (
            errors.ConflictError("name already exists"),
            "The call-center service refused it (name already exists).",
        ),
        (
            errors.UnexpectedResponseError("not JSON"),
            "The call-center service answered with something unreadable.",
        ),
        (NotConnectedError(), "This workspace is not connected to the call-center service."),
    ]
    for exc, start in cases:
        assert describe_failure(exc).text.startswith(start), (exc, describe_failure(exc).text)


def test_the_plain_words_fit_a_modal_field_error() -> None:
    words = describe_failure(errors.APIConnectionError("x" * 500))
    assert words.unreachable and not words.key_refused
    short = words.plain(150)
    assert len(short) == 150 and short.startswith("The call-center service cannot be reached")
    assert short.endswith("…")
