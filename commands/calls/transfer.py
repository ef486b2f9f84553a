"""``transfer <call_id> <ext> [aleg|bleg]`` and the Transfer form of the live-call list.

A transfer is time-critical, so the form opens from the button with one bounded read of
the user directory only (Slack's trigger id lasts 3 seconds): the extensions people have
(spec 2.3, the users' ``extension``) are offered as a list, with their names, and an
extension can still be typed.  Whichever is given is checked against the directory when
the form is sent, so a typo gets a field error instead of a failed transfer; when the
directory cannot be read in time the form still opens and the service has the last word.
The default policy asks only for the requester's confirm.  Which leg moves is said in
plain words: the A leg is the caller, the B leg the side that answered (usually the agent).

Each extension is offered with its person and their status (the user's ``user_status``,
spec 2.3: ``Available`` or ``Logged Out``): signed-in people first, the others marked.
A transfer to someone logged out asks first, since nobody may pick up: the typed
command's prompt says so, and the form asks to tick "Transfer anyway".
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Literal

from pydantic import StringConstraints
from slack_sdk.models.blocks import (
    Block,
    CheckboxesElement,
    InputBlock,
    Option,
    PlainTextInputElement,
    RadioButtonsElement,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from callcenter import CallCenter, errors
from callcenter.models import ActiveCall, User
from commands.approvals.cards import propose
from commands.kernel.actions import (
    ActionParams,
    ActionRefused,
    ActionResult,
    ExecutionEnv,
    Proposal,
)
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.forms import text
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import N_, _
from commands.kernel.interactions import Click, FormValues, Meta
from commands.kernel.modals import modal
from commands.kernel.names import name_of
from commands.kernel.phones import show_phone
from commands.kernel.reply import OpenModal, Outcome, Reply, notice, section
from commands.kernel.resolve import all_users
from commands.kernel.text import clip, code, escape, truncate
from commands.kernel.values import Metadata, Token, Value, read, read_metadata, token
from storage import Role

TRANSFER_KIND = "call.transfer"
"""The kind of action declared in this family's ``FAMILY``."""

TRANSFER_BUTTON = "call_transfer"
"""Each live call's button is ``call_transfer_<row>``; its value names the call."""
TRANSFER_ROLE = Role.OPERATOR
"""The least role that may use it (a listing shows it only to them)."""
TRANSFER_CALLBACK = "call_transfer_form"
EXT_BLOCK = "ext"
"""The typed extension."""
PICK_BLOCK = "ext_pick"
"""The extension chosen from the directory's list."""
ANYWAY_BLOCK = "anyway"
"""Ticked to transfer to someone who is logged out."""
ANYWAY = "anyway"
LOGGED_OUT = "logged out"
"""``user_status`` of someone not signed in (spec 2.3's ``Logged Out``), folded."""
LEG_BLOCK = "leg"
MAX_OPTIONS = 100
"""Slack's limit on a static select's options."""
DIRECTORY_DEADLINE = 1.5
"""Seconds the form waits for the directory (opening, and checking when sent): well
inside Slack's 3 seconds, so the form is never lost to a slow service."""

Leg = Literal["aleg", "bleg"]
"""The side of a call that moves: the A leg is the caller, the B leg who answered."""

LEG_WORDS: dict[Leg, str] = {
    "aleg": N_("the caller (A leg)"),
    "bleg": N_("the agent's side (B leg)"),
}
LEG_HINTS: dict[Leg, str] = {
    "aleg": N_("The person who placed the call is moved to the extension."),
    "bleg": N_("The side that answered (usually the agent) is moved to the extension."),
}
LEGS_BY_DIRECTION: dict[str, dict[Leg, tuple[str, str]]] = {
    "outbound": {
        "aleg": (
            N_("the agent who called (A leg)"),
            N_("The agent who placed this outbound call is moved to the extension."),
        ),
        "bleg": (
            N_("the customer (B leg)"),
            N_("The customer who answered this outbound call is moved to the extension."),
        ),
    },
    "inbound": {
        "aleg": (
            N_("the customer who called (A leg)"),
            N_("The customer who called in is moved to the extension."),
        ),
        "bleg": (
            N_("the agent's side (B leg)"),
            N_("The agent who answered is moved to the extension."),
        ),
    },
}
"""Who each leg is, by the call's direction: on an outbound call the B leg is the
customer, not the agent (the words for a call of unknown direction say neither)."""


