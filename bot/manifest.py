"""The parts of ``app-manifest.yml`` that the families declare: workflow steps
(``functions``) and shortcuts (``features.shortcuts``).

The manifest is what an admin pastes into Slack, so it stays a file; a test keeps its
``functions`` and ``shortcuts`` equal to these, and the demo hands them to the Slack
stand-in (which, as Slack does, knows an app's steps and shortcuts from its manifest).

    .venv/bin/python -m bot.manifest      # print both sections as YAML, to paste
"""

from __future__ import annotations

from typing import Any

from commands.families import FAMILIES
from commands.kernel.interactions import Interactions
from commands.registry import build_registry


def _interactions(interactions: Interactions | None) -> Interactions:
    return interactions if interactions is not None else build_registry(FAMILIES).interactions


def functions(interactions: Interactions | None = None) -> dict[str, Any]:
    """The ``functions`` section of the app made of ``interactions`` (the default
    families' unless given)."""
    return {step.callback_id: step.manifest() for step in _interactions(interactions).steps}


def shortcuts(interactions: Interactions | None = None) -> list[dict[str, str]]:
    return [
        {
            "name": shortcut.name,
            "type": shortcut.kind,
            "callback_id": shortcut.callback_id,
            "description": shortcut.description,
        }
        for shortcut in _interactions(interactions).shortcuts
    ]


def main() -> None:
    import yaml  # a development tool: pyyaml is a dev dependency

    dump = {"allow_unicode": True, "sort_keys": False, "width": 92}
    print("# features:")
    print(yaml.safe_dump({"shortcuts": shortcuts()}, **dump), end="")
    print(yaml.safe_dump({"functions": functions()}, **dump), end="")


if __name__ == "__main__":
    main()
