"""Small General pages: meta lines, widget and exhibit blocks, and in-page example links.

A cheap guard until the site build's own tests render every page: every
block's base inputs and named examples, and every ``?instance.path=value``
link in the prose, must load with no rejected part.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote

import pytest

from conftest import page_meta as meta
from conftest import page_widget_blocks as blocks

import build
from engine import scenarios, widgets
from engine.small_general import COMBAT, DEFENDER_CHOICE, EXPERIENCE
from engine.small_general.exhibits import EXHIBITS

PAGES = sorted((Path(__file__).resolve().parents[1] / "site" / "content" / "small-general").glob("*.md"))
OURS = {w.id: w for w in (COMBAT, DEFENDER_CHOICE, EXPERIENCE)}

LINK = re.compile(r"\]\((\?[^)#]*)#([a-z][a-z0-9-]*)\)")


def test_pages_exist_with_meta() -> None:
    assert [p.name for p in PAGES] == ["01-combat-table.md", "02-defenders-and-retreats.md", "03-experience.md"]
    for p in PAGES:
        m = meta(p)
        assert set(m) == {"title", "system", "summary"}, p.name
        assert m["system"] == "Small General"
        assert p.read_text(encoding="utf-8").split("\n")[len(m)] == ""


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_widget_blocks_and_examples_validate(page: Path) -> None:
    instances = set()
    found = blocks(page)
    assert any(kind == "widget" for kind, *_ in found)
    for kind, ident, instance, pairs, examples in found:
        if kind == "exhibit":
            assert ident in EXHIBITS and not pairs and not examples
            continue
        assert instance and instance not in instances
        instances.add(instance)
        w = OURS[ident]
        base, rejected = w.from_link(pairs)
        assert not rejected, (instance, [str(e) for e in rejected])
        w.run(base)
        for title, ex in examples:
            values, rejected = w.from_link(ex, base)
            assert not rejected, (instance, title, [str(e) for e in rejected])
            assert values != base, (instance, title, "the example changes nothing")
            w.run(values)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_in_prose_load_a_widget_state(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    widgets_on_page = {inst: (ident, pairs) for kind, ident, inst, pairs, _ in blocks(page) if kind == "widget"}
    for query, anchor in LINK.findall(text):
        assert anchor in widgets_on_page, anchor
        ident, pairs = widgets_on_page[anchor]
        w = OURS[ident]
        base, _ = w.from_link(pairs)
        params = {}
        for key, value in parse_qsl(query[1:], keep_blank_values=True):
            instance, _, path = key.partition(".")
            assert instance == anchor, key
            params[path] = unquote(value)
        values, rejected = w.from_link(params, base)
        assert params and not rejected and values != base, (query, [str(e) for e in rejected])


def test_every_assumed_setting_is_explained_in_the_pages() -> None:
    prose = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    for w in OURS.values():
        for path, _ in w.inputs.assumed_fields():
            name = path.rsplit(".", 1)[-1]
            assert f"`{name}`" in prose, f"setting {name} of {w.id} is not named in any assumed note"
    assert prose.count('!!! assumed "') >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_point_of_a_sweep_is_a_possible_combat(page: Path) -> None:
    """A chart plots only combinations the widget accepts (six sides attacked leave no free hex)."""
    swept = 0
    for kind, ident, _, title, pairs, _ in build.page_blocks(page.read_text(encoding="utf-8"), page.name):
        if kind != "sweep":
            continue
        w = OURS[ident]
        spec = {k: pairs.pop(k) for k in build.SWEEP_KEYS if k in pairs}
        base, rejected = w.from_link(pairs)
        assert not rejected, (title, [str(e) for e in rejected])
        vary: dict[str, Any] = {k: spec[k] for k in ("from", "to", "step") if k in spec}
        if "values" in spec:
            vary["values"] = json.loads(spec["values"])
        answer = scenarios.sweep(w.id, base, {"input": spec["vary"], **vary}, figures=["no_result"])
        assert [p["label"] for p in answer["points"] if "error" in p] == [], title
        swept += 1
    assert swept or "::: sweep" not in page.read_text(encoding="utf-8")


def test_every_exhibit_is_placed() -> None:
    placed = {ident for p in PAGES for kind, ident, *_ in blocks(p) if kind == "exhibit"}
    assert placed == set(EXHIBITS)


def test_registry_knows_our_widgets() -> None:
    for widget_id, w in OURS.items():
        assert widgets.get(widget_id) is w
