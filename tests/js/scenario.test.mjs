// A battle's scenario run shared by two engines (site/static/scenario.js,
// ScenarioPanel.shared): the extra worker's calls from the first trial on, the
// page engine's short calls from the end back, each engine's state merged
// into the other's next call (`parts`). Fake engines answer after random
// delays; their states record every trial range, and the fake refuses a trial
// counted twice as the real engine does (engine/scenarios.py merged_state).
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.document ??= { addEventListener() {} }; // forms.js listens on the document when imported
const { ScenarioPanel, DRAW_MS, roundStep } = await import("../../site/static/scenario.js");
const { SimulationView } = await import("../../site/static/simulation.js");
const { WorkerLink } = await import("../../site/static/engine-client.js");
const { alone, renamed } = await import("../../site/static/forms.js");

// One point's state: the trial ranges it holds and the sum of their indices.
const empty = () => ({ ranges: [], sum: 0, n: 0 });

function add(into, t) {
  const ranges = [...into.ranges, ...t.ranges].sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < ranges.length; i++) {
    if (ranges[i][0] < ranges[i - 1][1]) throw new Error(`trials ${ranges[i][0]} on are counted twice`);
  }
  const stages = [...(into.stages ?? []), ...(t.stages ?? [])]; // a staged run's: each trial's stage, as played
  return { ranges, sum: into.sum + t.sum, n: into.n + t.n, ...(stages.length ? { stages } : {}) };
}

function run(point, first, count) {
  let sum = 0;
  for (let i = first; i < first + count; i++) sum += i * (point + 1);
  return { ranges: [[first, first + count]], sum, n: count };
}

// The fake engine: a sweep's `tallies` (one per point; point `refused` has none) or one `tally`.
function fakeEngine(name, calls, { points = 3, refused = -1, delay = () => 1, variants = null } = {}) {
  return {
    name,
    askedAt: -Infinity, // as WorkerLink: the reader's last call (a share of a run is not one)
    readerActive: WorkerLink.prototype.readerActive,
    now: () => performance.now(),
    call(request, { share = false } = {}) {
      if (!share) this.askedAt = performance.now();
      calls.push({ name, request, at: performance.now() });
      return new Promise((resolve) => setTimeout(() => resolve(answer(request)), delay(request)));
    },
  };

  function answer(request) {
    if (request.op === "sensitivity") {
      const answer = staged(request);
      if (variants !== null && answer.result) answer.result.variants = variants;
      return answer;
    }
    const sweep = request.op === "sweep";
    const n = sweep ? points : 1;
    let states = sweep ? (request.tallies ?? Array(n).fill(null)) : [request.tally ?? null];
    try {
      for (const part of request.parts ?? []) {
        const list = sweep ? part : [part];
        states = states.map((t, i) => (list[i] === null ? t : add(t ?? empty(), list[i])));
      }
      const todo = sweep ? (request.points ?? [...Array(n).keys()]) : [0];
      for (const i of todo) {
        if (i === refused || request.count === 0) continue;
        states[i] = add(states[i] ?? empty(), run(i, request.first, request.count));
      }
    } catch (error) {
      return { error: { type: "InputError", field: "parts", message: error.message } };
    }
    const shown = states.map((t, i) => (i === refused ? "refused" : t ? `${t.n}:${t.sum}` : "-")).join(" ");
    const done = states.every((t, i) => i === refused || (t && t.n >= request.trials));
    const result = { done, html: request.render ? `<p>${shown}</p>` : undefined };
    if (sweep) {
      result.tallies = states;
      result.points = states.map((t, i) => (i === refused ? { error: "refused" } : { trials: t?.n ?? 0 }));
    } else {
      result.tally = states[0];
      result.trials = states[0]?.n ?? 0;
    }
    return { result };
  }
}

