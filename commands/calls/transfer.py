"""``transfer <call_id> <ext> [aleg|bleg]`` and the Transfer form of the live-call list.

A transfer is time-critical, so the form opens from the button before anything is asked
of the service (Slack's trigger id lasts 3 seconds), and the default policy asks only for
the requester's confirm.  Which leg moves is said in plain words: the A leg is the
caller, the B leg the side that answered (usually the agent).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Literal

from slack_sdk.models.blocks import (
    InputBlock,
    MarkdownTextObject,
    Option,
    PlainTextInputElement,
    RadioButtonsElement,
    SectionBlock,
)
from slack_sdk.models.views import View

from callcenter import errors
from callcenter.models import ActiveCall
from commands.approvals.actions import (
    ActionRefused,
    ActionResult,
    ActionSpec,
    ExecutionEnv,
    register,
)
from commands.approvals.cards import propose
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.forms import Form as ModalForm
from commands.kernel.forms import register_form, text
from commands.kernel.grammar import UsageError
from commands.kernel.interactions import Click, FormValues, Interactions, Meta, OnClick
from commands.kernel.proposal import ActionParams, Proposal
from commands.kernel.reply import OpenModal, Outcome, Reply, notice
from commands.kernel.text import clip, code, escape, truncate
from storage import ActionKind, Role

TRANSFER_BUTTON = "call_transfer"
"""Each live call's button is ``call_transfer_<row>``; its value names the call."""
TRANSFER_ROLE = Role.OPERATOR
"""The least role that may use it (a listing shows it only to them)."""
TRANSFER_CALLBACK = "call_transfer_form"
EXT_BLOCK = "ext"
LEG_BLOCK = "leg"

Leg = Literal["aleg", "bleg"]
"""The side of a call that moves: the A leg is the caller, the B leg who answered."""

LEG_WORDS: dict[Leg, str] = {
    "aleg": "the caller (A leg)",
    "bleg": "the agent's side (B leg)",
}
LEG_HINTS: dict[Leg, str] = {
    "aleg": "The person who placed the call is moved to the extension.",
    "bleg": "The side that answered (usually the agent) is moved to the extension.",
}
_EXTENSION = re.compile(r"^[0-9A-Za-z*#+_.-]{1,32}$")

NOT_REGISTERED = "USER_NOT_REGISTERED"
ENDED_CODES = frozenset({"CALL_NOT_FOUND", "NO_SUCH_CHANNEL", "CHANNEL_NOT_FOUND"})


def extension_problem(ext: str) -> str | None:
    if not ext:
        return "Give the extension to transfer to, e.g. 1002."
    if not _EXTENSION.match(ext):
        return f"'{truncate(ext, 40)}' is not an extension: use its number, e.g. 1002."
    return None


def button_value(call: ActiveCall) -> str:
    """What the row's Transfer button carries: enough to show the form without asking
    the service first."""
    return json.dumps(
        {
            "call_id": call.call_id,
            "source": truncate(call.source, 60),
            "destination": truncate(call.destination, 60),
        },
        separators=(",", ":"),
    )


def read_button_value(value: str) -> dict[str, str]:
    try:
        data = json.loads(value)
    except json.JSONDecodeError:
        return {"call_id": value, "source": "", "destination": ""}
    if not isinstance(data, dict):
        return {"call_id": str(value), "source": "", "destination": ""}
    return {k: str(data.get(k) or "") for k in ("call_id", "source", "destination")}


def _call_words(source: str, destination: str) -> str:
    if source or destination:
        return f"*{clip(source or 'unknown', 60)}* → *{clip(destination or 'unknown', 60)}*"
    return "this call"


def transfer_modal(call: Mapping[str, str], channel: str | None) -> View:
    """Extension and leg; nothing here needs the service."""
    options = [
        Option(value=leg, text=words, description=LEG_HINTS[leg])
        for leg, words in LEG_WORDS.items()
    ]
    meta = {k: call.get(k, "") for k in ("call_id", "source", "destination")}
    meta["channel"] = channel or ""
    words = _call_words(call.get("source", ""), call.get("destination", ""))
    return View(
        type="modal",
        callback_id=TRANSFER_CALLBACK,
        title="Transfer call",
        submit="Transfer",
        close="Cancel",
        private_metadata=json.dumps(meta, separators=(",", ":")),
        blocks=[
            SectionBlock(
                text=MarkdownTextObject(
                    text=truncate(f"Transfer {words}\nCall {code(call.get('call_id', ''))}", 3000)
                )
            ),
            InputBlock(
                block_id=EXT_BLOCK,
                label="To extension",
                element=PlainTextInputElement(action_id=EXT_BLOCK, placeholder="e.g. 1002"),
                hint="The extension must be signed in, or the service refuses the transfer.",
            ),
            InputBlock(
                block_id=LEG_BLOCK,
                label="Which side moves",
                element=RadioButtonsElement(
                    action_id=LEG_BLOCK, options=options, initial_option=options[0]
                ),
            ),
        ],
    )


class TransferParams(ActionParams):
    """Which call, to which extension, which side moves; ``source`` and ``destination``
    are the numbers the requester saw (cut to 60 characters), for the card."""

    call_id: str
    ext: str
    legs: Leg = "aleg"
    source: str = ""
    destination: str = ""


def describe_transfer(params: TransferParams) -> str:
    return (
        f"Transfer {_call_words(params.source, params.destination)}: move "
        f"{LEG_WORDS[params.legs]} to extension *{clip(params.ext, 32)}*.\n"
        f"Call {code(params.call_id)}"
    )


