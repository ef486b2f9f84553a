"""``cc.autocall``: push one automated call (spec 4.5)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from callcenter.models import AutocallResult
from callcenter.resources._base import Resource, raise_field_errors
from callcenter.rules import check_autocall

PATH = "/v3/autocall/import"


class Autocall(Resource):
    async def push(
        self, campaign_uuid: str, phone_number: str, param: Mapping[str, str]
    ) -> AutocallResult:
        """POST /v3/autocall/import: place one call with the campaign's template,
        filling its ``{{placeholders}}`` from ``param``.

        A missing member fails here with the service's ``(root)`` error (spec 7.4),
        without sending.  An empty ``campaign_uuid`` or ``phone_number`` counts as
        missing: it can name no campaign and no number, and the spec does not say what
        the service does with it, so it is refused the way a missing one is.  Never
        retried once it may have reached the service: a second send would ring the
        customer twice.
        """
        candidate: dict[str, Any] = {
            "campaign_uuid": campaign_uuid or None,
            "phone_number": phone_number or None,
            "param": dict(param) if param is not None else None,
        }
        body = {key: value for key, value in candidate.items() if value is not None}
        raise_field_errors(check_autocall(body), "POST", PATH)
        return await self._request("POST", PATH, AutocallResult, idempotent=False, json=body)
