"""Exact odds of one OCS combat.

The procedure is enumerated stage by stage with :meth:`Dist.bind`:

1. the surprise roll (two dice plus the action-rating differential) says
   who, if anyone, has surprise;
2. a side with surprise rolls one die and moves the column that many places
   its way (right for the attacker, left for the defender);
3. the combat roll (two dice plus the DRM, held to the rows "1 or less" …
   "15 or more") picks the result on the final column.

Identical cells reached by different paths are merged.

>>> s = Situation(plain_total(Fraction(12)), plain_total(Fraction(4)), Terrain.OPEN, 3, 2)
>>> a = analyse(s)
>>> a.odds.column.label, a.drm, a.p_surprise(Surprise.ATTACKER)  # 2d6 + 1 >= 10
('3:1', 1, Fraction(5, 18))
>>> sum(a.cells.probabilities().values())
Fraction(1, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from engine.dice import Dist, dice
from engine.settings import setting

from .odds import (BelowTable, BeyondEdges, HalfRounding, Halving, Odds, StrengthTotal, find_odds,
                   plain_total, ratio_text)
from .results import (RESULT_ORDER, AttackContext, Cell, ExcusedOptions, Execution, OptionPolicy, OptionUse,
                      execute)
from .surprise import (Surprise, combat_drm, shift_dist, surprise_dist, surprise_differential)
from .table import COLUMN_COUNT, CellText, ColumnIndex, Terrain, cell, row_for_total

__all__ = [
    "Settings",
    "Situation",
    "AttackNotAllowed",
    "Analysis",
    "analyse",
    "allowed",
    "final_column",
    "combat_rows",
    "outcome_order",
    "EXPLOIT_RATINGS",
]

EXPLOIT_RATINGS = (2, 3, 4)
"""The ``e#`` numbers the chart prints, lowest first."""


@dataclass(frozen=True)
class Settings:
    """Our answers where the charts are silent, and the players' option choices.

    Each field is declared once with its form (:func:`engine.settings.setting`):
    the widgets' ``settings`` group is ``rules_group(Settings)``.

    >>> from engine.settings import rules_from, rules_group
    >>> settings = rules_from(Settings, rules_group(Settings).validate({"defender_options": "steps"}))
    >>> settings.defender_options, settings.options.attacker
    (<OptionUse.STEPS: 'steps'>, <OptionUse.STEPS: 'steps'>)
    """

    below_table: BelowTable = setting(
        BelowTable.FIRST_COLUMN, help="Odds worse than the leftmost column of the row.",
        label="Odds below the chart",
        labels={"first_column": "Use the leftmost column", "not_allowed": "Attack not allowed"},
        assumed="The chart stops at its leftmost column and does not say whether worse odds are read "
                "there or may not be attacked at all.")
    """Odds worse than the leftmost column."""
    beyond_edges: BeyondEdges = setting(
        BeyondEdges.FROM_EDGE, help="Where a surprise shift starts when the odds lie past an end of the row.",
        label="Shifts past the ends",
        labels={"from_edge": "From the end column", "extended": "From the odds on a row run on"},
        assumed="The chart does not say where a surprise shift starts when the odds lie past an end of "
                "the row; a shift here always stops at the end column.")
    """Where a shift starts when the odds lie past an end of the row."""
    halving: Halving = setting(
        Halving.EACH_UNIT, help="How out-of-supply strengths are halved.", label="Halving",
        labels={"each_unit": "Halve each unit", "side_total": "Add up, then halve"},
        assumed="The supply chart only says out-of-supply attack and defence count at half; it does not say "
                "whether each unit is halved or the side's sum.")
    """Order of halving for units out of supply."""
    half_rounding: HalfRounding = setting(
        HalfRounding.KEEP, help="What becomes of a half point.", label="Half points",
        labels={"keep": "Keep fractions", "up": "Round up", "down": "Round down"},
        assumed="The charts do not say whether a half point is kept, rounded up or rounded down.")
    """What becomes of half points."""
    attacker_options: OptionUse = setting(
        OptionUse.STEPS, help="How the attacker pays his options (o#).", label="Attacker's options",
        labels={"steps": "As step losses", "retreat": "As retreats"},
        assumed="How options are paid is the attacker's own choice; the loss and exploitation "
                "figures need one. That each option is one step or one hex is implied by note 3, "
                "not stated.")
    """How the attacker pays options, for the loss and exploitation figures."""
    defender_options: OptionUse = setting(
        OptionUse.RETREAT, help="How the defender pays his options (o#).", label="Defender's options",
        labels={"steps": "As step losses", "retreat": "As retreats"},
        assumed="How options are paid is the defender's own choice; the loss and DG figures "
                "need one. That each option is one step or one hex is implied by note 3, not "
                "stated.")
    """How the defender pays options when he pays them."""
    excused_options: ExcusedOptions = setting(
        ExcusedOptions.IGNORE, help="After an attacker retreat, does the defender skip his options?",
        label="Excused options", labels={"ignore": "Skip them", "apply": "Pay them anyway"},
        assumed="Note 2 allows the defender to skip his options after an attacker retreat but lets "
                "him pay them anyway; the figures need one of the two.")
    """Whether the defender skips options he is allowed to skip."""

    @property
    def options(self) -> OptionPolicy:
        """How each side pays options, for the loss and retreat figures."""
        return OptionPolicy(self.attacker_options, self.defender_options, self.excused_options)


