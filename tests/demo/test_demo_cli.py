"""``callops demo`` as a visitor runs it: prints the console's URL, serves it, and stops
cleanly on Ctrl-C."""

from __future__ import annotations

import asyncio
import signal
import socket
import sys

import httpx

STARTUP_SECONDS = 60.0


async def start_demo(port: int) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.cli",
        "demo",
        "--port",
        str(port),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )


async def console_url(proc: asyncio.subprocess.Process) -> str:
    assert proc.stdout is not None
    async with asyncio.timeout(STARTUP_SECONDS):
        while line := (await proc.stdout.readline()).decode():
            if "Open the console:" in line:
                return line.split("Open the console:", 1)[1].strip()
    raise AssertionError("callops demo ended without printing the console URL")


async def test_demo_prints_the_console_url_and_stops_on_ctrl_c() -> None:
    proc = await start_demo(0)
    try:
        url = await console_url(proc)
        assert url.startswith("http://127.0.0.1:") and url.endswith("/console/")
        async with httpx.AsyncClient(trust_env=False) as http:
            assert "callops demo console" in (await http.get(url)).text
            workspace = (await http.get(url + "api/workspace")).json()
        assert "campaigns" in [c["name"] for c in workspace["completions"]]
        proc.send_signal(signal.SIGINT)
        out, _ = await asyncio.wait_for(proc.communicate(), 20)
        assert proc.returncode == 0
        assert "callops demo stopped." in out.decode()
        assert "Traceback" not in out.decode()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_a_busy_port_gets_a_clear_message() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = await start_demo(port)
        out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2
    assert f"port {port} is in use" in out.decode()
    assert "Traceback" not in out.decode()
