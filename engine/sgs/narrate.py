"""A recorded battle told as HTML: one ``<details>`` per round.

Pure functions from the events :func:`~engine.sgs.battle.fight` records to
text; nothing here rolls a die.

>>> html = narrate({"winner": "attacker", "reason": "eliminated", "rounds": 1, "events": [
...     {"round": "main", "morale_start": [{"total": 5}, {"total": 4}], "morale_end": [5, 3],
...      "fire": [{"side": "attacker", "modifiers": {}, "hits": 1,
...                "shots": [{"unit": "rifles", "target": 4, "dice": [2], "hit": True}]}]}]})
>>> "<details" in html and "rifles rolls 2 against 4: hit" in html
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..present import esc, signed

__all__ = ["narrate", "round_lines", "round_title", "ROUND_TITLES", "REASONS"]

ROUND_TITLES = {"artillery": "Artillery preparation", "air": "Air support", "mines": "Mines",
                "recon": "Recon", "main": "Main round", "next": "Next round", "pursuit": "Pursuit",
                "rout test": "Rout test", "retreat": "Retreat", "total elimination": "Total elimination"}
"""Headings of the rounds and other steps of a battle."""

REASONS = {"eliminated": "one side had no combat unit left fighting",
           "rout": "the loser routed", "retreat": "the loser retreated of its own accord",
           "rounds": "every round was fought and the defender held",
           "card": "a retreat card called the battle off",
           "both retreated": "both sides withdrew after the recon round; neither was left alone on the field "
                             "and neither stayed, so by the source's last rule the battle goes to the defender"}


def _shot(s: Mapping[str, Any]) -> str:
    dice = " then ".join(str(d) for d in s["dice"])
    if s.get("cancelled"):
        return f"{s['unit']} rolls {dice} against {s['target']}: a hit, cancelled by the enemy's card"
    return f"{s['unit']} rolls {dice} against {s['target']}: {'hit' if s['hit'] else 'miss'}"


def _hits(n: int) -> str:
    return f"{n} hit" if n == 1 else f"{n} hits"


def round_title(event: Mapping[str, Any]) -> str:
    """A round's heading with what happened in it: the hits each side scored, morale moves, a rout.

    >>> round_title({"round": "main", "fire": [{"side": "attacker", "hits": 4, "shots": [1]},
    ...     {"side": "defender", "hits": 2, "shots": [1]}], "morale_start": [{"total": 5}, {"total": 3}],
    ...     "morale_end": [5, 1]})
    "Main round: attacker 4 hits, defender 2 hits; defender's morale 3 → 1"
    """
    name = ROUND_TITLES.get(event.get("round", ""), str(event.get("round", "")))
    parts = []
    hits = [f"{f['side']} {_hits(f['hits'])}" for f in event.get("fire", []) if f["shots"]]
    if hits:
        parts.append(", ".join(hits))
    if "morale_start" in event and "morale_end" in event:
        moves = [f"{side}'s morale {m['total']} → {end}" for side, m, end in
                 zip(("attacker", "defender"), event["morale_start"], event["morale_end"]) if m["total"] != end]
        if moves:
            parts.append(", ".join(moves))
    if "rout_test" in event:
        r = event["rout_test"]
        parts.append(f"the {r['side']} {'routs' if r['routed'] else 'stands'}")
    if event.get("round") == "retreat":
        parts.append(f"the {event['side']} withdraws")
    return name + (": " + "; ".join(parts) if parts else "")


def round_lines(event: Mapping[str, Any]) -> list[str]:
    """The steps of one recorded round, as plain sentences."""
    lines: list[str] = []
    if "morale_start" in event:
        a, d = (m["total"] for m in event["morale_start"])
        lines.append(f"Battle morale at the start: attacker {a}, defender {d}.")
    for f in event.get("fire", []):
        if not f["shots"]:  # nobody of this side can fire in this round
            lines.append(f"The {f['side']} has no unit that fires in this round.")
            continue
        mods = ", ".join(f"{k} {signed(v)}" for k, v in f["modifiers"].items()) or "none"
        lines.append(f"The {f['side']} fires (modifiers: {mods}) and scores {_hits(f['hits'])}.")
        lines += ["  " + _shot(s) for s in f["shots"]]
    if event.get("no_reply"):
        lines.append(f"The {event['no_reply']} is demoralised before it can reply: it fires nothing this round "
                     "and tests for a rout at once.")
    for a in event.get("allocation", []):
        landed = "; ".join(f"{h['unit']}: {_hits(h['hits'])} ({h['left']} strength left)" for h in a["hits"])
        waste = f"; {_hits(a['wasted'])} wasted" if a["wasted"] else ""
        if landed or waste:
            lines.append(f"Hits on the {a['side']}: {landed or 'none'}{waste}.")
    for p in event.get("panics", []):
        verdict = "panics and leaves the field" if p["panicked"] else "holds"
        lines.append(f"{p['unit']} ({p['side']}) tests panic: {p['die']} against twice morale "
                     f"{2 * p['morale']}: {verdict}.")
    for side in event.get("heavy_losses", []):
        lines.append(f"The {side} lost more than half its strength this round: morale -1.")
    if "rout_test" in event:
        r = event["rout_test"]
        lines.append(f"The {r['side']} is demoralised (morale {r['morale']}) and rolls {r['die']}: "
                     f"{'it routs' if r['routed'] else 'it stands'}.")
    if event.get("round") == "retreat":
        how = "plays a retreat card" if event.get("card") else f"retreats with morale {event['morale']}"
        lines.append(f"The {event['side']} {how}; no pursuit.")
    if event.get("round") == "total elimination":
        lines.append(f"Every combat unit of the {event['side']} is gone; support lost: "
                     f"{', '.join(event['support_lost'])}.")
    if "morale_end" in event:
        a, d = event["morale_end"]
        lines.append(f"Battle morale at the end: attacker {a}, defender {d}.")
    return lines


def _details(n: int, event: Mapping[str, Any], opened: bool) -> str:
    items = "".join(f"<li>{esc(x.strip())}</li>" if not x.startswith("  ") else f'<li class="shot">{esc(x.strip())}</li>'
                    for x in round_lines(event))
    return (f'<details class="battle-round"{" open" if opened else ""}><summary>{n}. {esc(round_title(event))}'
            f'</summary><ol class="steps">{items}</ol></details>')


def _decisive(events: Sequence[Mapping[str, Any]]) -> set[int]:
    """The steps that decided the battle, opened by default: the last fire round and what followed it."""
    fire = [i for i, e in enumerate(events) if e.get("round") not in ("rout test", "retreat", "total elimination",
                                                                       "pursuit")]
    start = fire[-1] if fire else 0
    return set(range(start, len(events)))


def narrate(outcome: Mapping[str, Any]) -> str:
    """A whole battle (an outcome as JSON, events included) as HTML."""
    events: Sequence[Mapping[str, Any]] = outcome["events"]
    decisive = _decisive(events)
    body = "".join(_details(n, e, n - 1 in decisive) for n, e in enumerate(events, 1))
    reason = REASONS.get(outcome["reason"], outcome["reason"])
    end = (f'<p class="outcome">The {esc(outcome["winner"])} wins after {outcome["rounds"]} round(s): '
           f'{esc(reason)}.</p>')
    return body + end
