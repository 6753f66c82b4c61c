"""HTML for widget results, shared by the site build and the browser.

The build pre-renders each widget's default result with these functions in
CPython; the browser worker calls the very same functions in Pyodide. So a
live result and a pre-rendered one are the same markup by construction.

Every helper takes plain result data (JSON types) and returns an HTML
string; all text is escaped here.

>>> distribution([{"result": "no result", "p": "1/4", "float": 0.25}], "Outcomes")[:39]
'<table class="dist"><caption>Outcomes</'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

__all__ = [
    "esc",
    "percent",
    "signed",
    "section",
    "modifiers",
    "distribution",
    "figures",
    "steps",
    "assumptions",
    "rolls",
    "note",
    "bar",
]


def esc(value: Any) -> str:
    """Escaped text of any value."""
    return escape(str(value), quote=True)


def trials(n: int) -> str:
    """A number of trials as a caption says it.

    >>> trials(1), trials(1500)
    ('1 trial', '1,500 trials')
    """
    return f"{n:,} {'trial' if n == 1 else 'trials'}"


def percent(x: float) -> str:
    """A probability as a percentage with two decimals.

    >>> percent(0.2777777777777778)
    '27.78%'
    """
    return f"{x * 100:.2f}%"


def signed(n: Any) -> str:
    """A modifier with its sign; the minus is a true minus sign.

    >>> signed(2), signed(-1), signed(0)
    ('+2', '−1', '0')
    """
    text = str(n)
    if text.startswith("-"):
        return "−" + text[1:]
    return text if text == "0" else "+" + text


def minus(text: str) -> str:
    """Every number's minus in ``text`` a true minus sign, as :func:`signed` writes it.

    >>> minus("-0.50 points (-1.9 to 0.9), 1.2e-05")
    '−0.50 points (−1.9 to 0.9), 1.2e-05'
    """
    return re.sub(r"(?<![\w.])-(?=[\d.])", "−", text)


def section(title: str, body: str, cls: str = "") -> str:
    """A titled block of a result."""
    klass = f"result-part {cls}".strip()
    return f'<section class="{esc(klass)}"><h4>{esc(title)}</h4>{body}</section>'


def note(text: str, cls: str = "note") -> str:
    return f'<p class="{esc(cls)}">{esc(text)}</p>'


def modifiers(items: Sequence[Mapping[str, Any]], total: Any, caption: str = "Die roll modifiers") -> str:
    """The modifier breakdown: one row per rule that applies, then the total.

    Each item has ``rule`` (what applies), ``value`` and optionally ``source``
    (the rule it comes from) and ``assumed`` (true when the value is ours).
    """
    rows = []
    for m in items:
        source = f' <span class="cite">{esc(m["source"])}</span>' if m.get("source") else ""
        flag = ' <span class="assumed" title="Our assumption, not the rulebook\'s">assumed</span>' if m.get("assumed") else ""
        rows.append(f'<tr><th scope="row">{esc(m["rule"])}{source}{flag}</th>'
                    f'<td class="num">{esc(signed(m["value"]))}</td></tr>')
    if not rows:
        rows.append('<tr><th scope="row">No modifier applies</th><td class="num">0</td></tr>')
    return (f'<table class="mods"><caption>{esc(caption)}</caption>'
            f'<thead><tr><th scope="col">Rule</th><th scope="col" class="num">Modifier</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody>'
            f'<tfoot><tr><th scope="row">Total</th><td class="num">{esc(signed(total))}</td></tr></tfoot></table>')


def distribution(outcomes: Iterable[Mapping[str, Any]], caption: str,
                 label: str = "Result") -> str:
    """The outcome chart: a table whose bars are decoration over exact figures.

    Each outcome has ``result``, ``p`` (exact text), ``float`` and optionally
    ``side`` (``attacker``, ``defender`` or ``neutral``) to colour its bar.
    The table itself is the text equivalent, so screen readers read the
    fraction and the percentage and skip the bar.
    """
    items = list(outcomes)
    peak = max((o["float"] for o in items), default=0.0) or 1.0
    rows = []
    for o in items:
        side = esc(o.get("side", "neutral"))
        width = f"{o['float'] / peak * 100:.1f}"
        rows.append(
            f'<tr class="side-{side}"><th scope="row">{esc(o["result"])}</th>'
            f'<td class="num frac">{esc(o["p"])}</td>'
            f'<td class="num pct">{esc(percent(o["float"]))}</td>'
            f'<td class="bar">{bar(width)}</td></tr>')
    return (f'<table class="dist"><caption>{esc(caption)}</caption>'
            f'<thead><tr><th scope="col">{esc(label)}</th><th scope="col" class="num">Exact</th>'
            f'<th scope="col" class="num">Percent</th><th scope="col"><span class="visually-hidden">Bar</span></th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def bar(width: str) -> str:
    """A decorative bar of ``width`` percent, drawn as SVG so no inline style is needed.

    (A strict Content-Security-Policy forbids style attributes; SVG geometry
    attributes are not styles.)

    >>> bar("50.0")
    '<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false"><rect width="50.0" height="10"></rect></svg>'
    """
    return (f'<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">'
            f'<rect width="{esc(width)}" height="10"></rect></svg>')


def figures(items: Iterable[Mapping[str, Any]]) -> str:
    """Key figures as a definition list.

    Each item has ``label`` and either ``value`` (text) or ``p`` and ``float``
    (a probability, shown exact and as a percentage), plus optional ``help``.
    """
    parts = []
    for item in items:
        if "p" in item:
            value = f'<span class="frac">{esc(item["p"])}</span> <span class="pct">({esc(percent(item["float"]))})</span>'
        else:
            value = esc(item["value"])
        helptext = f'<span class="help">{esc(item["help"])}</span>' if item.get("help") else ""
        parts.append(f'<div><dt>{esc(item["label"])}</dt><dd>{value}{helptext}</dd></div>')
    return f'<dl class="figures">{"".join(parts)}</dl>'


def steps(lines: Iterable[str], ordered: bool = True) -> str:
    """A trace or walk-through, one line per step."""
    tag = "ol" if ordered else "ul"
    return f'<{tag} class="steps">{"".join(f"<li>{esc(x)}</li>" for x in lines)}</{tag}>'


def assumptions(items: Iterable[Mapping[str, Any]]) -> str:
    """Settings the rulebook does not give: our value and what the source says."""
    rows = [f'<li><span class="assumed">assumed</span> <strong>{esc(a["setting"])}</strong> = '
            f'<code>{esc(a["value"])}</code>. {esc(a["note"])}</li>' for a in items]
    if not rows:
        return ""
    return section("Assumptions in this result", f'<ul class="assumptions">{"".join(rows)}</ul>', "assumptions-part")


def rolls(items: Iterable[Mapping[str, Any]]) -> str:
    """Dice as they landed: ``combat (3d6): 4 + 2 + 6 = 12``."""
    out = []
    for r in items:
        faces = " + ".join(str(f) for f in r["faces"])
        shown = f"{faces} = {r['total']}" if len(r["faces"]) > 1 else faces
        out.append(f'<li><span class="roll-label">{esc(r["label"])}</span>: '
                   f'<span class="faces">{esc(shown)}</span></li>')
    return f'<ul class="rolls">{"".join(out)}</ul>'
