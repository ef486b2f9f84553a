"""Workflow Builder as an app sees it: the app's steps and shortcuts (from its manifest),
and the runs of its steps.

Slack knows an app's custom steps from the manifest's ``functions`` and its shortcuts
from ``features.shortcuts``; ``install`` takes that manifest.  When a workflow reaches a
step, Slack sends ``function_executed`` with the step's ``inputs``, a
``function_execution_id`` and a just-in-time ``bot_access_token``; the app answers with
``functions.completeSuccess`` (outputs checked against ``output_parameters``) or
``functions.completeError``.  A run is answered once: afterwards ``execution_not_in_running_state``,
and its token stops working (``token_expired``).
"""

from __future__ import annotations

import copy
import re
import threading
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from emulators.slack.bus import EventBus
from emulators.slack.clock import Clock
from emulators.slack.errors import SlackError
from emulators.slack.ids import IdFactory
from emulators.slack.model import JSON

RunState = Literal["running", "completed", "failed"]
_USER_ID = re.compile(r"^[UW][A-Z0-9]+$")
_CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]+$")


@dataclass(frozen=True)
class AppFunction:
    """One custom step of the app, as its manifest declares it."""

    id: str
    callback_id: str
    title: str
    description: str
    inputs: list[JSON]
    """``input_parameters`` as a list, each with its ``name`` (Slack's event shape)."""
    outputs: list[JSON]

    def wire(self, app_id: str, created: int) -> JSON:
        """The ``function`` object of a ``function_executed`` event."""
        return {
            "id": self.id,
            "callback_id": self.callback_id,
            "title": self.title,
            "description": self.description,
            "type": "app",
            "input_parameters": copy.deepcopy(self.inputs),
            "output_parameters": copy.deepcopy(self.outputs),
            "app_id": app_id,
            "date_created": created,
            "date_updated": created,
            "date_deleted": 0,
        }

    def json(self) -> JSON:
        return {
            "callback_id": self.callback_id,
            "title": self.title,
            "description": self.description,
            "inputs": copy.deepcopy(self.inputs),
            "outputs": copy.deepcopy(self.outputs),
        }


@dataclass(frozen=True)
class AppShortcut:
    callback_id: str
    name: str
    type: Literal["message", "global"]
    description: str

    def json(self) -> JSON:
        return asdict(self)


@dataclass
class StepRun:
    """One execution of a step in a workflow run."""

    id: str
    workflow_execution_id: str
    team_id: str
    callback_id: str
    user_id: str
    inputs: JSON
    token: str = field(repr=False)
    started_at: float
    state: RunState = "running"
    outputs: JSON | None = None
    error: str | None = None
    finished_at: float | None = None

    def json(self) -> JSON:
        return {
            "function_execution_id": self.id,
            "workflow_execution_id": self.workflow_execution_id,
            "team_id": self.team_id,
            "callback_id": self.callback_id,
            "user": self.user_id,
            "inputs": copy.deepcopy(self.inputs),
            "state": self.state,
            "outputs": copy.deepcopy(self.outputs),
            "error": self.error,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }


def _parameters(declared: Any) -> list[JSON]:
    """``input_parameters``/``output_parameters`` in either manifest form (a map of name to
    parameter, or ``{"properties": ..., "required": [...]}``) as Slack's list of them."""
    if not isinstance(declared, dict):
        return []
    if isinstance(declared.get("properties"), dict):
        required = set(declared.get("required") or [])
        items = declared["properties"]
    else:
        required = set()
        items = declared
    found: list[JSON] = []
    for name, parameter in items.items():
        if not isinstance(parameter, dict):
            continue
        entry = {k: copy.deepcopy(v) for k, v in parameter.items()}
        entry["name"] = str(name)
        entry["is_required"] = bool(parameter.get("is_required")) or name in required
        found.append(entry)
    return found


def value_problem(parameter: JSON, value: Any) -> str | None:
    """Why ``value`` does not fit the parameter's type (None: it fits)."""
    kind = str(parameter.get("type") or "")
    ok: bool
    if kind in ("string", "slack#/types/rich_text", "slack#/types/message_ts"):
        ok = isinstance(value, str)
    elif kind == "integer":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "number":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif kind == "boolean":
        ok = isinstance(value, bool)
    elif kind in ("object", "slack#/types/user_context", "slack#/types/form_input_object"):
        ok = isinstance(value, dict)
    elif kind == "array":
        ok = isinstance(value, list)
    elif kind == "slack#/types/timestamp":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif kind == "slack#/types/user_id":
        ok = isinstance(value, str) and bool(_USER_ID.match(value))
    elif kind == "slack#/types/channel_id":
        ok = isinstance(value, str) and bool(_CHANNEL_ID.match(value))
    elif kind == "slack#/types/interactivity":
        ok = (
            isinstance(value, dict)
            and isinstance(value.get("interactor"), dict)
            and isinstance(value["interactor"].get("id"), str)
        )
    else:
        ok = True
    return None if ok else f"{parameter.get('name')} must be of type {kind}"


