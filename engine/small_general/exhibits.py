"""Printed Small General tables as HTML, made from the engine's data.

Pages place them with ``::: exhibit small_general.<name>`` blocks; nothing
here is typed twice.

>>> "<caption>" in combat_table() and combat_table().count("<tr>") == 17
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from ..dice import prob_json
from ..present import esc, percent, signed
from .combat import DICE, Unit, apply_artillery_rule
from .experience import LEVEL_THRESHOLDS, POINTS_FOR_CAUSING
from .rules import (ARTILLERY_VS_MECHANIZED, ATTACKER_STATE, ATTACKER_SUPPLY, DEFENDER_STATE, DEFENDER_SUPPLY,
                    EXPERIENCE_MODIFIERS, LANDSCAPE_FOOT_ATTACK, SIMULTANEOUS_ATTACK, TABLE_RESULTS, Settings)
from .widgets import setting_field

__all__ = ["EXHIBITS", "combat_table", "modifier_table", "artillery_table", "experience_points_table",
           "experience_levels_table"]


def _table(caption: str, head: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "exhibit") -> str:
    """A semantic table: the first cell of each row is its header."""
    th = "".join(f'<th scope="col">{esc(h)}</th>' for h in head)
    body = "".join("<tr>" + f'<th scope="row">{esc(r[0])}</th>' + "".join(f"<td>{esc(c)}</td>" for c in r[1:])
                   + "</tr>" for r in rows)
    return f'<table class="{esc(cls)}"><caption>{esc(caption)}</caption><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def combat_table() -> str:
    """The combat table, with the chance of each row on an unmodified roll."""
    rows = []
    for row, result in TABLE_RESULTS.items():
        p = prob_json(DICE.probability(row))
        falls_on = "neither side" if result.side is None else result.falls_on
        rows.append((str(row), result.name, falls_on, f"{p['p']} ({percent(p['float'])})"))
    return _table("Combat table (3d6 plus modifiers)",
                  ("Modified roll", "Result", "Falls on", "Chance with no modifier"), rows)


def modifier_table() -> str:
    """Every modifier to the attacker's roll, grouped by the rule that gives it."""
    rows: list[tuple[str, str, str]] = []
    for terrain, v in LANDSCAPE_FOOT_ATTACK.items():
        rows.append(("Landscape", f"Attacker with foot movement, hex is {terrain}", signed(v)))
    for supply, v in ATTACKER_SUPPLY.items():
        rows.append(("Supply state", f"Attacker: supply {supply}", signed(v)))
    for supply, v in DEFENDER_SUPPLY.items():
        rows.append(("Supply state", "Defender: out of supply" if supply == "out" else f"Defender: supply {supply}",
                     signed(v)))
    for level, (att, dfn) in EXPERIENCE_MODIFIERS.items():
        rows.append(("Experience", f"Attacker at level {level}", signed(att)))
    for level, (att, dfn) in EXPERIENCE_MODIFIERS.items():
        if dfn:
            rows.append(("Experience", f"Defender at level {level}", signed(dfn)))
    for state, v in ATTACKER_STATE.items():
        rows.append(("Combat state", f"Attacker {state}", signed(v)))
    for state, v in DEFENDER_STATE.items():
        rows.append(("Combat state", f"Defender {state}", signed(v)))
    for sides, v in SIMULTANEOUS_ATTACK.items():
        rows.append(("Simultaneous attack", f"{sides} different hex sides used", signed(v)))
    rows.append(("Artillery versus mechanized", "Artillery attacks a unit with mechanized movement",
                 signed(ARTILLERY_VS_MECHANIZED)))
    return _table("Modifiers to the attacker's 3d6 roll", ("Rule", "When", "Modifier"), rows)


ARTILLERY_LIMITS: Final = ("ceiling", "strike", "cap", "strike_all")


def artillery_table() -> str:
    """What each table result becomes when artillery attacks, under each reading."""
    arty = Unit("foot", True, "supplied", 0, "none")
    target = Unit("foot", False, "supplied", 0, "none")
    field = setting_field("artillery_limit")
    head = ["Modified roll", "Printed result"] + [f"{field.label_for(k)}" for k in ARTILLERY_LIMITS]  # type: ignore[attr-defined]
    rows = []
    for row, printed in TABLE_RESULTS.items():
        applied = [apply_artillery_rule(printed, arty, target, Settings(artillery_limit=k)).name
                   for k in ARTILLERY_LIMITS]
        if any(a != printed.name for a in applied):
            rows.append((str(row), printed.name, *applied))
    return _table("Results an attacking artillery unit gets instead (rows that change)", head, rows)


def experience_points_table() -> str:
    """Points for causing each kind of result."""
    words = {"Disrupted": "Disruption", "Shocked": "Shocked", "Panick": "Panic", "Loss": "A loss",
             "Destroyed": "A kill (destroyed)"}
    rows = [(words[e], str(p)) for e, p in POINTS_FOR_CAUSING.items()]
    return _table("Experience points for causing a result", ("Result caused", "Points"), rows)


def experience_levels_table() -> str:
    """Points needed for each level and what the level does in combat."""
    rows = [("0", "0", "0", "0")]
    for level, needed in enumerate(LEVEL_THRESHOLDS, start=1):
        att, dfn = EXPERIENCE_MODIFIERS[level]
        rows.append((str(level), str(needed), signed(att), signed(dfn)))
    return _table("Experience levels", ("Level", "Points needed", "When it attacks", "When it is attacked"), rows)


EXHIBITS: Final = {
    "small_general.combat_table": combat_table,
    "small_general.modifiers": modifier_table,
    "small_general.artillery_results": artillery_table,
    "small_general.experience_points": experience_points_table,
    "small_general.experience_levels": experience_levels_table,
}
"""Exhibit id -> function returning its HTML."""
