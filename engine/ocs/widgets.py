"""Every OCS widget, declared in one place: combat odds, result reader and combat walk-through.

Inputs are declared with :mod:`engine.schema`; results are plain JSON with
every probability as ``prob_json``; HTML comes only from :mod:`engine.present`.

>>> from engine import widgets
>>> widgets.get("ocs.combat").run({})["column"]
'3:1'
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from engine import figures as fig
from engine import present
from engine.dice import prob_json
from engine.schema import Boolean, Choice, Field, Group, InputError, Integer, ListOf, Number, Text, fraction_text
from engine.settings import rules_from, rules_group
from engine.widgets import Widget, register

from .combat import EXPLOIT_RATINGS, Analysis, AttackNotAllowed, Settings, Situation, allowed, analyse
from .explain import NOTES, choices, exploit_lines, parts
from .odds import StrengthTotal, Unit, plain_total, ratio_text, total_strength
from .results import CELL_SHAPE, RESULT_ORDER, AttackContext, Cell, CellFormatError
from .sequence import describe, play
from .surprise import SHIFT_DIE, SURPRISE_THRESHOLDS, AttackKind, Surprise
from .table import COLUMN_COUNT, Terrain, columns

__all__ = ["COMBAT_INPUTS", "READER_INPUTS", "CellField", "situation_from", "combat", "walkthrough", "reader"]

MAX_ACTION_RATING = 5
"""Highest action rating the form offers: a bound on input, ours (the charts give no range)."""
MAX_UNIT_STRENGTH = 100
"""Largest strength one unit may have here; printed OCS units are far below it."""
MAX_TOTAL_STRENGTH = 1000
"""Largest total strength a side may have: far above any stack OCS allows, well below float noise."""

MAX_HEDGEHOG = 9
"""Highest hedgehog level the form accepts: a bound on input only, not a rule."""
MAX_ATTACK_HEXES = 6
"""A hex has six neighbours, so an attack comes from at most six hexes."""


# Inputs -----------------------------------------------------------------

SUPPLY_CHOICES = ("supplied", "out_of_supply")

UNIT = Group("unit", "One unit: its printed strength and whether it is in supply.", fields=(
    Number("strength", "Printed attack or defence strength of the unit.", 4, minimum=0, maximum=MAX_UNIT_STRENGTH,
           label="Strength"),
    Choice("supply", "A unit out of supply counts at half strength.", "supplied", choices=SUPPLY_CHOICES,
           labels={"supplied": "Supplied", "out_of_supply": "Out of supply"}, label="Supply"),
), label="Unit")


def _units(name: str, side: str) -> ListOf:
    return ListOf(name, f"The {side} units one by one; when any are listed they replace the strength above.",
                  item=UNIT, label=f"{side.capitalize()} units", max_items=20)


SETTINGS = rules_group(Settings, "settings", "Our choices where the charts are silent, and the players' option "
                       "choices.", label="Settings")
"""Every setting of ``ocs.combat`` and ``ocs.walkthrough``, declared in :class:`~engine.ocs.combat.Settings`."""


def _action_rating(name: str, side: str, default: int) -> Integer:
    return Integer(name, f"Action rating of the unit the {side} picks to speak for his side.", default,
                   minimum=0, maximum=MAX_ACTION_RATING, label=f"{side.capitalize()}'s action rating",
                   assumed=f"The charts give no range for action ratings; 0 to {MAX_ACTION_RATING} is our bound "
                           "on what the form takes.", assumed_range_only=True)


CONTEXT_FIELDS: tuple[Field, ...] = (
    Boolean("overrun", "An overrun: its own surprise thresholds, and never any exploitation.", False,
            label="Overrun"),
    Integer("attack_hexes", "How many hexes the attack comes from (three or more: no exploitation).", 1,
            minimum=1, maximum=MAX_ATTACK_HEXES, label="Attacking hexes"),
    Boolean("adjacent_hexes", "With two attacking hexes: do they touch each other? If not, no exploitation.",
            True, label="Attacking hexes adjacent"),
)

TERRAIN = Choice("terrain", "Terrain class of the defender's hex: it picks the row of odds columns.",
                 Terrain.OPEN.value, choices=tuple(t.value for t in Terrain),
                 labels={t.value: t.label for t in Terrain}, label="Terrain")

COMBAT_INPUTS = Group("inputs", "", fields=(
    Number("attack", "Total attack strength; used when no attacking units are listed.", 12, minimum=0,
           maximum=MAX_TOTAL_STRENGTH,
           label="Attack strength"),
    _units("attack_units", "attacking"),
    _action_rating("attacker_ar", "attacker", 3),
    Number("defense", "Total defence strength; used when no defending units are listed. 0 reads past the "
           "last column.", 4, minimum=0, maximum=MAX_TOTAL_STRENGTH, label="Defence strength"),
    _units("defense_units", "defending"),
    _action_rating("defender_ar", "defender", 2),
    Integer("hedgehog", "Level of the hedgehog the defenders hold; 0 for none.", 0, minimum=0,
            maximum=MAX_HEDGEHOG, label="Hedgehog level",
            assumed=f"The charts give no highest hedgehog level; {MAX_HEDGEHOG} is our bound on what the form "
                    "takes.", assumed_range_only=True),
    TERRAIN,
    *CONTEXT_FIELDS,
    SETTINGS,
))
"""Inputs of ``ocs.combat`` and ``ocs.walkthrough``."""


class CellField(Text):
    """A result cell: the printed cells are suggested, and any well-formed cell is read.

    >>> READER_INPUTS.validate({"cell": "ae3 dl2o2dg"})["cell"]
    'Ae3 DL2o2DG'
    """

    def read(self, text: str, path: str) -> str:
        try:
            return Cell.parse(text).text
        except CellFormatError as exc:
            raise InputError(path, str(exc), "a cell such as " + ", ".join(self.suggestions[:4]) + " …") from None

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out["shape"] = CELL_SHAPE
        return out


READER_INPUTS = Group("inputs", "", fields=(
    CellField("cell", "A result as printed on the combat table, e.g. Ao1 DL1o1.", "Ao1 e4 DL1o2",
              suggestions=RESULT_ORDER, max_length=24, label="Result cell"),
    _action_rating("attacker_ar", "attacker", 3),
    *CONTEXT_FIELDS,
))
"""Inputs of ``ocs.result``."""


# From inputs to a situation ----------------------------------------------

def _settings(values: Mapping[str, Any]) -> Settings:
    return rules_from(Settings, values["settings"])


def _context(values: Mapping[str, Any]) -> AttackContext:
    return AttackContext(values["overrun"], values["attack_hexes"], values["adjacent_hexes"])


def _strength(values: Mapping[str, Any], number: str, units: str, settings: Settings) -> tuple[StrengthTotal, str]:
    """A side's strength and the field it came from."""
    listed = values[units]
    if not listed:
        return plain_total(values[number]), number
    side = [Unit(u["strength"], u["supply"] == "supplied") for u in listed]
    return total_strength(side, settings.halving, settings.half_rounding), units


