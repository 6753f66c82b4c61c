"""OCS widgets, exhibits and pages: defaults, errors, seeded replays and page blocks."""

from __future__ import annotations

import json
import re
from fractions import Fraction as F
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from engine import api, widgets
from engine.exhibits import exhibit_ids, get_exhibit
from engine.ocs.surprise import AttackKind, surprise_for_total
from engine.ocs.table import RESULT_ROWS, TERRAIN_COLUMNS, Terrain, cell, columns, row_for_total
from engine.schema import InputError

PAGES = Path(__file__).resolve().parents[1] / "site" / "content" / "ocs"
WIDGET_IDS = ("ocs.combat", "ocs.result", "ocs.walkthrough")


def total_p(items: list[dict[str, Any]]) -> F:
    return sum((F(o["p"]) for o in items), F(0))


# Defaults -------------------------------------------------------------------

def test_widgets_are_registered() -> None:
    assert set(WIDGET_IDS) <= set(widgets.ids())


def test_combat_default_run() -> None:
    result = widgets.get("ocs.combat").run({})
    assert result["column"] == "3:1"
    assert result["drm"] == 1
    assert result["p_attacker_surprise"] == {"p": "5/18", "float": 5 / 18}
    assert result["p_defender_surprise"]["p"] == "1/6"
    assert total_p(result["outcomes"]) == 1
    assert total_p(result["final_columns"]) == 1
    assert all(set(o) >= {"result", "p", "float"} for o in result["outcomes"])
    assert result["outcomes"][0]["result"] == "AL2"
    assert result["outcomes"][-1]["result"] == "Ae2 DL2o3DG"
    assert F(result["derived"]["expected_defender_loss"]["exact"]) > 0
    assert {a["setting"] for a in result["assumptions"]} >= {"settings.attacker_options"}
    html = widgets.get("ocs.combat").render(result)
    assert "<script" not in html and "Ao1 DL1o1" in html


def test_combat_required_inputs_as_in_the_issue() -> None:
    result = widgets.get("ocs.combat").run({"attack": 9, "defense": 3, "terrain": "very_close", "attacker_ar": 2,
                                            "defender_ar": 4, "hedgehog": 1, "overrun": False})
    assert result["column"] == "3:1"
    assert result["drm"] == -3
    # differential 2 - (4 + 1) = -3: the attacker would need 13 on two dice; the defender wins on 8 or less
    assert result["p_attacker_surprise"]["p"] == "0"
    assert result["p_defender_surprise"]["p"] == "13/18"
    assert total_p(result["outcomes"]) == 1


def test_units_replace_the_number() -> None:
    w = widgets.get("ocs.combat")
    listed = w.run({"attack": 100, "attack_units": [{"strength": 6}, {"strength": 5, "supply": "out_of_supply"},
                                                    {"strength": 3, "supply": "out_of_supply"}], "defense": 3})
    assert listed["attack"]["total"] == "10"
    assert listed["column"] == "3:1"
    assert any("halved" in line for line in listed["attack"]["working"])
    assert {a["setting"] for a in listed["assumptions"]} >= {"settings.halving", "settings.half_rounding"}
    rounded = w.run({"attack_units": [{"strength": 5, "supply": "out_of_supply"}] * 2, "defense": 1,
                     "settings": {"half_rounding": "up"}})
    assert rounded["attack"]["total"] == "6"


def test_reader_default_run() -> None:
    result = widgets.get("ocs.result").run({})
    assert result["cell"] == "Ao1 e4 DL1o2"
    assert result["printed"] is True
    assert [p["code"] for p in result["parts"]] == ["o1", "e4", "L1", "o2"]
    assert [n["number"] for n in result["notes"]] == [1, 2, 3, 4]
    assert "does not qualify" in result["exploitation"][-1]   # AR 3 against e4
    assert widgets.get("ocs.result").render(result).count("<section") >= 5


