// A link's "#" part (site/static/links.js hashSettings): settings there are quoted for the page's notice, a plain
// anchor and a text fragment are not. Keys a link gives twice (repeatedKeys): named for the page's notice, and the
// last value is the one applied (linkParams).
import { test } from "node:test";
import assert from "node:assert/strict";

const { hashSettings, HASH_SHOWN, linkParams, repeatedKeys, REPEATS_SHOWN } = await import("../../site/static/links.js");

test("a plain anchor, an empty hash and a text fragment carry no settings", () => {
  for (const hash of ["", "#", "#sg-combat", "#term-action-rating", "#:~:text=attack", "#sg-combat:~:text=a=b"]) {
    assert.equal(hashSettings(hash), null, hash);
  }
});

test("settings after the '#' are quoted decoded, or as they came when they cannot be decoded", () => {
  assert.equal(hashSettings("#ocs-odds.attack=%3Cb%3E13%3C/b%3E"), "ocs-odds.attack=<b>13</b>");
  assert.equal(hashSettings("ocs-odds.attack=13&ocs-odds.defense=5"), "ocs-odds.attack=13&ocs-odds.defense=5");
  assert.equal(hashSettings("#a.b=%E0%A4%A"), "a.b=%E0%A4%A");
  assert.equal(hashSettings("#a.b=1:~:text=x"), "a.b=1");
});

test("a long '#' part is cut to HASH_SHOWN characters", () => {
  const shown = hashSettings(`#a.b=${"9".repeat(500)}`);
  assert.equal(shown.length, HASH_SHOWN + 1);
  assert.ok(shown.endsWith("…"));
});

test("a key given twice is named once, and its last value is the one applied", () => {
  const search = "?sg.hex_sides=2&sg.terrain=forest&sg.hex_sides=5&sg.hex_sides=6&sg.terrain=town&ocs.attack=3";
  assert.deepEqual(repeatedKeys(search), ["sg.hex_sides", "sg.terrain"]);
  assert.deepEqual({ ...linkParams(search).get("sg") }, { hex_sides: "6", terrain: "town" });
  assert.deepEqual(repeatedKeys("?sg.hex_sides=2&ocs.attack=3"), []);
  assert.deepEqual(repeatedKeys(""), []);
  const many = [...Array(20).keys()].map((i) => `k${i}=1&k${i}=2`).join("&");
  assert.deepEqual(repeatedKeys(`?${many}`), [...Array(REPEATS_SHOWN).keys()].map((i) => `k${i}`));
});