def situation_from(values: Mapping[str, Any]) -> tuple[Situation, Settings]:
    """Validated inputs to a situation; raises :class:`InputError` for an attack that cannot be made.

    >>> situation_from(COMBAT_INPUTS.validate({"attack": 0}))
    Traceback (most recent call last):
    ...
    engine.schema.InputError: attack: an attack needs attack strength above 0
    """
    settings = _settings(values)
    attack, attack_field = _strength(values, "attack", "attack_units", settings)
    defense, _ = _strength(values, "defense", "defense_units", settings)
    if attack.total <= 0:
        more = " after halving" if attack.from_units else ""
        raise InputError(attack_field, f"an attack needs attack strength above 0{more}", "an attack strength above 0")
    situation = Situation(attack, defense, Terrain(values["terrain"]), values["attacker_ar"],
                          values["defender_ar"], values["hedgehog"], _context(values))
    return situation, settings


def _not_allowed(situation: Situation, exc: AttackNotAllowed) -> InputError:
    field = "attack_units" if situation.attack.from_units else "attack"
    first = columns(situation.terrain)[0].label
    return InputError(field, f"{exc}; with the setting below_table = not_allowed the attack cannot be made",
                      f"odds of at least {first}")


def _analysis(values: Mapping[str, Any]) -> Analysis:
    situation, settings = situation_from(values)
    try:
        return analyse(situation, settings)
    except AttackNotAllowed as exc:
        raise _not_allowed(situation, exc) from None


