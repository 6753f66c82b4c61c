"""Which assumption matters: every figure under each other reading of every setting marked assumed.

Where a source is silent or contradicts itself the engine makes the value a
setting marked *assumed* (:mod:`engine.settings`). This module asks, for the
inputs at hand, how far each of those readings moves the widget's figures:
each other choice of a choice, the other answer of a yes/no, and for a number
half and one and a half times its value (a whole number: its value minus and
plus half of it, at least 1), inside the setting's own bounds. Settings are
ranked by how far they move the headline figure (the widget's first), and a
large spread gets one sentence ("Depends on our reading of …: 40-56 %").

Calculators answer exactly. For battles every variant plays trials 0 … N−1
with the same per-trial seeds (common random numbers, as
:func:`engine.scenarios.compare` does), in one job per chunk of trials whose
tally holds each variant's figures and each variant's per-trial difference
from the inputs as they are (``d{k}.name``), so the differences' intervals are
sharp; a call adds ``count`` trials to ``tally``, as the other scenario
operations do, and the ranking is there from the first call.

Most readings of a battle change no battle at all (40 against 40 in AT Gold:
112 of 133 readings changed none of the first 200), so a battle whose headline is
a share stops such a reading early. The rule is looked at only at fixed trial
counts, :data:`STOP_CHECKPOINTS`, each time on the reading's trials 0 … n−1
exactly, as :mod:`engine.precision` does: a reading stops at a checkpoint when
the share of battles whose headline it changes is, by Wilson's upper bound, at
most :data:`NEGLIGIBLE_SHARE`; the inputs as they are and every other reading
play the whole run. The answer is a function of (inputs, seed, trials, rule)
however the calls and workers cut the trials. ``full=True`` plays every reading
to the end (the rule of earlier versions).

>>> a = sensitivity("small_general.combat", {})
>>> top = a["settings"][0]
>>> top["input"], top["low"]["exact"], top["high"]["exact"]
('settings.retreat_direction', '1/216', '7/144')
"""

from __future__ import annotations

import json

from collections.abc import Mapping, Sequence
from fractions import Fraction
from html import escape
from typing import Any, Final

from . import widgets
from .montecarlo import Tally, wilson
from .scenarios import (Mapper, _chunks, _estimate, _figures, _label, _read_tally, _run_jobs, _shown_value,
                        _value_json, _with, chunk_states, exact_figures, serial)
from .schema import Boolean, Choice, Field, InputError, Integer, Number, fraction_text, jsonable

__all__ = ["alternatives", "sensitivity", "sensitivity_html", "note_html", "tornado_svg", "readings",
           "LARGE_PROBABILITY_SPREAD", "LARGE_RELATIVE_SPREAD", "STOP_CHECKPOINTS", "NEGLIGIBLE_SHARE", "STOP_RULE"]

LARGE_PROBABILITY_SPREAD = Fraction(5, 100)
"""A spread of a probability this wide (5 points) or wider earns the sentence under the headline."""
LARGE_RELATIVE_SPREAD = Fraction(1, 10)
"""For other figures: a spread of a tenth of the figure's value or more."""

STOP_CHECKPOINTS: Final = (200, 500)
"""The trial counts at which a battle's reading may stop early (those below the run's size).

200 is the least round count at which a reading that changed no battle can pass the rule: Wilson's
upper bound at 95 % for 0 of n is about 3.84 / (n + 3.84), 1.9 % at 200 but 3.7 % at 100 (at 150 it sits
on the line). At 500 a reading that changed up to 5 battles passes (1.75 % for 5 of 500). Fixed counts,
not whatever a call happens to have finished, so one call and many give the same answer."""

NEGLIGIBLE_SHARE: Final = LARGE_PROBABILITY_SPREAD / 2
"""A reading stops when the share of battles whose headline it changes is at most this (2.5 %), by
Wilson's upper bound at the run's confidence. A headline that is a share is 0 or 1 in each battle, so a
reading moves it by at most the share of battles it changes; a setting whose readings all stopped moves
the headline by less than 2.5 points either way, so its spread stays under the 5 points
(:data:`LARGE_PROBABILITY_SPREAD`) that earn the sentence under the headline."""

STOP_RULE: Final = "negligible"
"""The rule's name in a run's tally key: a tally of the early stop never merges with one of the full run."""


