"""The die, the round sequence and every setting the source leaves open.

The source never says which die it rolls. Interception "succeeds on a
modified roll of 0 to 3", which only reads naturally on a die numbered 0 to
9, and Wars Across the World (the older game by the same designer) rolls one
ten-sided die per shot; so the faces are a setting, 0-9 by default.

>>> faces(SgsRules())
(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
>>> faces(SgsRules(die="1-10"))[-1]
10
>>> ROUNDS
('artillery', 'air', 'mines', 'recon', 'main', 'next', 'next', 'next')
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal, TypeAlias

from ..settings import setting

__all__ = ["SgsRules", "faces", "RoundName", "ROUNDS", "ROUND_MODIFIERS", "Modifier", "MAX_NEXT_ROUNDS"]

RoundName: TypeAlias = Literal["artillery", "air", "mines", "recon", "main", "next", "pursuit"]
"""A battle round that involves fire (the card round fires nothing)."""

MAX_NEXT_ROUNDS: Final = 3
"""Next rounds follow the main round at most three times: the source's cap (how many a battle fights is the
setting :attr:`SgsRules.next_rounds`)."""

ROUNDS: Final[tuple[RoundName, ...]] = ("artillery", "air", "mines", "recon", "main") + ("next",) * MAX_NEXT_ROUNDS
"""The fire rounds in the order they are fought: eight at most besides the card round."""

Modifier: TypeAlias = Literal["cards", "terrain", "entrenchment", "leaders", "boosters", "armour", "crossing"]
"""A kind of combat modifier."""

_ALL: Final[tuple[Modifier, ...]] = ("cards", "terrain", "entrenchment", "leaders", "boosters", "armour")

ROUND_MODIFIERS: Final[dict[RoundName, tuple[Modifier, ...]]] = {
    "artillery": ("cards", "terrain", "entrenchment"),
    "air": ("cards", "terrain", "entrenchment"),
    "mines": ("cards",),
    "recon": _ALL,
    "main": _ALL + ("crossing",),
    "next": _ALL,
    "pursuit": _ALL,
}
"""Which modifiers count in each round, as the source lists them.

