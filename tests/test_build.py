"""The site build, end to end on a small fixture site and on the real content."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from html import unescape
from pathlib import Path

import pytest

import build
from engine import scenarios, sensitivity, widgets
from engine.schema import jsonable

from fixtures.demo_widget import ensure_registered

FIXTURE = Path(__file__).parent / "fixtures" / "site"


@pytest.fixture(scope="module")
def demo():
    return ensure_registered()


@pytest.fixture(scope="module")
def fixture_site(demo, tmp_path_factory):
    out = tmp_path_factory.mktemp("fixture_site")
    config = build.Config(content=FIXTURE / "content", output=out, runtime=False)
    files = build.build(config)
    return out, files


def read(out: Path, path: str) -> str:
    return (out / path).read_text(encoding="utf-8")


def widget_section(html: str, instance: str) -> str:
    start = html.index(f'<section class="widget" id="{instance}"')
    return html[start:html.index("</section>\n", start)]


def test_outputs_every_page_and_static_file(fixture_site):
    out, files = fixture_site
    assert {"index.html", "demo/dice.html", "demo/more.html", "static/site.css",
            "static/widgets.js", "static/engine-client.js", "static/forms.js", "static/links.js",
            "static/calculator.js", "static/navigation.js", "static/engine-worker.js",
            "static/engine-boot.js"} <= set(files)
    assert (out / "demo" / "dice.html").exists()


def test_home_lists_systems_and_pages(fixture_site):
    out, _ = fixture_site
    home = read(out, "index.html")
    assert '<a href="demo/dice.html">Demo</a>' in home
    assert '<a href="demo/more.html">More dice</a>' in home
    assert "Totals of a few dice." in home


def test_prerendered_result_is_the_engines(fixture_site, demo):
    out, _ = fixture_site
    html = read(out, "demo/dice.html")
    section = widget_section(html, "dice")
    base = demo.validate({"count": 3})
    assert demo.render(demo.run(base)) in section
    base_json = re.search(r'<script type="application/json" class="widget-base">(.*?)</script>', section).group(1)
    assert json.loads(base_json) == jsonable(base)


def test_form_reflects_base_inputs(fixture_site):
    out, _ = fixture_site
    section = widget_section(read(out, "demo/dice.html"), "dice")
    assert re.search(r'<input type="text" inputmode="numeric"[^>]*id="dice--count" name="count" value="3"', section)
    assert '<option value="6" selected>d6</option>' in section
    assert 'id="dice--extras-0-value" name="extras.0.value" value="1"' in section
    assert "<template>" in section and 'name="extras.__i__.value"' in section
    assert 'class="assumed-note"' in section  # the assumed setting says so in the form


def test_examples_are_links_with_prerendered_results(fixture_site, demo):
    out, _ = fixture_site
    section = widget_section(read(out, "demo/dice.html"), "dice")
    link = re.search(r'<a href="([^"]+)" data-example="[^"]*">Two d10</a>', section).group(1)
    assert unescape(link) == "?dice.count=2&dice.sides=10#dice"
    result = demo.render(demo.run({"count": 2, "sides": "10"}))
    if len(result) <= build.PART_OVER:
        assert result in section
    else:  # a part of its own, linked where the result would be (and shown there when opened)
        href = re.search(r'<a href="([^"]+)" data-part-src>The result of “Two d10”', section).group(1)
        assert result in read(out, str((Path("demo") / href).as_posix()).replace("demo/../", ""))


def test_widget_block_title(fixture_site):
    out, _ = fixture_site
    assert '<h3 id="again-title">Dice totals</h3>' in read(out, "demo/more.html")
    assert '<h3 id="dice-title">Three dice</h3>' in read(out, "demo/dice.html")


def test_toc_pager_and_assumed_admonition(fixture_site):
    out, _ = fixture_site
    html = read(out, "demo/dice.html")
    assert '<a href="#totals">Totals</a>' in html and '<a href="#second-section">Second section</a>' in html
    assert 'rel="next" href="../demo/more.html"' in html
    assert '<div class="admonition assumed">' in html
    assert 'src="../static/widgets.js"' not in html  # no runtime in this build, so no script


def write_page(tmp_path: Path, body: str) -> build.Config:
    content = tmp_path / "content"
    (content / "demo").mkdir(parents=True)
    (content / "index.md").write_text("title: Home\n\nHello.\n")
    (content / "demo" / "01-x.md").write_text("title: X\nsystem: Demo\n\n" + body)
    return build.Config(content=content, output=tmp_path / "out", runtime=False)


@pytest.mark.parametrize("body, message", [
    ("::: widget demo.nope #a\n:::\n", "no widget named 'demo.nope'"),
    ("::: widget demo.dice #a\ncount: 9\n:::\n", "#a: count: 9 is out of range"),
    ("::: widget demo.dice #a\nsides: 10\ncount: 4\n:::\n", "4d10 is not offered"),
    ("::: widget demo.dice #a\nwho: 1\n:::\n", "#a: who: no input of this widget has that name"),
    ("::: widget demo.dice\n:::\n", "needs an instance id"),
    ("::: widget demo.dice #a\n:::\n\n::: widget demo.dice #a\n:::\n", "#a is used twice"),
    ("::: widget demo.dice #a\n:::\n\n::: widget demo.dice #b\n:::\n", "give #b its own title"),
    ("::: widget demo.dice #a\ncount 3\n:::\n", "write 'path: value'"),
    ("::: widget demo.dice #a\ncount: 3\n", "has no closing"),
    ("::: exhibit demo.nothing\n:::\n", "no exhibit named"),
    ("::: widget demo.dice #a\n::: example Bad\ncount: 0\n:::\n", "example 'Bad': count: 0 is out of range"),
    ("::: sweep demo.dice\nvary: count\n:::\n", "a sweep needs a caption"),
    ("::: sweep demo.dice #a Dice\nvary: count\n:::\n", "a sweep takes no #instance"),
    ("::: sweep demo.dice Dice\nfrom: 1\n:::\n", "sweep 'Dice': name the input to vary"),
    ("::: sweep small_general.combat Sides\nvary: nope\n:::\n", "sweep 'Sides': input: "),
    ("::: sweep demo.dice Dice\nvary: count\nvalues: 1, 2\n:::\n", "values must be a JSON list"),
    ("::: sweep small_general.combat Sides\nvary: hex_sides\nvalues: [1, 9]\n:::\n", "sweep 'Sides': hex_sides: 9 is out of range"),
    ("::: sweep small_general.combat Sides\nvary: hex_sides\ntrials: 40\n:::\n", "is exact; it takes no trials"),
    ("::: sensitivity small_general.combat Which\nfigure: nope\n:::\n", "sensitivity 'Which': figure: "),
    ("::: sensitivity small_general.combat\n:::\n", "a sensitivity block needs a caption"),
    ("::: sweep demo.dice Dice\nvary: count\nfrom: 1\nto: 2\ntrials: many\n:::\n", "trials and seed are whole"),
])
def test_source_errors_name_the_problem(demo, tmp_path, body, message):
    with pytest.raises(build.BuildError, match=re.escape(message)):
        build.build(write_page(tmp_path, body))


def test_page_without_system_line_is_rejected(tmp_path):
    config = write_page(tmp_path, "Text\n")
    (config.content / "demo" / "02-y.md").write_text("title: Y\n\nNo system line.\n")
    with pytest.raises(build.BuildError, match="needs a 'system:' line"):
        build.build(config)


def test_real_site_pages_build(real_build):
    """Every page of the real site renders, with every widget and example valid."""
    _, files = real_build
    pages = [p for p in files if p.endswith(".html")]
    assert "index.html" in pages
    for system_module in widgets.SYSTEM_MODULES:
        slug = system_module.split(".")[1].replace("_", "-")
        assert any(p.startswith(slug + "/") for p in pages), f"no pages for {system_module}"
    assert build.broken_links(files) == [] and "sgs/battle-sequence-and-morale.html" in files


def test_glossary_terms_match_whole_words_and_abbreviations_exactly():
    page = build.Page(Path("glossary.md"), "", "glossary", {}, "Action rating (AR)\n:   Quality.\n\nBattle morale\n:   Staying power.\n")
    terms = build.glossary_terms(page)
    assert [t.anchor for t in terms] == ["term-action-rating", "term-battle-morale"]
    ar, bm = (t.pattern for t in terms)
    assert ar.search("the Action Rating of") and ar.search("its AR is 3")
    assert not ar.search("an ar is") and not ar.search("ARMOUR") and not ar.search("AR-based")
    assert bm.search("when battle\nmorale falls") and not bm.search("battle moraless")


@pytest.fixture(scope="module")
def real_build(built_site):
    """The real site as built for the browser tests (one build a run), with its files as written."""
    return built_site, {p.relative_to(built_site).as_posix(): p.read_bytes() for p in built_site.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def real_site(real_build):
    return real_build[0]


def test_every_system_teaches_with_a_prerendered_sweep_that_is_the_engines(real_site):
    """Each system's pages carry at least one teaching chart (::: sweep): its SVG and data table are in the
    page as built, and they are what the engine's sweep gives for the inputs and range the block states."""
    taught = set()
    for page in build.collect_pages(build.Config()):
        html = read(real_site, page.url) if page.system_slug else ""
        for kind, widget_id, _, caption, pairs, _ in build.page_blocks(page.text, str(page.source)):
            if kind != "sweep":
                continue
            spec = {k: pairs.pop(k) for k in build.SWEEP_KEYS if k in pairs}
            vary = {"input": spec["vary"], **{k: spec[k] for k in ("from", "to", "step") if k in spec}}
            if "values" in spec:
                vary["values"] = json.loads(spec["values"])
            w = widgets.get(widget_id)
            inputs, rejected = w.from_link(pairs)
            assert rejected == []
            kw = {"trials": int(spec["trials"]), "seed": int(spec.get("seed", 1))} if w.trial else {}
            answer = scenarios.sweep(widget_id, inputs, vary, render=True,
                                     figures=[f.strip() for f in spec["figures"].split(",")], **kw)
            assert answer["html"] in html, (page.url, caption)
            assert answer["html"].count('<svg class="chart"') == answer["html"].count('<table class="chart-data">') >= 1
            taught.add(page.system_slug)
    assert taught == {p.system_slug for p in build.collect_pages(build.Config()) if p.system_slug}


