"""How lucky was that: where an observed result falls among those the inputs can give.

Enter what happened and see how often it, or something at least as far
from the middle, comes up: "a result this bad or worse for the attacker
happens 1 time in 14".

* A calculator whose result lists its outcomes in order (``outcomes``, worst
  for the attacker first, as Small General's and OCS's do; or
  ``distribution``, by count, as the card game's round odds do) answers
  exactly: the chance of that outcome, of it or anything worse for the
  attacker, and of it or anything better.
* A battle answers from the estimate's tally (:meth:`engine.widgets.Widget.estimate`,
  trials 0 … N−1 of the seed, so the same figures the page's run shows): for
  its ending, the share of battles that ended that way; for a number it
  tallies in a histogram (losses, rounds, panics), the share at or below it
  and at or above it; each with its Wilson interval.

>>> a = luck("small_general.combat", {}, {"result": "DEF Retreat + Loss"})
>>> a["this"]["exact"], a["worse"]["exact"], a["better"]["exact"], a["sentence"]
('1/36', '53/54', '5/108', 'A result this good or better for the attacker happens about 1 time in 22.')
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from html import escape
from typing import Any, Final

from . import widgets
from .montecarlo import Tally, tally_wilson
from .schema import InputError, fraction_text, shown

__all__ = ["luck", "luck_html", "observable", "choices", "of_battle", "sample_sentence", "SAID_OF_A_BATTLE"]


def _ordered(result: Mapping[str, Any]) -> tuple[str, list[tuple[str, Fraction]]] | None:
    """The result's outcomes in order with their exact chances, and which list they came from."""
    for key in ("outcomes", "distribution"):
        rows = result.get(key)
        if isinstance(rows, list) and rows and all(isinstance(r, Mapping) and "result" in r and "p" in r for r in rows):
            return key, [(str(r["result"]), Fraction(r["p"])) for r in rows]
    return None


def observable(w: widgets.Widget, values: Mapping[str, Any]) -> dict[str, Any]:
    """What a reader can say happened, for this widget and these inputs: outcome labels, or a battle's
    endings (every one it declares) and the numbers its estimate tallies.

    >>> observable(widgets.get("sgs.battle"), {})["numbers"][:3]
    ['attacker.eliminated', 'attacker.lost', 'attacker.panics']
    """
    if w.trial is None:
        found = _ordered(w.result(dict(values)))
        if found is None:
            raise InputError("", f"{w.id} lists no outcomes to place a result among")
        return {"result": [label for label, _ in found[1]]}
    t = w.estimate(w.validate(values), 1, 0, 1)
    return {"ending": list(w.endings) or sorted(t.counts.get("ending", {})) or None, "numbers": sorted(t.hists)}


def choices(w: widgets.Widget, values: Mapping[str, Any]) -> list[dict[str, str]]:
    """:func:`observable` as a form's choices: ``kind`` (result, ending or number), ``key`` and the words;
    none for a widget with nothing to place a result among (a single figure, or outcomes in no order).

    >>> [c["label"] for c in choices(widgets.get("sgs.battle"), {})][:2]
    ['Ended: The defender was eliminated', 'Ended: The attacker was eliminated']
    """
    try:
        found = observable(w, values)
    except InputError:
        return []
    out = [{"kind": "result", "key": r, "label": r} for r in found.get("result", [])]
    out += [{"kind": "ending", "key": e, "label": f"Ended: {w.endings.get(e, e)}"} for e in found.get("ending") or []]
    out += [{"kind": "number", "key": n, "label": number_label(n)} for n in found.get("numbers", [])]
    return out


def number_label(name: str) -> str:
    """A number a battle's run counts, in words: ``defender.lost`` is "Defender lost".

    >>> number_label("attacker.panics"), number_label("rounds")
    ('Attacker panics', 'Rounds')
    """
    return name.replace(".", " ").capitalize()


def _frac_json(x: Fraction) -> dict[str, Any]:
    return {"exact": fraction_text(x), "float": float(x)}


