"""The combat sequence (rule 9.2), described for a situation and played with seeded dice.

>>> [s.title for s in SEQUENCE][:3]
['Name the hexes', 'Pay supply', 'Pick action-rating units']
>>> from fractions import Fraction
>>> from .odds import plain_total
>>> s = Situation(plain_total(Fraction(12)), plain_total(Fraction(4)), Terrain.OPEN, 3, 2)
>>> played = play(analyse(s), random.Random(1))
>>> [r.label for r in played.rolls][0]
'surprise (2d6)'
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.dice import Roll, roll
from engine.present import signed
from engine.schema import fraction_text

from .combat import Analysis, Situation, analyse, final_column
from .explain import carry_out
from .odds import BeyondEdges, ratio_text
from .results import Cell, execute
from .surprise import SHIFT_DIE, SURPRISE_THRESHOLDS, AttackKind, Surprise, surprise_for_total
from .table import Terrain, cell, columns, row_for_total, row_label

__all__ = ["SequenceStep", "SEQUENCE", "describe", "Played", "play"]


@dataclass(frozen=True)
class SequenceStep:
    """One step of the combat sequence summary."""

    title: str
    """Short name of the step."""
    summary: str
    """What happens, in our words."""
    rule: str = ""
    """The rule section that governs it, when the summary names one."""


SEQUENCE: tuple[SequenceStep, ...] = (
    SequenceStep("Name the hexes", "The attacker points out the hex under attack and every hex the attack comes from."),
    SequenceStep("Pay supply", "Each side spends the supply points its part in the fight costs (see the supply tables)."),
    SequenceStep("Pick action-rating units",
                 "The attacker names the unit whose action rating speaks for his side; the defender then names his."),
    SequenceStep("Initial odds", "Total attack against total defence, rounded down to a column of the terrain row."),
    SequenceStep("Combat modifier", "The two chosen ratings and any hedgehog give the combat roll's modifier.", "9.7"),
    SequenceStep("Surprise", "Two dice decide surprise; a side that wins it moves the column by one die.", "9.8"),
    SequenceStep("Combat roll", "Two dice plus the modifier pick the result on the final column.", "9.7"),
    SequenceStep("Carry out the result", "The attacker carries out his part first, then the defender."),
)
"""The combat sequence summary, step by step."""


def _plus(n: int) -> str:
    """A modifier written into a sum: ``+ 2``, ``− 1``, ``+ 0``.

    >>> _plus(2), _plus(-1), _plus(0)
    ('+ 2', '− 1', '+ 0')
    """
    return f"− {-n}" if n < 0 else f"+ {n}"


def _hexes_text(a: Analysis) -> str:
    ctx = a.situation.context
    kind = "an overrun" if ctx.overrun else "a regular attack"
    where = "1 hex" if ctx.attack_hexes == 1 else f"{ctx.attack_hexes} hexes"
    if ctx.attack_hexes == 2:
        where += " that " + ("touch each other" if ctx.adjacent else "do not touch")
    terrain = a.situation.terrain.label
    article = "an" if terrain[0] in "AEIOU" else "a"
    return f"{kind} on {article} {terrain} hex from {where}"


def _odds_text(a: Analysis) -> str:
    o = a.odds
    text = f"{ratio_text(o.attack, o.defense)} reads the {o.column.label} column of the {o.terrain.label} row"
    if o.below:
        text += " (worse than the leftmost column)"
    elif o.above:
        text += " (better than the rightmost column)"
    return text


def _drm_text(a: Analysis) -> str:
    s = a.situation
    return f"{s.attacker_ar} − {s.defender_ar} − {s.hedgehog} (hedgehog) = {signed(a.drm)}"


def _thresholds_text(a: Analysis) -> str:
    limits = SURPRISE_THRESHOLDS[AttackKind.of(a.situation.overrun)]
    return (f"attacker surprise on {limits.attacker_at_least} or more, "
            f"defender surprise on {limits.defender_at_most} or less")


def describe(a: Analysis) -> list[dict[str, str]]:
    """Each sequence step with what it comes to in this situation (no dice rolled).

    >>> from fractions import Fraction
    >>> from .odds import plain_total
    >>> s = Situation(plain_total(Fraction(12)), plain_total(Fraction(4)), Terrain.OPEN, 3, 2)
    >>> describe(analyse(s))[4]["here"]
    '3 − 2 − 0 (hedgehog) = +1.'
    """
    s = a.situation
    hedgehog = f"; the defenders hold a level {s.hedgehog} hedgehog" if s.hedgehog else ""
    here = [
        f"{_hexes_text(a)[0].upper()}{_hexes_text(a)[1:]}.",
        f"Attack strength {fraction_text(s.attack.total)}, defence strength {fraction_text(s.defense.total)}.",
        f"Attacker's rating {s.attacker_ar}, defender's rating {s.defender_ar}{hedgehog}.",
        f"{_odds_text(a)[0].upper()}{_odds_text(a)[1:]}.",
        f"{_drm_text(a)}.",
        f"Two dice {signed(a.differential)}: {_thresholds_text(a)}.",
        f"Two dice {signed(a.drm)}, held between the rows “1 or less” and “15 or more”.",
        "Attacker first, then defender.",
    ]
    return [{"title": step.title, "rule": step.rule, "summary": step.summary, "here": text}
            for step, text in zip(SEQUENCE, here)]


@dataclass(frozen=True)
class Played:
    """One combat played out with seeded dice."""

    rolls: tuple[Roll, ...]
    """Every roll, in the order made."""
    steps: tuple[str, ...]
    """What happened at each step."""
    surprise: Surprise
    """Who won surprise."""
    shift: int
    """Columns moved (+ right, - left)."""
    column: str
    """Final column heading."""
    row: str
    """Result row heading."""
    cell: str
    """The printed result."""
    execution: tuple[str, ...]
    """The result carried out, attacker first."""

    @property
    def outcome(self) -> str:
        """One line: the result and where it was read."""
        return f"{self.cell} (row {self.row}, column {self.column})"


def _shift_text(a: Analysis, start: int, die_roll: int, shift: int) -> str:
    """The shift die in words; a shift held at an end of the row says so rather than claim a move.

    >>> from fractions import Fraction
    >>> from .odds import plain_total
    >>> s = Situation(plain_total(Fraction(40)), plain_total(Fraction(2)), Terrain.OPEN, 3, 2)
    >>> _shift_text(analyse(s), 12, 3, 3)
    'Shift die 3: a shift of 3 right, stopped at the end of the row; the combat stays on 13:1.'
    >>> s = Situation(plain_total(Fraction(12)), plain_total(Fraction(4)), Terrain.OPEN, 3, 2)
    >>> _shift_text(analyse(s), 6, 2, -2)
    'Shift die 2: a shift of 2 left; the column goes from 3:1 to 1:1.'
    """
    row_cols = columns(a.situation.terrain)
    direction = "right" if shift > 0 else "left"
    text = f"Shift die {die_roll}: a shift of {abs(shift)} {direction}"
    if a.settings.beyond_edges is BeyondEdges.EXTENDED and start != a.odds.start:
        text += ", counted from beyond the end of the row"
    end = final_column(start, shift)
    if end != start + shift:
        text += ", stopped at the end of the row"
    before, after = a.odds.column.label, row_cols[end].label
    if end == a.odds.start:
        return f"{text}; the combat stays on {after}."
    return f"{text}; the column goes from {before} to {after}."


def play(a: Analysis, rng: random.Random) -> Played:
    """Play the sequence once: surprise roll, shift die if needed, combat roll, result."""
    s = a.situation
    row_cols = columns(s.terrain)
    rolls: list[Roll] = []
    steps = [f"{step.title}: {line['here']}" for step, line in zip(SEQUENCE[:5], describe(a))]

    surprise_roll = roll(rng, 2, 6, "surprise (2d6)")
    rolls.append(surprise_roll)
    total = surprise_roll.total + a.differential
    who = surprise_for_total(total, AttackKind.of(s.overrun))
    start = a.odds.shift_start(a.settings.beyond_edges)
    line = (f"Surprise: rolled {surprise_roll.total} {_plus(a.differential)} = {total}; "
            + {Surprise.ATTACKER: "the attacker has surprise.", Surprise.DEFENDER: "the defender has surprise.",
               Surprise.NONE: "nobody has surprise; the column stays."}[who])
    shift = 0
    if who is not Surprise.NONE:
        shift_roll = roll(rng, 1, SHIFT_DIE, "surprise shift (1d6)")
        rolls.append(shift_roll)
        shift = shift_roll.total if who is Surprise.ATTACKER else -shift_roll.total
        line += " " + _shift_text(a, start, shift_roll.total, shift)
    steps.append(line)
    column = final_column(start, shift)

    combat_roll = roll(rng, 2, 6, "combat (2d6)")
    rolls.append(combat_roll)
    modified = combat_roll.total + a.drm
    row = row_for_total(modified)
    text = cell(column, row)
    steps.append(f"Combat roll: rolled {combat_roll.total} {_plus(a.drm)} = {modified}, "
                 f"row “{row_label(row)}” of the {row_cols[column].label} column: {text}.")
    parsed = Cell.parse(text)
    execution = carry_out(parsed, execute(parsed, a.settings.options, s.context), a.settings.options, s.attacker_ar)
    steps.extend(f"Carry out the result: {x}" for x in execution)
    return Played(tuple(rolls), tuple(steps), who, shift, row_cols[column].label, row_label(row), text,
                  tuple(execution))