def check_combat(values: dict[str, Any]) -> None:
    """Reject attacks that cannot be made: no attack strength, or odds below the chart when forbidden.

    Cheap by contract (``Widget.check``): it totals the strengths and reads
    the initial odds, as :func:`~engine.ocs.combat.analyse` does first, and
    enumerates nothing.
    """
    situation, settings = situation_from(values)
    try:
        allowed(situation, settings)
    except AttackNotAllowed as exc:
        raise _not_allowed(situation, exc) from None


# Shared result pieces ---------------------------------------------------

def _exact(value: Fraction) -> dict[str, Any]:
    """An exact expected value (not a probability): its fraction and a float."""
    return {"exact": fraction_text(value), "float": float(value)}


def _assumptions(values: Mapping[str, Any], a: Analysis) -> list[dict[str, str]]:
    """The settings that bear on this result, with what the charts say about them."""
    s = values["settings"]
    relevant = []
    if a.odds.below:
        relevant.append("below_table")
    start = a.odds.shift_start(a.settings.beyond_edges)
    last = COLUMN_COUNT - 1
    shift_runs_off = (a.p_surprise(Surprise.ATTACKER) > 0 and start + SHIFT_DIE > last) or (
        a.p_surprise(Surprise.DEFENDER) > 0 and start - SHIFT_DIE < 0)
    if a.odds.below or a.odds.above or shift_runs_off:
        relevant.append("beyond_edges")
    halved = any(u["supply"] != "supplied" for key in ("attack_units", "defense_units") for u in values[key])
    if halved:
        relevant += ["halving", "half_rounding"]
    relevant += ["attacker_options", "defender_options", "excused_options"]
    return [{"setting": f"settings.{name}", "value": s[name], "note": SETTINGS.field(name).assumed}
            for name in relevant]


def _strength_json(total: StrengthTotal) -> dict[str, Any]:
    return {"total": fraction_text(total.total), "working": list(total.working), "from_units": total.from_units}


def _drm_parts(a: Analysis) -> list[dict[str, Any]]:
    s = a.situation
    items: list[dict[str, Any]] = [
        {"rule": "Attacker's action rating", "value": s.attacker_ar, "source": "9.7"},
        {"rule": "Defender's action rating", "value": -s.defender_ar, "source": "9.7"},
    ]
    if s.hedgehog:
        items.append({"rule": f"Hedgehog level {s.hedgehog}", "value": -s.hedgehog, "source": "9.7"})
    return items


def _surprise_parts(a: Analysis) -> list[dict[str, Any]]:
    s = a.situation
    items: list[dict[str, Any]] = [
        {"rule": "Attacker's action rating", "value": s.attacker_ar, "source": "9.8"},
        {"rule": "Defender's action rating", "value": -s.defender_ar, "source": "9.8"},
    ]
    if s.hedgehog:
        items.append({"rule": "Defenders in a hedgehog (+1 to their rating)", "value": -1, "source": "9.8"})
    return items


def _off_chart(a: Analysis) -> str:
    return "below" if a.odds.below else "above" if a.odds.above else ""


# ocs.combat -------------------------------------------------------------

