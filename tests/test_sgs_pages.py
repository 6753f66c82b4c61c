"""Strategy Game Studio battle pages: meta, every widget block and example loads, every assumed setting explained."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import page_meta as meta
from conftest import page_widget_blocks as blocks

from engine import widgets
from engine.sgs.rules import SgsRules
from engine.settings import SETTING_KEY
import dataclasses

PAGES = sorted((Path(__file__).resolve().parents[1] / "site" / "content" / "sgs").glob("*.md"))


def test_pages_exist_with_meta() -> None:
    assert len(PAGES) == 5
    for p in PAGES:
        m = meta(p)
        assert set(m) == {"title", "system", "summary"}, p.name
        assert m["system"] == "Strategy Game Studio battles"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_widget_blocks_and_examples_validate(page: Path) -> None:
    instances = set()
    for kind, ident, instance, pairs, examples in blocks(page):
        assert kind == "widget" and ident.startswith("sgs.")
        assert instance not in instances
        instances.add(instance)
        w = widgets.get(ident)
        base, rejected = w.from_link(pairs)
        assert not rejected, (instance, [str(e) for e in rejected])
        w.render(w.run(base))
        for title, ex in examples:
            values, rejected = w.from_link(ex, base)
            assert not rejected, (instance, title, [str(e) for e in rejected])
            assert values != base, (instance, title)
            w.render(w.run(values))


def test_every_widget_is_placed_once() -> None:
    placed = [ident for p in PAGES for kind, ident, *_ in blocks(p)]
    ours = [i for i in widgets.ids() if i.startswith("sgs.")]
    assert sorted(placed) == sorted(ours)


def test_every_assumed_setting_is_explained_in_the_pages() -> None:
    prose = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    for f in dataclasses.fields(SgsRules):
        if f.metadata[SETTING_KEY]["assumed"]:
            assert f"`{f.name}`" in prose, f.name
