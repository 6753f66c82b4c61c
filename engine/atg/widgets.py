"""Every Advanced Tactics Gold widget, declared in one place.

Calculators for the loop's parts (exact, with ``Fraction`` results) and
``atg.battle``, one seeded battle told round by round, and a Monte Carlo
estimate of many (``battle_trial``, ``battle_render_tally``).

>>> from engine.widgets import get
>>> get("atg.hit_chance").run({"attack": "30", "hit_points": "20"})["hit"]["p"]
'2/3'
>>> get("atg.concentric").run({"sides": 3})["factor"]
'3/2'

The battle's unit-type editor makes each :class:`~.units.UnitType` one row of
plain fields (attack points and favourite scores get one column per target
group), so the list is edited as a table. :func:`unit_type` reads a validated
row back; the illustrative roster survives the round trip unchanged:

>>> all(unit_type(UNIT_TYPE.validate(type_row(t))) == t for t in ROSTER_ORDER)
True
>>> type_row(ROSTER["Tank"])["attack_hard"], type_row(ROSTER["Tank"])["attack_air"]
(30, 0)
>>> check_types(UNIT_TYPES.coerce([type_row(ROSTER["Tank"]), type_row(ROSTER["Tank"])], "unit_types"))
Traceback (most recent call last):
...
engine.schema.InputError: unit_types.1.name: unit type row 2 is named 'Tank' like row 1; each type needs its own name
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Final

from .. import figures as fig
from .. import exactcheck, montecarlo, present
from ..dice import prob_json
from ..schema import (Boolean, Choice, Field, Group, InputError, Integer, ListOf, Number, Text, fraction_text, jsonable,
                      to_text)
from ..settings import Watched, rules_from, rules_group
from ..widgets import Widget, register
from . import parts
from .endings import ENDINGS
from .loop import WORK_LIMIT, BattleTooBig, Outcome, fight
from .narrate import ENDING_TEXT, narrate
from .rules import KEPT_RULES, Rules, concentric_values
from .setup import COMBAT_TYPES, TAKES_HEX, AASupport, Interceptor, Setup, Unit, UnitState
from .units import ILLUSTRATIVE, LANDSCAPES, ROSTER, ROSTER_ORDER, TARGET_GROUPS, UnitType

__all__ = ["WIDGETS", "RULES_GROUP", "rules_subset", "assumed_notes", "battle_setup", "battle_check", "battle_trial",
           "battle_render_tally", "BATTLE_TRIALS", "UNIT_TYPE", "UNIT_TYPES", "NAME_LENGTH", "type_row", "unit_type",
           "roster_from", "check_types", "check_type_name"]

RULES_GROUP: Final = rules_group(Rules, "rules", "Rule variables", label="Rule variables")
"""The schema group of :class:`~.rules.Rules`, for forms and links."""


def rules_subset(*names: str) -> Group:
    """A settings group holding some of the rule variables (each with its help, range and note)."""
    return Group("rules", "Rule variables this calculator reads.", label="Rule variables",
                 fields=tuple(RULES_GROUP.field(n) for n in names))


def _rules(values: Mapping[str, Any]) -> Rules:
    return Rules(**dict(values))


def _assumptions(values: Mapping[str, Any]) -> list[dict[str, str]]:
    out = []
    for name, value in values.items():
        f = RULES_GROUP.field(name)
        if f.assumed:
            out.append({"setting": name, "value": to_text(value), "note": f.assumed})
    return out


def assumed_notes(rules: Rules) -> list[dict[str, str]]:
    """Every assumed setting with its value and note, for a result's assumptions list."""
    out = []
    for f in RULES_GROUP.fields:
        if f.assumed:
            value = getattr(rules, f.name)
            out.append({"setting": f.name, "value": to_text(value), "note": f.assumed})
    return out


def _frac(x: Any) -> str:
    return fraction_text(Fraction(x))


# atg.hit_chance ----------------------------------------------------------------------------------------------

HIT_INPUTS: Final = Group("inputs", "", fields=(
    Number("attack", "Attack score after every modifier.", Fraction(20), minimum=0, maximum=100000, label="Attack"),
    Number("hit_points", "Hit points after every modifier.", Fraction(20), minimum=0, maximum=100000,
           label="Hit points"),
    Integer("kill", "Attacker type's kill percent.", 30, minimum=0, maximum=100, label="Kill %"),
    Integer("retreat", "Attacker type's retreat percent.", 40, minimum=0, maximum=100, label="Retreat %"),
    rules_subset("randomisation", "tie_reading"),
))


def hit_compute(v: Mapping[str, Any]) -> dict[str, Any]:
    a, h = v["attack"], v["hit_points"]
    r = v["rules"]
    p = parts.hit_chance(a, h, randomisation=r["randomisation"], tie_reading=r["tie_reading"])
    k, rt, pin = parts.result_chances(v["kill"], v["retreat"])
    readings = [{"randomisation": ra, "tie_reading": ti,
                 "p": prob_json(parts.hit_chance(a, h, randomisation=ra, tie_reading=ti))}
                for ra in ("continuous", "whole") for ti in ("strict", "ties_to_attacker")]
    return {"hit": prob_json(p), "kill": prob_json(p * k), "retreat": prob_json(p * rt), "pinned": prob_json(p * pin),
            "miss": prob_json(1 - p), "steps": parts.hit_chance_steps(a, h, randomisation=r["randomisation"],
                                                                    tie_reading=r["tie_reading"]),
            "readings": readings, "assumptions": _assumptions(r)}


def hit_render(res: Mapping[str, Any]) -> str:
    dist = [{"result": name, "side": side, **res[key]} for name, key, side in
            (("kill", "kill", "attacker"), ("retreat hit", "retreat", "attacker"), ("pinned hit", "pinned", "attacker"),
             ("miss", "miss", "defender"))]
    rows = "".join(f"<tr><th scope='row'>{present.esc(x['randomisation'])}, {present.esc(x['tie_reading'])}</th>"
                   f"<td class='num frac'>{present.esc(x['p']['p'])}</td>"
                   f"<td class='num pct'>{present.esc(present.percent(x['p']['float']))}</td></tr>"
                   for x in res["readings"])
    table = ("<table class='dist'><caption>Hit chance under each reading</caption><thead><tr><th scope='col'>Reading"
             "</th><th scope='col' class='num'>Exact</th><th scope='col' class='num'>Percent</th></tr></thead>"
             f"<tbody>{rows}</tbody></table>")
    return (present.figures([{"label": "Chance of a hit", **res["hit"]}])
            + present.section("Derivation", present.steps(res["steps"]))
            + present.distribution(dist, "Result of one attack") + table + present.assumptions(res["assumptions"]))


# atg.experience -------------------------------------------------------------------------------------------------

XP_INPUTS: Final = Group("inputs", "", fields=(
    Integer("attacker_power", "Power points of the attacking individual's type.", 10, minimum=1, maximum=10000,
            label="Attacker power points"),
    Integer("target_power", "Power points of the target's type.", 10, minimum=0, maximum=10000,
            label="Target power points"),
    rules_subset("experience_min", "experience_max", "kill_xp", "retreat_xp", "pinned_xp"),
))