def compute_combat(values: dict[str, Any]) -> dict[str, Any]:
    """The exact distribution of results for one attack, with the figures a player wants."""
    a = _analysis(values)
    s = a.situation
    row = columns(s.terrain)
    limits = SURPRISE_THRESHOLDS[AttackKind.of(s.overrun)]
    final = [{"result": row[c].label, **prob_json(p)} for c, p in a.columns.probabilities().items()]
    outcomes = [{"result": text, **prob_json(p), "side": Cell.parse(text).side} for text, p in a.outcomes()]
    derived = {
        "expected_attacker_loss": _exact(a.expected_printed_loss(attacker=True)),
        "expected_attacker_steps": _exact(a.expected("attacker_steps")),
        "expected_attacker_retreat": _exact(a.expected("attacker_retreat")),
        "expected_defender_loss": _exact(a.expected_printed_loss(attacker=False)),
        "expected_defender_steps": _exact(a.expected("defender_steps")),
        "expected_defender_retreat": _exact(a.expected("defender_retreat")),
        "p_defender_dg": prob_json(a.p_defender_dg()),
        "p_attacker_dg": prob_json(a.p_attacker_dg()),
        "p_printed_exploit": prob_json(a.p_printed_exploit()),
        "exploit_rating": s.attacker_ar,
        "p_exploit": prob_json(a.p_exploit(s.attacker_ar)),
        "p_exploit_by_rating": {str(r): prob_json(a.p_exploit(r)) for r in EXPLOIT_RATINGS},
    }
    return {
        "terrain": s.terrain.value,
        "terrain_label": s.terrain.label,
        "attack": _strength_json(s.attack),
        "defense": _strength_json(s.defense),
        "odds": ratio_text(a.odds.attack, a.odds.defense),
        "column": a.odds.column.label,
        "off_chart": _off_chart(a),
        "drm": a.drm,
        "drm_parts": _drm_parts(a),
        "surprise_differential": a.differential,
        "surprise_parts": _surprise_parts(a),
        "surprise_thresholds": {"attacker_at_least": limits.attacker_at_least,
                                "defender_at_most": limits.defender_at_most},
        "p_attacker_surprise": prob_json(a.p_surprise(Surprise.ATTACKER)),
        "p_defender_surprise": prob_json(a.p_surprise(Surprise.DEFENDER)),
        "p_no_surprise": prob_json(a.p_surprise(Surprise.NONE)),
        "final_columns": final,
        "outcomes": outcomes,
        "outcome_order": "worst to best for the attacker",
        "derived": derived,
        "exploitation_void": s.context.exploit_void_reason(),
        "assumptions": _assumptions(values, a),
    }


def _figure(label: str, value: dict[str, Any], help_text: str = "") -> dict[str, Any]:
    """A figure for ``present.figures``: a probability, or an exact expected value."""
    if "p" in value:
        item = {"label": label, "p": value["p"], "float": value["float"]}
    else:
        item = {"label": label, "value": f"{value['exact']} (≈ {value['float']:.3f})"}
    if help_text:
        item["help"] = help_text
    return item


def _odds_figures(result: Mapping[str, Any]) -> str:
    off = {"below": " (worse than the leftmost column)", "above": " (better than the rightmost column)"}
    items = [
        {"label": "Attack strength", "value": result["attack"]["total"]},
        {"label": "Defence strength", "value": result["defense"]["total"]},
        {"label": "Odds", "value": result["odds"] + off.get(result["off_chart"], "")},
        {"label": f"Column ({result['terrain_label']} row)", "value": result["column"]},
    ]
    working = []
    for side in ("attack", "defense"):
        if result[side]["from_units"]:
            name = "Attack" if side == "attack" else "Defence"
            working += [f"{name}, {line}" for line in result[side]["working"]]
    body = present.figures(items) + (present.steps(working, ordered=False) if working else "")
    return present.section("Odds", body)


def _surprise_section(result: Mapping[str, Any]) -> str:
    t = result["surprise_thresholds"]
    body = present.modifiers(result["surprise_parts"], result["surprise_differential"],
                             "Surprise roll modifier (9.8)")
    body += present.figures([
        {"label": "Attacker surprise", "p": result["p_attacker_surprise"]["p"],
         "float": result["p_attacker_surprise"]["float"], "help": f"modified roll {t['attacker_at_least']} or more"},
        {"label": "Defender surprise", "p": result["p_defender_surprise"]["p"],
         "float": result["p_defender_surprise"]["float"], "help": f"modified roll {t['defender_at_most']} or less"},
        {"label": "No surprise", "p": result["p_no_surprise"]["p"], "float": result["p_no_surprise"]["float"]},
    ])
    body += present.distribution(result["final_columns"], "Column the combat is resolved on", "Column")
    return present.section("Surprise", body)


