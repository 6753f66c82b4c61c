"""A battle before it starts: both sides' units with their states, and the circumstances.

Everything here is frozen; :mod:`.loop` turns a :class:`Setup` into a
mutable battle.

>>> s = Setup(attackers=(Unit("Infantry", 10),), defenders=(Unit("Infantry", 5),))
>>> s.combat, s.sides_of_attack(), s.hq_count()
('land', 1, 1)
>>> Setup(attackers=(Unit("Infantry", 2, side=0), Unit("Tank", 1, side=3, hq=1)), defenders=()).sides_of_attack()
2
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final, Literal, TypeAlias

from .endings import may_retreat_into
from .units import LANDSCAPES, ROSTER, UnitType, UnknownUnitTypeError

__all__ = ["CombatType", "COMBAT_TYPES", "AIR_MISSIONS", "BOMBARDMENTS", "TAKES_HEX", "UnitState", "Unit", "Interceptor", "AASupport", "Setup",
           "SetupError"]

CombatType: TypeAlias = Literal["land", "artillery", "shore_bombardment", "airstrike", "bombing_run", "air_recon",
                                "paradrop", "airlift", "air_supply", "amphibious", "rebel", "surprise"]
"""What kind of combat the attack starts."""
COMBAT_TYPES: Final[tuple[CombatType, ...]] = (
    "land", "artillery", "shore_bombardment", "airstrike", "bombing_run", "air_recon", "paradrop", "airlift",
    "air_supply", "amphibious", "rebel", "surprise")
AIR_MISSIONS: Final[frozenset[str]] = frozenset(
    {"airstrike", "bombing_run", "air_recon", "paradrop", "airlift", "air_supply"})
"""Combat types the defender's aircraft may intercept, and in which defenders neither panic nor retreat."""
BOMBARDMENTS: Final[frozenset[str]] = frozenset({"artillery", "shore_bombardment"})
"""Combat types with no counterattacks, no retreats and no panics."""
TAKES_HEX: Final[frozenset[str]] = frozenset({"land", "amphibious", "rebel", "surprise", "paradrop"})
"""Combat types that can take the hex: troops go in (in a paradrop, only the paratroopers once they have
landed: its aircraft never take it). Bombardments and the other air missions strike or fly over it, so
their end never changes its owner, scuttles its aircraft or ships, plays its card or sends its defenders
back."""


class SetupError(ValueError):
    """A setup that cannot be fought (an unknown type, a bad count)."""


@dataclass(frozen=True)
class UnitState:
    """The averaged state a unit brings into battle (and takes out of it)."""

    readiness: int = 100
    morale: int = 100
    experience: int = 0
    entrenchment: int = 0
    action_points: int = 100
    supply: int = 100
    """Percent of its supply need met."""
    fuel: int = 100
    """Fuel per individual."""


@dataclass(frozen=True)
class Unit:
    """A unit: a count of individuals of one subformation type, with one state."""

    type: str
    """Subformation type name, looked up in the setup's roster."""
    count: int
    state: UnitState = UnitState()
    side: int = 0
    """Hex side (0-5) it attacks from; ignored for defenders."""
    hq: int = 0
    """Which HQ it belongs to (several HQs halve the concentric bonus)."""
    crosses_river: bool = False
    """It attacks across a river (defenders it attacks get the river bonus)."""
    retreat_order: int = 100
    """Retreat standing order: percent casualties at which it withdraws (100: never)."""
    can_retreat: bool = True
    """It has an avenue of retreat."""
    hq_power: Fraction = Fraction(0)
    """Share of the HQ's staff bonus it is in range of (0: none)."""
    staff_xp: int = 0
    """Experience of the staff supporting it."""
    staff_xp_bonus: Fraction = Fraction(1)
    """Percentage points of staff bonus per staff experience point (set by the staff's type)."""
    global_modifier: Fraction = Fraction(1)
    """Global combat modifier of its type group."""
    people_modifier: Fraction = Fraction(1)
    """Factor on its attacks for its own people."""
    against_people: Fraction = Fraction(1)
    """Factor on attacks made on it, for its people."""
    cargo: bool = False
    """Carried by the side's transports (paratroopers, an airlifted unit)."""
    name: str = ""


