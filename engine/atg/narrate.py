"""A recorded battle told round by round: pure functions from events to HTML.

>>> e = {"type": "attack", "round": 1, "subround": 1, "counter": False, "attacker": "A1 Tank #1",
...      "attacker_side": 0, "target": "D1 Infantry #2", "points": 30, "hit_points": 20,
...      "attack_modifiers": [{"name": "concentric", "factor": 1.1}], "hit_point_modifiers": [],
...      "attack": 33.0, "defence": 20.0, "attack_draw": 25.1, "defence_draw": 3.2, "d100": 12,
...      "kill": 35, "retreat": 40, "result": "kill", "xp_gained": 15.0}
>>> attack_line(e)
'A1 Tank #1 attacks D1 Infantry #2: attack 30 × concentric 1.1 = 33; hit points 20; draws 25.1 against 3.2: hit; d100 12 (kill up to 35, retreat up to 75): kill, +15 experience'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..present import esc, section, steps
from .attack import LOGGED_ATTACKS as LOGGED

__all__ = ["attack_line", "note_line", "round_summary", "narrate", "ENDING_TEXT"]

ENDING_TEXT = {"attacker_won": "The attacker won: no defender is left fighting.",
               "defender_held": "The defender held: no attacker is left fighting.",
               "standoff": "Standoff: neither side has anyone left fighting.",
               "breakoff": "The sea attack broke off: no defending ship is left.",
               "silenced": "No defender is left fighting, but no troops are there to take the hex: guns and "
                           "aircraft never take it.",
               "continuing": "The battle goes on."}


def _num(x: float) -> str:
    return f"{x:.4g}"


def _product(base: float, mods: Sequence[Mapping[str, Any]], total: float) -> str:
    if not mods:
        return _num(base)
    parts = " × ".join(f"{m['name']} {_num(m['factor'])}" for m in mods)
    return f"{_num(base)} × {parts} = {_num(total)}"


def attack_line(e: Mapping[str, Any]) -> str:
    """One attack as a sentence: scores with their modifiers, the draws, the result."""
    verb = "counterattacks" if e["counter"] else "attacks"
    line = (f"{e['attacker']} {verb} {e['target']}: attack {_product(e['points'], e['attack_modifiers'], e['attack'])}"
            f"; hit points {_product(e['hit_points'], e['hit_point_modifiers'], e['defence'])}"
            f"; draws {_num(e['attack_draw'])} against {_num(e['defence_draw'])}")
    if e["result"] == "miss":
        return line + ": miss"
    line += (f": hit; d100 {e['d100']} (kill up to {e['kill']}, retreat up to {e['kill'] + e['retreat']})"
             f": {e['result']}")
    if e["xp_gained"]:
        line += f", +{_num(e['xp_gained'])} experience"
    return line


def note_line(n: Mapping[str, Any]) -> str:
    """A round note (panic test, breakthrough, capitulation…) as text."""
    rest = ", ".join(f"{k} {v}" for k, v in n.items() if k != "event")
    return f"{n['event']}: {rest}" if rest else str(n["event"])


def _side(name: str, s: Mapping[str, Any]) -> str:
    over = ", ".join(f"{k} {_num(v)}" for k, v in s["overstack"].items() if v != 1)
    stack = f"land stack {_num(s['stack']['land'])} of {_num(s['stack_max']['land'])}"
    return (f"{name}: {s['fighting']} fighting, {s['retreating']} retreating, {s['retreated']} gone back, "
            f"{s['lost']} lost" + (f", {s['carried']} still carried" if s["carried"] else "")
            + f"; {stack}" + (f"; overstacking {over}" if over else ""))


def round_summary(r: Mapping[str, Any]) -> list[str]:
    """The round's closing lines: who is left, the concentric bonus, stacking, notes."""
    lines = [f"{r['subrounds']} subrounds; concentric bonus ×{_num(r['concentric'])} "
             f"({r['sides']} side(s), {r['hqs']} HQ(s))",
             _side("Attacker", r["attacker"]), _side("Defender", r["defender"])]
    lines += [note_line(n) for n in r["notes"]]
    if r["ending"] != "continuing":
        lines.append(ENDING_TEXT.get(r["ending"], r["ending"]))
    return lines


def narrate(events: Sequence[Mapping[str, Any]], *, open_rounds: int = 1) -> str:
    """The whole battle: one disclosure per round, attacks first, then the round's summary."""
    out: list[str] = []
    attacks: list[str] = []
    extra: list[str] = []
    for e in events:
        kind = e["type"]
        if kind == "attack":
            attacks.append(attack_line(e))
        elif kind == "prevent":
            attacks.append(f"{e['target']} steps in for {e['meant']} against {e['attacker']}")
        elif kind == "breakoff":
            extra.append(ENDING_TEXT.get(e["ending"], e["ending"]))
        elif kind == "round":
            opened = " open" if e["round"] <= open_rounds else ""
            more = e.get("attacks_not_listed", 0)
            listed = steps(attacks) if attacks else ("" if more else "<p>No attack was possible.</p>")
            if more:
                listed += (f"<p>{more:,} more attacks this round are not listed (the log describes the first "
                           f"{LOGGED:,} attacks of a battle).</p>")
            body = section("Attacks", listed)
            body += section("End of round", steps(round_summary(e), ordered=False))
            out.append(f'<details class="atg-round"{opened}><summary>Round {esc(e["round"])}: '
                       f'{len(attacks) + more:,} attacks</summary>{body}</details>')
            attacks = []
    out += [f"<p>{esc(x)}</p>" for x in extra]
    return "".join(out)
