"""functions.* methods: answering a workflow step run (``function_executed``).

Slack documents no scope for them; a run is answered with the just-in-time token its
``function_executed`` event carried, which is what Bolt's ``complete``/``fail`` use.  The
stand-in accepts the call with another bot token of the team, as a token is a token,
but notes it as a problem of the call, so a test sees an app that answered with the
wrong one.
"""

from __future__ import annotations

from emulators.slack.core import ApiCall, Core, api_method
from emulators.slack.errors import SlackError
from emulators.slack.model import JSON


def _run_id(core: Core, call: ApiCall) -> str:
    run_id = call.required("function_execution_id")
    run = core.workflows.run(run_id)
    if run is None or run.team_id != call.bot_team.id:
        raise SlackError("function_execution_not_found")
    if call.token is None or call.token.function_execution_id != run_id:
        call.problems.append(
            "answered without the run's just-in-time token (the function_executed "
            "event's bot_access_token) [json-pointer:/token]"
        )
    return run_id


def _finished(core: Core, team_id: str, run_id: str) -> None:
    run = core.workflows.run(run_id)
    if run is not None:
        core.state.expire_token(run.token)


@api_method("functions.completeSuccess")
async def complete_success(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    run_id = _run_id(core, call)
    outputs = call.structured("outputs")
    if not isinstance(outputs, dict):
        raise SlackError("invalid_arguments")
    core.workflows.finish(team.id, run_id, outputs=outputs, error=None)
    _finished(core, team.id, run_id)
    return {}


@api_method("functions.completeError")
async def complete_error(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    run_id = _run_id(core, call)
    error = call.required("error")
    core.workflows.finish(team.id, run_id, outputs=None, error=error)
    _finished(core, team.id, run_id)
    return {}