The source gives the lists for the artillery, air support and mine rounds;
main and next rounds take every modifier, and a river or strait crossing
counts in the main round only (see :attr:`SgsRules.recon_modifiers` for the
recon round, about which the source is silent).
"""


@dataclass(frozen=True)
class SgsRules:
    """Values the source does not give, and options a player may choose."""

    die: str = setting("0-9", help="Faces of the die rolled for every shot and test.",
                       choices=("0-9", "1-10"), labels={"0-9": "0 to 9", "1-10": "1 to 10"},
                       assumed="The source never names its die; interception succeeding on a modified 0 to 3 "
                               "fits a die numbered 0-9, and Wars Across the World rolls a d10 per shot.",
                       section="Dice")
    reduced_at_half: bool = setting(True, help="A unit at half its strength or less fires with its reduced value.",
                                    assumed="The source says only that the value is usually lower once half "
                                            "the strength is gone.", section="Shots")
    elite_reroll: str = setting("every miss", help="Which missed shots of an elite unit are rolled once more.",
                                choices=("every miss", "first shot"),
                                labels={"every miss": "every missed shot",
                                        "first shot": "only the first shot of its volley (a unit firing twice "
                                                      "re-rolls a miss of its first shot only)"},
                                assumed="The source lets an elite unit fire again when its first shot misses; "
                                        "elsewhere it speaks of first rolls, which fits a second roll for any "
                                        "shot. We give every missed shot one more roll.", section="Shots")
    mean_rounding: str = setting("half up", help="How the mean morale of the combat units is rounded.",
                                 choices=("half up", "half even", "up"),
                                 labels={"half up": "to the nearest whole value, a half up",
                                         "half even": "to the nearest whole value, a half to the even one",
                                         "up": "up to the next whole value, any fraction"},
                                 assumed="The source's wording for rounding the mean can be read as the nearest "
                                         "whole value or as the next one up, and it does not say where a half "
                                         "goes; we take the nearest, a half rounding up.",
                                 section="Battle morale")
    demoralised: str = setting("below zero", help="When a side's battle morale makes it take a rout test.",
                               choices=("below zero", "zero or below"),
                               assumed="The source says below zero in one place and zero or negative in another.",
                               section="Rout")
    rout_test: str = setting("die", help="How a demoralised side tests for a rout.",
                             choices=("die", "certain"),
                             labels={"die": "routs when the die exceeds hold + battle morale",
                                     "certain": "a demoralised side always routs"},
                             assumed="The source gives no rout test.", section="Rout")
    rout_hold: int = setting(4, help="With the die test: the side routs when the die is above this plus its "
                                     "(negative) battle morale.", minimum=-10, maximum=10,
                             assumed="The source gives no rout test.", section="Rout")
    rout_tally: str = setting("units", help="What is counted to pick the one side that tests when both are "
                                            "demoralised: units eliminated plus units panicked, or hits taken "
                                            "plus units panicked.",
                              choices=("units", "hits"),
                              assumed="The source says losses and panics added up, without saying "
                                      "whether a loss is a unit or a strength point.", section="Rout")
    split: str = setting("largest remainder", help="How a whole number of hits is shared in proportion "
                                                   "to the targets' remaining strength.",
                         choices=("largest remainder", "highest averages"),
                         labels={"largest remainder": "whole shares, then the largest remainders (ties: stronger, "
                                                      "then first listed)",
                                 "highest averages": "one hit at a time to the unit with the highest "
                                                     "strength per hit already given (ties: first listed)"},
                         assumed="The source says in proportion to remaining strength and gives no rounding.",
                         section="Losses")
    wastage_rounding: str = setting("down", help="Half of the OtherUnits' hits on a side of CavUnits only: "
                                                 "rounded down or up.", choices=("down", "up"),
                                    assumed="The source says half is wasted and gives no rounding.",
                                    section="Losses")
    wastage_scope: str = setting("front", help="When half of the OtherUnits' hits is wasted on CavUnits: once "
                                               "no OtherUnit but those that take hits last can take what is left "
                                               "of them, or only once no OtherUnit at all can, those included.",
                                 choices=("front", "every tier"),
                                 labels={"front": "when the balance falls on CavUnits and only OtherUnits that "
                                                  "take hits last (rear forts) have room",
                                         "every tier": "only when no OtherUnit in any tier has room, rear forts "
                                                       "included"},
                                 assumed="The source wastes half the OtherUnits' balance once only CavUnits remain, "
                                         "and keeps units that take hits last (forts in the rear) out of reach "
                                         "while others can be hit. Counting such a fort as an OtherUnit that "
                                         "remains would let one idle fort give the enemy full hits on the "
                                         "CavUnits in front of it; we count every OtherUnit but those that "
                                         "take hits last.", section="Losses")
    support_rounding: str = setting("down", help="Half of the support units lost with total elimination: "
                                                 "rounded down or up.", choices=("down", "up"),
                                    assumed="The source says half and gives no rounding.", section="Rout")
    recon_modifiers: str = setting("all", help="Modifiers counted in the recon round.",
                                   choices=("all", "cards"),
                                   labels={"all": "as in the main round (no crossing)", "cards": "cards only"},
                                   assumed="The source lists no modifiers for the recon round.", section="Rounds")
    next_rounds: int = setting(MAX_NEXT_ROUNDS, help="Next rounds fought after the main round, at most (the "
                                                     "battle may end sooner).", minimum=0, maximum=MAX_NEXT_ROUNDS,
                               label="Next rounds at most",
                               assumed="The source lets next rounds come up to three times and says a battle's "
                                       "length depends on the terrain, those taking part and sometimes cards, "
                                       "with no numbers; we fight all three unless this says fewer.",
                               section="Rounds")
    crossing_round: str = setting("main", help="The round in which a river or strait crossing counts.",
                                  choices=("main", "first"),
                                  labels={"main": "the main round",
                                          "first": "the battle's first fire round if it takes every modifier "
                                                   "(recon or main); lost if artillery, air or mines came first"},
                                  assumed="The source gives the crossing bonus in the battle's first round only, "
                                          "while its lists for the artillery, air support and mine rounds leave "
                                          "it out.", section="Shots")
    air_panic_share: Fraction = setting(Fraction(1, 2), help="Share of an AA or air-combat volley's successes "
                                                             "that become panics (rounded down); the rest are hits.",
                                        minimum=0, maximum=1,
                                        assumed="The source says a volley gives panics and hits but not "
                                                "how many of each.", section="Air")
    air_winner: str = setting("more successes", help="Which side wins an air combat (ties go to the defender).",
                              choices=("more successes", "more hits"),
                              labels={"more successes": "the side whose shots succeeded more often",
                                      "more hits": "the side that scored more hits (panics not counted)"},
                              assumed="The source says the loser flies home and ties go to the defender, "
                                      "but not how the winner is found.", section="Air")
    cancel_scope: str = setting("battle", help="A card cancelling the first shot: the enemy's first hit of the "
                                                "battle, or its first hit in each round.",
                                choices=("battle", "round"),
                                labels={"battle": "the first hit of the battle", "round": "the first hit of every round"},
                                assumed="The source names cards cancelling the first shot as an exception to every "
                                        "hit counting, and says no more.", section="Cards")
    intercept_below_zero: bool = setting(True, help="A modified interception roll below 0 still succeeds.",
                                         assumed="The source says a modified 0 to 3 succeeds; modifiers "
                                                 "can take the roll below 0.", section="Air")


def faces(rules: SgsRules) -> tuple[int, ...]:
    """The faces of the die, lowest first."""
    return tuple(range(0, 10)) if rules.die == "0-9" else tuple(range(1, 11))