@dataclass(frozen=True)
class Situation:
    """Everything the chart needs to know about one attack."""

    attack: StrengthTotal
    """Total attack strength (already halved where units are out of supply)."""
    defense: StrengthTotal
    """Total defence strength."""
    terrain: Terrain
    """Terrain row of the defender's hex."""
    attacker_ar: int
    """Action rating of the attacker's chosen unit."""
    defender_ar: int
    """Action rating of the defender's chosen unit."""
    hedgehog: int = 0
    """Level of the defenders' hedgehog, 0 for none."""
    context: AttackContext = field(default_factory=AttackContext)
    """Overrun or not, and where the attack comes from (for exploitation)."""

    @property
    def overrun(self) -> bool:
        """True for an overrun."""
        return self.context.overrun


class AttackNotAllowed(ValueError):
    """The odds are below the chart and the ``below_table`` setting forbids the attack."""


def final_column(start: ColumnIndex, shift: int) -> ColumnIndex:
    """Apply a shift and stop at either end of the chart.

    >>> final_column(10, 5), final_column(2, -6), final_column(15, -2)
    (12, 0, 12)
    """
    return min(max(start + shift, 0), COLUMN_COUNT - 1)


def combat_rows(drm: int) -> Dist[int]:
    """The result row read by the combat roll: two dice plus the DRM, held to the chart.

    >>> combat_rows(-3).probability(1)  # 2d6 of 4 or less
    Fraction(1, 6)
    """
    return (dice(2, 6) + drm).map(row_for_total)


def outcome_order(text: CellText) -> int:
    """Sort key: printed cells from the worst to the best for the attacker.

    >>> sorted(["Ae2 DL2o3DG", "AL2"], key=outcome_order)
    ['AL2', 'Ae2 DL2o3DG']
    """
    return RESULT_ORDER.index(text) if text in RESULT_ORDER else len(RESULT_ORDER)


