"""The console's Workflow Builder and shortcuts: run one of the app's steps, use one of its
shortcuts, as Slack would send them (through the signed driver).

Routes, under ``/console/api``:

* ``GET workflows``: the app's steps (from its manifest's ``functions``) and shortcuts.
* ``POST step`` ``{user, callback_id, inputs, unattended?}``: a workflow started by
  ``user`` reaches the step (``function_executed``), or with ``unattended`` a scheduled
  one (its interactivity input left empty); answers with the run's id.
* ``GET step?id=``: the run: inputs, state, and once answered its outputs or error.
* ``POST shortcut`` ``{user, callback_id, channel?, ts?}``: a global shortcut, or a message
  shortcut on the message ``ts`` of ``channel``.
"""

from __future__ import annotations

from aiohttp import web

from emulators.slack.console_api import (
    CORE,
    DRIVER,
    ConsoleError,
    _body,
    _conversation,
    _delivery,
    _json,
    _person,
    _text,
)
from emulators.slack.model import JSON


def add_workflow_routes(app: web.Application) -> None:
    app.router.add_get("/console/api/workflows", _json(_workflows))
    app.router.add_post("/console/api/step", _json(_run_step))
    app.router.add_get("/console/api/step", _json(_step))
    app.router.add_post("/console/api/shortcut", _json(_shortcut))


async def _workflows(request: web.Request) -> JSON:
    workflows = request.app[CORE].workflows
    return {
        "steps": [f.json() for f in workflows.functions.values()],
        "shortcuts": [s.json() for s in workflows.shortcuts.values()],
    }


async def _run_step(request: web.Request) -> JSON:
    core, driver = request.app[CORE], request.app[DRIVER]
    body = await _body(request)
    person = _person(core, _text(body, "user"))
    callback_id = _text(body, "callback_id") or ""
    inputs = body.get("inputs") or {}
    if not isinstance(inputs, dict):
        raise ConsoleError("inputs must map each input's name to its value")
    unattended = body.get("unattended") is True
    delivery = await driver.run_step(
        callback_id, user=person.id, inputs=inputs, unattended=unattended
    )
    return {"run": delivery.payload["event"]["function_execution_id"], **_delivery(delivery)}


async def _step(request: web.Request) -> JSON:
    run = request.app[CORE].workflows.run(request.query.get("id") or "")
    if run is None:
        raise ConsoleError("no such step run", status=404)
    return {"run": run.json()}


async def _shortcut(request: web.Request) -> JSON:
    core, driver = request.app[CORE], request.app[DRIVER]
    body = await _body(request)
    person = _person(core, _text(body, "user"))
    callback_id = _text(body, "callback_id") or ""
    ts = _text(body, "ts", required=False)
    if ts is None:
        return _delivery(await driver.global_shortcut(user=person.id, callback_id=callback_id))
    channel = _conversation(core, person, _text(body, "channel") or "")
    delivery = await driver.message_shortcut(
        user=person.id, channel=channel, ts=ts, callback_id=callback_id
    )
    return _delivery(delivery)