def _derived_section(result: Mapping[str, Any]) -> str:
    d = result["derived"]
    items = [
        _figure("Attacker steps lost, printed L# only", d["expected_attacker_loss"], "expected value"),
        _figure("Attacker steps lost, options included", d["expected_attacker_steps"],
                "expected value, with options paid as the settings say"),
        _figure("Defender steps lost, printed L# only", d["expected_defender_loss"], "expected value"),
        _figure("Defender steps lost, options included", d["expected_defender_steps"],
                "expected value, with options paid as the settings say"),
        _figure("Defender hexes retreated", d["expected_defender_retreat"], "expected value"),
        _figure("Defender ends DG", d["p_defender_dg"], "DG in the cell, or a retreat of two hexes or more"),
        _figure("Any e# in the cell", d["p_printed_exploit"], "before the voiding rules"),
        _figure("Action-rating unit marked for exploitation", d["p_exploit"],
                f"rating {d['exploit_rating']}, after the voiding rules"),
    ]
    items += [_figure(f"Unit rated {r}+ marked", p, "after the voiding rules") for r, p in
              d["p_exploit_by_rating"].items()]
    body = present.figures(items)
    if result.get("exploitation_void"):
        body += present.note(f"No exploitation in this attack: {result['exploitation_void']}.")
    return present.section("What to expect", body)


def render_combat(result: dict[str, Any]) -> str:
    """The combat result as HTML."""
    return "".join([
        _odds_figures(result),
        present.modifiers(result["drm_parts"], result["drm"], "Combat roll modifier (9.7)"),
        _surprise_section(result),
        present.distribution(result["outcomes"], "Result on the combat table (worst to best for the attacker)"),
        _derived_section(result),
        present.assumptions(result["assumptions"]),
    ])


# ocs.walkthrough ----------------------------------------------------------

def compute_walkthrough(values: dict[str, Any]) -> dict[str, Any]:
    """The combat sequence with this situation's numbers, before any die is rolled."""
    a = _analysis(values)
    return {
        "column": a.odds.column.label,
        "drm": a.drm,
        "surprise_differential": a.differential,
        "p_attacker_surprise": prob_json(a.p_surprise(Surprise.ATTACKER)),
        "p_defender_surprise": prob_json(a.p_surprise(Surprise.DEFENDER)),
        "steps": describe(a),
        "assumptions": _assumptions(values, a),
    }


def render_walkthrough(result: dict[str, Any]) -> str:
    """The sequence as an ordered list: step, rule, what it means here."""
    lines = []
    for step in result["steps"]:
        rule = f" ({step['rule']})" if step["rule"] else ""
        lines.append(f"{step['title']}{rule}: {step['summary']} Here: {step['here']}")
    return (present.section("Combat sequence", present.steps(lines))
            + present.note("Roll to play this combat step by step with seeded dice.")
            + present.assumptions(result["assumptions"]))


def sample_combat(values: dict[str, Any], seed: int) -> dict[str, Any]:
    """Play the combat once with seeded dice, following the sequence."""
    a = _analysis(values)
    played = play(a, random.Random(seed))
    return {
        "seed": seed,
        "rolls": [r.to_json() for r in played.rolls],
        "steps": list(played.steps),
        "outcome": played.outcome,
        "cell": played.cell,
        "surprise": played.surprise.value,
        "shift": played.shift,
        "column": played.column,
        "row": played.row,
        "execution": list(played.execution),
    }


def render_sample(sample: dict[str, Any]) -> str:
    """Dice, steps and the result of one played combat."""
    return (present.section("Dice", present.rolls(sample["rolls"]))
            + present.section("Step by step", present.steps(sample["steps"]))
            + present.note(f"Result: {sample['outcome']}", "outcome"))


# ocs.result ---------------------------------------------------------------

def compute_reader(values: dict[str, Any]) -> dict[str, Any]:
    """A cell read code by code, with the choices left and the notes that bear on it."""
    parsed = Cell.parse(values["cell"])
    context = _context(values)
    a, d = parsed.attacker_part, parsed.defender_part
    found = parts(parsed)
    notes = []
    if a.options and a.exploit is not None:
        notes.append(1)
    if d.options and a.options:  # note 2 turns on how the attacker pays options: none owed, no release
        notes.append(2)
    if max(a.options, d.options) >= 2:
        notes.append(3)
    if a.exploit is not None:
        notes.append(4)
    return {
        "cell": parsed.text,
        "printed": parsed.printed,
        "side": parsed.side,
        "parts": [{"side": p.side, "code": p.code, "meaning": p.meaning} for p in found],
        "attacker": [p.meaning for p in found if p.side == "attacker"] or ["Nothing happens to the attackers."],
        "defender": [p.meaning for p in found if p.side == "defender"] or ["Nothing happens to the defenders."],
        "choices": choices(parsed),
        "exploitation": exploit_lines(parsed, context, values["attacker_ar"]),
        "notes": [{"number": n, "text": NOTES[n]} for n in notes],
        "order": "The attacker carries out his part first, then the defender.",
    }