async def execute_transfer(params: TransferParams, env: ExecutionEnv) -> ActionResult:
    call_id, ext, leg = params.call_id, params.ext, params.legs
    live = await env.cc.calls.list()
    if not any(c.call_id == call_id for c in live.data):
        raise ActionRefused("The call has ended, so there is nothing to transfer")
    try:
        await env.cc.calls.transfer(call_id, ext, leg)
    except errors.TransferFailedError as exc:
        return ActionResult(
            ok=False, text=transfer_failure(exc.code, ext), data={"error": exc.code}
        )
    return ActionResult(
        ok=True,
        text=f"Transferred: {LEG_WORDS[leg]} is now with extension *{clip(ext, 32)}*.",
        data={"call_id": call_id, "ext": ext, "legs": leg},
    )


def transfer_failure(code_: str, ext: str) -> str:
    if code_ == NOT_REGISTERED:
        return (
            f"Extension *{clip(ext, 32)}* is not registered: nobody is signed in on it, or it "
            "does not exist. The call stays where it was."
        )
    if code_ in ENDED_CODES:
        return "The call ended before it could be transferred."
    return f"The service refused the transfer ({escape(code_)}). The call stays where it was."


async def _live_call(ctx: CommandContext, call_id: str) -> ActiveCall | None:
    live = await ctx.client().calls.list()
    return next((c for c in live.data if c.call_id == call_id), None)


def _ended(call_id: str) -> Reply:
    return notice(
        f"Call {code(call_id)} is not live any more: it has ended, or the id is mistyped. "
        "`/callops calls` lists the calls on the line now.",
        emoji=":telephone_receiver:",
    )


async def transfer(ctx: CommandContext, args: list[str]) -> Reply:
    if len(args) < 2 or len(args) > 3:
        raise UsageError(
            "Give the call id, the extension, and optionally aleg or bleg.", usage_of("transfer")
        )
    call_id, ext = args[0], args[1]
    leg = _leg(args[2] if len(args) == 3 else "aleg")
    if leg is None:
        raise UsageError(
            f"'{args[2]}' is not a leg: use aleg (the caller) or bleg.", usage_of("transfer")
        )
    problem = extension_problem(ext)
    if problem:
        raise UsageError(problem, usage_of("transfer"))
    call = await _live_call(ctx, call_id)
    if call is None:
        return _ended(call_id)
    if not await _registered(ctx, ext):
        return notice(
            f"Extension *{clip(ext, 32)}* is not registered: no enabled user of the directory "
            "has it, so the service would refuse the transfer. `/callops users` shows who has "
            "which extension. Nothing was asked.",
            emoji=":no_entry_sign:",
        )
    return await propose(ctx, Proposal(ActionKind.CALL_TRANSFER, _params(call, ext, leg)))


async def _registered(ctx: CommandContext, ext: str) -> bool:
    """Whether an enabled user of the directory has the extension (what the service calls
    registered); True when the directory cannot be read, so the service has the last word."""
    try:
        people = [u async for u in ctx.client().users.iterate(page_size=100)]
    except errors.CallCenterError:
        return True
    return any(u.extension.strip() == ext and u.user_enabled != "false" for u in people)


def _leg(word: str) -> Leg | None:
    lowered = word.lower()
    return "aleg" if lowered == "aleg" else "bleg" if lowered == "bleg" else None


def _params(call: ActiveCall, ext: str, leg: Leg) -> TransferParams:
    return TransferParams(
        call_id=call.call_id,
        ext=ext,
        legs=leg,
        source=truncate(call.source, 60),
        destination=truncate(call.destination, 60),
    )


def check_form(values: FormValues, meta: Meta) -> dict[str, str]:
    problems: dict[str, str] = {}
    ext_problem = extension_problem(text(values, EXT_BLOCK))
    if ext_problem:
        problems[EXT_BLOCK] = ext_problem
    if _leg(str(values.get(LEG_BLOCK) or "")) is None:
        problems[LEG_BLOCK] = "Choose which side of the call moves."
    return problems


async def build_form(ctx: CommandContext, values: FormValues, meta: Meta) -> Proposal | Reply:
    call_id = str(meta.get("call_id") or "")
    call = await _live_call(ctx, call_id)
    if call is None:
        return _ended(call_id)
    leg = _leg(str(values.get(LEG_BLOCK) or "")) or "aleg"
    return Proposal(ActionKind.CALL_TRANSFER, _params(call, text(values, EXT_BLOCK), leg))


register(
    ActionSpec(
        kind=ActionKind.CALL_TRANSFER,
        title="Transfer a live call",
        confirm_label="Transfer",
        params=TransferParams,
        describe=describe_transfer,
        execute=execute_transfer,
        unknown_outcome="the call may or may not have been transferred",
    )
)
register_form(ModalForm(TRANSFER_CALLBACK, check_form, build_form))

HANDLERS = {"transfer": transfer}


async def transfer_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """A live call's Transfer button opens its form at once: the trigger id lives 3
    seconds, so nothing is asked of the service first."""
    return OpenModal(transfer_modal(read_button_value(click.value), ctx.channel_id))


INTERACTIONS = Interactions(
    clicks=(OnClick(TRANSFER_BUTTON, transfer_clicked, role=TRANSFER_ROLE, numbered=True),)
)
