"""What went wrong with the call-center service, in words a supervisor can act on.

One describer for every surface: a command's reply, an approval card's result, the
wallboard's "unavailable" lines, the digest notice and the connect form's field errors
all read the same facts from ``describe_failure``, so a refused key or a service that is
down is told the same way wherever it shows.  Nothing here carries the API key: the
words come from the error's type and its ``message``, which the client builds without it.

An effectful call (start a campaign, push a call, upload leads) whose answer never came
may still have happened: the client does not retry those, and the words must not invite
a blind retry either.  Such callers pass ``effect=`` ("the campaign may or may not have
started"), which replaces the usual "try again" when the outcome is unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from callcenter import errors
from commands.kernel.context import NotConnectedError
from commands.kernel.i18n import N_, _
from commands.kernel.text import escape, truncate

MESSAGE_LIMIT = 200
"""Characters of the service's own message kept (one long message must not fill a card)."""

ServiceFailure = errors.CallCenterError | NotConnectedError

_UNKNOWN_OUTCOME = (
    errors.APIConnectionError,
    errors.ServerError,
    errors.UnexpectedResponseError,
)
"""The request may have reached the service and acted before the failure."""
_WORKSPACE_WIDE = (
    NotConnectedError,
    errors.AuthenticationError,
    errors.APIConnectionError,
    errors.ServerError,
    errors.RateLimitError,
    errors.UnexpectedResponseError,
)
"""Failures that will recur for every request of the workspace until someone acts."""
_TRY_AGAIN = N_("Try again in a moment.")
_RECONNECT = N_("An admin can reconnect with `/callops connect`.")


@dataclass(frozen=True, kw_only=True)
class FailureWords:
    """One failure, ready for each place it is shown.

    ``cause`` and ``advice`` are escaped mrkdwn; ``plain_cause``, ``plain_advice`` and
    ``plain()`` are the same words unescaped, for plain-text fields (a modal's field
    errors, where ``&amp;`` would show as typed)."""

    cause: str
    """A clause starting in lower case, without a full stop, to follow "unavailable:" or
    "on hold:": ``the call-center service did not answer in time``."""
    advice: str
    """Whole sentences saying who can fix it and how (may be empty)."""
    retry: str
    """When trying again may help, a sentence saying so; when the outcome is unknown, a
    warning to check first (may be empty).  Left out of ``inline``: the places that use
    it refresh on their own."""
    unreachable: bool
    """Nothing usable came back (connection or timeout): the address may be at fault."""
    key_refused: bool
    """The service refused the API key: the connection itself is in question."""
    workspace_wide: bool
    """It will recur for every request of the workspace, so it is worth telling once."""
    plain_cause: str
    plain_advice: str

    @property
    def text(self) -> str:
        """Whole sentences: ``The call-center service failed (boom). Try again in a moment.``"""
        return _sentences(self.cause, self.advice, self.retry)

    @property
    def inline(self) -> str:
        """The cause with its advice in one clause, for a line that names what failed
        (the wallboard's "Live calls unavailable: ...")."""
        return _inline(self.cause, self.advice)

    def plain(self, limit: int | None = None) -> str:
        """Unescaped whole sentences, cut to ``limit`` characters (Slack's field errors)."""
        words = _sentences(self.plain_cause, self.plain_advice, self.retry)
        return truncate(words, limit) if limit is not None else words


def describe_failure(exc: ServiceFailure, *, effect: str | None = None) -> FailureWords:
    """The words for ``exc``.  ``effect`` (plain words, e.g. "the lead may or may not have
    been added") is said instead of "try again" when the request may have acted."""
    cause, advice, retry = _words(exc, escape)
    plain_cause, plain_advice, _retry = _words(exc, str)
    if effect and isinstance(exc, _UNKNOWN_OUTCOME):
        so = _("{cause}, so {effect}")
        cause = so.format(cause=cause, effect=escape(effect))
        plain_cause = so.format(cause=plain_cause, effect=effect)
        retry = _("Check before trying again.")
    return FailureWords(
        cause=cause,
        advice=advice,
        retry=retry,
        unreachable=isinstance(exc, errors.APIConnectionError),
        key_refused=isinstance(exc, errors.AuthenticationError),
        workspace_wide=isinstance(exc, _WORKSPACE_WIDE),
        plain_cause=plain_cause,
        plain_advice=plain_advice,
    )


def _words(exc: ServiceFailure, esc: Callable[[object], str]) -> tuple[str, str, str]:
    """(cause, advice, retry) with outside values passed through ``esc``."""
    if isinstance(exc, NotConnectedError):
        return (
            _("this workspace is not connected to the call-center service"),
            _("An admin can connect it with `/callops connect`."),
            "",
        )
    message = esc(truncate(exc.message, MESSAGE_LIMIT))
    if isinstance(exc, errors.APITimeoutError):
        return _("the call-center service did not answer in time"), "", _(_TRY_AGAIN)
    if isinstance(exc, errors.APIConnectionError):
        cause = _("the call-center service cannot be reached ({message})")
        return cause.format(message=message), "", _(_TRY_AGAIN)
    if isinstance(exc, errors.AuthenticationError):
        refused = _("the call-center service refused this workspace's API key ({message})")
        return refused.format(message=message), _(_RECONNECT), ""
    if isinstance(exc, errors.RateLimitError):
        if exc.retry_after:
            slow = _("the call-center service asks us to slow down for {seconds}s").format(
                seconds=f"{exc.retry_after:.0f}"
            )
        else:
            slow = _("the call-center service asks us to slow down")
        return slow, "", _("Try again shortly.")
    if isinstance(exc, errors.ServerError):
        if exc.status_code:
            failed = _("the call-center service failed ({message}, HTTP {status})").format(
                message=message, status=exc.status_code
            )
        else:
            failed = _("the call-center service failed ({message})").format(message=message)
        return failed, "", _(_TRY_AGAIN)
    if isinstance(exc, errors.FieldValidationError):
        fields = "; ".join(
            f"`{esc(field)}`: {esc(truncate(', '.join(msgs), MESSAGE_LIMIT))}"
            for field, msgs in exc.fields.items()
        )
        rejected = _("the call-center service rejected some values: {fields}")
        return rejected.format(fields=fields), "", ""
    if isinstance(exc, errors.TransferFailedError):
        return _("the transfer failed ({code})").format(code=esc(exc.code)), "", ""
    if isinstance(exc, errors.NotFoundError):
        missing = _("the call-center service could not find it ({message})")
        return missing.format(message=message), "", ""
    if isinstance(exc, errors.ConflictError):
        conflict = _("the call-center service refused it ({message})")
        return conflict.format(message=message), "", ""
    if isinstance(exc, errors.UnexpectedResponseError):
        return _("the call-center service answered with something unreadable"), "", ""
    return _("the call-center service said: {message}").format(message=message), "", ""


def _sentences(cause: str, *more: str) -> str:
    first = cause[:1].upper() + cause[1:] + "."
    return " ".join([first, *(m for m in more if m)])


def _inline(cause: str, advice: str) -> str:
    if not advice:
        return cause
    return f"{cause}; {advice[:1].lower()}{advice[1:].rstrip('.')}"
