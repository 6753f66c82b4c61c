"""Shots: a hit when the die shows the modified combat value or less.

Each unit fires as many shots as its rate of fire; an elite unit rolls a
missed shot once more (every missed shot by default, only the first shot of
its volley under :attr:`~.rules.SgsRules.elite_reroll` ``"first shot"``). The
modifiers that count depend on the round (:data:`~.rules.ROUND_MODIFIERS`).

>>> rules = SgsRules()
>>> hit_chance(4, rules), hit_chance(4, rules, elite=True)
(Fraction(1, 2), Fraction(3, 4))
>>> hit_chance(-1, rules), hit_chance(12, rules)
(Fraction(0, 1), Fraction(1, 1))
>>> hits_distribution([Shooter(4, 2)], rules)
Dist({0: 1, 1: 2, 2: 1})

An elite firing twice hits with each shot 3/4 of the time; when only its
first shot may be rolled again, its second hits half the time:

>>> hits_distribution([Shooter(4, 2, elite=True)], rules).mean()
Fraction(3, 2)
>>> hits_distribution([Shooter(4, 2, elite=True)], SgsRules(elite_reroll="first shot")).mean()
Fraction(5, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..dice import Dist
from .morale import armour_superiority
from .rules import ROUND_MODIFIERS, RoundName, SgsRules, faces
from .units import SideName, Setup

__all__ = ["Shooter", "hit_chance", "shot_dist", "rerolls", "hits_distribution", "round_modifiers"]


@dataclass(frozen=True)
class Shooter:
    """A unit about to fire, its value already modified."""

    target: int
    """Modified combat value: the highest face that hits."""
    rof: int = 1
    """Shots it fires."""
    elite: bool = False
    """Rolls a miss once more (:func:`rerolls` says which shots)."""


def _faces_hitting(target: int, rules: SgsRules) -> tuple[int, int]:
    fs = faces(rules)
    return sum(1 for f in fs if f <= target), len(fs)


def hit_chance(target: int, rules: SgsRules, *, elite: bool = False) -> Fraction:
    """Chance that one shot hits (an elite's second roll included)."""
    k, n = _faces_hitting(target, rules)
    p = Fraction(k, n)
    return p + (1 - p) * p if elite else p


def shot_dist(target: int, rules: SgsRules, *, elite: bool = False) -> Dist[int]:
    """Hits from one shot: 0 or 1, with exact counts over the die's faces."""
    k, n = _faces_hitting(target, rules)
    if elite:
        return Dist({1: k * n + (n - k) * k, 0: (n - k) * (n - k)})
    return Dist({1: k, 0: n - k})


def rerolls(elite: bool, rof: int, rules: SgsRules) -> tuple[bool, ...]:
    """One flag per shot of a volley: whether a miss of that shot is rolled once more.

    >>> rerolls(True, 2, SgsRules()), rerolls(True, 2, SgsRules(elite_reroll="first shot")), rerolls(False, 1, SgsRules())
    ((True, True), (True, False), (False,))
    """
    every = rules.elite_reroll == "every miss"
    return tuple(elite and (every or k == 0) for k in range(rof))


def hits_distribution(shooters: Sequence[Shooter], rules: SgsRules) -> Dist[int]:
    """Exact distribution of the hits a group of shooters scores together."""
    total: Dist[int] = Dist({0: 1})
    for s in shooters:
        for again in rerolls(s.elite, s.rof, rules):
            total = total + shot_dist(s.target, rules, elite=again)
    return total


def round_modifiers(setup: Setup, side: SideName, round_name: RoundName, rules: SgsRules, *,
                    armour: int = -1, enemy_armour: int = -1,
                    first: bool | None = None) -> tuple[tuple[str, int], ...]:
    """The modifiers to every combat value of ``side`` in one round, by name (zeros left out).

    ``armour`` and ``enemy_armour`` count the armour still fighting; by
    default they are counted from the setup. ``first`` says whether this is
    the battle's first fire round (``None``: take it that it is); it matters
    only with :attr:`~.rules.SgsRules.crossing_round` set to ``"first"``.

    >>> from .units import Force, Unit
    >>> a = Force((Unit("tank", 3, 5, armour=True), Unit("tank", 3, 5, armour=True)), leader_combat=2, card=1)
    >>> d = Force((Unit("rifles", 4, 4),), leader_combat=1)
    >>> s = Setup(a, d, terrain_defence=1, terrain_attack=1, crossing=2, entrenched=True)
    >>> round_modifiers(s, "attacker", "main", SgsRules())
    (('cards', 1), ('terrain', -1), ('entrenchment', -1), ('leaders', 1), ('armour', 1))
    >>> round_modifiers(s, "defender", "main", SgsRules())
    (('terrain', 1), ('crossing', 2))
    >>> round_modifiers(s, "attacker", "mines", SgsRules())
    (('cards', 1),)
    """
    own, enemy = setup.force(side), setup.force("defender" if side == "attacker" else "attacker")
    if armour < 0:
        armour = sum(1 for u in own.units if u.armour)
    if enemy_armour < 0:
        enemy_armour = sum(1 for u in enemy.units if u.armour)
    kinds = ROUND_MODIFIERS[round_name]
    if round_name == "recon" and rules.recon_modifiers == "cards":
        kinds = ("cards",)
    if rules.crossing_round == "first" and round_name in ("recon", "main"):
        kinds = tuple(k for k in kinds if k != "crossing")
        if first is not False and (round_name == "main" or rules.recon_modifiers == "all"):
            kinds += ("crossing",)
    attacking = side == "attacker"
    values = {
        "cards": own.card if own.card_rounds is None or round_name in own.card_rounds else 0,
        "terrain": -setup.terrain_attack if attacking else setup.terrain_defence,
        "entrenchment": -1 if attacking and setup.entrenched else 0,
        "leaders": max(0, own.leader_combat - enemy.leader_combat),
        "boosters": own.booster_combat,
        "armour": 1 if armour_superiority(armour, enemy_armour) else 0,
        "crossing": 0 if attacking else setup.crossing,
    }
    return tuple((k, values[k]) for k in kinds if values[k])
