"""Small General combat, resolved exactly.

A combat goes through the steps of the rules section:

1. add up the modifiers (:func:`combat_modifiers`);
2. roll 3d6, add them and read the table row (:meth:`Combat.rows`);
3. apply the artillery rule to the printed result (:func:`apply_artillery_rule`);
4. if the defender must retreat, find whether it has a hex to go to
   (:func:`retreat_failure_chance`; never more than :func:`most_retreat_hexes`);
   without one it is destroyed;
5. credit experience to the unit that caused the result.

>>> c = Combat("clear", 1, Unit("foot", False, "supplied", 0, "none"), Unit("foot", False, "out", 0, "none"))
>>> c.total_modifier
6
>>> c.outcomes().p_where(lambda o: o.final.has(DESTROYED) and o.final.side == "DEF")
Fraction(3, 8)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Final

from ..dice import Dist, dice
from .experience import points_for
from .rules import (ARTILLERY_VS_MECHANIZED, ATTACKER_STATE, ATTACKER_SUPPLY, DEFENDER_STATE, DEFENDER_SUPPLY,
                    DESTROYED, EXPERIENCE_MODIFIERS, LANDSCAPE_FOOT_ATTACK, LOSS, MAX_HEX_SIDES, PANIC, RETREAT,
                    SIMULTANEOUS_ATTACK, TABLE_HIGH, TABLE_LOW, TABLE_RESULTS, Effect, Level, Movement, Result,
                    Settings, State, Supply, Terrain)

__all__ = ["Unit", "Modifier", "Outcome", "Combat", "combat_modifiers",
           "apply_artillery_rule", "most_retreat_hexes", "retreat_failure_chance", "DICE"]

DICE: Final = dice(3, 6)
"""The attacker's roll: three six-sided dice."""


@dataclass(frozen=True)
class Unit:
    """One unit as far as combat cares."""

    movement: Movement
    """``foot`` or ``mechanized``."""
    artillery: bool
    """Whether the unit is artillery."""
    supply: Supply
    """``supplied``, ``problem`` or (defenders only) ``out``."""
    experience_level: Level
    """0 to 4."""
    state: State
    """Combat state: ``none``, ``disrupted``, ``shocked`` or ``panicked``."""
    value: int = 1
    """Attack value of an attacker, defence value of a defender (used only by a strength setting)."""

    @classmethod
    def from_inputs(cls, values: Mapping[str, Any]) -> Unit:
        """A unit from a validated attacker or defender group.

        >>> Unit.from_inputs({"movement": "foot", "artillery": True, "supply": "supplied",
        ...                   "experience_level": 0, "state": "none", "defence_value": 3}).value
        3
        """
        value = values.get("attack_value", values.get("defence_value", 1))
        return cls(values["movement"], values["artillery"], values["supply"],
                   values["experience_level"], values["state"], value)


