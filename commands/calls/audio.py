"""The preview of an autocall as sound, where the machine can speak Vietnamese.

Debian's ``espeak-ng`` reads the preview with its Vietnamese voice into a WAV file that
the requester gets in a direct message.  It is an approximation of the service's own
voice (another engine, another speaker), said so with the file; what the words are is
exactly the preview's.  Where espeak-ng is missing, nothing offers to play anything, and
``status`` says why.
"""

from __future__ import annotations

import asyncio
import shutil
import weakref
from pathlib import Path

ESPEAK = "espeak-ng"
VOICE = "vi"
MAX_CHARACTERS = 1500
"""Text spoken at most: a preview is a few sentences; a runaway template is cut."""
TIMEOUT = 20.0
AT_ONCE = 3
"""Recordings made and sent at once, whoever clicked: each is an espeak-ng process (tens
of MB for a long text) and then a WAV file of a few MB on its way to Slack, so memory
stays bounded however many click Listen together; the others wait their turn."""

_TURNS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def turn() -> asyncio.Semaphore:
    """The turns of this event loop (a semaphore belongs to one loop): hold one while a
    recording is spoken and sent."""
    loop = asyncio.get_running_loop()
    found = _TURNS.get(loop)
    if found is None:
        found = _TURNS[loop] = asyncio.Semaphore(AT_ONCE)
    return found


def speaker() -> str | None:
    """The espeak-ng binary, or None where it is not installed."""
    return shutil.which(ESPEAK)


async def speak(text: str, out: Path) -> bool:
    """Write ``text`` spoken in Vietnamese to ``out`` (WAV); False when espeak-ng is
    missing or failed.  The text goes on standard input, never on the command line.
    A caller answering people holds a `turn` around it."""
    binary = speaker()
    if binary is None:
        return False
    process = await asyncio.create_subprocess_exec(
        binary,
        "-v",
        VOICE,
        "--stdin",
        "-w",
        str(out),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await asyncio.wait_for(process.communicate(text[:MAX_CHARACTERS].encode("utf-8")), TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        return False
    if process.returncode != 0:
        return False
    return await asyncio.to_thread(_has_sound, out)


def _has_sound(path: Path) -> bool:
    """More than a WAV header was written."""
    return path.exists() and path.stat().st_size > 44
