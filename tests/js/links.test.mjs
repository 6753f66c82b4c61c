// A link's "#" part (site/static/links.js hashSettings): settings there are quoted for the page's notice, a plain
// anchor and a text fragment are not.
import { test } from "node:test";
import assert from "node:assert/strict";

const { hashSettings, HASH_SHOWN } = await import("../../site/static/links.js");

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
