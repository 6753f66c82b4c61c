"""OCS rules: odds rounding, supply halving, action ratings, surprise, results carried out."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from engine.ocs.odds import (BeyondEdges, HalfRounding, Halving, Unit, find_odds, ratio_text,
                             total_strength)
from engine.ocs.results import (AttackContext, Cell, CellFormatError, ExcusedOptions, OptionPolicy, OptionUse,
                                execute, option_choices)
from engine.ocs.surprise import (AttackKind, Surprise, combat_drm, shift_dist, surprise_chances,
                                 surprise_differential, surprise_for_total)
from engine.ocs.table import Terrain, columns


# Odds -----------------------------------------------------------------------

@pytest.mark.parametrize("terrain", list(Terrain))
@pytest.mark.parametrize("index", range(13))
def test_exact_column_odds_read_that_column(terrain: Terrain, index: int) -> None:
    col = columns(terrain)[index]
    odds = find_odds(terrain, F(col.attack * 3), F(col.defense * 3))
    assert odds.column == col and not odds.below and not odds.above


@pytest.mark.parametrize("terrain", list(Terrain))
@pytest.mark.parametrize("index", range(1, 13))
def test_just_short_of_a_column_rounds_down(terrain: Terrain, index: int) -> None:
    col = columns(terrain)[index]
    odds = find_odds(terrain, F(col.attack) - F(1, 100), F(col.defense))
    assert odds.column.index == index - 1


@pytest.mark.parametrize(("terrain", "attack", "defense", "label"), [
    (Terrain.OPEN, 11, 3, "3:1"),
    (Terrain.OPEN, 20, 2, "9:1"),
    (Terrain.CLOSE, 20, 2, "10:1"),
    (Terrain.VERY_CLOSE, 20, 2, "9:1"),
    (Terrain.EXTRA_CLOSE, 20, 2, "8:1"),
    (Terrain.OPEN, 2, 7, "1:4"),      # 0.286: at least 1:4 (0.25), short of 1:3
    (Terrain.OPEN, 3, 7, "1:3"),      # 3 * 3 = 9 >= 7, 3 * 2 = 6 < 7
    (Terrain.CLOSE, 5, 9, "1:2"),
    (Terrain.EXTRA_CLOSE, 51, 1, "44:1"),
    (Terrain.EXTRA_CLOSE, 52, 1, "52:1"),
    (Terrain.OPEN, F(19, 2), 3, "3:1"),
    (Terrain.OPEN, 1, 5, "1:5"),
])
def test_odds_by_hand(terrain: Terrain, attack: int, defense: int, label: str) -> None:
    assert find_odds(terrain, F(attack), F(defense)).column.label == label


def test_below_and_above_the_chart() -> None:
    low = find_odds(Terrain.OPEN, F(1), F(8))
    assert (low.column.label, low.below, low.above, low.extended) == ("1:5", True, False, -3)
    high = find_odds(Terrain.OPEN, F(17), F(1))
    assert (high.column.label, high.below, high.above, high.extended) == ("13:1", False, True, 14)
    # ties with the last column are on the chart
    assert not find_odds(Terrain.OPEN, F(13), F(1)).above


def test_extended_positions_stop_one_die_past_the_ends() -> None:
    assert find_odds(Terrain.OPEN, F(1), F(100)).extended == -6
    assert find_odds(Terrain.OPEN, F(100), F(1)).extended == 18
    assert find_odds(Terrain.EXTRA_CLOSE, F(60), F(1)).extended == 13   # 52 + 8
    assert find_odds(Terrain.VERY_CLOSE, F(1), F(4)).extended == -1     # 1:4 past 1:3


def test_zero_defence_reads_the_last_column() -> None:
    odds = find_odds(Terrain.CLOSE, F(1), F(0))
    assert (odds.column.label, odds.above, odds.extended) == ("18:1", True, 18)
    assert odds.shift_start(BeyondEdges.FROM_EDGE) == 12
    assert odds.shift_start(BeyondEdges.EXTENDED) == 18


def test_odds_need_attack_strength() -> None:
    with pytest.raises(ValueError):
        find_odds(Terrain.OPEN, F(0), F(3))


def test_ratio_text() -> None:
    assert ratio_text(F(11), F(3)) == "11 to 3 (3.67 to 1)"
    assert ratio_text(F(1), F(4)) == "1 to 4 (1 to 4.00)"


# Supply -------------------------------------------------------------------

MIXED = [Unit(F(5), False), Unit(F(3), False), Unit(F(6))]
PAIR = [Unit(F(5), False), Unit(F(5), False)]


@pytest.mark.parametrize(("units", "halving", "rounding", "total"), [
    (MIXED, Halving.EACH_UNIT, HalfRounding.KEEP, F(10)),
    (MIXED, Halving.SIDE_TOTAL, HalfRounding.KEEP, F(10)),
    (MIXED, Halving.EACH_UNIT, HalfRounding.UP, F(11)),     # 3 + 2 + 6
    (MIXED, Halving.EACH_UNIT, HalfRounding.DOWN, F(9)),    # 2 + 1 + 6
    (MIXED, Halving.SIDE_TOTAL, HalfRounding.UP, F(10)),    # 8 / 2 + 6
    (MIXED, Halving.SIDE_TOTAL, HalfRounding.DOWN, F(10)),
    (PAIR, Halving.EACH_UNIT, HalfRounding.UP, F(6)),
    (PAIR, Halving.SIDE_TOTAL, HalfRounding.UP, F(5)),
    (PAIR, Halving.EACH_UNIT, HalfRounding.KEEP, F(5)),
    ([Unit(F(3), False)], Halving.EACH_UNIT, HalfRounding.KEEP, F(3, 2)),
    ([Unit(F(1), False)], Halving.EACH_UNIT, HalfRounding.DOWN, F(0)),
    ([Unit(F(4)), Unit(F(2))], Halving.EACH_UNIT, HalfRounding.DOWN, F(6)),
])
def test_halving(units: list[Unit], halving: Halving, rounding: HalfRounding, total: F) -> None:
    result = total_strength(units, halving, rounding)
    assert result.total == total
    assert result.from_units
    assert result.working[-1] == f"total: {total.numerator if total.denominator == 1 else f'{total.numerator}/{total.denominator}'}"


def test_halving_working_says_what_was_done() -> None:
    working = total_strength(MIXED, Halving.EACH_UNIT, HalfRounding.UP).working
    assert working == ("in supply at full strength: 6", "out of supply, each halved and rounded up: 5 → 3, 3 → 2",
                       "total: 11")


# Action ratings and surprise ---------------------------------------------

@pytest.mark.parametrize("attacker", range(6))
@pytest.mark.parametrize("defender", range(6))
@pytest.mark.parametrize("hedgehog", range(4))
def test_drm_and_differential(attacker: int, defender: int, hedgehog: int) -> None:
    assert combat_drm(attacker, defender, hedgehog) == attacker - defender - hedgehog
    expected = attacker - defender - (1 if hedgehog else 0)
    assert surprise_differential(attacker, defender, hedgehog) == expected


REGULAR_BY_TOTAL = {t: ("defender" if t <= 5 else "attacker" if t >= 10 else "none") for t in range(-5, 20)}
OVERRUN_BY_TOTAL = {t: ("defender" if t <= 6 else "attacker" if t >= 9 else "none") for t in range(-5, 20)}


@pytest.mark.parametrize("total", range(-5, 20))
def test_surprise_by_total(total: int) -> None:
    assert surprise_for_total(total, AttackKind.REGULAR).value == REGULAR_BY_TOTAL[total]
    assert surprise_for_total(total, AttackKind.OVERRUN).value == OVERRUN_BY_TOTAL[total]


@pytest.mark.parametrize(("total", "regular", "overrun"), [
    (5, "defender", "defender"), (6, "none", "defender"), (7, "none", "none"), (8, "none", "none"),
    (9, "none", "attacker"), (10, "attacker", "attacker"),
])
def test_surprise_thresholds_at_the_boundaries(total: int, regular: str, overrun: str) -> None:
    assert surprise_for_total(total, AttackKind.REGULAR).value == regular
    assert surprise_for_total(total, AttackKind.OVERRUN).value == overrun


@pytest.mark.parametrize(("differential", "overrun", "attacker", "defender"), [
    (0, False, F(6, 36), F(10, 36)),     # 10+: 3+2+1 ways; 5-: 1+2+3+4
    (0, True, F(10, 36), F(15, 36)),     # 9+: 4+3+2+1; 6-: 1+2+3+4+5
    (1, False, F(10, 36), F(6, 36)),
    (-2, False, F(1, 36), F(21, 36)),    # 12 only; 7-
    (5, False, F(30, 36), F(0)),
    (-6, False, F(0), F(35, 36)),      # only 12 - 6 = 6 escapes
    (-7, False, F(0), F(1)),
    (3, True, F(26, 36), F(3, 36)),      # 6+; 3-
])
def test_surprise_chances_by_hand(differential: int, overrun: bool, attacker: F, defender: F) -> None:
    chances = surprise_chances(differential, overrun)
    assert chances[Surprise.ATTACKER] == attacker
    assert chances[Surprise.DEFENDER] == defender
    assert chances[Surprise.NONE] == 1 - attacker - defender


def test_shift_directions() -> None:
    assert sorted(shift_dist(Surprise.ATTACKER)) == [1, 2, 3, 4, 5, 6]
    assert sorted(shift_dist(Surprise.DEFENDER)) == [-6, -5, -4, -3, -2, -1]
    assert list(shift_dist(Surprise.NONE)) == [0]


# Cells -------------------------------------------------------------------

@pytest.mark.parametrize(("typed", "canonical"), [
    ("ao1 dl1o1", "Ao1 DL1o1"),
    ("AO1E4DL1O2", "Ao1 e4 DL1o2"),
    ("Ae3 DL2o2 DG", "Ae3 DL2o2DG"),
    ("AL1 DG", "AL1 DG"),
    ("Do1", "Do1"),
    ("AL3 DL2", "AL3 DL2"),
])
def test_cells_typed_loosely(typed: str, canonical: str) -> None:
    assert Cell.parse(typed).text == canonical


@pytest.mark.parametrize(("typed", "why"), [
    ("", "empty"),
    ("A", "at least one"),
    ("D", "at least one"),
    ("AL", "one digit"),
    ("AL12", "one digit"),
    ("AL0", "L0"),
    ("AL1L2", "repeats"),
    ("DL1 AL1", "attacker's part must come first"),
    ("De4", "attacker only"),
    ("ADG", "at least one"),
    ("AL1 DL1 x", "not understood"),
    ("3:1", "not understood"),
])
def test_malformed_cells(typed: str, why: str) -> None:
    with pytest.raises(CellFormatError) as err:
        Cell.parse(typed)
    assert why in str(err.value)
    assert "reads like 'Ao1 DL1o1'" in str(err.value)


def test_option_choices() -> None:
    assert option_choices(1) == ((1, 0), (0, 1))
    assert option_choices(3) == ((3, 0), (2, 1), (1, 2), (0, 3))


# Carrying out ------------------------------------------------------------

STEPS, RETREAT = OptionUse.STEPS, OptionUse.RETREAT


def test_execution_with_default_choices() -> None:
    ex = execute(Cell.parse("Ae3 DL2o2DG"))
    assert (ex.attacker_steps, ex.attacker_retreat, ex.exploit) == (0, 0, 3)
    assert (ex.defender_steps, ex.defender_retreat, ex.defender_dg) == (2, 2, True)


def test_note_1_attacker_retreat_voids_exploitation() -> None:
    ex = execute(Cell.parse("Ao1 e4 DL1o2"), OptionPolicy(attacker=RETREAT))
    assert ex.exploit is None and ex.attacker_retreat == 1 and ex.attacker_steps == 0
    assert execute(Cell.parse("Ao1 e4 DL1o2"), OptionPolicy(attacker=STEPS)).exploit == 4


def test_note_2_defender_may_skip_options() -> None:
    cell = Cell.parse("Ao1 DL1o1")
    skipped = execute(cell, OptionPolicy(attacker=RETREAT, defender=STEPS, excused=ExcusedOptions.IGNORE))
    assert (skipped.defender_steps, skipped.defender_retreat, skipped.defender_excused) == (1, 0, True)
    paid = execute(cell, OptionPolicy(attacker=RETREAT, defender=STEPS, excused=ExcusedOptions.APPLY))
    assert (paid.defender_steps, paid.defender_excused) == (2, False)
    # no attacker retreat: nothing to skip
    kept = execute(cell, OptionPolicy(attacker=STEPS, defender=STEPS))
    assert (kept.defender_steps, kept.defender_excused) == (2, False)


def test_note_3_retreat_of_two_hexes_is_dg() -> None:
    assert execute(Cell.parse("Ae4 DL1o2"), OptionPolicy(defender=RETREAT)).defender_dg
    assert not execute(Cell.parse("Ae4 DL1o2"), OptionPolicy(defender=STEPS)).defender_dg
    assert not execute(Cell.parse("Ao1 DL1o1"), OptionPolicy(defender=RETREAT)).defender_dg
    assert execute(Cell.parse("Ao1 DL1o1"), OptionPolicy(defender=STEPS)).defender_dg is False
    assert execute(Cell.parse("Ae2 DL2o3DG"), OptionPolicy(defender=STEPS)).defender_dg  # printed DG


@pytest.mark.parametrize(("context", "void"), [
    (AttackContext(), None),
    (AttackContext(overrun=True), "overrun"),
    (AttackContext(attack_hexes=3), "three or more"),
    (AttackContext(attack_hexes=6), "three or more"),
    (AttackContext(attack_hexes=2, adjacent=False), "not next to each other"),
    (AttackContext(attack_hexes=2, adjacent=True), None),
    (AttackContext(attack_hexes=1, adjacent=False), None),
])
def test_note_4_and_overruns_void_exploitation(context: AttackContext, void: str | None) -> None:
    ex = execute(Cell.parse("Ae3 DL2o2DG"), OptionPolicy(), context)
    if void is None:
        assert ex.exploit == 3 and ex.exploit_void is None
    else:
        assert ex.exploit is None and void in (ex.exploit_void or "")
        # the rest of the result still applies
        assert ex.defender_steps == 2 and ex.defender_dg


@pytest.mark.parametrize(("rating", "marked"), [(1, False), (2, False), (3, True), (5, True)])
def test_exploitation_by_rating(rating: int, marked: bool) -> None:
    assert execute(Cell.parse("Ae3 DL2o2DG")).exploits(rating) is marked
