"""Panic (disorganisation): a unit hit hard may leave the fight.

A unit that takes, in one round, hits of at least half the strength it had
left tests: it panics when the die shows more than twice its base morale.
A panicked unit stops firing and taking hits; it rejoins its side for the
pursuit, if there is one.

>>> must_test(2, 4), must_test(1, 4), must_test(2, 3), must_test(3, 3)
(True, False, True, False)
>>> panic_chance(3, SgsRules()), panic_chance(3, SgsRules(die="1-10")), panic_chance(5, SgsRules())
(Fraction(3, 10), Fraction(2, 5), Fraction(0, 1))
"""

from __future__ import annotations

from fractions import Fraction

from .rules import SgsRules, faces

__all__ = ["must_test", "panic_chance", "panics"]


def must_test(hits: int, strength_before: int) -> bool:
    """A surviving unit tests when its hits are at least half its strength before them."""
    return 0 < hits < strength_before and 2 * hits >= strength_before


def panics(die: int, morale: int) -> bool:
    """The test fails on a die strictly above twice the base morale."""
    return die > 2 * morale


def panic_chance(morale: int, rules: SgsRules) -> Fraction:
    """Chance that a unit testing for panic fails."""
    fs = faces(rules)
    return Fraction(sum(1 for f in fs if panics(f, morale)), len(fs))
