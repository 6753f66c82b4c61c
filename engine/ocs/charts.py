"""Exhibits: the OCS charts rendered from engine data, never retyped.

>>> combat_table_html().startswith('<table class="chart ocs-combat-table">')
True
"""

from __future__ import annotations

from engine.exhibits import register_exhibit
from engine.present import esc

from .explain import NOTES
from .surprise import SURPRISE_THRESHOLDS, AttackKind
from .table import RESULT_ROWS, TERRAIN_COLUMNS

__all__ = ["combat_table_html", "surprise_table_html", "results_key_html", "RESULTS_KEY"]

RESULTS_KEY: tuple[tuple[str, str], ...] = (
    ("A", "The attacker's part of the result follows."),
    ("D", "The defender's part of the result follows."),
    ("L#", "Lose # steps."),
    ("o#", "Owe # options; each is one step lost or one hex of retreat, the owner's pick."),
    ("e#", "Attacking units rated # or better get exploitation markers (never in an overrun)."),
    ("DG", "The defenders become disorganized."),
)
"""The codes of a result cell, in our words."""


def combat_table_html() -> str:
    """The combat table as printed: four terrain header rows over fifteen 2d6 rows."""
    head = "".join(
        f'<tr><th scope="row">{esc(terrain.label)}</th>'
        + "".join(f'<th scope="col">{esc(label)}</th>' for label in labels) + "</tr>"
        for terrain, labels in TERRAIN_COLUMNS.items())
    body = "".join(
        f'<tr><th scope="row">{esc(label)}</th>' + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>"
        for label, cells in RESULT_ROWS)
    return (f'<table class="chart ocs-combat-table"><caption>OCS combat table (two dice): find the odds '
            f'column on the terrain row, then read down to the modified roll</caption>'
            f"<thead>{head}</thead><tbody>{body}</tbody></table>")


def surprise_table_html() -> str:
    """The surprise thresholds for regular attacks and overruns."""
    rows = "".join(
        f'<tr><th scope="row">{esc(kind.value.capitalize())}</th>'
        f"<td>{SURPRISE_THRESHOLDS[kind].attacker_at_least} or more</td>"
        f"<td>{SURPRISE_THRESHOLDS[kind].defender_at_most} or less</td></tr>"
        for kind in (AttackKind.REGULAR, AttackKind.OVERRUN))
    return ('<table class="chart ocs-surprise"><caption>Surprise: two dice plus the action-rating '
            "differential</caption><thead><tr><th scope=\"col\">Attack</th>"
            '<th scope="col">Attacker surprise</th><th scope="col">Defender surprise</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def results_key_html() -> str:
    """The codes of a result cell and the four numbered notes."""
    rows = "".join(f'<tr><th scope="row"><code>{esc(code)}</code></th><td>{esc(text)}</td></tr>'
                   for code, text in RESULTS_KEY)
    notes = "".join(f'<tr><th scope="row">Note {n}</th><td>{esc(text)}</td></tr>' for n, text in NOTES.items())
    return ('<table class="chart ocs-results-key"><caption>Reading a combat result</caption>'
            '<thead><tr><th scope="col">Code</th><th scope="col">Meaning</th></tr></thead>'
            f"<tbody>{rows}{notes}</tbody></table>")


register_exhibit("ocs.combat_table", combat_table_html)
register_exhibit("ocs.surprise_table", surprise_table_html)
register_exhibit("ocs.results_key", results_key_html)
