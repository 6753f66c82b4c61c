"""One attack: an individual's randomised attack score against its target's randomised hit points.

The attack points against the target's group and the target's hit points are
each multiplied by every modifier that applies; each modifier below is one
small function, named and ordered as the page lists them. Then both numbers
are drawn at random below their value, and a higher attack score hits. A hit
is a kill, a retreat or a pin, read from one d100 against the attacker's kill
percent and then kill plus retreat percent.

The functions take the battle (:class:`.loop.Battle`), the attacking
individual, its target and whether this is a counterattack, and return a
float factor (1.0 when the modifier does not apply).
"""

from __future__ import annotations

import math
from math import floor
from operator import attrgetter
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from . import parts
from .individuals import HIT, KILLED, PANIC, PINNED_DOWN, RETREATING, Individual

LOGGED_ATTACKS: Final = 5_000
"""Attacks a recorded battle describes one by one; later ones are only counted, per round, so the log of
the largest legal battle stays a few megabytes."""

if TYPE_CHECKING:
    from .loop import Battle

__all__ = ["Modifier", "ATTACK_MODIFIERS", "HIT_POINT_MODIFIERS", "attack", "attack_points", "hit_effects", "live_modifiers", "ROUND_IDLE_WHEN",
           "KIND_IDLE_WHEN", "TARGET_IDLE_WHEN", "kind_factors", "KILL", "RETREAT",
           "PINNED", "MISS"]

Modifier = Callable[["Battle", Individual, Individual, bool], float]
"""One named modifier: (battle, attacker, target, counterattack) -> factor."""

KILL: Final = "kill"
RETREAT: Final = "retreat"
PINNED: Final = "pinned"
MISS: Final = "miss"


# Attack score modifiers, in the page's order ------------------------------------------------------------