def test_sensitivity_blocks_and_calculator_notes_are_the_engines(real_site):
    """A '::: sensitivity' block is the engine's answer for its inputs; a calculator whose headline an assumed
    setting moves far carries the sentence under its result, with a link to the setting's control."""
    blocks = 0
    for page in build.collect_pages(build.Config()):
        html = read(real_site, page.url) if page.system_slug else ""
        for kind, widget_id, _, caption, pairs, _ in build.page_blocks(page.text, str(page.source)):
            if kind != "sensitivity":
                continue
            spec = {k: pairs.pop(k) for k in ("figure", "trials", "seed") if k in pairs}
            w = widgets.get(widget_id)
            inputs, _ = w.from_link(pairs)
            kw = {"trials": int(spec["trials"]), "seed": int(spec.get("seed", 1))} if w.trial else {}
            assert sensitivity.sensitivity(widget_id, inputs, render=True, **kw)["html"] in html, caption
            blocks += 1
    assert blocks >= 2
    page = read(real_site, "small-general/defenders-and-retreats.html")
    section = widget_section(page, "sg-retreat")
    answer = sensitivity.sensitivity("small_general.combat", {"retreat_hexes": 2})
    note = re.search(r'<p class="sensitivity-note">(.*?)</p>', section, re.S).group(1)
    assert note.startswith(answer["sentence"] + ' <a class="setting-link" href="#')
    assert 'data-setting="settings.retreat_direction"' in note
    # The link leads to the setting's control, or (the settings being a part of the page) to the part's
    # placeholder on the page: either way an anchor the page has (the build checks every link too).
    target = re.search(r'href="#([^"]+)"', note).group(1)
    assert f'id="{target}"' in section and target in ("sg-retreat--settings-retreat_direction", "sg-retreat--settings-part")
    assert '<p class="sensitivity-note" hidden></p>' in widget_section(page, "sg-defender")


