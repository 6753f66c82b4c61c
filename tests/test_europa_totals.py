"""Europa rule 10.B and 10.C: capability values, conversions, intrinsic ATEC and stack totals.

Every conversion rule and every worked example of the rule's text about
totals, with exact fractions.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from engine.europa.rules import EuropaRules
from engine.europa.totals import Category, effective_atec, stack_total
from engine.europa.units import (
    CAPABILITY_FACTOR,
    NEUTRAL_SHARE,
    Capability,
    Formation,
    Nationality,
    Reduction,
    Unit,
    UnitType,
)

SEED = next((Path(__file__).resolve().parents[2] / "shared" / "seeds").glob("004_*.txt"))


def unit(key: str, unit_type: UnitType = UnitType.INFANTRY, formation: Formation = Formation.REGIMENT,
         re_size: Any = 1, **kw: Any) -> Unit:
    return Unit(key, unit_type, formation, Fraction(re_size), **kw)


def tank_brigade(key: str, **kw: Any) -> Unit:
    kw.setdefault("aec", Capability.FULL)
    kw.setdefault("atec", Capability.FULL)
    return unit(key, UnitType.TANK, Formation.BRIGADE, 1, **kw)


def total(units: list[Unit], category: Category, terrain: Reduction = Reduction.NONE,
          rules: EuropaRules = EuropaRules()) -> Fraction:
    return stack_total(units, category, terrain, rules).total


# The five values -------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "own", "neutral"), [
    (Capability.DOUBLE, Fraction(2), Fraction(0)),
    (Capability.FULL, Fraction(1), Fraction(0)),
    (Capability.HALF, Fraction(1, 2), Fraction(1, 2)),
    (Capability.NEUTRAL, Fraction(0), Fraction(1)),
    (Capability.NONE, Fraction(0), Fraction(0)),
])
def test_capability_table(value: Capability, own: Fraction, neutral: Fraction) -> None:
    assert CAPABILITY_FACTOR[value] == own
    assert NEUTRAL_SHARE[value] == neutral


@pytest.mark.parametrize(("value", "expected"), [
    (Capability.DOUBLE, Fraction(6)), (Capability.FULL, Fraction(3)),
    (Capability.HALF, Fraction(2)),  # 3/2 own + 1/2 converted from its own neutral half
    (Capability.NEUTRAL, Fraction(0)), (Capability.NONE, Fraction(0)),
])
def test_single_unit_value(value: Capability, expected: Fraction) -> None:
    u = unit("A1", UnitType.TANK, Formation.DIVISION, 3, aec=value, combat_value=10)
    assert total([u], Category.AECA) == expected


def test_soviet_tank_corps_is_three_res() -> None:
    corps = unit("A1", UnitType.TANK, Formation.CORPS, 3, aec=Capability.FULL, nationality=Nationality.SOVIET)
    assert total([corps], Category.AECA) == 3


def test_assault_gun_brigade_1941_converts_its_own_half() -> None:
    ag = unit("D1", UnitType.ASSAULT_GUN, Formation.BRIGADE, 1, aec=Capability.HALF)
    t = stack_total([ag], Category.AECD)
    assert t.total == 1
    assert t.share("D1").own == Fraction(1, 2)
    assert t.conversions[0].converter == t.conversions[0].converted == "D1"
    assert t.conversions[0].res == Fraction(1, 2)


def test_panzer_grenadier_division_half_value() -> None:
    pzg = unit("D1", UnitType.MECHANIZED, Formation.DIVISION, 3, aec=Capability.HALF, combat_value=12)
    t = stack_total([pzg], Category.AECD)
    assert t.total == 2
    share = t.share("D1")
    assert share.convertible - share.converted_raw == 1  # one RE left neutral for other units
    with_tank = stack_total([pzg, tank_brigade("D2")], Category.AECD)
    assert with_tank.total == 4  # 2 + the brigade's own 1 + the leftover RE it converts


def test_half_unit_neutral_half_is_convertible_by_another_unit() -> None:
    ag = unit("D1", UnitType.ASSAULT_GUN, Formation.BRIGADE, 2, aec=Capability.HALF)
    t = stack_total([ag, tank_brigade("D2")], Category.AECD)
    assert t.total == Fraction(1) + 1 + 1  # its 1 own + 1 converted (by itself and the brigade) + brigade 1


# Who may be converted ------------------------------------------------------------------------

AEC_CONVERTIBLE = {
    UnitType.TANK: True, UnitType.MECHANIZED: True, UnitType.MOTORIZED_INFANTRY: True, UnitType.INFANTRY: True,
    UnitType.ASSAULT_GUN: True, UnitType.ANTI_TANK: False, UnitType.AA: False, UnitType.HEAVY_AA: False,
    UnitType.ARTILLERY: False, UnitType.ENGINEER: True, UnitType.HQ: False, UnitType.MORTAR: True,
    UnitType.ROCKET: True, UnitType.OTHER: True,
}
ATEC_CONVERTIBLE = {t: t not in (UnitType.MORTAR, UnitType.ROCKET) for t in UnitType}


def test_tables_cover_every_type() -> None:
    assert set(AEC_CONVERTIBLE) == set(UnitType) == set(ATEC_CONVERTIBLE)


@pytest.mark.parametrize("unit_type", list(UnitType), ids=str)
def test_aec_conversion_by_type(unit_type: UnitType) -> None:
    neutral = unit("A2", unit_type, Formation.REGIMENT, 1)
    expected = 1 + (1 if AEC_CONVERTIBLE[unit_type] else 0)
    assert total([tank_brigade("A1"), neutral], Category.AECA) == expected
    assert total([tank_brigade("D1"), neutral], Category.AECD) == expected


def test_motorized_artillery_may_become_aec() -> None:
    arty = unit("A2", UnitType.ARTILLERY, Formation.REGIMENT, 1, motorized=True)
    assert total([tank_brigade("A1"), arty], Category.AECA) == 2


@pytest.mark.parametrize("unit_type", list(UnitType), ids=str)
def test_atec_conversion_by_type(unit_type: UnitType) -> None:
    neutral = unit("D2", unit_type, Formation.REGIMENT, 1)
    expected = 1 + (1 if ATEC_CONVERTIBLE[unit_type] else 0)
    assert total([tank_brigade("D1"), neutral], Category.ATEC) == expected


def test_none_value_is_never_converted() -> None:
    assert total([tank_brigade("A1"), unit("A2", aec=Capability.NONE)], Category.AECA) == 1
    assert total([tank_brigade("D1"), unit("D2", atec=Capability.NONE)], Category.ATEC) == 1


def test_neutral_alone_counts_nothing() -> None:
    assert total([unit("A1", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 3)], Category.AECA) == 0


# How many a unit converts ------------------------------------------------------------------------

@pytest.mark.parametrize("formation", [Formation.BRIGADE, Formation.REGIMENT, Formation.CADRE,
                                       Formation.REMNANT, Formation.BATTALION])
@pytest.mark.parametrize("size", [Fraction(1, 3), Fraction(1, 2), Fraction(1), Fraction(2)])
def test_small_formations_convert_one_for_one(formation: Formation, size: Fraction) -> None:
    converter = unit("A1", UnitType.TANK, formation, size, aec=Capability.FULL)
    pool = unit("A2", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 3)
    assert total([converter, pool], Category.AECA) == size + size


@pytest.mark.parametrize(("formation", "unit_type", "nationality", "combat_value", "converts"), [
    (Formation.DIVISION, UnitType.TANK, Nationality.SOVIET, 16, 1),
    (Formation.CORPS, UnitType.TANK, Nationality.SOVIET, 9, 1),
    (Formation.DIVISION, UnitType.MECHANIZED, Nationality.OTHER_AXIS, 14, 1),
    (Formation.DIVISION, UnitType.TANK, Nationality.GERMAN, 12, 1),
    (Formation.DIVISION, UnitType.TANK, Nationality.GERMAN, 13, 2),
    (Formation.DIVISION, UnitType.MECHANIZED, Nationality.GERMAN, 13, 2),
    (Formation.DIVISION, UnitType.MECHANIZED, Nationality.GERMAN, 12, 1),
    (Formation.CORPS, UnitType.TANK, Nationality.GERMAN, 20, 1),
    (Formation.DIVISION, UnitType.MOTORIZED_INFANTRY, Nationality.GERMAN, 14, 1),
])
def test_division_and_corps_conversion(formation: Formation, unit_type: UnitType, nationality: Nationality,
                                       combat_value: int, converts: int) -> None:
    converter = unit("A1", unit_type, formation, 3, aec=Capability.FULL, nationality=nationality,
                     combat_value=combat_value)
    pool = unit("A2", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 3)
    t = stack_total([converter, pool], Category.AECA)
    assert t.converted_raw == converts
    assert t.total == 3 + converts


@pytest.mark.parametrize(("converter", "converts"), [
    (unit("A1", UnitType.TANK, Formation.BRIGADE, 1, aec=Capability.HALF), Fraction(1, 2)),
    (unit("A1", UnitType.TANK, Formation.DIVISION, 3, aec=Capability.HALF, combat_value=10), Fraction(1, 2)),
    (unit("A1", UnitType.TANK, Formation.DIVISION, 3, aec=Capability.HALF, combat_value=13), Fraction(1)),
])
def test_half_value_converts_half(converter: Unit, converts: Fraction) -> None:
    pool = unit("A2", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 3)
    t = stack_total([converter, pool], Category.AECA)
    assert t.converted_raw == converts


def test_panzer_division_16_10_with_motorized_division() -> None:
    pz = unit("A1", UnitType.TANK, Formation.DIVISION, 3, aec=Capability.DOUBLE, combat_value=16)
    for size in (2, 3):
        mot = unit("A2", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, size, combat_value=6)
        t = stack_total([pz, mot], Category.AECA)
        assert t.share("A1").own == 6
        assert t.total == 8
    weaker = unit("A1", UnitType.TANK, Formation.DIVISION, 3, aec=Capability.DOUBLE, combat_value=12)
    assert total([weaker, unit("A2", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 2)], Category.AECA) == 7


def test_tank_brigade_converts_motorized_regiment() -> None:
    t = stack_total([tank_brigade("A1"), unit("A2", UnitType.MOTORIZED_INFANTRY)], Category.AECA)
    assert t.total == 2
    assert [c.text(Category.AECA) for c in t.conversions] == ["A1 converts 1 RE of A2: +1 RE of AECA."]


@pytest.mark.parametrize(("setting", "converts"), [(False, 1), (True, 2)])
def test_double_brigade_conversion_setting(setting: bool, converts: int) -> None:
    ag = unit("A1", UnitType.ASSAULT_GUN, Formation.BRIGADE, 1, aec=Capability.DOUBLE)
    pool = unit("A2", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 3)
    t = stack_total([ag, pool], Category.AECA, rules=EuropaRules(double_converts="doubled" if setting else "size"))
    assert t.total == 2 + converts


def test_double_division_setting_does_not_change_divisions() -> None:
    pz = unit("A1", UnitType.TANK, Formation.DIVISION, 3, aec=Capability.DOUBLE, combat_value=16)
    pool = unit("A2", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 3)
    assert total([pz, pool], Category.AECA, rules=EuropaRules(double_converts="doubled")) == 8


def test_conversions_stop_when_neutral_res_run_out() -> None:
    t = stack_total([tank_brigade("A1"), tank_brigade("A2"), unit("A3", UnitType.MOTORIZED_INFANTRY)],
                    Category.AECA)
    assert t.total == 3
    assert t.converted_raw == 1


# ATEC conversions and intrinsic ATEC ------------------------------------------------------------------

def test_anti_tank_regiment_with_motorized_division() -> None:
    at = unit("D1", UnitType.ANTI_TANK, Formation.REGIMENT, 1, atec=Capability.FULL, nationality=Nationality.SOVIET)
    mot = unit("D2", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 3, nationality=Nationality.SOVIET)
    t = stack_total([at, mot], Category.ATEC)
    assert t.converted_raw == 1
    assert t.total == 2


def test_tank_corps_with_motorized_division_converts_one() -> None:
    corps = unit("D1", UnitType.TANK, Formation.CORPS, 3, atec=Capability.FULL, nationality=Nationality.SOVIET)
    mot = unit("D2", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 3, nationality=Nationality.SOVIET)
    t = stack_total([corps, mot], Category.ATEC)
    assert t.converted_raw == 1
    assert t.total == 4


def test_big_panzer_division_converts_two_to_atec() -> None:
    pz = unit("D1", UnitType.TANK, Formation.DIVISION, 3, atec=Capability.FULL, combat_value=16)
    mot = unit("D2", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 3)
    assert stack_total([pz, mot], Category.ATEC).converted_raw == 2


def test_three_tank_brigades_with_4_8_motorized_division() -> None:
    brigades = [tank_brigade(f"D{i}", combat_value=3) for i in (1, 2, 3)]
    mot = unit("D4", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 3, combat_value=4,
               intrinsic_atec=Fraction(1, 2))
    # Default changed (issue 12 item 8): conversions first, as the source's example counts them.
    t = stack_total(brigades + [mot], Category.ATEC)
    assert t.share("D4").total == 3  # conversions and intrinsic ATEC together stop at its 3 REs
    assert t.share("D4").converted_raw == 3  # "three REs of conversions"
    assert t.share("D4").intrinsic == 0
    assert t.total == 6
    assert t.intrinsic == 0
    assert any("of its 1/2 RE of intrinsic ATEC only 0 REs fits" in line for line in t.trace)
    reserved = stack_total(brigades + [mot], Category.ATEC, rules=EuropaRules(intrinsic_atec="reserved"))
    assert reserved.share("D4").converted_raw == Fraction(5, 2)
    assert reserved.share("D4").intrinsic == Fraction(1, 2)
    assert reserved.total == 6


def test_intrinsic_reading_decides_what_spare_capacity_converts() -> None:
    brigades = [tank_brigade(f"D{i}", combat_value=3) for i in (1, 2, 3)]
    mot = unit("D4", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, 3, intrinsic_atec=Fraction(1, 2))
    regiment = unit("D5", UnitType.INFANTRY, Formation.REGIMENT, 1)
    first = stack_total(brigades + [mot, regiment], Category.ATEC)
    assert (first.share("D5").converted_raw, first.share("D4").converted_raw, first.share("D4").intrinsic) == (
        1, 2, Fraction(1, 2))
    assert first.total == Fraction(13, 2)
    reserved = stack_total(brigades + [mot, regiment], Category.ATEC, rules=EuropaRules(intrinsic_atec="reserved"))
    assert reserved.total == Fraction(13, 2)


def test_intrinsic_atec_counts_alone_and_never_converts() -> None:
    div = unit("D1", UnitType.INFANTRY, Formation.DIVISION, 3, intrinsic_atec=Fraction(1))
    regiment = unit("D2", UnitType.INFANTRY, Formation.REGIMENT, 1)
    t = stack_total([div, regiment], Category.ATEC)
    assert t.total == 1
    assert t.conversions == ()


def test_intrinsic_atec_with_no_value() -> None:
    div = unit("D1", UnitType.INFANTRY, Formation.DIVISION, 3, atec=Capability.NONE, intrinsic_atec=Fraction(1, 2))
    assert total([div, tank_brigade("D2")], Category.ATEC) == Fraction(3, 2)


def test_intrinsic_atec_only_in_atec() -> None:
    div = unit("D1", UnitType.INFANTRY, Formation.DIVISION, 3, intrinsic_atec=Fraction(1))
    assert total([div], Category.AECD) == 0


def test_conversions_prefer_units_without_intrinsic_room_limits() -> None:
    div = unit("D1", UnitType.INFANTRY, Formation.DIVISION, 3, intrinsic_atec=Fraction(3))
    regiment = unit("D2", UnitType.INFANTRY, Formation.REGIMENT, 1)
    for rules in (EuropaRules(), EuropaRules(intrinsic_atec="reserved")):
        t = stack_total([div, regiment, tank_brigade("D3")], Category.ATEC, rules=rules)
        assert t.total == 3 + 1 + 1  # the division is full already; the brigade converts the regiment


# Double ATEC conditions -------------------------------------------------------------------------------

def soviet_at(key: str = "D1", **kw: Any) -> Unit:
    kw.setdefault("atec", Capability.DOUBLE)
    return unit(key, UnitType.ANTI_TANK, Formation.REGIMENT, 1, nationality=Nationality.SOVIET, **kw)


def infantry(key: str, size: Any, unit_type: UnitType = UnitType.INFANTRY) -> Unit:
    return unit(key, unit_type, Formation.DIVISION, size)


@pytest.mark.parametrize(("at", "infantry_res", "expected"), [
    (soviet_at(fortified_or_entrenched=True), 3, Capability.DOUBLE),
    (soviet_at(fortified_or_entrenched=True), Fraction(29, 10), Capability.FULL),
    (soviet_at(), 6, Capability.FULL),
    (soviet_at(reserve_moved_in_reaction=True), 6, Capability.FULL),
    (unit("D1", UnitType.HEAVY_AA, Formation.REGIMENT, 1, atec=Capability.DOUBLE, fortified_or_entrenched=True),
     3, Capability.DOUBLE),
    (unit("D1", UnitType.HEAVY_AA, Formation.REGIMENT, 1, atec=Capability.DOUBLE), 3, Capability.FULL),
    (unit("D1", UnitType.ASSAULT_GUN, Formation.BRIGADE, 1, atec=Capability.DOUBLE), 0, Capability.DOUBLE),
    (unit("D1", UnitType.TANK, Formation.DIVISION, 3, atec=Capability.DOUBLE, reserve_moved_in_reaction=True), 0,
     Capability.DOUBLE),
])
def test_double_atec_conditions(at: Unit, infantry_res: Any, expected: Capability) -> None:
    stack = [at] + ([infantry("D2", infantry_res)] if infantry_res else [])
    assert effective_atec(stack)["D1"][0] is expected


def test_double_atec_in_the_total() -> None:
    t = stack_total([soviet_at(fortified_or_entrenched=True), infantry("D2", 3)], Category.ATEC)
    assert t.share("D1").own == 2
    assert t.total == 3  # 2 own + 1 infantry RE converted


@pytest.mark.parametrize(("backs", "expected"), [(True, Capability.DOUBLE), (False, Capability.FULL)])
def test_motorized_infantry_backing_setting(backs: bool, expected: Capability) -> None:
    stack = [soviet_at(fortified_or_entrenched=True), infantry("D2", 3, UnitType.MOTORIZED_INFANTRY)]
    assert effective_atec(stack, EuropaRules(motorized_infantry_backs=backs))["D1"][0] is expected


@pytest.mark.parametrize(("pooled", "expected"), [(True, Fraction(5)), (False, Fraction(6))])
def test_infantry_backing_setting(pooled: bool, expected: Fraction) -> None:
    stack = [soviet_at("D1", fortified_or_entrenched=True), soviet_at("D2", fortified_or_entrenched=True),
             infantry("D3", 3)]
    # pooled: D1 double (2) + D2 full (1); per unit: both double (4); each converts 1 infantry RE
    assert total(stack, Category.ATEC, rules=EuropaRules(infantry_backing="pooled" if pooled else "per_unit")) == expected


# Terrain and hexsides --------------------------------------------------------------------------------

def tank_division(key: str = "A1", **kw: Any) -> Unit:
    return unit(key, UnitType.TANK, Formation.DIVISION, 3, aec=Capability.FULL, atec=Capability.FULL,
                combat_value=10, **kw)


def test_river_both_units_across() -> None:
    mot = unit("A2", UnitType.MOTORIZED_INFANTRY, across_hexside=Reduction.HALVES)
    t = stack_total([tank_division(across_hexside=Reduction.HALVES), mot], Category.AECA)
    assert t.total == 2
    assert t.before_terrain == 4


def test_river_only_converter_across() -> None:
    mot = unit("A2", UnitType.MOTORIZED_INFANTRY)
    t = stack_total([tank_division(across_hexside=Reduction.HALVES), mot], Category.AECA)
    assert t.share("A1").own == Fraction(3, 2)
    assert t.share("A2").converted == Fraction(1, 2)
    assert t.total == 2


def test_river_only_converted_unit_across() -> None:
    mot = unit("A2", UnitType.MOTORIZED_INFANTRY, across_hexside=Reduction.HALVES)
    assert total([tank_division(), mot], Category.AECA) == Fraction(7, 2)


def test_forest_behind_minor_river() -> None:
    attackers = [tank_division(across_hexside=Reduction.HALVES)]
    defenders = [tank_brigade("D1")]
    assert total(attackers, Category.AECA, Reduction.HALVES) == Fraction(3, 4)
    assert total(defenders, Category.AECD, Reduction.HALVES) == Fraction(1, 2)
    assert total(defenders, Category.ATEC, Reduction.HALVES) == 1


@pytest.mark.parametrize(("terrain", "factor"), [(Reduction.NONE, 1), (Reduction.HALVES, Fraction(1, 2)),
                                                 (Reduction.QUARTERS, Fraction(1, 4))])
def test_terrain_scales_cm_units_only(terrain: Reduction, factor: Fraction) -> None:
    assert total([tank_division()], Category.AECA, terrain) == 3 * factor
    ag = unit("A1", UnitType.ASSAULT_GUN, Formation.BRIGADE, 1, aec=Capability.FULL)
    assert total([ag], Category.AECA, terrain) == 1
    ag_mot = unit("A1", UnitType.ASSAULT_GUN, Formation.BRIGADE, 1, aec=Capability.FULL, motorized=True)
    assert total([ag_mot], Category.AECA, terrain) == factor


def test_hexside_never_scales_defenders() -> None:
    d = tank_brigade("D1", across_hexside=Reduction.HALVES)
    assert total([d], Category.AECD) == 1


def test_converted_foot_unit_counts_at_converters_factor() -> None:
    t = stack_total([tank_brigade("A1"), unit("A2", UnitType.INFANTRY)], Category.AECA, Reduction.HALVES)
    assert t.total == Fraction(1, 2) + Fraction(1, 2)


def test_motorized_infantry_at_full_strength_is_not_neutral() -> None:
    mot = unit("A2", UnitType.MOTORIZED_INFANTRY, full_strength_into_terrain=True)
    t = stack_total([tank_brigade("A1"), mot], Category.AECA, Reduction.HALVES)
    assert t.total == Fraction(1, 2)
    assert t.conversions == ()
    plain = stack_total([tank_brigade("A1"), unit("A2", UnitType.MOTORIZED_INFANTRY)], Category.AECA,
                        Reduction.HALVES)
    assert plain.total == 1
    assert total([tank_brigade("A1"), mot], Category.AECA) == 2  # no terrain: the flag changes nothing


def test_best_factors_are_paired_first() -> None:
    stack = [tank_brigade("A1", across_hexside=Reduction.HALVES), tank_brigade("A2"),
             unit("A3", UnitType.MOTORIZED_INFANTRY, across_hexside=Reduction.HALVES),
             unit("A4", UnitType.MOTORIZED_INFANTRY)]
    # own 1/2 + 1; conversions A2→A4 worth 1, A1→A3 worth 1/2
    assert total(stack, Category.AECA) == Fraction(3)


def test_totals_trace_names_every_unit() -> None:
    stack = [tank_division(), unit("A2", UnitType.HQ), unit("A3", UnitType.ARTILLERY)]
    t = stack_total(stack, Category.AECA)
    text = " ".join(t.trace)
    for key in ("A1", "A2", "A3"):
        assert key in text
    assert "A2: its neutral REs cannot be converted: HQ units may not be converted to AEC." in t.trace
    assert "A3: its neutral REs cannot be converted: non-motorized artillery may not be converted to AEC." in t.trace
    mortar = stack_total([tank_brigade("D1"), unit("D2", UnitType.MORTAR)], Category.ATEC)
    assert "D2: its neutral REs cannot be converted: mortar units may not be converted to ATEC." in mortar.trace
    assert t.trace[-1] == "Total AECA: 3 REs."


def test_seed_states_the_conversion_numbers() -> None:
    text = " ".join(SEED.read_text(encoding="utf-8").split())
    assert "greater than twelve count as 2 REs" in text
    assert "only count as 1 RE for conversion" in text
    assert "three times as many infantry REs" in text
    assert "16-10 panzer division" in text and "8 REs of AECA" in text


@pytest.mark.parametrize(("converts", "expected"), [(False, Fraction(2)), (True, Fraction(3))])
def test_half_atec_remainder_setting(converts: bool, expected: Fraction) -> None:
    half = unit("D1", UnitType.ASSAULT_GUN, Formation.BRIGADE, 2, atec=Capability.HALF)
    rules = EuropaRules(half_atec_remainder_converts=converts)
    t = stack_total([half, tank_brigade("D2")], Category.ATEC, rules=rules)
    # own 1 + the brigade's 1; the neutral RE of D1 is converted only when the setting allows
    assert t.total == expected
    note = "D1: its neutral REs cannot be converted: a unit with ATEC of its own (half) is not converted to ATEC."
    assert (note in t.trace) is not converts


def test_half_aec_remainder_always_converts() -> None:
    half = unit("D1", UnitType.ASSAULT_GUN, Formation.BRIGADE, 2, aec=Capability.HALF)
    assert total([half], Category.AECD, rules=EuropaRules(half_atec_remainder_converts=False)) == 2


def test_division_conversion_reading() -> None:
    # Issue 12 item 6: the source holds tank and mechanized divisions or corps to 1 RE of conversion.
    at_division = unit("D1", UnitType.ANTI_TANK, Formation.DIVISION, 3, atec=Capability.FULL)
    infantry_division = unit("D2", UnitType.INFANTRY, Formation.DIVISION, 3, atec=Capability.FULL)
    pool = [unit(f"D{i}", UnitType.INFANTRY, Formation.REGIMENT, 1) for i in (3, 4, 5)]
    tank_division = unit("D6", UnitType.TANK, Formation.DIVISION, 3, atec=Capability.FULL, nationality=Nationality.SOVIET)
    only = EuropaRules(division_conversion="tank_mechanized")
    assert total([at_division] + pool, Category.ATEC) == 3 + 1
    assert total([at_division] + pool, Category.ATEC, rules=only) == 3 + 3
    assert total([infantry_division] + pool[:2], Category.ATEC, rules=only) == 3 + 2
    assert total([tank_division] + pool, Category.ATEC) == total([tank_division] + pool, Category.ATEC, rules=only) == 4


@pytest.mark.parametrize("kind", [UnitType.ANTI_TANK, UnitType.AA, UnitType.HEAVY_AA])
def test_motorized_aa_and_anti_tank_convert_only_under_the_other_reading(kind: UnitType) -> None:
    """'Non-motorized' in the list of types that may not become AEC: by default the word is artillery's
    alone, so no AA or anti-tank unit converts; setting motorized_aa_at_convert reads it as covering AA
    and anti-tank too (motorized ones then convert, towed ones still not; HQs never)."""
    other = EuropaRules(motorized_aa_at_convert=True)
    motorized = [tank_brigade("A1"), unit("A2", kind, motorized=True)]
    towed = [tank_brigade("A1"), unit("A2", kind)]
    hq = [tank_brigade("A1"), unit("A2", UnitType.HQ, motorized=True)]
    assert total(motorized, Category.AECA) == total(towed, Category.AECA) == 1
    assert total(motorized, Category.AECA, rules=other) == 2
    assert total(towed, Category.AECA, rules=other) == total(hq, Category.AECA, rules=other) == 1
    words = {UnitType.ANTI_TANK: "anti-tank", UnitType.AA: "anti-aircraft", UnitType.HEAVY_AA: "heavy anti-aircraft"}
    assert (f"A2: its neutral REs cannot be converted: non-motorized {words[kind]} may not be converted to AEC."
            in stack_total(towed, Category.AECA, rules=other).trace)
