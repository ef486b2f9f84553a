"""The tables of the app as it ships, for the tests (``commands/registry.py``).

The dispatcher puts its app's registry in use for each request; a test that calls a
handler, a card or the approval workflow directly gets this one in use (the autouse
``app_registry`` fixture of ``tests/conftest.py``); a test may build another from other
families."""

from __future__ import annotations

from commands.families import FAMILIES
from commands.registry import build_registry

APP = build_registry(FAMILIES)
CATALOG = APP.catalog
INTERACTIONS = APP.interactions
