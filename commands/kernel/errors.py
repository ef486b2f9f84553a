"""The one shape of the errors that carry their own words: what went wrong, written for
the person (plain text, in their language), kept as ``message`` for the reply to say."""

from __future__ import annotations


class MessageError(Exception):
    """An error whose ``message`` is said to the person as it is (plain text)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
