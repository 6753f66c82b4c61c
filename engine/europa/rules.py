"""Our readings where the armour effects rule is silent, declared once.

Each setting of the ``europa`` widgets is a field of :class:`EuropaRules`,
declared with :func:`engine.settings.setting`: its help line, label,
choices and the ``assumed`` note that says what the source does and does not
say. The widgets' ``settings`` groups are made from the class
(:func:`engine.settings.rules_group`), and the stack totals
(:mod:`engine.europa.totals`) and required losses (:mod:`engine.europa.losses`)
read its attributes. A choice keeps its value text; the engine asks the
properties below (``round_up``, ``infantry_pooled``, …) for the yes or no it needs.

>>> rules = EuropaRules()
>>> rules.partial_re_losses, rules.round_up
('up', True)
>>> EuropaRules(double_converts="doubled").double_converts_doubled
True
>>> rules.armour.summary() == ARMOUR_TABLE.summary()
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Final, Literal

from ..schema import Group, Integer, ListOf, Number
from ..settings import setting
from .tables import ARMOUR_TABLE, HEAVY_TABLE, RatioTable

__all__ = ["EuropaRules", "TABLE_ROW", "TableRows"]

TableRows = tuple[Mapping[str, Any], ...]
"""A table setting's rows: ``min_ratio``, ``modifier`` and ``chance_of_next`` each."""

TABLE_ROW: Final = Group("row", "One row of the table.", label="Row", fields=(
    Number("min_ratio", "Lowest ratio (as a number: 5 for 5:1, 1/2 for 1:2) that reads this row.", "1",
           minimum=0, maximum=1000, label="From ratio"),
    Integer("modifier", "Die modifier of the row.", 0, minimum=-9, maximum=9, label="Modifier"),
    Number("chance_of_next", "Chance that the modifier is one higher (1/2 for an even chance).", "0",
           minimum=0, maximum=1, label="Chance of +1"),
))
"""One row of a ratio table the reader may edit."""

_table_field = partial(ListOf, item=TABLE_ROW, min_items=1, max_items=20)


