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

__all__ = ["narrate", "round_lines", "ROUND_TITLES", "REASONS"]

ROUND_TITLES = {"artillery": "Artillery preparation", "air": "Air support", "mines": "Mines",
                "recon": "Recon", "main": "Main round", "next": "Next round", "pursuit": "Pursuit",
                "rout test": "Rout test", "retreat": "Retreat", "total elimination": "Total elimination"}
"""Headings of the rounds and other steps of a battle."""

REASONS = {"eliminated": "one side had no combat unit left fighting",
           "rout": "the loser routed", "retreat": "the loser retreated of its own accord",
           "rounds": "every round was fought and the defender held",
           "card": "a retreat card called the battle off"}


def _shot(s: Mapping[str, Any]) -> str:
    dice = " then ".join(str(d) for d in s["dice"])
    if s.get("cancelled"):
        return f"{s['unit']} rolls {dice} against {s['target']}: a hit, cancelled by the enemy's card"
    return f"{s['unit']} rolls {dice} against {s['target']}: {'hit' if s['hit'] else 'miss'}"


def round_lines(event: Mapping[str, Any]) -> list[str]:
    """The steps of one recorded round, as plain sentences."""
    lines: list[str] = []
    if "morale_start" in event:
        a, d = (m["total"] for m in event["morale_start"])
        lines.append(f"Battle morale at the start: attacker {a}, defender {d}.")
    for f in event.get("fire", []):
        mods = ", ".join(f"{k} {signed(v)}" for k, v in f["modifiers"].items()) or "none"
        lines.append(f"The {f['side']} fires (modifiers: {mods}) and scores {f['hits']} hit(s).")
        lines += ["  " + _shot(s) for s in f["shots"]]
    for a in event.get("allocation", []):
        landed = ", ".join(f"{h['unit']} {h['hits']} (left {h['left']})" for h in a["hits"]) or "nothing"
        waste = f"; {a['wasted']} wasted" if a["wasted"] else ""
        lines.append(f"Hits on the {a['side']}: {landed}{waste}.")
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


def _details(n: int, event: Mapping[str, Any]) -> str:
    title = ROUND_TITLES.get(event.get("round", ""), str(event.get("round", "")))
    items = "".join(f"<li>{esc(x.strip())}</li>" if not x.startswith("  ") else f'<li class="shot">{esc(x.strip())}</li>'
                    for x in round_lines(event))
    return f'<details class="battle-round"><summary>{n}. {esc(title)}</summary><ol class="steps">{items}</ol></details>'


def narrate(outcome: Mapping[str, Any]) -> str:
    """A whole battle (an outcome as JSON, events included) as HTML."""
    events: Sequence[Mapping[str, Any]] = outcome["events"]
    body = "".join(_details(n, e) for n, e in enumerate(events, 1))
    reason = REASONS.get(outcome["reason"], outcome["reason"])
    if outcome["winner"] is None:
        end = (f'<p class="outcome">Nobody wins after {outcome["rounds"]} round(s): both sides withdrew after the '
               'recon round.</p>')
    else:
        end = (f'<p class="outcome">The {esc(outcome["winner"])} wins after {outcome["rounds"]} round(s): '
               f'{esc(reason)}.</p>')
    return body + end
