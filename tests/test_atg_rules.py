"""Advanced Tactics Gold rule variables: what each setting's note claims about where its value comes from."""

from __future__ import annotations

import re
from pathlib import Path

from engine.atg.widgets import RULES_GROUP

PAGES = sorted((Path(__file__).resolve().parents[1] / "site" / "content" / "atg").glob("*.md"))
CLAIMS = re.compile(r"later release|known from|is known to|known behaviour|master file|as the game plays", re.I)
"""Wording that would vouch for a value or a behaviour from a source the repository does not hold."""


def test_no_note_or_page_vouches_for_a_source_we_cannot_show():
    notes = {f.name: f.assumed for f in RULES_GROUP.fields if f.assumed}
    assert not {name: note for name, note in notes.items() if CLAIMS.search(note)}
    assert not [p.name for p in PAGES if CLAIMS.search(p.read_text(encoding="utf-8"))]


def test_every_rulevar_s_default_is_marked_as_ours_or_the_page_s():
    """Each setting standing for a numbered rulevar is marked assumed, and its note either says the default is our
    choice or says what the page itself gives (a switch it calls off or on)."""
    named = [f for f in RULES_GROUP.fields if re.search(r"\brulevar \d+", f.help, re.I)]
    assert len(named) > 40
    for f in named:
        assert f.assumed, f.name
        assert "our choice" in f.assumed or f.assumed.startswith("The page says") or "page names rulevar" in \
            f.assumed, (f.name, f.assumed)
