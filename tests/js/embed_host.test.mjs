// The host page's script (site/static/embed-host.js): it sizes each frame of a rules explorer widget to the height
// its embed page reports, from that frame's own window only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import vm from "node:vm";

const SOURCE = await readFile(new URL("../../site/static/embed-host.js", import.meta.url), "utf8");

function host(count = 1) {
  let listener = null;
  const frames = Array.from({ length: count }, () => {
    const frame = { contentWindow: {}, height: null, setAttribute(name, value) { if (name === "height") this.height = value; } };
    return frame;
  });
  const window = { addEventListener: (type, fn) => { if (type === "message") listener = fn; } };
  const document = { querySelectorAll: () => frames };
  vm.runInNewContext(SOURCE, { window, document });
  const say = (source, data) => listener({ source, data });
  return { frames, say };
}

const message = (height) => ({ type: "rules-explorer:embed", instance: "sgs-battle", height, live: true, digest: "" });

test("a frame takes the height its embed page reports, and only from its own window", () => {
  const { frames: [a, b], say } = host(2);
  say(a.contentWindow, message(812.4));
  assert.equal(a.height, "812");
  assert.equal(b.height, null);
  say({}, message(400)); // another window: no frame of ours
  assert.equal(a.height, "812");
  say(b.contentWindow, { type: "something-else", height: 50 });
  say(b.contentWindow, { type: "rules-explorer:embed", height: "900" });
  assert.equal(b.height, null);
});

test("a tall widget is not cut to 20,000 px: a card game's embed at a phone's width with its settings and units open", () => {
  // Measured in Firefox and WebKit at 375 px: 14,000 px closed, 18,500 with the settings open, 20,000-58,000 with
  // every panel open; a frame held at 20,000 px scrolled inside the host's page.
  const { frames: [frame], say } = host();
  for (const height of [20_001, 42_415, 58_704]) {
    say(frame.contentWindow, message(height));
    assert.equal(frame.height, String(height));
  }
});

test("heights out of all reason stay within bounds", () => {
  const { frames: [frame], say } = host();
  say(frame.contentWindow, message(3));
  assert.equal(frame.height, "100");
  say(frame.contentWindow, message(1e12));
  assert.equal(frame.height, "500000");
  say(frame.contentWindow, message(Number.NaN));
  assert.equal(frame.height, "500000");  // NaN is no height: the last one stays
});
