"""The preview spoken by espeak-ng: a real WAV whose length fits the words (the server
tier: it runs Debian's espeak-ng, which ``make test`` installs and ``make check`` does
not need)."""

from __future__ import annotations

import wave
from pathlib import Path

from commands.calls.audio import speak, speaker
from commands.calls.speech import read_value


async def test_a_preview_is_spoken_into_a_wav_of_fitting_length(
    tmp_path: Path, espeak_ng: str
) -> None:
    assert speaker() == espeak_ng
    short, long = tmp_path / "short.wav", tmp_path / "long.wav"
    amount = read_value("1500000").words
    assert await speak(f"Số tiền {amount} đồng.", short)
    assert await speak(f"Số tiền {amount} đồng. " * 4, long)
    seconds = []
    for path in (short, long):
        with wave.open(str(path)) as audio:
            seconds.append(audio.getnframes() / audio.getframerate())
    assert 1.0 < seconds[0] < 10.0
    assert seconds[1] > 3 * seconds[0]  # four times the words, about four times as long
