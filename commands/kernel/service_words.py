"""The call-center service's own values (campaign types, autocall kinds, lead statuses,
voices) in the reader's words.

The service answers with fixed English tokens (``autodialer``, ``autocall_voice_tts``,
``done``, ``male_south``); a supervisor reads "quay số tự động", "đọc văn bản tự động",
"đã gọi xong", "giọng nam miền Nam".  Each surface that shows one says it through these
functions, so a value reads the same on a card, a listing and Home.  The English words
are the service's own (an English reader types them back: ``campaigns autocall``);
a value no table knows is shown as it came, since that is what the service's
documentation names.
"""

from __future__ import annotations

from commands.kernel.i18n import pgettext


def campaign_type_words(kind: str) -> str:
    """``autodialer`` -> "quay số tự động" for a Vietnamese reader."""
    words = {
        "autodialer": pgettext("campaign type", "autodialer"),
        "autocall": pgettext("campaign type", "autocall"),
        "manual": pgettext("campaign type", "manual"),
        "inbound": pgettext("campaign type", "inbound"),
    }
    return words.get(kind.strip().lower(), kind)


def autocall_kind_words(kind: str) -> str:
    """``autocall_voice_tts`` -> "đọc văn bản tự động"."""
    words = {
        "autocall_voice_tts": pgettext("autocall kind", "text to speech"),
        "autocall_audio": pgettext("autocall kind", "recorded audio"),
        "autocall_voice_otp": pgettext("autocall kind", "OTP read aloud"),
    }
    return words.get(kind.strip().lower(), kind)


def lead_status_words(status: str) -> str:
    """A lead's status (``new``, ``done``, ``recall``, ``failed``) in words."""
    key = status.strip().lower().replace("-", "_")
    words = {
        "new": pgettext("lead status", "new"),
        "done": pgettext("lead status", "called"),
        "recall": pgettext("lead status", "to call back"),
        "failed": pgettext("lead status", "failed"),
        "calling": pgettext("lead status", "calling"),
        "in_progress": pgettext("lead status", "in progress"),
    }
    return words.get(key, status)


def voice_words(voice: str) -> str:
    """``male_south`` -> "giọng nam miền Nam"; an unknown voice as it came."""
    sex, _sep, region = voice.strip().lower().partition("_")
    voices = {
        ("male", "north"): pgettext("voice", "male voice, northern"),
        ("male", "central"): pgettext("voice", "male voice, central"),
        ("male", "south"): pgettext("voice", "male voice, southern"),
        ("female", "north"): pgettext("voice", "female voice, northern"),
        ("female", "central"): pgettext("voice", "female voice, central"),
        ("female", "south"): pgettext("voice", "female voice, southern"),
    }
    return voices.get((sex, region), voice)
