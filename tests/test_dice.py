"""Exact dice distributions."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import pytest

from engine.dice import Dist, dice, die, prob_json, roll


@pytest.mark.parametrize("count, sides", [(1, 6), (2, 6), (3, 6), (1, 10), (2, 10)])
def test_dice_match_brute_force(count, sides):
    counts: dict[int, int] = {}
    for faces in product(range(1, sides + 1), repeat=count):
        counts[sum(faces)] = counts.get(sum(faces), 0) + 1
    assert dice(count, sides) == Dist(counts)
    assert sum(dice(count, sides).probabilities().values()) == 1


@pytest.mark.parametrize("total, p", [(3, Fraction(1, 216)), (10, Fraction(27, 216)), (11, Fraction(27, 216)),
                                      (18, Fraction(1, 216)), (2, Fraction(0))])
def test_3d6_points(total, p):
    assert dice(3, 6).probability(total) == p


def test_modifier_and_clamp():
    shifted = (dice(3, 6) - 4).clamp(3, 18)
    assert shifted.probability(3) == Fraction(1 + 3 + 6 + 10 + 15, 216)  # raw 3..7 all read as 3
    assert shifted.probability(14) == Fraction(1, 216)
    assert 18 not in shifted


def test_thresholds():
    assert dice(2, 6).at_least(10) == Fraction(6, 36)
    assert dice(2, 6).at_most(5) == Fraction(10, 36)
    assert die(10).mean() == Fraction(11, 2)


def test_bind_weights_branches_by_probability():
    # half the time roll a d6 for a shift, otherwise no shift
    shift = die(2).bind(lambda coin: die(6) if coin == 1 else Dist({0: 1}))
    assert shift.probability(0) == Fraction(1, 2)
    assert shift.probability(4) == Fraction(1, 12)


def test_dist_is_immutable_and_reduced():
    d = Dist({"a": 2, "b": 4})
    assert d == Dist({"a": 1, "b": 2}) and d.total == 3
    with pytest.raises(TypeError):
        d["a"] = 5  # type: ignore[index]
    with pytest.raises(ValueError):
        Dist({})
    with pytest.raises(ValueError):
        Dist({"a": -1, "b": 2})


def test_repr_is_code():
    d = dice(2, 2)
    assert eval(repr(d)) == d


def test_seeded_roll_replays():
    a = roll(random.Random(5), 3, 6, "combat")
    b = roll(random.Random(5), 3, 6, "combat")
    assert a == b and a.total == sum(a.faces) and all(1 <= f <= 6 for f in a.faces)
    assert a.to_json() == {"label": "combat", "faces": list(a.faces), "total": a.total}


def test_prob_json():
    assert prob_json(Fraction(1)) == {"p": "1", "float": 1.0}
    assert prob_json(Fraction(0)) == {"p": "0", "float": 0.0}
    assert prob_json(Fraction(5, 18))["p"] == "5/18"