def xp_compute(v: Mapping[str, Any]) -> dict[str, Any]:
    r = v["rules"]
    mod = parts.experience_modifier(Fraction(v["target_power"]), Fraction(v["attacker_power"]),
                                    r["experience_min"], r["experience_max"])
    return {"modifier": _frac(mod), "ratio": _frac(Fraction(v["target_power"], v["attacker_power"])),
            "gains": {k: _frac(r[f"{k}_xp"] * mod) for k in ("kill", "retreat", "pinned")},
            "assumptions": _assumptions(r)}


def xp_render(res: Mapping[str, Any]) -> str:
    figs = [{"label": "Power point ratio (target / attacker)", "value": res["ratio"]},
            {"label": "Experience modifier (within the bounds)", "value": res["modifier"]}]
    figs += [{"label": f"Experience for a {k} hit", "value": g} for k, g in res["gains"].items()]
    return present.figures(figs) + present.assumptions(res["assumptions"])


# atg.intercept ---------------------------------------------------------------------------------------------------

INTERCEPT_INPUTS: Final = Group("inputs", "", fields=(
    Integer("readiness", "Lowest readiness in the intercepting unit.", 80, minimum=0, maximum=100,
            label="Lowest readiness"),
    Integer("distance", "Action points from its airfield to the battle.", 20, minimum=0, maximum=1000,
            label="Distance (AP)"),
    rules_subset("intercept_range", "intercept_fail_centre", "intercept_fail_edge"),
))


def intercept_compute(v: Mapping[str, Any]) -> dict[str, Any]:
    r = v["rules"]
    rng_ = parts.intercept_range(Fraction(v["readiness"]), r["intercept_range"])
    centre, edge = Fraction(r["intercept_fail_centre"]), Fraction(r["intercept_fail_edge"])
    inside = v["distance"] <= rng_
    fail = parts.intercept_failure(Fraction(v["distance"]), rng_, centre, edge) if inside else Fraction(1)
    curve = [{"distance": _frac(rng_ * k / 4), "fail": prob_json(parts.intercept_failure(rng_ * k / 4, rng_, centre,
                                                                                         edge))}
             for k in range(5)] if rng_ else []
    return {"range": _frac(rng_), "in_range": inside, "failure": prob_json(fail), "curve": curve,
            "assumptions": _assumptions(r)}


def intercept_render(res: Mapping[str, Any]) -> str:
    figs = [{"label": "Intercept range (action points)", "value": res["range"]},
            {"label": "Within range", "value": "yes" if res["in_range"] else "no: it does not try"},
            {"label": "Chance the interception fails", **res["failure"]}]
    dist = [{"result": f"at {c['distance']} AP", **c["fail"]} for c in res["curve"]]
    body = present.distribution(dist, "Failure chance across the range", "Distance") if dist else ""
    return present.figures(figs) + body + present.assumptions(res["assumptions"])


# atg.capitulation ------------------------------------------------------------------------------------------------

CAPITULATION_INPUTS: Final = Group("inputs", "", fields=(
    Integer("readiness", "Readiness of the retreating defender.", 10, minimum=0, maximum=100, label="Readiness"),
    Integer("morale", "Morale of the retreating defender.", 5, minimum=0, maximum=100, label="Morale"),
    rules_subset("capitulation_morale", "capitulation_readiness"),
))


def capitulation_compute(v: Mapping[str, Any]) -> dict[str, Any]:
    r = v["rules"]
    p = parts.capitulation_chance(Fraction(v["readiness"]), Fraction(v["morale"]), r["capitulation_morale"],
                                  r["capitulation_readiness"])
    return {"chance": prob_json(Fraction(p)), "tested": v["morale"] < r["capitulation_morale"]
            and v["readiness"] < r["capitulation_readiness"], "assumptions": _assumptions(r)}


def capitulation_render(res: Mapping[str, Any]) -> str:
    figs = [{"label": "Tested at all", "value": "yes (once)" if res["tested"] else "no: morale or readiness too high"},
            {"label": "Chance it capitulates", **res["chance"]}]
    return present.figures(figs) + present.assumptions(res["assumptions"])


# atg.concentric ---------------------------------------------------------------------------------------------------

CONCENTRIC_INPUTS: Final = Group("inputs", "", fields=(
    Integer("sides", "Hex sides the attack still comes from this round.", 2, minimum=0, maximum=6, label="Sides"),
    Integer("hqs", "HQs whose units attack.", 1, minimum=1, maximum=6, label="HQs"),
    rules_subset(*(f"concentric_{k}" for k in range(1, 9)), "concentric_multiple_hq"),
))


def concentric_compute(v: Mapping[str, Any]) -> dict[str, Any]:
    r = v["rules"]
    values = concentric_values(_rules(r))
    share = r["concentric_multiple_hq"]
    return {"factor": _frac(parts.concentric_factor(v["sides"], v["hqs"], values, share)),
            "table": [{"sides": s, "one_hq": _frac(parts.concentric_factor(s, 1, values, share)),
                       "several": _frac(parts.concentric_factor(s, 2, values, share))} for s in range(1, 7)],
            "assumptions": _assumptions(r)}


def concentric_render(res: Mapping[str, Any]) -> str:
    rows = "".join(f"<tr><th scope='row'>{t['sides']}</th><td class='num'>{t['one_hq']}</td>"
                   f"<td class='num'>{t['several']}</td></tr>" for t in res["table"])
    table = ("<table class='mods'><caption>Attack factor by sides</caption><thead><tr><th scope='col'>Sides</th>"
             "<th scope='col' class='num'>One HQ</th><th scope='col' class='num'>Several HQs</th></tr></thead>"
             f"<tbody>{rows}</tbody></table>")
    return (present.figures([{"label": "Attack factor of the hex's attackers", "value": res["factor"]}]) + table
            + present.assumptions(res["assumptions"]))


# atg.stacking ------------------------------------------------------------------------------------------------------

STACKING_INPUTS: Final = Group("inputs", "", fields=(
    Integer("sides", "Hex sides the attack comes from.", 1, minimum=1, maximum=6, label="Sides"),
    Integer("attacker_stack", "Stack points of the attacking land individuals still fighting.", 150, minimum=0,
            maximum=10000, label="Attacking stack"),
    Integer("defender_stack", "Stack points of the defending land individuals still fighting.", 80, minimum=0,
            maximum=10000, label="Defending stack"),
    rules_subset("land_stack_max", "land_stack_per_side", "overstack_power"),
))


def stacking_compute(v: Mapping[str, Any]) -> dict[str, Any]:
    r = v["rules"]
    amax = parts.land_attack_stack_max(v["sides"], r["land_stack_max"], r["land_stack_per_side"])
    dmax = r["land_stack_max"]
    power = r["overstack_power"]
    return {"attacker_max": amax, "defender_max": dmax,
            "attacker_factor": _frac(parts.overstack_factor(Fraction(v["attacker_stack"]), Fraction(amax), power)),
            "defender_factor": _frac(parts.overstack_factor(Fraction(v["defender_stack"]), Fraction(dmax), power)),
            "breakthrough_failure": prob_json(Fraction(parts.breakthrough_failure(Fraction(v["attacker_stack"]),
                                                                                  Fraction(amax)))),
            "assumptions": _assumptions(r)}