@pytest.mark.parametrize(("inputs", "phrase"), [
    ({"cell": "Ae3 DL2o2DG", "overrun": True}, "overrun"),
    ({"cell": "Ae3 DL2o2DG", "attack_hexes": 3}, "three or more"),
    ({"cell": "Ae3 DL2o2DG", "attack_hexes": 2, "adjacent_hexes": False}, "not next to each other"),
    ({"cell": "Ae3 DL2o2DG", "attacker_ar": 3}, "qualifies"),
    ({"cell": "AL2"}, "no e#"),
])
def test_reader_explains_exploitation(inputs: dict[str, Any], phrase: str) -> None:
    assert phrase in " ".join(widgets.get("ocs.result").run(inputs)["exploitation"])


def test_reader_accepts_unprinted_cells_and_says_so() -> None:
    result = widgets.get("ocs.result").run({"cell": "al3"})
    assert result["cell"] == "AL3" and result["printed"] is False
    assert "not printed" in widgets.get("ocs.result").render(result)


def test_reader_choices() -> None:
    result = widgets.get("ocs.result").run({"cell": "Ao1 DL1o1"})
    assert result["choices"]["attacker"][0] == "Pay o1 as: 1 step or 1 hex of retreat."
    assert "skip his o1" in result["choices"]["attacker"][1]
    no_choice = widgets.get("ocs.result").run({"cell": "AL2"})
    assert no_choice["choices"]["attacker"][0].startswith("None")


def test_walkthrough_default_run() -> None:
    result = widgets.get("ocs.walkthrough").run({})
    assert [s["title"] for s in result["steps"]] == [
        "Name the hexes", "Pay supply", "Pick action-rating units", "Initial odds", "Combat modifier",
        "Surprise", "Combat roll", "Carry out the result"]
    assert result["column"] == "3:1"
    assert "<ol" in widgets.get("ocs.walkthrough").render(result)


# Errors ------------------------------------------------------------------

