"""A Monte Carlo run checked against a value known exactly.

A battle is too long to work out exactly, but a part of it sometimes is not:
the card game's opening volley has the distribution the "Hits in one round"
calculator gives, and an AT Gold attack hits with the chance "Chance of a hit"
gives for its attack score and hit points. A battle widget's trial records
whether its part happened (:func:`record`), and :func:`check_html` shows the
run's estimate of it beside the exact value, and how the estimate closed in
on that value as the trials grew: evidence that the trials are fair draws.

The estimate at a fixed trial count, say 500, is the share among trials
``0 … 499``. For that to be a function of (inputs, seed, N) however the trials
were split among workers, each trial's record is kept by its **stage**: the
stages end at the fixed counts :data:`STAGE_ENDS` (100, 200, 500, 1,000, …), so
trial ``i`` belongs to stage ``stage(i)`` whichever chunk ran it, and the
share at an end is the sum of the stages before it. The counts live in the
tally's categorical variables :data:`VARIABLE` (the trials that recorded the
part, by stage and stratum) and :data:`HITS` (those that saw it happen, by
stage), which merge exactly like any other.

A stratum holds the trials whose part has one exact value. The card game's
part has one value for the inputs (stratum ``""``); the chance of AT Gold's
first attack depends on who attacks whom, which the battle draws, so each
stratum is one attack score and hit points pair and the exact value is the
average of the exact chances of the attacks the trials made.

>>> from engine.montecarlo import run_chunk
>>> def coin(inputs, rng, tally):
...     record(tally, rng.random() < 0.25)
>>> t = run_chunk(coin, {}, 1, 0, 300)
>>> [(p["trials"], p["successes"]) for p in points(t, lambda s: Fraction(1, 4))]
[(100, 36), (200, 64), (300, 95)]
>>> run_chunk(coin, {}, 1, 150, 150).merged(run_chunk(coin, {}, 1, 0, 150)) == t
True
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Final

from . import present
from .montecarlo import Tally, tally_wilson
from .schema import fraction_text

__all__ = ["VARIABLE", "HITS", "STAGE_ENDS", "CHART_POINTS", "stage", "record", "points", "check_html"]

VARIABLE: Final = "exact check"
"""The tally variable counting the trials that recorded a check's part: outcome ``"<stage>"`` or
``"<stage> <stratum>"``."""

HITS: Final = "exact check hits"
"""The tally variable counting the trials that saw the part happen: outcome ``"<stage>"``."""

STAGE_ENDS: Final = tuple(m * 10**e for e in range(2, 19) for m in (1, 2, 5))
"""The fixed trial counts a check is shown at: 100, 200, 500, 1,000, 2,000, … (up past any run's size)."""

CHART_POINTS: Final = 5
"""Points a check needs for its chart (a run of more than 1,000 trials); fewer are shown in its table alone.
A page's estimates are pre-rendered for runs of 1,000, four points that the table shows well, and a chart
for each would take two battle widgets' page past its first-paint budget (``build.PAGE_BUDGET``)."""

Exact = Callable[[str], Fraction]
"""The exact value of a check's part in a stratum."""


def stage(index: int) -> int:
    """The stage of trial ``index``: how many of :data:`STAGE_ENDS` lie at or below it.

    >>> stage(0), stage(99), stage(100), stage(499), stage(500)
    (0, 0, 1, 2, 3)
    """
    return bisect_right(STAGE_ENDS, index)


def record(tally: Tally, happened: bool, stratum: str = "") -> None:
    """The trial :func:`~engine.montecarlo.run_chunk` is running saw the part happen, or not."""
    if tally.at is None:
        raise ValueError("a check is recorded by a trial that run_chunk runs")
    at = str(stage(tally.at))
    tally.count(VARIABLE, f"{at} {stratum}" if stratum else at)
    if happened:
        tally.count(HITS, at)


def _records(tally: Tally) -> list[tuple[int, str, int]]:
    """(stage, stratum, trials) of every record in the tally."""
    out = []
    for key, n in tally.counts.get(VARIABLE, {}).items():
        head, *rest = key.split(" ", 1)
        out.append((int(head), rest[0] if rest else "", n))
    return out


def points(tally: Tally, exact: Exact) -> list[dict[str, Any]]:
    """The check at each of :data:`STAGE_ENDS` the tally holds every trial before, and at all its trials: the
    trials run (``at``), those that recorded the part (``trials``), how many saw it happen, the estimate with its
    interval, and the exact value (of those same trials)."""
    records = _records(tally)
    if not records:
        return []
    values = {s: Fraction(exact(s)) for s in {r[1] for r in records}}
    hits = [(int(k), n) for k, n in tally.counts.get(HITS, {}).items()]
    prefix = tally.ranges[0][1] if tally.ranges and tally.ranges[0][0] == 0 else 0
    ends = [e for e in STAGE_ENDS if e <= prefix]
    if tally.trials not in ends:
        ends.append(tally.trials)
    out = []
    for e in ends:
        last = None if e == tally.trials else stage(e) - 1  # the last point: every trial the tally holds
        chosen = [r for r in records if last is None or r[0] <= last]
        n = sum(r[2] for r in chosen)
        happened = sum(k for at, k in hits if last is None or at <= last)
        if not n:
            continue
        iv = tally_wilson(happened, n, tally.confidence)
        out.append({"at": e, "trials": n, "successes": happened, "estimate": iv.estimate, "low": iv.low,
                    "high": iv.high, "exact": sum((values[r[1]] * r[2] for r in chosen), Fraction(0)) / n})
    return out


def _pct(x: float | Fraction) -> str:
    return f"{float(x) * 100:.1f}%"


def _exact_text(x: Fraction) -> str:
    """An exact share as a percentage, with the fraction when it is short enough to read."""
    text = fraction_text(x)
    return _pct(x) + (f" ({text})" if "/" in text and len(text) <= 9 else "")


def check_html(tally: Tally, part: str, exact: Exact, *, what: str = "trials", averaged: str = "") -> str:
    """The check under an estimate: one sentence, a chart of the estimate closing in on the exact value (from
    :data:`CHART_POINTS` points), and its data as a table; empty when the tally holds no records.

    ``part`` says what was checked; ``averaged``, when the exact value depends on the stratum, says what it
    averages (each point's exact value is then that of its own trials).
    """
    pts = points(tally, exact)
    if not pts:
        return ""
    from .scenarios import chart_svg  # the site's one line chart (scenarios imports the widgets)

    last = pts[-1]
    level = fraction_text(tally.confidence * 100)
    covered = last["low"] <= last["exact"] <= last["high"]
    verdict = ("The interval covers the exact value." if covered else
               f"The interval misses the exact value, as a {level}% interval does in about "
               f"{_one_in(tally.confidence)} runs.")
    sentence = (f"Check against an exact value: {part} — exact {_exact_text(last['exact'])}"
                f"{f' ({averaged})' if averaged else ''}; this run {_pct(last['estimate'])} ({level}% interval "
                f"{_pct(last['low'])} to {_pct(last['high'])}), {last['trials']:,} {what}. {verdict}")
    labels = [f"{p['at']:,}" for p in pts]
    rows = "".join(f'<tr><th scope="row">{p["at"]:,}</th><td class="num pct">{_pct(p["estimate"])}</td>'
                   f'<td class="num ci">{_pct(p["low"])} to {_pct(p["high"])}</td>'
                   f'<td class="num pct">{_pct(p["exact"])}</td></tr>' for p in pts)
    caption = f"The estimate as the {what} grew, against the exact value"
    # A group, not a region: a page may hold two battles whose checks read alike, and a landmark needs a name of
    # its own; the table belongs to its estimate, not to the page's landmarks. Still named, and reachable by
    # keyboard when it scrolls sideways.
    table = (f'<div class="table-wrap" role="group" tabindex="0" aria-label="{present.esc(caption)}">'
             f'<table class="chart-data"><caption>{present.esc(caption)}</caption><thead><tr>'
             f'<th scope="col" class="num">{present.esc(what.capitalize())}</th>'
             f'<th scope="col" class="num">This run</th><th scope="col" class="num">{level}% interval</th>'
             f'<th scope="col" class="num">Exact</th></tr></thead><tbody>{rows}</tbody></table></div>')
    chart = ""
    if len(pts) >= CHART_POINTS:
        svg = chart_svg(f"{part[:1].upper()}{part[1:]}: the estimate and its interval by {what}, the exact value dashed",
                        list(range(len(pts))), labels,
                        [{"float": p["estimate"], "low": p["low"], "high": p["high"]} for p in pts],
                        "probability", what.capitalize(), reference=[float(p["exact"]) for p in pts])
        chart = (f'<figure class="scenario-chart">{svg}<figcaption>The estimate (points, with its {level}% '
                 f'interval shaded) after {labels[0]} to {labels[-1]} {what}; dashed: the exact value'
                 f'</figcaption></figure>')
    return (f'<section class="exact-check"><p class="note exact-check-line">{present.esc(sentence)}</p>'
            f'{chart}{table}</section>')


def _one_in(confidence: Fraction) -> str:
    """How often an interval at ``confidence`` misses, as "1 in 20".

    >>> _one_in(Fraction(95, 100)), _one_in(Fraction(99, 100))
    ('1 in 20', '1 in 100')
    """
    miss = 1 - confidence
    return f"1 in {round(1 / miss):,}" if miss else "no"