def stacking_render(res: Mapping[str, Any]) -> str:
    figs = [{"label": "Attacking stack maximum", "value": str(res["attacker_max"])},
            {"label": "Attacker's overstacking factor", "value": res["attacker_factor"]},
            {"label": "Defending stack maximum", "value": str(res["defender_max"])},
            {"label": "Defender's overstacking factor", "value": res["defender_factor"]},
            {"label": "Chance a breakthrough fails", **res["breakthrough_failure"]}]
    return present.figures(figs) + present.assumptions(res["assumptions"])


# atg.factors -------------------------------------------------------------------------------------------------------

FACTOR_INPUTS: Final = Group("inputs", "", fields=(
    Integer("readiness", "Readiness of the individual.", 70, minimum=0, maximum=100, label="Readiness"),
    Integer("supply", "Percent of supply met.", 100, minimum=0, maximum=100, label="Supply %"),
    Integer("experience", "Experience of the individual.", 20, minimum=0, maximum=100, label="Experience"),
    Integer("entrenchment", "Entrenchment of the target.", 30, minimum=0, maximum=1000, label="Entrenchment"),
    Integer("times_attacked", "Times the target was attacked this round already.", 4, minimum=0, maximum=100,
            label="Times attacked"),
    Integer("max_attacked", "The target type's max attacked.", 2, minimum=1, maximum=100, label="Max attacked"),
    Boolean("hex_attacker", "The individual attacks belong to the hex's attacking side.", True,
            label="On the attacking side"),
    rules_subset("readiness_weight_attacker", "readiness_weight_defender", "readiness_weight_hp", "supply_weight",
                 "max_attacked_cap"),
))


def factors_compute(v: Mapping[str, Any]) -> dict[str, Any]:
    r = v["rules"]
    w = r["readiness_weight_attacker"] if v["hex_attacker"] else r["readiness_weight_defender"]
    items = [("readiness on attack", parts.readiness_factor(Fraction(v["readiness"]), w)),
             ("readiness on hit points", parts.readiness_factor(Fraction(v["readiness"]), r["readiness_weight_hp"])),
             ("supply", parts.supply_factor(Fraction(v["supply"]), r["supply_weight"])),
             ("experience", parts.experience_factor(Fraction(v["experience"]))),
             ("entrenchment on hit points", parts.entrenchment_factor(Fraction(v["entrenchment"]))),
             ("max attacked", parts.max_attacked_factor(Fraction(v["times_attacked"]), Fraction(v["max_attacked"]),
                                                       r["max_attacked_cap"]))]
    return {"factors": [{"name": n, "factor": _frac(x)} for n, x in items], "assumptions": _assumptions(r)}


def factors_render(res: Mapping[str, Any]) -> str:
    return (present.figures([{"label": f["name"], "value": f"× {f['factor']}"} for f in res["factors"]])
            + present.assumptions(res["assumptions"]))


# atg.panic ----------------------------------------------------------------------------------------------------------

PANIC_INPUTS: Final = Group("inputs", "", fields=(
    Integer("count", "Individuals the unit started with.", 10, minimum=1, maximum=1000, label="Started with"),
    Integer("fighting", "Individuals still fighting.", 6, minimum=0, maximum=1000, label="Still fighting"),
    Integer("morale", "Average morale of those still fighting.", 70, minimum=0, maximum=100, label="Morale"),
    Boolean("can_retreat", "The unit has a way out.", True, label="Has a way out"),
    Choice("situation", "What kind of combat, and which side.", "land",
           choices=("land", "bombardment", "defender_under_air_attack"), label="Situation"),
    rules_subset("panic_chance", "panic_reading", "no_retreat_morale_factor", "panic_morale_loss"),
))


def panic_compute(v: Mapping[str, Any]) -> dict[str, Any]:
    r = v["rules"]
    remaining = Fraction(100 * min(v["fighting"], v["count"]), v["count"])
    p = parts.panic_chance(remaining, Fraction(v["morale"]), v["can_retreat"], r["no_retreat_morale_factor"],
                           r["panic_chance"], bombardment=v["situation"] == "bombardment",
                           defender_under_air_attack=v["situation"] == "defender_under_air_attack",
                           complement=r["panic_reading"] == "losses_above_morale")
    return {"remaining": _frac(remaining), "chance": prob_json(Fraction(p)),
            "morale_after": _frac(v["morale"] * (1 - r["panic_morale_loss"])), "assumptions": _assumptions(r)}


def panic_render(res: Mapping[str, Any]) -> str:
    figs = [{"label": "Percent of the unit still fighting", "value": res["remaining"]},
            {"label": "Chance it panics this round", **res["chance"]},
            {"label": "Morale after a panic", "value": res["morale_after"]}]
    return present.figures(figs) + present.assumptions(res["assumptions"])


# atg.battle: the unit-type table ----------------------------------------------------------------------------------

NAME_LENGTH: Final = 30
"""Longest unit type name."""

_DEFAULT = UnitType("", "land", "soft", {}, 20)
"""The dataclass defaults: a new row starts from them."""


def _per_group(prefix: str, label: str, help_text: str, maximum: int) -> tuple[Field, ...]:
    return tuple(Integer(f"{prefix}_{g}", help_text.format(group=g), 0, minimum=0, maximum=maximum,
                         label=f"{label} {g}") for g in TARGET_GROUPS)


