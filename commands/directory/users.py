"""``user edit``: a call-center user's level, role, extension and options (admins only).

The card shows only what changes, as before → after (the user as the form found it is
kept with the request).  The service's PUT needs ``password`` and ``confirm_password``
with every change, so the form asks for them; they are secret fields of the request
(``ActionParams.SECRET_FIELDS``): never in the stored parameters, the card, the audit
log or a log line, held encrypted apart until the approved call is made and deleted
then, or as soon as the request is denied, cancelled or expires.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated

from pydantic import Field, StringConstraints
from slack_sdk.models.blocks import (
    CheckboxesElement,
    InputBlock,
    PlainTextInputElement,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from callcenter import errors
from callcenter.models import User, UserUpdate
from commands.directory.options import MAX_OPTIONS, option
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
from commands.kernel.i18n import _
from commands.kernel.interactions import FormValues, Meta
from commands.kernel.modals import modal
from commands.kernel.names import name_of
from commands.kernel.reply import OpenModal, Outcome, Reply, error, section
from commands.kernel.resolve import all_users
from commands.kernel.text import clip, code
from commands.kernel.values import Metadata, Token, read_metadata

UPDATE_KIND = "user.update"
"""The kind of action declared in this family's ``FAMILY``."""

USER_CALLBACK = "user_edit_form"
LEVELS = ("admin", "agent")
FLAG_ENABLED = "enabled"
FLAG_WEBRTC = "webrtc"
_EXTENSION = re.compile(r"^[0-9]{1,10}$")


def user_modal(user: User, roles: Mapping[str, str], channel: str | None) -> View:
    levels = list(LEVELS) + ([user.level] if user.level and user.level not in LEVELS else [])
    level_options = [option(v, v) for v in levels]
    role_options = [option(uuid, name or uuid) for uuid, name in list(roles.items())[:MAX_OPTIONS]]
    flags = [
        option(FLAG_ENABLED, _("Enabled (can sign in and take calls)")),
        option(FLAG_WEBRTC, _("WebRTC (calls in the browser)")),
    ]
    current_flags = [
        f
        for f, on in zip(
            flags, (user.user_enabled.lower() != "false", user.enable_webrtc), strict=True
        )
        if on
    ]
    meta = {"user_uuid": user.user_uuid, "username": user.username, "channel": channel or ""}
    level_initial = next((o for o in level_options if o.value == user.level), None)
    role_initial = next((o for o in role_options if o.value == user.role_uuid), None)
    name = name_of(user)
    return modal(
        USER_CALLBACK,
        _("Edit user"),
        [
            section(f"*{clip(user.username, 80)}*" + (f" ({clip(name, 80)})" if name else "")),
            InputBlock(
                block_id="level",
                label=_("Level"),
                element=StaticSelectElement(
                    action_id="level", options=level_options, initial_option=level_initial
                ),
            ),
            InputBlock(
                block_id="role",
                label=_("Role"),
                element=StaticSelectElement(
                    action_id="role", options=role_options, initial_option=role_initial
                ),
            ),
            InputBlock(
                block_id="extension",
                label=_("Extension"),
                optional=True,
                element=PlainTextInputElement(
                    action_id="extension", initial_value=user.extension or None
                ),
                hint=_("Digits only. Left as it is, the extension does not change."),
            ),
            InputBlock(
                block_id="flags",
                label=_("Options"),
                optional=True,
                element=CheckboxesElement(
                    action_id="flags", options=flags, initial_options=current_flags or None
                ),
            ),
            InputBlock(
                block_id="password",
                label=_("Password"),
                element=PlainTextInputElement(action_id="password", max_length=128),
                hint=_(
                    "The service asks for the password with every change. It is used once "
                    "for this change, then deleted: never shown, logged or kept."
                ),
            ),
            InputBlock(
                block_id="confirm_password",
                label=_("Password again"),
                element=PlainTextInputElement(action_id="confirm_password", max_length=128),
            ),
        ],
        submit=_("Save"),
        meta=meta,
    )


def known_roles(people: Sequence[User]) -> dict[str, str]:
    """Role UUID -> name, as seen on the users (the service lists no roles)."""
    roles: dict[str, str] = {}
    for user in people:
        if user.role_uuid:
            roles.setdefault(user.role_uuid, user.role_name)
    return roles


async def user_edit(ctx: CommandContext, args: list[str]) -> Outcome:
    if len(args) != 1:
        raise UsageError(_("Give one username."), usage_of("user edit"))
    wanted = args[0].strip().lstrip("@").casefold()
    people = await all_users(ctx.client())
    user = next((u for u in people if u.username.casefold() == wanted), None)
    if user is None:
        return error(
            _("No user is called '{name}'. `/callops users` lists them.").format(name=args[0])
        )
    return OpenModal(user_modal(user, known_roles(people), ctx.channel_id))


def check_user_form(values: FormValues, meta: Meta) -> dict[str, str]:
    problems: dict[str, str] = {}
    password = values.get("password") if isinstance(values.get("password"), str) else ""
    again = (
        values.get("confirm_password") if isinstance(values.get("confirm_password"), str) else ""
    )
    if not password:
        problems["password"] = _("The service needs the password with every change.")
    elif password != again:
        problems["confirm_password"] = _("The two passwords differ.")
    extension = text(values, "extension")
    if extension and not _EXTENSION.match(extension):
        problems["extension"] = _("An extension is digits only, e.g. 1017.")
    if not values.get("level"):
        problems["level"] = _("Choose a level.")
    if not values.get("role"):
        problems["role"] = _("Choose a role.")
    return problems