@dataclass(frozen=True)
class Modifier:
    """One modifier that applies to the roll."""

    rule: str
    """What applies, in words."""
    value: int
    """Added to the 3d6 total."""
    source: str
    """The rule section it comes from."""
    assumed: bool = False
    """True when the modifier is ours (a setting), not the rulebook's."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "value": self.value, "source": self.source}
        if self.assumed:
            out["assumed"] = True
        return out


def _landscape(terrain: Terrain, attacker: Unit) -> list[Modifier]:
    value = LANDSCAPE_FOOT_ATTACK.get(terrain, 0) if attacker.movement == "foot" else 0
    return [Modifier(f"Foot unit attacks into {terrain}", value, "Landscape")] if value else []


def _supply(attacker: Unit, defender: Unit) -> list[Modifier]:
    out = []
    if v := ATTACKER_SUPPLY.get(attacker.supply, 0):
        out.append(Modifier("Attacker has a supply problem", v, "Supply state"))
    if v := DEFENDER_SUPPLY.get(defender.supply, 0):
        words = "is out of supply" if defender.supply == "out" else "has a supply problem"
        out.append(Modifier(f"Defender {words}", v, "Supply state"))
    return out


def _experience(attacker: Unit, defender: Unit) -> list[Modifier]:
    out = []
    if v := EXPERIENCE_MODIFIERS.get(attacker.experience_level, (0, 0))[0]:
        out.append(Modifier(f"Attacker at experience level {attacker.experience_level}", v, "Experience"))
    if v := EXPERIENCE_MODIFIERS.get(defender.experience_level, (0, 0))[1]:
        out.append(Modifier(f"Defender at experience level {defender.experience_level}", v, "Experience"))
    return out


def _combat_state(attacker: Unit, defender: Unit) -> list[Modifier]:
    out = []
    if v := ATTACKER_STATE.get(attacker.state, 0):
        out.append(Modifier(f"Attacker is {attacker.state}", v, "Combat state"))
    if v := DEFENDER_STATE.get(defender.state, 0):
        out.append(Modifier(f"Defender is {defender.state}", v, "Combat state"))
    return out


def _simultaneous(hex_sides: int) -> list[Modifier]:
    v = SIMULTANEOUS_ATTACK.get(hex_sides, 0)
    return [Modifier(f"{hex_sides} different hex sides used", v, "Simultaneous attack")] if v else []


def _artillery(attacker: Unit, defender: Unit) -> list[Modifier]:
    if attacker.artillery and defender.movement == "mechanized":
        return [Modifier("Artillery attacks a mechanized unit", ARTILLERY_VS_MECHANIZED,
                         "Artillery versus mechanized")]
    return []


def _strength(attacker: Unit, defender: Unit, settings: Settings) -> list[Modifier]:
    if settings.strength_rule != "difference":
        return []
    defence = 0 if defender.artillery else defender.value
    v = attacker.value - defence
    note = " (artillery defends at 0)" if defender.artillery else ""
    return [Modifier(f"Attack value {attacker.value} minus defence value {defence}{note}", v,
                     "Unit strength", assumed=True)] if v else []


def combat_modifiers(terrain: Terrain, hex_sides: int, attacker: Unit, defender: Unit,
                     settings: Settings = Settings()) -> tuple[Modifier, ...]:
    """Every modifier that applies, in the order the rulebook lists them.

    >>> foot = Unit("foot", False, "supplied", 0, "none")
    >>> [m.value for m in combat_modifiers("town", 3, foot, foot)]
    [-2, 2]
    """
    return tuple(_landscape(terrain, attacker) + _supply(attacker, defender)
                 + _experience(attacker, defender) + _combat_state(attacker, defender)
                 + _simultaneous(hex_sides) + _artillery(attacker, defender)
                 + _strength(attacker, defender, settings))


WORST_ALLOWED: Final[Mapping[str, Result]] = {
    "DEF": Result("DEF", (RETREAT, PANIC)),
    "ATT": Result("ATT", (PANIC,)),
}
"""What destroyed becomes under the ``ceiling`` reading: the worst result artillery may still give
each side (a defender may be made to retreat; the table never makes an attacker retreat)."""


def _limit(result: Result, settings: Settings) -> Result:
    """Replace the loss and destroyed parts that artillery may not cause or take.

    >>> _limit(TABLE_RESULTS[18], Settings()).name
    'DEF Retreat + Panick'
    >>> _limit(TABLE_RESULTS[5], Settings()).name
    'ATT Panick'
    """
    if settings.artillery_limit == "ceiling" and result.has(DESTROYED) and result.side is not None:
        return WORST_ALLOWED[result.side]
    loss_to = PANIC if settings.artillery_limit in ("cap", "ceiling") else None
    destroyed_to = None if settings.artillery_limit == "strike_all" else PANIC
    return result.replace(LOSS, loss_to).replace(DESTROYED, destroyed_to)


def apply_artillery_rule(printed: Result, attacker: Unit, defender: Unit,
                         settings: Settings = Settings()) -> Result:
    """The result that actually applies once the artillery rule has been applied.

    An attacking artillery unit causes no loss and takes no loss; a defending
    artillery unit causes none either, unless the ``defending_artillery``
    setting is turned off.

    >>> arty = Unit("foot", True, "supplied", 0, "none")
    >>> foot = Unit("foot", False, "supplied", 0, "none")
    >>> apply_artillery_rule(TABLE_RESULTS[16], arty, foot).name
    'DEF Retreat + Panick'
    >>> apply_artillery_rule(TABLE_RESULTS[18], arty, foot).name
    'DEF Retreat + Panick'
    >>> apply_artillery_rule(TABLE_RESULTS[16], arty, foot, Settings(artillery_limit="strike")).name
    'DEF Retreat'
    >>> apply_artillery_rule(TABLE_RESULTS[18], arty, foot, Settings(artillery_limit="strike")).name
    'DEF Panick'
    >>> apply_artillery_rule(TABLE_RESULTS[4], arty, foot).name
    'ATT Panick'
    >>> apply_artillery_rule(TABLE_RESULTS[3], foot, arty).name
    'ATT Panick'
    >>> apply_artillery_rule(TABLE_RESULTS[3], foot, arty, Settings(defending_artillery=False)).name
    'ATT Destroyed'
    """
    if printed.side is None:
        return printed
    if attacker.artillery:
        return _limit(printed, settings)
    if printed.side == "ATT" and defender.artillery and settings.defending_artillery:
        return _limit(printed, settings)
    return printed


def most_retreat_hexes(hex_sides: int) -> int:
    """Most free friendly hexes a defender can have once attacks have come over ``hex_sides`` of its sides.

    Each of those sides borders the hex an enemy unit attacked from, and the unit is still there (a unit
    that has fought has no movement points left), so that hex is not the defender's to retreat into.
    Attacked from all six sides, a unit has nowhere to go.

    >>> most_retreat_hexes(1), most_retreat_hexes(4), most_retreat_hexes(6)
    (5, 2, 0)
    """
    return MAX_HEX_SIDES - hex_sides


def retreat_failure_chance(free_hexes: int, settings: Settings = Settings()) -> Fraction:
    """Chance that a retreating unit finds no free friendly hex and is destroyed.

    >>> retreat_failure_chance(0), retreat_failure_chance(2)
    (Fraction(1, 1), Fraction(0, 1))
    >>> retreat_failure_chance(2, Settings(retreat_direction="six_directions"))
    Fraction(2, 3)
    """
    if settings.retreat_direction == "six_directions":
        return Fraction(6 - free_hexes, 6)
    return Fraction(1 if free_hexes == 0 else 0)


@dataclass(frozen=True)
class Outcome:
    """One way a combat can end: the row read, what it does, and how a retreat went."""

    row: int
    """Table row read (the modified total, brought onto the table)."""
    applied: Result
    """The result after the artillery rule."""
    retreat_failed: bool = False
    """True if the result called for a retreat and no free friendly hex was found."""
    failed_to: Effect | None = DESTROYED
    """What a failed retreat becomes: destruction, or (``None``) staying in place."""

    @property
    def printed(self) -> Result:
        """The result the table prints on this row."""
        return TABLE_RESULTS[self.row]

    @property
    def final(self) -> Result:
        """What happens in the end: a failed retreat turns into destruction (or into staying put)."""
        return self.applied.replace(RETREAT, self.failed_to) if self.retreat_failed else self.applied


@dataclass(frozen=True)
class Combat:
    """One attack on one defending unit."""

    terrain: Terrain
    """Landscape of the hex attacked."""
    hex_sides: int
    """Different hex sides used against the hex so far, this attack included (1 to 6)."""
    attacker: Unit
    """The unit rolling the dice."""
    defender: Unit
    """The unit that fights for the hex."""
    retreat_hexes: int = 3
    """Free friendly hexes next to the defender (0 to :func:`most_retreat_hexes` of ``hex_sides``)."""
    other_units: int = 0
    """Other enemy units in the hex that did not fight."""
    settings: Settings = Settings()
    """Our values where the rules are silent."""

    @classmethod
    def from_inputs(cls, values: Mapping[str, Any]) -> Combat:
        """A combat from the validated inputs of ``small_general.combat``."""
        return cls(values["terrain"], values["hex_sides"], Unit.from_inputs(values["attacker"]),
                   Unit.from_inputs(values["defender"]), values["retreat_hexes"],
                   values.get("other_units", 0), Settings.from_inputs(values["settings"]))

    def essential(self) -> Combat:
        """The combat with what cannot change its resolution set aside: the units' attack and defence values
        unless the strength rule reads them (they enter nothing else). Combats with equal essentials have
        the same modifiers, outcomes and experience: one result serves them all.

        >>> foot = Unit("foot", False, "supplied", 0, "none")
        >>> strong = Combat("clear", 1, replace(foot, value=9), foot)
        >>> strong.essential() == Combat("clear", 1, foot, foot).essential()
        True
        >>> on = Settings(strength_rule="difference")
        >>> replace(strong, settings=on).essential() == Combat("clear", 1, foot, foot, settings=on).essential()
        False
        """
        if self.settings.strength_rule == "difference":
            return self
        return replace(self, attacker=replace(self.attacker, value=1), defender=replace(self.defender, value=1))

    def modifiers(self) -> tuple[Modifier, ...]:
        return combat_modifiers(self.terrain, self.hex_sides, self.attacker, self.defender, self.settings)

    @property
    def total_modifier(self) -> int:
        return sum(m.value for m in self.modifiers())

    def rows(self) -> Dist[int]:
        """Table row read: 3d6 plus modifiers, brought onto the table (setting ``beyond_table``).

        >>> Combat("clear", 6, Unit("foot", False, "supplied", 0, "none"),
        ...        Unit("foot", False, "supplied", 0, "panicked"), retreat_hexes=0).rows().probability(18)
        Fraction(20, 27)
        """
        return (DICE + self.total_modifier).clamp(TABLE_LOW, TABLE_HIGH)

    def applied(self, row: int) -> Result:
        """The result of one row once the artillery rule has been applied."""
        return apply_artillery_rule(TABLE_RESULTS[row], self.attacker, self.defender, self.settings)

    def _resolve(self, row: int) -> Dist[Outcome]:
        result = self.applied(row)
        if not (result.side == "DEF" and result.has(RETREAT)):
            return Dist({Outcome(row, result): 1})
        fail = retreat_failure_chance(self.retreat_hexes, self.settings)
        failed_to = self.failed_retreat_becomes()
        return Dist({Outcome(row, result, False, failed_to): (1 - fail).numerator * fail.denominator,
                     Outcome(row, result, True, failed_to): fail.numerator * (1 - fail).denominator})

    def failed_retreat_becomes(self) -> Effect | None:
        """Destruction, unless artillery forced the retreat and may not destroy (setting)."""
        if self.attacker.artillery and not self.settings.artillery_retreat_kills:
            return None
        return DESTROYED

    def outcomes(self) -> Dist[Outcome]:
        """Every way the combat can end, with exact chances."""
        return self.rows().bind(self._resolve)

    def xp(self, outcome: Outcome) -> tuple[int, int]:
        """Experience points (attacker, defender) earned in one outcome."""
        result = outcome.final if self.settings.retreat_kill_counts else outcome.applied
        earned = points_for(result, self.settings.combined_xp)
        if result.side == "DEF":
            return earned, 0
        if result.side == "ATT" and self.settings.defender_earns_xp:
            return 0, earned
        return 0, 0

    def hex_emptied(self, outcome: Outcome) -> bool:
        """True if no enemy unit is left in the hex, so the attacker moves in."""
        final = outcome.final
        leaves = final.side == "DEF" and final.has(RETREAT, DESTROYED)
        return leaves and (self.other_units == 0 or self.settings.stack_shares_result)
