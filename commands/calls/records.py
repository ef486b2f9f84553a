"""Find its call record: from a pushed autocall's result to the records it left.

The service answers a push with a call id and a lead, and writes the call's record only
when the call ends; its records can be filtered by campaign and number but not by call
id.  So the button carries the campaign, the request that pushed the call and the moment
of the push, and opens ``cdr`` for exactly those: the records of that campaign and the
request's number since the push (the call itself once it has ended, and any later call
to the number).  The number itself is read from the request when the button is clicked:
a button's value is part of the message, and a channel's message shows no customer's
number in clear (Law 91/2025/QH15).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from pydantic import BaseModel, Field, ValidationError
from slack_sdk.models.blocks import ButtonElement

from commands.kernel.context import CommandContext
from commands.kernel.grammar import quote_word
from commands.kernel.i18n import _
from commands.kernel.interactions import Click
from commands.kernel.periods import format_moment
from commands.kernel.reply import Outcome, Rerun, notice
from storage import off_loop

FIND_RECORDS_BUTTON = "call_find_records"
"""Find its call record, on a pushed autocall's result."""

_PHONE = re.compile(r"^\+?[0-9]{2,20}$")
_UUID = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"


class RecordsRef(BaseModel):
    """The button's value (it may be forged): which campaign, which request, since when."""

    campaign: str = Field(pattern=_UUID)
    request: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    since: int = Field(ge=0)


def find_records_button(campaign_uuid: str, request_id: str, since: float) -> ButtonElement:
    value = {"campaign": campaign_uuid, "request": request_id, "since": int(since)}
    return ButtonElement(
        text=_("Find its call record"),
        action_id=FIND_RECORDS_BUTTON,
        value=json.dumps(value, separators=(",", ":")),
    )


def records_command(ref: RecordsRef, phone: str, ctx: CommandContext) -> str:
    since = datetime.fromtimestamp(ref.since, UTC)
    moment = quote_word(f"from={format_moment(since, ctx.tz)}")
    return f"cdr campaign={ref.campaign} phone={phone} {moment}"


async def find_records_clicked(ctx: CommandContext, click: Click) -> Outcome:
    out_of_date = notice(_("This button is out of date; run the command again."), emoji=":warning:")
    try:
        ref = RecordsRef.model_validate_json(click.value)
    except ValidationError:
        return out_of_date
    request = await off_loop(ctx.storage.approvals.get, ctx.team_id, ref.request)
    phone = str(request.params.get("phone_number") or "") if request is not None else ""
    if request is None or not _PHONE.match(phone):
        return out_of_date
    return Rerun(records_command(ref, phone, ctx), replace_original=False)