// "Which assumptions matter" as the engine stages it (engine/sensitivity.py): the readings that play trials
// c … e−1 between two checkpoints are fixed by trials 0 … c−1, so a call in a later stage needs a tally holding
// every trial before it or the stage an answer gave; a part is merged only into such a tally; nothing crosses a
// checkpoint with the stage incomplete. The fake refuses each of these as the engine does.
const CHECKPOINTS = [200, 500];
const READINGS = 9;

// How far a state holds every trial from 0 on.
function prefix(state) {
  let end = 0;
  for (const [a, b] of [...(state?.ranges ?? [])].sort((x, y) => x[0] - y[0])) if (a === end) end = b;
  return end;
}

function stageOf(i, trials) {
  const stops = CHECKPOINTS.filter((c) => c < trials);
  return [stops.filter((c) => c <= i).at(-1) ?? 0, stops.find((c) => c > i) ?? trials];
}

function staged(request) {
  const trials = request.trials;
  const refuse = (message) => ({ error: { type: "InputError", field: "first", message } });
  const stageToken = (state) => {
    const at = prefix(state);
    const [c] = stageOf(at, trials);
    return c > 0 && at < trials ? { from: c, playing: [c % READINGS] } : undefined;
  };
  let state = request.tally ?? null;
  const before = state;
  if (request.slice) { // one slice of a trial's readings: the slices in order over the same trials, in one stage
    const [k, pieces] = request.slice;
    const [, e] = stageOf(request.first, trials);
    const held = request.slice_tally;
    const same = held && held.next === k && held.of === pieces && held.first === request.first && held.count === request.count;
    if (request.first + request.count > e) return refuse("a slice in two stages");
    if (k > 0 ? !same : held) return { error: { type: "InputError", field: "slice_tally", message: `slice ${k} out of order` } };
    if (k + 1 < pieces) {
      return { result: { tally: state, trials: state?.n ?? 0, done: false, slice: [k + 1, pieces],
                         slice_tally: { next: k + 1, of: pieces, first: request.first, count: request.count } } };
    }
  }
  try {
    for (const part of request.parts ?? []) {
      const [c, e] = stageOf(part.ranges[0][0], trials);
      if (part.ranges.some(([a, b]) => a < c || b > e)) return refuse("a part in two stages");
      if (c > 0 && prefix(before) < c) return refuse(`a part of stage ${c} merged into a tally without 0 to ${c - 1}`);
      if (part.stages.some((from) => from !== c)) return refuse(`a part of stage ${c} played with another's readings`);
      state = add(state ?? empty(), part);
    }
    const end = request.first + (request.count ?? 0);
    for (let a = request.first; a < end;) {
      const [c, e] = stageOf(a, trials);
      const b = Math.min(end, e);
      if (state && Math.max(...state.ranges.map((r) => r[1])) > e) return refuse(`trials past ${e - 1} in the tally`);
      if (c > 0 && prefix(state) < c && request.stage?.from !== c) {
        return refuse(`decides at trial ${c} which readings play: the tally holds ${prefix(state)} from 0`);
      }
      state = add(state ?? empty(), { ...run(0, a, b - a), stages: Array(b - a).fill(c) });
      a = b;
    }
  } catch (error) {
    return { error: { type: "InputError", field: "parts", message: error.message } };
  }
  const result = { tally: state, trials: state?.n ?? 0, done: (state?.n ?? 0) >= trials, variants: READINGS - 1,
                   stopping: { checkpoints: CHECKPOINTS.filter((c) => c < trials) }, most_count: 1000,
                   html: request.render ? `<p>${state ? `${state.n}:${state.sum}` : "-"}</p>` : undefined };
  const token = state && stageToken(state);
  if (token) result.stage = token;
  return { result };
}

function expected(trials, points, refused) {
  const whole = [...Array(points).keys()].map((i) => (i === refused ? "refused" : `${trials}:${run(i, 0, trials).sum}`));
  return `<p>${whole.join(" ")}</p>`;
}

