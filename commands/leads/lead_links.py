"""The Open lead button, for any card that shows a lead's UUID (an autocall's result, an
added lead, a call card), and the typed model of its value.

Kept apart from the card it opens (``commands.leads.lead_card``, which answers the
click) so that the families whose results name a lead can place it without importing the
lead commands they sit beside.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, field_validator
from slack_sdk.models.blocks import ButtonElement

from commands.kernel.i18n import _

OPEN_LEAD_BUTTON = "lead_open"
"""Open lead; its value is the lead's UUID (``LeadRef``), answered by ``lead_card``."""

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def is_uuid(word: str) -> bool:
    return bool(_UUID.match(word.strip()))


class LeadRef(BaseModel):
    """An Open lead button's value: a lead's UUID, nothing else (it may be forged)."""

    lead_uuid: str

    @field_validator("lead_uuid")
    @classmethod
    def _uuid(cls, value: str) -> str:
        if not is_uuid(value):
            raise ValueError("not a UUID")
        return value.strip().lower()


def open_lead_button(lead_uuid: str, *, label: str | None = None) -> ButtonElement:
    """The button that opens a lead's card."""
    return ButtonElement(
        text=label or _("Open lead"), action_id=OPEN_LEAD_BUTTON, value=lead_uuid.strip()
    )