def leg_words(leg: Leg, direction: str = "") -> tuple[str, str]:
    """A leg's name and what moving it does, for a call of ``direction``."""
    by_direction = LEGS_BY_DIRECTION.get(direction.strip().lower())
    if by_direction is not None:
        words, hint = by_direction[leg]
        return _(words), _(hint)
    return _(LEG_WORDS[leg]), _(LEG_HINTS[leg])


_EXTENSION = re.compile(r"^[0-9A-Za-z*#+_.-]{1,32}$")

NOT_REGISTERED = "USER_NOT_REGISTERED"
ENDED_CODES = frozenset({"CALL_NOT_FOUND", "NO_SUCH_CHANNEL", "CHANNEL_NOT_FOUND"})


def extension_problem(ext: str) -> str | None:
    if not ext:
        return _("Give the extension to transfer to, e.g. 1002.")
    if not _EXTENSION.match(ext):
        return _("'{ext}' is not an extension: use its number, e.g. 1002.").format(
            ext=truncate(ext, 40)
        )
    return None


def button_value(call: ActiveCall) -> str:
    """What the row's Transfer button carries: enough to show the form without asking
    the service first."""
    return json.dumps(
        {
            "call_id": call.call_id,
            "source": truncate(call.source, 60),
            "destination": truncate(call.destination, 60),
            "direction": truncate(call.direction, 20),
        },
        separators=(",", ":"),
    )


class TransferMeta(Metadata):
    """What the transfer form keeps in its metadata: the call."""

    call_id: Token


class TransferButton(Value):
    """What a Transfer button carries (``button_value``)."""

    call_id: Token
    source: Annotated[str, StringConstraints(max_length=200)] = ""
    destination: Annotated[str, StringConstraints(max_length=200)] = ""
    direction: Annotated[str, StringConstraints(max_length=20)] = ""


def read_button_value(value: str) -> dict[str, str]:
    if not value.startswith("{"):  # a button posted before it carried the call's numbers
        return {"call_id": token(value), "source": "", "destination": "", "direction": ""}
    return read(TransferButton, value).model_dump()


def _call_words(source: str, destination: str) -> str:
    if source or destination:
        unknown = _("unknown")
        shown = [clip(show_phone(p) or unknown, 60) for p in (source, destination)]
        return f"*{shown[0]}* → *{shown[1]}*"
    return _("this call")


def extension_owners(users: Sequence[User]) -> dict[str, User]:
    """Extension -> its user, for the enabled users that have one (the ones a call can be
    transferred to), in extension order."""
    owners = {
        u.extension.strip(): u for u in users if u.extension.strip() and u.user_enabled != "false"
    }
    return dict(sorted(owners.items(), key=lambda item: (len(item[0]), item[0])))


async def read_directory(cc: CallCenter) -> dict[str, User] | None:
    """The directory's extensions, or None when it cannot be read within the deadline."""
    try:
        return extension_owners(await asyncio.wait_for(all_users(cc), DIRECTORY_DEADLINE))
    except (TimeoutError, errors.CallCenterError):
        return None


def person_name(user: User) -> str:
    return name_of(user, user.username)


def signed_in(user: User) -> bool:
    """Not logged out (a status the spec does not list is taken as the service gives
    it, and shown)."""
    return user.user_status.strip().lower() != LOGGED_OUT


def status_note(user: User) -> str:
    """The person's status in words: ``available``, ``logged out``, or another status
    as the service gives it ('' when it gives none)."""
    status = user.user_status.strip()
    if status.lower() == "available":
        return _("available")
    return _("logged out") if status.lower() == LOGGED_OUT else status.lower()


def _owner_words(ext: str, user: User) -> str:
    name = person_name(user)
    words = f"{ext} · {name}" if name else ext
    note = status_note(user)
    return truncate(f"{words} · {note}" if note else words, 75)


def logged_out_question(ext: str, user: User) -> str:
    return _("{name} is logged out (extension {ext}); transfer anyway?").format(
        name=clip(person_name(user) or ext, 80), ext=clip(ext, 32)
    )


