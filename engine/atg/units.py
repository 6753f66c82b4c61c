"""Subformation types: what an individual is, and a small illustrative roster.

The page gives no unit statistics: each scenario defines its own subformation
types. :data:`ROSTER` is ours, for illustration only; every value in it is
invented to make the rules visible, not taken from the game.

>>> ROSTER["Tank"].attack["hard"], ROSTER["Tank"].hit_points
(30, 40)
>>> ROSTER["Bomber"].is_air, ROSTER["Flak"].aa_range > 0
(True, True)
>>> LANDSCAPES["forest"].attacker_attack
Fraction(7, 10)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Final, Literal, TypeAlias

__all__ = ["Theatre", "TargetGroup", "TARGET_GROUPS", "UnitType", "ROSTER", "ROSTER_ORDER", "Landscape",
           "LANDSCAPES", "ILLUSTRATIVE", "UnknownUnitTypeError", "roster_of"]

Theatre: TypeAlias = Literal["land", "air", "naval"]
"""Where a subformation type fights."""
TargetGroup: TypeAlias = Literal["soft", "hard", "air", "naval"]
"""The group a type belongs to as a target; attack points are given per group."""
TARGET_GROUPS: Final[tuple[TargetGroup, ...]] = ("soft", "hard", "air", "naval")

ILLUSTRATIVE: Final = "Illustrative: the page gives no unit statistics; this value is ours."


class UnknownUnitTypeError(ValueError):
    """A unit names a subformation type that the roster does not hold."""


def _frozen(d: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True, eq=True)
class UnitType:
    """One subformation type: the statistics every one of its individuals shares."""

    name: str
    """Name shown in the log."""
    theatre: Theatre
    """Land, air or naval."""
    group: TargetGroup
    """Which of its enemies' attack points apply against it."""
    attack: Mapping[str, int]
    """Attack points against each target group (a missing group: cannot attack it)."""
    hit_points: int
    """Hit points before modifiers."""
    attacks: int = 1
    """Attacks it may make in one round."""
    max_attacked: int = 2
    """Times it can be attacked in a round before attacks on it weaken."""
    initiative: int = 50
    """Upper end of its random initiative."""
    favourites: Mapping[str, int] = field(default_factory=lambda: _frozen({}))
    """Favourite-target score for each target group in a regular attack."""
    artillery_favourites: Mapping[str, int] = field(default_factory=lambda: _frozen({}))
    """Favourite-target score for each target group in an artillery attack or shore bombardment."""
    tries: int = 1
    """Tries at finding its favourite target (1: purely random)."""
    kill: int = 30
    """Percent of its hits that kill."""
    retreat: int = 40
    """Percent of its hits that force a retreat (the rest pin)."""
    power_points: int = 10
    """Power points; their ratio sets the experience modifier."""
    stack: int = 1
    """Stack points it counts for stacking."""
    backbench: bool = False
    """Stands behind the line: only a breakthrough or artillery reaches it."""
    artillery_range: int = 0
    """Artillery range (0: none)."""
    aa_range: int = 0
    """Anti-aircraft range (0: none)."""
    auto_destroy: bool = False
    """Destroyed after its first attack (a one-shot weapon)."""
    anti_structural: int = 0
    """Structural damage points it deals a round."""
    startup_penalty: Fraction = Fraction(1)
    """Share of the attack start-up penalty it suffers (0: immune).

    The penalty stands for the ground an attacker must still cover to come to grips with the defenders in
    the first rounds, so it belongs to types that go forward to fight. A type that strikes from where it
    stands (guns behind the line, aircraft, ships) has no such ground to cover and can be given 0."""
    readiness_per_attack: int = 0
    """Readiness points lost with each attack it makes (not counterattacks)."""
    fuel_per_round: int = 0
    """Fuel an individual uses with its first attack of a round."""
    special_attack: Fraction = Fraction(1)
    """Special factor on its attack score."""
    special_defence: Fraction = Fraction(1)
    """Special factor on its hit points."""
    prevents: tuple[str, ...] = ()
    """Types of its own side whose attackers it draws onto itself (prevent rules)."""
    transport: bool = False
    """Carries paratroopers, airlifted units or air supply."""

    @property
    def is_air(self) -> bool:
        return self.theatre == "air"

    @property
    def is_land(self) -> bool:
        return self.theatre == "land"

    def __hash__(self) -> int:
        return hash(self.name)


def _t(name: str, theatre: Theatre, group: TargetGroup, attack: Mapping[str, int], hp: int,
       fav: Mapping[str, int] | None = None, art_fav: Mapping[str, int] | None = None, **kw: object) -> UnitType:
    return UnitType(name, theatre, group, _frozen(attack), hp, favourites=_frozen(fav or {}),
                    artillery_favourites=_frozen(art_fav or {}), **kw)  # type: ignore[arg-type]


