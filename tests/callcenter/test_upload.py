"""Lead CSV upload: streamed from disk, never read whole into memory."""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path

import pytest

from callcenter import CallCenter, errors
from tests.callcenter.fakes import API_KEY, FakeService, json_response, token_body
from tests.callcenter.loopback import loopback

LIST_UUID = "0f0e0d0c-0b0a-0908-0706-050403020100"
FILE_MB = 48


def write_csv(path: Path, megabytes: int) -> int:
    row = b"0912345678,Nguyen Van An,HD-000123,Ha Noi\n"
    block = row * (1024 * 1024 // len(row))
    with path.open("wb") as out:
        out.write(b"phone_number,lead_name,contract_number,province\n")
        for _ in range(megabytes):
            out.write(block)
    return path.stat().st_size


async def test_large_csv_is_streamed_with_flat_memory(tmp_path: Path) -> None:
    csv = tmp_path / "big.csv"
    size = write_csv(csv, FILE_MB)
    answers = {"/v3/auth/token": token_body(), "/v3/lead/file": {"msg": "file is being processed"}}
    async with (
        loopback(answers) as server,
        CallCenter(server.base_url, API_KEY, timeout=30) as cc,
    ):
        await cc.auth.token()
        tracemalloc.start()
        try:
            accepted = await cc.leads.upload_file(LIST_UUID, csv)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert accepted.msg == "file is being processed"
    upload = next(r for r in server.received if r.path == "/v3/lead/file")
    assert upload.body_bytes > size  # the whole file plus the form framing arrived
    assert b'name="list_uuid"\r\n\r\n' + LIST_UUID.encode() in upload.head
    assert b'name="file"; filename="leads.csv"' in upload.head
    assert upload.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert upload.headers["authorization"] == "Bearer tok-1"
    assert peak < 8 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB while sending {size / 1e6:.0f} MB"


async def test_file_object_is_sent_from_its_start_and_left_open() -> None:
    service = FakeService()
    service.route("POST", "/v3/lead/file", lambda r: json_response(200, {"msg": "ok"}))
    handle = io.BytesIO(b"phone_number\n0912345678\n")
    handle.read()  # already consumed by the caller
    async with service.client() as cc:
        await cc.leads.upload_file(LIST_UUID, handle, filename="may.csv")
    (request,) = service.calls("POST", "/v3/lead/file")
    assert b'filename="may.csv"' in request.content
    assert b"0912345678" in request.content
    assert not handle.closed


class OneShotStream(io.RawIOBase):
    """A pipe-like stream: readable once, not seekable."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


async def test_unseekable_upload_is_not_replayed_after_a_refused_token() -> None:
    service = FakeService()
    service.route("POST", "/v3/lead/file", lambda r: json_response(401, {"error": "expired"}))
    async with service.client() as cc:
        with pytest.raises(errors.AuthenticationError):
            await cc.leads.upload_file(LIST_UUID, OneShotStream(b"phone_number\n"))  # type: ignore[arg-type]
    assert len(service.calls("POST", "/v3/lead/file")) == 1


async def test_missing_path_fails_before_sending(tmp_path: Path) -> None:
    service = FakeService()
    async with service.client() as cc:
        with pytest.raises(FileNotFoundError):
            await cc.leads.upload_file(LIST_UUID, tmp_path / "absent.csv")
    assert service.requests == []