def fuel(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """An attacker short of the fuel its first attack of a round needs fights at the out-of-fuel factor."""
    need = a.t.fuel_per_round
    if need and a.fuel_round != b.round and a.fuel < need:
        return b.f["out_of_fuel"]
    return 1.0


def global_modifier(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """The global combat modifier of the attacker's type group."""
    return b.units[a.side][a.unit].global_modifier


def startup(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Rounds 1 and 2: the hex's attackers (and defenders counterattacking them) are not yet in position."""
    if b.round > 2 or (a.side == 0) == counter:
        return 1.0
    m = b.f["startup_round_1"] if b.round == 1 else b.f["startup_round_2"]
    return parts.startup_factor(m, b.type_floats[a.slot][2])


def counterattack(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Counterattacks: rulevar 101/102 land against land, 103/104 otherwise."""
    if not counter:
        return 1.0
    land = a.t.theatre == "land" and t.t.theatre == "land"
    if a.side == 0:
        return b.f["counter_attacker_land"] if land else b.f["counter_attacker_other"]
    return b.f["counter_defender_land"] if land else b.f["counter_defender_other"]


def aa_from_distance(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Anti-aircraft fire from another hex (rulevar 105)."""
    return b.f["aa_from_distance"] if a.outside else 1.0


def max_attacked(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """A target already attacked more often than its maximum this round is harder to hurt (capped by 300)."""
    m = t.t.max_attacked
    if t.attacked <= m:
        return 1.0
    return parts.max_attacked_factor(float(t.attacked), float(m), b.f["max_attacked_cap"])


def landscape(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Landscape factor for land attackers; the hex's attackers and defenders differ."""
    if a.t.theatre != "land":
        return 1.0
    return b.landscape_attack[a.side]


def staff(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Staff bonus (140 plus the staff's experience), scaled by how much of the HQ's range covers the unit."""
    return b.units[a.side][a.unit].staff


def readiness(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Readiness, weighted by 106 for the hex's attackers and 107 for its defenders."""
    w = b.f["readiness_weight_attacker"] if a.side == 0 else b.f["readiness_weight_defender"]
    return parts.weighted(a.readiness, w)


def special(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """The attacker type's special attack factor."""
    return b.type_floats[a.slot][0]


def supply(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Supply, weighted by rulevar 130."""
    return b.units[a.side][a.unit].supply


def people(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """The attacker's people."""
    return b.units[a.side][a.unit].people


def against_people(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """The target's people."""
    return b.units[t.side][t.unit].against_people


def experience(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """One percent point per experience point of the attacker."""
    return 1.0 + a.xp / 100.0


def concentric(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """The concentric bonus of this round, for the hex's attackers."""
    return b.concentric if a.side == 0 else 1.0


def surprise(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Ambushing defenders in a surprise combat (rulevar 108), not on counterattacks."""
    return b.f["surprise"] if b.combat == "surprise" and a.side == 1 and not counter else 1.0


def versus_paradrop(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Attacks on a paradrop's paratroopers (rulevar 109), not on counterattacks. The page says "being dropped";
    carried ones cannot be attacked and they land at once after the drop round's steps, so it applies from their
    landing to the end of the battle."""
    return b.f["versus_paradrop"] if b.combat == "paradrop" and t.cargo and not counter else 1.0


def versus_amphibious(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Attacks on an amphibious landing's land troops (rulevar 110), not on counterattacks: all battle long (the
    page says "being landed"; the force is ashore from round 1)."""
    if b.combat == "amphibious" and t.side == 0 and t.t.theatre == "land" and not counter:
        return b.f["versus_amphibious"]
    return 1.0


def rebel(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Rebels attacking the hex (rulevar 111), not on counterattacks."""
    return b.f["rebel"] if b.combat == "rebel" and a.side == 0 and not counter else 1.0


def retreating_target(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """A target in orderly retreat: rulevar 113 if it defends the hex, 112 if it attacks it."""
    if t.status != RETREATING or t.kind == PANIC:
        return 1.0
    return b.f["retreating_defender_target"] if t.side == 1 else b.f["retreating_attacker_target"]


def panicking_target(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """A target in panic: rulevar 115 if it defends the hex, 114 if it attacks it."""
    if t.status != RETREATING or t.kind != PANIC:
        return 1.0
    return b.f["panicking_defender_target"] if t.side == 1 else b.f["panicking_attacker_target"]


def overstacking_attack(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """An overstacked attacker hits land targets less well; air against air is exempt."""
    if t.t.theatre != "land":
        return 1.0
    return b.stack_factor[a.side][b.stack_class(a)]


# Hit point modifiers -------------------------------------------------------------------------------------

def readiness_hp(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """The target's readiness, weighted by rulevar 116."""
    return parts.weighted(t.readiness, b.f["readiness_weight_hp"])


def supply_hp(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """The target's supply, weighted by rulevar 130."""
    return b.units[t.side][t.unit].supply


def experience_hp(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """One percent point per experience point of the target."""
    return 1.0 + t.xp / 100.0


def special_hp(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """The target type's special defence factor."""
    return b.type_floats[t.slot][1]


def entrenchment(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """One percent point per entrenchment point of the target."""
    return 1.0 + t.entrenchment / 100.0


def river(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Defenders attacked across a river (the bonus cut by rulevar 5 while a bridge stands)."""
    if (b.river_factor != 1.0 and t.side == 1 and a.side == 0 and t.t.theatre == "land"
            and a.t.theatre == "land" and b.units[0][a.unit].crosses_river):
        return b.river_factor
    return 1.0


def overstacking_hp(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """An overstacked land target, or overstacked aircraft under fire from the ground, has fewer hit points."""
    if t.t.theatre == "air":
        return 1.0 if a.t.theatre == "air" else b.stack_factor[t.side]["air"]
    if t.t.theatre != "land":
        return 1.0
    return b.stack_factor[t.side]["land"]


def airfield(b: Battle, a: Individual, t: Individual, counter: bool) -> float:
    """Aircraft struck on their own airfield, in the first rounds (rulevars 835 and 836): the defending air
    units of an airstrike or bombing run on an airfield, and interceptors whose own airfield it is (those
    flying in from another field are not caught on the ground)."""
    if (b.airfield_strike and t.side == 1 and t.t.theatre == "air" and b.round <= b.f["airfield_penalty_rounds"]
            and t.unit not in b.away_interceptors):
        return 1.0 - b.f["airfield_penalty"]
    return 1.0


ATTACK_MODIFIERS: Final[tuple[tuple[str, Modifier], ...]] = (
    ("fuel", fuel), ("global", global_modifier), ("attack start-up", startup), ("counterattack", counterattack),
    ("AA from distance", aa_from_distance), ("max attacked", max_attacked), ("landscape", landscape),
    ("staff and HQ", staff), ("readiness", readiness), ("special", special), ("supply", supply),
    ("people", people), ("against people", against_people), ("experience", experience),
    ("concentric", concentric), ("surprise", surprise), ("versus paradrop", versus_paradrop),
    ("versus amphibious landing", versus_amphibious), ("rebel", rebel),
    ("retreating target", retreating_target), ("panicking target", panicking_target),
    ("overstacking", overstacking_attack),
)
"""The attack score modifiers, in the page's order."""

HIT_POINT_MODIFIERS: Final[tuple[tuple[str, Modifier], ...]] = (
    ("readiness", readiness_hp), ("supply", supply_hp), ("experience", experience_hp),
    ("special", special_hp), ("entrenchment", entrenchment), ("river", river),
    ("overstacking", overstacking_hp), ("airfield", airfield),
)
"""The hit point modifiers, in the page's order."""


def _units_all_one(field: str) -> Callable[[Battle], bool]:
    return lambda b: all(getattr(u, field) == 1.0 for us in b.units for u in us)


# Checks that look over every individual read them through attrgetter, at C speed.
_readiness, _entrenchment = attrgetter("readiness"), attrgetter("entrenchment")
_fuel_per_round = attrgetter("fuel_per_round")


def _readiness_idle(b: Battle, weights: tuple[str, ...]) -> bool:
    # readiness changes in a battle only for whoever is hit (never again an attacker or a target: killed,
    # pinned down or retreating under fire, but for a paradrop's pinned-down defenders, who fight again once
    # the troops land) and for types that lose it by attacking
    if b.combat == "paradrop" or any(t.readiness_per_attack for t in b.types):
        return False
    return all(parts.weighted(r, b.f[w]) == 1.0 for r in set(map(_readiness, b.everyone)) for w in weights)


def _unentrenched(b: Battle, side: int) -> bool:
    # entrenchment only falls in a battle (a retreat or pinned hit takes a share of the target's)
    return not any(map(_entrenchment, b.people[side]))


TARGET_IDLE_WHEN: Final[dict[Modifier, Callable[[Battle, int], bool]]] = {
    entrenchment: _unentrenched,
}
"""Modifiers fixed by the setup for every attack on one side's individuals, and when they are 1.0 for the
whole battle (by the battle and the targets' side): an attack on that side skips them, as :data:`IDLE_WHEN`'s
are skipped by every attack (see :func:`kind_factors`)."""


IDLE_WHEN: Final[dict[Modifier, Callable[[Battle], bool]]] = {
    global_modifier: _units_all_one("global_modifier"),
    aa_from_distance: lambda b: not any(p.outside for p in b.everyone),
    landscape: lambda b: b.landscape_attack == (1.0, 1.0),
    staff: _units_all_one("staff"),
    special: lambda b: all(f[0] == 1.0 for f in b.type_floats),
    readiness: lambda b: _readiness_idle(b, ("readiness_weight_attacker", "readiness_weight_defender")),
    supply: _units_all_one("supply"),
    people: _units_all_one("people"),
    against_people: _units_all_one("against_people"),
    surprise: lambda b: b.combat != "surprise",
    versus_paradrop: lambda b: b.combat != "paradrop",
    versus_amphibious: lambda b: b.combat != "amphibious",
    rebel: lambda b: b.combat != "rebel",
    readiness_hp: lambda b: _readiness_idle(b, ("readiness_weight_hp",)),
    supply_hp: _units_all_one("supply"),
    special_hp: lambda b: all(f[1] == 1.0 for f in b.type_floats),
    counterattack: lambda b: all(b.f[k] == 1.0 for k in ("counter_attacker_land", "counter_attacker_other",
                                                          "counter_defender_land", "counter_defender_other")),
    river: lambda b: b.river_factor == 1.0,
    airfield: lambda b: not b.airfield_strike,
    overstacking_attack: lambda b: b.never_overstacked,
    overstacking_hp: lambda b: b.never_overstacked,
    entrenchment: lambda b: _unentrenched(b, 0) and _unentrenched(b, 1),
}
"""Modifiers fixed by the setup, and when they are 1.0 for the whole battle (then :func:`attack` skips them:
multiplying by 1.0 changes nothing, so every figure stays as it was)."""


def _fuel_idle(b: Battle) -> bool:
    # nobody short of fuel at the start: only a first attack of the round uses any, and it then needs none
    return max(map(_fuel_per_round, b.types), default=0) <= (b.lowest_fuel if b.everyone else 0.0)


def _stack_idle(b: Battle) -> bool:
    return all(x == 1.0 for side in b.stack_factor for x in side.values())


def _no_target_in_retreat(b: Battle) -> bool:
    # a target in retreat retreats in order, in panic or from its mission (one hit in these steps is
    # nobody's target again: Battle.out_of_reach), and nobody starts such a retreat during the steps
    return not [p for p in b.everyone if p.status == RETREATING and p.kind != HIT]


ROUND_IDLE_WHEN: Final[dict[Modifier, Callable[[Battle], bool]]] = {
    fuel: _fuel_idle,
    startup: lambda b: b.round > 2 or b.f["startup_round_1" if b.round == 1 else "startup_round_2"] == 1.0,
    concentric: lambda b: b.concentric == 1.0,
    retreating_target: _no_target_in_retreat,
    panicking_target: _no_target_in_retreat,
    overstacking_attack: _stack_idle,
    overstacking_hp: _stack_idle,
}
"""Modifiers that, once a round's steps begin (its stacking and concentric bonus worked out), may stay
1.0 through all of them, and when they do: a round's attacks skip them as :data:`IDLE_WHEN`'s are."""


KIND_IDLE_WHEN: Final[dict[Modifier, Callable[[int, bool], bool]]] = {
    counterattack: lambda side, counter: not counter,
    concentric: lambda side, counter: side == 1,
    startup: lambda side, counter: (side == 0) == counter,
    surprise: lambda side, counter: side == 0 or counter,
    versus_paradrop: lambda side, counter: counter,
    versus_amphibious: lambda side, counter: counter,
    rebel: lambda side, counter: side == 1 or counter,
    river: lambda side, counter: side == 1,
}
"""Modifiers that are 1.0 for some kinds of attack whatever the battle, and for which: by the attacker's side
(0 attacks the hex) and whether it is a counterattack. An attack of that kind skips them."""


def kind_factors(modifiers: tuple[tuple[str, Modifier], ...],
                 idle_against: tuple[frozenset[Modifier], frozenset[Modifier]] = (frozenset(), frozenset()),
                 ) -> tuple[tuple[tuple[Modifier, ...], ...], ...]:
    """``modifiers``' functions for each kind of attack, less those :data:`KIND_IDLE_WHEN` says stay 1.0 for
    it and those that stay 1.0 against its targets' side (``idle_against``, by side: :data:`TARGET_IDLE_WHEN`'s
    answers for the battle): indexed by the attacker's side, then by whether it is a counterattack."""
    def kept(fn: Modifier, side: int, counter: bool) -> bool:
        if fn in idle_against[1 - side]:  # an attack's target is of the other side
            return False
        idle = KIND_IDLE_WHEN.get(fn)
        return idle is None or not idle(side, counter)
    return tuple(tuple(tuple(fn for _, fn in modifiers if kept(fn, side, counter)) for counter in (False, True))
                 for side in (0, 1))


def live_modifiers(b: Battle, modifiers: tuple[tuple[str, Modifier], ...],
                   idle_when: Mapping[Modifier, Callable[[Battle], bool]] = IDLE_WHEN,
                   answers: dict[Callable[[Battle], bool], bool] | None = None) -> tuple[tuple[str, Modifier], ...]:
    """``modifiers`` less those ``idle_when`` says stay 1.0: :data:`IDLE_WHEN` for the battle (ask once
    its sides are built), :data:`ROUND_IDLE_WHEN` for a round's steps (ask as they begin). A check
    several modifiers share is made once (``answers``: those made so far, if other lists share them)."""
    answers = {} if answers is None else answers

    def idle(fn: Modifier) -> bool:
        check = idle_when.get(fn)
        if check is None:
            return False
        if check not in answers:
            answers[check] = check(b)
        return answers[check]
    return tuple((name, fn) for name, fn in modifiers if not idle(fn))


def attack_points(b: Battle, a: Individual, t: Individual) -> int:
    """The attacker type's points against the target's group (0: it cannot attack it)."""
    return a.t.attack.get(t.t.group, 0)


def _draw(b: Battle, value: float) -> float:
    if b.whole:
        return float(int(b.random() * max(1, math.ceil(value)))) if value > 0 else 0.0
    return b.random() * value


def attack(b: Battle, a: Individual, t: Individual, counter: bool) -> str:
    """Play one attack (or counterattack) and apply its result; returns kill, retreat, pinned or miss."""
    at = a.t
    att = b.attack_points[a.slot][t.slot]  # attack_points() and the hit points, as floats: the hot path's copy
    hp = b.hit_points[t.slot]
    record = b.record
    if record:  # every factor that is not 1.0 goes into the log
        att_mods: list[tuple[str, float]] = []
        hp_mods: list[tuple[str, float]] = []
        for name, fn in b.attack_modifiers:
            x = fn(b, a, t, counter)
            if x != 1.0:
                att *= x
                att_mods.append((name, x))
        for name, fn in b.hit_point_modifiers:
            x = fn(b, a, t, counter)
            if x != 1.0:
                hp *= x
                hp_mods.append((name, x))
    else:  # the same products, in the same order (multiplying by 1.0 changes no float)
        for fn in b.attack_factors_by_kind[a.side][counter]:
            att *= fn(b, a, t, counter)
        for fn in b.hit_point_factors_by_kind[a.side][counter]:
            hp *= fn(b, a, t, counter)
    if at.fuel_per_round:  # most types need none
        _use_fuel(b, a, t)
    rnd = b.random
    if b.whole:
        score = _draw(b, att)
        defence = _draw(b, hp)
    else:  # _draw's fractional reading, inline: the hot path's commonest case
        score = rnd() * att
        defence = rnd() * hp
    hit = score > defence or (b.tie_hits and score == defence and att > 0)
    if not b.attacks_made:  # the battle's first attack, which a Monte Carlo run checks against its exact chance
        b.first_attack = (att, hp, hit)
    result = MISS
    d100 = 0
    gain = 0.0
    if hit:
        d100 = floor(rnd() * 100) + 1  # (floor: int() of a draw, never negative, at less cost)
        kill = at.kill
        result = KILL if d100 <= kill else RETREAT if d100 <= kill + at.retreat else PINNED
        gain = _apply_hit(b, a, t, result)
    t.attacked += 1
    t.last_targeted = b.round
    a.attacks_total += 1
    if not counter:
        a.attacks += 1
        # the page's sentence says one that is not counterattacking will "not" lose it, against its own heading
        # (readiness lost per attack): read as a slip, the points go with each attack and none with a counterattack
        if at.readiness_per_attack:
            a.readiness = max(0.0, a.readiness - at.readiness_per_attack)
    b.attacks_made += 1
    if record:
        if b.attacks_made <= LOGGED_ATTACKS:
            b.events.append(_event(b, a, t, counter, att, hp, att_mods, hp_mods, score, defence, d100, result, gain))
        else:
            b.unlogged += 1
    return result


def _use_fuel(b: Battle, a: Individual, t: Individual) -> None:
    need = a.t.fuel_per_round
    if need and a.fuel_round != b.round and t.attacked <= t.t.max_attacked and a.fuel >= need:
        a.fuel -= need
        a.fuel_round = b.round
        if a.fuel < b.lowest_fuel:
            b.lowest_fuel = a.fuel


def hit_effects(f: Mapping[str, float]) -> dict[str, tuple[float, float, float, float]]:
    """For a retreat and a pinned hit: what the target keeps of its readiness, entrenchment and morale (as
    factors), and the experience the attacker gains before the power ratio; worked out once a battle."""
    return {result: (1.0 - f[pre + "_readiness_loss"] / 100.0, 1.0 - f[pre + "_entrenchment_loss"] / 100.0,
                     1.0 - f[pre + "_morale_loss"] / 100.0, f[pre + "_xp"])
            for result, pre in ((RETREAT, "retreat"), (PINNED, "pinned"))}


def _apply_hit(b: Battle, a: Individual, t: Individual, result: str) -> float:
    b.out_of_reach(t)
    f = b.f
    mod = b.experience_ratios[t.slot][a.slot]  # by the two types: worked out once for a run's battles
    t.last_hit = b.round
    a.last_success = b.round
    if result == KILL:
        t.status = KILLED
        gain = f["kill_xp"] * mod
    else:
        if b.retreat_barred(t.side):
            t.status = PINNED_DOWN  # nowhere to go: out of the fight, still in its hex
        else:
            t.retreat(HIT, b.round)
        readiness_kept, entrenchment_kept, morale_kept, xp = b.hit_effects[result]
        t.readiness *= readiness_kept
        t.entrenchment *= entrenchment_kept
        t.morale *= morale_kept
        gain = xp * mod
    before = a.xp
    xp, most = before + gain, f["max_experience"]
    a.xp = xp if xp < most else most  # min(most, xp), without the builtin's argument parsing
    gained = a.xp - before
    a.xp_gained += gained
    return gained


def _event(b: Battle, a: Individual, t: Individual, counter: bool, att: float, hp: float,
           att_mods: list[tuple[str, float]], hp_mods: list[tuple[str, float]], score: float, defence: float,
           d100: int, result: str, gain: float) -> dict[str, Any]:
    return {
        "type": "attack", "round": b.round, "subround": b.subround, "counter": counter,
        "attacker": a.key, "attacker_side": a.side, "target": t.key,
        "points": attack_points(b, a, t), "hit_points": t.t.hit_points,
        "attack_modifiers": [{"name": n, "factor": round(x, 6)} for n, x in att_mods],
        "hit_point_modifiers": [{"name": n, "factor": round(x, 6)} for n, x in hp_mods],
        "attack": round(att, 6), "defence": round(hp, 6), "attack_draw": round(score, 6),
        "defence_draw": round(defence, 6), "d100": d100, "kill": a.t.kill, "retreat": a.t.retreat,
        "result": result, "xp_gained": round(gain, 6),
    }


