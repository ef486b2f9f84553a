"""The fields Bolt and the listeners route by, typed as Slack sends them: Bolt reads
``body["actions"][0]["action_id"]`` or ``payload["team"]["id"]`` and fails with a 500 on
anything else, as do the app's readers.  Only what is read is typed; the rest is let be."""

from __future__ import annotations

from itertools import takewhile
from typing import Annotated, Any, Self

from pydantic import BaseModel, Field, ValidationError, create_model, model_validator
from pydantic.functional_validators import AfterValidator
from pydantic_core import PydanticCustomError

Str = str | None


def _not_null(value: Any) -> Any:  # absent, or an object: Bolt reads "view" in body as one
    if value is None:
        raise PydanticCustomError("object_type", "null for an object")
    return value


NotNull = AfterValidator(_not_null)


class State(BaseModel):
    values: dict[str, dict[str, dict[str, Any]]]


class Fields(BaseModel):  # what Bolt and the listeners read, in a payload and the objects in it
    team: str | Fields | None = None  # an id, or an object with one
    user: str | Fields | None = None
    channel: str | Fields | None = None
    enterprise: str | Fields | None = None
    id: Str = None
    type: Str = None
    team_id: Str = None
    user_id: Str = None
    channel_id: Str = None
    enterprise_id: Str = None
    user_team: Str = None
    event_id: Str = None
    response_url: Str = None
    trigger_id: Str = None
    callback_id: Str = None
    action_id: Str = None
    block_id: Str = None
    api_app_id: Str = None
    token: Str = None
    thread_ts: Str = None
    ts: Str = None
    command: Str = None
    text: Str = None
    challenge: Str = None
    tab: Str = None
    private_metadata: Str = None
    app_installed_team_id: Str = None
    function_execution_id: Str = None
    bot_access_token: Str = None
    function_data: Annotated[dict[str, Any] | None, NotNull] = None
    state: Annotated[State | None, NotNull] = None
    view: Annotated[Fields | None, NotNull] = None  # and what Bolt reads ids from in turn
    event: Annotated[Fields | None, NotNull] = None
    message: Annotated[Fields | None, NotNull] = None
    previous_message: Annotated[Fields | None, NotNull] = None
    item: Annotated[Fields | None, NotNull] = None
    assistant_thread: Annotated[Fields | None, NotNull] = None
    container: Annotated[Fields | None, NotNull] = None
    authorizations: list[Fields] | None = None
    response_urls: list[Fields] | None = None


class Payload(Fields):
    @model_validator(mode="after")
    def _person(self) -> Self:
        """A payload a person caused names them and their workspace (where Bolt looks)."""
        if self.type not in _FROM_A_PERSON:
            return self
        view, user, team = self.view or Fields(), self.user, self.team
        if not (user.id if isinstance(user, Fields) else user):
            raise PydanticCustomError("missing_user", "no user")
        if self.type.startswith("view_") and (view.callback_id is None or view.type is None):
            raise PydanticCustomError("missing_view", "no view with a callback_id and a type")
        team_id = team.id if isinstance(team, Fields) else team
        user_team = user.team_id if isinstance(user, Fields) else None
        if not (view.app_installed_team_id or team_id or self.team_id or user_team or view.team_id):
            raise PydanticCustomError("missing_team", "no team")
        return self


_FROM_A_PERSON = {"block_actions", "block_suggestion", "view_submission", "view_closed"}
_FROM_A_PERSON |= {"shortcut", "message_action"}


class Option(BaseModel):
    value: Str = None


class Action(Option):
    action_id: str
    block_id: Str = None
    type: Str = None
    selected_option: Option | None = None


class Event(Fields):
    type: str
    workflow_step: dict[str, Any] | None = None
    function: Fields | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _routed(self) -> Self:
        if self.type == "app_home_opened" and not self.user:
            raise PydanticCustomError("missing_user", "no user")
        if self.type == "function_executed" and not (self.function and self.function.callback_id):
            raise PydanticCustomError("missing_function", "no function")
        return self


def _routed_by(**fields: Any) -> type[Payload]:  # a payload type Bolt routes by these fields
    required: dict[str, Any] = {name: (kind, ...) for name, kind in fields.items()}
    return create_model("Routed", __base__=Payload, **required)


_BY_CALLBACK = _routed_by(callback_id=str)
_BY_TYPE: dict[Any, type[Payload]] = {
    "block_actions": _routed_by(actions=Annotated[list[Action], Field(min_length=1)]),
    "block_suggestion": _routed_by(action_id=str),
    "event_callback": _routed_by(team_id=Annotated[str, Field(min_length=1)], event=Event),
    **dict.fromkeys(["shortcut", "message_action", "interactive_message"], _BY_CALLBACK),
    **dict.fromkeys(["dialog_submission", "dialog_cancellation"], _BY_CALLBACK),
    **dict.fromkeys(["dialog_suggestion", "workflow_step_edit"], _BY_CALLBACK),
}
_NAMES = {"actions"}.union(*(m.model_fields for m in (Payload, State, Action, Option, Event)))


def problem(payload: dict[str, Any]) -> str | None:
    """The first field of ``payload`` not as Slack sends it: its path and the kind of error,
    never a value (a dict's keys are the sender's, so the path stops at one)."""
    try:
        kind = payload.get("type")
        _BY_TYPE.get(kind if isinstance(kind, str) else None, Payload).model_validate(payload)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = takewhile(lambda part: not isinstance(part, str) or part in _NAMES, error["loc"])
        path = ".".join(p if isinstance(p, str) else "[]" for p in loc).replace(".[]", "[]")
        return f"{path or 'payload'}:{error['type']}"
    return None
