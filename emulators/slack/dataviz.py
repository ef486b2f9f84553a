"""Slack's ``data_visualization`` block, checked as Slack documents it.

Reference: https://docs.slack.dev/reference/block-kit/blocks/data-visualization-block
(changelog 2026-06-16).  ``type`` ``data_visualization``, a ``title`` of 1 to 50
characters, optional ``block_id``, and a ``chart`` object:

- ``pie``: ``segments``, 1 to 6, each ``label`` (1 to 20 characters) and ``value`` (a
  number greater than 0);
- ``bar``, ``area``, ``line``: ``series``, 1 to 6, each a ``name`` (1 to 20 characters,
  unique in the chart) and ``data``, 1 to 20 points of ``label`` (1 to 20 characters) and
  ``value`` (a number, negatives allowed); and ``axis_config`` with ``categories`` (1 to
  20 unique labels of 1 to 20 characters, which every series covers exactly once) and
  optional ``x_label`` and ``y_label`` (at most 50 characters).

Two rules are not in the reference but are what Slack answers: at most two charts in one
message (``invalid_blocks`` beyond; found against the live API by the authors of the Slack
SDKs that added the block), and messages only (the block is not offered in modals or the
Home tab).  Problems are phrased like Slack's ``errors`` entries, ending in a JSON pointer.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard

TYPE = "data_visualization"
KINDS = ("pie", "bar", "area", "line")
TITLE_MAX = 50
SERIES_MAX = 6
POINTS_MAX = 20
LABEL_MAX = 20
AXIS_LABEL_MAX = 50
PER_MESSAGE_MAX = 2


def _text(value: Any, at: str, limit: int) -> list[str]:
    if not isinstance(value, str) or not value:
        return [f"must provide a non-empty string [json-pointer:{at}]"]
    if len(value) > limit:
        return [f"must be less than {limit + 1} characters [json-pointer:{at}]"]
    return []


def _number(value: Any, at: str) -> TypeGuard[int | float]:
    """A JSON number (not a boolean, not a string holding one), finite."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _items(value: Any, at: str, most: int) -> tuple[list[Any], list[str]]:
    if not isinstance(value, list) or not value:
        return [], [f"must provide a non-empty array [json-pointer:{at}]"]
    if len(value) > most:
        return value, [f"no more than {most} items allowed [json-pointer:{at}]"]
    return value, []


def check_data_visualization(raw: dict[str, Any], where: str) -> list[str]:
    """Every problem Slack would report for one ``data_visualization`` block."""
    problems: list[str] = []
    if "title" not in raw:
        problems.append(f"missing required field: title [json-pointer:{where}]")
    else:
        problems += _text(raw["title"], f"{where}/title", TITLE_MAX)
    chart = raw.get("chart")
    if chart is None:
        return [*problems, f"missing required field: chart [json-pointer:{where}]"]
    at = f"{where}/chart"
    if not isinstance(chart, dict):
        return [*problems, f"must provide an object [json-pointer:{at}]"]
    kind = chart.get("type")
    if kind not in KINDS:
        return [*problems, f"must be one of {list(KINDS)} [json-pointer:{at}/type]"]
    if kind == "pie":
        return problems + _pie(chart, at)
    return problems + _series_chart(chart, at)


def _pie(chart: dict[str, Any], at: str) -> list[str]:
    segments, problems = _items(chart.get("segments"), f"{at}/segments", SERIES_MAX)
    for i, segment in enumerate(segments):
        here = f"{at}/segments/{i}"
        if not isinstance(segment, dict):
            problems.append(f"must provide an object [json-pointer:{here}]")
            continue
        problems += _text(segment.get("label"), f"{here}/label", LABEL_MAX)
        value = segment.get("value")
        if not _number(value, f"{here}/value"):
            problems.append(f"must provide a number [json-pointer:{here}/value]")
        elif value <= 0:
            problems.append(f"must be greater than 0 [json-pointer:{here}/value]")
    return problems


def _series_chart(chart: dict[str, Any], at: str) -> list[str]:
    series, problems = _items(chart.get("series"), f"{at}/series", SERIES_MAX)
    axis = chart.get("axis_config")
    categories: list[str] = []
    if axis is None:
        problems.append(f"missing required field: axis_config [json-pointer:{at}]")
    elif not isinstance(axis, dict):
        problems.append(f"must provide an object [json-pointer:{at}/axis_config]")
    else:
        raw_categories, found = _items(
            axis.get("categories"), f"{at}/axis_config/categories", POINTS_MAX
        )
        problems += found
        for i, category in enumerate(raw_categories):
            found = _text(category, f"{at}/axis_config/categories/{i}", LABEL_MAX)
            problems += found
            if not found:
                if category in categories:
                    problems.append(
                        f"duplicate category {category!r} "
                        f"[json-pointer:{at}/axis_config/categories/{i}]"
                    )
                categories.append(category)
        for key in ("x_label", "y_label"):
            if key in axis:
                value = axis[key]
                if not isinstance(value, str):
                    problems.append(f"must provide a string [json-pointer:{at}/axis_config/{key}]")
                elif len(value) > AXIS_LABEL_MAX:
                    problems.append(
                        f"must be less than {AXIS_LABEL_MAX + 1} characters "
                        f"[json-pointer:{at}/axis_config/{key}]"
                    )
    names: set[str] = set()
    for i, one in enumerate(series):
        here = f"{at}/series/{i}"
        if not isinstance(one, dict):
            problems.append(f"must provide an object [json-pointer:{here}]")
            continue
        name = one.get("name")
        found = _text(name, f"{here}/name", LABEL_MAX)
        problems += found
        if not found and isinstance(name, str):
            if name in names:
                problems.append(f"series names must be unique [json-pointer:{here}/name]")
            names.add(name)
        points, found = _items(one.get("data"), f"{here}/data", POINTS_MAX)
        problems += found
        labels: list[str] = []
        for j, point in enumerate(points):
            spot = f"{here}/data/{j}"
            if not isinstance(point, dict):
                problems.append(f"must provide an object [json-pointer:{spot}]")
                continue
            found = _text(point.get("label"), f"{spot}/label", LABEL_MAX)
            problems += found
            if not found:
                labels.append(point["label"])
            if not _number(point.get("value"), f"{spot}/value"):
                problems.append(f"must provide a number [json-pointer:{spot}/value]")
        if categories and points and sorted(labels) != sorted(categories):
            problems.append(
                "data labels must match axis_config.categories, one point each "
                f"[json-pointer:{here}/data]"
            )
    return problems