def transfer_modal(
    call: Mapping[str, str], channel: str | None, owners: Mapping[str, User] | None = None
) -> View:
    """The extensions of the directory to choose from (when it could be read), a field to
    type one, and the leg."""
    direction = call.get("direction", "")
    options = [
        Option(value=leg, text=words, description=hint)
        for leg in LEG_WORDS
        for words, hint in [leg_words(leg, direction)]
    ]
    meta = {k: call.get(k, "") for k in ("call_id", "source", "destination")}
    meta["channel"] = channel or ""
    words = _call_words(call.get("source", ""), call.get("destination", ""))
    blocks: list[Block] = [
        section(
            _("Transfer {call}\nCall {id}").format(call=words, id=code(call.get("call_id", "")))
        )
    ]
    if owners:
        # Signed-in people first, then the others, each in extension order.
        shown = sorted(owners.items(), key=lambda item: not signed_in(item[1]))[:MAX_OPTIONS]
        more = len(owners) - len(shown)
        blocks.append(
            InputBlock(
                block_id=PICK_BLOCK,
                label=_("To extension"),
                optional=True,
                element=StaticSelectElement(
                    action_id=PICK_BLOCK,
                    placeholder=_("Choose a person's extension"),
                    options=[
                        Option(value=truncate(ext, 75), text=_owner_words(ext, user))
                        for ext, user in shown
                    ],
                ),
                hint=(
                    _("The first {shown} of {total} extensions; type another below.").format(
                        shown=MAX_OPTIONS, total=len(owners)
                    )
                    if more > 0
                    else _(
                        "Everyone in the directory with an extension: signed in first, "
                        "the others marked."
                    )
                ),
            )
        )
    blocks.append(
        InputBlock(
            block_id=EXT_BLOCK,
            label=_("Or type an extension") if owners else _("To extension"),
            optional=bool(owners),
            element=PlainTextInputElement(action_id=EXT_BLOCK, placeholder=_("e.g. 1002")),
            hint=_(
                "Checked against the directory when you send the form; the extension must "
                "also be signed in, or the service refuses the transfer."
            ),
        )
    )
    if owners and any(not signed_in(u) for u in owners.values()):
        blocks.append(
            InputBlock(
                block_id=ANYWAY_BLOCK,
                label=_("If the person is logged out"),
                optional=True,
                element=CheckboxesElement(
                    action_id=ANYWAY_BLOCK,
                    options=[Option(value=ANYWAY, text=_("Transfer anyway (nobody may pick up)"))],
                ),
            )
        )
    blocks.append(
        InputBlock(
            block_id=LEG_BLOCK,
            label=_("Which side moves"),
            element=RadioButtonsElement(
                action_id=LEG_BLOCK, options=options, initial_option=options[0]
            ),
        )
    )
    return modal(TRANSFER_CALLBACK, _("Transfer call"), blocks, submit=_("Transfer"), meta=meta)


class TransferParams(ActionParams):
    """Which call, to which extension, which side moves; ``source`` and ``destination``
    are the numbers the requester saw (cut to 60 characters), for the card."""

    call_id: str
    ext: str
    legs: Leg = "aleg"
    source: str = ""
    destination: str = ""


def describe_transfer(params: TransferParams) -> str:
    return _("Transfer {call}: move {leg} to extension *{ext}*.\nCall {id}").format(
        call=_call_words(params.source, params.destination),
        leg=_(LEG_WORDS[params.legs]),
        ext=clip(params.ext, 32),
        id=code(params.call_id),
    )


async def execute_transfer(params: TransferParams, env: ExecutionEnv) -> ActionResult:
    call_id, ext, leg = params.call_id, params.ext, params.legs
    live = await env.cc.calls.list()
    if not any(c.call_id == call_id for c in live.data):
        raise ActionRefused(_("The call has ended, so there is nothing to transfer"))
    try:
        await env.cc.calls.transfer(call_id, ext, leg)
    except errors.TransferFailedError as exc:
        return ActionResult(
            ok=False, text=transfer_failure(exc.code, ext), data={"error": exc.code}
        )
    return ActionResult(
        ok=True,
        text=_("Transferred: {leg} is now with extension *{ext}*.").format(
            leg=_(LEG_WORDS[leg]), ext=clip(ext, 32)
        ),
        data={"call_id": call_id, "ext": ext, "legs": leg},
    )


def transfer_failure(code_: str, ext: str) -> str:
    if code_ == NOT_REGISTERED:
        return _(
            "Extension *{ext}* is not registered: nobody is signed in on it, or it "
            "does not exist. The call stays where it was."
        ).format(ext=clip(ext, 32))
    if code_ in ENDED_CODES:
        return _("The call ended before it could be transferred.")
    return _("The service refused the transfer ({code}). The call stays where it was.").format(
        code=escape(code_)
    )


async def _live_call(ctx: CommandContext, call_id: str) -> ActiveCall | None:
    live = await ctx.client().calls.list()
    return next((c for c in live.data if c.call_id == call_id), None)


def _ended(call_id: str) -> Reply:
    return notice(
        _(
            "Call {id} is not live any more: it has ended, or the id is mistyped. "
            "`/callops calls` lists the calls on the line now."
        ).format(id=code(call_id)),
        emoji=":telephone_receiver:",
    )