def test_prerendered_run_groups_thousands(real_site):
    assert "1,000 of 1,000 trials, pre-rendered at build time" in read(real_site, "atg/the-combat-loop.html")


def test_glossary_anchors_and_first_use_links(real_site):
    glossary = read(real_site, "glossary.html")
    assert '<dt id="term-action-rating">Action rating (AR)</dt>' in glossary
    page = read(real_site, "ocs/action-ratings-and-surprise.html")
    links = re.findall(r'<a class="term" href="\.\./glossary\.html#(term-[a-z-]+)">', page)
    assert "term-action-rating" in links and "term-hedgehog" in links
    assert len(links) == len(set(links))  # the first use only
    for anchor in links:
        assert f'id="{anchor}"' in glossary
    assert not re.search(r'<h[1-6][^>]*>[^<]*<a class="term"', page)  # headings stay unlinked
    assert 'class="term"' not in widget_section(page, re.search(r'<section class="widget" id="([^"]+)"', page).group(1))


def test_search_index_covers_sections_and_widgets(real_site):
    index = json.loads(read(real_site, "search-index.json"))
    urls = {e["url"] for e in index}
    assert any(e["kind"] == "widget" and e["url"] == "small-general/combat-table.html#sg-combat" for e in index)
    surprise = [e for e in index if e["kind"] == "section" and e["heading"].startswith("Surprise")]
    assert surprise and "two dice" in surprise[0]["text"]
    for page in build.collect_pages(build.Config()):
        assert any(u.split("#")[0] == page.url for u in urls), page.url
    assert not any(re.search(r"<[a-z/!]", e["text"]) for e in index)  # text only, no markup
    assert "Search the rules" in read(real_site, "search.html")


