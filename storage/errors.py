"""Storage errors: each one says what went wrong in words an operator can act on, because
they surface in the CLI and (through `commands/`) in Slack messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storage.approvals import Approval


def N_(message: str) -> str:
    """Marks a message a person reads for the catalog (``storage`` imports nothing of
    ``commands``); ``commands`` translates it where it shows it, ``_(str(exc))``."""
    return message


class StorageError(Exception):
    """Base of every error raised on purpose by `storage`."""


class SchemaTooNewError(StorageError):
    """The database was written by a newer callops; opening it could corrupt it."""


class StorageBusyError(StorageError):
    """Another writer held the lock past the short lock timeout, through every retry.

    Raised instead of waiting longer, so the caller fails this one request with a clear
    message while every other request goes on.
    """

    def __init__(self, message: str = "the database is busy; try again in a moment") -> None:
        super().__init__(message)


class DatabaseNotEmptyError(StorageError):
    """`callops db copy` refuses to write over a database that already holds rows."""


class MissingSecretKeyError(StorageError):
    """No CALLOPS_SECRET_KEY outside demo mode: refusing beats storing keys in plain text."""


class InvalidSecretKeyError(StorageError):
    """A CALLOPS_SECRET_KEY entry is not a Fernet key."""


class SecretDecryptError(StorageError):
    """A stored secret cannot be decrypted with any configured key."""


class NotFoundError(StorageError, LookupError):
    """The row asked for does not exist in this workspace."""


class InvalidValueError(StorageError, ValueError):
    """A value failed validation before anything was written.

    ``message`` is English, marked with ``N_`` where a person reads it; ``values`` fill
    its ``{placeholders}``, so the place that shows it can word it in the reader's
    language: ``exc.words(_)``.
    """

    def __init__(self, message: str, **values: str) -> None:
        super().__init__(message.format(**values) if values else message)
        self.template = message
        self.values = values

    def words(self, translate: Callable[[str], str]) -> str:
        """The message through ``translate`` (the catalog's ``_``), values filled in."""
        said = translate(self.template)
        return said.format(**self.values) if self.values else said


class ApprovalError(StorageError):
    """An approval could not make the requested move; `approval` is its state now."""

    def __init__(self, message: str, approval: Approval) -> None:
        super().__init__(message)
        self.approval = approval


class ApprovalStateError(ApprovalError):
    """Illegal transition, or another decider/executor got there first."""


class ApprovalExpiredError(ApprovalError):
    """The approval passed its expiry before the decision; it is now `expired`."""


class ApprovalForbiddenError(ApprovalError):
    """The user may not make this decision under the policy snapshot of the approval."""


class ApprovalParamsMismatchError(ApprovalError):
    """The decider saw different parameters than the ones stored (stale or forged card)."""