// A panel with just what `shared` reads: the widget's engine and section, and its status.
function fakePanel(main) {
  return {
    // worded: the widget's message as the page says it (calculator.js); no control of the field here, so as it came
    w: { engine: main, section: { dispatchEvent() {} }, worded: (error) => ({ whole: error.message }) },
    said: [],
    runs: { result: null, compare: null },
    say(out, text) { this.said.push(text); },
    finish() {},
    failed: ScenarioPanel.prototype.failed,
    runFailed: ScenarioPanel.prototype.runFailed,
    worded: ScenarioPanel.prototype.worded,
    entry: ScenarioPanel.prototype.entry,
    trialsText: ScenarioPanel.prototype.trialsText,
    draw: ScenarioPanel.prototype.draw,
    stopped: ScenarioPanel.prototype.stopped,
  };
}

// A seeded generator, so a failing case can be run again.
function random(seed) {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}

for (const op of ["sweep", "compare"]) {
  test(`a ${op} shared by two engines covers every trial once and ends with the whole run`, async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const rand = random(seed);
      const trials = 20 + Math.floor(rand() * 300);
      const points = op === "sweep" ? 1 + Math.floor(rand() * 5) : 1;
      const refused = op === "sweep" && points > 2 ? 1 : -1;
      const calls = [];
      const helper = fakeEngine("helper", calls, { points, refused, delay: () => Math.floor(rand() * 4) });
      const main = fakeEngine("main", calls, { points, refused, delay: () => Math.floor(rand() * 3) });
      const panel = fakePanel(main);
      const out = { dataset: {}, innerHTML: "" };
      const message = { op, widget: "w", seed: "1", render: true };
      await ScenarioPanel.prototype.shared.call(panel, "result", { stopped: false }, out, message, trials, helper);
      assert.equal(out.dataset.state, "done", `seed ${seed}: ${panel.said.at(-1)}`);
      assert.equal(out.innerHTML, expected(trials, points, refused), `seed ${seed}`);
      assert.ok(calls.some((c) => c.name === "main" && c.request.count > 0), `seed ${seed}: the page engine took part`);
      assert.equal(out.dataset.engines, "2");
      // The page engine's calls are small (one point at a time) and never render.
      for (const { request } of calls.filter((c) => c.name === "main")) {
        assert.equal(request.render, false);
        if (op !== "sweep") continue;
        assert.equal(request.points.length, 1); // and it carries that point's state alone: a call reads one tally
        assert.ok(request.tallies.every((t, i) => t === null || i === request.points[0]));
      }
    }
  });
}

for (const op of ["sweep", "sensitivity"]) { // a reading of the assumed settings is staged: its own path
  test(`a stopped shared ${op} ends both engines' calls and says so`, async () => {
    const calls = [];
    const helper = fakeEngine("helper", calls, { delay: () => 2 });
    const main = fakeEngine("main", calls, { delay: () => 1 });
    const panel = fakePanel(main);
    const out = { dataset: {}, innerHTML: "" };
    const run = { stopped: false };
    setTimeout(() => { run.stopped = true; }, 15);
    await ScenarioPanel.prototype.shared.call(panel, "result", run, out, { op, render: true }, 100_000, helper);
    assert.equal(out.dataset.state, "stopped");
    const n = calls.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(calls.length, n, "no call after the run ended");
  });
}

// An output that records when it was drawn.
function drawnOutput() {
  let html = "";
  const drawn = [];
  return { dataset: {}, drawn, get innerHTML() { return html; }, set innerHTML(h) { html = h; drawn.push(performance.now()); } };
}

// The answers an engine gave, as they came.
function answered(engine) {
  const given = [];
  const call = engine.call.bind(engine);
  engine.call = async (request) => { const a = await call(request); given.push({ at: performance.now(), html: a.result?.html }); return a; };
  return given;
}

