"""``insights [campaign] [day]``: a day against the usual levels, and what to do next.

A manager asks "is today normal?", "when should we call?", "has a network stopped
answering?", "who is off?" and, for an inbound queue, "do we have enough people for
the next hour?".  Each answer is read from call records (``commands.reports.kpis``
defines the figures) against the usual levels of the four weeks before
(``commands.reports.usual``); hours are Vietnam's (the customers' clock, the calling
rules' clock), whatever zone the reader displays.

What call records cannot say, the reply says instead of guessing: who is ready for one
campaign's queue (the service counts ready agents only for autodialer campaigns, so an
inbound queue is held against the agents free in the whole call center), wrap-up time
and shrinkage (Erlang C counts agents on the phones), and why a network stopped
answering.

The package holds it in parts: ``model`` (what was found), ``levels`` (the usual
levels, learned once a day), ``gather`` (reading a day), ``words``, ``sections``,
``chart`` and ``page`` (the reply), ``summary`` (a digest's section and the Home tab's
tile) and ``command`` (the typed command).
"""

from commands.reports.insights.command import insights
from commands.reports.insights.gather import gather_insights
from commands.reports.insights.levels import (
    forget_usual_levels,
    kept_usual_levels,
    usual_levels,
)
from commands.reports.insights.model import INSIGHTS_TZ, Insights
from commands.reports.insights.page import insights_reply
from commands.reports.insights.summary import insights_blocks, summary_lines

__all__ = [
    "INSIGHTS_TZ",
    "Insights",
    "forget_usual_levels",
    "gather_insights",
    "insights",
    "insights_blocks",
    "insights_reply",
    "kept_usual_levels",
    "summary_lines",
    "usual_levels",
]
