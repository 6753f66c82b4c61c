"""The ``small_general.experience`` widget: points earned, level reached, points to go.

>>> r = compute(EXPERIENCE_INPUTS.validate({"points": 9, "results": [{"result": "DEF Loss", "count": 1}]}))
>>> r["points"], r["level"], r["points_to_next"]
(13, 2, 7)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .. import present
from ..schema import Boolean, Choice, Group, Integer, InputError, ListOf
from .combat_widget import assumption
from .experience import LEVEL_THRESHOLDS, Combine, level_for, next_threshold, points_for
from .inputs import Settings, settings_group
from .rules import DESTROYED, EXPERIENCE_MODIFIERS, LOSS, PANIC, RETREAT, TABLE_RESULTS, Result

__all__ = ["EXPERIENCE_INPUTS", "CAUSABLE", "compute", "render", "check", "points_for_item"]


def _causable() -> tuple[str, ...]:
    """Every result a unit can cause: the table's results, then the forms the artillery rule makes."""
    names: list[str] = []
    printed = [r for r in TABLE_RESULTS.values() if r.side is not None]
    for r in printed:
        if r.name not in names:
            names.append(r.name)
    for r in printed:
        for made in (r.replace(LOSS, None).replace(DESTROYED, PANIC), r.replace(LOSS, PANIC)):
            if made.side is not None and made.name not in names:
                names.append(made.name)
    return tuple(names)


CAUSABLE: Final[tuple[str, ...]] = _causable()
"""Results a unit can be credited with: printed ones, then artillery-limited ones."""

MAX_POINTS: Final = 999

EXPERIENCE_INPUTS: Final = Group("inputs", "", fields=(
    Integer("points", "Experience points the unit has before these results.", 0,
            minimum=0, maximum=MAX_POINTS, label="Points now"),
    ListOf("results", "Results the unit caused; ATT results count when it was the defender.",
           ({"result": "DEF Shocked", "count": 1}, {"result": "DEF Retreat + Loss", "count": 1}),
           item=Group("caused", "", label="Result caused", fields=(
               Choice("result", "The result as the table names it.", "DEF Disrupted",
                      choices=CAUSABLE, label="Result"),
               Integer("count", "How many times the unit caused it.", 1, minimum=1, maximum=99,
                       label="Times"),
               Boolean("destroyed_in_retreat", "The enemy had no free friendly hex and was destroyed.",
                       False, label="Destroyed in retreat"),
           )),
           min_items=0, max_items=20, label="Results caused"),
    settings_group("combined_xp", "defender_earns_xp", "retreat_kill_counts"),
))
"""Inputs of the ``small_general.experience`` widget."""


def check(values: Mapping[str, Any]) -> None:
    """Only a result with a retreat can end in destruction during the retreat."""
    for i, item in enumerate(values["results"]):
        if item["destroyed_in_retreat"] and not Result.parse(item["result"]).has(RETREAT):
            raise InputError(f"results.{i}.destroyed_in_retreat",
                             f"{item['result']} has no retreat, so it cannot end in a retreat",
                             "false unless the result includes a retreat")


def points_for_item(item: Mapping[str, Any], settings: Settings) -> int:
    """Points for one caused result (once), under the settings.

    >>> s = Settings()
    >>> points_for_item({"result": "DEF Retreat + Loss", "destroyed_in_retreat": True}, s)
    9
    >>> points_for_item({"result": "ATT Loss", "destroyed_in_retreat": False}, Settings(defender_earns_xp=False))
    0
    """
    result = Result.parse(item["result"])
    if result.side == "ATT" and not settings.defender_earns_xp:
        return 0
    if item["destroyed_in_retreat"] and settings.retreat_kill_counts:
        result = result.replace(RETREAT, DESTROYED)
    combine: Combine = settings.combined_xp
    return points_for(result, combine)


def compute(values: Mapping[str, Any]) -> dict[str, Any]:
    """Widget entry point."""
    settings = Settings.from_inputs(values["settings"])
    before = values["points"]
    breakdown = []
    gained = 0
    for item in values["results"]:
        each = points_for_item(item, settings)
        gained += each * item["count"]
        breakdown.append({"result": item["result"], "count": item["count"],
                          "destroyed_in_retreat": item["destroyed_in_retreat"],
                          "points_each": each, "points": each * item["count"]})
    points = before + gained
    level = level_for(points)
    nxt = next_threshold(points)
    attack, defence = EXPERIENCE_MODIFIERS.get(level, (0, 0))
    shown = EXPERIENCE_INPUTS.field("settings")
    assert isinstance(shown, Group)
    return {
        "points_before": before, "level_before": level_for(before),
        "points_gained": gained, "points": points, "level": level,
        "levels_gained": level - level_for(before),
        "next_level_at": nxt, "points_to_next": None if nxt is None else nxt - points,
        "attack_modifier": attack, "defence_modifier": defence,
        "thresholds": list(LEVEL_THRESHOLDS),
        "breakdown": breakdown,
        "assumptions": [assumption(f, values["settings"][f.name]) for f in shown.fields],
    }


def _line(b: Mapping[str, Any]) -> str:
    what = b["result"] + (" (destroyed in retreat)" if b["destroyed_in_retreat"] else "")
    return f"{what} × {b['count']}: {b['points_each']} each, {b['points']} in all"


def render(result: Mapping[str, Any]) -> str:
    """Widget entry point."""
    steps = [f"Points before: {result['points_before']} (level {result['level_before']})."]
    steps += [_line(b) for b in result["breakdown"]]
    steps.append(f"Points now: {result['points']}.")
    nxt = result["next_level_at"]
    figs = [
        {"label": "Experience points", "value": str(result["points"])},
        {"label": "Experience level", "value": f"{result['level']} (gained {result['levels_gained']})"},
        {"label": "Next level", "value": "none: level 4 is the last" if nxt is None
         else f"level {result['level'] + 1} at {nxt} points, {result['points_to_next']} to go"},
        {"label": "Modifier when it attacks", "value": present.signed(result["attack_modifier"])},
        {"label": "Modifier to attacks against it", "value": present.signed(result["defence_modifier"])},
    ]
    return (present.section("Points", present.steps(steps)) + present.figures(figs)
            + present.assumptions(result["assumptions"]))