test("a running answer is drawn at most every DRAW_MS: the first at once, then the latest, the last as it comes", async () => {
  const calls = [];
  const helper = fakeEngine("helper", calls, { delay: (r) => 1 + r.count }); // a millisecond a trial
  const main = fakeEngine("main", calls, { delay: (r) => 1 + r.count });
  const given = answered(helper);
  const panel = fakePanel(main);
  const out = drawnOutput();
  await ScenarioPanel.prototype.shared.call(panel, "result", { stopped: false }, out, { op: "sweep", render: true }, 2000, helper);
  assert.equal(out.dataset.state, "done");
  assert.equal(out.innerHTML, expected(2000, 3, -1));
  assert.equal(panel.said.at(-1), "Done: 2,000 trials a point.");
  assert.ok(given.length >= 6 && out.drawn.length < given.length, `${out.drawn.length} drawn of ${given.length} answers`);
  assert.ok(out.drawn[0] - given[0].at < 5, "the first answer is drawn as it comes");
  const gaps = out.drawn.slice(1).map((t, i) => t - out.drawn[i]);
  assert.ok(gaps.slice(0, -1).every((g) => g >= DRAW_MS - 2), `drawn ${gaps.map(Math.round)} ms apart`);
  assert.ok(out.drawn.at(-1) - given.at(-1).at < 5, "the last answer is drawn as it comes");
});

test("Stop draws the last answer that came; a run that a new one replaced draws nothing more", async () => {
  for (const replaced of [false, true]) {
    const calls = [];
    const helper = fakeEngine("helper", calls, { delay: () => 30 });
    const main = fakeEngine("main", calls, { delay: () => 1 });
    const given = answered(helper);
    const panel = fakePanel(main);
    const out = drawnOutput();
    const run = { stopped: false };
    panel.runs.result = run;
    let stopAt = 0;
    setTimeout(() => {
      stopAt = performance.now();
      run.stopped = true;
      panel.runs.result = replaced ? { stopped: false } : null;
    }, 200);
    await ScenarioPanel.prototype.shared.call(panel, "result", run, out, { op: "sweep", render: true }, 100_000, helper);
    const before = given.filter((g) => g.at < stopAt); // what came after Stop is not shown
    if (replaced) {
      assert.notEqual(out.dataset.state, "stopped", "the new run owns the output");
      const drawn = out.drawn.length;
      await new Promise((resolve) => setTimeout(resolve, DRAW_MS + 50));
      assert.equal(out.drawn.length, drawn, "no drawing of the old run's after it was replaced");
    } else {
      assert.equal(out.dataset.state, "stopped");
      assert.ok(before.length >= 3 && out.drawn.length < before.length + 1, `${out.drawn.length} drawn of ${before.length}`);
      assert.equal(out.innerHTML, before.at(-1).html, "the figures of the last answer before Stop");
      assert.equal(panel.said.at(-1), "Stopped: the figures shown are from the trials run so far.");
    }
  }
});

test("a run stopped before its first answer empties what an earlier run left and says it has no figures", async () => {
  for (const op of ["sweep", "sensitivity"]) {
    const calls = [];
    const helper = fakeEngine("helper", calls, { delay: () => 1 });
    const panel = fakePanel(fakeEngine("main", calls));
    let cleared = false;
    const out = { dataset: {}, innerHTML: "<p>an earlier run's answer</p>", replaceChildren() { cleared = true; } };
    const run = { stopped: true }; // Stop came before the first call was answered
    await ScenarioPanel.prototype.shared.call(panel, "result", run, out, { op, render: true }, 500, helper);
    assert.equal(out.dataset.state, "stopped");
    assert.ok(cleared, `${op}: the earlier answer is not left as this run's`);
    assert.equal(panel.said.at(-1), "Stopped before its first figures: none are shown.");
  }
});

