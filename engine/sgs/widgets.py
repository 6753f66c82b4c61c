"""Every widget of the card-driven game's battles, declared in one place.

Inputs come from :mod:`engine.schema` fields and the rules dataclass
(:func:`engine.settings.rules_group`); each ``compute`` calls the rules
modules and each ``render`` builds HTML with :mod:`engine.present`.

>>> r = MORALE.run({})
>>> r["morale"]["total"], r["demoralised"]
(6, False)
>>> ROUND_ODDS.run({})["mean"]["value"]
'71/25'
>>> LOSSES.run({})["allocation"]["hits"]
[1, 3, 1, 0]
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Final

from .. import figures as fig
from .. import exactcheck, montecarlo, present
from ..dice import prob_json
from ..schema import Boolean, Choice, Field, Group, InputError, Integer, ListOf, Text, fraction_text
from ..settings import rules_from, rules_group
from ..widgets import Widget, register
from . import air
from . import retreat as retreat_map
from .battle import Lineup, fight
from .examples import TWELVE_A_SIDE
from .losses import Target, allocate
from .morale import battle_morale
from .narrate import narrate
from .panic import must_test, panic_chance
from .rout import demoralised, rout_chance
from .rules import ROUNDS, SgsRules
from .shots import Shooter, hits_distribution, round_modifiers
from .units import Force, Setup, Unit

__all__ = ["SETTINGS", "MORALE", "ROUND_ODDS", "LOSSES", "PANIC_ROUT", "INTERCEPTION", "BATTLE", "RETREAT",
           "setup_from", "rules_of"]

SETTINGS: Final = rules_group(SgsRules, "settings", "Values the source leaves open.", label="Settings")
"""Every rule setting, in sections."""


def rules_of(values: Mapping[str, Any]) -> SgsRules:
    """The rules a widget's settings describe; settings a widget does not show keep their defaults."""
    given = values["settings"]
    if len(given) == len(SETTINGS.fields):
        return rules_from(SgsRules, given)
    return dataclasses.replace(SgsRules(), **given)


def _assumptions(values: Mapping[str, Any]) -> list[dict[str, str]]:
    """Each setting the widget's form holds (its ``settings`` group, in the form's order), as its result says it."""
    out = []
    for name in values["settings"]:
        f = SETTINGS.field(name)
        v = values["settings"][name]
        shown = ("yes" if v else "no") if isinstance(f, Boolean) else (
            f.label_for(v) if isinstance(f, Choice) else fraction_text(v) if isinstance(v, Fraction) else str(v))
        out.append({"setting": f"settings.{name}", "value": shown, "note": f.assumed})
    return out


def _settings(*names: str) -> Group:
    return Group("settings", "Values the source leaves open.", label="Settings",
                 fields=tuple(SETTINGS.field(n) for n in names))


def _dist_rows(dist: Any, label: str, side: str = "neutral") -> list[dict[str, Any]]:
    return [{"result": label.format(k), **prob_json(p), "side": side} for k, p in dist.probabilities().items()]


# Battle morale -----------------------------------------------------------------

MORALE_INPUTS: Final = Group("inputs", "", fields=(
    Integer("leader", "Morale of the side's leader (0 without one).", 2, minimum=-9, maximum=9, label="Leader morale"),
    ListOf("units", "Base morale of each combat unit still fighting (support units do not count).",
           tuple({"morale": m} for m in (3, 3, 4)), label="Combat units",
           item=Group("unit", "", label="Unit", fields=(
               Integer("morale", "Base morale.", 3, minimum=0, maximum=9, label="Morale"),)),
           min_items=0, max_items=40),
    Boolean("air", "The side has aircraft in the battle.", False, label="Aircraft present"),
    Integer("armour", "Armour units on this side.", 1, minimum=0, maximum=40, label="Armour units"),
    Integer("enemy_armour", "Armour units on the other side.", 0, minimum=0, maximum=40, label="Enemy armour"),
    Integer("booster", "Morale boosters (HQ, leaders, logistics).", 0, minimum=-9, maximum=9, label="Boosters"),
    Integer("scenario", "The scenario's morale bonus.", 0, minimum=-9, maximum=9, label="Scenario bonus"),
    Integer("card", "Change to battle morale from cards played in the card round.", 0, minimum=-9, maximum=9,
            label="Cards"),
    Integer("lost_units", "Units eliminated or panicked so far.", 0, minimum=0, maximum=40, label="Units lost"),
    Integer("next_rounds", "Next rounds begun (one drop each).", 0, minimum=0, maximum=3, label="Next rounds"),
    Integer("heavy_rounds", "Rounds of heavy losses so far.", 0, minimum=0, maximum=8, label="Heavy-loss rounds"),
    _settings("mean_rounding", "demoralised", "rout_test", "rout_hold"),
))


def morale_compute(values: Mapping[str, Any]) -> dict[str, Any]:
    rules = rules_of(values)
    drops = values["lost_units"] + values["next_rounds"] + values["heavy_rounds"]
    bm = battle_morale(values["leader"], [u["morale"] for u in values["units"]], air=values["air"],
                       armour=values["armour"], enemy_armour=values["enemy_armour"], booster=values["booster"],
                       scenario=values["scenario"], drops=drops, rounding=rules.mean_rounding, card=values["card"])
    morales = [u["morale"] for u in values["units"]]
    low = demoralised(bm.total, rules)
    return {"morale": bm.to_json(), "mean_exact": fraction_text(Fraction(sum(morales), len(morales)))
            if morales else "0", "demoralised": low, "rout": prob_json(rout_chance(bm.total, rules)) if low else None,
            "assumptions": _assumptions(values)}


def morale_render(r: Mapping[str, Any]) -> str:
    m = r["morale"]
    items = [{"rule": "Leader morale", "value": m["leader"]},
             {"rule": f"Mean morale of the combat units ({r['mean_exact']}, rounded)", "value": m["mean"]},
             {"rule": "Aircraft present", "value": m["air"]}, {"rule": "Armour present", "value": m["armour"]},
             {"rule": "Armour superiority", "value": m["superiority"]}, {"rule": "Boosters", "value": m["booster"]},
             {"rule": "Scenario bonus", "value": m["scenario"]}, {"rule": "Cards", "value": m.get("card", 0)},
             {"rule": "Drops (units lost, next rounds, heavy losses)", "value": -m["drops"]}]
    figs = [{"label": "Battle morale", "value": str(m["total"])},
            {"label": "Demoralised", "value": "yes: the side tests for a rout" if r["demoralised"] else "no"}]
    if r["rout"]:
        figs.append({"label": "Chance the test routs it (assumed test)", **r["rout"]})
    return (present.modifiers(items, m["total"], "Battle morale, term by term") + present.figures(figs)
            + present.assumptions(r["assumptions"]))