def render_reader(result: dict[str, Any]) -> str:
    """The reader's answer as HTML."""
    head = present.note(f"{result['cell']}: " + ("printed on the combat table." if result["printed"]
                                                 else "well formed, but not printed on the combat table."))
    notes = [f"Note {n['number']}: {n['text']}" for n in result["notes"]]
    return "".join([
        head,
        present.section("Attacker", present.steps(result["attacker"], ordered=False)),
        present.section("Defender", present.steps(result["defender"], ordered=False)),
        present.section("Choices left: attacker", present.steps(result["choices"]["attacker"], ordered=False)),
        present.section("Choices left: defender", present.steps(result["choices"]["defender"], ordered=False)),
        present.section("Exploitation", present.steps(result["exploitation"], ordered=False)),
        present.section("Notes that apply", present.steps(notes, ordered=False)) if notes else "",
        present.note(result["order"]),
    ])


# Registration -------------------------------------------------------------

_SURPRISE = (fig.prob("p_attacker_surprise", "P(attacker surprise)", "p_attacker_surprise"),
             fig.prob("p_defender_surprise", "P(defender surprise)", "p_defender_surprise"),
             fig.value("drm", "Die modifier", "drm"))
COMBAT_FIGURES = (
    fig.outcome("p_good_for_attacker", "P(a result that favours the attacker)", "outcomes", "attacker", key="side"),
    fig.outcome("p_good_for_defender", "P(a result that favours the defender)", "outcomes", "defender", key="side"),
    fig.value("expected_defender_steps", "Expected defender steps lost", "derived", "expected_defender_steps",
              unit="steps"),
    fig.value("expected_attacker_steps", "Expected attacker steps lost", "derived", "expected_attacker_steps",
              unit="steps"),
    fig.value("expected_defender_retreat", "Expected defender retreat", "derived", "expected_defender_retreat",
              unit="hexes"),
    fig.prob("p_defender_dg", "P(defender DG)", "derived", "p_defender_dg"),
    fig.prob("p_exploit", "P(exploitation)", "derived", "p_exploit"),
    *_SURPRISE)


def _owed(side: str, letter: str) -> fig.Figure:
    """Steps (L) or options (o) the cell's part for one side names, added up."""
    def read(result: Any) -> int | None:
        parts = result.get("parts")
        if not isinstance(parts, list):
            return None
        total = 0
        for p in parts:
            if not isinstance(p, dict) or p.get("side") != side:
                continue
            code = str(p.get("code", ""))
            digits = code[1:len(code) - len(code[1:].lstrip("0123456789"))]
            if code[:1] == letter and digits:
                total += int(digits[:3])
        return total
    words = {"L": "steps lost", "o": "options owed"}[letter]
    return fig.Figure(f"{side}_{'steps' if letter == 'L' else 'options'}", f"{side.capitalize()}'s {words}", read,
                      "steps" if letter == "L" else "options")

combat = register(Widget(
    id="ocs.combat",
    title="OCS combat odds",
    inputs=COMBAT_INPUTS,
    compute=compute_combat,
    render=render_combat,
    sample=sample_combat,
    render_sample=render_sample,
    check=check_combat,
    description="Exact chance of every combat table result, with surprise, losses, DG and exploitation.",
    figures=COMBAT_FIGURES,
))

walkthrough = register(Widget(
    id="ocs.walkthrough",
    title="OCS combat, step by step",
    inputs=COMBAT_INPUTS,
    compute=compute_walkthrough,
    render=render_walkthrough,
    sample=sample_combat,
    render_sample=render_sample,
    check=check_combat,
    description="The combat sequence for one attack, played with seeded dice.",
    figures=_SURPRISE,
))

reader = register(Widget(
    id="ocs.result",
    title="OCS result reader",
    inputs=READER_INPUTS,
    compute=compute_reader,
    render=render_reader,
    description="What each part of a combat result means for both players, and the choices left.",
    figures=(_owed("defender", "L"), _owed("defender", "o"), _owed("attacker", "L"), _owed("attacker", "o")),
))