def _one_in(p: float) -> str:
    """How often a share of trials is, in words that follow "happens" or a label and colon.

    "1 time in N" only where N is 5 or more, so that rounding N moves the share by a tenth of itself at most:
    40.7 % was "about 1 time in 2" and 96 % "every time".

    >>> _one_in(0), _one_in(1 / 14), _one_in(0.6), _one_in(1583 / 3888)
    ('in none of these trials', 'about 1 time in 14', 'about 60 times in 100', 'about 41 times in 100')
    >>> _one_in(0.96), _one_in(0.998), _one_in(1)
    ('about 96 times in 100', 'almost every time', 'every time')
    """
    if p <= 0:
        return "in none of these trials"
    if p >= 1:
        return "every time"
    if p <= 0.2:
        return f"about 1 time in {1 / p:,.0f}"
    return "almost every time" if p >= 0.995 else f"about {p * 100:.0f} times in 100"


def luck(widget_id: str, inputs: Mapping[str, Any] | None, observed: Any, *, seed: int = 1,
         trials: int | None = None, first: int = 0, count: int | None = None, tally: Any = None,
         render: bool = False) -> dict[str, Any]:
    """Where ``observed`` falls: ``{"result": label}`` for a calculator; for a battle ``{"ending": label}``
    and/or ``{name: number}`` for any number its estimate tallies (``attacker.lost``, ``rounds``, …).

    A battle's answer comes from trials ``first`` … ``first + count − 1`` added to ``tally`` (default: all
    ``trials``, the widget's run size), as the page's run would give them.
    """
    w = widgets.get(widget_id)
    values = w.validate(inputs)
    if isinstance(observed, Mapping) and isinstance(observed.get("numbers"), Mapping):
        observed = of_battle(observed)
    if not isinstance(observed, Mapping) or not observed:
        raise InputError("observed", "say what happened", "an object such as {\"result\": \"DEF Retreat\"}")
    out: dict[str, Any] = {"widget": w.id, "kind": "estimate" if w.trial else "exact"}
    if w.trial is None:
        found = _ordered(w.result(values))
        if found is None:
            raise InputError("", f"{w.id} lists no outcomes to place a result among")
        key, rows = found
        label = observed.get("result")
        labels = [r for r, _ in rows]
        if label not in labels:
            raise InputError("result", f"{shown(label)} is not a result these inputs can give", ", ".join(labels))
        i = labels.index(label)
        this, worse, better = rows[i][1], sum((p for _, p in rows[: i + 1]), Fraction(0)), sum((p for _, p in rows[i:]), Fraction(0))
        out.update(result=label, this=_frac_json(this), worse=_frac_json(worse), better=_frac_json(better),
                   order="worst for the attacker first" if key == "outcomes" else "fewest first")
        lower, upper = ("bad or worse for the attacker", "good or better for the attacker") if key == "outcomes" \
            else ("low or lower", "high or higher")
        tail, p = (lower, worse) if worse <= better else (upper, better)
        if p * 2 >= 1:  # both tails hold half the results or more: the result is in the middle
            out["sentence"] = (f"A result this {lower} happens {_one_in(float(worse))}, and one this {upper} "
                               f"{_one_in(float(better))}: an ordinary result, neither lucky nor unlucky.")
        else:
            out["sentence"] = (f"A result this {tail} never happens with these inputs." if not p else
                               f"A result this {tail} happens {_one_in(float(p))}.")
    else:
        total = trials or w.trials
        count = total - first if count is None else count
        # A count of 0 reads the tally as it is; the estimate still checks that it is these inputs' and seed's.
        t = w.estimate(values, seed, first, count, None if tally is None else Tally.from_json(tally))
        n = t.trials
        if not n:
            raise InputError("count", "no trials to place the result among: run at least one", "1 or more")
        parts = []
        lines = []
        if "ending" in observed:
            ending = observed["ending"]
            counts = t.counts.get("ending", {})
            if not isinstance(ending, str) or ending not in counts and ending not in observable(w, values)["ending"]:
                raise InputError("ending", f"{shown(ending)} is not an ending of this battle", ", ".join(sorted(counts)))
            k = counts.get(ending, 0)
            iv = tally_wilson(k, n, t.confidence)
            label = w.endings.get(ending, ending)
            parts.append({"what": "ending", "value": ending, "label": label,
                          "share": {"float": k / n, "low": iv.low, "high": iv.high}})
            lines.append(f"A battle ends “{label}” {_one_in(k / n)}.")
        for name, value in observed.items():
            if name == "ending":
                continue
            hist = t.hists.get(name)
            if hist is None:
                raise InputError(name, f"{shown(name)} is not a number this battle tallies", ", ".join(sorted(t.hists)))
            if isinstance(value, str) and not value.strip():
                raise InputError(name, "nothing entered; give how many there were", "a whole number, 0 or more")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(name, f"{shown(value)} is not a count", "a whole number, 0 or more")
            at_most = sum(c for v, c in hist.items() if int(v) <= value)
            at_least = sum(c for v, c in hist.items() if int(v) >= value)
            lo, hi = tally_wilson(at_most, n, t.confidence), tally_wilson(at_least, n, t.confidence)
            parts.append({"what": name, "value": value,
                          "at_most": {"float": at_most / n, "low": lo.low, "high": lo.high},
                          "at_least": {"float": at_least / n, "low": hi.low, "high": hi.high}})
            side, p = ("or fewer", at_most / n) if at_most <= at_least else ("or more", at_least / n)
            if value == 0 and side == "or fewer":  # nothing is fewer than none
                side = ""
            lines.append(f"{number_label(name)} {value:,}{' ' + side if side else ''}: {_one_in(p)}.")
        out.update(seed=seed, trials=n, next=first + count, done=n >= total, tally=t.to_json(), parts=parts,
                   confidence=fraction_text(w.confidence))
        out["sentence"] = " ".join(lines)
        out["note"] = f"How rare is a battle like this one? Among the run's {n:,} battles: {out['sentence']}"
    if render:
        out["html"] = luck_html(out)
    return out