def parameter_problems(declared: list[JSON], values: Any) -> list[str]:
    """What Slack reports when values do not fit the declared parameters."""
    if not isinstance(values, dict):
        return ["must provide an object"]
    problems: list[str] = []
    names = {str(p.get("name")) for p in declared}
    for parameter in declared:
        name = str(parameter.get("name"))
        if name not in values or values[name] is None:
            if parameter.get("is_required"):
                problems.append(f"{name} is required")
            continue
        problem = value_problem(parameter, values[name])
        if problem:
            problems.append(problem)
    problems.extend(
        f"{name} is not a parameter of this step" for name in values if name not in names
    )
    return problems


class Workflows:
    def __init__(self, clock: Clock, ids: IdFactory, bus: EventBus) -> None:
        self._clock = clock
        self._ids = ids
        self._bus = bus
        self._lock = threading.RLock()
        self.functions: dict[str, AppFunction] = {}
        self.shortcuts: dict[str, AppShortcut] = {}
        self.runs: dict[str, StepRun] = {}

    def install(self, manifest: JSON) -> None:
        """The app's steps and shortcuts, from its manifest (replacing earlier ones)."""
        functions: dict[str, AppFunction] = {}
        for callback_id, spec in (manifest.get("functions") or {}).items():
            if not isinstance(spec, dict):
                continue
            functions[str(callback_id)] = AppFunction(
                id=self._ids.next("Fn"),
                callback_id=str(callback_id),
                title=str(spec.get("title") or callback_id),
                description=str(spec.get("description") or ""),
                inputs=_parameters(spec.get("input_parameters")),
                outputs=_parameters(spec.get("output_parameters")),
            )
        shortcuts: dict[str, AppShortcut] = {}
        for item in (manifest.get("features") or {}).get("shortcuts") or []:
            if isinstance(item, dict) and item.get("type") in ("message", "global"):
                shortcuts[str(item["callback_id"])] = AppShortcut(
                    callback_id=str(item["callback_id"]),
                    name=str(item.get("name") or item["callback_id"]),
                    type=item["type"],
                    description=str(item.get("description") or ""),
                )
        with self._lock:
            self.functions = functions
            self.shortcuts = shortcuts

    def function(self, callback_id: str) -> AppFunction:
        with self._lock:
            found = self.functions.get(callback_id)
        if found is None:
            raise LookupError(f"the app has no step {callback_id!r} in its manifest")
        return found

    def shortcut(self, callback_id: str, kind: str) -> AppShortcut:
        with self._lock:
            found = self.shortcuts.get(callback_id)
        if found is None or found.type != kind:
            raise LookupError(f"the app has no {kind} shortcut {callback_id!r} in its manifest")
        return found

    def start(
        self,
        team_id: str,
        function: AppFunction,
        user_id: str,
        inputs: JSON,
        token: str,
        run_id: str,
    ) -> StepRun:
        run = StepRun(
            id=run_id,
            workflow_execution_id=self._ids.next("Wx"),
            team_id=team_id,
            callback_id=function.callback_id,
            user_id=user_id,
            inputs=copy.deepcopy(inputs),
            token=token,
            started_at=self._clock.now(),
        )
        with self._lock:
            self.runs[run.id] = run
        self._bus.publish("step.started", team_id, run=run.id, user=user_id)
        return run

    def run(self, run_id: str) -> StepRun | None:
        with self._lock:
            found = self.runs.get(run_id)
            return copy.deepcopy(found) if found else None

    def finish(
        self, team_id: str, run_id: str, *, outputs: JSON | None, error: str | None
    ) -> StepRun:
        """Answer a run once: ``outputs`` (checked) or ``error``."""
        with self._lock:
            run = self.runs.get(run_id)
            if run is None or run.team_id != team_id:
                raise SlackError("function_execution_not_found")
            if run.state != "running":
                raise SlackError("execution_not_in_running_state")
            if error is None:
                problems = parameter_problems(self.function(run.callback_id).outputs, outputs)
                if problems:
                    raise SlackError("parameter_validation_failed", extra={"errors": problems})
                run.state, run.outputs = "completed", copy.deepcopy(outputs)
            else:
                run.state, run.error = "failed", error
            run.finished_at = self._clock.now()
            done = copy.deepcopy(run)
        self._bus.publish(f"step.{done.state}", team_id, run=run_id, user=done.user_id)
        return done

    def clear_runs(self) -> None:
        with self._lock:
            self.runs.clear()