@pytest.mark.parametrize(("widget", "inputs", "field"), [
    ("ocs.combat", {"attack": -1}, "attack"),
    ("ocs.combat", {"attack": 0}, "attack"),
    ("ocs.combat", {"defense": "lots"}, "defense"),
    ("ocs.combat", {"attack_units": [{"strength": 0}]}, "attack_units"),
    ("ocs.combat", {"attack_units": [{"strength": 1, "supply": "out_of_supply"}],
                    "settings": {"half_rounding": "down"}}, "attack_units"),
    ("ocs.combat", {"attack_units": [{"strength": -2}]}, "attack_units.0.strength"),
    ("ocs.combat", {"defense_units": [{"strength": 3, "supply": "low"}]}, "defense_units.0.supply"),
    ("ocs.combat", {"terrain": "swamp"}, "terrain"),
    ("ocs.combat", {"attacker_ar": 6}, "attacker_ar"),
    ("ocs.combat", {"defender_ar": -1}, "defender_ar"),
    ("ocs.combat", {"hedgehog": -1}, "hedgehog"),
    ("ocs.combat", {"attack_hexes": 7}, "attack_hexes"),
    ("ocs.combat", {"overrun": "maybe"}, "overrun"),
    ("ocs.combat", {"settings": {"below_table": "never"}}, "settings.below_table"),
    ("ocs.combat", {"attack": 1, "defense": 9, "settings": {"below_table": "not_allowed"}}, "attack"),
    ("ocs.combat", {"attack_units": [{"strength": 1}], "defense": 9,
                    "settings": {"below_table": "not_allowed"}}, "attack_units"),
    ("ocs.walkthrough", {"attack": 0}, "attack"),
    ("ocs.result", {"cell": "3:1"}, "cell"),
    ("ocs.result", {"cell": ""}, "cell"),
    ("ocs.result", {"cell": 7}, "cell"),
    ("ocs.result", {"cell": "DL1 AL1"}, "cell"),
    ("ocs.result", {"attacker_ar": 9}, "attacker_ar"),
])
def test_invalid_inputs_name_the_field(widget: str, inputs: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as err:
        widgets.get(widget).run(inputs)
    assert err.value.field == field


def test_malformed_cell_says_what_a_cell_looks_like() -> None:
    with pytest.raises(InputError) as err:
        widgets.get("ocs.result").run({"cell": "Zo1"})
    assert "reads like 'Ao1 DL1o1'" in str(err.value)
    assert "AL2" in err.value.allowed


def test_api_reports_errors_as_data() -> None:
    answer = json.loads(api.handle(json.dumps({"op": "run", "widget": "ocs.result", "inputs": {"cell": "nope"}})))
    assert answer["error"]["type"] == "InputError" and answer["error"]["field"] == "cell"
    ok = json.loads(api.handle(json.dumps({"op": "run", "widget": "ocs.combat", "inputs": {"attack": 20, "defense": 2,
                                                                                     "terrain": "close"}})))
    assert ok["result"]["column"] == "10:1" and "html" in ok


def test_links_round_trip() -> None:
    w = widgets.get("ocs.combat")
    values = w.validate({"attack_units": [{"strength": 5, "supply": "out_of_supply"}], "terrain": "close",
                         "settings": {"beyond_edges": "extended"}})
    link = w.link_state(values)
    assert link["terrain"] == "close" and link["settings.beyond_edges"] == "extended"
    back, rejected = w.from_link(link)
    assert rejected == [] and back == values


# Seeded samples ------------------------------------------------------------

@pytest.mark.parametrize("widget", ["ocs.combat", "ocs.walkthrough"])
def test_seed_replays(widget: str) -> None:
    w = widgets.get(widget)
    assert w.roll({}, 1234) == w.roll({}, 1234)
    assert len({json.dumps(w.roll({}, seed)["rolls"]) for seed in range(20)}) > 1


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("inputs", [{}, {"attacker_ar": 0, "defender_ar": 5, "terrain": "extra_close"},
                                    {"overrun": True, "attack": 40, "defense": 2, "hedgehog": 2}])
def test_sample_follows_its_own_dice(seed: int, inputs: dict[str, Any]) -> None:
    w = widgets.get("ocs.walkthrough")
    values = w.validate(inputs)
    sample = w.roll(inputs, seed)
    rolls = sample["rolls"]
    assert rolls[0]["label"] == "surprise (2d6)" and rolls[-1]["label"] == "combat (2d6)"
    drm = values["attacker_ar"] - values["defender_ar"] - values["hedgehog"]
    diff = values["attacker_ar"] - values["defender_ar"] - (1 if values["hedgehog"] else 0)
    kind = AttackKind.of(values["overrun"])
    who = surprise_for_total(rolls[0]["total"] + diff, kind).value
    assert sample["surprise"] == who
    assert len(rolls) == (2 if who == "none" else 3)
    shift = 0 if who == "none" else (rolls[1]["total"] if who == "attacker" else -rolls[1]["total"])
    terrain = Terrain(values["terrain"])
    start = [c.label for c in columns(terrain)].index(widgets.get("ocs.combat").run(inputs)["column"])
    col = min(max(start + shift, 0), 12)
    assert sample["column"] == columns(terrain)[col].label
    assert sample["cell"] == cell(col, row_for_total(rolls[-1]["total"] + drm))
    assert sample["steps"][-1].startswith("Carry out the result: Defender")
    html = w.render_sample(sample)
    assert sample["cell"] in html and "<script" not in html


def test_seed_must_be_a_whole_number() -> None:
    with pytest.raises(InputError) as err:
        widgets.get("ocs.combat").roll({}, -1)
    assert err.value.field == "seed"


# Exhibits ------------------------------------------------------------------

class _TableShape(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.section = ""
        self.rows: dict[str, list[list[tuple[str, str | None, str]]]] = {"thead": [], "tbody": []}
        self.caption = False
        self.cell: tuple[str, str | None] | None = None
        self.text = ""
        self.styles = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if any(k == "style" for k, _ in attrs):
            self.styles += 1
        if tag in ("thead", "tbody"):
            self.section = tag
        elif tag == "caption":
            self.caption = True
        elif tag == "tr":
            self.rows[self.section].append([])
        elif tag in ("th", "td"):
            self.cell, self.text = (tag, dict(attrs).get("scope")), ""

    def handle_data(self, data: str) -> None:
        self.text += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td") and self.cell is not None:
            self.rows[self.section][-1].append((self.cell[0], self.cell[1], self.text))
            self.cell = None


def test_exhibits_are_registered() -> None:
    assert {"ocs.combat_table", "ocs.surprise_table", "ocs.results_key"} <= set(exhibit_ids())


def test_combat_table_exhibit_matches_the_data() -> None:
    shape = _TableShape()
    shape.feed(get_exhibit("ocs.combat_table")())
    assert shape.caption and shape.styles == 0
    assert len(shape.rows["thead"]) == 4 and len(shape.rows["tbody"]) == 15
    for row, (terrain, labels) in zip(shape.rows["thead"], TERRAIN_COLUMNS.items()):
        assert row[0] == ("th", "row", terrain.label)
        assert [(t, s, x) for t, s, x in row[1:]] == [("th", "col", label) for label in labels]
    for row, (label, cells) in zip(shape.rows["tbody"], RESULT_ROWS):
        assert row[0] == ("th", "row", label)
        assert [x for _, _, x in row[1:]] == list(cells)


@pytest.mark.parametrize("exhibit", ["ocs.surprise_table", "ocs.results_key"])
def test_small_exhibits_are_plain_tables(exhibit: str) -> None:
    shape = _TableShape()
    shape.feed(get_exhibit(exhibit)())
    assert shape.caption and shape.styles == 0 and shape.rows["tbody"]


def test_surprise_exhibit_numbers() -> None:
    html = get_exhibit("ocs.surprise_table")()
    assert "10 or more" in html and "5 or less" in html and "9 or more" in html and "6 or less" in html


# Pages ---------------------------------------------------------------------

BLOCK = re.compile(r"^::: (widget|exhibit) (\S+)(?: (#[a-z0-9-]+))?\s*$")


def _pages() -> list[Path]:
    return sorted(PAGES.glob("[0-9][0-9]-*.md"))


def _blocks(path: Path) -> list[dict[str, Any]]:
    """Widget and exhibit blocks: id, instance, base pairs and (title, pairs) examples."""
    blocks: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if current is None:
            match = BLOCK.match(line)
            if match:
                current = {"kind": match.group(1), "id": match.group(2), "instance": match.group(3),
                           "base": {}, "examples": [], "line": number}
            continue
        if line.strip() == ":::":
            blocks.append(current)
            current = None
        elif line.startswith("::: example "):
            current["examples"].append((line[len("::: example "):].strip(), {}))
        else:
            key, sep, value = line.partition(": ")
            assert sep, f"{path.name}:{number}: expected 'path: value', got {line!r}"
            target = current["examples"][-1][1] if current["examples"] else current["base"]
            target[key.strip()] = value.strip()
    assert current is None, f"{path.name}: a block starting on line {current['line']} is never closed"
    return blocks


def test_there_are_four_pages() -> None:
    assert [p.name[:2] for p in _pages()] == ["01", "02", "03", "04"]


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.name)
def test_page_meta(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    blank = lines.index("")
    meta = dict(line.split(": ", 1) for line in lines[:blank])
    assert set(meta) == {"title", "system", "summary"}
    assert meta["system"] == "Operational Combat Series (OCS) v3"
    assert lines[blank + 1].startswith("## ")


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.name)
def test_page_blocks_validate(path: Path) -> None:
    blocks = _blocks(path)
    instances = [b["instance"] for b in blocks if b["kind"] == "widget"]
    assert len(instances) == len(set(instances)) and all(instances)
    for block in blocks:
        if block["kind"] == "exhibit":
            assert block["id"] in exhibit_ids() and not block["base"] and not block["examples"]
            continue
        w = widgets.get(block["id"])
        base, rejected = w.from_link(block["base"])
        assert rejected == [], f"{path.name}:{block['line']}: {[str(e) for e in rejected]}"
        w.run(base)
        assert block["examples"], f"{path.name}:{block['line']}: give the widget worked examples"
        for title, pairs in block["examples"]:
            values, rejected = w.from_link(pairs, base)
            assert rejected == [], f"{path.name}: example {title!r}: {[str(e) for e in rejected]}"
            w.run(values)


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.name)
def test_assumed_settings_are_named_in_prose(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for match in re.finditer(r'^!!! assumed "([^"]+)"\n((?:    .*\n)+)', text, re.M):
        assert "setting" in match.group(2), match.group(1)


def test_every_assumed_field_is_explained_on_a_page() -> None:
    text = "".join(p.read_text(encoding="utf-8") for p in _pages())
    for widget_id in WIDGET_IDS:
        for path, field in widgets.get(widget_id).inputs.assumed_fields():
            assert f"`{path}`" in text, f"{widget_id}: {path} is assumed but no page says so"