MORALE = register(Widget("sgs.battle_morale", "Battle morale", MORALE_INPUTS, morale_compute, morale_render,
                         description="A side's battle morale with every term, and whether it must test for a rout.",
                         figures=(fig.value("morale", "Battle morale", "morale", "total"),
                                  fig.flag("demoralised", "Demoralised (0 or 1)", "demoralised"),
                                  fig.Figure("rout", "P(the test routs it)", lambda r: fig.exact(r.get("rout"))
                                             if r.get("rout") else fig.exact(0) if "rout" in r else None))))


# Round odds ---------------------------------------------------------------------

SHOOTER = Group("shooter", "", label="Firing units", fields=(
    Integer("value", "Combat value before the round's modifiers.", 4, minimum=-5, maximum=15, label="Combat value"),
    Integer("rof", "Rate of fire: 2 for a division, 1 otherwise.", 2, minimum=0, maximum=4, label="Rate of fire"),
    Boolean("elite", "Elite: re-rolls a miss.", False, label="Elite"),
    Integer("count", "How many such units fire.", 1, minimum=1, maximum=20, label="Units"),
))

ROUND_INPUTS: Final = Group("inputs", "", fields=(
    ListOf("shooters", "The units of one side that fire in the round.",
           ({"value": 4, "rof": 2, "elite": False, "count": 2}, {"value": 5, "rof": 1, "elite": True, "count": 1}),
           item=SHOOTER, min_items=1, max_items=12, label="Firing units"),
    Integer("modifier", "Net modifier to every value this round (terrain, leaders, cards...).", 0,
            minimum=-10, maximum=10, label="Net modifier"),
    _settings("die", "elite_reroll"),
))


def _shooters(values: Mapping[str, Any]) -> list[Shooter]:
    return [Shooter(s["value"] + values["modifier"], s["rof"], s["elite"])
            for s in values["shooters"] for _ in range(s["count"])]


def round_compute(values: Mapping[str, Any]) -> dict[str, Any]:
    rules = rules_of(values)
    dist = hits_distribution(_shooters(values), rules)
    at_least = [{"hits": k, **prob_json(dist.at_least(k))} for k in sorted(dist) if k > 0]
    return {"distribution": _dist_rows(dist, "{} hits"), "mean": {"value": fraction_text(dist.mean()),
                                                                   "float": float(dist.mean())},
            "at_least": at_least, "assumptions": _assumptions(values)}


def round_render(r: Mapping[str, Any]) -> str:
    figs = [{"label": "Hits on average", "value": f"{r['mean']['value']} ≈ {r['mean']['float']:.2f}"}]
    figs += [{"label": f"At least {a['hits']} hits", "p": a["p"], "float": a["float"]} for a in r["at_least"][:4]]
    return (present.figures(figs) + present.distribution(r["distribution"], "Hits from the side's shots", "Hits")
            + present.assumptions(r["assumptions"]))


ROUND_ODDS = register(Widget("sgs.round_odds", "Hits in one round", ROUND_INPUTS, round_compute, round_render,
                             description="Exact distribution of the hits one side's shots score.",
                             figures=(fig.value("mean_hits", "Expected hits", "mean", unit="hits"),
                                      fig.outcome("p_at_least_1", "P(at least 1 hit)", "at_least", 1, key="hits"),
                                      fig.outcome("p_at_least_2", "P(at least 2 hits)", "at_least", 2, key="hits"),
                                      fig.outcome("p_at_least_3", "P(at least 3 hits)", "at_least", 3, key="hits"))))


# Loss allocation ------------------------------------------------------------------

TARGET = Group("target", "", label="Units being hit", fields=(
    Integer("strength", "Strength points left.", 3, minimum=0, maximum=20, label="Strength"),
    Boolean("cav", "A CavUnit (armour, heavy mechanized).", False, label="CavUnit"),
    Choice("priority", "Loss priority.", "normal", choices=("first", "normal", "last"),
           labels={"first": "takes hits first", "normal": "normal", "last": "takes hits last"}, label="Priority"),
))

LOSS_INPUTS: Final = Group("inputs", "", fields=(
    Integer("cav_hits", "Hits scored by the enemy's CavUnits.", 2, minimum=0, maximum=60, label="Hits from CavUnits"),
    Integer("other_hits", "Hits scored by the enemy's OtherUnits.", 3, minimum=0, maximum=60,
            label="Hits from OtherUnits"),
    ListOf("targets", "The side taking the hits, in order.",
           ({"strength": 1, "cav": False, "priority": "first"}, {"strength": 6, "cav": False, "priority": "normal"},
            {"strength": 3, "cav": True, "priority": "normal"}, {"strength": 4, "cav": False, "priority": "last"}),
           item=TARGET, min_items=1, max_items=20, label="Units being hit"),
    _settings("split", "wastage_rounding", "wastage_scope"),
))


def loss_compute(values: Mapping[str, Any]) -> dict[str, Any]:
    targets = tuple(Target(t["strength"], t["cav"], t["priority"]) for t in values["targets"])
    out = allocate(values["cav_hits"], values["other_hits"], targets, rules_of(values))
    rows = [{"unit": n + 1, "strength": t.strength, "cav": t.cav, "priority": t.priority, "hits": h,
             "left": t.strength - h} for n, (t, h) in enumerate(zip(targets, out.hits))]
    return {"allocation": out.to_json(), "rows": rows, "assumptions": _assumptions(values)}


def loss_render(r: Mapping[str, Any]) -> str:
    lines = [f"Unit {x['unit']} ({'CavUnit' if x['cav'] else 'OtherUnit'}, {x['priority']}, strength "
             f"{x['strength']}): {x['hits']} hit(s), {x['left']} left" for x in r["rows"]]
    lines.append(f"Hits lost: {r['allocation']['wasted']}")
    return present.section("Where the hits land", present.steps(lines)) + present.assumptions(r["assumptions"])


LOSSES = register(Widget("sgs.losses", "Loss allocation", LOSS_INPUTS, loss_compute, loss_render,
                         description="Where every hit lands, CavUnits and OtherUnits, priorities and wastage.",
                         figures=(fig.value("wasted", "Hits wasted", "allocation", "wasted", unit="hits"),
                                  fig.Figure("eliminated", "Units eliminated", lambda r: sum(
                                      1 for x in r["rows"] if x.get("left") == 0) if isinstance(r.get("rows"), list)
                                      else None, "units"))))


# Panic and rout -------------------------------------------------------------------

PANIC_INPUTS: Final = Group("inputs", "", fields=(
    Integer("morale", "The unit's base morale.", 3, minimum=0, maximum=9, label="Unit morale"),
    Integer("strength", "Strength points before this round's hits.", 4, minimum=1, maximum=20, label="Strength"),
    Integer("hits", "Hits it took this round.", 2, minimum=0, maximum=20, label="Hits"),
    Integer("battle_morale", "The side's battle morale after the round.", -1, minimum=-20, maximum=20,
            label="Battle morale"),
    _settings("die", "demoralised", "rout_test", "rout_hold"),
))


