"""Declared inputs of the Small General widgets, and the settings they share.

Every value the rulebook does not give is a setting with ``assumed=`` text
that says what the rules do and do not say. :class:`Settings` declares each
one once (:func:`engine.settings.setting`); the schema groups are made from it
and the engine reads its attributes.

>>> s = Settings.from_inputs(SETTINGS.validate(None))
>>> s.artillery_limit, s.retreat_direction, s.combined_xp
('ceiling', 'among_friendly', 'sum')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from ..schema import Boolean, Choice, Field, Group, Integer, ListOf
from ..settings import rules_from, rules_group, setting
from .experience import COMBINE_MODES, Combine
from .rules import (ATTACKER_STATES, ATTACKER_SUPPLIES, DEFENDER_STATES, DEFENDER_SUPPLIES, LEVELS,
                    MAX_HEX_SIDES, MOVEMENTS, TERRAINS)

__all__ = ["UNIT_NAMES", "Settings", "SETTINGS", "ALL_SETTINGS", "settings_group", "setting_field",
           "ArtilleryLimit", "RetreatDirection",
           "StrengthRule", "ChoiceMeasure", "terrain_field", "hex_sides_field", "retreat_hexes_field",
           "attacker_group", "defender_fields", "defender_group", "MAX_STRENGTH"]

ArtilleryLimit: TypeAlias = Literal["ceiling", "strike", "cap", "strike_all"]
RetreatDirection: TypeAlias = Literal["among_friendly", "six_directions"]
StrengthRule: TypeAlias = Literal["none", "difference"]
ChoiceMeasure: TypeAlias = Literal["harm", "loss", "any_result", "attacker_xp"]

MAX_STRENGTH: Final = 30
"""Largest attack or defence value the form accepts."""


UNIT_NAMES: Final[tuple[str, ...]] = (
    "Rifles", "Guards", "Militia", "Engineers", "Cavalry", "Recon",
    "Tanks", "Panzers", "Guns", "Mortars", "Supply column", "HQ",
)
"""Names a unit of a stack can carry, only to tell the units apart (the core has no free-text field)."""


# Settings: our values where the rulebook is silent --------------------------------

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
        assumed="Attacking artillery can neither cause a loss or destroyed result (its worst is "
                "a combat state, though it may force retreats) nor take a loss itself; what such a "
                "table result turns into is not said. By default a loss becomes Panick and destroyed "
                "becomes the worst result still allowed (DEF Retreat + Panick, ATT Panick), so a "
                "better roll never gives a weaker result.")
    """What a forbidden loss or destroyed result becomes under the artillery rule."""
    defending_artillery: bool = setting(
        False, help="Also limit the results a defending artillery unit inflicts on its attacker.",
        label="Limit defending artillery too",
        assumed="The limit speaks of what artillery causes and of artillery that attacks; "
                "whether results against the attacker of an artillery unit are limited is not said.")
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


SETTINGS_HELP: Final = "Values the rulebook leaves open."
"""Help line of every Small General settings group."""

ALL_SETTINGS: Final = rules_group(Settings, "settings", SETTINGS_HELP, label="Settings")
"""Every setting, as the defender choice shows them."""

SETTINGS: Final = rules_group(Settings, "settings", SETTINGS_HELP, label="Settings",
                              only=tuple(f.name for f in ALL_SETTINGS.fields if f.name != "choice_measure"))
"""The settings group of the combat widget (all but the defender choice's measure)."""


def settings_group(*names: str) -> Group:
    """A settings group holding only the named settings, in that order.

    >>> [f.name for f in settings_group("combined_xp", "retreat_kill_counts").fields]
    ['combined_xp', 'retreat_kill_counts']
    """
    return rules_group(Settings, "settings", SETTINGS_HELP, label="Settings", only=names)


def setting_field(name: str) -> Field:
    """The declared field of one setting.

    >>> setting_field("combined_xp").default
    'sum'
    """
    return ALL_SETTINGS.field(name)


# Shared input fields ------------------------------------------------------------

def terrain_field() -> Choice:
    return Choice("terrain", "Landscape of the hex under attack; forest and town hinder foot attackers.",
                  "clear", choices=TERRAINS, label="Terrain")


def hex_sides_field() -> Integer:
    return Integer("hex_sides", "Different hex sides used against this hex so far, this attack included.",
                   1, minimum=1, maximum=MAX_HEX_SIDES, label="Hex sides used")


def retreat_hexes_field() -> Integer:
    return Integer("retreat_hexes", "Adjacent friendly hexes the defender could retreat into.",
                   3, minimum=0, maximum=6, label="Free friendly hexes")


def attacker_group() -> Group:
    """The attacking unit."""
    return Group("attacker", "The unit that attacks and rolls the dice.", label="Attacker", fields=(
        Choice("movement", "Foot units attack worse into forest and town.", "foot",
               choices=MOVEMENTS, label="Movement"),
        Boolean("artillery", "Artillery never causes or takes losses when it attacks.", False,
                label="Artillery"),
        Choice("supply", "A supply problem hinders the attack.", "supplied",
               choices=ATTACKER_SUPPLIES, labels={"problem": "supply problem"}, label="Supply"),
        Integer("experience_level", "Levels 1 to 4 improve the attack.", 0,
                minimum=min(LEVELS), maximum=max(LEVELS), label="Experience level"),
        Choice("state", "A disrupted attacker fights worse.", "none",
               choices=ATTACKER_STATES, label="Combat state"),
        Integer("attack_value", "Used only if the unit strength setting adds values.", 1,
                minimum=0, maximum=MAX_STRENGTH, label="Attack value"),
    ))


def defender_fields() -> tuple[Field, ...]:
    """The fields of one defending unit."""
    return (
        Choice("movement", "Artillery attacks mechanized units at a penalty.", "foot",
               choices=MOVEMENTS, label="Movement"),
        Boolean("artillery", "Artillery defends with a value of 0.", False, label="Artillery"),
        Choice("supply", "Supply problems and being out of supply help the attacker.", "supplied",
               choices=DEFENDER_SUPPLIES, labels={"problem": "supply problem", "out": "out of supply"},
               label="Supply"),
        Integer("experience_level", "Levels 2 to 4 make the unit harder to hit.", 0,
                minimum=min(LEVELS), maximum=max(LEVELS), label="Experience level"),
        Choice("state", "Each combat state makes the unit easier to beat.", "none",
               choices=DEFENDER_STATES, label="Combat state"),
        Integer("defence_value", "Used only if the unit strength setting adds values; artillery counts 0.", 1,
                minimum=0, maximum=MAX_STRENGTH, label="Defence value"),
    )


def defender_group() -> Group:
    """The defending unit of a one-on-one combat."""
    return Group("defender", "The unit that defends the hex.", label="Defender", fields=defender_fields())


def defender_list(default: tuple[Mapping[str, Any], ...]) -> ListOf:
    return ListOf("defenders", "Every enemy unit in the attacked hex.", default,
                  item=Group("unit", "", label="Unit",
                             fields=(Choice("name", "A name to tell the units apart.", UNIT_NAMES[0],
                                            choices=UNIT_NAMES, label="Name"),
                                     *defender_fields())),
                  min_items=1, max_items=12, label="Units in the hex")
