"""Slack stand-in: a loopback Slack for tests, benchmarks and the offline demo.

See ``testing.SlackStandIn`` for the entry point and ``README.md`` for the tour.
"""

from emulators.slack.bus import StandInEvent
from emulators.slack.console_api import SampleFile
from emulators.slack.driver import Delivery, SlackDriver
from emulators.slack.journal import JournalEntry
from emulators.slack.testing import (
    AGENT,
    APPROVALS,
    CALL_CENTER,
    DIGESTS,
    MANAGER,
    SUPERVISOR,
    TEAM,
    SlackStandIn,
)

__all__ = [
    "AGENT",
    "APPROVALS",
    "CALL_CENTER",
    "DIGESTS",
    "MANAGER",
    "SUPERVISOR",
    "TEAM",
    "Delivery",
    "JournalEntry",
    "SampleFile",
    "SlackDriver",
    "SlackStandIn",
    "StandInEvent",
]