def panic_compute(values: Mapping[str, Any]) -> dict[str, Any]:
    rules = rules_of(values)
    tests = must_test(values["hits"], values["strength"])
    low = demoralised(values["battle_morale"], rules)
    return {"tests": tests, "eliminated": values["hits"] >= values["strength"],
            "panic": prob_json(panic_chance(values["morale"], rules) if tests else Fraction(0)),
            "demoralised": low, "rout": prob_json(rout_chance(values["battle_morale"], rules) if low else Fraction(0)),
            "assumptions": _assumptions(values)}


def panic_render(r: Mapping[str, Any]) -> str:
    test = ("eliminated: no test" if r["eliminated"] else "yes" if r["tests"] else
            "no: fewer hits than half its strength")
    figs = [{"label": "Panic test", "value": test}, {"label": "Chance the unit panics", **r["panic"]},
            {"label": "Side demoralised", "value": "yes" if r["demoralised"] else "no"},
            {"label": "Chance the side routs (assumed test)", **r["rout"]}]
    return present.figures(figs) + present.assumptions(r["assumptions"])


PANIC_ROUT = register(Widget("sgs.panic_rout", "Panic and rout", PANIC_INPUTS, panic_compute, panic_render,
                             description="Whether a unit tests for panic, and the odds of panic and rout.",
                             figures=(fig.prob("panic", "P(panic)", "panic"), fig.prob("rout", "P(rout)", "rout"))))


# Interception, AA and air combat ------------------------------------------------------

PLANE = Group("plane", "", label="Planes", fields=(
    Integer("value", "Air-to-air combat value.", 4, minimum=0, maximum=15, label="Air combat"),
    Integer("rof", "Shots.", 1, minimum=0, maximum=4, label="Rate of fire"),
    Boolean("fighter", "A fighter (gains the radar bonus).", True, label="Fighter"),
))

AIR_INPUTS: Final = Group("inputs", "", fields=(
    Boolean("destination", "The intercepted stack has reached its destination.", False, label="At destination"),
    Boolean("radar", "A nation of the intercepting side has radar.", False, label="Interceptors have radar"),
    Boolean("inactive_fighters", "The inactive side has a fighter among its planes.", True, label="Inactive fighters"),
    Boolean("same_region", "The interceptors are in the region crossed.", True, label="Same region"),
    Boolean("grounded", "Every interceptor started on the ground at an airfield.", False, label="All grounded"),
    Integer("card", "Net modifier from cards played at the start of air movement.", 0, minimum=-9, maximum=9,
            label="Card modifier"),
    Integer("route_here", "Regions crossed before the destination that hold the intercepting side's planes.", 0,
            minimum=0, maximum=8, label="Tests en route (same region)"),
    Integer("route_next", "Tests en route against fighters in a region next to one crossed.", 1, minimum=0,
            maximum=8, label="Tests en route (next region)"),
    Boolean("dest_here", "The destination holds the intercepting side's planes.", True,
            label="Test at destination (same region)"),
    Integer("dest_next", "Tests at the destination against fighters in neighbouring regions.", 0, minimum=0,
            maximum=8, label="Tests at destination (next region)"),
    Integer("aa_value", "Combat value of the AA fire.", 3, minimum=0, maximum=15, label="AA value"),
    Integer("aa_shots", "AA shots.", 2, minimum=0, maximum=12, label="AA shots"),
    Boolean("aa_radar", "The AA's nation has radar.", False, label="AA radar"),
    Boolean("all_stealth", "Every plane fired at is stealthy.", False, label="All stealth"),
    ListOf("attackers", "Planes of the moving (active) side.", ({"value": 4, "rof": 1, "fighter": True},),
           item=PLANE, min_items=1, max_items=12, label="Moving planes"),
    ListOf("defenders", "Planes of the intercepting side.", ({"value": 4, "rof": 1, "fighter": True},),
           item=PLANE, min_items=1, max_items=12, label="Intercepting planes"),
    Boolean("attacker_radar", "The moving side has radar.", False, label="Moving side radar"),
    Boolean("defender_radar", "The intercepting side has radar.", False, label="Intercepting side radar"),
    _settings("die", "intercept_below_zero", "air_panic_share", "air_winner"),
))


def _planes(items: Sequence[Mapping[str, Any]]) -> list[air.Plane]:
    return [air.Plane(f"plane {n + 1}", 1, p["value"], rof=p["rof"], fighter=p["fighter"]) for n, p in enumerate(items)]


def air_compute(values: Mapping[str, Any]) -> dict[str, Any]:
    rules = rules_of(values)
    mods = air.interception_modifiers(values["destination"], values["radar"], values["inactive_fighters"],
                                      values["same_region"], values["grounded"], values["card"])
    aa_value = values["aa_value"] + air.aa_modifier(radar=values["aa_radar"], all_stealth=values["all_stealth"])
    volley = air.volley_odds([Shooter(aa_value, values["aa_shots"])], rules)
    combat = air.air_combat_odds(_planes(values["attackers"]), _planes(values["defenders"]),
                                 attacker_radar=values["attacker_radar"], defender_radar=values["defender_radar"],
                                 rules=rules)
    points = ([("en route", "en route", False)] * values["route_here"]
              + [("en route", "next door", False)] * values["route_next"]
              + [("destination", "destination", True)] * values["dest_here"]
              + [("destination", "next door", True)] * values["dest_next"])
    tests, clear = air.flight_interception(points, radar=values["radar"], inactive_fighters=values["inactive_fighters"],
                                           all_grounded=values["grounded"], card=values["card"], rules=rules)
    flight = [{"label": f"Test {n + 1} ({t.region}, interceptors {'in the region' if t.interceptors == t.region else 'next door'}"
                        f", modifier {sum(v for _, v in t.modifiers):+d}): first interception here", **prob_json(t.first)}
              for n, t in enumerate(tests)]
    return {"modifiers": [{"rule": k, "value": v} for k, v in mods], "modifier_total": sum(v for _, v in mods),
            "interception": prob_json(air.interception_chance(mods, rules)), "aa_value": aa_value,
            "flight": flight, "flight_clear": prob_json(clear), "flight_caught": prob_json(1 - clear),
            "aa": [{"result": f"{p} panic(s), {h} hit(s)", **prob_json(q)} for (p, h), q in volley.probabilities().items()],
            "combat": {k: prob_json(v) for k, v in combat.items()},
            "assumptions": _assumptions(values)}


