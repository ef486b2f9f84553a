"""What a Slack user would see of a reply, and the checks every reply must pass."""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections.abc import Sequence
from functools import partial
from typing import Any, Protocol

from callcenter.models import Cdr
from commands.approvals.workflow import Decision, decide
from commands.kernel.grammar import tokenize
from commands.kernel.paging import read_page_value
from commands.kernel.reply import Reply
from storage import Approval, Role, Storage
from tests.blocks import elements


def payload(reply: Reply) -> dict[str, Any]:
    """Serialize as the bot will (``to_dict`` enforces Block Kit's limits)."""
    data = reply.payload()
    assert len(data["blocks"]) <= 50
    assert len(reply.blocks) <= 50, "a handler must page, not rely on fit() cutting"
    return data


def _texts(node: Any) -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "text" and isinstance(value, str):
                found.append(value)
            else:
                found.extend(_texts(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_texts(item))
    return found


def visible(reply: Reply) -> str:
    """Every piece of text a user can read in the reply, one per line."""
    return "\n".join(_texts(payload(reply)["blocks"]))


def buttons(reply: Reply) -> list[dict[str, Any]]:
    return list(elements(payload(reply)["blocks"], "button"))


def next_page(reply: Reply) -> tuple[list[str], int]:
    """The args and offset a click on Next reruns (the command word removed)."""
    values = [b["value"] for b in buttons(reply) if b["action_id"].endswith("_next")]
    assert len(values) == 1, f"expected one Next button, got {values}"
    command, offset = read_page_value(values[0])
    return tokenize(command), offset


def dumps(reply: Reply) -> str:
    return json.dumps(payload(reply), ensure_ascii=False)


def table_rows(reply: Reply) -> list[list[str]]:
    """The reply's table as people read it: the header row first, each cell's text (a link
    cell as ``label <url>``); [] when the reply has no table."""
    tables = [b for b in payload(reply)["blocks"] if b.get("type") == "table"]
    assert len(tables) <= 1, "Slack allows one table per message"
    if not tables:
        return []

    def cell(value: dict[str, Any]) -> str:
        if value["type"] == "raw_text":
            return str(value["text"])
        parts = [
            f"{e['text']} <{e['url']}>" if e.get("type") == "link" else str(e.get("text", ""))
            for section in value["elements"]
            for e in section["elements"]
        ]
        return "".join(parts)

    return [[cell(c) for c in row] for row in tables[0]["rows"]]


def raw_cells(reply: Reply) -> list[str]:
    """Every raw_text cell: plain text Slack never reads as mrkdwn."""
    found: list[str] = []
    for block in payload(reply)["blocks"]:
        if block.get("type") == "table":
            found.extend(c["text"] for row in block["rows"] for c in row if c["type"] == "raw_text")
    return found


def decide_as(
    storage: Storage, approval: Approval, user: str, *, approve: bool = True, reason: str = ""
) -> Decision:
    """``user``, an admin, approves (or denies) ``approval`` as its card showed it."""
    vote = partial(decide, storage, approval.team_id, approval.id, user=user, role=Role.ADMIN)
    return vote(approve=approve, params_hash=approval.params_hash, reason=reason or None)


class Folder(Protocol):
    """A fold over pages of call records (``KpiTally``, ``UsualLearner``)."""

    records: int

    def add_page(self, records: Sequence[Cdr]) -> None: ...


def bytes_kept(fold: Folder, template: Sequence[Cdr], pages: int, modules: Sequence[str]) -> int:
    """Bytes ``modules``' own code holds after ``fold`` took ``pages`` pages of
    ``template`` (new ids each page); other threads' allocations (an emulator's) are left
    out."""
    tracemalloc.start()
    for page in range(pages):
        fold.add_page([r.model_copy(update={"id": f"{page}-{r.id}"}) for r in template])
    gc.collect()
    snapshot = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(True, module) for module in modules]
    )
    tracemalloc.stop()
    assert fold.records == pages * len(template)
    return sum(stat.size for stat in snapshot.statistics("filename"))