async def transfer(ctx: CommandContext, args: list[str]) -> Reply:
    if len(args) < 2 or len(args) > 3:
        raise UsageError(
            _("Give the call id, the extension, and optionally aleg or bleg."),
            usage_of("transfer"),
        )
    call_id, ext = args[0], args[1]
    leg = _leg(args[2] if len(args) == 3 else "aleg")
    if leg is None:
        raise UsageError(
            _("'{word}' is not a leg: use aleg (the caller) or bleg.").format(word=args[2]),
            usage_of("transfer"),
        )
    problem = extension_problem(ext)
    if problem:
        raise UsageError(problem, usage_of("transfer"))
    call = await _live_call(ctx, call_id)
    if call is None:
        return _ended(call_id)
    owners = await read_directory(ctx.client())
    if owners is not None and ext not in owners:
        return notice(
            _(
                "Extension *{ext}* is not registered: no enabled user of the directory "
                "has it, so the service would refuse the transfer. `/callops users` shows who "
                "has which extension. Nothing was asked."
            ).format(ext=clip(ext, 32)),
            emoji=":no_entry_sign:",
        )
    owner = owners.get(ext) if owners is not None else None
    note = None
    if owner is not None and not signed_in(owner):
        # Asked first: the prompt's confirm is the "anyway".
        note = f":warning: *{logged_out_question(ext, owner)}*"
    proposal = Proposal(TRANSFER_KIND, _params(call, ext, leg), prompt_note=note)
    return await propose(ctx, proposal)


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


def chosen_extension(values: FormValues) -> tuple[str, str]:
    """The extension the form gives and the block it came from (typed wins over chosen;
    ``check_form`` refuses the two when they differ)."""
    typed = text(values, EXT_BLOCK)
    if typed:
        return typed, EXT_BLOCK
    picked = values.get(PICK_BLOCK)
    return (str(picked).strip(), PICK_BLOCK) if isinstance(picked, str) else ("", EXT_BLOCK)


def check_form(values: FormValues, meta: Meta) -> dict[str, str]:
    problems: dict[str, str] = {}
    typed, picked = text(values, EXT_BLOCK), values.get(PICK_BLOCK)
    if typed:
        ext_problem = extension_problem(typed)
        if ext_problem:
            problems[EXT_BLOCK] = ext_problem
        elif isinstance(picked, str) and picked and picked != typed:
            problems[EXT_BLOCK] = _(
                "You chose {picked} in the list and typed {typed}: keep one."
            ).format(picked=truncate(picked, 32), typed=truncate(typed, 32))
    elif not (isinstance(picked, str) and picked):
        where = PICK_BLOCK if PICK_BLOCK in values else EXT_BLOCK
        problems[where] = _("Choose an extension, or type one, e.g. 1002.")
    if _leg(str(values.get(LEG_BLOCK) or "")) is None:
        problems[LEG_BLOCK] = _("Choose which side of the call moves.")
    return problems


async def verify_form(ctx: CommandContext, values: FormValues, meta: Meta) -> dict[str, str]:
    """The extension must be someone's in the directory (read now, within the deadline;
    when it cannot be read, the service's own check decides)."""
    ext, block = chosen_extension(values)
    owners = await read_directory(ctx.client())
    if owners is None:
        return {}
    owner = owners.get(ext)
    if owner is not None:
        anyway = values.get(ANYWAY_BLOCK)
        if signed_in(owner) or (isinstance(anyway, list) and ANYWAY in anyway):
            return {}
        return {
            block: truncate(
                _("{question} Tick “Transfer anyway” and send again.").format(
                    question=logged_out_question(ext, owner)
                ),
                150,
            )
        }
    problem = (
        _("Nobody in the directory has extension {ext}. Choose one from the list.")
        if PICK_BLOCK in values
        else _("Nobody in the directory has extension {ext}. Check the number.")
    )
    return {block: problem.format(ext=truncate(ext, 32))}


async def build_form(ctx: CommandContext, values: FormValues, meta: Meta) -> Proposal | Reply:
    call_id = read_metadata(TransferMeta, meta).call_id
    call = await _live_call(ctx, call_id)
    if call is None:
        return _ended(call_id)
    leg = _leg(str(values.get(LEG_BLOCK) or "")) or "aleg"
    return Proposal(TRANSFER_KIND, _params(call, chosen_extension(values)[0], leg))


async def transfer_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """A live call's Transfer button opens its form: the trigger id lives 3 seconds, so
    the only thing asked of the service first is the directory, within a deadline."""
    owners = await read_directory(ctx.client())
    return OpenModal(transfer_modal(read_button_value(click.value), ctx.channel_id, owners))