def _number_alternatives(f: Field, value: Fraction) -> list[Any]:
    lo = None if getattr(f, "minimum", None) is None else Fraction(f.minimum)  # type: ignore[attr-defined]
    hi = None if getattr(f, "maximum", None) is None else Fraction(f.maximum)  # type: ignore[attr-defined]
    if isinstance(f, Integer):
        step = max(1, abs(int(value)) // 2)
        raw = [value - step, value + step]
    elif value:
        raw = [value / 2, value * 3 / 2]
    else:
        raw = [Fraction(1, 10) if hi is None else hi / 4]
    out = []
    for x in raw:
        x = x if lo is None else max(lo, x)
        x = x if hi is None else min(hi, x)
        if x != value and x not in out:
            out.append(int(x) if isinstance(f, Integer) else x)
    return out


def alternatives(w: widgets.Widget, values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every assumed setting of ``w`` that can take another value, with those values.

    >>> [a["input"] for a in alternatives(widgets.get("small_general.combat"), widgets.get("small_general.combat").validate({}))][:2]
    ['settings.artillery_limit', 'settings.defending_artillery']
    """
    out = []
    for path, f in w.inputs.assumed_fields():
        current: Any = values
        for part in path.split("."):
            current = current[part]
        if isinstance(f, Choice):
            alts: list[Any] = [c for c in f.choices if c != current]
        elif isinstance(f, Boolean):
            alts = [not current]
        elif isinstance(f, (Integer, Number)):
            alts = _number_alternatives(f, Fraction(current))
        else:
            continue
        if alts:
            out.append({"input": path, "label": f.title, "value": jsonable(current), "values": jsonable(alts)})
    return out


def _variants(w: widgets.Widget, values: dict[str, Any]) -> tuple[list[dict[str, Any]], list[tuple[int, Any, Any]]]:
    """The inputs of every variant that validates, and for each: (setting's index, its value, its inputs)."""
    settings = alternatives(w, values)
    out = []
    for i, s in enumerate(settings):
        for alt in s["values"]:
            try:
                out.append((i, alt, _with(w, values, s["input"], alt)))
            except InputError:
                continue  # a combination the inputs do not allow: that reading cannot apply here
    return settings, out


_last_prepared: list[tuple[Any, ...]] = []
"""The last inputs' readings: (widget id, inputs as text, values, settings, variants, every state as data)."""


def _prepared(w: widgets.Widget, inputs: Mapping[str, Any] | None) -> tuple[Any, ...]:
    """The validated inputs, the settings read otherwise and every variant's inputs (also as data); a battle's
    are kept for the next request with the same inputs: its reading in the browser comes in many short calls,
    and building a hundred variants took most of each."""
    text = None  # a calculator answers in one call: nothing to keep (and the memory snapshot keeps no readings)
    if w.trial is not None:
        try:
            text = json.dumps(inputs, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError):  # not JSON data (a caller in Python): nothing to keep
            pass
    if text is not None and _last_prepared and _last_prepared[0][:2] == (w.id, text):
        return _last_prepared[0][2:]
    values = w.validate(inputs)
    settings, variants = _variants(w, values)
    data = [jsonable(s) for s in [values] + [v for _, _, v in variants]]
    if text is not None:
        _last_prepared[:] = [(w.id, text, values, settings, variants, data)]
    return values, settings, variants, data


def readings(widget_id: str, inputs: Mapping[str, Any] | None) -> int:
    """How many states a reading of ``inputs`` plays: the inputs as they are and each other reading."""
    return 1 + len(_prepared(widgets.get(widget_id), inputs)[2])


def _stops(head: Any, total: int, full: bool) -> tuple[int, ...]:
    """The checkpoints at which readings of a run of ``total`` trials may stop (none: every reading plays all)."""
    if full or not head.probability:
        return ()
    return tuple(c for c in STOP_CHECKPOINTS if c < total)


def _changed(t: Tally, k: int, head: Any) -> tuple[int, int]:
    """(battles whose headline reading ``k`` changed, battles it played): a share's headline is 0 or 1 in each
    battle, so the squares of the per-battle differences count the changed ones."""
    s = t.sums.get(f"d{k}.{head.name}")
    return (0, 0) if s is None else (int(s.squares), s.n)  # none: a tally without the reading plays it no more


def _playing(t: Tally | None, at: int, n_states: int, head: Any, stops: tuple[int, ...]) -> list[int] | None:
    """The readings that play trial ``at`` on, from the tally of trials 0 … at−1 (None: all of them)."""
    if not stops or at < stops[0]:
        return None
    if t is None or t.ranges != ((0, at),):
        raise InputError("first", f"a reading that stops early plays its trials in order: send the tally of "
                         f"trials 0 to {at - 1:,} with trial {at:,}", "the next trial of the run")
    out = []
    for k in range(1, n_states):
        m, n = _changed(t, k, head)
        if n == at and not (at in stops and wilson(m, n, t.confidence).high <= NEGLIGIBLE_SHARE):
            out.append(k)
    return out


def _reading(t: Tally, k: int, head: Any, base: dict[str, Any],
             stops: tuple[int, ...]) -> tuple[dict[str, Any] | None, dict[str, Any] | None, dict[str, Any]]:
    """Reading ``k``'s figure, its change and how far it played. A reading that stopped early gives the
    figure as it is moved by its change, with both intervals' half-widths (its own trials are fewer)."""
    diff = _estimate(t, f"d{k}.{head.name}", head)
    if not stops or diff is None:
        return _estimate(t, f"{k}.{head.name}", head), diff, {}
    m, n = _changed(t, k, head)
    played: dict[str, Any] = {"trials": n, "changed": m, "stopped": n < t.trials}
    if n == t.trials:
        return _estimate(t, f"{k}.{head.name}", head), diff, played
    x = Fraction(base["exact"]) + Fraction(diff["exact"])
    low = max(0.0, base["low"] + diff["low"])
    high = min(1.0, base["high"] + diff["high"])
    played["bound"] = wilson(m, n, t.confidence).high
    return {"exact": fraction_text(x), "float": float(x), "low": low, "high": high, "trials": n}, diff, played


def sensitivity(widget_id: str, inputs: Mapping[str, Any] | None, *, figure: str | None = None, seed: int = 1,
                trials: int | None = None, first: int = 0, count: int | None = None, tally: Any = None,
                chunk: int = 0, mapper: Mapper = serial, render: bool = False, full: bool = False) -> dict[str, Any]:
    """Each assumed setting's other readings, ranked by how far they move ``figure`` (the headline by default).

    Estimators run trials ``first`` … ``first + count − 1`` (default: all ``trials``, the widget's run size)
    of the inputs and of every variant not yet stopped (see the module's note; ``full``: every variant
    plays every trial), added to ``tally``.
    """
    w = widgets.get(widget_id)
    figs = _figures(w, None)
    by = {f.name: f for f in figs}
    if figure is not None and figure not in by:
        raise InputError("figure", f"{figure!r} is not a figure of {w.id}", ", ".join(by))
    head = by[figure] if figure is not None else figs[0]
    values, settings, variants, data = _prepared(w, inputs)
    out: dict[str, Any] = {"widget": w.id, "kind": "estimate" if w.trial else "exact", "figure": head.describe(),
                           "variants": len(variants),
                           "rule": "each other choice; yes for no and no for yes; a number at half and one and a "
                                   "half times its value (a whole number: minus and plus half of it, at least 1), "
                                   "within the setting's bounds"}
    base: dict[str, Any] | None
    got: list[dict[str, Any] | None] = []
    diffs: list[dict[str, Any] | None] = []
    played: list[dict[str, Any]] = [{} for _ in variants]
    if w.trial is None:
        b = exact_figures(w, values)[head.name]
        base = _value_json(b)
        for _, _, v in variants:
            try:
                x = exact_figures(w, v)[head.name]
            except InputError:
                x = None
            got.append(_value_json(x))
            diffs.append(None if x is None or b is None else _value_json(x - b))
    else:
        total = trials or w.trials
        count = total - first if count is None else count
        t = _read_tally(tally, "tally")
        if count < 0 or count == 0 and t is None:  # 0 with a tally: only merge (the request's parts) and render
            raise InputError("count", "no trials left to run", "1 or more")
        stops = _stops(head, total, full)
        rule = f"{STOP_RULE}:{head.name}" if stops else ""
        if t is not None and t.key != chunk_states(w, data, seed, "common", rule)[1]:
            raise InputError("tally", "the tally belongs to other inputs, another seed, another widget or the "
                             "other way of stopping readings; start again without one")
        cuts = [first] + [c for c in stops if first < c < first + count] + [first + count]
        for a, b in zip(cuts, cuts[1:]):  # a stage ends at each checkpoint: the rule looks at trials 0 … c−1
            only = _playing(t, a, len(data), head, stops)
            jobs = [(0, data, s0, n) for s0, n in _chunks(a, b - a, chunk or (b - a))]
            t = _run_jobs(w, jobs, seed, "common", mapper, [t], only, rule)[0]
        assert t is not None
        base = _estimate(t, f"0.{head.name}", head)
        assert base is not None
        for k in range(1, len(data)):
            g, d, played[k - 1] = _reading(t, k, head, base, stops)
            got.append(g)
            diffs.append(d)
        out.update(seed=seed, tally=t.to_json(), trials=t.trials, next=first + count, done=t.trials >= total,
                   confidence=fraction_text(w.confidence),
                   stopping={"checkpoints": list(stops), "negligible": fraction_text(NEGLIGIBLE_SHARE)} if stops
                   else None)
    rows = []
    for i, s in enumerate(settings):
        alts = [{"value": alt, "label": _label(alt), "figure": g, "diff": d, **p}
                for (j, alt, _), g, d, p in zip(variants, got, diffs, played) if j == i]
        seen = [a["figure"] for a in alts if a["figure"] is not None] + ([base] if base else [])
        if not alts or not seen:
            continue
        low = min(seen, key=lambda v: v["float"])
        high = max(seen, key=lambda v: v["float"])
        rows.append({**s, "alternatives": alts, "low": low, "high": high, "spread": high["float"] - low["float"]})
    rows.sort(key=lambda r: -r["spread"])
    out.update(base=base, settings=rows, sentence=_sentence(head, base, rows))
    if render:
        out["html"] = sensitivity_html(out)
    return out


def _sentence(head: Any, base: dict[str, Any] | None, rows: Sequence[Mapping[str, Any]]) -> str:
    """One sentence for the headline when a reading moves it far; empty otherwise."""
    if not rows or base is None:
        return ""
    top = rows[0]
    spread = Fraction(top["high"]["exact"]) - Fraction(top["low"]["exact"])
    large = (spread >= LARGE_PROBABILITY_SPREAD if head.probability
             else abs(Fraction(base["exact"])) and spread >= LARGE_RELATIVE_SPREAD * abs(Fraction(base["exact"])))
    if not large:
        return ""
    lo, hi = _plain(top["low"], head.unit), _plain(top["high"], head.unit)
    return f"{head.label} depends on our reading of “{top['label']}”: {lo} to {hi}."


def _plain(v: Mapping[str, Any], unit: str) -> str:
    """A figure for a sentence: a percentage to one decimal under 10 %, whole above; else three digits.

    >>> _plain({"float": 1 / 216}, "probability"), _plain({"float": 0.545}, "probability"), _plain({"float": 2.345}, "")
    ('0.5 %', '55 %', '2.35')
    """
    if unit != "probability":
        return f"{v['float']:.3g}"
    x = v["float"] * 100
    return f"{x:.1f} %" if 0 < x < 10 else f"{x:.0f} %"


def tornado_svg(answer: Mapping[str, Any], most: int = 12) -> str:
    """Bars from each setting's lowest to highest headline figure around the figure as it is, widest first.

    SVG with classes and presentation attributes only, as :func:`engine.scenarios.chart_svg`.
    """
    rows = [r for r in answer["settings"] if r["spread"] > 0][:most]
    head = answer["figure"]
    prob = head["unit"] == "probability"
    scale = 100.0 if prob else 1.0
    width, left, right, top, row_h = 480, 170, 16, 24, 22
    height = top + max(1, len(rows)) * row_h + 30
    pw = width - left - right
    base = answer["base"]["float"] if answer.get("base") else 0.0
    lows = [r["low"]["float"] for r in rows] + [base]
    highs = [r["high"]["float"] for r in rows] + [base]
    x0, x1 = (0.0, 1.0) if prob else (min(lows), max(highs))
    if x1 <= x0:
        x0, x1 = x0 - 1, x1 + 1

    def px(v: float) -> float:
        return left + (v - x0) / (x1 - x0) * pw

    title = f"How far each assumed setting moves {head['label']}"
    out = [f'<svg class="chart tornado" viewBox="0 0 {width} {height}" role="img" focusable="false">',
           f"<title>{escape(title)}</title>", '<g class="ticks" fill="currentColor" font-size="11">']
    for k in range(6):
        v = x0 + (x1 - x0) * k / 5
        out.append(f'<text class="tick" x="{px(v):.1f}" y="{height - 10}" text-anchor="middle">'
                   f'{v * scale:.3g}{"%" if prob else ""}</text>')
    for i, r in enumerate(rows):
        y = top + i * row_h
        out.append(f'<text class="tick" x="{left - 6}" y="{y + 14}" text-anchor="end">{escape(r["label"][:26])}</text>')
    out.append("</g>")
    for i, r in enumerate(rows):
        y = top + i * row_h
        a, b = px(r["low"]["float"]), px(r["high"]["float"])
        out.append(f'<rect class="bar" x="{a:.1f}" y="{y + 4}" width="{max(1.0, b - a):.1f}" height="{row_h - 8}" '
                   f'fill="currentColor" fill-opacity="0.55"></rect>')
    out.append(f'<line class="threshold" x1="{px(base):.1f}" x2="{px(base):.1f}" y1="{top - 6}" '
               f'y2="{top + max(1, len(rows)) * row_h}" stroke="currentColor" stroke-dasharray="4 3"></line>')
    out.append("</svg>")
    return "".join(out)


def sensitivity_html(answer: Mapping[str, Any]) -> str:
    """The sentence (if any), the tornado chart and a table of every reading tried, widest spread first."""
    head = answer["figure"]
    unit = head["unit"]
    stopping = answer.get("stopping")
    body = []
    for r in answer["settings"]:
        for j, alt in enumerate(r["alternatives"]):
            name = f'<th scope="row" rowspan="{len(r["alternatives"])}">{escape(r["label"])} '\
                   f'<code>{escape(r["input"])}</code> (now {escape(_label(r["value"]))})</th>' if j == 0 else ""
            played = f'<td class="num played">{escape(_played(alt))}</td>' if stopping else ""
            body.append(f"<tr>{name}<td>{escape(alt['label'])}</td>"
                        f'<td class="num">{escape(_shown_value(alt["figure"], unit))}</td>'
                        f'<td class="num">{escape(_shown_value(alt["diff"], unit, True))}</td>{played}</tr>')
    base = escape(_shown_value(answer.get("base"), unit))
    if answer["kind"] != "estimate":
        trials = ""
    elif stopping:
        looks = " or ".join(f"{c:,}" for c in stopping["checkpoints"])
        trials = (f" The figure as it is played {answer['trials']:,} battles, and each reading the same ones; a "
                  f"reading stopped after {looks} when it changed the outcome of so few that, at "
                  f"{_percent(answer['confidence'])} confidence, it changes at most "
                  f"{_percent(stopping['negligible'])} of battles, and so cannot move the figure further: its "
                  "figure is the figure as it is with its change.")
    else:
        trials = f" Each reading played the same {answer['trials']:,} battles."
    played_head = '<th scope="col" class="num">Battles</th>' if stopping else ""
    table = ('<div class="table-wrap" role="region" tabindex="0" aria-label="Every assumed reading tried">'
             f'<table class="sensitivity"><caption>{escape(head["label"])} under every other reading of the '
             f'assumed settings (as it is: {base})</caption><thead><tr><th scope="col">Setting</th>'
             '<th scope="col">Other reading</th><th scope="col" class="num">Figure</th>'
             f'<th scope="col" class="num">Change</th>{played_head}</tr></thead><tbody>' + "".join(body) +
             "</tbody></table></div>")
    sentence = f'<p class="sensitivity-sentence">{escape(answer["sentence"])}</p>' if answer["sentence"] else ""
    return (f'<div class="sensitivity-answer">{sentence}<figure class="scenario-chart">{tornado_svg(answer)}'
            f'<figcaption>How far each assumed setting moves {escape(head["label"])}: its lowest to highest, the '
            f'dashed line at the figure as it is. Tried: {escape(answer["rule"])}.{escape(trials)}</figcaption>'
            f"</figure>{table}</div>")


def _percent(share: Any) -> str:
    """A share as a percentage for prose: ``'1/40'`` -> ``'2.5 %'``, ``'19/20'`` -> ``'95 %'``."""
    return f"{float(Fraction(share)) * 100:.3g} %"


def _played(alt: Mapping[str, Any]) -> str:
    """How many battles a reading played and why it stopped, for the table's last column."""
    if "trials" not in alt:
        return "—"
    n = f"{alt['trials']:,}"
    if not alt.get("stopped"):
        return n
    changed = "changed none" if alt["changed"] == 0 else f"changed {alt['changed']:,}"
    return f"{n}: {changed}, stopped (at most {alt['bound'] * 100:.1f} % of battles)"


def note_html(answer: Mapping[str, Any], instance: str) -> str:
    """The sentence under a widget's result, with a link to the setting's control; empty when the spread is
    narrow. The control's id is the form's (``instance--path``, dots as hyphens)."""
    if not answer["sentence"]:
        return ""
    path = answer["settings"][0]["input"]
    return (f'{escape(answer["sentence"])} <a class="setting-link" href="#{escape(instance)}--'
            f'{escape(path.replace(".", "-"))}" data-setting="{escape(path)}">See the setting</a>.')
