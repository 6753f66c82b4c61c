// The site's ES modules (site/static/*.js) as a graph of static imports.
// Run by tests/test_js.py through Node's own test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";

const STATIC = new URL("../../site/static/", import.meta.url);

// Static imports only (`import … from "./x.js"`, `import "./x.js"`), not
// `import("./x.js")`, which loads later on purpose.
function importsOf(name) {
  const text = readFileSync(new URL(name, STATIC), "utf-8");
  return [...text.matchAll(/^import\s+(?:[^"';]*?\s+from\s+)?["']\.\/([\w.-]+\.js)["'];/gm)].map((m) => m[1]);
}

const graph = new Map(readdirSync(STATIC).filter((n) => n.endsWith(".js")).map((n) => [n, importsOf(n)]));

function reachable(from) {
  const seen = new Set();
  const walk = (name) => {
    for (const next of graph.get(name) ?? []) {
      if (!seen.has(next)) { seen.add(next); walk(next); }
    }
  };
  walk(from);
  return seen;
}

test("every static import names a file of site/static", () => {
  for (const [name, imports] of graph) {
    for (const target of imports) assert.ok(graph.has(target), `${name} imports ${target}, which is missing`);
  }
});

test("no module imports itself through others", () => {
  for (const name of graph.keys()) assert.ok(!reachable(name).has(name), `${name} is in an import cycle`);
});

// The browser learns of an import only once it has the module that makes it:
// widgets.js naming every module the page needs lets it fetch them all at once.
test("widgets.js imports every module of the page itself", () => {
  const direct = new Set(graph.get("widgets.js"));
  for (const name of reachable("widgets.js")) assert.ok(direct.has(name), `widgets.js reaches ${name} only through another module`);
  for (const name of ["engine-client.js", "forms.js", "links.js", "calculator.js", "navigation.js"]) assert.ok(direct.has(name), name);
});

test("the worker's boot is imported by the worker, and the page loads none of the worker's modules", () => {
  assert.deepEqual(graph.get("engine-worker.js"), ["engine-boot.js"]);
  for (const name of ["engine-worker.js", "engine-boot.js", "scheduler.js", "snapshot.js"]) {
    assert.ok(!reachable("widgets.js").has(name), name);
  }
});
