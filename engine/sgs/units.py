"""What a battle is given: units, the two forces and the ground.

Values are frozen; :mod:`.battle` copies what changes into its battle object.

>>> inf = Unit("infantry", strength=4, combat=4, reduced=3, morale=3, rof=2)
>>> inf.value(4, True), inf.value(2, True), inf.value(2, False)
(4, 3, 4)
>>> Force((inf,)).combat_units[0].name
'infantry'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["Priority", "Role", "SideName", "Unit", "Force", "Setup"]

Priority: TypeAlias = Literal["first", "normal", "last"]
"""Loss priority: take hits first (minefields), normal, take hits last (rear forts)."""
Role: TypeAlias = Literal["combat", "support"]
"""Combat units fight in the main and next rounds; support units stay behind."""
SideName: TypeAlias = Literal["attacker", "defender"]


@dataclass(frozen=True)
class Unit:
    """One unit in a land battle."""

    name: str
    """Shown in the battle log."""
    strength: int
    """Strength points (hits it can take)."""
    combat: int
    """Combat value: a shot hits when the die is at or under it, after modifiers."""
    reduced: int | None = None
    """Combat value once half the strength or more is gone (``None``: unchanged)."""
    morale: int = 3
    """Base morale: enters the battle morale and the panic test."""
    rof: int = 1
    """Rate of fire: shots per round, usually 2 for a division and 1 otherwise."""
    elite: bool = False
    """Re-rolls a missed shot once."""
    cav: bool = False
    """A CavUnit (armour, heavy mechanized); otherwise an OtherUnit."""
    armour: bool = False
    """Counts for the armour bonus and armour superiority."""
    pursuit: bool = False
    """Can pursue and break through (armoured and mechanized units)."""
    role: Role = "combat"
    """Support units are never hit in the rounds and fire only with the artillery role."""
    artillery: bool = False
    """Fires in the artillery preparation round."""
    air: bool = False
    """An aircraft able to attack land units (fighter-bomber, dive bomber)."""
    mines: bool = False
    """A minefield: fires in the mines round."""
    recon: bool = False
    """Fires in the recon round."""
    priority: Priority = "normal"
    """Loss priority."""

    def __post_init__(self) -> None:
        if self.strength < 1:
            raise ValueError(f"{self.name}: strength must be at least 1")
        if self.rof < 0:
            raise ValueError(f"{self.name}: rate of fire must not be negative")

    def value(self, strength_left: int, reduced_at_half: bool) -> int:
        """Combat value before modifiers with ``strength_left`` strength points."""
        if reduced_at_half and self.reduced is not None and 2 * strength_left <= self.strength:
            return self.reduced
        return self.combat


@dataclass(frozen=True)
class Force:
    """One side of a battle: its units, leader, boosters, bonuses and cards."""

    units: tuple[Unit, ...]
    leader_morale: int = 0
    """Morale of the commanding leader (0 without a leader)."""
    leader_combat: int = 0
    """Combat value of the leader; the better leader gives the difference to its side."""
    booster_combat: int = 0
    """Combat bonus from boosters (HQ, leaders, logistics) for this side's role."""
    booster_morale: int = 0
    """Battle morale bonus from boosters."""
    scenario_morale: int = 0
    """The scenario's morale bonus for this side."""
    card: int = 0
    """Net combat modifier from cards."""
    card_rounds: tuple[str, ...] | None = None
    """Rounds the card modifier counts in (``None``: every round); a card played at the start of one round
    (an artillery barrage, say) covers that round only."""
    card_morale: int = 0
    """Change to the side's battle morale from cards played in the card round."""
    cancel_first: bool = False
    """A card cancels the enemy's first successful shot (see :attr:`~.rules.SgsRules.cancel_scope`)."""
    retreat_at: int | None = None
    """Clicks the retreat button at the start of a next round when its battle morale is at or below this."""
    retreat_after_recon: bool = False
    """Withdraws straight after a recon round (both sides may leave at that stage)."""

    @property
    def combat_units(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.role == "combat")

    @property
    def support_units(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.role == "support")


@dataclass(frozen=True)
class Setup:
    """A land battle in one region, ready to fight."""

    attacker: Force
    defender: Force
    terrain_defence: int = 0
    """Terrain bonus to the defender's combat values (usually +1 or +2 off clear ground)."""
    terrain_attack: int = 0
    """Terrain penalty to the attacker's combat values (a positive number; -1 in dense terrain)."""
    crossing: int = 0
    """Defender's bonus against an attacker that crossed a river or strait (main round only)."""
    entrenched: bool = False
    """The defender is entrenched: attackers take -1."""
    recon_terrain: bool = True
    """The terrain allows a recon round."""
    pursuit_terrain: bool = True
    """The terrain allows pursuit."""
    first_shot: SideName | None = None
    """A card lets this side fire first and apply its results before the other fires."""
    first_shot_rounds: tuple[str, ...] = ("main",)
    """Rounds the first-shot card covers."""
    retreat_card: SideName | None = None
    """A retreat card cancels the battle and sends this side back before any fire."""

    def force(self, side: SideName) -> Force:
        return self.attacker if side == "attacker" else self.defender