@dataclass(frozen=True)
class Interceptor:
    """An air unit of the defending regime or an ally that might intercept."""

    unit: Unit
    intercept_setting: int = 100
    """Its intercept standing order."""
    distance: int = 0
    """Action points from its airfield to the battle hex."""
    allied: bool = False
    regime: int = 0
    """Which regime it belongs to (for the empty sea recon case)."""
    own_airfield_targeted: bool = False
    lowest_readiness: int | None = None
    """The lowest readiness among its individuals, which sets its range; None: all at the unit's readiness
    (the unit's state gives the average, which the intercept standing order must exceed)."""

    @property
    def range_readiness(self) -> int:
        """The readiness its intercept range is read from: its lowest."""
        return self.unit.state.readiness if self.lowest_readiness is None else self.lowest_readiness


@dataclass(frozen=True)
class AASupport:
    """An anti-aircraft unit in another hex within range of the battle."""

    unit: Unit
    distance: int = 1
    """Hexes from the battle."""


@dataclass(frozen=True)
class Setup:
    """Both sides and the circumstances of one battle."""

    attackers: tuple[Unit, ...]
    defenders: tuple[Unit, ...]
    combat: CombatType = "land"
    landscape: str = "plains"
    river: bool = False
    """A river runs along the sides the river-crossing attackers come over."""
    bridge: bool = False
    location: bool = False
    """A location (town, airfield, port) stands in the hex."""
    location_structure: int = 100
    bridge_structure: int = 50
    airfield: bool = False
    """The hex is an airfield (aircraft there fight the airfield penalty; lost if it falls)."""
    port: bool = False
    stationed_aircraft: int = 0
    stationed_ships: int = 0
    card: bool = False
    """A card or event is tied to the hex."""
    sea: bool = False
    """The hex is sea: the battle breaks off when no defending ship is left."""
    interceptors: tuple[Interceptor, ...] = ()
    aa_support: tuple[AASupport, ...] = ()
    remembered_stack: int = 0
    """Attacking stack points remembered from earlier battles in the hex (rulevar 859)."""
    air_supply: int = 0
    """Supply points carried by an air supply mission."""
    retreat_costs: tuple[int, ...] = (10,) * 6
    """Action points a defender needs to enter the hex beyond each side, 0 to 5 (over 100: no retreat there)."""
    roster: Mapping[str, UnitType] = field(default_factory=lambda: ROSTER)

    def type_of(self, unit: Unit) -> UnitType:
        try:
            return self.roster[unit.type]
        except KeyError:
            raise UnknownUnitTypeError(f"no subformation type named {unit.type!r}; known: {', '.join(self.roster)}")

    def sides_of_attack(self, units: tuple[Unit, ...] | None = None) -> int:
        """Distinct hex sides the (given) attacking units come from."""
        return len({u.side for u in (self.attackers if units is None else units)})

    def retreat_open(self) -> tuple[bool, ...]:
        """For each hex side, whether the defenders may retreat through it: never towards a side an attacker
        came from (airborne attackers hold no side), never into a hex 100 action points could not enter.

        >>> Setup(attackers=(Unit("Infantry", 2, side=1),), defenders=(), retreat_costs=(10, 10, 10, 10, 150, 10)
        ...       ).retreat_open()
        (True, False, True, True, False, True)
        """
        held = {u.side for u in self.attackers if self.type_of(u).theatre != "air"}
        return tuple(s not in held and may_retreat_into(cost) for s, cost in enumerate(self.retreat_costs))

    def hq_count(self, units: tuple[Unit, ...] | None = None) -> int:
        return len({u.hq for u in (self.attackers if units is None else units)})

    def check(self) -> None:
        """Raise :class:`SetupError` for a setup that cannot be fought."""
        if self.landscape not in LANDSCAPES:
            raise SetupError(f"unknown landscape {self.landscape!r}")
        for u in self.attackers + self.defenders:
            self.type_of(u)
            if u.count < 0:
                raise SetupError(f"{u.type}: a count cannot be negative")
            if not 0 <= u.side <= 5:
                raise SetupError(f"{u.type}: a hex side is 0 to 5")
        if len(self.retreat_costs) != 6 or any(c < 0 for c in self.retreat_costs):
            raise SetupError("the hexes around take six costs of 0 or more action points")
