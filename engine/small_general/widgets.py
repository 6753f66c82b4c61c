"""Every Small General widget, declared in one place.

``small_general.combat`` gives the exact odds of one attack, with a seeded
sample; ``small_general.defender_choice`` ranks the units of a stack and
shows the attack on the one that defends; ``small_general.experience`` adds
up points for results caused and reads the level they give.

Inputs come from :mod:`engine.schema` fields and the settings dataclass
:class:`~.rules.Settings` (its groups made by :func:`engine.settings.rules_group`);
each ``compute`` calls the rules modules (:mod:`.combat`, :mod:`.defender_choice`,
:mod:`.experience`) and each ``render`` builds HTML with :mod:`engine.present`.

>>> s = Settings.from_inputs(SETTINGS.validate(None))
>>> s.artillery_limit, s.retreat_direction, s.combined_xp
('ceiling', 'among_friendly', 'sum')
>>> r = combat_compute(COMBAT_INPUTS.validate({"terrain": "forest", "attacker": {"experience_level": 3}}))
>>> r["total_modifier"], [m["source"] for m in r["modifiers"]]
(1, ['Landscape', 'Experience'])
>>> r["derived"]["defender_destroyed"]["p"]
'1/54'
>>> r = choice_compute(CHOICE_INPUTS.validate(None))
>>> r["chosen"]["name"], [c["measure"]["p"] for c in r["candidates"]]
('Rifles', ['3/8', '35/216'])
>>> r = experience_compute(EXPERIENCE_INPUTS.validate({"points": 9, "results": [{"result": "DEF Loss", "count": 1}]}))
>>> r["points"], r["level"], r["points_to_next"]
(13, 2, 7)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from .. import figures as fig
from .. import present
from ..dice import Dist, prob_json, roll
from ..schema import Boolean, Choice, Field, Group, InputError, Integer, ListOf, fraction_text
from ..settings import rules_group
from ..widgets import Widget, register
from .combat import Combat, Outcome, Unit, most_retreat_hexes, retreat_failure_chance
from .defender_choice import TIE_BREAKS, rank
from .experience import LEVEL_THRESHOLDS, POINTS_FOR_CAUSING, level_for, next_threshold, points_for
from .rules import (ATTACKER_STATES, ATTACKER_SUPPLIES, COMBAT_STATES, DEFENDER_STATES, DEFENDER_SUPPLIES, DESTROYED,
                    EXPERIENCE_MODIFIERS, LEVELS, LOSS, MAX_HEX_SIDES, MOVEMENTS, PANIC, RETREAT, TABLE_HIGH, TABLE_LOW,
                    TABLE_RESULTS, TERRAINS, ChoiceMeasure, Combine, Result, Settings)

__all__ = ["COMBAT", "DEFENDER_CHOICE", "EXPERIENCE", "COMBAT_INPUTS", "CHOICE_INPUTS", "EXPERIENCE_INPUTS",
           "UNIT_NAMES", "MAX_STRENGTH", "SETTINGS", "ALL_SETTINGS", "settings_group", "setting_field",
           "terrain_field", "hex_sides_field", "retreat_hexes_field", "combat_check", "attacker_group",
           "defender_fields", "defender_group", "defender_list", "DERIVED", "CAUSABLE", "combat_result",
           "render_combat", "assumption", "assumptions_for", "play", "points_for_item"]


# Inputs: unit names and settings groups --------------------------------------------

MAX_STRENGTH: Final = 30
"""Largest attack or defence value the form accepts."""


UNIT_NAMES: Final[tuple[str, ...]] = (
    "Rifles", "Guards", "Militia", "Engineers", "Cavalry", "Recon",
    "Tanks", "Panzers", "Guns", "Mortars", "Supply column", "HQ",
)
"""Names a unit of a stack can carry, only to tell the units apart (the core has no free-text field)."""


SETTINGS_HELP: Final = "Values the rulebook leaves open."
"""Help line of every Small General settings group."""

ALL_SETTINGS: Final = rules_group(Settings, "settings", SETTINGS_HELP, label="Settings")
"""Every setting, as the defender choice shows them."""

SETTINGS: Final = rules_group(Settings, "settings", SETTINGS_HELP, label="Settings",
                              only=tuple(f.name for f in ALL_SETTINGS.fields if f.name != "choice_measure"))
"""The settings group of the combat widget (all but the defender choice's measure)."""


def settings_group(*names: str) -> Group:
    """A settings group holding only the named settings, in that order.

    >>> [f.name for f in settings_group("combined_xp", "retreat_kill_counts").fields]
    ['combined_xp', 'retreat_kill_counts']
    """
    return rules_group(Settings, "settings", SETTINGS_HELP, label="Settings", only=names)


def setting_field(name: str) -> Field:
    """The declared field of one setting.

    >>> setting_field("combined_xp").default
    'sum'
    """
    return ALL_SETTINGS.field(name)


# Shared input fields ------------------------------------------------------------

def terrain_field() -> Choice:
    return Choice("terrain", "Landscape of the hex under attack; forest and town hinder foot attackers.",
                  "clear", choices=TERRAINS, label="Terrain")


def hex_sides_field() -> Integer:
    return Integer("hex_sides", "Different hex sides used against this hex so far, this attack included.",
                   1, minimum=1, maximum=MAX_HEX_SIDES, label="Hex sides used")


def retreat_hexes_field() -> Integer:
    return Integer("retreat_hexes", "Adjacent friendly hexes the defender could retreat into; "
                   "a hex an attack came from is never one.",
                   3, minimum=0, maximum=most_retreat_hexes(1), label="Free friendly hexes")


def combat_check(values: Mapping[str, Any]) -> None:
    """Every hex side attacked over borders an enemy unit's hex, so it leaves one hex fewer to retreat into.

    >>> combat_check({"hex_sides": 4, "retreat_hexes": 2})
    >>> combat_check({"hex_sides": 6, "retreat_hexes": 1})
    Traceback (most recent call last):
    ...
    engine.schema.InputError: retreat_hexes: attacks over all 6 hex sides leave the defender no free friendly ...
    """
    sides, free = values["hex_sides"], values["retreat_hexes"]
    most = most_retreat_hexes(sides)
    if free <= most:
        return
    if most == 0:
        raise InputError("retreat_hexes", f"attacks over all {sides} hex sides leave the defender no free "
                         "friendly hex; enter 0", "0")
    raise InputError("retreat_hexes", f"attacks over {sides} hex sides leave the defender at most {most} free "
                     f"friendly {'hex' if most == 1 else 'hexes'}; enter 0 to {most}", f"0 to {most}")


def attacker_group() -> Group:
    """The attacking unit."""
    return Group("attacker", "The unit that attacks and rolls the dice.", label="Attacker", fields=(
        Choice("movement", "Foot units attack worse into forest and town.", "foot",
               choices=MOVEMENTS, label="Movement"),
        Boolean("artillery", "Artillery never causes or takes losses when it attacks.", False,
                label="Artillery"),
        Choice("supply", "A supply problem hinders the attack.", "supplied",
               choices=ATTACKER_SUPPLIES, labels={"problem": "supply problem"}, label="Supply"),
        Integer("experience_level", "Levels 1 to 4 improve the attack.", 0,
                minimum=min(LEVELS), maximum=max(LEVELS), label="Experience level"),
        Choice("state", "A disrupted attacker fights worse.", "none",
               choices=ATTACKER_STATES, label="Combat state"),
        Integer("attack_value", "Used only if the unit strength setting adds values.", 1,
                minimum=0, maximum=MAX_STRENGTH, label="Attack value"),
    ))


def defender_fields() -> tuple[Field, ...]:
    """The fields of one defending unit."""
    return (
        Choice("movement", "Artillery attacks mechanized units at a penalty.", "foot",
               choices=MOVEMENTS, label="Movement"),
        Boolean("artillery", "Artillery defends with a value of 0 and, by default, inflicts no loss on its "
                "attacker.", False, label="Artillery"),
        Choice("supply", "Supply problems and being out of supply help the attacker.", "supplied",
               choices=DEFENDER_SUPPLIES, labels={"problem": "supply problem", "out": "out of supply"},
               label="Supply"),
        Integer("experience_level", "Levels 2 to 4 make the unit harder to hit.", 0,
                minimum=min(LEVELS), maximum=max(LEVELS), label="Experience level"),
        Choice("state", "Each combat state makes the unit easier to beat.", "none",
               choices=DEFENDER_STATES, label="Combat state"),
        Integer("defence_value", "Used only if the unit strength setting adds values; artillery counts 0.", 1,
                minimum=0, maximum=MAX_STRENGTH, label="Defence value"),
    )


def defender_group() -> Group:
    """The defending unit of a one-on-one combat."""
    return Group("defender", "The unit that defends the hex.", label="Defender", fields=defender_fields())


def defender_list(default: tuple[Mapping[str, Any], ...]) -> ListOf:
    return ListOf("defenders", "Every enemy unit in the attacked hex.", default,
                  item=Group("unit", "", label="Unit",
                             fields=(Choice("name", "A name to tell the units apart.", UNIT_NAMES[0],
                                            choices=UNIT_NAMES, label="Name"),
                                     *defender_fields())),
                  min_items=1, max_items=12, label="Units in the hex")


# small_general.combat ----------------------------------------------------------

COMBAT_INPUTS: Final = Group("inputs", "", fields=(
    terrain_field(),
    hex_sides_field(),
    attacker_group(),
    defender_group(),
    retreat_hexes_field(),
    Integer("other_units", "Enemy units that stay in the hex besides the defender.", 0,
            minimum=0, maximum=11, label="Other units in the hex"),
    SETTINGS,
))
"""Inputs of the ``small_general.combat`` widget."""


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


def combat_compute(values: Mapping[str, Any]) -> dict[str, Any]:
    """Widget entry point: validated inputs to the JSON result."""
    return combat_result(Combat.from_inputs(values))


def combat_key(values: Mapping[str, Any]) -> Combat:
    """What the result depends on (``Widget.result_key``): the combat, its units' values set aside unless a
    strength rule reads them (:meth:`Combat.essential`)."""
    return Combat.from_inputs(values).essential()


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


def combat_render(result: Mapping[str, Any]) -> str:
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


def combat_sample(values: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """Widget entry point: one seeded combat."""
    return {**play(Combat.from_inputs(values), random.Random(seed)), "seed": seed}


def combat_render_sample(result: Mapping[str, Any]) -> str:
    """Widget entry point: sample to HTML."""
    return (present.rolls(result["rolls"]) + present.steps(result["steps"])
            + present.note(f"Outcome: {result['outcome']}", "outcome"))


COMBAT: Widget = register(Widget(
    id="small_general.combat",
    title="Small General combat odds",
    inputs=COMBAT_INPUTS,
    compute=combat_compute,
    result_key=combat_key,
    render=combat_render,
    check=combat_check,
    sample=combat_sample,
    render_sample=combat_render_sample,
    description="Exact chances of every combat result, with modifiers, artillery, retreats and experience.",
    figures=(fig.prob("defender_destroyed", "P(defender destroyed)", "derived", "defender_destroyed"),
             fig.prob("defender_retreats", "P(defender retreats)", "derived", "defender_retreats"),
             fig.prob("defender_loss", "P(defender takes a loss)", "derived", "defender_loss"),
             fig.prob("attacker_loss", "P(attacker takes a loss)", "derived", "attacker_loss"),
             fig.prob("attacker_destroyed", "P(attacker destroyed)", "derived", "attacker_destroyed"),
             fig.prob("attacker_advances", "P(attacker advances)", "derived", "attacker_advances"),
             fig.prob("no_result", "P(no result)", "derived", "no_result"),
             fig.value("total_modifier", "Die modifier", "total_modifier")),
))


# small_general.defender_choice -------------------------------------------------

DEFAULT_STACK: Final[tuple[dict[str, Any], ...]] = (
    {"name": "Supply column", "movement": "mechanized", "artillery": False, "supply": "problem",
     "experience_level": 0, "state": "none", "defence_value": 1},
    {"name": "Rifles", "movement": "foot", "artillery": False, "supply": "supplied",
     "experience_level": 2, "state": "disrupted", "defence_value": 1},
)

CHOICE_INPUTS: Final = Group("inputs", "", fields=(
    terrain_field(),
    hex_sides_field(),
    attacker_group(),
    defender_list(DEFAULT_STACK),
    retreat_hexes_field(),
    ALL_SETTINGS,
))
"""Inputs of the ``small_general.defender_choice`` widget."""


def _candidates(values: Mapping[str, Any]) -> list[tuple[str, Combat]]:
    settings = Settings.from_inputs(values["settings"])
    attacker = Unit.from_inputs(values["attacker"])
    units = values["defenders"]
    names = [u["name"] for u in units]
    out = []
    for i, u in enumerate(units):
        name = u["name"] if names.count(u["name"]) == 1 else f"{u['name']} (#{i + 1})"
        out.append((name, Combat(values["terrain"], values["hex_sides"], attacker, Unit.from_inputs(u),
                                 values["retreat_hexes"], len(units) - 1, settings)))
    return out


def _measure_json(measure: ChoiceMeasure, value: Fraction) -> dict[str, Any]:
    if measure == "attacker_xp":
        return {"value": f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value),
                "float": float(value)}
    return prob_json(value)


def choice_compute(values: Mapping[str, Any]) -> dict[str, Any]:
    """Widget entry point: every candidate's odds and the one that defends."""
    named = _candidates(values)
    measure = Settings.from_inputs(values["settings"]).choice_measure
    ranking = rank([c for _, c in named], measure)
    best = ranking[0][0]
    candidates = []
    for place, (i, value, destroyed, att_hit) in enumerate(ranking):
        c = named[i][1]
        candidates.append({"index": i, "name": named[i][0], "place": place + 1, "chosen": i == best,
                           "total_modifier": c.total_modifier, "measure": _measure_json(measure, value),
                           "defender_destroyed": prob_json(destroyed), "attacker_hit": prob_json(att_hit)})
    candidates.sort(key=lambda c: c["index"])
    chosen = combat_result(named[best][1])
    field = ALL_SETTINGS.field("choice_measure")
    chosen["assumptions"] = [assumption(field, measure), *chosen["assumptions"]]
    return {
        "measure": {"setting": measure, "label": field.label_for(measure), "lower_is_better": True},
        "tie_breaks": list(TIE_BREAKS),
        "candidates": candidates,
        "chosen": {"index": best, "name": named[best][0]},
        "combat": chosen,
        "assumptions": chosen["assumptions"],
    }


def _choice_value_text(v: Mapping[str, Any], measure: str) -> str:
    if measure == "attacker_xp":
        return v["value"] if "/" not in v["value"] else f"{v['value']} ≈ {v['float']:.2f}"
    return f"{v['p']} ({present.percent(v['float'])})"


def _chosen_row(result: Any) -> Fraction | None:
    """The defending unit's row as the form numbers the list, from 1 (the result's ``index`` counts from 0)."""
    index = fig.exact((result.get("chosen") or {}).get("index")) if isinstance(result, Mapping) else None
    return None if index is None else index + 1


def choice_render(result: Mapping[str, Any]) -> str:
    """Widget entry point: the ranking table, then the chosen unit's combat."""
    m = result["measure"]
    head = ("<tr><th scope=\"col\">Unit</th><th scope=\"col\" class=\"num\">Modifier</th>"
            f"<th scope=\"col\" class=\"num\">{present.esc(m['label'])}</th>"
            "<th scope=\"col\" class=\"num\">Destroyed</th><th scope=\"col\" class=\"num\">Attacker hit</th>"
            "<th scope=\"col\">Defends?</th></tr>")
    rows = []
    for c in result["candidates"]:
        mark = "defends" if c["chosen"] else f"place {c['place']}"
        klass = ' class="chosen"' if c["chosen"] else ""
        rows.append(f'<tr{klass}><th scope="row">{present.esc(c["name"])}</th>'
                    f'<td class="num">{present.esc(present.signed(c["total_modifier"]))}</td>'
                    f'<td class="num">{present.esc(_choice_value_text(c["measure"], m["setting"]))}</td>'
                    f'<td class="num">{present.esc(_choice_value_text(c["defender_destroyed"], ""))}</td>'
                    f'<td class="num">{present.esc(_choice_value_text(c["attacker_hit"], ""))}</td>'
                    f'<td>{present.esc(mark)}</td></tr>')
    table = (f'<table class="candidates"><caption>Units in the hex: the lowest value defends</caption>'
             f'<thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>')
    ties = present.note("Ties go to " + ", then to ".join(result["tie_breaks"]) + ".")
    chosen = result["chosen"]["name"]
    return (present.section("Who defends", table + ties)
            + render_combat(result["combat"], f"Result of the attack on {chosen}"))


def choice_sample(values: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """Widget entry point: one seeded attack on the unit that defends."""
    named = _candidates(values)
    ranking = rank([c for _, c in named], Settings.from_inputs(values["settings"]).choice_measure)
    name, combat = named[ranking[0][0]]
    played = play(combat, random.Random(seed))
    played["steps"].insert(0, f"{name} defends the hex.")
    return {**played, "defender": name, "seed": seed}


def choice_render_sample(result: Mapping[str, Any]) -> str:
    """Widget entry point: sample to HTML."""
    return (present.rolls(result["rolls"]) + present.steps(result["steps"])
            + present.note(f"Outcome: {result['outcome']}", "outcome"))


DEFENDER_CHOICE: Widget = register(Widget(
    id="small_general.defender_choice",
    title="Which unit defends the hex",
    inputs=CHOICE_INPUTS,
    compute=choice_compute,
    render=choice_render,
    check=combat_check,
    sample=choice_sample,
    render_sample=choice_render_sample,
    description="Ranks the units of a stack by their chance to stand up to an attack; the best one fights.",
    figures=(fig.Figure("chosen", "Defending unit (its row in the list)", _chosen_row, ""),
             fig.prob("defender_destroyed", "P(defender destroyed)", "combat", "derived", "defender_destroyed"),
             fig.prob("attacker_loss", "P(attacker takes a loss)", "combat", "derived", "attacker_loss"),
             fig.value("total_modifier", "Die modifier", "combat", "total_modifier")),
))


# small_general.experience ------------------------------------------------------

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


def experience_check(values: Mapping[str, Any]) -> None:
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


def experience_compute(values: Mapping[str, Any]) -> dict[str, Any]:
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


def _experience_line(b: Mapping[str, Any]) -> str:
    what = b["result"] + (" (destroyed in retreat)" if b["destroyed_in_retreat"] else "")
    return f"{what} × {b['count']}: {b['points_each']} each, {b['points']} in all"


def experience_render(result: Mapping[str, Any]) -> str:
    """Widget entry point."""
    steps = [f"Points before: {result['points_before']} (level {result['level_before']})."]
    steps += [_experience_line(b) for b in result["breakdown"]]
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


EXPERIENCE: Widget = register(Widget(
    id="small_general.experience",
    title="Experience points and levels",
    inputs=EXPERIENCE_INPUTS,
    compute=experience_compute,
    render=experience_render,
    check=experience_check,
    description="Points for the results a unit caused, its level and the points it needs for the next one.",
    figures=(fig.value("points", "Experience points", "points", unit="points"),
             fig.value("level", "Level", "level"),
             fig.value("points_to_next", "Points to the next level", "points_to_next", unit="points"),
             fig.value("attack_modifier", "Attack modifier", "attack_modifier"),
             fig.value("defence_modifier", "Defence modifier", "defence_modifier")),
))