UNIT_TYPE: Final = Group("unit_type", "", label="Unit type", fields=(
    Text("name", "The name units give in their Type column; each type needs its own.", "New type",
         max_length=NAME_LENGTH, label="Name"),
    Choice("theatre", "Where it fights: land, air or naval.", _DEFAULT.theatre, choices=("land", "air", "naval"),
           label="Theatre"),
    Choice("group", "Its target group: which of an enemy's attack points are used against it.", _DEFAULT.group,
           choices=TARGET_GROUPS, label="Target group"),
    *_per_group("attack", "Attack vs", "Attack points against {group} targets (0: it cannot attack them).", 10000),
    Integer("hit_points", "Hit points before any modifier.", _DEFAULT.hit_points, minimum=1, maximum=10000,
            label="Hit points"),
    Integer("attacks", "Attacks each individual may make in one round.", _DEFAULT.attacks, minimum=1, maximum=20,
            label="Attacks"),
    Integer("max_attacked", "Times an individual can be attacked in a round before later attacks on it weaken.",
            _DEFAULT.max_attacked, minimum=1, maximum=100, label="Max attacked"),
    Integer("initiative", "Top of its random initiative roll (higher acts earlier).", _DEFAULT.initiative,
            minimum=0, maximum=1000, label="Initiative"),
    *_per_group("fav", "Favourite", "Favourite-target score for {group} targets in a regular attack.", 1000),
    *_per_group("art_fav", "Artillery favourite",
                "Favourite-target score for {group} targets in artillery fire or shore bombardment.", 1000),
    Integer("tries", "Picks it makes when looking for a favourite target (1: a purely random target).",
            _DEFAULT.tries, minimum=1, maximum=20, label="Tries"),
    Integer("kill", "Percent of its hits that kill (kill % and retreat % together at most 100).", _DEFAULT.kill,
            minimum=0, maximum=100, label="Kill %"),
    Integer("retreat", "Percent of its hits that force a retreat; the rest of its hits pin.", _DEFAULT.retreat,
            minimum=0, maximum=100, label="Retreat %"),
    Integer("power_points", "Power points: the ratio of target to attacker sets the experience gained.",
            _DEFAULT.power_points, minimum=1, maximum=10000, label="Power points"),
    Integer("stack", "Stack points each individual counts for stacking.", _DEFAULT.stack, minimum=0, maximum=100,
            label="Stack"),
    Boolean("backbench", "Stands behind the line: only a breakthrough or artillery reaches it.", _DEFAULT.backbench,
            label="Backbench"),
    Integer("artillery_range", "Artillery range in hexes (0: no artillery fire).", _DEFAULT.artillery_range,
            minimum=0, maximum=20, label="Artillery range"),
    Integer("aa_range", "Anti-aircraft range in hexes (0: no anti-aircraft support).", _DEFAULT.aa_range,
            minimum=0, maximum=20, label="AA range"),
    Boolean("auto_destroy", "Lost after its first attack (a one-shot weapon).", _DEFAULT.auto_destroy,
            label="Auto-destroy"),
    Integer("anti_structural", "Structural damage points it deals in a round.", _DEFAULT.anti_structural,
            minimum=0, maximum=1000, label="Anti-structural"),
    Number("startup_penalty", "Share of the attack start-up penalty it suffers (0: immune, 1: all of it).",
           _DEFAULT.startup_penalty, minimum=0, maximum=10, label="Start-up share"),
    Integer("readiness_per_attack", "Readiness points lost with each attack it makes (not counterattacks).",
            _DEFAULT.readiness_per_attack, minimum=0, maximum=100, label="Readiness per attack"),
    Integer("fuel_per_round", "Fuel an individual uses with its first attack of a round.", _DEFAULT.fuel_per_round,
            minimum=0, maximum=1000, label="Fuel per round"),
    Number("special_attack", "Special factor on its attack score.", _DEFAULT.special_attack, minimum=0,
           maximum=100, label="Special attack"),
    Number("special_defence", "Special factor on its hit points.", _DEFAULT.special_defence,
           minimum=0, maximum=100, label="Special defence"),
    Text("prevents", "Types of its own side whose attackers it draws onto itself, by name, separated by commas "
         "(read only with the prevent rules on).", "", max_length=200, label="Prevents"),
    Boolean("transport", "Carries paratroopers, airlifted units or air supply.", _DEFAULT.transport,
            label="Transport"),
))
"""One unit type as a row of plain fields."""


def _names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in text.split(",") if n.strip())


def type_row(t: UnitType) -> dict[str, Any]:
    """The form row of a unit type."""
    row: dict[str, Any] = {"name": t.name, "theatre": t.theatre, "group": t.group}
    for g in TARGET_GROUPS:
        row[f"attack_{g}"] = t.attack.get(g, 0)
        row[f"fav_{g}"] = t.favourites.get(g, 0)
        row[f"art_fav_{g}"] = t.artillery_favourites.get(g, 0)
    for f in UNIT_TYPE.fields:
        if f.name not in row and f.name != "prevents":
            row[f.name] = getattr(t, f.name)
    row["prevents"] = ", ".join(t.prevents)
    return row


def unit_type(row: Mapping[str, Any]) -> UnitType:
    """The unit type of a validated row (a zero attack or score is left out, as the engine reads it)."""
    def per(prefix: str) -> dict[str, int]:
        return {g: row[f"{prefix}_{g}"] for g in TARGET_GROUPS if row[f"{prefix}_{g}"]}
    plain = {f.name: row[f.name] for f in UNIT_TYPE.fields
             if f.name not in ("name", "theatre", "group", "hit_points", "prevents")
             and not f.name.startswith(("attack_", "fav_", "art_fav_"))}
    return UnitType(row["name"], row["theatre"], row["group"], per("attack"), row["hit_points"],
                    favourites=per("fav"), artillery_favourites=per("art_fav"), prevents=_names(row["prevents"]),
                    **plain)


UNIT_TYPES: Final = ListOf(
    "unit_types", "The subformation types the units below name: one row per type, every statistic a scenario "
    "designer sets. Edit a value, add a type and name it in a unit's Type column.",
    tuple(type_row(t) for t in ROSTER_ORDER), item=UNIT_TYPE, min_items=1, max_items=24, label="Unit types",
    assumed=ILLUSTRATIVE)
"""The unit-type editor's list; its rows default to the illustrative roster."""


def roster_from(rows: Sequence[Mapping[str, Any]]) -> dict[str, UnitType]:
    """The roster of validated rows, by name (check them first with :func:`check_types`)."""
    return {r["name"]: unit_type(r) for r in rows}


def check_types(rows: Sequence[Mapping[str, Any]], path: str = "unit_types") -> None:
    """Refuse rows that cannot make a roster: a missing or repeated name, kill and retreat over 100 %,
    a prevent naming no type."""
    seen: dict[str, int] = {}
    for i, r in enumerate(rows):
        where, row = f"{path}.{i}", f"unit type row {i + 1}"
        name = r["name"]
        if not name:
            raise InputError(f"{where}.name", f"{row} has no name; give each type a name",
                             UNIT_TYPE.field("name").allowed())
        if name in seen:
            raise InputError(f"{where}.name", f"{row} is named {name!r} like row {seen[name] + 1}; "
                             "each type needs its own name", "a name no other row uses")
        seen[name] = i
        if r["kill"] + r["retreat"] > 100:
            raise InputError(f"{where}.retreat", f"{row} ({name}): kill % {r['kill']} and retreat % {r['retreat']} "
                             "add up to more than 100", "kill % and retreat % adding up to at most 100")
    for i, r in enumerate(rows):
        for other in _names(r["prevents"]):
            if other not in seen:
                raise InputError(f"{path}.{i}.prevents", f"unit type row {i + 1} ({r['name']}) prevents "
                                 f"{other!r}, which is not a type in the list", ", ".join(seen))


def check_type_name(name: str, roster: Mapping[str, UnitType], path: str, row: str, *,
                    need: str = "", ok: Any = None) -> None:
    """Refuse a unit row whose type is not in the roster (or fails ``ok``, described by ``need``)."""
    if name not in roster:
        known = ", ".join(roster)
        raise InputError(path, f"{row}: no unit type named {name!r} in the unit types list; use one of {known}",
                         known)
    if ok is not None and not ok(roster[name]):
        fits = ", ".join(n for n, t in roster.items() if ok(t)) or "none in the list"
        raise InputError(path, f"{row}: {name!r} is not {need}; use one of {fits}", fits)


# atg.battle -----------------------------------------------------------------------------------------------------------

_SUGGESTED: Final = tuple(ROSTER)
"""Type names a Type cell offers (the illustrative roster's); any name in the unit types list is taken."""