class _TableParents(HTMLParser):
    """For each table outside a widget: the element it sits in, with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.tables: list[dict[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        in_widget = any(t == "section" and "widget" in (x.get("class") or "").split() for t, x in self.stack)
        if tag == "table" and not in_widget:
            self.tables.append(self.stack[-1][1] if self.stack else {})
        if tag not in ("br", "img", "input", "meta", "link", "hr", "col", "wbr"):
            self.stack.append((tag, a))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break


@pytest.mark.parametrize("url", ["ocs/combat-table-and-odds.html", "small-general/combat-table.html",
                                 "europa/categories-and-values.html"])
def test_wide_tables_scroll_in_named_regions(real_site, url):
    parser = _TableParents()
    parser.feed(read(real_site, url))
    assert parser.tables, url
    for parent in parser.tables:
        assert parent.get("class") == "table-wrap" and parent.get("role") == "region" and parent.get("tabindex") == "0"
        assert parent.get("aria-label")
    names = [t["aria-label"] for t in parser.tables]
    assert len(set(names)) == len(names)  # each region has its own name


def test_no_page_names_two_regions_alike(real_site):
    """A region is a landmark: axe's landmark-unique wants each named apart (two battles on one AT Gold page
    once carried two estimate checks whose tables were regions of one name)."""
    pages = sorted(real_site.rglob("*.html"))
    assert len(pages) > 50
    for page in pages:
        names = re.findall(r'role="region"[^>]*aria-label="([^"]*)"', page.read_text(encoding="utf-8"))
        repeated = sorted({n for n in names if names.count(n) > 1})
        assert not repeated, (page.relative_to(real_site).as_posix(), repeated)


def test_home_counts_the_systems_it_has(fixture_site, real_site):
    out, _ = fixture_site
    assert re.search(r'<p class="system-count">One system so far:\s*Demo\.</p>', read(out, "index.html"))
    home = read(real_site, "index.html")
    names = [p.system for p in build.collect_pages(build.Config()) if p.system_slug]
    systems = list(dict.fromkeys(names))
    listed = ", ".join(systems[:-1]) + f" and {systems[-1]}"
    count = build.number_word(len(systems)).capitalize()
    assert f"{count} systems so far: {listed}." in " ".join(unescape(home).split())
    others = [build.number_word(n) for n in range(2, 11) if n != len(systems)]
    assert not re.search(rf"\b({'|'.join(others)}) (combat )?systems\b", unescape(home), re.I)


def test_glossary_keeps_only_systems_with_pages(real_site):
    glossary = read(real_site, "glossary.html")
    assert 'id="term-step"' in glossary and 'id="term-regimental-equivalent"' in glossary
    built = {p.system_slug for p in build.collect_pages(build.Config()) if p.system_slug}
    sections = {"atg": ("Advanced Tactics Gold", "Readiness"), "sgs": ("Strategy Game Studio battles", "Battle morale")}
    for folder, words in sections.items():
        for word in words:
            assert (word in glossary) == (folder in built), (folder, word)
    assert "five systems" not in glossary
    text = "## A\nx\n## B {: data-system=\"demo\" }\ny\n## C {: data-system=\"later\" }\nz\n"
    assert build.keep_built_systems(text, {"demo"}) == "## A\nx\n## B {: data-system=\"demo\" }\ny"


def test_a_broken_link_or_anchor_fails_the_build(demo, tmp_path):
    """Issue 20: a page linked to one that does not exist. The build checks every internal link and anchor."""
    import shutil
    content = tmp_path / "content"
    shutil.copytree(FIXTURE / "content", content)
    page = next((content / "demo").glob("*.md"))
    page.write_text(page.read_text(encoding="utf-8") + "\n\nSee [the table](no-such-page.html) and "
                    "[a section](more.html#nowhere).\n", encoding="utf-8")
    with pytest.raises(build.BuildError) as e:
        build.build(build.Config(content=content, output=tmp_path / "out", runtime=False))
    assert "no-such-page.html (no such file)" in str(e.value)
    assert "more.html#nowhere (no such anchor on demo/more.html)" in str(e.value)
    assert not (tmp_path / "out").exists()


def test_broken_links_resolves_relative_paths_and_anchors():
    files = {"index.html": b"", "a.html": b'<a href="b.html#x">b</a><a href="#top">t</a><a href="https://x.org/">off</a>',
             "b.html": b'<h2 id="x">X</h2><a href="s/c.html?w.k=1#w">c</a>', "s/c.html": b'<section id="w">',
             "s/d.html": b'<a href="../a.html">a</a><a href="../../e.html">e</a><script src="../s/c.js"></script>'}
    assert build.broken_links(files) == ["a.html: #top (no such anchor on a.html)",
                                         "s/d.html: ../../e.html (outside the site)",
                                         "s/d.html: ../s/c.js (no such file)"]


# Page weight (issue 23, "Phone-sized"): heavy form elements and outputs are parts of their own.

BATTLE_PAGE, BATTLE = "atg/steps-and-targets.html", "atg-overstack-battle"


def test_every_page_is_within_the_first_paint_budget(real_site):
    """Every page and embed page weighs at most build.PAGE_BUDGET bytes of HTML (parts load later)."""
    pages = {p.relative_to(real_site).as_posix(): p.stat().st_size for p in real_site.rglob("*.html")}
    assert any(p.startswith("parts/") for p in pages) and any(p.startswith("embed/") for p in pages)
    heavy = {p: size for p, size in pages.items() if not p.startswith("parts/") and size > build.PAGE_BUDGET}
    assert heavy == {}
    assert pages[BATTLE_PAGE] > 100_000  # the measure is the built file's, not something smaller


class _Keyed(HTMLParser):
    """The ``details.part`` placeholders of a page and the ids and values of its controls."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: dict[str, dict[str, str | None]] = {}
        self.links: dict[str, str] = {}
        self.values: dict[str, str | None] = {}
        self._part: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "details" and "part" in (a.get("class") or "").split():
            self._part = a["data-part"] or ""
            self.parts[self._part] = a
        elif tag == "a" and "data-part-src" in a and self._part is not None:
            self.links[self._part] = a["href"] or ""
            self._part = None
        elif tag == "input" and a.get("id"):
            self.values[a["id"] or ""] = a.get("value")