test("a scenario's refusal names an input as the panel lists it, not by its path", () => {
  const panel = {
    w: { worded: (error, label) => ({ control: null, ...renamed(error.message, error.field, label) }) }, // no control loaded
    varies: { varies: [{ input: "attackers.0.count", label: "Attackers, row 1: Count" }] },
    choices: { list: [{ kind: "number", key: "attacker.lost", label: "Attacker lost" },
                      { kind: "ending", key: "standoff", label: "Ended: Standoff" }] },
    inputSelect: { value: "attackers.0.count" },
    entry: ScenarioPanel.prototype.entry,
  };
  const worded = (field, message) => ScenarioPanel.prototype.worded.call(panel, { field, message }).whole;
  assert.equal(worded("attackers.0.count", "attackers.0.count: -3 is out of range; enter a whole number from 0 to 100"),
               "Attackers, row 1: Count: -3 is out of range; enter a whole number from 0 to 100");
  assert.equal(worded("attacker.lost", "attacker.lost: '-1' is not a count"), "Attacker lost: '-1' is not a count");
  assert.equal(worded("step", "step: 'attackers.0.count' is a whole number: give a whole start and step"),
               "step: Attackers, row 1: Count is a whole number: give a whole start and step");
  // A value the reader typed is quoted as typed, even one that spells a path.
  assert.equal(worded("from", "from: 'attackers.0.count' is not a number; enter a number"),
               "from: 'attackers.0.count' is not a number; enter a number");
});

test("a refusal from either engine ends the run with its message", async () => {
  const calls = [];
  const helper = fakeEngine("helper", calls, { delay: () => 1 });
  const main = { readerActive: () => false, call: async () => ({ error: { type: "InputError", message: "the page engine said no" } }) };
  const panel = fakePanel(main);
  const out = { dataset: {}, innerHTML: "" };
  await ScenarioPanel.prototype.shared.call(panel, "result", { stopped: false }, out, { op: "compare", render: true }, 500, helper);
  assert.equal(out.dataset.state, "failed");
  assert.equal(panel.said.at(-1), "Not run: the page engine said no.");
});

test("a run refused at its first call clears what an earlier run left; one that showed figures keeps them", async () => {
  const refuse = { readerActive: () => false,
                   call: async () => ({ error: { type: "InputError", message: "to: the range ends before it starts" } }) };
  for (const [main, helper, kept] of [[refuse, refuse, false], [refuse, fakeEngine("helper", [], { delay: () => 1 }), true]]) {
    const panel = fakePanel(main);
    let cleared = false;
    const out = { dataset: {}, innerHTML: "<p>an earlier range's chart</p>", replaceChildren() { cleared = true; } };
    await ScenarioPanel.prototype.shared.call(panel, "result", { stopped: false }, out, { op: "compare", render: true },
                                              500, helper);
    assert.equal(out.dataset.state, "failed");
    assert.equal(cleared, !kept);
  }
});

test("the page engine steps aside while the reader's changes ask it, and joins once they stop", async () => {
  const calls = [];
  const helper = fakeEngine("helper", calls, { delay: (r) => 1 + r.count }); // a millisecond a trial
  const main = fakeEngine("main", calls, { delay: (r) => 1 + r.count });
  main.askedAt = performance.now(); // the reader has just changed something ...
  const reader = setInterval(() => { main.askedAt = performance.now(); }, 2); // ... and goes on changing
  let stopped = 0;
  setTimeout(() => { clearInterval(reader); stopped = performance.now(); }, 400);
  const panel = fakePanel(main);
  const out = { dataset: {}, innerHTML: "" };
  await ScenarioPanel.prototype.shared.call(panel, "result", { stopped: false }, out, { op: "sweep", render: true }, 1000, helper);
  clearInterval(reader);
  assert.equal(out.dataset.state, "done");
  assert.equal(out.innerHTML, expected(1000, 3, -1));
  const mine = calls.filter((c) => c.name === "main");
  assert.ok(stopped > 0 && mine.length > 0, "it joined once the changes stopped");
  assert.ok(mine.every((c) => c.at >= stopped + 250), `no call while the reader was changing: ${mine[0].at - stopped}`);
});

