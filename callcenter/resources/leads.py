"""``cc.leads`` (spec 4.4): single, multiple and CSV-file lead creation, and lookup."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, BinaryIO

from callcenter._http import FilesOpener
from callcenter.errors import ServiceError
from callcenter.models import (
    Lead,
    LeadCreate,
    LeadCreated,
    LeadFileAccepted,
    LeadMultiCreate,
    LeadMultiItem,
    LeadMultiResult,
)
from callcenter.resources._base import Resource, raise_field_errors, segment
from callcenter.rules import check_lead

CSV_CONTENT_TYPE = "text/csv"


def _missing_list_uuid(path: str) -> ServiceError:
    """The service's answer to a file or multi upload without ``list_uuid`` (spec 7.3),
    given before a large body is sent for nothing."""
    return ServiceError("list_uuid is missing", method="POST", path=path)


class Leads(Resource):
    async def create(self, body: LeadCreate) -> LeadCreated:
        """POST /v3/lead.  ``list_uuid`` length and the phone pattern are checked first
        (spec 7.1, 7.2): a bad value raises ``FieldValidationError`` without sending."""
        wire = body.to_wire()
        raise_field_errors(check_lead(wire), "POST", "/v3/lead")
        return await self._request("POST", "/v3/lead", LeadCreated, idempotent=False, json=wire)

    async def create_many(self, list_uuid: str, items: Sequence[LeadMultiItem]) -> LeadMultiResult:
        """POST /v3/lead/multi: insert several leads in one request.  Never retried: the
        service may have inserted them already."""
        path = "/v3/lead/multi"
        if not list_uuid:
            raise _missing_list_uuid(path)
        wire = LeadMultiCreate(list_uuid=list_uuid, data=list(items)).to_wire()
        return await self._request("POST", path, LeadMultiResult, idempotent=False, json=wire)

    async def upload_file(
        self,
        list_uuid: str,
        file: str | os.PathLike[str] | BinaryIO,
        filename: str = "leads.csv",
    ) -> LeadFileAccepted:
        """POST /v3/lead/file: upload a CSV of leads as multipart form data.

        The file is streamed in 64 KiB chunks (httpx reads the file object as it sends),
        so a 100 MB file does not become 100 MB of memory.  A path is opened here and
        closed after sending; a file object is read from its start (httpx rewinds it)
        and left open for the caller.  If the token is refused mid-upload the file is
        sent again with a new token only when it can be re-read (a path, or a seekable
        object).  The service processes the file later; ``msg`` says it was accepted.
        """
        path = "/v3/lead/file"
        if not list_uuid:
            raise _missing_list_uuid(path)
        opener, replayable = _file_opener(file, filename)
        return await self._request(
            "POST",
            path,
            LeadFileAccepted,
            idempotent=False,
            data={"list_uuid": list_uuid},
            files=opener,
            replayable=replayable,
        )

    async def get(self, lead_uuid: str) -> Lead:
        """GET /v3/lead/{lead_uuid}."""
        return await self._request("GET", f"/v3/lead/{segment(lead_uuid)}", Lead, idempotent=True)


def _file_opener(
    file: str | os.PathLike[str] | BinaryIO, filename: str
) -> tuple[FilesOpener, bool]:
    if isinstance(file, (str, os.PathLike)):
        file_path = os.fspath(file)
        if not os.path.isfile(file_path):
            raise FileNotFoundError(f"no such file: {file_path}")

        @contextmanager
        def open_path() -> Iterator[Mapping[str, Any]]:
            with open(file_path, "rb") as handle:
                yield {"file": (filename, handle, CSV_CONTENT_TYPE)}

        return open_path, True

    handle = file

    @contextmanager
    def use_handle() -> Iterator[Mapping[str, Any]]:
        yield {"file": (filename, handle, CSV_CONTENT_TYPE)}

    seekable = bool(getattr(handle, "seekable", lambda: False)())
    return use_handle, seekable