def parse(html: str) -> _Keyed:
    parser = _Keyed()
    parser.feed(html)
    return parser


def test_heavy_form_elements_are_parts_rendered_by_the_same_macros(real_site):
    page = read(real_site, BATTLE_PAGE)
    section = parse(widget_section(page, BATTLE))
    assert {"unit_types", "rules", "attackers", "defenders"} <= set(section.parts)
    assert section.parts["unit_types"]["data-key"] == "unit_types"
    assert "settings" in (section.parts["rules"]["class"] or "").split()  # it keeps the panel's count
    assert not any(i.startswith(f"{BATTLE}--unit_types-") for i in section.values)  # no row on the page
    href = section.links["unit_types"]
    assert href == f"../parts/atg/steps-and-targets/{BATTLE}--unit_types.html"
    part = read(real_site, "atg/" + href)
    assert re.search(r'data-part-body>\s*<fieldset class="list list-table" data-key="unit_types"', part)
    # The part is the form's own rendering of the base inputs: one row per unit type, each value in place.
    base = json.loads(re.search(r'<script type="application/json" class="widget-base">(.*?)</script>',
                                widget_section(page, BATTLE)).group(1))
    shown = parse(part).values
    for k, row in enumerate(base["unit_types"]):
        for name, value in row.items():
            if not isinstance(value, bool) and f"{BATTLE}--unit_types-{k}-{name}" in shown:
                assert unescape(shown[f"{BATTLE}--unit_types-{k}-{name}"] or "") == str(value), (k, name)
    assert f"{BATTLE}--unit_types-{len(base['unit_types'])}-name" not in shown
    assert f'href="../../../{BATTLE_PAGE}#{BATTLE}"' in part  # back to the widget
    # The embed page links to the same file from its own folder.
    embed = parse(read(real_site, f"embed/atg/steps-and-targets/{BATTLE}.html"))
    assert embed.links["unit_types"] == f"../../../parts/atg/steps-and-targets/{BATTLE}--unit_types.html"


