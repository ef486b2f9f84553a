"""What Slack sends back of what callops gave it, read through typed models.

A button's value, a chosen option, a modal's private metadata and a workflow step's
inputs come back from Slack, and anyone who can reach the request URL with a valid
signature (any member of the workspace, with a little effort) can send them forged.
Each handler reads them with ``read`` into a pydantic model declared next to it; one that
does not parse raises ``OutOfDate``, which the dispatcher answers for every surface the
same way (``commands.dispatch.failure``): "This button is out of date; run the command
again" (on a form, its first field), one log line without a traceback, and nothing done.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError, create_model

from commands.kernel.i18n import N_

OUT_OF_DATE = N_("This button is out of date; run the command again.")
FORM_OUT_OF_DATE = N_("This form is out of date; open it again.")
STEP_INPUTS_WRONG = N_("This step's inputs are not what it takes; check them in Workflow Builder.")

MAX_VALUE_CHARS = 2000
"""Slack's limit on a button's value: nothing longer was ever sent by callops."""

Text = Annotated[str, StringConstraints(max_length=MAX_VALUE_CHARS)]
Token = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=r"^[^\s|]+$")]
"""An id of callops' own or the service's (a UUID, a digest id): one word, no ``|``."""


class Value(BaseModel):
    """A value Slack sends back: strict about its shape, ignoring nothing silently."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Metadata(BaseModel):
    """A modal's private metadata: the keys its handler reads, typed; others (the channel
    the modal was opened from, kept for every modal) are left to whoever reads them."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class OutOfDate(Exception):
    """A value Slack sent back does not parse: forged, or made by an older version."""

    def __init__(self, what: str, problem: str, *, words: str = OUT_OF_DATE) -> None:
        super().__init__(f"{what} does not parse: {problem}")
        self.what = what
        self.words = words
        """What the person is told, untranslated (``N_``): translate it with ``_``."""


M = TypeVar("M", bound=BaseModel)


def compact_json(value: Mapping[str, Any]) -> str:
    """What a button or a modal carries, written: JSON without spaces, its letters as they
    are (not ``\\u`` escapes), so that Vietnamese words stay short against Slack's limits."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def read(model: type[M], raw: str | bytes | None, *, what: str = "a button's value") -> M:
    """``raw`` (JSON text) as ``model``, or ``OutOfDate``."""
    try:
        return model.model_validate_json(raw or b"")
    except ValidationError as exc:
        raise OutOfDate(what, _summary(exc)) from None


def read_fields(model: type[M], data: Any, *, what: str = "a button's value") -> M:
    """Already decoded ``data`` (parts of a value, step inputs) as ``model``, or ``OutOfDate``."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise OutOfDate(what, _summary(exc)) from None


def read_metadata(model: type[M], data: Any) -> M:
    """A submitted modal's private metadata as ``model``, or ``OutOfDate`` (for a form)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise OutOfDate("a form's metadata", _summary(exc), words=FORM_OUT_OF_DATE) from None


STEP_TYPES: dict[str, Any] = {
    "string": Annotated[str, StringConstraints(max_length=10_000)],
    "integer": int,
    "number": float,
    "boolean": bool,
    "object": dict[str, Any],
}
"""Workflow Builder's input types, as Python reads them; Slack's own types
(``slack#/types/...``) are checked by Slack and kept as they come."""


def read_step_inputs(step: str, inputs: Mapping[str, tuple[str, bool]], given: Any) -> None:
    """A step run's inputs against what the step declares (``inputs``: name -> (type,
    required)), or ``OutOfDate``: a workflow can only send what the manifest declares, so
    anything else was forged."""
    fields: dict[str, Any] = {}
    for name, (kind, required) in inputs.items():
        typed = STEP_TYPES.get(kind)
        if typed is None:
            fields[name] = (Any, None)
        elif required:
            fields[name] = (typed, ...)
        else:
            fields[name] = (typed | None, None)
    model = create_model(f"{step}_inputs", __config__=ConfigDict(extra="allow"), **fields)
    try:
        model.model_validate(given)
    except ValidationError as exc:
        raise OutOfDate("a step's inputs", _summary(exc), words=STEP_INPUTS_WRONG) from None


def _summary(exc: ValidationError) -> str:
    """What did not parse, by place and kind, never the forged value itself."""
    first = exc.errors(include_url=False, include_input=False)[:3]
    return "; ".join(
        f"{'.'.join(str(p) for p in error['loc']) or 'value'}: {error['type']}" for error in first
    )


class _Id(Value):
    value: Token


class _Command(Value):
    value: Annotated[str, StringConstraints(min_length=1, max_length=MAX_VALUE_CHARS)]


def token(raw: str, *, what: str = "a button's value") -> str:
    """A button that carries one id (a campaign, a list, an alert, a request)."""
    return read_fields(_Id, {"value": raw}, what=what).value


def command_text(raw: str, *, what: str = "a button's command") -> str:
    """A button that carries a whole ``/callops`` command (a "Which one?" choice): the
    dispatcher reads it as typed, with the clicker's role, as it reads any command."""
    return read_fields(_Command, {"value": raw}, what=what).value
