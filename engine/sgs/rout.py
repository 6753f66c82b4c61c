"""Demoralisation and the rout test.

A side whose battle morale falls below zero is demoralised (a setting also
offers zero or below, as the source says both). If both sides are, only the
one that suffered more losses and panics together tests; on a tie the one
with more panics tests; on a full tie nobody does. The source gives no rout
test: by default (assumed) the side routs when the die is above
``rout_hold`` plus its battle morale.

>>> rules = SgsRules()
>>> demoralised(-1, rules), demoralised(0, rules), demoralised(0, SgsRules(demoralised="zero or below"))
(True, False, True)
>>> rout_chance(-1, rules), rout_chance(-3, rules), rout_chance(-5, rules)
(Fraction(3, 5), Fraction(4, 5), Fraction(1, 1))
>>> who_tests(True, True, (3, 1), (2, 1), rules), who_tests(True, True, (3, 1), (2, 2), rules)
('attacker', 'defender')
>>> who_tests(True, True, (2, 1), (2, 1), rules) is None
True
"""

from __future__ import annotations

from fractions import Fraction

from .rules import SgsRules, faces
from .units import SideName

__all__ = ["demoralised", "routs", "rout_chance", "who_tests"]


def demoralised(bm: int, rules: SgsRules) -> bool:
    """The side must take a rout test."""
    return bm < 0 if rules.demoralised == "below zero" else bm <= 0


def routs(die: int, bm: int, rules: SgsRules) -> bool:
    """The assumed rout test: the die against ``rout_hold`` plus the battle morale."""
    return rules.rout_test == "certain" or die > rules.rout_hold + bm


def rout_chance(bm: int, rules: SgsRules) -> Fraction:
    """Chance a demoralised side with battle morale ``bm`` routs when it tests."""
    fs = faces(rules)
    return Fraction(sum(1 for f in fs if routs(f, bm, rules)), len(fs))


def who_tests(att_low: bool, def_low: bool, att_tally: tuple[int, int], def_tally: tuple[int, int],
              rules: SgsRules) -> SideName | None:
    """The side that takes the rout test, if any.

    ``*_low`` say whether each side is demoralised; each tally is
    (losses, panics) suffered so far, losses counted as :attr:`SgsRules.rout_tally` says.
    """
    if att_low and not def_low:
        return "attacker"
    if def_low and not att_low:
        return "defender"
    if not att_low:
        return None
    a, d = sum(att_tally), sum(def_tally)
    if a != d:
        return "attacker" if a > d else "defender"
    if att_tally[1] != def_tally[1]:
        return "attacker" if att_tally[1] > def_tally[1] else "defender"
    return None
