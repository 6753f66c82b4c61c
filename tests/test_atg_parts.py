"""Advanced Tactics Gold: the exact part calculators against hand-computed fractions."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from engine.atg import parts


@pytest.mark.parametrize("a, h, p", [
    (20, 20, F(1, 2)),          # equal values: by symmetry one half
    (10, 20, F(1, 4)),          # a <= h: a / 2h
    (30, 20, F(2, 3)),          # a > h: 1 - h / 2a = 1 - 20/60
    (F(5, 2), 10, F(1, 8)),
    (0, 10, F(0)),
    (10, 0, F(1)),
])
def test_hit_chance_continuous(a, h, p):
    assert parts.hit_chance(a, h) == p
    # ties have no weight with continuous scores
    assert parts.hit_chance(a, h, tie_reading="ties_to_attacker") == p


def _enumerate(n: int, m: int, ties: bool) -> F:
    wins = sum(1 for x in range(n) for y in range(m) if x > y or (ties and x == y))
    return F(wins, n * m)


@pytest.mark.parametrize("a, h", [(1, 1), (2, 2), (3, 2), (2, 5), (7, 7), (10, 3), (F(5, 2), 2), (0, 4)])
@pytest.mark.parametrize("ties", [False, True])
def test_hit_chance_whole_by_enumeration(a, h, ties):
    n, m = parts.whole_count(a), parts.whole_count(h)
    reading = "ties_to_attacker" if ties else "strict"
    expected = _enumerate(n, m, ties) if a > 0 else 0   # a zero attack score never hits
    assert parts.hit_chance(a, h, randomisation="whole", tie_reading=reading) == expected


def test_hit_chance_whole_by_hand():
    # 2 against 2: scores 0 or 1 each; only (1, 0) beats; (0, 0) and (1, 1) tie
    assert parts.hit_chance(2, 2, randomisation="whole") == F(1, 4)
    assert parts.hit_chance(2, 2, randomisation="whole", tie_reading="ties_to_attacker") == F(3, 4)
    # 1 against anything: the attack score is always 0 and never higher
    assert parts.hit_chance(1, 5, randomisation="whole") == 0


def test_hit_chance_steps_end_in_the_chance():
    assert parts.hit_chance_steps(30, 20)[-1] == "chance = 1 − 20 / (2 × 30) = 2/3"
    assert parts.hit_chance_steps(2, 2, randomisation="whole", tie_reading="ties_to_attacker")[-1] == "chance = 3/4"


def test_result_chances():
    assert parts.result_chances(30, 40) == (F(3, 10), F(2, 5), F(3, 10))
    assert parts.result_chances(80, 40) == (F(4, 5), F(1, 5), F(0))


def test_experience_modifier_bounds():
    assert parts.experience_modifier(20, 10, F(1, 10), F(3)) == 2
    assert parts.experience_modifier(100, 10, F(1, 10), F(3)) == 3
    assert parts.experience_modifier(1, 100, F(1, 10), F(3)) == F(1, 10)


def test_intercept_range_and_failure():
    assert parts.intercept_range(60, F(1, 2)) == 30
    # straight line from 838 (at 0) to 837 (at the edge)
    assert parts.intercept_failure(0, 30, 10, 70) == F(1, 10)
    assert parts.intercept_failure(30, 30, 10, 70) == F(7, 10)
    assert parts.intercept_failure(10, 30, 10, 70) == F(3, 10)


def test_capitulation_chance():
    # chance of not giving up is readiness / 301
    assert parts.capitulation_chance(5, 9, 10, 25) == F(4, 5)
    assert parts.capitulation_chance(0, 0, 10, 25) == 1
    assert parts.capitulation_chance(24, 10, 10, 25) == 0   # morale not below 37


@pytest.mark.parametrize("sides, hqs, factor", [(1, 1, F(11, 10)), (2, 1, F(5, 4)), (3, 1, F(3, 2)),
                                                (4, 2, F(11, 8)), (6, 1, F(5, 2)), (6, 3, F(7, 4))])
def test_concentric(sides, hqs, factor):
    from engine.atg.rules import Rules, concentric_values
    assert parts.concentric_factor(sides, hqs, concentric_values(Rules()), F(1, 2)) == factor


def test_stacking():
    assert parts.land_attack_stack_max(1, 100, 50) == 100
    assert parts.land_attack_stack_max(4, 100, 50) == 200
    assert parts.overstack_factor(200, 100, 2) == F(1, 4)
    assert parts.overstack_factor(200, 100, 1) == F(1, 2)
    assert parts.overstack_factor(100, 100, 2) == 1
    assert parts.breakthrough_failure(125, 100) == F(1, 5)


def test_max_attacked():
    assert parts.max_attacked_factor(6, 2, F(3)) == F(1, 3)
    assert parts.max_attacked_factor(3, 2, F(3)) == F(2, 3)
    assert parts.max_attacked_factor(20, 2, F(3)) == F(1, 3)   # capped by 300


def test_factors():
    assert parts.readiness_factor(60, F(1, 2)) == F(4, 5)
    assert parts.readiness_factor(60, 1) == F(3, 5)
    assert parts.supply_factor(0, F(3, 4)) == F(1, 4)
    assert parts.entrenchment_factor(25) == F(5, 4)
    assert parts.experience_factor(10) == F(11, 10)
    assert parts.river_factor(F(1, 2), False, F(1, 2)) == F(3, 2)
    assert parts.startup_factor(F(1, 2), 1) == F(1, 2)
    assert parts.startup_factor(F(1, 2), 0) == 1


def test_panic_chance():
    assert parts.panic_chance(50, 60, True, 2, F(1, 4)) == F(1, 4)
    assert parts.panic_chance(70, 60, True, 2, F(1, 4)) == 0
    assert parts.panic_chance(70, 60, False, 2, F(1, 4)) == F(1, 4)           # morale doubled: 120
    assert parts.panic_chance(50, 60, True, 2, F(1, 4), defender_under_air_attack=True) == 0
    assert parts.panic_chance(50, 30, True, 2, F(1, 4), complement=True) == F(1, 4)   # below 70


def test_out_of_fuel_help_names_only_attack():
    """Issue 19, item 7: only the attack score changes without fuel (attack.fuel), so the help names no hit points."""
    import dataclasses

    from engine.atg.rules import Rules
    from engine.settings import SETTING_KEY
    meta = {f.name: f.metadata[SETTING_KEY] for f in dataclasses.fields(Rules)}["out_of_fuel"]
    assert "hit point" not in meta["help"].lower()
    assert "attack" in meta["help"].lower()
