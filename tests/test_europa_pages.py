"""Europa armour-effects pages: meta lines, blocks, and every worked example's result.

Until the site build's own tests render every page, this parses the
widget blocks the way the build does and checks that every base state and
every ``::: example`` loads with no rejected part. It also runs each of the
rule's worked examples as placed on the pages and checks its numbers, so a
page cannot drift from the rule it teaches.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from conftest import page_meta as meta
from conftest import page_widget_blocks as blocks

import build
from engine import widgets
from engine.europa.exhibits import EXHIBITS

PAGES_DIR = Path(__file__).resolve().parents[1] / "site" / "content" / "europa"
PAGES = sorted(PAGES_DIR.glob("*.md"))
SYSTEM = "Europa armour and anti-tank effects"


def all_examples() -> dict[str, tuple[str, dict[str, Any]]]:
    """Every example on every page: title → (widget id, validated inputs)."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for page in PAGES:
        for kind, ident, _, pairs, examples in blocks(page):
            if kind != "widget":
                continue
            w = widgets.get(ident)
            base, rejected = w.from_link(pairs)
            assert not rejected
            for title, ex in examples:
                values, rejected = w.from_link(ex, base)
                assert not rejected, [str(e) for e in rejected]
                assert title not in out, f"example title {title!r} is used twice"
                out[title] = (ident, values)
    return out


def test_pages_exist_with_meta() -> None:
    assert [p.name for p in PAGES] == ["01-categories-and-values.md", "02-conversions-and-totals.md",
                                       "03-ratios-terrain-weather.md", "04-required-losses.md",
                                       "05-heavy-armour.md"]
    for p in PAGES:
        m = meta(p)
        assert set(m) == {"title", "system", "summary"}, p.name
        assert m["system"] == SYSTEM
        assert p.read_text(encoding="utf-8").split("\n")[len(m)] == ""


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_blocks_and_examples_validate(page: Path) -> None:
    found = blocks(page)
    assert found, f"{page.name} places no widget or exhibit"
    instances = [inst for kind, _, inst, _, _ in found if kind == "widget"]
    assert len(instances) == len(set(instances))
    for kind, ident, instance, pairs, examples in found:
        if kind == "exhibit":
            assert ident in EXHIBITS
            assert not pairs and not examples
            continue
        assert instance.startswith("eu-")
        w = widgets.get(ident)
        base, rejected = w.from_link(pairs)
        assert not rejected, [str(e) for e in rejected]
        assert w.link_state(base), f"#{instance} should differ from the widget defaults or drop its lines"
        w.render(w.run(base))
        for title, ex in examples:
            values, rejected = w.from_link(ex, base)
            assert not rejected, (title, [str(e) for e in rejected])
            assert w.link_state(values, base), f"example {title!r} is the same as its base state"
            w.render(w.run(values))


def test_every_exhibit_is_placed() -> None:
    placed = {ident for p in PAGES for kind, ident, *_ in blocks(p) if kind == "exhibit"}
    assert placed == set(EXHIBITS)


def test_assumed_settings_are_explained_in_prose() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    settings = widgets.get("europa.aec").inputs.field("settings")
    for f in settings.fields:  # type: ignore[attr-defined]
        assert f.assumed
        assert f"settings.{f.name}" in text, f"no assumed admonition names settings.{f.name}"
    assert text.count('!!! assumed "') >= 10


# The rule's worked examples as the pages hold them --------------------------------------------

