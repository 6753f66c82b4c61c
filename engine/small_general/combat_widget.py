"""The ``small_general.combat`` widget: exact odds of one attack, and a seeded sample.

>>> r = compute(COMBAT_INPUTS.validate({"terrain": "forest", "attacker": {"experience_level": 3}}))
>>> r["total_modifier"], [m["source"] for m in r["modifiers"]]
(1, ['Landscape', 'Experience'])
>>> r["derived"]["defender_destroyed"]["p"]
'1/54'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from .. import present
from ..dice import Dist, prob_json, roll
from ..schema import Boolean, Choice, Field, fraction_text
from .combat import COMBAT_INPUTS, Combat, Outcome, retreat_failure_chance  # noqa: F401 (doctest)
from .experience import POINTS_FOR_CAUSING
from .inputs import SETTINGS
from .rules import (COMBAT_STATES, DESTROYED, LOSS, RETREAT, TABLE_HIGH, TABLE_LOW, TABLE_RESULTS, Result)

__all__ = ["compute", "render", "sample", "render_sample", "combat_result", "render_combat",
           "DERIVED", "assumptions_for", "play"]


# Derived figures ----------------------------------------------------------------

@dataclass(frozen=True)
class Figure:
    """A chance a player wants, read off the outcomes."""

    key: str
    """Key in the result's ``derived`` object."""
    label: str
    """What the chance is of."""
    holds: Callable[[Combat, Outcome], bool]
    """True for the outcomes that count."""
    optional: bool = False
    """Shown only when its chance is above zero."""


def _def(o: Outcome) -> Result | None:
    return o.final if o.final.side == "DEF" else None


def _att(o: Outcome) -> Result | None:
    return o.final if o.final.side == "ATT" else None


DERIVED: Final[tuple[Figure, ...]] = (
    Figure("defender_loss", "Defender loses a step or is destroyed",
           lambda c, o: bool((r := _def(o)) and r.has(LOSS, DESTROYED))),
    Figure("defender_retreat_result", "Result orders the defender to retreat",
           lambda c, o: o.applied.side == "DEF" and o.applied.has(RETREAT)),
    Figure("defender_retreats", "Defender retreats and survives the retreat",
           lambda c, o: bool((r := _def(o)) and r.has(RETREAT))),
    Figure("defender_destroyed", "Defender is destroyed (any cause)",
           lambda c, o: bool((r := _def(o)) and r.has(DESTROYED))),
    Figure("defender_destroyed_in_retreat", "Defender is destroyed for want of a free friendly hex",
           lambda c, o: o.retreat_failed and o.final.has(DESTROYED)),
    Figure("defender_blocked", "Defender has no hex to retreat to and stays (artillery)",
           lambda c, o: o.retreat_failed and not o.final.has(DESTROYED), optional=True),
    Figure("defender_state", "Defender survives with a combat state",
           lambda c, o: bool((r := _def(o)) and r.has(*COMBAT_STATES) and not r.has(DESTROYED))),
    Figure("no_result", "Nothing happens to either side",
           lambda c, o: o.final.side is None),
    Figure("attacker_state", "Attacker gets a combat state",
           lambda c, o: bool((r := _att(o)) and r.has(*COMBAT_STATES) and not r.has(DESTROYED))),
    Figure("attacker_loss", "Attacker loses a step or is destroyed",
           lambda c, o: bool((r := _att(o)) and r.has(LOSS, DESTROYED))),
    Figure("attacker_destroyed", "Attacker is destroyed",
           lambda c, o: bool((r := _att(o)) and r.has(DESTROYED))),
    Figure("attacker_advances", "Hex is emptied and the attacker moves in",
           lambda c, o: c.hex_emptied(o)),
)
"""Chances derived from the outcomes, in display order."""


def _expected(p: Fraction) -> dict[str, Any]:
    return {"value": fraction_text(p), "float": float(p)}


