"""What a command or a form hands to the approval workflow: an action and its parameters.

It lives in the kernel because forms (kernel) and every family that changes the phone
system produce one, and the approvals package turns it into a request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from storage import ActionKind


@dataclass(frozen=True)
class Proposal:
    """An action a command wants to run: its kind and the exact parameters."""

    kind: ActionKind
    params: dict[str, Any]
