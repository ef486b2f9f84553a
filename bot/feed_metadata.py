"""What the call feed writes into each message's Slack metadata, and reads back.

Every feed message names the records it shows: a card its ``record_id``, a folded
message every one of its ``record_ids``.  After a crash the poster reads the channel's
history for them to know what Slack already has.  What comes back from Slack may have been
written by anyone, so it is parsed by a typed model and whatever does not fit is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

CARD_EVENT = "callops_call_card"
"""The metadata ``event_type`` of the feed's messages."""
FOLD_KIND = "fold"


class FeedPayload(BaseModel):
    """The ``event_payload`` of a feed message."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    kind: str = "card"
    record_id: str | None = None
    record_ids: tuple[str, ...] = ()

    def holds(self, record_id: str, kind: str) -> bool:
        """Whether this message is the post of ``record_id`` that a queue row of ``kind``
        stands for: an autocall's outcome is only ever an outcome; a record's post in a
        routed channel is its card, its reply or its row in a folded message alike (a
        record has one row per channel)."""
        if kind == "outcome":
            return self.kind == "outcome" and self.record_id == record_id
        return record_id in self.shown()

    def shown(self) -> tuple[str, ...]:
        """Every record this message shows in the channel (outcomes are replies
        elsewhere, so they count for nothing here)."""
        if self.kind == "outcome":
            return ()
        if self.kind == FOLD_KIND and self.record_ids:
            return self.record_ids
        return (self.record_id,) if self.record_id else ()


class _Metadata(BaseModel):
    model_config = ConfigDict(extra="ignore")

    event_type: str
    event_payload: FeedPayload


def read_payload(message: Mapping[str, Any]) -> FeedPayload | None:
    """The feed's payload of a message from Slack's history, or None when it is not one
    of the feed's messages (or its metadata is not what the feed writes)."""
    raw = message.get("metadata")
    if not isinstance(raw, Mapping) or raw.get("event_type") != CARD_EVENT:
        return None
    try:
        return _Metadata.model_validate(raw).event_payload
    except ValidationError:
        return None


def card_metadata(record_id: str, kind: str) -> dict[str, Any]:
    return {"event_type": CARD_EVENT, "event_payload": {"record_id": record_id, "kind": kind}}


def fold_metadata(record_ids: Sequence[str]) -> dict[str, Any]:
    return {
        "event_type": CARD_EVENT,
        "event_payload": {"kind": FOLD_KIND, "record_ids": list(record_ids)},
    }