test("a reading of every assumed setting is shared stage by stage: every trial once, no checkpoint crossed early", async () => {
  let laterStages = 0;
  for (let seed = 1; seed <= 12; seed++) {
    const rand = random(seed);
    const trials = seed % 4 === 0 ? 150 + Math.floor(rand() * 50) : 220 + Math.floor(rand() * 500); // one stage or more
    const calls = [];
    const helper = fakeEngine("helper", calls, { delay: () => Math.floor(rand() * 4) });
    const main = fakeEngine("main", calls, { delay: () => Math.floor(rand() * 3) });
    const panel = fakePanel(main);
    const out = { dataset: {}, innerHTML: "" };
    const message = { op: "sensitivity", widget: "w", seed: "1", render: true };
    await ScenarioPanel.prototype.shared.call(panel, "result", { stopped: false }, out, message, trials, helper);
    assert.equal(out.dataset.state, "done", `seed ${seed}: ${panel.said.at(-1)}`);
    assert.equal(out.innerHTML, expected(trials, 1, -1), `seed ${seed}`);
    assert.equal(out.dataset.engines, "2", `seed ${seed}`);
    for (const { name, request } of calls) {
      if (!request.count) continue;
      const [c, e] = stageOf(request.first, trials);
      assert.ok(request.first + request.count <= e || name === "helper", `seed ${seed}: the page engine stays in its stage`);
      if (name === "main") {
        assert.equal(request.render, false);
        assert.equal(request.stage?.from, c > 0 ? c : undefined, `seed ${seed}: the page engine brings its stage`);
        if (c > 0) laterStages++;
      }
    }
  }
  assert.ok(laterStages > 0, "the page engine took part past a checkpoint");
});

test("a stage the page engine took no part in is crossed as one it shared", async () => {
  const calls = [];
  const helper = fakeEngine("helper", calls, { delay: (r) => 5 + Math.floor((r.count ?? 0) / 50) });
  const main = fakeEngine("main", calls, { delay: () => 1 });
  main.askedAt = performance.now(); // the reader has just changed something, and goes on: the page engine steps aside through the first stages
  const reader = setInterval(() => { main.askedAt = performance.now(); }, 2);
  setTimeout(() => clearInterval(reader), 60);
  const panel = fakePanel(main);
  const out = { dataset: {}, innerHTML: "" };
  await ScenarioPanel.prototype.shared.call(panel, "result", { stopped: false }, out, { op: "sensitivity", render: true },
                                            30_000, helper);
  clearInterval(reader);
  assert.equal(out.dataset.state, "done", panel.said.at(-1));
  assert.equal(out.innerHTML, expected(30_000, 1, -1));
  const mine = calls.filter((c) => c.name === "main" && c.request.count);
  assert.ok(mine.length && mine.every((c) => c.request.first >= 500), `the page engine joined in the last stage only: ${mine.map((c) => c.request.first).slice(0, 5)} of ${mine.length}`);
});