def _points_text(e: Mapping[str, Any]) -> str:
    exact = e["value"]
    return f"{exact} points" if "/" not in exact else f"{exact} ≈ {e['float']:.2f} points"


# Assumptions ------------------------------------------------------------------------

def _setting_value(f: Field, value: Any) -> str:
    if isinstance(f, Boolean):
        return "yes" if value else "no"
    if isinstance(f, Choice):
        return f.label_for(value)
    return str(value)


def assumption(f: Field, value: Any, path: str = "settings") -> dict[str, str]:
    """One entry of a result's ``assumptions`` list."""
    return {"setting": f"{path}.{f.name}", "value": _setting_value(f, value), "note": f.assumed}


def assumptions_for(combat: Combat, outcomes: Dist[Outcome]) -> list[dict[str, str]]:
    """The settings that shape this result (the others would not change it)."""
    s = combat.settings
    has_retreat = outcomes.p_where(lambda o: o.applied.side == "DEF" and o.applied.has(RETREAT)) > 0
    multi = outcomes.p_where(lambda o: sum(1 for e in o.final.effects if e in POINTS_FOR_CAUSING) > 1) > 0
    att = outcomes.p_where(lambda o: o.final.side == "ATT") > 0
    relevant = {
        "beyond_table": combat.total_modifier != 0,
        "artillery_limit": combat.attacker.artillery or (combat.defender.artillery and s.defending_artillery),
        "defending_artillery": combat.defender.artillery,
        "strength_rule": True,
        "retreat_direction": has_retreat,
        "artillery_retreat_kills": combat.attacker.artillery and outcomes.p_where(lambda o: o.retreat_failed) > 0,
        "retreat_kill_counts": outcomes.p_where(lambda o: o.retreat_failed and o.final.has(DESTROYED)) > 0,
        "combined_xp": multi,
        "defender_earns_xp": att,
        "stack_shares_result": combat.other_units > 0 and has_retreat,
    }
    return [assumption(f, getattr(s, f.name)) for f in SETTINGS.fields if relevant.get(f.name)]


# The result ---------------------------------------------------------------------------

FIRST_ROW: Final[Mapping[str, int]] = {r.name: row for row, r in reversed(TABLE_RESULTS.items())}
"""Where each printed result first appears on the table."""


def _grouped_outcomes(combat: Combat) -> list[dict[str, Any]]:
    """One entry per result that can apply, in table order.

    A result the table prints sits at its first printed row; one that only the
    artillery rule makes (``DEF Retreat``) sits at the first row that makes it.
    """
    rows = combat.rows()
    groups: dict[str, dict[str, Any]] = {}
    for row in range(TABLE_LOW, TABLE_HIGH + 1):
        applied = combat.applied(row)
        g = groups.setdefault(applied.name, {"result": applied.name, "printed": [], "rows": [],
                                              "side": applied.falls_on, "_p": Fraction(0),
                                              "_at": FIRST_ROW.get(applied.name, row)})
        if TABLE_RESULTS[row].name not in g["printed"]:
            g["printed"].append(TABLE_RESULTS[row].name)
        g["rows"].append(row)
        g["_p"] += rows.probability(row)
    ordered = sorted(groups.values(), key=lambda g: g["_at"])
    return [{**{k: v for k, v in g.items() if not k.startswith("_")}, **prob_json(g["_p"])} for g in ordered]


def _failed_text(o: Outcome) -> str:
    return ": no free friendly hex, " + ("destroyed" if o.final.has(DESTROYED) else "stays in place")