def _type_field(help_text: str, default: str) -> Text:
    return Text("type", help_text, default, max_length=NAME_LENGTH, suggestions=_SUGGESTED, label="Type")


_UNIT = Group("unit", "", label="Unit", fields=(
    _type_field("Unit type: a name from the unit types list.", "Infantry"),
    Integer("count", "Individuals in the unit.", 10, minimum=0, maximum=100, label="Count"),
    Integer("readiness", "Readiness.", 100, minimum=0, maximum=100, label="Readiness"),
    Integer("morale", "Morale.", 100, minimum=0, maximum=100, label="Morale"),
    Integer("experience", "Experience.", 0, minimum=0, maximum=100, label="Experience"),
    Integer("entrenchment", "Entrenchment.", 0, minimum=0, maximum=1000, label="Entrenchment"),
    Integer("action_points", "Action points.", 100, minimum=0, maximum=1000, label="Action points"),
    Integer("supply", "Percent of supply met.", 100, minimum=0, maximum=100, label="Supply %"),
    Integer("fuel", "Fuel each individual carries (types with fuel per round use it up).", 100, minimum=0,
            maximum=1000, label="Fuel"),
    Integer("side", "Hex side it attacks from (attackers only).", 0, minimum=0, maximum=5, label="Side of attack"),
    Integer("hq", "Which HQ it belongs to.", 0, minimum=0, maximum=5, label="HQ"),
    Number("hq_power", "Share of its HQ's staff bonus that reaches it (0: out of the HQ's range, 1: all of it).",
           Fraction(0), minimum=0, maximum=1, label="HQ power"),
    Integer("staff_xp", "Experience of the HQ staff behind it.", 0, minimum=0, maximum=1000, label="Staff XP"),
    Number("staff_xp_bonus", "Percentage points of staff bonus per point of staff experience (set by the staff's "
           "type).", Fraction(1), minimum=0, maximum=10, label="Staff XP bonus"),
    Number("global_modifier", "Global combat modifier of its type's group (a factor on its attacks).", Fraction(1),
           minimum=0, maximum=10, label="Global modifier"),
    Number("people_modifier", "Factor on its attacks for its own people.", Fraction(1), minimum=0, maximum=10,
           label="People factor"),
    Number("against_people", "Factor on attacks made on it, for its people.", Fraction(1), minimum=0, maximum=10,
           label="Against its people"),
    Boolean("crosses_river", "It attacks across the river.", False, label="Across the river"),
    Integer("retreat_order", "Percent casualties at which it withdraws (100: never).", 100, minimum=0, maximum=100,
            label="Retreat order %"),
    Boolean("can_retreat", "It has a way out.", True, label="Has a way out"),
    Boolean("cargo", "Carried by its side's transports (paradrop or airlift).", False, label="Carried"),
    Text("name", "Name in the log (empty: its side, row and type, such as A2 Tank).", "", max_length=NAME_LENGTH,
         label="Name"),
))

_INTERCEPTOR = Group("interceptor", "", label="Interceptor", fields=(
    _type_field("Air unit type from the unit types list.", "Fighter"),
    Integer("count", "Individuals in the unit.", 4, minimum=0, maximum=100, label="Count"),
    Integer("readiness", "Average readiness of its individuals: the intercept standing order must be above it, "
            "and its individuals fight at it.", 80, minimum=0, maximum=100, label="Average readiness"),
    Integer("lowest_readiness", "Readiness of its least ready individual, which sets its range (at most the "
            "average).", 80, minimum=0, maximum=100, label="Lowest readiness"),
    Integer("intercept_setting", "Intercept standing order.", 90, minimum=0, maximum=100, label="Intercept setting"),
    Integer("distance", "Action points from its airfield to the battle.", 20, minimum=0, maximum=1000,
            label="Distance (AP)"),
    Integer("fuel", "Fuel per individual.", 100, minimum=0, maximum=1000, label="Fuel"),
    Boolean("own_airfield_targeted", "Its own airfield is the target.", False, label="Own airfield attacked"),
    Boolean("allied", "It belongs to an ally of the defender, not to the defending regime.", False,
            label="Allied"),
    Integer("regime", "Number of its regime: over a sea hex with no defender, only the regime with the most "
            "units able to intercept does so.", 0, minimum=0, maximum=9, label="Regime"),
))

_AA = Group("aa", "", label="Anti-aircraft support", fields=(
    _type_field("Type with an anti-aircraft range, from the unit types list.", "Flak"),
    Integer("count", "Individuals in the unit.", 2, minimum=0, maximum=100, label="Count"),
    Integer("distance", "Hexes from the battle.", 1, minimum=1, maximum=10, label="Distance (hexes)"),
))

MAX_UNITS: Final = 16
"""Most unit rows a side takes."""

BATTLE_INPUTS: Final = Group("inputs", "", fields=(
    ListOf("attackers", "Units attacking the hex.",
           ({"type": "Infantry", "count": 12, "side": 0}, {"type": "Tank", "count": 4, "side": 1}),
           item=_UNIT, min_items=0, max_items=MAX_UNITS, label="Attackers"),
    ListOf("defenders", "Units defending the hex.",
           ({"type": "Infantry", "count": 12, "entrenchment": 30}, {"type": "Anti-tank gun", "count": 2}),
           item=_UNIT, min_items=0, max_items=MAX_UNITS, label="Defenders"),
    Choice("combat", "Kind of combat.", "land", choices=COMBAT_TYPES, label="Combat type"),
    Choice("landscape", "Landscape of the hex (illustrative factors).", "plains", choices=tuple(LANDSCAPES),
           label="Landscape"),
    Boolean("river", "A river lies on the crossing attackers' sides.", False, label="River"),
    Boolean("bridge", "A bridge still stands.", False, label="Bridge"),
    Integer("bridge_structure", "Structure points of the bridge (structural damage can destroy it).", 50,
            minimum=1, maximum=10000, label="Bridge structure"),
    Boolean("location", "A location stands in the hex.", False, label="Location"),
    Boolean("sea", "Sea hex (breaks off with no defending ship).", False, label="Sea hex"),
    Integer("location_structure", "Structure points of the location.", 100, minimum=1, maximum=10000,
            label="Location structure"),
    Boolean("airfield", "The hex is an airfield.", False, label="Airfield"),
    Integer("stationed_aircraft", "Aircraft based at the airfield (lost if it falls or is destroyed).", 0,
            minimum=0, maximum=1000, label="Aircraft based there"),
    Boolean("port", "The hex is a port.", False, label="Port"),
    Integer("stationed_ships", "Ships in the port (lost if it falls or is destroyed).", 0, minimum=0, maximum=1000,
            label="Ships in port"),
    Boolean("card", "A card or event is tied to the hex.", False, label="Card on the hex"),
    Group("around", "The hexes around the defended one: action points a defender needs to enter the hex beyond "
          "each side (the sides are numbered as the attackers' are). Over 100 closes that way; so does a side "
          "an attacker comes from.", label="Hexes around", fields=tuple(
              Integer(f"side_{k}", f"Action points to enter the hex beyond side {k}.", 10, minimum=0,
                      maximum=1000, label=f"Side {k}") for k in range(6))),
    Integer("remembered_stack", "Attacking stack points remembered from earlier battles in the hex this turn "
            "(counted only with the remembered battlestack rule on).", 0, minimum=0, maximum=10000,
            label="Remembered stack"),
    Integer("air_supply", "Supply points an air supply mission carries (some are lost with the transports).", 0,
            minimum=0, maximum=100000, label="Air supply carried"),
    ListOf("interceptors", "Defending or allied air units that may intercept an air mission.", (), item=_INTERCEPTOR,
           min_items=0, max_items=6, label="Interceptors"),
    ListOf("aa_support", "Anti-aircraft units in nearby hexes.", (), item=_AA, min_items=0, max_items=6,
           label="Anti-aircraft support"),
    UNIT_TYPES,
    RULES_GROUP,
))


