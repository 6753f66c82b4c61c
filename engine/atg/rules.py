"""Advanced Tactics Gold rule variables: every number the combat loop reads.

The game keeps its combat constants in a scenario's list of numbered rule
variables ("rulevar 30"). The Combat Calculations page names the numbers but
prints no values, so every field below is a setting with a default marked
assumed, and every default is our own choice, set to let its rule show at a
plausible size. Where the page points a way without a number (counterattacks
are lighter in AT Gold; attackers are held back in the first two rounds,
tanks less than infantry; aircraft struck on their own airfield lose hit
points in the first rounds) the default follows it, and its note says so.

The page gives one number two meanings in places (317 is both an experience
bound and a start-up modifier; 835 is both an air stack maximum and the
airfield penalty). Each meaning is its own field here; the field's note names
the number the page uses.

>>> r = Rules()
>>> r.land_stack_max, r.land_stack_per_side, r.panic_chance
(100, 50, Fraction(1, 4))
>>> concentric_values(r)[:3]
(Fraction(1, 10), Fraction(1, 4), Fraction(1, 2))
>>> f = as_floats(r)
>>> f["panic_chance"], f["tie_to_attacker"], f["whole_scores"]
(0.25, 0.0, 0.0)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, Literal, TypeAlias

from ..montecarlo import Kept
from ..settings import Watched, setting

__all__ = ["Rules", "concentric_values", "as_floats", "Randomisation", "TieReading", "RULEVAR_NUMBERS"]

Randomisation: TypeAlias = Literal["continuous", "whole"]
"""How a score is drawn below its value: any real number, or a whole number."""
TieReading: TypeAlias = Literal["strict", "ties_to_attacker"]
"""Whether equal scores miss (the page's wording) or hit."""

OURS = "The page gives no value; the default is our choice."

_ROUNDS = "Rounds and action points"
_CAPITULATION = "Capitulation"
_CONCENTRIC = "Concentric attack"
_STACKING = "Stacking"
_RETREAT = "Retreat and panic"
_VICTORY = "Victory"
_COUNTER = "Counterattacks"
_ATTACK = "Attack modifiers"
_HP = "Hit point modifiers"
_HITS = "Hits and experience"
_DRAW = "Drawing the scores"
_STRUCT = "Structures and missions"
_INTERCEPT = "Interception"


def _ours(number: str) -> str:
    return f"The page names rulevar {number} but gives no value; the default is our choice."


def _lighter(number: str) -> str:
    return (f"The page names rulevar {number} but gives no value. It says only that under the AT Gold (and "
            "classic) rules a counterattack strikes less hard than an attack; one half, the same in all four "
            "cases, is our choice.")


_STARTUP = ("The page names rulevars 316 and 317 as limits on the attacking side in the first two rounds, and "
            "says why the rule exists: attackers need time to close in before they fight well, tanks less time "
            "than infantry. So the rule is in force, but the page gives no numbers: one half in round 1 and three "
            "quarters in round 2 are our choice, and each unit type's start-up share scales them (in the "
            "illustrative roster infantry takes all of the penalty, the tank half, and artillery, flak, aircraft "
            "and ships, which hit without first closing in, none).")


_AIRFIELD = ("The page describes this penalty as part of the AT Gold rules (it marks it as absent from AT classic): "
             "aircraft based on an airfield that an airstrike or a bombing run targets lose hit points in the "
             "first rounds, by rulevars 835 and 836. So the rule is in force, but the page gives no values: "
             "half the hit points for the first two rounds is our choice.")


@dataclass(frozen=True)
class Rules:
    """The rule variables and reading choices of one battle."""

    # Rounds and action points ------------------------------------------------
    round_ap_cost: int = setting(10, help="Action points an individual pays for each further round.",
                                 minimum=0, maximum=100, section=_ROUNDS)
    defenders_pay_ap: bool = setting(False, help="Defenders also leave when they cannot pay a round.",
                                     section=_ROUNDS,
                                     assumed="The page says any individual; we apply it to the attacking side only "
                                             "by default, since defenders fight in the enemy's turn.")
    attacker_capitulation_round: int = setting(30, help="Round in which the remaining attackers give up (in the "
                                               "battles the next setting names; in others they go home then).",
                                               minimum=1, maximum=100, section=_ROUNDS)
    attacker_capitulation: str = setting(
        "named", help="Which battles end with the attackers capitulating at that round.",
        choices=("named", "every"),
        labels={"named": "amphibious landings, paradrops and rebel risings (the page's list); in any other "
                         "battle the attackers still there go home at that round",
                "every": "every kind of combat"},
        section=_ROUNDS,
        assumed="The page has the attackers capitulate when round 30 is reached and names the battles where "
                "that happens, seldom: amphibious assaults, paradrops and rebel combat. We apply it to those three "
                "only; bombers or guns with action points for more rounds would otherwise be captured in the air "
                "or behind their own lines. The page says nothing of other battles that last so long: so that "
                "every battle ends, their attackers still there go home at that round.")
    safe_retreat_rounds: int = setting(2, help="Rounds a retreating individual stays under fire before it is safe.",
                                       minimum=0, maximum=10, section=_ROUNDS)
    breakthrough_rounds: int = setting(2, help="Rounds without being hit (or targeted) that a land breakthrough needs.",
                                       minimum=1, maximum=10, section=_ROUNDS)
    defender_breakthrough: str = setting(
        "aircraft", help="Which individuals of the defending side can break through.",
        choices=("aircraft", "all", "none"),
        labels={"aircraft": "aircraft only, by the air rule (interceptors reach backbench bombers)",
                "all": "every individual, by the same rules as the attacker's",
                "none": "none: breakthrough is the attacker's alone"},
        section=_ROUNDS,
        assumed="The page speaks of the individual attacker breaking through, and of the defender's last "
                "front-line troops; it never has a defender break through. Read that way, interceptors could "
                "never reach backbench bombers, which the page expects them to; so by default the defending "
                "side's aircraft break through by the air rule and its ground troops never do. Letting every "
                "defender break through left untouched defenders out of reach of the attacker's guns.")
    breakthrough_no_front: str = setting(
        "overstacking", help="What it means for a breakthrough that the defender has no front line left.",
        choices=("overstacking", "automatic"),
        labels={"overstacking": "an overstacked attack can no longer fail; the rounds unhit are still needed",
                "automatic": "every attacker still fighting breaks through at once"},
        section=_ROUNDS,
        assumed="The page says a breakthrough always succeeds once the defender has nobody left but backbench "
                "individuals, straight after saying that an overstacked attack may fail to break through. We read "
                "it as lifting only that failure: each attacker still needs its rounds without being hit (or "
                "targeted). Read alone, the sentence may mean that every attacker breaks through the moment the "
                "front line is gone; that reading is the other choice, and it brings the attack to the guns and "
                "other backbench troops rounds sooner.")
    paradrop_round: int = setting(5, help="Round in which transports drop their paratroopers and turn back.",
                                  minimum=1, maximum=30, section=_ROUNDS)
    mission_round: int = setting(2, help="Round in which recon, airlift and air supply flights and ambushed "
                                 "attackers leave.", minimum=1, maximum=30, section=_ROUNDS)

    # Capitulation -------------------------------------------------------------
    capitulation_morale: int = setting(10, help="Rulevar 37: morale below which a retreating defender may give up.",
                                       minimum=0, maximum=100, section=_CAPITULATION, assumed=_ours("37"))
    capitulation_readiness: int = setting(25, help="Rulevar 301: readiness below which a retreating defender may "
                                          "give up.", minimum=1, maximum=100, section=_CAPITULATION,
                                          assumed=_ours("301"))

    # Concentric attack ---------------------------------------------------------
    concentric_1: Fraction = setting(Fraction(1, 10), help="Rulevar 132: bonus with 1 side of attack.", minimum=0,
                                     maximum=10, section=_CONCENTRIC,
                                     assumed=_ours("132") + " We read 132 as one side, 133 two sides, and so on.")
    concentric_2: Fraction = setting(Fraction(1, 4), help="Rulevar 133: bonus with 2 sides.", minimum=0, maximum=10,
                                     section=_CONCENTRIC, assumed=_ours("133"))
    concentric_3: Fraction = setting(Fraction(1, 2), help="Rulevar 134: bonus with 3 sides.", minimum=0, maximum=10,
                                     section=_CONCENTRIC, assumed=_ours("134"))
    concentric_4: Fraction = setting(Fraction(3, 4), help="Rulevar 135: bonus with 4 sides.", minimum=0, maximum=10,
                                     section=_CONCENTRIC, assumed=_ours("135"))
    concentric_5: Fraction = setting(Fraction(1), help="Rulevar 136: bonus with 5 sides.", minimum=0, maximum=10,
                                     section=_CONCENTRIC, assumed=_ours("136"))
    concentric_6: Fraction = setting(Fraction(3, 2), help="Rulevar 137: bonus with 6 sides.", minimum=0, maximum=10,
                                     section=_CONCENTRIC, assumed=_ours("137"))
    concentric_7: Fraction = setting(Fraction(2), help="Rulevar 138: bonus with 7 sides (beyond a hex's six).",
                                     minimum=0, maximum=10, section=_CONCENTRIC,
                                     assumed=_ours("138") + " A hex has six sides, so a battle never reaches it.")
    concentric_8: Fraction = setting(Fraction(5, 2), help="Rulevar 139: bonus with 8 sides (beyond a hex's six).",
                                     minimum=0, maximum=10, section=_CONCENTRIC,
                                     assumed=_ours("139") + " A hex has six sides, so a battle never reaches it.")
    concentric_multiple_hq: Fraction = setting(Fraction(1, 2), help="Share of the bonus kept when several HQs attack.",
                                               minimum=0, maximum=1, section=_CONCENTRIC,
                                               assumed="The page says the bonus is halved.")

    # Stacking -------------------------------------------------------------------
    land_stack_max: int = setting(100, help="Rulevar 30: land stack without penalty (defence; attack at least this).",
                                  minimum=1, maximum=10000, section=_STACKING, assumed=_ours("30"))
    land_stack_per_side: int = setting(50, help="Rulevar 31: attacking land stack allowed per side of attack.",
                                       minimum=0, maximum=10000, section=_STACKING, assumed=_ours("31"))
    air_stack_max: int = setting(100, help="Air stack in an attack on the ground without penalty (rulevar 835 "
                                 "of the overstacking paragraph).", minimum=1, maximum=10000, section=_STACKING,
                                 assumed="The overstacking paragraph gives the air maximum as rulevar 835, a number "
                                 "the page also gives the airfield penalty; each meaning is its own setting here. "
                                 "The page gives no value; the default is our choice.")
    air_may_overstack: bool = setting(False, help="Rulevar 833: attacking air may exceed its stack maximum "
                                      "without the overstacking penalty.", section=_STACKING,
                                      assumed="The stacking paragraph has rulevar 833 switch on air exceeding its "
                                      "own maximum in attack, and says nothing more. Since anyone may overstack "
                                      "at the price of the penalty, we read the switch as lifting the penalty "
                                      "for the attacker's air. Off by default: our choice (the page marks the "
                                      "rule as newer than AT classic but does not say Gold turns it on).")
    artillery_stack_max: int = setting(100, help="Artillery stack in attack without penalty (rulevar 834 of the "
                                       "overstacking paragraph).", minimum=1, maximum=10000, section=_STACKING,
                                       assumed="The overstacking paragraph gives the artillery maximum as rulevar "
                                       "834; the stacking paragraph makes 834 a switch (see the next setting). "
                                       "The page gives no value; the default is our choice.")
    artillery_may_overstack: bool = setting(False, help="Rulevar 834 read as a switch: attacking artillery may "
                                            "exceed its stack maximum without the overstacking penalty.",
                                            section=_STACKING,
                                            assumed="The stacking paragraph has rulevar 834 switch on artillery "
                                            "exceeding its own maximum in attack, while the overstacking paragraph "
                                            "makes 834 the artillery maximum itself. We keep both readings as two "
                                            "settings; the switch, read as for air (833), is off by default: our "
                                            "choice.")
    remember_battlestack: bool = setting(False, help="Rulevar 859: stacks of earlier battles in the hex count too.",
                                         section=_STACKING, assumed=_ours("859") + " 0 means off.")
    overstack_power: Fraction = setting(Fraction(2), help="Power of maximum/stack giving the overstacking factor.",
                                        minimum=0, maximum=10, section=_STACKING,
                                        assumed="The page says only that the penalty is exponential, not linear; "
                                        "we use (maximum / stack) to this power.")

    # Retreat and panic ------------------------------------------------------------
    panic_chance: Fraction = setting(Fraction(1, 4), help="Rulevar 70: chance a unit that may panic does so this round.",
                                     minimum=0, maximum=1, section=_RETREAT, assumed=_ours("70"))
    panic_morale_loss: Fraction = setting(Fraction(1, 2), help="Rulevar 172: share of morale lost at once by every "
                                          "individual of a unit that panics.",
                                          minimum=0, maximum=1, section=_RETREAT,
                                          assumed="The page calls it rulevar 172 and gives no value; the "
                                          "default (half) is our choice.")
    panic_reading: str = setting("losses_above_morale", help="Which units may panic.",
                                 choices=("losses_above_morale", "as_written"),
                                 labels={"losses_above_morale": "percent lost above morale (higher morale holds "
                                                                "longer)",
                                         "as_written": "percent remaining below morale (the page's words)"},
                                 section=_RETREAT,
                                 assumed="The page says a unit may panic once the percent of its troops remaining "
                                 "drops below its morale. Taken word for word, a unit of full morale may panic at "
                                 "its first loss and a shaken one almost never, and doubling the morale of a unit "
                                 "with no way out makes it likelier still to run: 40 tanks that have destroyed the "
                                 "lone defender can panic into a standoff. We read it as morale is meant to work: a "
                                 "unit may panic once the percent it has lost exceeds its morale (the same as the "
                                 "percent remaining below 100 minus morale).")
    trapped_defenders: str = setting(
        "lost", help="What becomes of defenders still in the hex when it falls with no side open to retreat.",
        choices=("lost", "not_modelled"),
        labels={"lost": "lost with the hex", "not_modelled": "left as they are (the page says no more)"},
        section=_RETREAT,
        assumed="The page says the survivors of the losing side retreat unless no retreat is possible, and "
        "stops there. The attacker now holds the hex, so they cannot stay: we count them lost with it. The "
        "other choice leaves them counted as survivors, as the words alone would.")
    no_retreat_morale_factor: Fraction = setting(Fraction(2), help="Morale multiplier in the panic test for a unit "
                                                 "with no way out.", minimum=0, maximum=10, section=_RETREAT,
                                                 assumed="The page says morale is doubled.")

    # Victory -----------------------------------------------------------------------
    airstrike_continues: bool = setting(False, help="Rulevar 341: an airstrike goes on with no defenders left.",
                                        section=_VICTORY, assumed=_ours("341") + " 0 means off.")

    # Counterattacks -------------------------------------------------------------------
    counterattacks_off: bool = setting(False, help="Rulevar 807: no counterattacks at all.", section=_COUNTER,
                                       assumed="The page names rulevar 807 as the switch that disables "
                                       "counterattacks, and speaks of counterattacks under the AT Gold rules, so "
                                       "they stay on.")
    counter_attacker_land: Fraction = setting(Fraction(1, 2), help="Rulevar 101: counterattack by the hex's "
                                              "attackers, land against land.", minimum=0, maximum=10,
                                              section=_COUNTER, assumed=_lighter("101"))
    counter_defender_land: Fraction = setting(Fraction(1, 2), help="Rulevar 102: counterattack by the hex's "
                                              "defenders, land against land.", minimum=0, maximum=10,
                                              section=_COUNTER, assumed=_lighter("102"))
    counter_attacker_other: Fraction = setting(Fraction(1, 2), help="Rulevar 103: counterattack by the hex's "
                                               "attackers, other cases.", minimum=0, maximum=10, section=_COUNTER,
                                               assumed=_lighter("103"))
    counter_defender_other: Fraction = setting(Fraction(1, 2), help="Rulevar 104: counterattack by the hex's "
                                               "defenders, other cases.", minimum=0, maximum=10, section=_COUNTER,
                                               assumed=_lighter("104"))
    counter_battery: bool = setting(False, help="Rulevar 142: defending artillery fires back in artillery attacks.",
                                    section=_COUNTER, assumed="The page says counter-battery fire by rulevar 142 "
                                    "is not part of the AT Gold and classic rules: off.")

    # Attack modifiers ------------------------------------------------------------------
    aa_from_distance: Fraction = setting(Fraction(1, 2), help="Rulevar 105: anti-aircraft fire from another hex.",
                                         minimum=0, maximum=10, section=_ATTACK, assumed=_ours("105"))
    readiness_weight_attacker: Fraction = setting(Fraction(1), help="Rulevar 106: weight of readiness on the "
                                                  "attack of the hex's attackers.", minimum=0, maximum=1,
                                                  section=_ATTACK, assumed=_ours("106") +
                                                  " Shape x(1 - w + w·readiness/100) is assumed.")
    readiness_weight_defender: Fraction = setting(Fraction(1, 2), help="Rulevar 107: weight of readiness on the "
                                                  "attack of the hex's defenders.", minimum=0, maximum=1,
                                                  section=_ATTACK, assumed=_ours("107"))
    surprise: Fraction = setting(Fraction(2), help="Rulevar 108: ambushing defenders' attacks in a surprise combat.",
                                 minimum=0, maximum=10, section=_ATTACK, assumed=_ours("108"))
    versus_paradrop: Fraction = setting(Fraction(3), help="Rulevar 109: attacks on a paradrop's paratroopers, "
                                        "once they have landed.", minimum=0, maximum=10, section=_ATTACK,
                                        assumed=_ours("109") + " It gives the rulevar to attacks on paratroopers "
                                        "being dropped; here they cannot be attacked in their transports and land "
                                        "all at once after the drop round's steps, so it applies to every attack on "
                                        "them from their landing on.")
    versus_amphibious: Fraction = setting(Fraction(3), help="Rulevar 110: attacks on the land troops of an "
                                          "amphibious landing.", minimum=0, maximum=10, section=_ATTACK,
                                          assumed=_ours("110") + " It gives the rulevar to attacks on an invasion "
                                          "force being landed; here the landing force is ashore from round 1, so it "
                                          "applies to every attack on its land troops for the whole battle.")
    rebel: Fraction = setting(Fraction(2), help="Rulevar 111: attacks by rebels attacking the hex.", minimum=0,
                              maximum=10, section=_ATTACK, assumed=_ours("111"))
    retreating_attacker_target: Fraction = setting(Fraction(1, 4), help="Rulevar 112: attacks on a retreating "
                                                   "individual of the hex's attackers.", minimum=0, maximum=10,
                                                   section=_ATTACK, assumed=_ours("112"))
    retreating_defender_target: Fraction = setting(Fraction(1), help="Rulevar 113: attacks on a retreating "
                                                   "individual of the hex's defenders.", minimum=0, maximum=10,
                                                   section=_ATTACK, assumed=_ours("113"))
    panicking_attacker_target: Fraction = setting(Fraction(1), help="Rulevar 114: attacks on a panicking "
                                                  "individual of the hex's attackers.", minimum=0, maximum=10,
                                                  section=_ATTACK, assumed=_ours("114"))
    panicking_defender_target: Fraction = setting(Fraction(2), help="Rulevar 115: attacks on a panicking "
                                                  "individual of the hex's defenders.", minimum=0, maximum=10,
                                                  section=_ATTACK, assumed=_ours("115"))
    supply_weight: Fraction = setting(Fraction(3, 4), help="Rulevar 130: weight of supply on attack and hit points.",
                                      minimum=0, maximum=1, section=_ATTACK,
                                      assumed=_ours("130") + " Shape x(1 - w + w·supply/100) is assumed.")
    staff_bonus: Fraction = setting(Fraction(1, 2), help="Rulevar 140: bonus from staff with no experience.",
                                    minimum=0, maximum=10, section=_ATTACK, assumed=_ours("140"))
    max_attacked_cap: Fraction = setting(Fraction(3), help="Rulevar 300: largest divisor of the max-attacked "
                                         "modifier.", minimum=1, maximum=100, section=_ATTACK,
                                         assumed=_ours("300") + " We divide by min(times attacked / maximum, 300).")
    startup_round_1: Fraction = setting(Fraction(1, 2), help="Rulevar 316: attack start-up modifier in round 1.",
                                        minimum=0, maximum=1, section=_ATTACK, assumed=_STARTUP)
    startup_round_2: Fraction = setting(Fraction(3, 4), help="Rulevar 317: attack start-up modifier in round 2.",
                                        minimum=0, maximum=1, section=_ATTACK,
                                        assumed=_STARTUP + " The page also gives 317 to an experience bound; the "
                                        "two are kept apart.")
    out_of_fuel: Fraction = setting(Fraction(1, 2), help="Attack score factor of an individual without fuel.",
                                    minimum=0, maximum=1, section=_ATTACK, assumed=OURS)

    # Hit point modifiers --------------------------------------------------------------------
    readiness_weight_hp: Fraction = setting(Fraction(1, 4), help="Rulevar 116: weight of readiness on hit points.",
                                            minimum=0, maximum=1, section=_HP, assumed=_ours("116"))
    river_hit_points: Fraction = setting(Fraction(1, 2), help="Hit point bonus of defenders behind a river.",
                                         minimum=0, maximum=10, section=_HP,
                                         assumed="The page gives no size (the game takes it from the river type).")
    river_bridge: Fraction = setting(Fraction(1, 2), help="Rulevar 5: share of the river bonus kept with a bridge.",
                                     minimum=0, maximum=1, section=_HP, assumed=_ours("5"))
    airfield_penalty: Fraction = setting(Fraction(1, 2), help="Rulevar 835: hit point penalty of aircraft attacked "
                                         "on their airfield (0 none, 1 all).", minimum=0, maximum=1, section=_HP,
                                         assumed=_AIRFIELD + " The page also gives 835 to the air stack maximum; "
                                         "the two are kept apart.")
    airfield_penalty_rounds: int = setting(2, help="Rulevar 836: first rounds in which the airfield penalty applies.",
                                           minimum=0, maximum=30, section=_HP, assumed=_AIRFIELD)

    # Hits and experience ----------------------------------------------------------------------
    kill_xp: int = setting(30, help="Rulevar 119: experience for a kill hit.", minimum=0, maximum=100,
                           section=_HITS, assumed=_ours("119"))
    retreat_xp: int = setting(10, help="Rulevar 120: experience for a retreat hit.", minimum=0, maximum=100,
                              section=_HITS, assumed=_ours("120"))
    pinned_xp: int = setting(0, help="Rulevar 121: experience for a pinned hit.", minimum=0, maximum=100,
                             section=_HITS, assumed=_ours("121"))
    retreat_readiness_loss: int = setting(50, help="Rulevar 122: readiness lost by a retreat hit, percent.",
                                          minimum=0, maximum=100, section=_HITS, assumed=_ours("122"))
    pinned_readiness_loss: int = setting(50, help="Rulevar 123: readiness lost by a pinned hit, percent.",
                                         minimum=0, maximum=100, section=_HITS, assumed=_ours("123"))
    retreat_morale_loss: int = setting(25, help="Rulevar 124: morale lost by a retreat hit, percent.", minimum=0,
                                       maximum=100, section=_HITS, assumed=_ours("124"))
    pinned_morale_loss: int = setting(10, help="Rulevar 125: morale lost by a pinned hit, percent.", minimum=0,
                                      maximum=100, section=_HITS, assumed=_ours("125"))
    retreat_entrenchment_loss: int = setting(100, help="Rulevar 126: entrenchment lost by a retreat hit, percent.",
                                             minimum=0, maximum=100, section=_HITS, assumed=_ours("126"))
    pinned_entrenchment_loss: int = setting(50, help="Rulevar 127: entrenchment lost by a pinned hit, percent.",
                                            minimum=0, maximum=100, section=_HITS, assumed=_ours("127"))
    experience_min: Fraction = setting(Fraction(1, 10), help="Smallest experience modifier.", minimum=0, maximum=10,
                                       section=_HITS, assumed="The page calls it rulevar 317 (a number it also "
                                       "gives the round 2 start-up modifier; kept apart) and gives no value; the "
                                       "default is our choice.")
    experience_max: Fraction = setting(Fraction(3), help="Largest experience modifier.", minimum=0, maximum=10,
                                       section=_HITS, assumed="The page calls it rulevar 318 and gives no value; "
                                       "the default is our choice.")
    max_experience: int = setting(100, help="Experience an individual cannot exceed.", minimum=0, maximum=1000,
                                  section=_HITS, assumed=OURS)

    # Drawing the scores -------------------------------------------------------------------------
    randomisation: str = setting("continuous", help="How each score is drawn below its value.",
                                 choices=("continuous", "whole"),
                                 labels={"continuous": "any number from 0 up to the value",
                                         "whole": "a whole number from 0 up to below the value"},
                                 section=_DRAW, assumed="The page says a value between 0 and the number; "
                                 "it does not say whether fractions occur.")
    tie_reading: str = setting("strict", help="Whether equal scores count as a hit.",
                               choices=("strict", "ties_to_attacker"),
                               labels={"strict": "the attacker must score higher (the page)",
                                       "ties_to_attacker": "a tie is a hit"},
                               section=_DRAW, assumed="The page says the attacker's score must be higher, so a tie "
                               "misses; letting ties hit is the other reading, and it matters only when whole "
                               "numbers are drawn.")

    # Structures and missions ---------------------------------------------------------------------
    aircraft_structural: Fraction = setting(Fraction(1, 4), help="Rulevar 128: structural damage of aircraft not "
                                            "flying a bombing run.", minimum=0, maximum=10, section=_STRUCT,
                                            assumed=_ours("128"))
    bombing_xp: int = setting(5, help="Experience for each aircraft of a bombing run at the end.", minimum=0,
                              maximum=100, section=_STRUCT, assumed=OURS)
    recon_xp: int = setting(5, help="Experience for each aircraft of an air recon flight at the end.", minimum=0,
                            maximum=100, section=_STRUCT, assumed=OURS)
    transport_xp: int = setting(5, help="Experience for each transport of a paradrop, airlift or air supply.",
                                minimum=0, maximum=100, section=_STRUCT, assumed=OURS)
    prevent_rules: bool = setting(True, help="Prevent rules: an individual may take an attack meant for another.",
                                  section=_STRUCT, assumed="The page says Classic rules do not use them; "
                                  "it does not say for Gold.")

    # Interception ----------------------------------------------------------------------------------
    intercept_range: Fraction = setting(Fraction(1, 2), help="Rulevar 147: action points of range per readiness "
                                        "point.", minimum=0, maximum=10, section=_INTERCEPT, assumed=_ours("147"))
    intercept_fail_edge: int = setting(0, help="Rulevar 837: percent chance an interception fails at the edge of its "
                                       "range.", minimum=0, maximum=100, section=_INTERCEPT, assumed=_ours("837"))
    intercept_fail_centre: int = setting(0, help="Rulevar 838: percent chance an interception fails at distance 0.",
                                         minimum=0, maximum=100, section=_INTERCEPT, assumed=_ours("838"))
    intercept_fuel_rounds: int = setting(2, help="Rounds of fuel an interceptor needs before it takes off.",
                                         minimum=0, maximum=10, section=_INTERCEPT)


RULEVAR_NUMBERS: Final[dict[str, str]] = {
    "capitulation_morale": "37", "capitulation_readiness": "301", "land_stack_max": "30",
    "land_stack_per_side": "31", "air_stack_max": "835 (overstacking)", "air_may_overstack": "833",
    "artillery_stack_max": "834 (overstacking)", "artillery_may_overstack": "834 (stacking)",
    "remember_battlestack": "859", "panic_chance": "70", "panic_morale_loss": "172 (page)",
    "airstrike_continues": "341", "counterattacks_off": "807", "counter_attacker_land": "101",
    "counter_defender_land": "102", "counter_attacker_other": "103", "counter_defender_other": "104",
    "counter_battery": "142", "aa_from_distance": "105", "readiness_weight_attacker": "106",
    "readiness_weight_defender": "107", "surprise": "108", "versus_paradrop": "109", "versus_amphibious": "110",
    "rebel": "111", "retreating_attacker_target": "112", "retreating_defender_target": "113",
    "panicking_attacker_target": "114", "panicking_defender_target": "115", "readiness_weight_hp": "116",
    "kill_xp": "119", "retreat_xp": "120", "pinned_xp": "121", "retreat_readiness_loss": "122",
    "pinned_readiness_loss": "123", "retreat_morale_loss": "124", "pinned_morale_loss": "125",
    "retreat_entrenchment_loss": "126", "pinned_entrenchment_loss": "127", "aircraft_structural": "128",
    "supply_weight": "130", "staff_bonus": "140", "max_attacked_cap": "300", "startup_round_1": "316 (page)",
    "startup_round_2": "317 (page)", "experience_min": "317 (page)", "experience_max": "318 (page)",
    "river_bridge": "5", "airfield_penalty": "835 (page)", "airfield_penalty_rounds": "836",
    "intercept_range": "147", "intercept_fail_edge": "837", "intercept_fail_centre": "838",
    **{f"concentric_{k}": str(131 + k) for k in range(1, 9)},
}
"""The rulevar number each field stands for, as the page numbers it."""


def concentric_values(rules: Rules) -> tuple[Fraction, ...]:
    """Rulevars 132 to 139: the concentric bonus for 1 to 8 sides of attack."""
    return tuple(getattr(rules, f"concentric_{k}") for k in range(1, 9))


KEPT_RULES: Final = 160
"""How many rules objects' derived numbers a battle keeps (:func:`as_floats`, the battle's modifier lists, and
the widget's setups by inputs object): a reading of every assumed setting plays 140 rules objects in turn, call
after call, and each built them again when only the last one was kept. No more, for memory: each entry holds
its validated inputs, some 40-55 kB for the pages' largest battles (160 of them about 9 MB)."""

_floats = Kept(KEPT_RULES)
"""Each rules object's floats, by its identity (held with them, so no other object takes it)."""

FLAGS: Final = {"tie_to_attacker": ("tie_reading", "ties_to_attacker"), "whole_scores": ("randomisation", "whole"),
                "panic_complement": ("panic_reading", "losses_above_morale")}
"""The choices the hot path reads as 0.0/1.0 flags: the flag's name, the setting it reads and the choice that
makes it 1.0."""


def as_floats(rules: Rules | Watched) -> dict[str, float]:
    """Every setting as a float, for the hot path: converted once for a run of battles under the
    same rules (the last :data:`KEPT_RULES` rules objects' floats are kept; a battle reads them and never changes
    them).

    Choices become 0.0/1.0 flags (:data:`FLAGS`): ``tie_to_attacker``, ``whole_scores`` and ``panic_complement``.
    Watched rules (:class:`engine.settings.Watched`) give floats that note each read as a read of the setting
    behind it.

    >>> rules = Rules()
    >>> as_floats(rules) is as_floats(rules), as_floats(rules)["tie_to_attacker"]
    (True, 0.0)
    >>> read = set()
    >>> as_floats(Watched(rules, read))["whole_scores"], read
    (0.0, {'randomisation'})
    """
    if isinstance(rules, Watched):
        return _WatchedFloats(as_floats(rules.rules_), rules.read_)
    return _floats.keep(id(rules), lambda: (rules, _converted(rules)))[1]


def _converted(rules: Rules) -> dict[str, float]:
    out = {f.name: float(getattr(rules, f.name)) for f in dataclasses.fields(rules)
           if not isinstance(getattr(rules, f.name), str)}
    for flag, (name, choice) in FLAGS.items():
        out[flag] = 1.0 if getattr(rules, name) == choice else 0.0
    return out


class _WatchedFloats(dict):  # type: ignore[type-arg]
    """:func:`as_floats`' dict, noting the setting behind each key read (the battle reads them by key only)."""

    def __init__(self, floats: dict[str, float], read: set[str]) -> None:
        super().__init__(floats)
        self.read_ = read

    def __getitem__(self, key: str) -> float:
        self.read_.add(FLAGS[key][0] if key in FLAGS else key)
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default