def air_render(r: Mapping[str, Any]) -> str:
    return (present.modifiers(r["modifiers"], r["modifier_total"], "Interception roll modifiers")
            + present.figures([{"label": "Interception succeeds (modified 0 to 3)", **r["interception"]},
                               {"label": "Moving side wins the air combat", **r["combat"]["attacker"]},
                               {"label": "Interceptors win (ties included)", **r["combat"]["defender"]}])
            + (present.section("The whole flight: one roll per test, in flight order",
                               present.figures(r["flight"]
                                               + [{"label": "Intercepted at least once", **r["flight_caught"]},
                                                  {"label": "Gets through with no interception",
                                                   **r["flight_clear"]}]))
               if r.get("flight") else "")
            + present.distribution(r["aa"], f"AA fire at value {r['aa_value']}", "Effect")
            + present.assumptions(r["assumptions"]))


INTERCEPTION = register(Widget("sgs.interception", "Interception, AA and air combat", AIR_INPUTS, air_compute,
                               air_render, description="Exact odds of an interception, an AA volley and an air combat.",
                               figures=(fig.prob("interception", "P(interception)", "interception"),
                                        fig.prob("flight_caught", "P(the flight is caught)", "flight_caught"),
                                        fig.prob("combat_attacker", "P(the attacker wins the air combat)", "combat",
                                                 "attacker"))))


# A whole battle ------------------------------------------------------------------------

UNIT_FIELDS: Final[tuple[Field, ...]] = (
    Text("name", "What the battle log calls the unit (empty: its kind).", "", max_length=40, label="Name"),
    Integer("count", "How many such units.", 1, minimum=1, maximum=12, label="Units"),
    Integer("strength", "Strength points.", 4, minimum=1, maximum=20, label="Strength"),
    Integer("combat", "Combat value.", 4, minimum=-5, maximum=15, label="Combat"),
    Integer("reduced", "Combat value at half strength or less (empty: the same as Combat).", 3, minimum=-5,
            maximum=15, label="Reduced"),
    Integer("morale", "Base morale.", 3, minimum=0, maximum=9, label="Morale"),
    Integer("rof", "Rate of fire.", 1, minimum=0, maximum=4, label="ROF"),
    Boolean("elite", "Re-rolls a miss.", False, label="Elite"),
    Boolean("cav", "A CavUnit.", False, label="CavUnit"),
    Boolean("armour", "An armour unit.", False, label="Armour"),
    Boolean("pursuit", "Can pursue (armoured or mechanized).", False, label="Pursuit"),
    Choice("role", "Combat or support.", "combat", choices=("combat", "support"), label="Role"),
    Boolean("artillery", "Fires in the artillery round.", False, label="Artillery"),
    Boolean("air", "An aircraft able to attack land units.", False, label="Air"),
    Boolean("mines", "A minefield.", False, label="Mines"),
    Boolean("recon", "Fires in the recon round.", False, label="Recon"),
    Choice("priority", "Loss priority.", "normal", choices=("first", "normal", "last"), label="Priority"),
)


SAME_AS_COMBAT: Final = ""
"""A unit row's Reduced left empty: the unit fires at its combat value at any strength
(:attr:`.units.Unit.reduced` ``None``), whatever the reader makes that value."""


