"""What a call record's ``status`` and ``cause`` mean, in the words a supervisor uses.

The service writes a call's outcome twice: ``status`` (``no-answered``, ``busy-line``)
and the telephone network's hang-up ``cause`` (``NO_ANSWER``, ``SUBSCRIBER_ABSENT``,
the ITU-T Q.850 names a FreeSWITCH-based PBX reports).  Call cards, call-record
listings, route listings and campaign cards all say them from these tables, so "No
answer" is the same words everywhere; the figures of ``stats`` and digests name their
counters with the same words.  The cause is said only when it tells something the status
does not (``Not available`` and *phone off or out of reach*), and a cause no table knows
is shown as its code, since that is what the supervisor would look up.
"""

from __future__ import annotations

STATUS_WORDS = {
    "answered": "Answered",
    "busy": "Busy",
    "busy-line": "Line busy",
    "no-answered": "No answer",
    "no-answer": "No answer",
    "not-available": "Not available",
    "cancel": "Cancelled",
    "cancelled": "Cancelled",
    "invalid": "Invalid number",
    "invalid-number": "Invalid number",
    "congestion": "Congestion",
    "phone-block": "Blocked",
    "failed": "Failed",
    "voicemail": "Voicemail",
    "drop": "Dropped",
}
"""A record's status (folded: lower case, ``-`` for ``_``) in words."""

STATUS_ICON = {
    "answered": ":white_check_mark:",
    "busy": ":no_entry:",
    "busy-line": ":no_entry:",
    "no-answered": ":hourglass:",
    "no-answer": ":hourglass:",
    "not-available": ":no_mobile_phones:",
    "failed": ":x:",
    "cancel": ":leftwards_arrow_with_hook:",
    "cancelled": ":leftwards_arrow_with_hook:",
    "invalid": ":grey_question:",
    "invalid-number": ":grey_question:",
    "congestion": ":construction:",
    "voicemail": ":mailbox_with_mail:",
    "phone-block": ":no_entry_sign:",
    "drop": ":warning:",
}

CAUSE_WORDS = {
    "NORMAL_CLEARING": "hung up normally",
    "NORMAL_UNSPECIFIED": "ended",
    "USER_BUSY": "callee busy",
    "NO_ANSWER": "no answer",
    "NO_USER_RESPONSE": "no response",
    "SUBSCRIBER_ABSENT": "phone off or out of reach",
    "ORIGINATOR_CANCEL": "caller hung up first",
    "CALL_REJECTED": "rejected",
    "UNALLOCATED_NUMBER": "number does not exist",
    "INVALID_NUMBER_FORMAT": "number badly written",
    "NUMBER_CHANGED": "number changed",
    "NORMAL_TEMPORARY_FAILURE": "temporary network failure",
    "SWITCH_CONGESTION": "network congested",
    "REQUESTED_CHAN_UNAVAIL": "no free line",
    "NORMAL_CIRCUIT_CONGESTION": "no free line",
    "NETWORK_OUT_OF_ORDER": "network out of order",
    "DESTINATION_OUT_OF_ORDER": "callee's line out of order",
    "NO_ROUTE_DESTINATION": "no route to the number",
    "NO_ROUTE_TRANSIT_NET": "no route to the number",
    "EXCHANGE_ROUTING_ERROR": "routing error",
    "OUTGOING_CALL_BARRED": "outgoing calls barred",
    "INCOMING_CALL_BARRED": "incoming calls barred",
    "RECOVERY_ON_TIMER_EXPIRE": "timed out",
    "ALLOTTED_TIMEOUT": "time limit reached",
    "MEDIA_TIMEOUT": "audio lost",
    "PROGRESS_TIMEOUT": "no ringing",
    "LOSE_RACE": "answered elsewhere",
    "PICKED_OFF": "picked up elsewhere",
    "USER_NOT_REGISTERED": "extension not registered",
    "MANAGER_REQUEST": "ended by the system",
    "BLIND_TRANSFER": "transferred",
    "ATTENDED_TRANSFER": "transferred",
}
"""Hang-up causes in words (lower case: they follow the status)."""

EXPECTED_CAUSES = {
    "answered": {"NORMAL_CLEARING", "NORMAL_UNSPECIFIED"},
    "drop": {"NORMAL_CLEARING", "NORMAL_UNSPECIFIED"},
    "busy": {"USER_BUSY"},
    "busy-line": {"USER_BUSY"},
    "no-answered": {"NO_ANSWER", "NO_USER_RESPONSE"},
    "no-answer": {"NO_ANSWER", "NO_USER_RESPONSE"},
    "cancel": {"ORIGINATOR_CANCEL"},
    "cancelled": {"ORIGINATOR_CANCEL"},
}
"""The cause each status goes with as a matter of course: saying it adds nothing."""


def fold_status(status: str) -> str:
    """``ANSWERED``, ``no_answered`` and ``no-answered`` name the same status."""
    return status.strip().lower().replace("_", "-")


def status_words(status: str) -> str:
    """``No answer`` for ``no-answered``; an unknown status with its dashes as spaces."""
    key = fold_status(status)
    if not key:
        return "Unknown"
    return STATUS_WORDS.get(key) or key.replace("-", " ").capitalize()


def status_icon(status: str) -> str:
    return STATUS_ICON.get(fold_status(status), ":black_small_square:")


def _fold_cause(cause: str) -> str:
    return cause.strip().upper().replace("-", "_").replace(" ", "_")


def cause_words(status: str, cause: str) -> str | None:
    """The cause in words when it says more than the status; None when it adds nothing
    (absent, the status's usual cause, or the same words) or no table knows it."""
    key = _fold_cause(cause)
    if not key or key in EXPECTED_CAUSES.get(fold_status(status), ()):
        return None
    words = CAUSE_WORDS.get(key)
    if words is None or words.lower() == status_words(status).lower():
        return None
    return words


def unknown_cause(cause: str) -> str | None:
    """A cause no table knows, as the service wrote it (for a context line); else None."""
    key = _fold_cause(cause)
    return cause.strip() if key and key not in CAUSE_WORDS else None


def outcome_words(status: str, cause: str) -> str:
    """The status, then the cause in brackets when it adds something (plain text):
    ``Not available (phone off or out of reach)``."""
    words = status_words(status)
    extra = cause_words(status, cause)
    return f"{words} ({extra})" if extra else words
