"""What a command or a form hands to the approval workflow: an action and its parameters.

It lives in the kernel because forms (kernel) and every family that changes the phone
system produce one, and the approvals package turns it into a request.  Each kind of
action has its own parameters model (a subclass of ``ActionParams``), defined next to its
executor and declared with it in its family's ``ActionSpec``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from commands.approvals.kinds import ActionKind


class ActionParams(BaseModel):
    """The parameters of one kind of action, as a typed model next to its executor.

    Storage keeps them as plain JSON (``to_json``), hashed as they are, and the registry
    reads them back with ``ActionSpec.read``.  Unknown keys are ignored on reading, so an
    approval stored by an earlier version still renders and runs.  A field listed in
    ``OMIT_WHEN_NONE`` is left out of the JSON when it is ``None``, exactly as the kinds
    stored their optional parameters before they were typed: the same parameters give
    the same JSON, hence the same hash, and approvals already asked for stay valid."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset()
    SECRET_FIELDS: ClassVar[frozenset[str]] = frozenset()
    """Fields sent once to the service and kept nowhere else (a password): left out of the
    stored JSON, hence of the hash, the card and the audit log; ``secret_json`` hands them
    to the workflow, which holds them encrypted apart until the approved call is made
    (``storage.approval_secrets``) and wipes them once the request is settled."""

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in self.OMIT_WHEN_NONE:
            if data.get(name) is None:
                data.pop(name, None)
        return data

    def to_json(self) -> dict[str, Any]:
        """The plain JSON stored with the approval (never a secret field)."""
        return self.model_dump(mode="json", exclude=set(self.SECRET_FIELDS))

    def secret_json(self) -> dict[str, Any]:
        """The secret fields that were given (empty when the kind has none)."""
        data = self.model_dump(mode="json", include=set(self.SECRET_FIELDS))
        return {k: v for k, v in data.items() if v not in (None, "")}


@dataclass(frozen=True)
class Proposal:
    """An action a command wants to run: its kind and the exact parameters (the model
    that kind registered; ``open_request`` refuses another)."""

    kind: ActionKind
    params: ActionParams
    prompt_note: str | None = None
    """Escaped mrkdwn for the requester's prompt only, not the card: what else they
    could ask for instead (``notify rotate only``)."""