def test_heavy_outputs_are_parts_and_light_ones_stay(real_site):
    page = read(real_site, "small-general/combat-table.html")
    assert 'href="../parts/small-general/combat-table/sg-combat--result-example-1.html" data-part-src>' in page
    example = read(real_site, "parts/small-general/combat-table/sg-combat--result-example-1.html")
    assert "data-part-body>" in example and "<form" not in example
    battle = widget_section(read(real_site, BATTLE_PAGE), BATTLE)
    assert f'{BATTLE}--result-sample.html" data-part-src>' in battle  # the battle told round by round
    assert 'class="sim-result"' in battle and "trials, pre-rendered at build time" in battle  # the estimate stays
    assert "details class=\"part" not in widget_section(read(real_site, BATTLE_PAGE), "atg-stacking")  # a light widget: whole


def test_a_part_may_not_sit_inside_a_lists_items():
    assert build.may_be_part("attacker.units") and not build.may_be_part("units.2.types")


@pytest.mark.parametrize("url, instance", [("sgs/panic-rout-and-pursuit.html", "sgs-battle"),
                                           ("atg/end-of-battle.html", None)])
def test_a_seeded_battle_says_how_rare_it_is_among_its_runs_battles(real_site, url, instance):
    """Issue 22: under a battle's seeded sample, the engine's sentence placing it among the pre-rendered run's
    battles (same inputs, seed and trials); calculator.js says it again after each run."""
    from engine import luck
    page = read(real_site, url)
    if instance is None:  # the page's first battle widget
        instance = re.search(r'<section class="widget" id="([^"]+)" data-widget="atg.battle"', page).group(1)
    section = widget_section(page, instance)
    w = widgets.get(re.search(r'data-widget="([^"]+)"', section).group(1))
    base = w.validate(json.loads(re.search(r'<script type="application/json" class="widget-base">(.*?)</script>',
                                           section, re.S).group(1)))
    tally = w.estimate(base, build.DEFAULT_SEED, 0, w.trials).to_json()
    expected = luck.luck(w.id, base, w.roll(base, build.DEFAULT_SEED)["observed"], seed=build.DEFAULT_SEED, count=0,
                         tally=tally)["note"]
    said = re.search(r'<p class="roll-luck">(.*?)</p>', section, re.S).group(1)
    assert unescape(said) == expected
    assert expected.startswith(f"How rare is a battle like this one? Among the run's {w.trials:,} battles: A battle ends “")


def test_a_snapshot_is_made_once_for_the_same_files_and_again_when_one_changes(tmp_path, monkeypatch):
    """Snapshots are not byte-identical from one making to the next, so the build keeps the one it made
    (build.SNAPSHOT_CACHE) by a digest of what it is made from, and makes a new one when any of that changes."""
    cache = tmp_path / "cache"
    monkeypatch.setattr(build, "SNAPSHOT_CACHE", cache)
    package = tmp_path / "pyodide"
    package.mkdir()
    for name in build.PYODIDE_FILES:
        (package / name).write_bytes(name.encode())
    wheel = tmp_path / "engine.whl"
    wheel.write_bytes(b"wheel")
    made: list[int] = []

    def make() -> tuple[bytes, bytes]:
        made.append(len(made) + 1)
        return b"sparse %d" % made[-1], b"packed %d" % made[-1]

    key = build.snapshot_key(package, wheel)
    assert build.cached_snapshot(key, make) == (b"sparse 1", b"packed 1")
    assert build.snapshot_key(package, wheel) == key
    assert build.cached_snapshot(key, make) == (b"sparse 1", b"packed 1") and made == [1]  # kept, not made again
    for changed in (wheel, package / "pyodide.asm.wasm"):
        before = changed.read_bytes()
        changed.write_bytes(before + b"!")
        assert build.snapshot_key(package, wheel) != key, changed.name
        changed.write_bytes(before)
    for n in range(build.SNAPSHOT_CACHE_KEEP + 2):  # only the newest few stay
        build.cached_snapshot(f"other{n}", make)
    kept = sorted(p.name for p in cache.iterdir())
    assert len(kept) == 2 * build.SNAPSHOT_CACHE_KEEP and f"other{build.SNAPSHOT_CACHE_KEEP + 1}.br" in kept