RULE_EXAMPLES: dict[str, dict[str, Any]] = {
    "Rule example: a Soviet tank corps is 3 REs of AECA": {"aeca": "3"},
    "Rule example: a 1941 assault gun brigade is 1 RE of AECD": {"aecd": "1"},
    "Rule example: a panzer grenadier division is 2 REs of AECD": {"aecd": "2"},
    "Rule example: a tank brigade converts a motorized regiment": {"aeca": "2"},
    "Rule example: a 16-10 panzer division with a 6-10 motorized division": {"aeca": "8"},
    "Rule example: an anti-tank regiment with a motorized division": {"atec": "2"},
    "Rule example: a tank corps with a motorized division": {"atec": "4"},
    "Rule example: three tank brigades with a 4-8 motorized division": {"atec": "6"},
    "Rule example: both units across a minor river": {"aeca": "2"},
    "Rule example: only the tank division across the river": {"aeca": "2"},
    "Rule example: a forest hex behind a minor river": {"aeca": "3/4", "aecd": "1/2", "atec": "1"},
    "Rule example: 12 REs of AECA against 4 of ATEC, 8 points lost": {"aeca": "12", "atec": "4"},
    "Rule example: an anti-tank brigade in a forest": {"atec": "1"},
    "Rule example: Soviet heavy tanks attack a woods hex": {},
    "Rule example: 5.1 to 1 gives +3 or +4": {},
}


def test_every_rule_example_is_on_a_page_once() -> None:
    titles = {t for t in all_examples() if t.startswith("Rule example:")}
    assert titles == set(RULE_EXAMPLES)


@pytest.mark.parametrize("title", sorted(RULE_EXAMPLES))
def test_rule_example_totals(title: str) -> None:
    ident, values = all_examples()[title]
    result = widgets.get(ident).run(values)
    for key, expected in RULE_EXAMPLES[title].items():
        assert result[key] == expected, key
    assert sum(Fraction(o["p"]) for o in result["modifier"]["outcomes"]) == 1


def test_page_examples_specific_findings() -> None:
    ex = all_examples()
    aec = widgets.get("europa.aec")
    pzg = aec.run(ex["Rule example: a panzer grenadier division is 2 REs of AECD"][1])
    assert "D1: 1 RE left neutral (no conversion capacity remains)." in pzg["trace"]["aecd"]
    div = aec.run(ex["Rule example: three tank brigades with a 4-8 motorized division"][1])
    assert [u["atec"] for u in div["units"] if u["side"] == "defender"] == ["1", "1", "1", "3"]
    # the brigades convert all three REs and the intrinsic half RE does not fit (setting intrinsic_atec)
    assert div["intrinsic_atec"] == "0"
    assert div["conversions"]["atec"] == [f"D{i} converts 1 RE of D4: +1 RE of ATEC." for i in (1, 2, 3)]
    twelve = aec.run(ex["Rule example: 12 REs of AECA against 4 of ATEC, 8 points lost"][1])
    assert twelve["required_losses"]["attacker"]["required"] == 4
    assert "The other 4 lost points may come from any units." in twelve["trace"]["losses"]
    forest = aec.run(ex["Rule example: an anti-tank brigade in a forest"][1])
    assert forest["required_losses"]["attacker"]["required"] == 2
    heavy = aec.run(ex["Rule example: Soviet heavy tanks attack a woods hex"][1])
    assert heavy["heavy"]["attack"]["heavy_armour"] == 4
    assert heavy["heavy"]["attack"]["opposing_heavy_atec"] == 2
    assert [(o["result"], o["p"]) for o in heavy["heavy"]["attack"]["outcomes"]] == [("+1", "1")]
    ratio = widgets.get("europa.ratio").run(ex["Rule example: 5.1 to 1 gives +3 or +4"][1])
    assert [(o["result"], o["p"]) for o in ratio["modifier"]["outcomes"]] == [("+3", "1/2"), ("+4", "1/2")]


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.index("\n#", start + len(heading))
    return text[start:end]


