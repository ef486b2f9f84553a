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

from commands.kernel.i18n import N_, _

STATUS_WORDS = {
    "answered": N_("Answered"),
    "busy": N_("Busy"),
    "busy-line": N_("Line busy"),
    "no-answered": N_("No answer"),
    "no-answer": N_("No answer"),
    "not-available": N_("Not available"),
    "cancel": N_("Cancelled"),
    "cancelled": N_("Cancelled"),
    "invalid": N_("Invalid number"),
    "invalid-number": N_("Invalid number"),
    "congestion": N_("Congestion"),
    "phone-block": N_("Blocked"),
    "failed": N_("Failed"),
    "voicemail": N_("Voicemail"),
    "drop": N_("Dropped"),
}
"""A record's status (folded: lower case, ``-`` for ``_``) in words; marked for the
catalog, translated where they are said (``status_words``)."""

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
    "NORMAL_CLEARING": N_("hung up normally"),
    "NORMAL_UNSPECIFIED": N_("ended"),
    "USER_BUSY": N_("callee busy"),
    "NO_ANSWER": N_("no answer"),
    "NO_USER_RESPONSE": N_("no response"),
    "SUBSCRIBER_ABSENT": N_("phone off or out of reach"),
    "ORIGINATOR_CANCEL": N_("caller hung up first"),
    "CALL_REJECTED": N_("rejected"),
    "UNALLOCATED_NUMBER": N_("number does not exist"),
    "INVALID_NUMBER_FORMAT": N_("number badly written"),
    "NUMBER_CHANGED": N_("number changed"),
    "NORMAL_TEMPORARY_FAILURE": N_("temporary network failure"),
    "SWITCH_CONGESTION": N_("network congested"),
    "REQUESTED_CHAN_UNAVAIL": N_("no free line"),
    "NORMAL_CIRCUIT_CONGESTION": N_("no free line"),
    "NETWORK_OUT_OF_ORDER": N_("network out of order"),
    "DESTINATION_OUT_OF_ORDER": N_("callee's line out of order"),
    "NO_ROUTE_DESTINATION": N_("no route to the number"),
    "NO_ROUTE_TRANSIT_NET": N_("no route to the number"),
    "EXCHANGE_ROUTING_ERROR": N_("routing error"),
    "OUTGOING_CALL_BARRED": N_("outgoing calls barred"),
    "INCOMING_CALL_BARRED": N_("incoming calls barred"),
    "RECOVERY_ON_TIMER_EXPIRE": N_("timed out"),
    "ALLOTTED_TIMEOUT": N_("time limit reached"),
    "MEDIA_TIMEOUT": N_("audio lost"),
    "PROGRESS_TIMEOUT": N_("no ringing"),
    "LOSE_RACE": N_("answered elsewhere"),
    "PICKED_OFF": N_("picked up elsewhere"),
    "USER_NOT_REGISTERED": N_("extension not registered"),
    "MANAGER_REQUEST": N_("ended by the system"),
    "BLIND_TRANSFER": N_("transferred"),
    "ATTENDED_TRANSFER": N_("transferred"),
}
"""Hang-up causes in words (lower case: they follow the status); marked for the catalog,
translated where they are said."""

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
        return _("Unknown")
    words = STATUS_WORDS.get(key)
    return _(words) if words else key.replace("-", " ").capitalize()


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
    if words is None or _(words).lower() == status_words(status).lower():
        return None
    return _(words)


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