ROSTER_ORDER: Final[tuple[UnitType, ...]] = (
    _t("Infantry", "land", "soft", {"soft": 20, "hard": 5}, 20, {"soft": 10, "hard": 5},
       initiative=40, kill=30, retreat=40, power_points=10, stack=1, startup_penalty=Fraction(1)),
    _t("Machine guns", "land", "soft", {"soft": 30, "hard": 2}, 15, {"soft": 20, "hard": 1},
       attacks=2, initiative=50, kill=35, retreat=40, power_points=12, stack=1),
    _t("Anti-tank gun", "land", "hard", {"soft": 5, "hard": 35}, 15, {"hard": 30, "soft": 1},
       tries=3, initiative=60, kill=40, retreat=30, power_points=15, stack=2),
    _t("Tank", "land", "hard", {"soft": 30, "hard": 30}, 40, {"hard": 20, "soft": 10},
       tries=2, attacks=2, max_attacked=3, initiative=70, kill=35, retreat=40, power_points=40, stack=4,
       startup_penalty=Fraction(1, 2), fuel_per_round=2),
    _t("Artillery", "land", "hard", {"soft": 25, "hard": 10}, 10, {"soft": 5, "hard": 5},
       {"soft": 10, "hard": 20}, tries=2, initiative=30, kill=25, retreat=50, power_points=20, stack=2,
       backbench=True, artillery_range=3, anti_structural=2, startup_penalty=Fraction(0)),
    _t("Flak", "land", "hard", {"air": 30, "soft": 5}, 12, {"air": 30, "soft": 1},
       tries=2, attacks=2, initiative=80, kill=40, retreat=40, power_points=15, stack=2,
       backbench=True, aa_range=1, startup_penalty=Fraction(0)),
    _t("Fighter", "air", "air", {"air": 35, "soft": 5, "hard": 3}, 25, {"air": 30, "soft": 2, "hard": 1},
       tries=3, attacks=2, max_attacked=3, initiative=90, kill=40, retreat=50, power_points=30, stack=1,
       fuel_per_round=3, startup_penalty=Fraction(0)),
    _t("Bomber", "air", "air", {"soft": 30, "hard": 25, "air": 3, "naval": 25}, 30,
       {"hard": 20, "soft": 10, "naval": 20, "air": 1}, tries=2, initiative=40, kill=50, retreat=30,
       power_points=40, stack=2, backbench=True, anti_structural=10, fuel_per_round=4,
       startup_penalty=Fraction(0)),
    _t("Transport", "air", "air", {}, 25, initiative=10, kill=0, retreat=0, power_points=20, stack=2,
       backbench=True, fuel_per_round=3, transport=True, startup_penalty=Fraction(0)),
    _t("Ship", "naval", "naval", {"naval": 40, "soft": 30, "hard": 25, "air": 10}, 80,
       {"naval": 30, "hard": 10, "soft": 10, "air": 5}, {"hard": 10, "soft": 10}, tries=2, attacks=2,
       max_attacked=4, initiative=60, kill=30, retreat=40, power_points=80, stack=5, artillery_range=2,
       aa_range=1, anti_structural=5, startup_penalty=Fraction(0)),
)
"""The illustrative roster, in a fixed order. Every value is ours: the page has no statistics.

Start-up shares (our choice, like the rest): the rule charges the attacking side for the time it takes to
work its way up to the enemy's line before its blows tell. Infantry, machine guns and anti-tank guns must
cross that ground on foot and bear all of it; tanks cross it faster and bear half, the one comparison the
page itself makes. Artillery shells the hex from its place behind the line, flak fires at aircraft above
it, aircraft strike from the air and ships from the sea: none of them closes in before it can hit, so here
they bear none of it (0). A scenario's own types may be given any share.
"""

ROSTER: Final[Mapping[str, UnitType]] = MappingProxyType({t.name: t for t in ROSTER_ORDER})
"""The illustrative roster by name."""


def roster_of(types: tuple[UnitType, ...]) -> Mapping[str, UnitType]:
    """A roster mapping built from types (a later type replaces an earlier one of the same name).

    >>> list(roster_of(ROSTER_ORDER[:2]))
    ['Infantry', 'Machine guns']
    """
    return MappingProxyType({t.name: t for t in types})


@dataclass(frozen=True)
class Landscape:
    """How a landscape changes the attack score of land individuals."""

    name: str
    attacker_attack: Fraction
    """Factor on attacks by individuals of the hex's attacking side."""
    defender_attack: Fraction
    """Factor on attacks by individuals of the hex's defending side."""


LANDSCAPES: Final[Mapping[str, Landscape]] = MappingProxyType({
    "plains": Landscape("plains", Fraction(1), Fraction(1)),
    "forest": Landscape("forest", Fraction(7, 10), Fraction(1)),
    "hills": Landscape("hills", Fraction(4, 5), Fraction(1)),
    "mountains": Landscape("mountains", Fraction(1, 2), Fraction(1)),
    "city": Landscape("city", Fraction(3, 5), Fraction(1)),
    "sea": Landscape("sea", Fraction(1), Fraction(1)),
})
"""Illustrative landscape factors: the page says only that hex attackers and defenders may differ."""
