"""What each post of callops shows of customers: noted as it leaves, by the outbox.

Rendering for a channel notes every customer's number it writes
(``commands.kernel.phones.take_shown``); the outbox hands what was noted to this ledger
with the post, which gives a masked post its Show number button (a reference, never the
number; the button the app's families declare, ``Registry.reveal``) and, once Slack has
the post, writes one row per number to ``storage.privacy_posts``: so ``privacy find``
finds the post by the number's keyed hash, ``privacy erase`` and retention rewrite it,
and Show number reveals it.  Noting never stops a post: a database that cannot take the
row is logged (without the number).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from slack_sdk.models.blocks import Block

from commands.kernel.phones import take_shown
from storage import Storage, off_loop
from storage.privacy_posts import new_ref

log = logging.getLogger(__name__)

M = TypeVar("M")


@dataclass(frozen=True)
class Shown:
    """The customers' numbers one post shows, and the reference its button carries."""

    phones: tuple[str, ...]
    masked: bool
    ref: str


class PostLedger:
    def __init__(self, storage: Storage, *, button: Callable[[str], Block] | None = None) -> None:
        """``button(ref)``: the row a masked post gets (None: no button)."""
        self._storage = storage
        self._button = button

    async def prepare(
        self, message: M, *, team: str, channel: str, ts: str | None = None
    ) -> tuple[M, Shown | None]:
        """The message as it goes out (with a Show number button when it shows
        customers' numbers masked), and what it shows; takes what was noted."""
        noted = take_shown()
        if not noted or not team:
            return message, None
        phones = tuple(dict.fromkeys(phone for phone, _ in noted))
        masked = all(hidden for _, hidden in noted)
        ref: str | None = None
        if ts is not None:
            ref = await self._safely(self._storage.privacy_posts.ref_of, team, channel, ts)
        shown = Shown(phones=phones, masked=masked, ref=ref or new_ref())
        if masked and self._button is not None:
            message = _with_button(message, self._button(shown.ref))
        return message, shown

    async def posted(
        self,
        shown: Shown | None,
        *,
        team: str,
        channel: str,
        ts: str | None = None,
        file_ids: Sequence[str] = (),
    ) -> None:
        """Slack took the post (or the files): note what it shows."""
        if shown is None or not team or not channel:
            return
        if ts:
            await self._record(shown, team, channel, ts=ts)
        for file_id in file_ids:
            await self._record(shown, team, channel, file_id=file_id)

    async def _record(
        self, shown: Shown, team: str, channel: str, *, ts: str | None = None, file_id: str = ""
    ) -> None:
        await self._safely(
            self._storage.privacy_posts.record,
            team,
            channel,
            shown.phones,
            ref=shown.ref,
            ts=ts,
            file_id=file_id or None,
            masked=shown.masked,
        )

    async def _safely(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> str | None:
        try:
            found = await off_loop(call, *args, **kwargs)
        except Exception as exc:  # the post is out; its note must not undo it
            log.warning("could not note the customers a post shows: %s", type(exc).__name__)
            return None
        return found if isinstance(found, str) else None


def _with_button(message: M, button: Block) -> M:
    blocks = getattr(message, "blocks", None)
    if not isinstance(blocks, list) or not dataclasses.is_dataclass(message):
        return message
    kept = [b for b in blocks if getattr(b, "block_id", None) != button.block_id]
    return dataclasses.replace(message, blocks=[*kept, button])  # type: ignore[type-var]