@dataclass(frozen=True)
class EuropaRules:
    """Every setting of the armour effects widgets, in the order the form shows them."""

    armour_table: TableRows = setting(
        tuple(ARMOUR_TABLE.to_json()), help="Armour effects table: each ratio reads the highest row it reaches.",
        label="Armour effects table", field=_table_field,
        assumed="The rule cites an armour effects table that our source does not print; it gives only 5.1:1 = +3 "
                "with an even chance of +4. The other rows are ours, mirrored for AECA:AECD; ratios round down. "
                "A zero is not covered: AECA against no ATEC reads the top row, no AECA against AECD the bottom "
                "one.")
    """Rows of the armour effects table (see :attr:`armour`)."""
    heavy_table: TableRows = setting(
        tuple(HEAVY_TABLE.to_json()),
        help="Heavy unit table: used only when heavy armour units outnumber the other side's heavy ATEC.",
        label="Heavy unit table", field=_table_field,
        assumed="The special unit combat ability table is not in our source; its example gives +1 for twice as "
                "many heavy armour units as heavy ATEC. The row below 2:1 is ours.")
    """Rows of the heavy unit table (see :attr:`heavy`)."""
    infantry_backing: Literal["pooled", "per_unit"] = setting(
        "pooled", help="How infantry backs several AT/heavy AA units that would count double.",
        choices=("pooled", "per_unit"),
        labels={"pooled": "Shared out (3 infantry REs per RE, in list order)", "per_unit": "Each unit sees all"},
        label="Infantry backing",
        assumed="The source asks for three times as many infantry REs but not whether several AT or heavy AA "
                "units may lean on the same infantry.")
    """Whether the infantry backing double ATEC is shared out or seen whole by each unit."""
    motorized_infantry_backs: bool = setting(
        True, help="Motorized infantry counts as infantry for the three-to-one test.",
        label="Motorized infantry backs",
        assumed="The source says infantry REs without saying whether motorized infantry is included.")
    """Motorized infantry counts as infantry for the three-to-one support test."""
    motorized_aa_at_convert: bool = setting(
        False, help="Motorized AA and anti-tank units may be converted to AEC, as motorized artillery may.",
        label="Motorized AA/AT convert",
        assumed="The source's list of types that may not become AEC puts 'non-motorized' before artillery, AA and "
                "anti-tank; we read the word as artillery's alone, so no AA or anti-tank unit converts.")
    """Neutral motorized AA and anti-tank REs may be converted to AEC (else no AA or anti-tank unit may)."""
    half_atec_remainder_converts: bool = setting(
        False, help="The neutral half of a half-ATEC unit may be converted to ATEC.",
        label="Half ATEC converts",
        assumed="The half-value rule lets the other half of a unit be converted, but ATEC conversion is only "
                "for units with no ATEC of their own; we follow the ATEC rule.")
    """The neutral half of a half-ATEC unit may be converted to ATEC (else it has ATEC of its own)."""
    double_converts: Literal["size", "doubled"] = setting(
        "size", help="How many REs a double-value brigade or smaller converts.",
        choices=("size", "doubled"), labels={"size": "Its size (one for one)", "doubled": "Twice its size"},
        label="Double converts",
        assumed="Brigades and smaller convert one for one, and the source never says that a double value "
                "changes that; we convert by size.")
    """What a double-value brigade or smaller converts (see :attr:`double_converts_doubled`)."""
    division_conversion: Literal["every", "tank_mechanized"] = setting(
        "every", help="Which divisions and corps convert a fixed 1 RE.",
        choices=("every", "tank_mechanized"),
        labels={"every": "Every division or corps", "tank_mechanized": "Tank and mechanized ones only; "
                "others convert one for one"},
        label="Division converts",
        assumed="The source holds tank and mechanized divisions (or corps) to 1 RE of conversion and says "
                "nothing of other divisions with AEC or ATEC (an anti-tank or infantry division with full "
                "ATEC); we hold every division or corps to 1 RE.")
    """Which divisions and corps convert a fixed 1 RE (see :attr:`only_tank_mech_divisions_fixed`)."""
    intrinsic_atec: Literal["after_conversions", "reserved"] = setting(
        "after_conversions", help="When a division's intrinsic ATEC is counted against conversions.",
        choices=("after_conversions", "reserved"),
        labels={"after_conversions": "Conversions first; intrinsic fills what is left of its size",
                "reserved": "Room kept for intrinsic before converting"},
        label="Intrinsic ATEC",
        assumed="Intrinsic ATEC adds to conversions up to the division's size; the source's example counts "
                "three REs of conversions and lets the half RE of intrinsic ATEC go unused, so by default "
                "conversions come first.")
    """When intrinsic ATEC is counted (see :attr:`intrinsic_reserved`)."""
    partial_re_losses: Literal["up", "down"] = setting(
        "up", help="A part RE counted for required losses: a whole point, or nothing.",
        choices=("up", "down"), labels={"up": "Round up", "down": "Round down"}, label="Part REs",
        assumed="One strength point per RE is required; the source does not say what a half RE calls for.")
    """How a part RE counts for required losses (see :attr:`round_up`)."""
    cap_basis: Literal["before_terrain", "after_terrain"] = setting(
        "before_terrain", help="Which attacker AECA caps the defender's AECD and ATEC losses.",
        choices=("before_terrain", "after_terrain"),
        labels={"before_terrain": "Before terrain", "after_terrain": "After terrain"}, label="Cap uses",
        assumed="Own REs are counted before terrain; the source does not say which opposing value caps them.")
    """Which AECA caps the defender's losses (see :attr:`caps_before_terrain`)."""
    conversion_share_of: Literal["required", "combat"] = setting(
        "required", help="What converted units may give at most half of.",
        choices=("required", "combat"),
        labels={"required": "Half of the required points", "combat": "Half of all points lost"},
        label="Conversion share",
        assumed="The source limits conversions to half the factors eliminated without saying whether that is "
                "the required points or every point the side loses.")
    """What converted units give at most half of (see :attr:`conversion_share_of_required`)."""
    doubled_atec_own_losses: bool = setting(
        False, help="The doubled ATEC in an AEC-modifying hex also doubles the defender's own ATEC losses.",
        label="Doubling hits defender",
        assumed="The source's example applies the doubling to the attacking armour's losses only.")
    """The doubled ATEC of a defender in an AEC-modifying hex also doubles its own ATEC losses."""
    defender_requirements: Literal["add", "overlap"] = setting(
        "add", help="How the defender's AECD and ATEC requirements combine.",
        choices=("add", "overlap"),
        labels={"add": "They add up", "overlap": "One point may meet both (the larger)"},
        label="AECD with ATEC",
        assumed="The source does not say whether one lost point may count for both requirements.")
    """How the defender's two requirements combine (see :attr:`defender_add`)."""
    decline_covers_heavy: bool = setting(
        False, help="Declining AEC/ATEC also gives up heavy armour and heavy ATEC.",
        label="Decline covers heavy",
        assumed="Heavy effects are in addition to normal ones; the source does not tie them to the decline.")
    """A side that declines AEC/ATEC also gives up its heavy armour and heavy ATEC."""
    declined_aeca: Literal["counts_zero", "no_modifier"] = setting(
        "counts_zero", help="What the modifier is when the attacker declines AEC.",
        choices=("counts_zero", "no_modifier"),
        labels={"counts_zero": "AECA counts 0; the defender's AECD still gives its modifier",
                "no_modifier": "No armour modifier at all"},
        label="Attacker declines",
        assumed="The source says only that declining removes the required losses. We count the declining "
                "side's REs as 0 and still work out the modifier, so an attacker that declines against AECD "
                "reads the table's lowest row; the other reading gives no armour modifier.")
    """The armour modifier when the attacker declines (see :attr:`no_modifier_when_declined`)."""
    axis_heavy_aa: Literal["every", "brigade_2_10"] = setting(
        "every", help="Which Axis heavy AA units count as two heavy ATEC units.",
        choices=("every", "brigade_2_10"),
        labels={"every": "Every Axis heavy motorized AA unit (the example)",
                "brigade_2_10": "Only a 2-10 heavy AA brigade (the note)"},
        label="Axis heavy AA",
        assumed="The note counts each Axis 2-10 heavy AA brigade as two; the example under it counts a heavy "
                "motorized AA regiment as two. The two disagree; we follow the example.")
    """Which Axis heavy AA units count twice (see :attr:`every_axis_heavy_aa`)."""
    declined_defence: Literal["counts_zero", "no_modifier"] = setting(
        "counts_zero", help="What the modifier is when the defender declines AEC.",
        choices=("counts_zero", "no_modifier"),
        labels={"counts_zero": "ATEC and AECD count 0: the attacker's AECA reads the top row",
                "no_modifier": "No armour modifier at all"},
        label="Defender declines",
        assumed="The source says only that declining removes the required losses. Counting the defender's REs "
                "as 0 hands any attacker with AECA the top row of the table; the other reading, as for an "
                "attacker that declines, gives no armour modifier.")
    """The armour modifier when the defender declines (see :attr:`no_modifier_when_defence_declines`)."""
    weather_needs_terrain: bool = setting(
        True, help="Weather adds to the AEC modifier only in a hex whose terrain has one.",
        label="Weather needs terrain",
        assumed="The source says weather increases the terrain's normal AEC modifier. In a hex whose terrain "
                "has none there is nothing to increase, so by default the weather adds nothing there, and the "
                "hex does not count as one that modifies AEC (which would double the ATEC limit on required "
                "losses). Turned off, weather alone gives a modifier.")
    """Weather counts only where the terrain has an AEC modifier (see :meth:`weather_modifier`)."""

    # The engine's yes-or-no view of the choices --------------------------------

    @property
    def armour(self) -> RatioTable:
        """The armour effects table in use."""
        return RatioTable.from_rows(self.armour_table)

    @property
    def heavy(self) -> RatioTable:
        """The heavy unit table in use."""
        return RatioTable.from_rows(self.heavy_table)

    @property
    def infantry_pooled(self) -> bool:
        """Infantry backing the double ATEC of AT/heavy AA units is shared out (else each unit sees all of it)."""
        return self.infantry_backing == "pooled"

    @property
    def double_converts_doubled(self) -> bool:
        """A double-value brigade or smaller converts twice its size (else its size)."""
        return self.double_converts == "doubled"

    @property
    def only_tank_mech_divisions_fixed(self) -> bool:
        """Only tank and mechanized divisions or corps convert a fixed 1 RE; others convert one for one."""
        return self.division_conversion == "tank_mechanized"

    @property
    def intrinsic_reserved(self) -> bool:
        """Room for a division's intrinsic ATEC is kept free before conversions (else conversions come first)."""
        return self.intrinsic_atec == "reserved"

    @property
    def round_up(self) -> bool:
        """A part RE counted still calls for a whole strength point (else it is dropped)."""
        return self.partial_re_losses == "up"

    @property
    def caps_before_terrain(self) -> bool:
        """Caps by the opposing AECA use its value before terrain (else after)."""
        return self.cap_basis == "before_terrain"

    @property
    def conversion_share_of_required(self) -> bool:
        """Converted units may give at most half the required points (else half the side's combat losses)."""
        return self.conversion_share_of == "required"

    @property
    def defender_add(self) -> bool:
        """AECD and ATEC requirements add up (else one lost point may meet both)."""
        return self.defender_requirements == "add"

    @property
    def no_modifier_when_declined(self) -> bool:
        """An attacker that declines AEC gets no armour modifier at all (else its AECA counts 0)."""
        return self.declined_aeca == "no_modifier"

    @property
    def no_modifier_when_defence_declines(self) -> bool:
        """A defender that declines AEC leaves no armour modifier (else its ATEC and AECD count 0)."""
        return self.declined_defence == "no_modifier"

    def weather_modifier(self, terrain: int, weather: int) -> int:
        """The weather's AEC modifier that applies: it increases the terrain's, so by default none without one.

        >>> EuropaRules().weather_modifier(0, 2), EuropaRules().weather_modifier(1, 2)
        (0, 2)
        >>> EuropaRules(weather_needs_terrain=False).weather_modifier(0, 2)
        2
        """
        return weather if terrain > 0 or not self.weather_needs_terrain else 0

    @property
    def every_axis_heavy_aa(self) -> bool:
        """Every Axis heavy motorized AA unit counts as two heavy ATEC units (else only a 2-10 brigade)."""
        return self.axis_heavy_aa == "every"