def battle_check(v: Mapping[str, Any]) -> None:
    """Refuse a battle whose unit types cannot make a roster, or whose units name a type not in it.

    >>> from engine.widgets import get
    >>> get("atg.battle").validate({"attackers": [{"type": "Tank"}, {"type": "Tiger"}]})
    Traceback (most recent call last):
    ...
    engine.schema.InputError: attackers.1.type: attacker row 2: no unit type named 'Tiger' in the unit types list; \
use one of Infantry, Machine guns, Anti-tank gun, Tank, Artillery, Flak, Fighter, Bomber, Transport, Ship
    """
    check_types(v["unit_types"])
    roster = {r["name"]: r for r in v["unit_types"]}
    for side, word in (("attackers", "attacker"), ("defenders", "defender")):
        for i, u in enumerate(v[side]):
            check_type_name(u["type"], roster, f"{side}.{i}.type", f"{word} row {i + 1}")
    for i, x in enumerate(v["interceptors"]):
        check_type_name(x["type"], roster, f"interceptors.{i}.type", f"interceptor row {i + 1}",
                        need="an air type", ok=lambda r: r["theatre"] == "air")
        if x["lowest_readiness"] > x["readiness"]:
            raise InputError(f"interceptors.{i}.lowest_readiness", f"interceptor row {i + 1}: the lowest readiness "
                             f"({x['lowest_readiness']}) cannot be above the average ({x['readiness']})",
                             f"0..{x['readiness']}")
    for i, x in enumerate(v["aa_support"]):
        check_type_name(x["type"], roster, f"aa_support.{i}.type", f"anti-aircraft row {i + 1}",
                        need="a type with an anti-aircraft range", ok=lambda r: r["aa_range"] > 0)


def battle_setup(v: Mapping[str, Any]) -> Setup:
    """The frozen setup from validated battle inputs (the roster from its unit types list)."""
    def unit(u: Mapping[str, Any]) -> Unit:
        state = UnitState(u["readiness"], u["morale"], u["experience"], u["entrenchment"], u["action_points"],
                          u["supply"], u["fuel"])
        return Unit(u["type"], u["count"], state, side=u["side"], hq=u["hq"], crosses_river=u["crosses_river"],
                    retreat_order=u["retreat_order"], can_retreat=u["can_retreat"], hq_power=u["hq_power"],
                    staff_xp=u["staff_xp"], staff_xp_bonus=u["staff_xp_bonus"], global_modifier=u["global_modifier"],
                    people_modifier=u["people_modifier"], against_people=u["against_people"], cargo=u["cargo"],
                    name=u["name"])
    inter = tuple(Interceptor(Unit(i["type"], i["count"], UnitState(readiness=i["readiness"], fuel=i["fuel"])),
                              lowest_readiness=i["lowest_readiness"],
                              intercept_setting=i["intercept_setting"], distance=i["distance"],
                              allied=i["allied"], regime=i["regime"],
                              own_airfield_targeted=i["own_airfield_targeted"]) for i in v["interceptors"])
    aa = tuple(AASupport(Unit(x["type"], x["count"]), distance=x["distance"]) for x in v["aa_support"])
    return Setup(tuple(unit(u) for u in v["attackers"]), tuple(unit(u) for u in v["defenders"]),
                 combat=v["combat"], landscape=v["landscape"], river=v["river"], bridge=v["bridge"],
                 bridge_structure=v["bridge_structure"], location=v["location"],
                 location_structure=v["location_structure"], sea=v["sea"], airfield=v["airfield"],
                 stationed_aircraft=v["stationed_aircraft"], port=v["port"], stationed_ships=v["stationed_ships"],
                 card=v["card"], remembered_stack=v["remembered_stack"], air_supply=v["air_supply"],
                 retreat_costs=tuple(v["around"][f"side_{k}"] for k in range(6)),
                 interceptors=inter, aa_support=aa, roster=roster_from(v["unit_types"]))


def battle_compute(v: Mapping[str, Any]) -> dict[str, Any]:
    s = battle_setup(v)
    return {"attackers": sum(u.count for u in s.attackers), "defenders": sum(u.count for u in s.defenders),
            "sides": s.sides_of_attack(), "hqs": s.hq_count(),
            "assumptions": _assumptions({f.name: v["rules"][f.name] for f in RULES_GROUP.fields
                                         if v["rules"][f.name] != RULES_GROUP.field(f.name).default})}


def battle_render(res: Mapping[str, Any]) -> str:
    figs = [{"label": "Individuals attacking", "value": str(res["attackers"])},
            {"label": "Individuals defending", "value": str(res["defenders"])},
            {"label": "Sides of attack at the start", "value": str(res["sides"])},
            {"label": "HQs attacking", "value": str(res["hqs"])}]
    return present.figures(figs) + present.assumptions(res["assumptions"])


PROBE_WORK = 100_000
"""Most work (as :data:`engine.atg.loop.WORK_LIMIT` counts it) a trial may do as a probe on the page's own
engine (:func:`engine.montecarlo.probing`): some 20 ms of CPython. The 40 against 40 battle on land needs
about 10,000; the largest of the page's unit types, millions."""


def _play(setup: Setup, rules: Rules, rng: random.Random, record: bool) -> Outcome:
    """One battle, or an InputError that says what to change when it is too big to play here. An unrecorded
    battle is a Monte Carlo trial's: it needs no unit merged back (see :func:`battle_trial`)."""
    probe = montecarlo.is_probing()
    try:
        return fight(setup, rules, rng, record=record, work_limit=PROBE_WORK if probe else WORK_LIMIT,
                     merge_units=record)
    except BattleTooBig as e:
        if probe:
            raise montecarlo.TrialTooSlow from None
        raise InputError("attackers", f"{e}; use fewer or smaller units, unit types with fewer attacks a round, "
                         "or fewer action points (a battle may look over at most "
                         f"{WORK_LIMIT:,} targets in all)") from None


