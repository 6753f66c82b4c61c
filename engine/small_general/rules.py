"""Small General combat: game terms, the 3d6 combat table, the modifier lists and our settings.

The attacker rolls three six-sided dice, adds every modifier that applies and
reads the modified total on :data:`COMBAT_TABLE`. Each table entry is a
:class:`Result`: the side it falls on (``ATT`` or ``DEF``) and what happens to
that side, in the order the chart prints it.

>>> TABLE_RESULTS[17].name
'DEF Retreat + Panick + Loss'
>>> TABLE_RESULTS[17].effects
('Retreat', 'Panick', 'Loss')
>>> TABLE_RESULTS[10].name
'no result'

Result names keep the chart's spelling "Panick"; prose elsewhere says panic.

Every value the rulebook does not give is a setting with ``assumed=`` text
that says what the rules do and do not say. :class:`Settings` declares each
one once (:func:`engine.settings.setting`); the widgets' settings groups are
made from it and the engine reads its attributes.

>>> s = Settings()
>>> s.artillery_limit, s.retreat_direction, s.combined_xp
('ceiling', 'among_friendly', 'sum')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from ..settings import rules_from, setting

__all__ = [
    "Terrain", "Movement", "Supply", "State", "Side", "Effect", "Level",
    "TERRAINS", "MOVEMENTS", "ATTACKER_SUPPLIES", "DEFENDER_SUPPLIES",
    "ATTACKER_STATES", "DEFENDER_STATES", "LEVELS", "MAX_HEX_SIDES",
    "DESTROYED", "LOSS", "PANIC", "SHOCKED", "DISRUPTED", "RETREAT", "COMBAT_STATES",
    "NO_RESULT", "Result", "COMBAT_TABLE", "TABLE_LOW", "TABLE_HIGH", "TABLE_RESULTS",
    "LANDSCAPE_FOOT_ATTACK", "ATTACKER_SUPPLY", "DEFENDER_SUPPLY", "EXPERIENCE_MODIFIERS",
    "ATTACKER_STATE", "DEFENDER_STATE", "SIMULTANEOUS_ATTACK", "ARTILLERY_VS_MECHANIZED",
    "Combine", "COMBINE_MODES", "ArtilleryLimit", "RetreatDirection", "StrengthRule", "ChoiceMeasure", "Settings",
]

# Game terms ----------------------------------------------------------------

Terrain: TypeAlias = Literal["clear", "forest", "town"]
"""Landscape of the hex under attack."""
Movement: TypeAlias = Literal["foot", "mechanized"]
"""How a unit moves; foot attackers suffer from forest and town."""
Supply: TypeAlias = Literal["supplied", "problem", "out"]
"""Supply state; ``out`` is listed for defenders only."""
State: TypeAlias = Literal["none", "disrupted", "shocked", "panicked"]
"""Combat state; the modifier list names only ``disrupted`` for an attacker."""
Side: TypeAlias = Literal["ATT", "DEF"]
"""Who a result falls on, as the chart abbreviates it."""
Effect: TypeAlias = Literal["Destroyed", "Loss", "Panick", "Shocked", "Disrupted", "Retreat"]
"""One part of a result, spelled as the chart prints it."""
Level: TypeAlias = int
"""Experience level, 0 (green) to 4 (the last level)."""

TERRAINS: Final[tuple[Terrain, ...]] = ("clear", "forest", "town")
MOVEMENTS: Final[tuple[Movement, ...]] = ("foot", "mechanized")
ATTACKER_SUPPLIES: Final[tuple[Supply, ...]] = ("supplied", "problem")
DEFENDER_SUPPLIES: Final[tuple[Supply, ...]] = ("supplied", "problem", "out")
ATTACKER_STATES: Final[tuple[State, ...]] = ("none", "disrupted")
DEFENDER_STATES: Final[tuple[State, ...]] = ("none", "disrupted", "shocked", "panicked")
LEVELS: Final[tuple[Level, ...]] = (0, 1, 2, 3, 4)
MAX_HEX_SIDES: Final = 6
"""A hex has six sides, so at most six different sides can join an attack."""

DESTROYED: Final[Effect] = "Destroyed"
LOSS: Final[Effect] = "Loss"
PANIC: Final[Effect] = "Panick"
SHOCKED: Final[Effect] = "Shocked"
DISRUPTED: Final[Effect] = "Disrupted"
RETREAT: Final[Effect] = "Retreat"
EFFECTS: Final[tuple[Effect, ...]] = (DESTROYED, LOSS, PANIC, SHOCKED, DISRUPTED, RETREAT)
COMBAT_STATES: Final[tuple[Effect, ...]] = (DISRUPTED, SHOCKED, PANIC)
"""Results that leave a unit in place with a combat state, mildest first."""
NO_RESULT: Final = "no result"


@dataclass(frozen=True)
class Result:
    """One combat result: the side it falls on and what happens to that side.

    >>> Result.parse("ATT Loss + Panick")
    Result(side='ATT', effects=('Loss', 'Panick'))
    >>> Result.parse("DEF Retreat + Loss").replace(LOSS, None).name
    'DEF Retreat'
    >>> Result.parse("DEF Loss").replace(LOSS, None).name
    'no result'
    """

    side: Side | None
    """``"ATT"`` or ``"DEF"``; ``None`` only for *no result*."""
    effects: tuple[Effect, ...] = ()
    """What happens to that side, in printed order; empty for *no result*."""

    def __post_init__(self) -> None:
        if (self.side is None) != (not self.effects):
            raise ValueError("a result names a side exactly when it has effects")

    @classmethod
    def parse(cls, text: str) -> Result:
        """Read a result as the chart prints it (``"DEF Retreat + Loss"``)."""
        if text == NO_RESULT:
            return cls(None)
        side, _, rest = text.partition(" ")
        if side not in ("ATT", "DEF"):
            raise ValueError(f"unknown side in {text!r}")
        parts = tuple(p.strip() for p in rest.split("+"))
        for p in parts:
            if p not in EFFECTS:
                raise ValueError(f"unknown effect {p!r} in {text!r}")
        return cls(side, parts)  # type: ignore[arg-type]

    @property
    def name(self) -> str:
        """The result as the chart writes it."""
        if self.side is None:
            return NO_RESULT
        return f"{self.side} " + " + ".join(self.effects)

    @property
    def falls_on(self) -> Literal["attacker", "defender", "neutral"]:
        """The side that suffers the result, in words (chart colouring)."""
        return {"ATT": "attacker", "DEF": "defender", None: "neutral"}[self.side]  # type: ignore[return-value]

    def has(self, *effects: Effect) -> bool:
        """True if any of ``effects`` is part of the result."""
        return any(e in self.effects for e in effects)

    def replace(self, effect: Effect, by: Effect | None) -> Result:
        """The result with ``effect`` swapped for ``by`` (or struck out if ``None``).

        A part that would appear twice is kept once, where it first appears.

        >>> Result.parse("ATT Loss + Panick").replace(LOSS, PANIC).name
        'ATT Panick'
        """
        parts: list[Effect] = []
        for e in self.effects:
            new = by if e == effect else e
            if new is not None and new not in parts:
                parts.append(new)
        return Result(self.side if parts else None, tuple(parts))


# The combat table ------------------------------------------------------------

TABLE_LOW: Final = 3
"""Lowest total the chart prints."""
TABLE_HIGH: Final = 18
"""Highest total the chart prints."""

COMBAT_TABLE: Final[Mapping[int, str]] = {
    # 3d6 ± modifiers: result
    3: "ATT Destroyed",
    4: "ATT Loss + Panick",
    5: "ATT Loss",
    6: "ATT Panick",
    7: "ATT Loss",  # printed without a space ("ATTLoss"); the same result as row 5
    8: "ATT Shocked",
    9: "ATT Disrupted",
    10: "no result",
    11: "no result",
    12: "DEF Disrupted",
    13: "DEF Shocked",
    14: "DEF Loss",
    15: "DEF Retreat + Panick",
    16: "DEF Retreat + Loss",
    17: "DEF Retreat + Panick + Loss",
    18: "DEF Destroyed",
}
"""The combat table: modified 3d6 total -> result, exactly as printed."""

TABLE_RESULTS: Final[Mapping[int, Result]] = {row: Result.parse(text) for row, text in COMBAT_TABLE.items()}
"""The combat table read into :class:`Result` values, built once at import."""


# Modifiers, in the order and with the keys the rulebook lists them ----------------
# A key that a list does not name gives no modifier.

LANDSCAPE_FOOT_ATTACK: Final[Mapping[Terrain, int]] = {"forest": -1, "town": -2}
"""Landscape: an attacker with foot movement, by terrain of the hex attacked."""

ATTACKER_SUPPLY: Final[Mapping[Supply, int]] = {"problem": -4}
"""Supply state of the attacker."""

DEFENDER_SUPPLY: Final[Mapping[Supply, int]] = {"problem": +2, "out": +6}
"""Supply state of the defender."""

EXPERIENCE_MODIFIERS: Final[Mapping[Level, tuple[int, int]]] = {
    # level: (when attacking, when defending)
    1: (+1, 0),
    2: (+1, -1),
    3: (+2, -1),
    4: (+2, -2),
}
"""Experience: a unit's level gives the first value to its own attacks and the
second to attacks made against it. Level 2's attack bonus comes from the word
"also" in its rule: it keeps level 1's +1."""