SAID_OF_A_BATTLE: Final = ("attacker.lost", "defender.lost")
"""Besides its ending, what a seeded battle says of itself: each side's losses."""


def of_battle(observed: Mapping[str, Any]) -> dict[str, Any]:
    """What a seeded battle says of itself, from its ``observed`` (``ending`` and ``numbers``, as its run
    counts them): its ending and :data:`SAID_OF_A_BATTLE`.

    >>> of_battle({"ending": "standoff", "numbers": {"rounds": 3, "attacker.lost": 2, "defender.lost": 0}})
    {'ending': 'standoff', 'attacker.lost': 2, 'defender.lost': 0}
    """
    numbers = observed["numbers"]
    return {"ending": observed.get("ending"), **{k: numbers[k] for k in SAID_OF_A_BATTLE if k in numbers}}


def luck_html(answer: Mapping[str, Any]) -> str:
    """The sentence, then the shares it rests on (exact, or with their intervals)."""
    if answer["kind"] == "exact":
        rows = [("this result", answer["this"]), ("this or worse for the attacker", answer["worse"]),
                ("this or better for the attacker", answer["better"])]
        cells = "".join(f'<tr><th scope="row">{escape(k)}</th><td class="num">{escape(v["exact"])} '
                        f'({v["float"] * 100:.2f}%)</td></tr>' for k, v in rows)
    else:
        cells = ""
        for p in answer["parts"]:
            for key, words in (("share", ""), ("at_most", "at most"), ("at_least", "at least")):
                if key in p:
                    v = p[key]
                    row = (f"Ended “{p.get('label', p['value'])}”" if key == "share"
                           else f"{number_label(p['what'])} {words} {p['value']:,}")
                    cells += (f'<tr><th scope="row">{escape(row)}</th>'
                              f'<td class="num">{v["float"] * 100:.1f}% ({v["low"] * 100:.1f} to {v["high"] * 100:.1f})</td></tr>')
    note = "" if answer["kind"] == "exact" else f" over {answer['trials']:,} battles"
    return (f'<div class="luck-answer"><p class="luck-sentence">{escape(answer["sentence"])}</p>'
            f'<table class="luck"><caption>How often{escape(note)}</caption><tbody>{cells}</tbody></table></div>')


def sample_sentence(w: widgets.Widget, values: Mapping[str, Any], sample: Mapping[str, Any]) -> str:
    """How rare a calculator's seeded sample is, said of itself; empty where its result is not one of the
    listed outcomes. The sample names its outcome as ``cell`` (OCS) or ``outcome`` (Small General).

    >>> w = widgets.get("small_general.combat")
    >>> sample_sentence(w, w.validate({}), {"outcome": "DEF Destroyed"})
    'A result this good or better for the attacker happens about 1 time in 216.'
    """
    found = _ordered(w.result(dict(values)))
    if found is None:
        return ""
    labels = [label for label, _ in found[1]]
    label = next((sample.get(k) for k in ("cell", "outcome") if sample.get(k) in labels), None)
    if label is None:
        return ""
    return luck(w.id, values, {"result": label})["sentence"]