def battle_sample(v: Mapping[str, Any], seed: int) -> dict[str, Any]:
    rules = rules_from(Rules, v["rules"])
    o = _play(battle_setup(v), rules, random.Random(seed), True)
    return {"ending": o.ending, "rounds": o.rounds, "events": list(o.events), "observed": observed(o),
            "attacker": {"casualties": dict(o.attacker.casualties), "survivors": dict(o.attacker.survivors),
                         "panics": o.attacker.panics, "experience": round(o.attacker.experience, 3)},
            "defender": {"casualties": dict(o.defender.casualties), "survivors": dict(o.defender.survivors),
                         "panics": o.defender.panics, "experience": round(o.defender.experience, 3),
                         "trapped": o.defender.trapped},
            "interceptions": list(o.interceptions),
            "end": {"structural_damage": round(o.structural_damage, 3), "location_destroyed": o.location_destroyed,
                    "bridge_destroyed": o.bridge_destroyed, "aircraft_lost": o.aircraft_lost,
                    "hex_taken": o.hex_taken, "card_executed": o.card_executed, "retreat_side": o.retreat_side,
                    "ships_lost": o.ships_lost,
                    "air_supply_delivered": round(o.air_supply_delivered, 3), "airlift_lost": o.airlift_lost}}


def battle_render_sample(res: Mapping[str, Any]) -> str:
    def side(name: str, s: Mapping[str, Any]) -> dict[str, str]:
        lost = ", ".join(f"{k} {n}" for k, n in s["casualties"].items()) or "none"
        return {"label": f"{name} losses", "value": f"{lost}; panics {s['panics']}; experience {s['experience']}"}
    figs = [{"label": "Ending", "value": ENDING_TEXT.get(res["ending"], res["ending"])},
            {"label": "Rounds", "value": str(res["rounds"])}, side("Attacker", res["attacker"]),
            side("Defender", res["defender"])]
    lines = [f"{i['count']} × {i['unit']}: " + ("joins" if i["joins"] else "stays out") + f" ({i['reason']}"
             + (f"; failure chance {i['failure']:.4g}, draw {i['draw']:.4g}" if i["draw"] is not None else "") + ")"
             for i in res["interceptions"]]
    inter = present.section("Interception", present.steps(lines, ordered=False)) if lines else ""
    end = res["end"]
    after = [f"structural damage {end['structural_damage']:g}"
             + (": the location is destroyed" if end["location_destroyed"] else ""),
             f"aircraft lost at their base: {end['aircraft_lost']}"]
    if end.get("ships_lost"):
        after.append(f"ships lost in the port: {end['ships_lost']}")
    if end.get("air_supply_delivered"):
        after.append(f"air supply delivered: {end['air_supply_delivered']:g} points")
    if end.get("airlift_lost"):
        after.append(f"airlifted individuals lost with their transports: {end['airlift_lost']}")
    if end["bridge_destroyed"]:
        after.append("the bridge is destroyed")
    if end.get("hex_taken"):
        after.append("the attacker takes the hex")
    elif res["ending"] == "silenced":
        after.append("the hex stays the defender's: guns and aircraft never take it, and the attacker has no "
                     "troops in it")
    if end["card_executed"]:
        after.append("the card on the hex is played")
    if end["retreat_side"] is not None:
        after.append(f"survivors of the defence retreat through hex side {end['retreat_side']}")
    elif end.get("hex_taken"):
        trapped = res["defender"].get("trapped", 0)
        after.append("no side is open to retreat through" + (f": the {trapped} defenders still there are lost "
                                                              "with the hex" if trapped else ""))
    return (present.figures(figs) + inter + narrate(res["events"])
            + present.section("After the battle", present.steps(after, ordered=False)))


BATTLE_TRIALS: Final = 1000
"""Default size of a Monte Carlo run of ``atg.battle`` (about 0.6 ms a battle in CPython)."""

ENDING_LABELS: Final = {"attacker_won": "Attacker won", "defender_held": "Defender held", "standoff": "Standoff",
                        "breakoff": "Sea attack broke off",
                        "silenced": "No defender left fighting (no troops to take the hex: it is not taken)"}
ENDING_SIDES: Final = {"attacker_won": "attacker", "defender_held": "defender", "silenced": "attacker"}

def _setup(v: Mapping[str, Any]) -> tuple[Setup, Rules]:
    """What every battle of these inputs starts from: the setup and the rules. Inputs that differ only in their
    rule variables (the readings of every assumed setting) share one setup, and the numbers battles keep for it."""
    battle = json.dumps(jsonable({k: x for k, x in v.items() if k != "rules"}), sort_keys=True)
    return _setups.keep(battle, lambda: battle_setup(v)), rules_from(Rules, v["rules"])


_setups = montecarlo.Kept(8)
"""Setups by their inputs as text (the rule variables left out)."""
_prepare = montecarlo.Prepared(_setup, size=KEPT_RULES)
"""Built once per validated inputs object (a chunk's trials, a sweep's calls share a few, a reading of the
assumptions some 140)."""


def battle_trial(v: Mapping[str, Any], rng: random.Random, tally: montecarlo.Tally,
                 read: set[str] | None = None) -> None:
    """One battle, unrecorded, into the tally: its ending, rounds, and per side the
    individuals lost (in all and by type), the survivors, panics and experience.
    With ``read``, the names of the rule variables the battle read go into it (``Widget.watched``).

    >>> from engine.widgets import get
    >>> t = get("atg.battle").estimate(BATTLE_INPUTS.validate({}), 1, 0, 20)
    >>> t.trials, sum(t.counts["ending"].values())
    (20, 20)
    >>> one, read = montecarlo.Tally("", t.confidence), set()
    >>> one.ranges, one.at = ((0, 1),), 0  # trial 0's, as a run's job makes it
    >>> battle_trial(BATTLE_INPUTS.validate({}), montecarlo.trial_rng(1, 0), one, read)
    >>> "kill_xp" in read, "versus_paradrop" in read
    (True, False)
    """
    setup, rules = _prepare(v)
    o = _play(setup, rules if read is None else Watched(rules, read), rng, False)
    if o.first_attack is not None:
        att, hp, hit = o.first_attack
        exactcheck.record(tally, hit, f"{att!r} {hp!r}")
    seen = observed(o)
    tally.count("ending", seen["ending"])
    tally.observe("rounds", o.rounds)
    for name, side in (("attacker", o.attacker), ("defender", o.defender)):
        for k in (f"{name}.lost", f"{name}.survivors", f"{name}.panics"):
            tally.observe(k, seen["numbers"][k])
        tally.measure(f"{name}.experience", side.experience)
        for kind, n in side.casualties.items():
            tally.measure(f"{name}.lost.{kind}", n)


def observed(o: Outcome) -> dict[str, Any]:
    """A battle as its run counts it: its ending, and the numbers the run's histograms hold (rounds; per
    side the individuals lost, those left and the units that panicked). The seeded battle carries the
    same, so the page can say how rare it is among the run's battles (:func:`engine.luck.luck`)."""
    numbers = {"rounds": o.rounds}
    for name, side in (("attacker", o.attacker), ("defender", o.defender)):
        numbers.update({f"{name}.lost": sum(side.casualties.values()), f"{name}.survivors": sum(side.survivors.values()),
                        f"{name}.panics": side.panics})
    return {"ending": o.ending, "numbers": numbers}