ATTACKER_STATE: Final[Mapping[State, int]] = {"disrupted": -1}
"""Combat state of the attacker."""

DEFENDER_STATE: Final[Mapping[State, int]] = {"disrupted": +1, "shocked": +2, "panicked": +4}
"""Combat state of the defender."""

SIMULTANEOUS_ATTACK: Final[Mapping[int, int]] = {2: +1, 3: +2, 4: +3, 5: +4, 6: +5}
"""Different hex sides used against the hex so far (this attack included)."""

ARTILLERY_VS_MECHANIZED: Final = -2
"""An artillery attacker against a defender with mechanized movement."""


# Settings: our values where the rulebook is silent --------------------------------

Combine: TypeAlias = Literal["sum", "highest"]
"""How a result with several parts earns points (our setting; the rulebook is silent)."""
COMBINE_MODES: Final[tuple[Combine, ...]] = ("sum", "highest")
ArtilleryLimit: TypeAlias = Literal["ceiling", "strike", "cap", "strike_all"]
RetreatDirection: TypeAlias = Literal["among_friendly", "six_directions"]
StrengthRule: TypeAlias = Literal["none", "difference"]
ChoiceMeasure: TypeAlias = Literal["harm", "loss", "any_result", "attacker_xp"]


@dataclass(frozen=True)
class Settings:
    """Our values where the rulebook is silent, each declared once with its form (:func:`engine.settings.setting`)."""

    choice_measure: ChoiceMeasure = setting(
        "harm", help="What 'best chance to stand up' is measured by; lower is better.",
        choices=("harm", "loss", "any_result", "attacker_xp"),
        labels={"harm": "Lowest chance of loss, retreat or destruction",
                "loss": "Lowest chance of loss or destruction",
                "any_result": "Lowest chance of any result against it",
                "attacker_xp": "Fewest experience points expected for the attacker"},
        label="Best defender by",
        assumed="The defender is the unit with the best chance to stand up to the attacker; "
                "the rules give no measure of that chance.")
    """How the best defender of a stack is chosen (only the defender choice shows it)."""
    beyond_table: Literal["clamp"] = setting(
        "clamp", help="How a modified total below 3 or above 18 is read.",
        choices=("clamp",), labels={"clamp": "Use the nearest end of the table"},
        label="Totals off the table",
        assumed="The table prints totals from 3 to 18 only and the rules never say what a "
                "lower or higher modified total means; we read the nearest end of the table.")
    """Off-table totals are read at the nearest end of the table."""
    artillery_limit: ArtilleryLimit = setting(
        "ceiling", help="What a loss or destroyed result becomes when artillery may not cause or take it.",
        choices=("ceiling", "strike", "cap", "strike_all"),
        labels={"ceiling": "Loss becomes Panick; destroyed becomes the worst allowed result",
                "strike": "Strike the loss; destroyed becomes Panick",
                "cap": "Loss and destroyed both become Panick",
                "strike_all": "Strike both loss and destroyed"},
        label="Artillery: forbidden results",
        assumed="The rules say, without naming a side, that artillery never causes a loss or destroyed "
                "result (its worst is a combat state, though it may force retreats), and that artillery "
                "which attacks takes no loss itself; what such a table result turns into is not said. "
                "By default a loss becomes Panick and destroyed becomes the worst result still allowed "
                "(DEF Retreat + Panick, ATT Panick), so a better roll never gives a weaker result.")
    """What a forbidden loss or destroyed result becomes under the artillery rule."""
    defending_artillery: bool = setting(
        True, help="Also limit the results a defending artillery unit inflicts on its attacker.",
        label="Limit defending artillery too",
        assumed="The rules say artillery never causes a loss or destroyed result without naming a side, "
                "then that artillery which attacks takes no loss; whether a defending artillery unit "
                "causes what its attacker suffers is not said. A defender earns experience for those "
                "results (setting defender_earns_xp), so by default the limit holds for it too and guns "
                "on defence never inflict, nor earn points for, a loss or a kill. Turned off, only the "
                "artillery that attacks is limited.")
    """Whether the artillery limit also covers results inflicted by a defending artillery unit."""
    artillery_retreat_kills: bool = setting(
        False, help="A retreat forced by artillery destroys a unit that has no free friendly hex.",
        label="Artillery retreats can destroy",
        assumed="Artillery may force retreats, and a unit that cannot retreat is destroyed, yet "
                "artillery is also said never to destroy; which rule wins is not said. By default "
                "the unit stays in place instead.")
    """Whether a retreat forced by artillery destroys a unit with no free friendly hex."""
    strength_rule: StrengthRule = setting(
        "none", help="Whether unit values change the roll.",
        choices=("none", "difference"),
        labels={"none": "Strength does not enter the roll",
                "difference": "Add attack value minus defence value (not in the rules)"},
        label="Unit strength",
        assumed="The combat rules list no strength modifier and never say how strength "
                "counts; they only remark that artillery defends with a value of 0.")
    """Whether attack and defence values enter the roll."""
    retreat_direction: RetreatDirection = setting(
        "among_friendly", help="How the random retreat direction is picked.",
        choices=("among_friendly", "six_directions"),
        labels={"among_friendly": "At random among the free friendly hexes",
                "six_directions": "At random among all six directions; a non-friendly one destroys"},
        label="Retreat direction",
        assumed="A retreat goes in a random direction and only into a friendly hex, and a unit "
                "with no friendly hex free is destroyed; whether the random pick is among "
                "friendly hexes or among all six directions is not said.")
    """How the random retreat direction is drawn."""
    retreat_kill_counts: bool = setting(
        True, help="A unit destroyed for want of a retreat hex counts as a kill for experience.",
        label="Destruction in retreat is a kill",
        assumed="Experience pays for a kill but the rules do not say whether destruction "
                "for lack of a retreat hex is one.")
    """Whether destruction for want of a retreat hex earns kill points."""
    combined_xp: Combine = setting(
        "sum", help="How a result with several parts earns experience.",
        choices=COMBINE_MODES,
        labels={"sum": "Add the points of every part", "highest": "Only the best-paid part"},
        label="Points for combined results",
        assumed="Points are given per kind of result; results with several parts (retreat, "
                "panic and loss together) are not covered.")
    """How a result with several parts earns points."""
    defender_earns_xp: bool = setting(
        True, help="The defending unit earns experience for results that fall on the attacker.",
        label="Defenders earn experience",
        assumed="Points go to the unit that causes a result; whether a defender causes the "
                "results that fall on its attacker is not said.")
    """Whether defenders earn points for results on the attacker."""
    stack_shares_result: bool = setting(
        False, help="Every unit in the defending hex takes the result, not only the one that fought.",
        label="Whole stack takes the result",
        assumed="One unit fights for a stacked hex; the rules do not say whether the others "
                "share its result, which decides when the hex is emptied.")
    """Whether every unit in the hex shares the fighting unit's result."""

    @classmethod
    def from_inputs(cls, values: Mapping[str, Any]) -> Settings:
        """Settings from a validated ``settings`` group (settings it does not show keep their defaults)."""
        return rules_from(cls, values, partial=True)