def test_growing_the_armour_prose_matches_its_chart() -> None:
    """The 'Growing the armour' paragraph describes the stacks the sweep below it actually builds:
    no intrinsic ATEC unless the block gives one, the ATEC it states, and where the modifier steps up."""
    page = PAGES_DIR / "03-ratios-terrain-weather.md"
    text = page.read_text(encoding="utf-8")
    prose = " ".join(_section(text, "### Growing the armour").split("::: sweep")[0].split())
    (block,) = [b for b in build.page_blocks(text, page.name) if b[0] == "sweep"]
    pairs = block[4]
    defenders = json.loads(pairs["defender.units"])
    has_intrinsic = any(Fraction(str(u.get("intrinsic_atec", 0))) > 0 for u in defenders)
    mentions_intrinsic = re.search(r"(?<!no )intrinsic ATEC", prose) is not None
    assert mentions_intrinsic == has_intrinsic, "prose and chart disagree about intrinsic ATEC"

    stated_atec = re.search(r"(\d+) REs? of ATEC", prose)
    assert stated_atec, "the paragraph states the defender's ATEC"
    w = widgets.get("europa.aec")
    attackers = json.loads(pairs["attacker.units"])
    for size in json.loads(pairs["values"]):
        attackers[0]["re_size"] = size
        r = w.run({"attacker": {"units": attackers}, "defender": {"units": defenders}})
        atec = Fraction(r["atec"])
        assert atec == Fraction(stated_atec.group(1))
        ratio = Fraction(r["aeca"]) / atec
        expected = 2 if ratio >= 3 else 1 if ratio >= 2 else 0
        assert Fraction(r["modifier"]["mean"]) == expected, size


def test_heavy_example_correction_is_in_an_assumed_box() -> None:
    """The source's heavy-armour example counts three qualifying attackers (two divisions and one brigade) against
    two heavy ATEC and calls it twice as many; its rule counts every qualifying unit, which makes four. The page
    follows the rule and must say so in an assumed box: what the example prints, what the rule gives, which wins."""
    text = (PAGES_DIR / "05-heavy-armour.md").read_text(encoding="utf-8")
    box = re.search(r'^!!! assumed "The example\'s three heavy tank units"\n((?:    .*\n)+)', text, re.M)
    assert box, "no assumed box for the example's count"
    body = " ".join(box.group(1).split())
    for words in ("two heavy tank brigades", "three qualifying attackers against two heavy ATEC",
                  "gives four against two", "We follow the rule and count four", "No setting offers three"):
        assert words in body, words
    # the correction lives in the box, not in the section's prose
    section = text.split("## The rule's example", 1)[1].split("\n## ", 1)[0]
    prose = " ".join(line for line in section.splitlines() if not line.startswith(("!!!", "    ")))
    assert "three" not in prose.lower()
    # the force holds two heavy tank brigades, and the widget counts the four units the box says
    ex = all_examples()["Rule example: Soviet heavy tanks attack a woods hex"][1]
    heavy = [u for u in ex["attacker"]["units"] if u.get("heavy") == "heavy_armour"]
    assert sorted(u["formation"] for u in heavy) == ["brigade", "brigade", "division", "division"]
    result = widgets.get("europa.aec").run(ex)
    assert result["heavy"]["attack"]["heavy_armour"] == 4
    assert result["heavy"]["attack"]["opposing_heavy_atec"] == 2


def test_armour_table_box_describes_how_the_default_table_grows() -> None:
    """The assumed box on page 03 says how our default armour table climbs from 1:1 to its top row; the
    words must fit the table: a whole point per step of ratio to 3:1, then a half or a whole point per step
    to +4 from 6:1 on (it once said 'about one half per step', which fits no part of the table)."""
    from engine.europa.tables import ARMOUR_TABLE

    text = (PAGES_DIR / "03-ratios-terrain-weather.md").read_text(encoding="utf-8")
    box = re.search(r'^!!! assumed "The armour effects table"\n((?:    .*\n)+)', text, re.M)
    assert box, "no assumed box for the armour effects table"
    body = " ".join(box.group(1).split())
    assert "rises by a whole point at each step of ratio up to 3:1" in body
    assert "then by a half or a whole point at each step to +4 from 6:1 on" in body
    assert "about one half per step" not in body

    def mean(k: int) -> Fraction:
        row = ARMOUR_TABLE.row_for(Fraction(k))
        assert row is not None
        return row.dist().mean()

    steps = [mean(k + 1) - mean(k) for k in range(1, 6)]
    assert steps[:2] == [1, 1]
    assert set(steps[2:]) <= {Fraction(1, 2), Fraction(1)}
    assert mean(6) == 4 and ARMOUR_TABLE.rows[-1].min_ratio == 6
