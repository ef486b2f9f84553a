"""views.* methods: modals (a stack of at most three per user) and the App Home tab."""

from __future__ import annotations

from typing import Any

from emulators.slack.blockkit import check_view, fill_ids
from emulators.slack.core import ApiCall, Core, api_method
from emulators.slack.errors import SlackError, invalid_blocks
from emulators.slack.model import JSON


def checked_view(core: Core, call: ApiCall | None, raw: Any, kinds: tuple[str, ...]) -> JSON:
    """A view after Slack's checks, with block_id/action_id filled in as Slack stores it."""
    if not isinstance(raw, dict):
        raise SlackError("invalid_arguments")
    problems = check_view(raw, expected=kinds)
    if call is not None:
        call.problems.extend(problems)
    if problems:
        raise invalid_blocks(problems)
    view = dict(raw)
    view["blocks"] = fill_ids(view.get("blocks") or [], core.ids.short_block_id)
    return view


def _open(core: Core, call: ApiCall, *, push: bool) -> JSON:
    """A modal opened with a trigger (one use, three seconds), on top of the stack when
    ``push``."""
    team = call.bot_team
    view = checked_view(core, call, call.structured("view"), ("modal",))
    trigger = core.state.use_trigger(call.params.get("trigger_id"), team.id)
    return {"view": core.state.open_view(team, trigger.user_id, view, push=push)}


@api_method("views.open")
async def views_open(core: Core, call: ApiCall) -> JSON:
    return _open(core, call, push=False)


@api_method("views.push")
async def views_push(core: Core, call: ApiCall) -> JSON:
    return _open(core, call, push=True)


@api_method("views.update")
async def views_update(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    view_id = call.text("view_id")
    external_id = call.text("external_id")
    if not view_id and not external_id:
        raise SlackError("invalid_arguments")
    found = core.state.find_view(view_id, external_id)
    if found is None or found["team_id"] != team.id:
        raise SlackError("not_found")
    view = checked_view(core, call, call.structured("view"), (str(found["type"]),))
    updated = core.state.update_view(found["id"], view, expected_hash=call.text("hash"))
    return {"view": updated}


@api_method("views.publish")
async def views_publish(core: Core, call: ApiCall) -> JSON:
    team = call.bot_team
    user = core.state.find_user(call.required("user_id", "user_not_found"), team.id)
    if user is None or user.team_id != team.id:
        raise SlackError("user_not_found")
    view = checked_view(core, call, call.structured("view"), ("home",))
    published = core.state.publish_home(team, user.id, view, expected_hash=call.text("hash"))
    return {"view": published}
