"""Exact OCS combat distributions against hand-worked cases."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from engine.ocs.combat import Settings, Situation, analyse, combat_rows, final_column
from engine.ocs.odds import BelowTable, BeyondEdges, plain_total
from engine.ocs.results import AttackContext, OptionUse
from engine.ocs.surprise import Surprise
from engine.ocs.table import Terrain, cell, columns


def situation(attack: int, defense: int, terrain: Terrain = Terrain.OPEN, attacker_ar: int = 3,
              defender_ar: int = 2, hedgehog: int = 0, context: AttackContext = AttackContext()) -> Situation:
    return Situation(plain_total(F(attack)), plain_total(F(defense)), terrain, attacker_ar, defender_ar,
                     hedgehog, context)


def two_dice_at_most(n: int) -> F:
    """P(2d6 <= n), counted by hand: 1, 3, 6, 10, 15, 21, 26, 30, 33, 35, 36 ways."""
    ways = {1: 0, 2: 1, 3: 3, 4: 6, 5: 10, 6: 15, 7: 21, 8: 26, 9: 30, 10: 33, 11: 35, 12: 36}
    return F(ways[min(max(n, 1), 12)], 36)


def test_final_column_stops_at_the_ends() -> None:
    assert [final_column(6, k) for k in (-6, -1, 0, 1, 6)] == [0, 5, 6, 7, 12]
    assert final_column(-3, 2) == 0 and final_column(-3, 5) == 2
    assert final_column(18, -6) == 12 and final_column(14, -3) == 11


@pytest.mark.parametrize("drm", range(-9, 10))
def test_combat_rows_clamp_into_the_chart(drm: int) -> None:
    rows = combat_rows(drm)
    assert set(rows) <= set(range(1, 16))
    assert rows.probability(1) == two_dice_at_most(1 - drm)
    assert rows.probability(15) == 1 - two_dice_at_most(14 - drm)


def test_case_right_edge_no_defender_surprise() -> None:
    # Open 13:1, ratings 5 against 0: differential and DRM +5.
    # Surprise: 2d6 + 5 >= 10 on 5+ (30/36); 2d6 + 5 <= 5 never. An attacker shift stays on 13:1.
    # Combat: 2d6 + 5 is 7..17. Column 13:1 reads Ae3 DL2o2DG on 7, 8, 9 (2d6 of 2-4: 6/36), else Ae2 DL2o3DG.
    a = analyse(situation(13, 1, attacker_ar=5, defender_ar=0))
    assert a.p_surprise(Surprise.ATTACKER) == F(5, 6)
    assert a.p_surprise(Surprise.DEFENDER) == 0
    assert dict(a.columns.probabilities()) == {12: F(1)}
    assert a.cells.probabilities() == {"Ae3 DL2o2DG": F(1, 6), "Ae2 DL2o3DG": F(5, 6)}
    # figures: attacker loses nothing; defender loses 2 printed steps; retreats o2 or o3 (default: retreat)
    assert a.expected_printed_loss(attacker=True) == 0
    assert a.expected_printed_loss(attacker=False) == 2
    assert a.expected("defender_retreat") == F(1, 6) * 2 + F(5, 6) * 3
    assert a.p_defender_dg() == 1
    assert a.p_exploit(5) == 1 and a.p_exploit(3) == 1 and a.p_exploit(2) == F(5, 6) and a.p_exploit(1) == 0


def test_case_three_to_one_with_shifts() -> None:
    # Open 12 against 4 is 3:1 (column 6). Ratings 3 against 2: differential and DRM +1.
    # Attacker surprise: 2d6 >= 9, 10/36. Defender surprise: 2d6 <= 4, 6/36. None: 20/36.
    a = analyse(situation(12, 4))
    assert (a.odds.column.label, a.drm, a.differential) == ("3:1", 1, 1)
    assert a.p_surprise(Surprise.ATTACKER) == F(5, 18)
    assert a.p_surprise(Surprise.DEFENDER) == F(1, 6)
    expected_columns = {6: F(5, 9)}
    expected_columns.update({6 + k: F(5, 18) * F(1, 6) for k in range(1, 7)})
    expected_columns.update({6 - k: F(1, 6) * F(1, 6) for k in range(1, 7)})
    assert a.columns.probabilities() == expected_columns
    # AL2 is read on column c for rows up to 6, 6, 5, 4, 3, 2, 1 (c = 0..6) and never further right.
    # With DRM +1 a row r or less needs 2d6 <= r - 1: 10, 10, 6, 3, 1, 0, 0 ways out of 36.
    # Only defender shifts (1/36 per column) reach columns 0..5, so P = (10 + 10 + 6 + 3 + 1) / 36 / 36.
    assert a.cells.probability("AL2") == F(30, 36 * 36) == F(5, 216)


def test_case_hedgehog_and_overrun() -> None:
    # Ratings 3 against 3 in a level-2 hedgehog: DRM -2; differential 3 - (3 + 1) = -1.
    # Overrun thresholds: attacker 2d6 - 1 >= 9 (2d6 >= 10: 6/36), defender 2d6 - 1 <= 6 (2d6 <= 7: 21/36).
    a = analyse(situation(8, 2, Terrain.CLOSE, 3, 3, hedgehog=2, context=AttackContext(overrun=True)))
    assert (a.odds.column.label, a.drm, a.differential) == ("4:1", -2, -1)
    assert a.p_surprise(Surprise.ATTACKER) == F(1, 6)
    assert a.p_surprise(Surprise.DEFENDER) == F(7, 12)
    # an overrun never earns exploitation, whatever the cell says
    assert a.p_printed_exploit() > 0
    assert all(a.p_exploit(r) == 0 for r in range(6))


def test_case_hedgehog_level_counts_once_for_surprise() -> None:
    low = analyse(situation(9, 3, hedgehog=1))
    high = analyse(situation(9, 3, hedgehog=4))
    assert low.differential == high.differential == 0
    assert (low.drm, high.drm) == (0, -3)
    assert low.surprise == high.surprise


def test_by_hand_one_column_only() -> None:
    # Open 1:5 with ratings 0 against 5: differential -5, so attacker surprise needs 2d6 >= 15: never;
    # defender shifts stop on 1:5. DRM -5: rows 1 (2d6 <= 6: 15/36), 2..7 from 2d6 of 7..12.
    a = analyse(situation(1, 5, attacker_ar=0, defender_ar=5))
    assert dict(a.columns.probabilities()) == {0: F(1)}
    # column 1:5 reads AL2 on rows 1-6 and AL1o1 on row 7 (2d6 of 12 only)
    assert a.cells.probabilities() == {"AL2": F(35, 36), "AL1o1": F(1, 36)}
    assert a.expected_printed_loss(attacker=True) == F(35, 36) * 2 + F(1, 36)
    assert a.expected("attacker_steps") == F(35, 36) * 2 + F(1, 36) * 2


def test_below_table_setting() -> None:
    s = situation(1, 9)
    assert analyse(s).odds.column.label == "1:5"
    with pytest.raises(ValueError, match="below the 1:5 column"):
        analyse(s, Settings(below_table=BelowTable.NOT_ALLOWED))


def test_beyond_edges_setting() -> None:
    # Open 30:1 runs on as 15:1, 17:1, … : far beyond one die, so under "extended" no defender shift
    # brings it back onto the chart below 13:1.
    s = situation(30, 1, attacker_ar=0, defender_ar=5)
    edge = analyse(s)
    run_on = analyse(s, Settings(beyond_edges=BeyondEdges.EXTENDED))
    assert dict(run_on.columns.probabilities()) == {12: F(1)}
    p_def = edge.p_surprise(Surprise.DEFENDER)
    assert p_def == F(33, 36)  # 2d6 - 5 <= 5
    assert edge.columns.probability(6) == p_def / 6
    # just past the end: 15:1 sits one place beyond 13:1, so a shift of k lands on 13 - k
    near = analyse(situation(15, 1, attacker_ar=0, defender_ar=5), Settings(beyond_edges=BeyondEdges.EXTENDED))
    assert near.columns.probability(12) == (1 - p_def) + p_def / 6
    assert near.columns.probability(7) == p_def / 6


def test_below_edge_extended_counts_up_from_below() -> None:
    # Open 1 against 8 lies three places below 1:5 when the row runs on (1:6, 1:7, 1:8).
    s = situation(1, 8, attacker_ar=5, defender_ar=0)
    a = analyse(s, Settings(beyond_edges=BeyondEdges.EXTENDED))
    p_att = a.p_surprise(Surprise.ATTACKER)
    # from -3, shifts of 1-3 end at or below 1:5 (column 0); 4, 5, 6 reach 1:4, 1:3, 1:2
    assert a.columns.probability(0) == (1 - p_att) + p_att * F(3, 6)
    assert a.columns.probability(3) == p_att / 6
    assert a.columns.probability(4) == 0
    b = analyse(s)
    assert b.columns.probability(6) == p_att / 6


def test_option_settings_change_the_figures() -> None:
    s = situation(12, 4)
    steps = analyse(s, Settings(attacker_options=OptionUse.STEPS, defender_options=OptionUse.STEPS))
    retreat = analyse(s, Settings(attacker_options=OptionUse.RETREAT, defender_options=OptionUse.RETREAT))
    assert steps.expected("defender_retreat") == 0
    assert retreat.expected("attacker_steps") == retreat.expected_printed_loss(attacker=True)
    # an attacker who retreats never keeps an e# that came with an option
    assert retreat.p_exploit(4) < steps.p_exploit(4)
    assert steps.expected("defender_steps") > steps.expected_printed_loss(attacker=False)


def test_exploitation_void_for_split_attacks() -> None:
    s = situation(40, 2, attacker_ar=4, defender_ar=1, context=AttackContext(attack_hexes=2, adjacent=False))
    a = analyse(s)
    assert a.p_printed_exploit() > 0 and a.p_exploit(4) == 0
    together = analyse(situation(40, 2, attacker_ar=4, defender_ar=1,
                                 context=AttackContext(attack_hexes=2, adjacent=True)))
    assert together.p_exploit(4) == together.p_printed_exploit()


@pytest.mark.parametrize("terrain", list(Terrain))
@pytest.mark.parametrize(("attacker_ar", "defender_ar", "hedgehog"), [(0, 5, 0), (3, 2, 0), (5, 0, 0), (2, 2, 3)])
@pytest.mark.parametrize("overrun", [False, True])
@pytest.mark.parametrize(("attack", "defense"), [(1, 20), (6, 3), (200, 1)])
def test_distributions_sum_to_one(terrain: Terrain, attacker_ar: int, defender_ar: int, hedgehog: int,
                                  overrun: bool, attack: int, defense: int) -> None:
    a = analyse(situation(attack, defense, terrain, attacker_ar, defender_ar, hedgehog,
                          AttackContext(overrun=overrun)))
    assert sum(p for _, p in a.outcomes()) == 1
    assert sum(a.columns.probabilities().values()) == 1
    assert sum(a.surprise.probabilities().values()) == 1
    # the cell distribution agrees with a brute-force walk over all 36 * 6 * 36 dice
    assert a.cells.probability(cell(a.odds.column.index, 7)) == brute_force(a)[cell(a.odds.column.index, 7)]


def brute_force(a) -> dict[str, F]:  # type: ignore[no-untyped-def]
    """Every face of surprise roll, shift die and combat roll, counted one by one."""
    from engine.ocs.surprise import AttackKind, surprise_for_total
    kind = AttackKind.of(a.situation.overrun)
    counts: dict[str, F] = {}
    for s1 in range(1, 7):
        for s2 in range(1, 7):
            who = surprise_for_total(s1 + s2 + a.differential, kind)
            for shift_face in range(1, 7):
                shift = {Surprise.ATTACKER: shift_face, Surprise.DEFENDER: -shift_face, Surprise.NONE: 0}[who]
                col = final_column(a.odds.start, shift)
                for c1 in range(1, 7):
                    for c2 in range(1, 7):
                        text = cell(col, c1 + c2 + a.drm)
                        counts[text] = counts.get(text, F(0)) + F(1, 36 * 6 * 36)
    return counts


@pytest.mark.parametrize("terrain", list(Terrain))
@pytest.mark.parametrize("index", range(0, 13, 3))
def test_every_cell_probability_matches_brute_force(terrain: Terrain, index: int) -> None:
    col = columns(terrain)[index]
    a = analyse(situation(col.attack, col.defense, terrain, 2, 3, 1))
    assert a.cells.probabilities() == brute_force(a)