test("the page engine plays a long trial in slices of its readings, a call each, and a short one whole", async () => {
  // The page times the engines' calls: here on a clock that each answer moves on by its call's cost (a real
  // millisecond of the fakes' delay reads as 50), whatever the machine's load did to the timers. Timed by the real
  // clock, a loaded machine's late timers made the short stage's trials read as long, and they were sliced.
  let clock = 0;
  performance.now = () => clock;
  try {
    const calls = [];
    // 100 readings; before the first checkpoint a trial of them all reads as 250 ms (2.5 ms a battle), after
    // it, with most readings stopped, as a tenth of that. A slice takes its share of the trial.
    const delay = (r) => Math.ceil((r.count ?? 0) * (r.first < 200 ? 5 : 0.5) / (r.slice?.[1] ?? 1));
    const timed = (engine) => {
      const call = engine.call.bind(engine);
      engine.call = async (request, options) => {
        const start = clock;
        const answer = await call(request, options);
        clock = Math.max(clock, start + delay(request) * 50);
        return answer;
      };
      return engine;
    };
    const helper = timed(fakeEngine("helper", calls, { delay, variants: 99 }));
    const main = timed(fakeEngine("main", calls, { delay, variants: 99 }));
    const panel = fakePanel(main);
    const out = { dataset: {}, innerHTML: "" };
    await ScenarioPanel.prototype.shared.call(panel, "result", { stopped: false }, out, { op: "sensitivity", render: true },
                                              700, helper);
    assert.equal(out.dataset.state, "done", panel.said.at(-1));
    assert.equal(out.innerHTML, expected(700, 1, -1));
    const mine = calls.filter((c) => c.name === "main" && c.request.count).map((c) => c.request);
    const long = mine.filter((r) => r.first < 200);
    const short = mine.filter((r) => r.first >= 200);
    assert.ok(long.length && short.length, "the page engine took part in both stages");
    assert.ok(short.every((r) => !r.slice), "a short trial is played whole");
    assert.ok(long.every((r) => r.count === 1 && r.slice?.[1] >= 2), "a long trial is played one at a time, sliced");
    let trials = 0;
    for (let i = 0; i < long.length; i += long[i].slice[1], trials++) { // each trial's slices in order, one after another
      const pieces = long[i].slice[1];
      const trial = long.slice(i, i + pieces);
      assert.deepEqual(trial.map((r) => r.slice), [...Array(pieces).keys()].map((k) => [k, pieces]));
      assert.ok(trial.every((r) => r.first === long[i].first));
      assert.ok(trial.slice(0, -1).every((r) => r.tally === null), "only the last slice carries the engine's state");
    }
    assert.equal(Number(out.dataset.sliced), trials);
  } finally {
    delete performance.now;
  }
});

test("a battle's scenario waits for the extra worker started in place of one given up as it booted", async () => {
  const link = (ok) => ({ ready: Promise.resolve(ok) });
  const page = { name: "page" };
  const given = link(false);
  const next = link(true);
  const pool = { size: 2, spawn: () => {}, helpers: [given], startHelpers() {} };
  given.ready.then(() => { pool.helpers = [next]; }); // as pool.js watchBoots: out, and another in its place
  const panel = { estimator: true, w: { engine: page, site: { pool } } };
  assert.equal(await ScenarioPanel.prototype.worker.call(panel), next);
  const none = { size: 2, spawn: () => {}, helpers: [link(false)], startHelpers() {} };
  assert.equal(await ScenarioPanel.prototype.worker.call({ ...panel, w: { engine: page, site: { pool: none } } }), page,
               "no extra worker came: the page's own engine");
});

test("a number's default step is a tenth of its range, rounded to 1, 2 or 5 times a power of ten", () => {
  const cases = [[0.6, 0.5], [0.11, 0.1], [0.25, 0.2], [3, 2], [0.06, 0.05], [7.5, 10], [1, 1], [40, 50], [0, 0], [NaN, 0],
                 [-1, 0], [Infinity, 0]];
  for (const [range, step] of cases) assert.equal(Number(roundStep(range).toPrecision(12)), step, `a tenth of ${range}`);
});

test("an engine's message names its input as the page does, or stays as it came", async () => {
  const msg = "attacker.attack_value: -1 is out of range; enter a whole number from 0 to 30";
  assert.deepEqual(renamed(msg, "attacker.attack_value", "Attacker, Attack value"),
                   { said: "-1 is out of range; enter a whole number from 0 to 30",
                     whole: "Attacker, Attack value: -1 is out of range; enter a whole number from 0 to 30" });
  assert.deepEqual(renamed(msg, "attacker.attack_value", null), { said: msg, whole: msg }); // no name to give
  assert.deepEqual(renamed(msg, "hex_sides", "Hex sides"), { said: msg, whole: msg }); // another field's message
  assert.deepEqual(renamed("the engine could not answer", "", "Hex sides"),
                   { said: "the engine could not answer", whole: "the engine could not answer" });
  assert.equal(alone(msg, "attacker.attack_value"), "-1 is out of range; enter a whole number from 0 to 30");
  assert.equal(alone("seed: 'abc' is not a seed", "seed"), "'abc' is not a seed"); // beside the Seed box
  assert.equal(alone(msg, "seed"), msg); // another field's message
  assert.equal(alone("seedless: x", "seed"), "seedless: x"); // a name that only begins like the field's
});

