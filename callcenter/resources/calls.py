"""``cc.calls``: live calls and transfer (spec 4.8)."""

from __future__ import annotations

from typing import get_args

from callcenter.models import ActiveCallList, Leg, TransferRequest, TransferResult
from callcenter.resources._base import Resource, segment

LEGS: tuple[str, ...] = get_args(Leg)


class Calls(Resource):
    async def list(self) -> ActiveCallList:
        """GET /v1/call: the calls in progress right now."""
        return await self._request("GET", "/v1/call", ActiveCallList, idempotent=True)

    async def transfer(self, call_id: str, ext: str, legs: str = "aleg") -> TransferResult:
        """POST /v1/call/{call_id}/transfer: move a live call to extension ``ext``.

        ``legs`` is ``aleg`` (the calling side) or ``bleg`` (the receiving side).  An
        unregistered extension raises ``TransferFailedError`` with ``code``
        ``USER_NOT_REGISTERED``.  Never retried: the call may already have moved.
        """
        if legs not in LEGS:
            raise ValueError(f"legs must be one of {', '.join(LEGS)}, got {legs!r}")
        body = TransferRequest.model_validate({"ext": ext, "legs": legs}).to_wire()
        return await self._request(
            "POST",
            f"/v1/call/{segment(call_id)}/transfer",
            TransferResult,
            idempotent=False,
            json=body,
        )