@dataclass(frozen=True)
class Analysis:
    """Every exact distribution of one combat."""

    situation: Situation
    """The attack analysed."""
    settings: Settings
    """The settings used."""
    odds: Odds
    """Initial odds and their column."""
    drm: int
    """Combat roll modifier."""
    differential: int
    """What the surprise roll adds."""
    surprise: Dist[Surprise]
    """Who wins surprise."""
    columns: Dist[ColumnIndex]
    """Column the combat is resolved on, after any surprise shift."""
    cells: Dist[CellText]
    """Result cell, as printed."""
    executions: Dist[Execution]
    """Results carried out under the option settings."""

    def p_surprise(self, side: Surprise) -> Fraction:
        """Chance of one surprise outcome."""
        return self.surprise.probability(side)

    def outcomes(self) -> list[tuple[CellText, Fraction]]:
        """Every reachable cell with its chance, worst first for the attacker."""
        probs = self.cells.probabilities()
        return sorted(probs.items(), key=lambda item: outcome_order(item[0]))

    def expected_printed_loss(self, attacker: bool) -> Fraction:
        """Expected ``L#`` steps for one side: the losses no option choice can avoid."""
        def loss(text: CellText) -> int:
            parsed = _PARSED[text]
            return (parsed.attacker_part if attacker else parsed.defender_part).loss
        return self.cells.map(loss).mean()

    def expected(self, attribute: str) -> Fraction:
        """Expected value of one numeric :class:`Execution` field."""
        return self.executions.map(lambda e: getattr(e, attribute)).mean()

    def p_defender_dg(self) -> Fraction:
        """Chance the defenders end disorganized (``DG``, or a retreat of two hexes or more)."""
        return self.executions.p_where(lambda e: e.defender_dg)

    def p_attacker_dg(self) -> Fraction:
        """Chance the attackers end disorganized by retreating two hexes or more."""
        return self.executions.p_where(lambda e: e.attacker_dg)

    def p_exploit(self, rating: int) -> Fraction:
        """Chance an attacking unit with this action rating is marked for exploitation."""
        return self.executions.p_where(lambda e: e.exploits(rating))

    def p_printed_exploit(self) -> Fraction:
        """Chance the cell carries any ``e#`` at all, before the voiding rules."""
        return self.cells.p_where(lambda t: _PARSED[t].attacker_part.exploit is not None)


_PARSED: dict[CellText, Cell] = {text: Cell.parse(text) for text in RESULT_ORDER}


def allowed(situation: Situation, settings: Settings | None = None) -> Odds:
    """The initial odds, or :class:`AttackNotAllowed` if the settings forbid the attack.

    The cheap first step of :func:`analyse`, for a widget's ``check``.

    >>> s = Situation(plain_total(Fraction(1)), plain_total(Fraction(9)), Terrain.OPEN, 2, 2)
    >>> allowed(s).below
    True
    """
    settings = settings or Settings()
    odds = find_odds(situation.terrain, situation.attack.total, situation.defense.total)
    if odds.below and settings.below_table is BelowTable.NOT_ALLOWED:
        raise AttackNotAllowed(f"odds of {ratio_text(odds.attack, odds.defense)} are below the "
                               f"{odds.column.label} column of the {situation.terrain.label} row")
    return odds


def analyse(situation: Situation, settings: Settings | None = None) -> Analysis:
    """Enumerate one combat exactly.

    Raises :class:`AttackNotAllowed` when the odds fall below the chart and
    the ``below_table`` setting forbids such attacks.

    >>> s = Situation(plain_total(Fraction(1)), plain_total(Fraction(9)), Terrain.OPEN, 2, 2)
    >>> analyse(s).odds.column.label
    '1:5'
    >>> analyse(s, Settings(below_table=BelowTable.NOT_ALLOWED))
    Traceback (most recent call last):
    ...
    engine.ocs.combat.AttackNotAllowed: odds of 1 to 9 (1 to 9.00) are below the 1:5 column of the Open row
    """
    settings = settings or Settings()
    odds = allowed(situation, settings)
    drm = combat_drm(situation.attacker_ar, situation.defender_ar, situation.hedgehog)
    differential = surprise_differential(situation.attacker_ar, situation.defender_ar, situation.hedgehog)
    surprise = surprise_dist(differential, situation.overrun)
    start = odds.shift_start(settings.beyond_edges)
    column_dist = surprise.bind(lambda s: shift_dist(s).map(lambda k: final_column(start, k)))
    rows = combat_rows(drm)
    cells = column_dist.bind(lambda c: rows.map(lambda r: cell(c, r)))
    executions = cells.map(lambda t: execute(_PARSED[t], settings.options, situation.context))
    return Analysis(situation, settings, odds, drm, differential, surprise, column_dist, cells, executions)