class UnitRow(Group):
    """The fields of one unit row, whose Reduced may be left empty (:data:`SAME_AS_COMBAT`).

    The editor's new row (:meth:`validate` of nothing, what the form's "Add unit" copies) leaves it empty, so a
    new unit never fires better once reduced than at full strength by accident. A row given without Reduced
    still reads 3, the field's default: inputs and links written before rows could leave it empty mean that
    (a link leaves out each value of a row that equals the field's default).

    >>> row = UnitRow("unit", "", fields=UNIT_FIELDS)
    >>> row.validate()["reduced"], row.validate({"combat": 6})["reduced"], row.validate({"reduced": " "})["reduced"]
    ('', 3, '')
    >>> try:
    ...     row.validate({"reduced": "x"})
    ... except InputError as exc:
    ...     exc.allowed
    'a whole number from -5 to 15, or empty'
    """

    def coerce(self, value: Any, path: str) -> dict[str, Any]:
        reduced = value.get("reduced") if isinstance(value, Mapping) else None
        if isinstance(reduced, str) and not reduced.strip():
            out = super().coerce({**value, "reduced": self.field("reduced").default}, path)
            out["reduced"] = SAME_AS_COMBAT
            return out
        try:
            return super().coerce(value, path)
        except InputError as exc:
            where = f"{path}.reduced" if path else "reduced"
            if exc.field != where:
                raise
            raise InputError(where, f"{exc.message}, or leave it empty for the combat value at any strength",
                             f"{exc.allowed}, or empty") from None

    def stands_for(self, values: Mapping[str, Any]) -> Mapping[str, Any]:
        """An empty Reduced stands for the row's combat value.

        >>> UnitRow("unit", "", fields=UNIT_FIELDS).stands_for({"combat": 4, "reduced": SAME_AS_COMBAT})["reduced"]
        4
        """
        return {**values, "reduced": values["combat"]} if values.get("reduced") == SAME_AS_COMBAT else values

    def validate(self, value: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """A row completed and checked; with nothing given, the editor's new row (Reduced empty)."""
        return self.coerce({"reduced": SAME_AS_COMBAT} if value is None else value, "")


def _unit_rows(units: Sequence[Unit]) -> tuple[dict[str, Any], ...]:
    return tuple({"name": u.name, "count": 1, "strength": u.strength, "combat": u.combat,
                  "reduced": u.combat if u.reduced is None else u.reduced, "morale": u.morale, "rof": u.rof,
                  "elite": u.elite, "cav": u.cav, "armour": u.armour, "pursuit": u.pursuit, "role": u.role,
                  "artillery": u.artillery, "air": u.air, "mines": u.mines, "recon": u.recon,
                  "priority": u.priority} for u in units)


_CARD_ROUNDS: Final = ("artillery", "air", "mines", "recon", "main", "next", "pursuit")
_FIRST_SHOT_ROUNDS: Final = {"main": ("main",), "main and next": ("main", "next"),
                             "every round": ("artillery", "air", "mines", "recon", "main", "next")}


def _force_group(name: str, force: Force, label: str) -> Group:
    return Group(name, "", label=label, fields=(
        ListOf("units", "The side's units.", _unit_rows(force.units),
               item=UnitRow("unit", "", label="Unit", fields=UNIT_FIELDS), min_items=1, max_items=20, label="Units"),
        Integer("leader_morale", "Leader's morale.", force.leader_morale, minimum=-9, maximum=9, label="Leader morale"),
        Integer("leader_combat", "Leader's combat value.", force.leader_combat, minimum=0, maximum=9,
                label="Leader combat"),
        Integer("booster_combat", "Combat boosters.", force.booster_combat, minimum=-9, maximum=9, label="Combat boost"),
        Integer("booster_morale", "Morale boosters.", force.booster_morale, minimum=-9, maximum=9, label="Morale boost"),
        Integer("scenario_morale", "Scenario morale bonus.", force.scenario_morale, minimum=-9, maximum=9,
                label="Scenario bonus"),
        Integer("card", "Net card modifier to the side's shots.", force.card, minimum=-9, maximum=9, label="Cards"),
        Choice("card_rounds", "The round the card modifier counts in (a card played at the start of a round).",
               "every round", choices=("every round",) + _CARD_ROUNDS, label="Card modifier in"),
        Integer("card_morale", "Change to battle morale from cards in the card round.", force.card_morale,
                minimum=-9, maximum=9, label="Card morale"),
        Boolean("cancel_first", "A card cancels the enemy's first successful shot.", force.cancel_first,
                label="Cancel first shot"),
        Integer("retreat_at", "Retreat from a next round at this battle morale or lower (-99: never).", -99,
                minimum=-99, maximum=20, label="Retreat at"),
        Boolean("retreat_after_recon", "Withdraw straight after a recon round.", False, label="Leave after recon"),
    ))


BATTLE_INPUTS: Final = Group("inputs", "", fields=(
    _force_group("attacker", TWELVE_A_SIDE.attacker, "Attacker"),
    _force_group("defender", TWELVE_A_SIDE.defender, "Defender"),
    Integer("terrain_defence", "Terrain bonus to the defender.", TWELVE_A_SIDE.terrain_defence, minimum=0, maximum=3,
            label="Terrain (defender)"),
    Integer("terrain_attack", "Terrain penalty to the attacker.", TWELVE_A_SIDE.terrain_attack, minimum=0,
            maximum=3, label="Terrain (attacker)"),
    Integer("crossing", "Defender's bonus against a river or strait crossing (main round).", TWELVE_A_SIDE.crossing,
            minimum=0, maximum=3, label="Crossing"),
    Boolean("entrenched", "The defender is entrenched.", TWELVE_A_SIDE.entrenched, label="Entrenched"),
    Boolean("recon_terrain", "The terrain allows recon.", True, label="Recon terrain"),
    Boolean("pursuit_terrain", "The terrain allows pursuit.", True, label="Pursuit terrain"),
    Choice("first_shot", "A card gives one side the first shot.", "none",
           choices=("none", "attacker", "defender"), label="First shot"),
    Choice("first_shot_rounds", "The rounds that first-shot card covers.", "main",
           choices=tuple(_FIRST_SHOT_ROUNDS), label="First shot in",
           assumed="The source says such a card covers one round or both without naming them; the main round "
                   "alone is our default."),
    Choice("retreat_card", "A retreat card calls the battle off and sends this side back.", "none",
           choices=("none", "attacker", "defender"), label="Retreat card"),
    SETTINGS,
))


def _kind(u: Mapping[str, Any]) -> str:
    """A unit's kind in a word, for the log when it has no name."""
    for flag, word in (("mines", "minefield"), ("air", "aircraft"), ("armour", "armour"), ("recon", "recon"),
                       ("artillery", "artillery")):
        if u[flag]:
            return word
    return "support unit" if u["role"] == "support" else "cavalry unit" if u["cav"] else "infantry"


def unit_name(u: Mapping[str, Any], row: int, k: int) -> str:
    """The log's name of the ``k``-th unit of form row ``row`` (from 0): its name or kind, and its row.

    >>> unit_name({"name": "panzer division", "count": 1}, 1, 0), unit_name({"name": "", "count": 2, "mines": True,
    ...     "air": False, "armour": False, "recon": False, "artillery": False, "role": "combat", "cav": False}, 3, 1)
    ('panzer division (row 2)', 'minefield (row 4, 2 of 2)')
    """
    where = f"row {row + 1}" + (f", {k + 1} of {u['count']}" if u["count"] > 1 else "")
    return f"{u['name'] or _kind(u)} ({where})"


def _force(v: Mapping[str, Any]) -> Force:
    units = tuple(Unit(unit_name(u, n, k), strength=u["strength"],
                       combat=u["combat"], reduced=None if u["reduced"] == SAME_AS_COMBAT else u["reduced"],
                       morale=u["morale"], rof=u["rof"], elite=u["elite"],
                       cav=u["cav"], armour=u["armour"], pursuit=u["pursuit"], role=u["role"],
                       artillery=u["artillery"], air=u["air"], mines=u["mines"], recon=u["recon"],
                       priority=u["priority"])
                  for n, u in enumerate(v["units"]) for k in range(u["count"]))
    return Force(units, leader_morale=v["leader_morale"], leader_combat=v["leader_combat"],
                 booster_combat=v["booster_combat"], booster_morale=v["booster_morale"],
                 scenario_morale=v["scenario_morale"], card=v["card"],
                 card_rounds=None if v["card_rounds"] == "every round" else (v["card_rounds"],),
                 card_morale=v["card_morale"], cancel_first=v["cancel_first"],
                 retreat_at=None if v["retreat_at"] == -99 else v["retreat_at"],
                 retreat_after_recon=v["retreat_after_recon"])


def setup_from(values: Mapping[str, Any]) -> Setup:
    """The battle a form describes."""
    first = values["first_shot"]
    return Setup(_force(values["attacker"]), _force(values["defender"]), terrain_defence=values["terrain_defence"],
                 terrain_attack=values["terrain_attack"], crossing=values["crossing"], entrenched=values["entrenched"],
                 recon_terrain=values["recon_terrain"], pursuit_terrain=values["pursuit_terrain"],
                 first_shot=None if first == "none" else first,
                 first_shot_rounds=_FIRST_SHOT_ROUNDS[values["first_shot_rounds"]],
                 retreat_card=None if values["retreat_card"] == "none" else values["retreat_card"])


def stronger_when_reduced(values: Mapping[str, Any]) -> list[str]:
    """A note for each unit row whose reduced value is above its combat value where that value counts: with the
    setting ``reduced_at_half`` on, for a unit of 2 strength points or more (one of 1 is gone at half strength).

    The source says only that a unit's value is *usually* lower once it has lost half its strength or more, which
    tells of the counters, not of a rule: a higher value is unusual, not impossible, so the row is named, not
    refused. Links written while a new row's Reduced was 3 whatever its combat value hold such rows; they still
    read as they did.

    >>> v = BATTLE_INPUTS.validate({})
    >>> v["defender"]["units"][1] = {**v["defender"]["units"][1], "name": "", "combat": 2}
    >>> stronger_when_reduced(v)[0][:61]
    'Defender row 2 (infantry): its reduced value 3 is above its c'
    >>> stronger_when_reduced({**v, "settings": {**v["settings"], "reduced_at_half": False}})
    []
    """
    if not rules_of(values).reduced_at_half:
        return []
    return [f"{side.capitalize()} row {n + 1} ({u['name'] or _kind(u)}): its reduced value {u['reduced']} is "
            f"above its combat value {u['combat']}, so it fires better once it has lost half its strength or "
            "more. The source has a unit's value usually lower by then; leave Reduced empty to keep the combat "
            "value throughout."
            for side in SIDES for n, u in enumerate(values[side]["units"])
            if u["reduced"] != SAME_AS_COMBAT and u["reduced"] > u["combat"] and u["strength"] > 1]


def battle_compute(values: Mapping[str, Any]) -> dict[str, Any]:
    """The battle before the first die: each side's morale and main-round hits, and a note on any unit row that
    fires better reduced than at full strength (:func:`stronger_when_reduced`; the key only when there is one)."""
    setup, rules = setup_from(values), rules_of(values)
    out: dict[str, Any] = {"sides": {}}
    for side, enemy in (("attacker", "defender"), ("defender", "attacker")):
        own, other = setup.force(side), setup.force(enemy)
        combat = own.combat_units
        bm = battle_morale(own.leader_morale, [u.morale for u in combat], air=any(u.air for u in combat),
                           armour=sum(u.armour for u in combat), enemy_armour=sum(u.armour for u in other.combat_units),
                           booster=own.booster_morale, scenario=own.scenario_morale, rounding=rules.mean_rounding,
                           card=own.card_morale)
        bonus = sum(v for _, v in round_modifiers(setup, side, "main", rules))  # type: ignore[arg-type]
        dist = hits_distribution([Shooter(u.combat + bonus, u.rof, u.elite) for u in combat], rules)
        out["sides"][side] = {"morale": bm.to_json(), "main_modifier": bonus,
                              "main_hits": {"value": fraction_text(dist.mean()), "float": float(dist.mean())}}
    out["assumptions"] = _assumptions(values)
    notes = stronger_when_reduced(values)
    if notes:
        out["notes"] = notes
    return out


def battle_render(r: Mapping[str, Any]) -> str:
    figs = []
    for side, s in r["sides"].items():
        figs.append({"label": f"{side.capitalize()} battle morale", "value": str(s["morale"]["total"])})
        figs.append({"label": f"{side.capitalize()} hits expected in the main round "
                              f"(modifier {present.signed(s['main_modifier'])})",
                     "value": f"{s['main_hits']['value']} ≈ {s['main_hits']['float']:.2f}"})
    notes = "".join(present.note(n, "note unit-note") for n in r.get("notes", ()))
    return notes + present.figures(figs) + present.assumptions(r["assumptions"])


def battle_sample(values: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """One battle with ``random.Random(seed)``, recorded round by round."""
    out = fight(setup_from(values), rules_of(values), random.Random(seed), record=True)
    data = dataclasses.asdict(out)
    del data["opening"]  # the run's check reads it (battle_trial); the battle told here does not
    data["events"] = list(out.events)
    return {**data, "seed": seed, "observed": observed(out)}


def battle_render_sample(r: Mapping[str, Any]) -> str:
    return narrate(r)


def _setup(values: Mapping[str, Any]) -> tuple[Setup, SgsRules, OpeningCheck | None]:
    """What every battle of these inputs starts from: the setup, the rules and the opening check."""
    setup, rules = setup_from(values), rules_of(values)
    return setup, rules, opening_check(setup, rules)


_prepare = montecarlo.Prepared(_setup)
"""Built once per validated inputs object (a chunk's trials, a sweep's calls share a few)."""


@dataclasses.dataclass(frozen=True)
class OpeningCheck:
    """The part of a battle its run checks against an exact value: the opening volley scores at least ``hits``."""

    side: str
    round: str
    hits: int
    exact: Fraction
    """The chance, from the "Hits in one round" calculator (:func:`round_compute`)."""

    @property
    def label(self) -> str:
        return (f"the {self.side}'s opening volley ({self.round} round) scores at least {self.hits} "
                f"hit{'s' if self.hits > 1 else ''}")


def opening_check(setup: Setup, rules: SgsRules) -> OpeningCheck | None:
    """What a run checks of a battle: whether its opening volley (:attr:`.battle.Lineup.opening`) scores at least
    ``k`` hits, and the exact chance of that, from :func:`round_compute` given the volley's shooters, the round's
    net modifier and the die. ``k`` is the number of hits whose chance lies nearest one half (the check with the
    widest spread from battle to battle, the hardest to pass by luck); a cancelled first hit counts one off.
    None if the battle has no opening volley or no number of hits is uncertain.

    >>> c = opening_check(setup_from(BATTLE_INPUTS.validate({})), SgsRules())
    >>> c.label, c.exact
    ("the attacker's opening volley (artillery round) scores at least 1 hit", Fraction(2, 5))
    """
    line = Lineup(setup, rules)
    if line.opening is None:
        return None
    shooters, modifier, cancelled = line.opening_shooters()
    if not shooters:
        return None
    odds = round_compute({"shooters": [{"value": v, "rof": r, "elite": e, "count": 1} for v, r, e in shooters],
                          "modifier": modifier, "settings": {"die": rules.die, "elite_reroll": rules.elite_reroll}})
    at_least = {a["hits"]: Fraction(a["p"]) for a in odds["at_least"]}
    shift = 1 if cancelled else 0
    chances = {k: at_least.get(k + shift, Fraction(0)) for k in range(1, max(at_least, default=0) + 1)}
    uncertain = {k: p for k, p in chances.items() if 0 < p < 1}
    if not uncertain:
        return None
    k = min(uncertain, key=lambda k: (abs(uncertain[k] - Fraction(1, 2)), k))
    s, round_name = line.opening
    return OpeningCheck(SIDES[s], round_name, k, uncertain[k])


def battle_trial(values: Mapping[str, Any], rng: random.Random, tally: montecarlo.Tally) -> None:
    """One battle, unrecorded, into the tally: who won and how, rounds, and per side
    the strength points lost, units eliminated and panics.

    >>> from engine.widgets import get
    >>> t = get("sgs.battle").estimate(BATTLE_INPUTS.validate({}), 1, 0, 20)
    >>> t.trials, sum(t.counts["winner"].values())
    (20, 20)
    """
    setup, rules, check = _prepare(values)
    o = fight(setup, rules, rng, record=False)
    if check is not None and o.opening is not None:
        exactcheck.record(tally, o.opening >= check.hits)
    seen = observed(o)
    tally.count("winner", o.winner)
    tally.count("ending", seen["ending"])
    tally.count("routed", o.routed or "none")
    tally.count("pursuit", "yes" if o.pursuit else "no")
    for name, n in seen["numbers"].items():
        tally.observe(name, n)


def observed(o: Any) -> dict[str, Any]:
    """A battle as its run counts it: its ending, and the numbers the run's histograms hold (rounds; per
    side the strength points lost, units eliminated and panics). The seeded battle carries the same, so
    the page can say how rare it is among the run's battles (:func:`engine.luck.luck`)."""
    (a_lost, d_lost), (a_dead, d_dead), (a_panics, d_panics) = o.losses, o.eliminated, o.panics
    numbers = {"rounds": o.rounds, "attacker.lost": a_lost, "attacker.eliminated": a_dead, "attacker.panics": a_panics,
               "defender.lost": d_lost, "defender.eliminated": d_dead, "defender.panics": d_panics}
    return {"ending": ending_of(o), "numbers": numbers}


SIDES: Final = ("attacker", "defender")
WINNER_LABELS: Final = {"attacker": "The attacker wins", "defender": "The defender holds"}
"""Every battle has a winner: when both sides withdraw after recon, the defender (:class:`.battle.Outcome`)."""
ENDING_LABELS: Final = {
    "defender eliminated": "The defender was eliminated", "attacker eliminated": "The attacker was eliminated",
    "defender routed": "The defender routed", "attacker routed": "The attacker routed",
    "defender retreated": "The defender retreated", "attacker retreated": "The attacker retreated",
    "defender card": "A card sent the defender back", "attacker card": "A card sent the attacker back",
    "rounds": "Rounds ran out (the defender holds)",
    "both retreated": "Both sides withdrew after recon (the defender holds)"}
"""How a battle ended, named by the side it ended for (the loser), as the Monte Carlo table shows it."""


def ending_of(o: Any) -> str:
    """The ending's key: who routed, retreated, was eliminated or was sent back by a card.

    >>> from engine.sgs.battle import Outcome
    >>> ending_of(Outcome("defender", "retreat", 2, None, False, "attacker", (0, 0), (0, 0), (0, 0), (0, 0),
    ...                   ((), ()), False))
    'attacker retreated'
    """
    if o.reason in ("rounds", "both retreated"):
        return o.reason
    loser = "defender" if o.winner == "attacker" else "attacker"
    side = o.routed or o.retreated or loser
    return f"{side} {o.reason}" if o.reason in ("eliminated", "card") else f"{side} {o.reason}ed"


def rout_test_note(values: Mapping[str, Any]) -> str:
    """Beside a battle's result: the rout test that decides most battles is ours, not the source's."""
    r = rules_of(values)
    test = ("a demoralised side always routs" if r.rout_test == "certain" else
            f"a demoralised side routs when the die shows more than {r.rout_hold} plus its battle morale")
    return ('<p class="note assumed-note"><span class="assumed">assumed</span> '
            + present.esc(f"The rout test is ours: the source says a demoralised side tests but never how. "
                          f"Here {test}. Most battles end in a rout, so these odds lean on it; try the "
                          "settings rout_test and rout_hold to see how far.") + "</p>")


def battle_render_tally(tally: montecarlo.Tally, values: Mapping[str, Any]) -> str:
    """Many battles: win chances with their intervals, how battles ended, mean losses, rounds."""
    if not tally.trials:
        return present.note("No battles fought yet.")
    level = fraction_text(tally.confidence * 100)
    means = [("rounds", "Fire rounds fought")]
    for side in SIDES:
        means += [(f"{side}.lost", f"{side.capitalize()}: strength points lost"),
                  (f"{side}.eliminated", f"{side.capitalize()}: units eliminated"),
                  (f"{side}.panics", f"{side.capitalize()}: units that panicked")]
    return (montecarlo.outcome_table(tally, "winner", "Who won", SIDES, WINNER_LABELS, None, "Winner")
            + rout_test_note(values)
            + montecarlo.outcome_table(tally, "ending", "How the battles ended", tuple(ENDING_LABELS), ENDING_LABELS,
                                       None, "Ending")
            + montecarlo.outcome_table(tally, "routed", "Routs", ("attacker", "defender", "none"),
                                       {"attacker": "The attacker routed", "defender": "The defender routed",
                                        "none": "No rout"}, None, "Rout")
            + montecarlo.outcome_table(tally, "pursuit", "Pursuit after the battle", ("yes", "no"),
                                       {"yes": "Pursuit", "no": "No pursuit"}, None, "Pursuit")
            + present.section(f"Per battle, on average (± half the {level}% interval; sd: the spread from "
                              "battle to battle)", montecarlo.means_list(tally, means))
            + montecarlo.histogram(tally, "rounds", "Rounds fought", "Rounds")
            + montecarlo.histogram(tally, "attacker.lost", "Strength points the attacker lost", "Lost")
            + montecarlo.histogram(tally, "defender.lost", "Strength points the defender lost", "Lost")
            + _check_html(tally, values))


def _check_html(tally: montecarlo.Tally, values: Mapping[str, Any]) -> str:
    """The run's check against the exact odds of the opening volley (:func:`opening_check`)."""
    check = opening_check(setup_from(values), rules_of(values))
    if check is None:
        return ""
    return exactcheck.check_html(tally, check.label, lambda stratum: check.exact, what="battles")


BATTLE = register(Widget("sgs.battle", "A whole battle", BATTLE_INPUTS, battle_compute, battle_render,
                         sample=battle_sample, render_sample=battle_render_sample,
                         trial=battle_trial, render_tally=battle_render_tally, trials=1000, endings=ENDING_LABELS,
                         description="A land battle fought round by round from a seed, and many times over.",
                         figures=(fig.share("attacker_won", "P(attacker wins)", "winner", "attacker"),
                                  fig.share("defender_routed", "P(defender routed)", "routed", "defender"),
                                  fig.share("attacker_routed", "P(attacker routed)", "routed", "attacker"),
                                  fig.mean("attacker_lost", "Attacker's expected losses", "attacker.lost",
                                           "strength points"),
                                  fig.mean("defender_lost", "Defender's expected losses", "defender.lost",
                                           "strength points"),
                                  fig.mean("rounds", "Expected rounds", "rounds", "rounds"))))

assert len(ROUNDS) == 8


# Retreats and breakthroughs on a small map ---------------------------------------------

def _region_group(r: Any) -> Group:
    return Group(r.name.lower().replace(" ", "_"), "", label=r.name, fields=(
        Boolean("entered", "An attacking unit entered the battle from here.", r.name in ("West", "South"),
                label="Attacker came from here"),
        Boolean("enemy", "Holds the attacker's combat units.", r.enemy, label="Attacker's units here"),
        Boolean("unresolved", "A battle here is still to be fought.", r.unresolved, label="Unresolved battle"),
        Boolean("passable", "Terrain and connection allow a retreat into it.", r.passable, label="Passable"),
        Boolean("breakthrough", "Terrain allows a breakthrough into it.", r.breakthrough, label="Breakthrough terrain"),
        Integer("room", "Units it can still take (-1: no limit).", -1 if r.room is None else r.room,
                minimum=-1, maximum=20, label="Room"),
        Integer("supply", "Regions to the defender's supply source.", r.supply, minimum=0, maximum=9,
                label="Supply distance"),
    ))


_OUTER = tuple(r for r in retreat_map.SMALL_MAP.regions if r.name != "Battle")

RETREAT_INPUTS: Final = Group("inputs", "", fields=(
    Choice("loser", "The side that lost the battle.", "defender", choices=("defender", "attacker"), label="Loser"),
    Integer("units", "Defending units that retreat.", 3, minimum=1, maximum=12, label="Defending units"),
    Boolean("fort", "A friendly fortified structure stands in the battle region.", False, label="Fort in battle region"),
    Boolean("breakthrough", "The scenario allows the attacker breakthroughs.", True, label="Breakthroughs allowed"),
    Integer("used", "Breakthroughs the stack has made this turn.", 0, minimum=0, maximum=2, label="Breakthroughs made"),
    Integer("limit", "Breakthroughs a turn for this side (one for some nations).", 2, minimum=1, maximum=2,
            label="Breakthrough limit"),
    Integer("able", "Winning units able to break through (those that could pursue).", 2, minimum=0, maximum=12,
            label="Units able to break through"),
    Integer("leave", "Of those, how many the player leaves behind.", 0, minimum=0, maximum=12, label="Left behind"),
    Boolean("leader", "A victorious leader is in the battle.", True, label="Leader present"),
    Boolean("leader_may", "That leader is allowed to break through.", True, label="Leader may break through"),
) + tuple(_region_group(r) for r in _OUTER))


def _map_from(values: Mapping[str, Any]) -> tuple[Any, tuple[str, ...]]:
    regions = []
    entries = []
    for r in retreat_map.SMALL_MAP.regions:
        if r.name == "Battle":
            regions.append(dataclasses.replace(r, fort=values["fort"]))
            continue
        v = values[r.name.lower().replace(" ", "_")]
        regions.append(dataclasses.replace(r, enemy=v["enemy"], unresolved=v["unresolved"], passable=v["passable"],
                                           breakthrough=v["breakthrough"], supply=v["supply"],
                                           room=None if v["room"] < 0 else v["room"]))
        if v["entered"]:
            entries.append(r.name)
    return retreat_map.RegionMap(tuple(regions)), tuple(entries)


def retreat_compute(values: Mapping[str, Any]) -> dict[str, Any]:
    m, entries = _map_from(values)
    out: dict[str, Any] = {"map": m.to_json(), "entries": list(entries), "loser": values["loser"]}
    if values["loser"] == "defender":
        plans = retreat_map.defender_retreat_odds(m, "Battle", entries, values["units"])
        out["plans"] = [{"destinations": list(p.destinations), "steps": list(p.steps), **prob_json(q)}
                        for p, q in plans]
        out["breakthrough"] = list(retreat_map.breakthrough_targets(m, "Battle", allowed=values["breakthrough"],
                                                                    used=values["used"], limit=values["limit"]))
        able = tuple(f"unit {n + 1}" for n in range(values["able"]))
        party = retreat_map.breakthrough_party(able, leader="the leader" if values["leader"] else None,
                                               leader_may=values["leader_may"],
                                               leave=able[max(0, len(able) - values["leave"]):])
        out["party"] = {"units": list(party.units), "leader": party.leader, "staying": list(party.staying),
                        "steps": list(party.steps)}
    else:
        plan = retreat_map.attacker_retreat(m, entries)
        out["plans"] = [{"destinations": list(plan.destinations), "steps": list(plan.steps), "p": "1", "float": 1.0}]
        out["breakthrough"] = []
    return out


def _svg(r: Mapping[str, Any]) -> str:
    cells = {g["name"]: (60 + 120 * g["x"], 40 + 80 * g["y"]) for g in r["map"]}
    reached = {d for p in r["plans"] for d in p["destinations"] if d}
    lines, nodes = [], []
    done: set[frozenset[str]] = set()
    for g in r["map"]:
        for n in g["neighbours"]:
            key = frozenset((g["name"], n))
            if key not in done:
                done.add(key)
                (x1, y1), (x2, y2) = cells[g["name"]], cells[n]
                lines.append(f'<line class="link" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"></line>')
    for g in r["map"]:
        x, y = cells[g["name"]]
        kinds = ["region"] + [k for k, on in (("battle", g["name"] == "Battle"), ("enemy", g["enemy"]),
                                              ("unresolved", g["unresolved"]), ("closed", not g["passable"]),
                                              ("reached", g["name"] in reached),
                                              ("breakthrough", g["name"] in r["breakthrough"]),
                                              ("entry", g["name"] in r["entries"])) if on]
        label = present.esc(g["name"] + (" (fort)" if g["fort"] else ""))
        nodes.append(f'<g class="{" ".join(kinds)}"><circle cx="{x}" cy="{y}" r="28"></circle>'
                     f'<text x="{x}" y="{y + 4}" text-anchor="middle">{label}</text></g>')
    return (f'<svg class="region-map" viewBox="0 0 480 220" role="img" aria-label="Region map">'
            f'{"".join(lines)}{"".join(nodes)}</svg>')


def retreat_render(r: Mapping[str, Any]) -> str:
    who = "Defending" if r["loser"] == "defender" else "Attacking"
    parts = [_svg(r)]
    for p in r["plans"]:
        where = ", ".join(d or "eliminated" for d in p["destinations"])
        parts.append(present.section(f"{who} units go to: {where}",
                                     present.steps(p["steps"]) + present.figures([{"label": "Chance", "p": p["p"],
                                                                                    "float": p["float"]}])))
    if r["loser"] == "defender":
        bt = ", ".join(r["breakthrough"]) or "none"
        parts.append(present.note(f"The attacker may break through into: {bt}."))
        party = r.get("party")
        if party is not None and r["breakthrough"]:
            if party["units"]:
                who = ", ".join(party["units"]) + (f", with {party['leader']}" if party["leader"]
                                                    else " (no leader: the units move alone)")
            else:
                who = "nobody (no breakthrough)"
            parts.append(present.section(f"Breaking through: {who}", present.steps(party["steps"])))
    return "".join(parts)


RETREAT = register(Widget("sgs.retreat", "Retreats and breakthroughs", RETREAT_INPUTS, retreat_compute,
                          retreat_render, description="Where the loser retreats on a small region map, and where "
                                                      "the winner may break through.",
                          figures=(fig.Figure("plans", "Equally good retreat plans", lambda r: len(r["plans"])
                                              if isinstance(r.get("plans"), list) else None, "plans"),
                                   fig.Figure("breakthrough_units", "Units that may break through", lambda r: len(
                                       r["party"]["units"]) if isinstance(r.get("party"), dict) and isinstance(
                                       r["party"].get("units"), list) else 0 if "party" in r else None, "units"))))