def _after_retreat(combat: Combat, outcomes: Dist[Outcome]) -> list[dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for o, p in outcomes.probabilities().items():
        name = o.applied.name + (_failed_text(o) if o.retreat_failed else "")
        g = groups.setdefault(name, {"result": name, "side": o.final.falls_on, "_p": Fraction(0), "_row": o.row})
        g["_p"] += p
    ordered = sorted(groups.values(), key=lambda g: (g["_row"], g["result"]))
    return [{"result": g["result"], "side": g["side"], **prob_json(g["_p"])} for g in ordered]


def combat_result(combat: Combat) -> dict[str, Any]:
    """The JSON result of one combat (shared by the combat and defender-choice widgets)."""
    outcomes = combat.outcomes()
    rows = combat.rows()
    derived: dict[str, Any] = {f.key: prob_json(outcomes.p_where(lambda o, f=f: f.holds(combat, o)))
                               for f in DERIVED}
    derived["attacker_xp_expected"] = _expected(outcomes.map(lambda o: combat.xp(o)[0]).mean())
    derived["defender_xp_expected"] = _expected(outcomes.map(lambda o: combat.xp(o)[1]).mean())
    return {
        "modifiers": [m.to_json() for m in combat.modifiers()],
        "total_modifier": combat.total_modifier,
        "outcomes": _grouped_outcomes(combat),
        "rows": [{"row": r, "printed": TABLE_RESULTS[r].name, "result": combat.applied(r).name,
                  **prob_json(rows.probability(r))} for r in range(TABLE_LOW, TABLE_HIGH + 1)],
        "retreat_failure": prob_json(retreat_failure_chance(combat.retreat_hexes, combat.settings)),
        "after_retreat": _after_retreat(combat, outcomes),
        "derived": derived,
        "after_combat": after_combat_notes(combat),
        "assumptions": assumptions_for(combat, outcomes),
    }


def after_combat_notes(combat: Combat) -> list[str]:
    """What happens after the roll, whatever the result."""
    notes = ["Both units took part in the combat, so each loses all movement points it has left "
             "(the defender too, if it survives)."]
    if combat.other_units and not combat.settings.stack_shares_result:
        notes.append(f"{combat.other_units} other enemy unit(s) stay in the hex, so the attacker cannot move in.")
    else:
        notes.append("If the defender retreats or is destroyed the hex is empty and the attacker moves in at once.")
    return notes


def compute(values: Mapping[str, Any]) -> dict[str, Any]:
    """Widget entry point: validated inputs to the JSON result."""
    return combat_result(Combat.from_inputs(values))


# HTML ---------------------------------------------------------------------------------

def _label(o: Mapping[str, Any]) -> str:
    others = [p for p in o["printed"] if p != o["result"]]
    return o["result"] + (f" (table: {', '.join(others)})" if others else "")


def render_combat(result: Mapping[str, Any], caption: str = "Result of the attack") -> str:
    """HTML of a combat result (also used for the chosen defender)."""
    d = result["derived"]
    parts = [present.modifiers(result["modifiers"], result["total_modifier"]),
             present.distribution([{**o, "result": _label(o)} for o in result["outcomes"]], caption)]
    if result["retreat_failure"]["float"] > 0 and d["defender_retreat_result"]["float"] > 0:
        parts.append(present.distribution(result["after_retreat"], "After retreats are made"))
    figs: list[dict[str, Any]] = [{"label": f.label, **d[f.key]} for f in DERIVED
                                  if not f.optional or d[f.key]["float"] > 0]
    figs.append({"label": "Experience the attacker can expect", "value": _points_text(d["attacker_xp_expected"])})
    figs.append({"label": "Experience the defender can expect", "value": _points_text(d["defender_xp_expected"])})
    parts.append(present.section("Key figures", present.figures(figs)))
    parts.append(present.section("After combat", present.steps(result["after_combat"], ordered=False)))
    parts.append(present.assumptions(result["assumptions"]))
    return "".join(parts)


def render(result: Mapping[str, Any]) -> str:
    """Widget entry point: result to HTML."""
    return render_combat(result)


# Seeded sample ------------------------------------------------------------------------

def play(combat: Combat, rng: random.Random) -> dict[str, Any]:
    """Fight one combat with ``rng``: the dice, the row, the result, the retreat and the points."""
    dice_roll = roll(rng, 3, 6, "combat (3d6)")
    modifier = combat.total_modifier
    total = dice_roll.total + modifier
    row = min(max(total, TABLE_LOW), TABLE_HIGH)
    applied = combat.applied(row)
    steps = [f"Rolled {dice_roll.total} on 3d6; modifiers {present.signed(modifier)} give {total}."
             if modifier else f"Rolled {dice_roll.total} on 3d6; no modifier applies."]
    if row != total:
        steps.append(f"{total} is off the table, so row {row} is read.")
    steps.append(f"Row {row} of the table: {TABLE_RESULTS[row].name}.")
    if applied != TABLE_RESULTS[row]:
        steps.append(f"The artillery rule turns it into: {applied.name}.")
    rolls = [dice_roll.to_json()]
    retreat: dict[str, Any] | None = None
    failed = False
    if applied.side == "DEF" and applied.has(RETREAT):
        retreat, failed, retreat_rolls, text = _retreat(combat, rng)
        rolls.extend(retreat_rolls)
        steps.append(text)
    outcome = Outcome(row, applied, failed, combat.failed_retreat_becomes())
    if retreat is not None:
        retreat["destroyed"] = outcome.final.has(DESTROYED)
    if failed:
        steps.append("It is destroyed instead." if outcome.final.has(DESTROYED)
                     else "Artillery may not destroy it, so it stays in place instead.")
    xp_att, xp_def = combat.xp(outcome)
    if xp_att or xp_def:
        steps.append(f"Experience: attacker +{xp_att}, defender +{xp_def}.")
    advance = combat.hex_emptied(outcome)
    steps.append("The hex is empty: the attacker moves in." if advance
                 else "The attacker stays where it is.")
    steps.append(_moves_left_text(outcome.final))
    return {"rolls": rolls, "steps": steps, "outcome": applied.name + (_failed_text(outcome) if failed else ""),
            "faces": list(dice_roll.faces), "modifier": modifier, "total": total, "row": row,
            "printed": TABLE_RESULTS[row].name, "result": applied.name, "retreat": retreat,
            "xp": {"attacker": xp_att, "defender": xp_def}, "advance": advance}


def _moves_left_text(final: Result) -> str:
    """Every unit that took part in the combat and survives has no movement points left."""
    if final.has(DESTROYED):
        survivor = "defender" if final.side == "ATT" else "attacker"
        return f"The {survivor} has no movement points left this turn."
    return "Neither unit has any movement points left this turn."


def _retreat(combat: Combat, rng: random.Random) -> tuple[dict[str, Any], bool, list[dict[str, Any]], str]:
    """Roll the retreat: (details, whether it failed, rolls made, one step of text)."""
    free = combat.retreat_hexes
    if free == 0:
        return ({"direction": None, "free_hexes": 0}, True, [], "No free friendly hex: the unit cannot retreat.")
    if combat.settings.retreat_direction == "six_directions":
        r = roll(rng, 1, 6, "retreat direction (1d6)")
        failed = r.total > free
        text = (f"Retreat direction {r.total}: directions 1 to {free} stand for the free friendly hexes, "
                + ("so the unit has nowhere to go." if failed else "so it retreats there."))
        return {"direction": r.total, "free_hexes": free}, failed, [r.to_json()], text
    r = roll(rng, 1, free, f"retreat hex (1 of {free} free friendly)")
    return ({"direction": r.total, "free_hexes": free}, False, [r.to_json()],
            f"The unit retreats into free friendly hex {r.total} of {free}.")


def sample(values: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """Widget entry point: one seeded combat."""
    return {**play(Combat.from_inputs(values), random.Random(seed)), "seed": seed}


def render_sample(result: Mapping[str, Any]) -> str:
    """Widget entry point: sample to HTML."""
    return (present.rolls(result["rolls"]) + present.steps(result["steps"])
            + present.note(f"Outcome: {result['outcome']}", "outcome"))