def battle_render_tally(tally: montecarlo.Tally, v: Mapping[str, Any]) -> str:
    """A run of battles: the endings with their intervals, mean losses, and the spread of rounds and losses."""
    if not tally.trials:
        return present.note("No battles fought yet.")
    means = [("rounds", "Rounds fought")]
    for name in ("attacker", "defender"):
        side = name.capitalize()
        means += [(f"{name}.lost", f"{side}: individuals lost"),
                  (f"{name}.survivors", f"{side}: individuals left"),
                  (f"{name}.panics", f"{side}: units that panicked"),
                  (f"{name}.experience", f"{side}: experience points gained, all its individuals together")]
        means += [(k, f"{side}: {k.split('.', 2)[2]} individuals lost")
                  for k in sorted(tally.sums) if k.startswith(f"{name}.lost.")]
    level = fraction_text(tally.confidence * 100)
    takes = v["combat"] in TAKES_HEX
    # a paradrop's aircraft may leave no defender fighting with no paratrooper left to take the hex
    silenced = not takes or v["combat"] == "paradrop"
    endings = tuple(e for e in ENDINGS if (v["sea"] or e != "breakoff")
                    and (takes or e != "attacker_won") and (silenced or e != "silenced"))
    return (montecarlo.outcome_table(tally, "ending", "How the battles ended", endings, ENDING_LABELS, ENDING_SIDES,
                                     "Ending")
            + present.section(f"Per battle, on average (± half the {level}% interval; sd: the spread from "
                              "battle to battle)", montecarlo.means_list(tally, means))
            + montecarlo.histogram(tally, "rounds", "Rounds fought", "Rounds")
            + montecarlo.histogram(tally, "attacker.lost", "Individuals the attacker lost", "Lost")
            + montecarlo.histogram(tally, "defender.lost", "Individuals the defender lost", "Lost")
            + exactcheck.check_html(tally, "the battle's first attack hits", lambda s: first_attack_chance(s, v),
                                    what="battles", averaged="each first attack's own chance, averaged"))


def first_attack_chance(stratum: str, v: Mapping[str, Any]) -> Fraction:
    """The exact chance that an attack hits, from the "Chance of a hit" calculator (:func:`hit_compute`), for a
    run's check of the battles' first attacks: ``stratum`` is the attack score and hit points the attack was made
    with (after every modifier; Python's text of the battle's floats, read back exactly), under the battle's
    randomisation and tie reading. Who attacks whom first is the battle's draw, so the run's exact value is this
    chance averaged over the first attacks its battles made (:mod:`engine.exactcheck`).

    >>> first_attack_chance("30.0 20.0", BATTLE_INPUTS.validate({}))
    Fraction(2, 3)
    """
    att, hp = (Fraction(float(x)) for x in stratum.split(" "))
    rules = {k: v["rules"][k] for k in ("randomisation", "tie_reading")}
    return Fraction(hit_compute({"attack": att, "hit_points": hp, "kill": 0, "retreat": 0, "rules": rules})["hit"]["p"])


def _factor(name: str) -> fig.Figure:
    """One named factor of ``atg.factors``'s list."""
    def read(result: Any) -> Fraction | None:
        rows = result.get("factors")
        found = [r for r in rows if isinstance(r, dict) and r.get("name") == name] if isinstance(rows, list) else []
        return fig.exact(found[0].get("factor")) if found else None
    return fig.Figure(name.replace(" ", "_"), f"Factor: {name}", read, "")


_BATTLE_FIGURES = (
    fig.share("attacker_won", "P(attacker wins)", "ending", "attacker_won"),
    fig.share("defender_held", "P(defender holds)", "ending", "defender_held"),
    fig.mean("attacker_lost", "Attacker's expected losses", "attacker.lost", "individuals"),
    fig.mean("defender_lost", "Defender's expected losses", "defender.lost", "individuals"),
    fig.mean("rounds", "Expected rounds", "rounds", "rounds"),
)


WIDGETS: Final[tuple[Widget, ...]] = (
    register(Widget("atg.hit_chance", "Chance of a hit", HIT_INPUTS, hit_compute, hit_render,
                    description="Exact chance that an attack score beats the hit points, under each reading.",
                    figures=(fig.prob("hit", "P(hit)", "hit"), fig.prob("kill", "P(kill)", "kill"),
                             fig.prob("retreat", "P(retreat)", "retreat"), fig.prob("pinned", "P(pinned)", "pinned"),
                             fig.prob("miss", "P(miss)", "miss")))),
    register(Widget("atg.experience", "Experience from a hit", XP_INPUTS, xp_compute, xp_render,
                    description="The experience modifier from power points, and the experience each hit gives.",
                    figures=(fig.value("modifier", "Experience modifier", "modifier"),
                             fig.value("kill", "Experience from a kill", "gains", "kill", unit="points"),
                             fig.value("retreat", "Experience from a retreat", "gains", "retreat", unit="points")))),
    register(Widget("atg.intercept", "Interception range and failure", INTERCEPT_INPUTS, intercept_compute,
                    intercept_render, description="Range from readiness, and the failure chance across it.",
                    figures=(fig.value("range", "Interception range", "range", unit="AP"),
                             fig.prob("failure", "P(interception fails)", "failure")))),
    register(Widget("atg.capitulation", "Capitulation chance", CAPITULATION_INPUTS, capitulation_compute,
                    capitulation_render, description="Chance a retreating defender gives up.",
                    figures=(fig.prob("capitulation", "P(capitulation)", "chance"),))),
    register(Widget("atg.concentric", "Concentric bonus", CONCENTRIC_INPUTS, concentric_compute, concentric_render,
                    description="Attack factor by sides of attack and HQs.",
                    figures=(fig.value("factor", "Concentric attack factor", "factor"),))),
    register(Widget("atg.stacking", "Stacking and overstacking", STACKING_INPUTS, stacking_compute, stacking_render,
                    description="Stack maxima, overstacking factors and the breakthrough failure chance.",
                    figures=(fig.value("attacker_factor", "Attacker's overstacking factor", "attacker_factor"),
                             fig.value("defender_factor", "Defender's overstacking factor", "defender_factor"),
                             fig.prob("breakthrough_failure", "P(breakthrough fails)", "breakthrough_failure")))),
    register(Widget("atg.factors", "Readiness, supply, experience, entrenchment", FACTOR_INPUTS, factors_compute,
                    factors_render, description="The factors of one individual's state.",
                    figures=tuple(_factor(n) for n in ("readiness on attack", "readiness on hit points", "supply",
                                                       "experience", "entrenchment on hit points")))),
    register(Widget("atg.panic", "Panic chance", PANIC_INPUTS, panic_compute, panic_render,
                    description="Whether a unit may panic this round, and the chance.",
                    figures=(fig.prob("panic", "P(panic)", "chance"),
                             fig.value("morale_after", "Morale after", "morale_after", unit="points")))),
    register(Widget("atg.battle", "One battle, round by round", BATTLE_INPUTS, battle_compute, battle_render,
                    sample=battle_sample, render_sample=battle_render_sample, check=battle_check,
                    trial=battle_trial, render_tally=battle_render_tally, trials=BATTLE_TRIALS,
                    watched="rules.",
                    endings={e: ENDING_LABELS[e] for e in ENDINGS},
                    description="Both sides from unit types; one seeded battle with every attack explained.",
                    figures=_BATTLE_FIGURES)),
)
