"""Europa rule 10.C to 10.E and 10.I: ratios, the tables, terrain and weather, heavy armour."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from engine.dice import Dist
from engine.europa.effects import AECA_AECD, AECA_ATEC, armour_modifier, toward_zero
from engine.europa.heavy import (
    HEAVY_ARMOUR_CLASSES,
    HEAVY_ATEC_CLASSES,
    heavy_armour_units,
    heavy_atec_units,
    heavy_comparison,
)
from engine.europa.tables import (
    ARMOUR_TABLE,
    ARMOUR_TABLE_ROWS,
    HEAVY_TABLE,
    HEAVY_TABLE_ROWS,
    RatioTable,
    TableRow,
    number_text,
    ratio_text,
)
from engine.europa.units import Formation, Heavy, Nationality, Unit, UnitType

SEED = next((Path(__file__).resolve().parents[2] / "shared" / "seeds").glob("004_*.txt"))
SEED_TEXT = " ".join(SEED.read_text(encoding="utf-8").split())

F = Fraction


# The one printed point ---------------------------------------------------------------------

def test_seed_gives_five_point_one_to_one() -> None:
    m = re.search(r"(\d+\.\d+):1 AEC:ATEC would give a \+(\d) AEC modifier .*? with a (\d+)% chance of a \+(\d)",
                  SEED_TEXT)
    assert m is not None
    ratio, base, chance, better = F(m.group(1)), int(m.group(2)), F(int(m.group(3)), 100), int(m.group(4))
    assert (ratio, base, chance, better) == (F(51, 10), 3, F(1, 2), 4)
    row = ARMOUR_TABLE.row_for(ratio)
    assert row is not None
    assert (row.modifier, row.chance_of_next) == (base, chance)
    assert armour_modifier(ratio, F(1), F(0)).final == Dist({3: 1, 4: 1})


def test_armour_table_is_the_literal_data() -> None:
    assert ARMOUR_TABLE.rows == tuple(TableRow(F(r), m, F(c)) for r, m, c in ARMOUR_TABLE_ROWS)
    assert HEAVY_TABLE.rows == tuple(TableRow(F(r), m, F(c)) for r, m, c in HEAVY_TABLE_ROWS)


EXPECTED_ARMOUR = [
    # lowest ratio, modifier, chance of +1
    (F(0), -4, F(0)), (F(1, 5), -4, F(1, 2)), (F(1, 4), -3, F(1, 2)), (F(1, 3), -2, F(0)),
    (F(1, 2), -1, F(0)), (F(1), 0, F(0)), (F(2), 1, F(0)), (F(3), 2, F(0)), (F(4), 2, F(1, 2)),
    (F(5), 3, F(1, 2)), (F(6), 4, F(0)),
]


def test_armour_table_rows() -> None:
    assert [(r.min_ratio, r.modifier, r.chance_of_next) for r in ARMOUR_TABLE.rows] == EXPECTED_ARMOUR


@pytest.mark.parametrize("index", range(len(EXPECTED_ARMOUR)))
def test_each_armour_row_covers_its_range(index: int) -> None:
    low, modifier, chance = EXPECTED_ARMOUR[index]
    high = EXPECTED_ARMOUR[index + 1][0] if index + 1 < len(EXPECTED_ARMOUR) else low + 100
    for ratio in (low, (low + high) / 2, high - F(1, 1000)):
        row = ARMOUR_TABLE.row_for(ratio)
        assert row is not None and row.modifier == modifier and row.chance_of_next == chance
    dist = ARMOUR_TABLE.rows[index].dist()
    assert dist.probability(modifier + 1) == chance
    assert dist.probability(modifier) == 1 - chance


@pytest.mark.parametrize("index", range(len(EXPECTED_ARMOUR)))
def test_each_armour_row_through_the_modifier(index: int) -> None:
    low, modifier, chance = EXPECTED_ARMOUR[index]
    ratio = low if low else F(1, 10)
    if ratio >= 1:
        m = armour_modifier(ratio, F(1), F(0))
        assert m.comparison == AECA_ATEC
    else:
        m = armour_modifier(ratio, F(2), F(1))  # AECA:ATEC below 1:1, AECA:AECD = ratio
        assert m.comparison == AECA_AECD
    expected = Dist({modifier: chance.denominator - chance.numerator, modifier + 1: chance.numerator})
    if ratio < 1:
        expected = expected.map(lambda x: min(x, 0))
    assert m.final == expected


def test_heavy_table_rows() -> None:
    assert [(r.min_ratio, r.modifier, r.chance_of_next) for r in HEAVY_TABLE.rows] == [(F(1), 0, F(1, 2)),
                                                                                     (F(2), 1, F(0))]


def test_ratios_never_round_up() -> None:
    row = ARMOUR_TABLE.row_for(F(599, 100))
    assert row is not None and row.min_ratio == 5


def test_no_atec_reads_top_row() -> None:
    m = armour_modifier(F(1, 2), F(0), F(5))
    assert m.comparison == AECA_ATEC and m.ratio is None
    assert m.final == Dist({4: 1})


def test_one_to_one_uses_atec_not_aecd() -> None:
    m = armour_modifier(F(2), F(2), F(10))
    assert m.comparison == AECA_ATEC
    assert m.final == Dist({0: 1})


def test_below_one_to_one_uses_aecd() -> None:
    m = armour_modifier(F(1), F(2), F(3))
    assert m.comparison == AECA_AECD
    assert m.ratio == F(1, 3)
    assert m.final == Dist({-2: 1})


def test_no_aeca_against_aecd() -> None:
    m = armour_modifier(F(0), F(0), F(2))
    assert m.comparison == AECA_AECD
    assert m.final == Dist({-4: 1})


def test_no_aeca_and_no_aecd_is_no_modifier() -> None:
    m = armour_modifier(F(0), F(3), F(0))
    assert m.comparison is None
    assert m.final == Dist({0: 1})


def test_aeca_atec_never_negative_and_aecd_never_positive() -> None:
    odd = RatioTable((TableRow(F(0), 2, F(1, 2)), TableRow(F(1), -1, F(0))))
    assert armour_modifier(F(3), F(1), F(0), odd).final == Dist({0: 1})
    assert armour_modifier(F(1), F(2), F(4), odd).final == Dist({0: 1})
    crossing = RatioTable((TableRow(F(0), 0, F(1, 3)),))
    assert armour_modifier(F(1), F(2), F(4), crossing).final == Dist({0: 1})


def test_ratio_below_every_row() -> None:
    high = RatioTable((TableRow(F(2), 1, F(0)),))
    assert armour_modifier(F(1), F(2), F(4), high).row is None
    assert armour_modifier(F(1), F(2), F(4), high).final == Dist({0: 1})


@pytest.mark.parametrize(("modifier", "reduction", "expected"), [
    (3, 1, 2), (3, 3, 0), (3, 5, 0), (-2, 1, -1), (-2, 2, 0), (-1, 4, 0), (0, 2, 0), (4, 0, 4),
])
def test_toward_zero(modifier: int, reduction: int, expected: int) -> None:
    assert toward_zero(modifier, reduction) == expected


def test_terrain_and_weather_reduce_positive() -> None:
    m = armour_modifier(F(51, 10), F(1), F(0), terrain=1, weather=1)
    assert m.reduction == 2
    assert m.final == Dist({1: 1, 2: 1})


def test_terrain_and_weather_add_to_negative() -> None:
    m = armour_modifier(F(1), F(2), F(5), terrain=1, weather=1)  # 1:5 → −4 with 1/2 of −3
    assert m.base == Dist({-4: 1, -3: 1})
    assert m.final == Dist({-2: 1, -1: 1})


def test_hexside_modifier_never_helps_the_defender() -> None:
    assert armour_modifier(F(6), F(1), F(0), hexside=2).final == Dist({2: 1})
    assert armour_modifier(F(1), F(2), F(3), hexside=2).final == Dist({-2: 1})


@pytest.mark.parametrize(("ratio", "text"), [
    (F(51, 10), "5.1:1"), (F(4), "4:1"), (F(1, 2), "1:2"), (F(2, 3), "1:1.5"), (F(3, 4), "3:4"),
    (F(4, 3), "4:3"), (None, "no opposition"), (F(0), "0:1"),
])
def test_ratio_text(ratio: Fraction | None, text: str) -> None:
    assert ratio_text(ratio) == text


def test_number_text() -> None:
    assert [number_text(x) for x in (F(51, 10), F(1, 3), F(5), F(1, 8))] == ["5.1", "1/3", "5", "0.125"]


def test_table_needs_increasing_distinct_ratios() -> None:
    with pytest.raises(ValueError):
        RatioTable((TableRow(F(2), 1), TableRow(F(1), 0)))
    with pytest.raises(ValueError):
        RatioTable(())


# Heavy armour -----------------------------------------------------------------------------

def heavy_unit(key: str, heavy: Heavy, nationality: Nationality = Nationality.SOVIET,
               formation: Formation = Formation.BRIGADE, size: int = 1) -> Unit:
    return Unit(key, UnitType.TANK, formation, Fraction(size), heavy=heavy, nationality=nationality)


@pytest.mark.parametrize(("heavy", "armour", "atec"), [
    (Heavy.NONE, 0, 0), (Heavy.HEAVY_ARMOUR, 1, 1), (Heavy.HEAVY_ASSAULT_GUN, 1, 1),
    (Heavy.HEAVY_ENGINEER, 1, 1), (Heavy.HEAVY_TANK_DESTROYER, 0, 1), (Heavy.HEAVY_MOT_AA, 0, 1),
    (Heavy.HEAVY_MOT_AT, 0, 1),
])
def test_heavy_classes(heavy: Heavy, armour: int, atec: int) -> None:
    u = heavy_unit("A1", heavy)
    assert heavy_armour_units([u])[0] == armour
    assert heavy_atec_units([u])[0] == atec
    assert (heavy in HEAVY_ARMOUR_CLASSES) == bool(armour)
    assert (heavy in HEAVY_ATEC_CLASSES) == bool(atec)


@pytest.mark.parametrize(("nationality", "count"), [
    (Nationality.GERMAN, 2), (Nationality.OTHER_AXIS, 2), (Nationality.SOVIET, 1), (Nationality.OTHER_ALLIED, 1),
])
def test_axis_heavy_motorized_aa_counts_two(nationality: Nationality, count: int) -> None:
    assert heavy_atec_units([heavy_unit("D1", Heavy.HEAVY_MOT_AA, nationality)])[0] == count


def test_heavy_units_count_regardless_of_size() -> None:
    units = [heavy_unit("A1", Heavy.HEAVY_ARMOUR, formation=Formation.BATTALION),
             heavy_unit("A2", Heavy.HEAVY_ARMOUR, formation=Formation.DIVISION, size=3)]
    assert heavy_armour_units(units)[0] == 2


@pytest.mark.parametrize(("attack", "atec", "expected"), [
    (4, 2, Dist({1: 1})),
    (3, 2, Dist({0: 1, 1: 1})),
    (2, 2, Dist({0: 1})),
    (1, 2, Dist({0: 1})),
    (1, 0, Dist({1: 1})),
    (0, 0, Dist({0: 1})),
])
def test_heavy_attack(attack: int, atec: int, expected: Dist[int]) -> None:
    attackers = [heavy_unit(f"A{i}", Heavy.HEAVY_ARMOUR) for i in range(attack)]
    defenders = [heavy_unit(f"D{i}", Heavy.HEAVY_MOT_AT) for i in range(atec)]
    assert heavy_comparison(attackers, defenders).modifier == expected


def test_heavy_defence_subtracts() -> None:
    defenders = [heavy_unit("D1", Heavy.HEAVY_ARMOUR), heavy_unit("D2", Heavy.HEAVY_ARMOUR)]
    assert heavy_comparison([], defenders).modifier == Dist({-1: 1})
    attackers = [heavy_unit("A1", Heavy.HEAVY_TANK_DESTROYER)]
    assert heavy_comparison(attackers, defenders).modifier == Dist({-1: 1})  # 2:1 again


def test_heavy_both_ways() -> None:
    attackers = [heavy_unit(f"A{i}", Heavy.HEAVY_ARMOUR) for i in range(3)]
    defenders = [heavy_unit("D1", Heavy.HEAVY_ARMOUR)]
    # attack 3 vs 1 → +1; defence 1 vs 3 → none
    assert heavy_comparison(attackers, defenders).modifier == Dist({1: 1})


def test_heavy_example_follows_the_rule_not_its_count() -> None:
    assert "two Hv Tank XX, two Hv Tank X" in SEED_TEXT
    assert "three attacking units that qualify" in SEED_TEXT
    assert "twice as many heavy armour" in SEED_TEXT
    attackers = ([heavy_unit(f"A{i}", Heavy.HEAVY_ARMOUR, formation=Formation.DIVISION, size=3) for i in (1, 2)]
                 + [heavy_unit(f"A{i}", Heavy.HEAVY_ARMOUR) for i in (3, 4)]
                 + [heavy_unit(f"A{i}", Heavy.NONE) for i in (5, 6)]
                 + [Unit(f"A{i}", UnitType.ARTILLERY, Formation.REGIMENT, Fraction(1)) for i in (7, 8)])
    defenders = [Unit("D1", UnitType.INFANTRY, Formation.DIVISION, Fraction(3)),
                 Unit("D2", UnitType.HEAVY_AA, Formation.REGIMENT, Fraction(1), heavy=Heavy.HEAVY_MOT_AA,
                      motorized=True)]
    h = heavy_comparison(attackers, defenders)
    assert (h.attack.armour, h.attack.atec) == (4, 2)
    assert h.attack.ratio == 2
    assert h.modifier == Dist({1: 1})
    # the text's count of three would not be twice as many
    assert heavy_comparison(attackers[:3], defenders).modifier == Dist({0: 1, 1: 1})


def test_axis_heavy_aa_reading_note_or_example() -> None:
    # Issue 12 item 7: the note names the 2-10 heavy AA brigade, the example a heavy motorized AA regiment.
    regiment = Unit("D1", UnitType.HEAVY_AA, Formation.REGIMENT, Fraction(1), heavy=Heavy.HEAVY_MOT_AA,
                    combat_value=2)
    brigade = Unit("D2", UnitType.HEAVY_AA, Formation.BRIGADE, Fraction(1), heavy=Heavy.HEAVY_MOT_AA,
                   combat_value=2)
    other = Unit("D3", UnitType.HEAVY_AA, Formation.BRIGADE, Fraction(1), heavy=Heavy.HEAVY_MOT_AA,
                 combat_value=3)
    assert heavy_atec_units([regiment, brigade, other])[0] == 6
    assert heavy_atec_units([regiment, brigade, other], every_axis_heavy_aa=False)[0] == 4
    lines = heavy_atec_units([brigade], every_axis_heavy_aa=False)[1]
    assert lines[0].endswith("2 heavy ATEC units (an Axis 2-10 heavy AA brigade counts as two).")