class UserSettings(ActionParams):
    """What ``user edit`` can change, as one user has it (before) or will have it."""

    level: str
    role_uuid: str
    role_name: str = ""
    extension: str = ""
    is_active: bool = False
    enable_webrtc: bool = False


def settings_of(user: User) -> UserSettings:
    return UserSettings(
        level=user.level,
        role_uuid=user.role_uuid,
        role_name=user.role_name,
        extension=user.extension,
        is_active=user.user_enabled.lower() != "false",
        enable_webrtc=user.enable_webrtc,
    )


class UserUpdateParams(UserSettings):
    """A user's settings as the form left them, and as the form found them (``before``,
    for the card's before → after).  The service wants the password with every change:
    it is a secret field, kept out of the stored parameters and handed to the execution
    once."""

    OMIT_WHEN_NONE = frozenset({"before"})
    SECRET_FIELDS = frozenset({"password", "confirm_password"})

    user_uuid: str
    username: str
    before: UserSettings | None = None
    password: str = Field(default="", repr=False)
    confirm_password: str = Field(default="", repr=False)

    def after(self) -> UserSettings:
        return UserSettings(**{name: getattr(self, name) for name in UserSettings.model_fields})


class UserFormMeta(Metadata):
    """What the user form keeps in its metadata: the user, and their name as shown."""

    user_uuid: Token
    username: Annotated[str, StringConstraints(max_length=300)] = ""


async def build_user_form(ctx: CommandContext, values: FormValues, meta: Meta) -> Proposal | Reply:
    flags = set(values.get("flags") or [])
    people = await all_users(ctx.client())
    roles = known_roles(people)
    role_uuid = str(values.get("role") or "")
    form = read_metadata(UserFormMeta, meta)
    user_uuid = form.user_uuid
    current = next((u for u in people if u.user_uuid == user_uuid), None)
    if current is None:
        return error(_("The user {name} no longer exists.").format(name=form.username or user_uuid))
    params = UserUpdateParams(
        user_uuid=user_uuid,
        username=form.username or current.username,
        level=str(values.get("level") or ""),
        role_uuid=role_uuid,
        role_name=roles.get(role_uuid, ""),
        extension=text(values, "extension"),
        is_active=FLAG_ENABLED in flags,
        enable_webrtc=FLAG_WEBRTC in flags,
        before=settings_of(current),
        password=str(values.get("password") or ""),
        confirm_password=str(values.get("confirm_password") or ""),
    )
    return Proposal(UPDATE_KIND, params)


def _yes_no(value: bool) -> str:
    return _("yes") if value else _("no")


def _role(settings: UserSettings) -> str:
    return clip(settings.role_name or settings.role_uuid or _("none"), 80)


def user_changes(before: UserSettings | None, after: UserSettings) -> list[str]:
    """One line per setting that changes, as before → after (every setting when the
    user as it was is unknown: a request stored by an earlier version)."""
    rows: list[tuple[str, str, str, bool]] = []
    old = before or after
    none = _("none")
    rows.append((_("level"), clip(old.level, 40), clip(after.level, 40), old.level != after.level))
    rows.append((_("role"), _role(old), _role(after), old.role_uuid != after.role_uuid))
    # An extension left empty in the form does not change (the service keeps it).
    new_ext = after.extension or old.extension
    rows.append(
        (
            _("extension"),
            clip(old.extension or none, 20),
            clip(new_ext or none, 20),
            old.extension != new_ext,
        )
    )
    rows.append(
        (
            _("enabled"),
            _yes_no(old.is_active),
            _yes_no(after.is_active),
            old.is_active != after.is_active,
        )
    )
    rows.append(
        (
            "WebRTC",
            _yes_no(old.enable_webrtc),
            _yes_no(after.enable_webrtc),
            old.enable_webrtc != after.enable_webrtc,
        )
    )
    if before is None:
        return [f"• {name}: {new}" for name, _was, new, _changed in rows]
    return [f"• {name}: {was} → *{new}*" for name, was, new, changed in rows if changed]


def describe_user_update(params: UserUpdateParams) -> str:
    lines = [_("Change the user {name}:").format(name=f"*{clip(params.username, 80)}*")]
    changes = user_changes(params.before, params.after())
    lines.extend(changes or [_("• no setting changes")])
    lines.append(
        _(
            "• password: set to the one typed in the form (never shown; used once for this "
            "change, then deleted)"
        )
    )
    lines.append(_("User {uuid}").format(uuid=code(params.user_uuid)))
    return "\n".join(lines)


async def execute_user_update(params: UserUpdateParams, env: ExecutionEnv) -> ActionResult:
    uuid = params.user_uuid
    if not params.password:
        raise ActionRefused(
            _(
                "The password typed for this change is gone (it is kept only until the change "
                "is made); run user edit again"
            )
        )
    try:
        await env.cc.users.get(uuid)
    except errors.NotFoundError:
        raise ActionRefused(_("The user no longer exists")) from None
    body = UserUpdate(
        username=params.username,
        level=params.level,
        role_uuid=params.role_uuid,
        password=params.password,
        confirm_password=params.confirm_password,
        user_uuid=uuid,
        extension=params.extension or None,
        is_active=params.is_active,
        enable_webrtc=params.enable_webrtc,
    )
    updated = await env.cc.users.update(uuid, body)
    return ActionResult(
        ok=True,
        text=(
            _("User {name} saved (extension record {uuid}).").format(
                name=f"*{clip(body.username, 80)}*", uuid=code(updated.extension_uuid)
            )
            if updated.extension_uuid
            else _("User {name} saved.").format(name=f"*{clip(body.username, 80)}*")
        ),
        data={"user_uuid": uuid},
    )
