"""The ``small_general.defender_choice`` widget: which unit of a stack fights.

When a hex holds several units, the one with the best chance to stand up to
the attacker defends. The rules give no measure of that chance, so the
measure is a setting (``choice_measure``); lower is better, and ties go to
the unit less likely to be destroyed, then to the one more likely to hurt
the attacker, then to the one listed first.

>>> r = compute(CHOICE_INPUTS.validate(None))
>>> r["chosen"]["name"], [c["measure"]["p"] for c in r["candidates"]]
('Rifles', ['3/8', '35/216'])
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, Final

from .. import present
from ..dice import Dist, prob_json
from ..schema import Group
from .combat import Combat, Outcome, Unit
from .combat_widget import assumption, combat_result, play, render_combat
from .inputs import (ALL_SETTINGS, ChoiceMeasure, Settings, attacker_group, defender_list, hex_sides_field,
                     retreat_hexes_field, terrain_field)
from .rules import DESTROYED, LOSS, RETREAT

__all__ = ["CHOICE_INPUTS", "MEASURES", "TIE_BREAKS", "compute", "render", "sample", "render_sample",
           "rank"]

MEASURES: Final[Mapping[ChoiceMeasure, Callable[[Combat, Dist[Outcome]], Fraction]]] = {
    "harm": lambda c, d: d.p_where(lambda o: o.final.side == "DEF" and o.final.has(LOSS, RETREAT, DESTROYED)),
    "loss": lambda c, d: d.p_where(lambda o: o.final.side == "DEF" and o.final.has(LOSS, DESTROYED)),
    "any_result": lambda c, d: d.p_where(lambda o: o.final.side == "DEF"),
    "attacker_xp": lambda c, d: d.map(lambda o: c.xp(o)[0]).mean(),
}
"""How bad an attack is for a candidate defender; the lowest value defends."""

TIE_BREAKS: Final[tuple[str, ...]] = (
    "the unit less likely to be destroyed",
    "the unit more likely to inflict a result on the attacker",
    "the unit listed first",
)
"""How equal measures are settled, in order."""

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


def rank(combats: list[Combat], measure: ChoiceMeasure) -> list[tuple[int, Fraction, Fraction, Fraction]]:
    """Candidates best first, as (index, measure, chance destroyed, chance attacker is hit).

    >>> foot = Unit("foot", False, "supplied", 0, "none")
    >>> tired = Unit("foot", False, "supplied", 0, "shocked")
    >>> [i for i, *_ in rank([Combat("clear", 1, foot, tired), Combat("clear", 1, foot, foot)], "harm")]
    [1, 0]
    """
    keyed = []
    for i, c in enumerate(combats):
        d = c.outcomes()
        keyed.append((i, MEASURES[measure](c, d),
                      d.p_where(lambda o: o.final.side == "DEF" and o.final.has(DESTROYED)),
                      d.p_where(lambda o: o.final.side == "ATT")))
    return sorted(keyed, key=lambda k: (k[1], k[2], -k[3], k[0]))


def _measure_json(measure: ChoiceMeasure, value: Fraction) -> dict[str, Any]:
    if measure == "attacker_xp":
        return {"value": f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value),
                "float": float(value)}
    return prob_json(value)


def compute(values: Mapping[str, Any]) -> dict[str, Any]:
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


def _value_text(v: Mapping[str, Any], measure: str) -> str:
    if measure == "attacker_xp":
        return v["value"] if "/" not in v["value"] else f"{v['value']} ≈ {v['float']:.2f}"
    return f"{v['p']} ({present.percent(v['float'])})"


def render(result: Mapping[str, Any]) -> str:
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
                    f'<td class="num">{present.esc(_value_text(c["measure"], m["setting"]))}</td>'
                    f'<td class="num">{present.esc(_value_text(c["defender_destroyed"], ""))}</td>'
                    f'<td class="num">{present.esc(_value_text(c["attacker_hit"], ""))}</td>'
                    f'<td>{present.esc(mark)}</td></tr>')
    table = (f'<table class="candidates"><caption>Units in the hex: the lowest value defends</caption>'
             f'<thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>')
    ties = present.note("Ties go to " + ", then to ".join(result["tie_breaks"]) + ".")
    chosen = result["chosen"]["name"]
    return (present.section("Who defends", table + ties)
            + render_combat(result["combat"], f"Result of the attack on {chosen}"))


def sample(values: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """Widget entry point: one seeded attack on the unit that defends."""
    named = _candidates(values)
    ranking = rank([c for _, c in named], Settings.from_inputs(values["settings"]).choice_measure)
    name, combat = named[ranking[0][0]]
    played = play(combat, random.Random(seed))
    played["steps"].insert(0, f"{name} defends the hex.")
    return {**played, "defender": name, "seed": seed}


def render_sample(result: Mapping[str, Any]) -> str:
    """Widget entry point: sample to HTML."""
    return (present.rolls(result["rolls"]) + present.steps(result["steps"])
            + present.note(f"Outcome: {result['outcome']}", "outcome"))
