"""How the app's modals are built: one place for the parts every form shares.

Each modal names the callback that reads it, a title, its blocks and perhaps a submit
button; its close button says Cancel unless told otherwise, and what it carries back
(``private_metadata``) is written as compact JSON, kept in the reader's script so that
Vietnamese names do not triple in length against Slack's limit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from commands.kernel.i18n import _
from commands.kernel.values import compact_json


def modal(
    callback_id: str,
    title: str,
    blocks: Sequence[Block],
    *,
    submit: str | None = None,
    close: str | None = None,
    meta: Mapping[str, Any] | str | None = None,
) -> View:
    """A modal view; ``meta`` is a mapping to encode, or metadata already written."""
    return View(
        type="modal",
        callback_id=callback_id,
        title=title,
        submit=submit,
        close=close or _("Cancel"),
        private_metadata=meta if meta is None or isinstance(meta, str) else compact_json(meta),
        blocks=list(blocks),
    )
