"""Values are forgiven the way names are: a typo of a closed set's value is answered
with the value meant, never with an empty result."""

from __future__ import annotations

from bot.runtime import Runtime
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from tests.bot.approval_helpers import ask, shown


async def test_typos_of_values_get_did_you_mean(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    cases = {
        "cdr status=bussy": "Did you mean `busy`",
        "digest add #digests daly 8:00": "Did you mean `daily`",
        "alert add #digests droped_rate > 5": "Did you mean `dropped_rate`",
        "role <@U0002|alex> opertor": "Did you mean `operator`",
        "stats week interval=dya": "Did you mean `day`",
        "digest add #digests daily 08:00 sections=totls": "Did you mean `totals`",
    }
    for command, expected in cases.items():
        reply = await ask(slack, command)
        assert expected in shown(reply), (command, shown(reply))
        assert "No call records match" not in shown(reply)