// A battle's widget in "until within ±2 %" mode, as trialsFor reads it: the page's SimulationView (its key, its
// target as said, its word on each run's start and end) on a section the panel listens to; `runSim` counts the
// runs the panel asked for, as calculator.js starts them.
function precisionWidget() {
  const { key, targetSaid, told } = SimulationView.prototype;
  const section = new EventTarget();
  const sim = { section, mode: () => "precision", trials: () => 1000, precisionInput: { value: "±2 %" },
                settled: null, running: null, key, targetSaid, told };
  const w = { widget: "w", section, sim, asked: 0, runSim() { this.asked++; } };
  return { w, sim, said: [], say(out, text) { this.said.push(text); } };
}

test("in a run to a precision a tool takes the trials the page's run of its inputs ends at, waiting for it", async () => {
  const panel = precisionWidget();
  const { w, sim } = panel;
  const key = sim.key("w", { a: 1 }, "7");
  const run = { stopped: false };
  let emptied = false;
  const out = { replaceChildren() { emptied = true; } };
  const trials = ScenarioPanel.prototype.trialsFor.call(panel, run, out, { a: 1 }, "7");
  assert.equal(w.asked, 1, "the page's run of these inputs is asked for (a no-op when it is going on)");
  assert.ok(emptied, "another run's figures are not left up while it waits");
  assert.equal(panel.said.at(-1), "Waiting for the estimate's run to within ±2%: these figures use as many trials as it takes.");
  sim.told(key); // it starts
  sim.told(sim.key("w", { a: 2 }, "7"), 500); // another run's end is not this one's
  sim.told(key, 2400);
  assert.deepEqual(await trials, { trials: 2400 });
  assert.equal(run.onStop, null, "nothing is left listening");
  // Once it has ended, the tools take its trials at once, and ask for no run.
  assert.deepEqual(await ScenarioPanel.prototype.trialsFor.call(panel, { stopped: false }, {}, { a: 1 }, "7"), { trials: 2400 });
  assert.equal(w.asked, 1);
  // A fixed run's size is another key: it never stands for the precision's.
  sim.mode = () => "trials";
  assert.deepEqual(await ScenarioPanel.prototype.trialsFor.call(panel, { stopped: false }, {}, { a: 1 }, "7"), { trials: 1000 });
  assert.notEqual(sim.key("w", { a: 1 }, "7"), key);
});

test("a tool waiting for the run to a precision says why it did not run: stopped, other inputs, or its own Stop", async () => {
  for (const how of ["stopped", "changed", "own stop"]) {
    const panel = precisionWidget();
    const { sim } = panel;
    const key = sim.key("w", { a: 1 }, "7");
    const run = { stopped: false };
    const trials = ScenarioPanel.prototype.trialsFor.call(panel, run, { replaceChildren() {} }, { a: 1 }, "7");
    sim.told(key);
    if (how === "stopped") sim.told(key, null);
    else if (how === "changed") sim.told(sim.key("w", { a: 2 }, "7"));
    else run.onStop();
    const { trials: none, refused } = await trials;
    assert.equal(none, undefined, how);
    assert.equal(refused, {
      "stopped": "Not run: the estimate's run to within ±2% did not finish, and these figures use as many trials as it "
                 + "takes. Run it again, or choose a number of trials.",
      "changed": "Not run: the inputs changed before the estimate's run to within ±2% ended. Run this again.",
      "own stop": "Not run: the estimate's run to within ±2% did not finish, and these figures use as many trials as it "
                  + "takes. Run it again, or choose a number of trials.", // not said: the stream says "Stopped"
    }[how], how);
    assert.equal(sim.settled, null, `${how}: a run that did not end is no run's trials`);
  }
});
