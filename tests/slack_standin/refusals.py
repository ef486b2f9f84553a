"""What the stand-in answers to a Web API call it refuses, as slack_sdk's client raises it."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import pytest
from slack_sdk.errors import SlackApiError


async def refused(call: Awaitable[object]) -> dict[str, Any]:
    """The body of the error answer to ``call``, which must fail (``SlackApiError``)."""
    with pytest.raises(SlackApiError) as caught:
        await call
    return dict(caught.value.response.data)


async def error_of(call: Awaitable[object]) -> str:
    """Only the ``error`` code of that answer."""
    return str((await refused(call))["error"])
