// The worker's scheduler (site/static/scheduler.js) with a fake engine and a fake clock.
// Run by tests/test_js.py through Node's own test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { QUIET_MS, Scheduler } from "../../site/static/scheduler.js";

// A fake engine: each trial costs `perTrialMs` of fake time and adds its index
// to the tally, so the final tally tells which trials ran, whatever the chunks.
function rig({ perTrialMs = 0.5, sliceMs = 10, progressMs = 250, failAt = null } = {}) {
  const clock = { t: 0 };
  const tasks = [];
  const posted = [];
  const calls = [];
  const handle = (request) => {
    calls.push(request);
    if (request.op === "estimate") {
      if (failAt !== null && request.first >= failAt) return { error: { type: "InputError", message: "bad" } };
      clock.t += perTrialMs * request.count;
      let sum = request.tally ? request.tally.sum : 0;
      for (let i = request.first; i < request.first + request.count; i++) sum += i;
      return { tally: { sum, n: request.first + request.count },
               ...(request.render ? { html: `<p>${sum}</p>`, digest: `d${sum}` } : {}) };
    }
    clock.t += 5;
    return { html: `answer ${request.op}` };
  };
  const scheduler = new Scheduler(handle, (m) => posted.push(m), {
    now: () => clock.t, defer: (task) => tasks.push(task), sliceMs, progressMs,
  });
  const step = () => { const task = tasks.shift(); if (task) task(); return Boolean(task); };
  const drain = (limit = 100000) => { let n = 0; while (step() && ++n < limit); return n; };
  return { clock, tasks, posted, calls, scheduler, step, drain };
}

const job = (id, trials, extra = {}) => ({ id, op: "job", widget: "demo.dice", inputs: {}, seed: 7, trials, ...extra });
const sumBelow = (n) => (n * (n - 1)) / 2;

test("a job runs every trial exactly once and ends with the full tally", () => {
  const r = rig();
  r.scheduler.submit(job(1, 1000));
  r.drain();
  const final = r.posted.find((m) => m.id === 1 && m.result);
  assert.equal(final.result.trials, 1000);
  assert.deepEqual(final.result.tally, { sum: sumBelow(1000), n: 1000 });
  const firsts = r.calls.map((c) => c.first);
  assert.deepEqual(firsts, [...firsts].sort((a, b) => a - b), "chunks go in trial order");
});

test("chunks grow to about one slice and no further", () => {
  const r = rig({ perTrialMs: 0.5, sliceMs: 10 });
  r.scheduler.submit(job(1, 5000));
  r.drain();
  const counts = r.calls.map((c) => c.count);
  assert.equal(counts[0], 1, "the first chunk is one trial");
  assert.ok(counts.every((c) => c * 0.5 <= 10), `no chunk longer than a slice: ${counts}`);
  assert.ok(counts.slice(4, -1).every((c) => c === 20), `steady chunks fill the slice: ${counts}`);
});

test("an interactive request goes ahead of the job's next chunk", () => {
  const r = rig();
  r.scheduler.submit(job(1, 1000));
  r.step(); r.step(); // two chunks
  r.scheduler.submit({ id: 2, op: "run", widget: "x", inputs: {} });
  r.step();
  assert.equal(r.calls.at(-1).op, "run");
  assert.deepEqual(r.posted.at(-1), { id: 2, result: { html: "answer run" } });
  r.drain();
  assert.ok(r.posted.some((m) => m.id === 1 && m.result));
});

test("a background request (a run's merge) goes after every request waiting, still ahead of a chunk", () => {
  const r = rig();
  r.scheduler.submit(job(1, 1000));
  r.step(); // a chunk
  r.scheduler.submit({ id: 2, op: "merge", tallies: [], background: true });
  r.scheduler.submit({ id: 3, op: "run", widget: "x", inputs: {} });
  r.scheduler.submit({ id: 4, op: "sample", widget: "x", inputs: {} });
  r.step(); r.step(); r.step();
  assert.deepEqual(r.calls.slice(-3).map((c) => c.op), ["run", "sample", "merge"], "the reader's requests first");
  assert.deepEqual(r.posted.slice(-3).map((m) => m.id), [3, 4, 2]);
  assert.ok(!("background" in r.calls.at(-1)), "the engine is not told the request's priority");
  r.step();
  assert.equal(r.calls.at(-1).op, "estimate");
});

test("cancel stops a job before its next chunk and says so", () => {
  const r = rig();
  r.scheduler.submit(job(1, 100000));
  for (let i = 0; i < 5; i++) r.step();
  const chunksBefore = r.calls.length;
  r.scheduler.submit({ id: 9, op: "cancel", job: 1 });
  r.drain();
  assert.equal(r.calls.length, chunksBefore, "no chunk after the cancel");
  assert.equal(r.posted.find((m) => m.id === 1 && m.error).error.type, "Cancelled");
  assert.deepEqual(r.posted.find((m) => m.id === 9), { id: 9, result: { cancelled: true } });
  assert.ok(!r.posted.some((m) => m.id === 1 && m.result));
});

test("a new job for the same slot replaces the old one", () => {
  const r = rig();
  r.scheduler.submit(job(1, 100000, { slot: "w" }));
  r.step();
  r.scheduler.submit(job(2, 50, { slot: "w" }));
  r.drain();
  assert.equal(r.posted.find((m) => m.id === 1 && m.error).error.message, "the run was replaced");
  assert.equal(r.posted.find((m) => m.id === 2 && m.result).result.trials, 50);
});

test("progress goes out every PROGRESS_MS of work, with HTML rendered only then", () => {
  const r = rig({ perTrialMs: 0.5, sliceMs: 10, progressMs: 250 });
  r.scheduler.submit(job(1, 4000)); // 2000 ms of fake work
  r.drain();
  const progress = r.posted.filter((m) => m.id === 1 && m.progress);
  assert.ok(progress.length >= 6 && progress.length <= 8, `about 2000/250 progress messages: ${progress.length}`);
  assert.ok(progress.every((m) => m.progress.html.startsWith("<p>")));
  // Each with its HTML's digest: the page keeps the digest of what it shows, and an answer whose digest is
  // the one kept is not put in again (simulation.js). Without it, a run again on the same inputs left the
  // last progress's table under "Done" (its digest the whole run's, kept from the run before).
  assert.ok(progress.every((m) => m.progress.digest === `d${m.progress.html.slice(3, -4)}`), "the digest of the HTML");
  const rendered = r.calls.filter((c) => c.render).length;
  assert.equal(rendered, progress.length + 1, "HTML is asked for only when it is posted");
  const done = progress.map((m) => m.progress.done);
  assert.deepEqual(done, [...done].sort((a, b) => a - b));
});

test("two jobs share the engine turn by turn", () => {
  const r = rig();
  r.scheduler.submit(job(1, 200, { slot: "a" }));
  r.scheduler.submit(job(2, 200, { slot: "b" }));
  for (let i = 0; i < 4; i++) r.step();
  const order = r.calls.map((c) => c.first === 0 ? "start" : "more");
  assert.deepEqual(order.slice(0, 2), ["start", "start"], "each job gets its first chunk before either gets a second");
  r.drain();
  assert.equal(r.posted.filter((m) => m.result).length, 2);
});

test("an engine error ends the job with that error", () => {
  const r = rig({ failAt: 3 });
  r.scheduler.submit(job(1, 100));
  r.drain();
  const errors = r.posted.filter((m) => m.id === 1 && m.error);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].error.message, "bad");
  assert.equal(r.scheduler.busy, false);
});

test("a bad trial count is refused at once", () => {
  for (const trials of [0, -1, 1.5, "many", 2 ** 60]) {
    const r = rig();
    r.scheduler.submit(job(1, trials));
    assert.equal(r.posted[0].error.field, "trials");
    assert.equal(r.tasks.length, 0);
  }
});

test("a thrown bridge error is an answer, not a crash", () => {
  const posted = [];
  const tasks = [];
  const s = new Scheduler(() => { throw new Error("boom"); }, (m) => posted.push(m), { defer: (t) => tasks.push(t) });
  s.submit({ id: 1, op: "run" });
  tasks.shift()();
  assert.equal(posted[0].error.type, "BridgeError");
  assert.equal(posted[0].error.message, "the engine could not answer");
});

test("a job for a range of trials starts at its first", () => {
  const r = rig();
  r.scheduler.submit(job(1, 100, { first: 500 }));
  r.drain();
  const final = r.posted.find((m) => m.id === 1 && m.result);
  assert.equal(final.result.tally.sum, sumBelow(600) - sumBelow(500));
  assert.equal(r.calls[0].first, 500);
  const r2 = rig();
  r2.scheduler.submit(job(1, 10, { first: -1 }));
  assert.equal(r2.posted[0].error.field, "first");
});

test("a partial block starts from the worker's tally and chunk, and reports tallies, not HTML", () => {
  const r = rig({ perTrialMs: 0.5, sliceMs: 10, progressMs: 50 });
  const before = { sum: sumBelow(100), n: 100 };
  r.scheduler.submit(job(1, 400, { first: 100, tally: before, chunk: 20, partial: true }));
  r.drain();
  assert.equal(r.calls[0].count, 20, "the first chunk is the size the worker's last block ended with");
  assert.deepEqual(r.calls[0].tally, before, "the block adds into the worker's tally so far");
  assert.ok(r.calls.every((c) => c.render === false), "a block never renders");
  const progress = r.posted.filter((m) => m.progress);
  assert.ok(progress.length >= 2, "progress still goes out");
  assert.ok(progress.every((m) => m.progress.tally && m.progress.html === undefined));
  const final = r.posted.find((m) => m.result);
  assert.deepEqual(final.result.tally, { sum: sumBelow(500), n: 500 });
  assert.equal(final.result.chunk, 20, "the answer says which chunk size the next block may start from");
});

test("a block's starting chunk is bounded and must be a whole number", () => {
  for (const [chunk, first] of [[1e9, 10000], [-3, 1], ["x", 1], [2.5, 1]]) {
    const r = rig();
    r.scheduler.submit(job(1, 20000, { chunk, partial: true }));
    r.step();
    assert.equal(r.calls[0].count, first, `chunk ${chunk}`);
  }
});

test("a job may ask for shorter chunks while the reader is active, never longer ones", () => {
  for (const [slice, most] of [[4, 4], [50, 10], [undefined, 10]]) {
    const r = rig({ perTrialMs: 0.5, sliceMs: 10, progressMs: 250 });
    r.scheduler.submit({ id: 2, op: "run" }); // the reader's change that started the run ...
    r.scheduler.submit(job(1, 2000, slice === undefined ? {} : { slice }));
    for (let id = 3; r.step(); ) { // ... and one every 100 ms of it
      if (r.clock.t >= (id - 2) * 100) r.scheduler.submit({ id: id++, op: "run" });
    }
    const counts = r.calls.filter((c) => c.op === "estimate").map((c) => c.count);
    assert.equal(counts.reduce((a, b) => a + b, 0), 2000);
    assert.equal(Math.max(...counts), most / 0.5, `slice ${slice}: chunks of ${Math.max(...counts)} trials`);
  }
});

test("a job's shorter chunks grow to the usual slice once the reader has been quiet, and shrink when they ask", () => {
  const r = rig({ perTrialMs: 0.5, sliceMs: 10, progressMs: 250 });
  r.scheduler.submit({ id: 1, op: "run" }); // the change that started the run
  r.scheduler.submit(job(2, 4000, { slice: 4 }));
  const chunks = []; // [time it began, trials]
  let asked = null;
  for (let before = r.calls.length; r.step(); before = r.calls.length) {
    const call = r.calls.at(-1);
    if (r.calls.length > before && call.op === "estimate") chunks.push([r.clock.t - call.count * 0.5, call.count]);
    if (asked === null && r.clock.t >= 1000) { asked = r.clock.t; r.scheduler.submit({ id: 3, op: "run" }); }
  }
  const counts = (from, to) => chunks.filter(([t]) => t >= from && t < to).map(([, n]) => n);
  assert.ok(counts(50, QUIET_MS).every((n) => n === 8), `4 ms chunks while the reader is active: ${counts(50, QUIET_MS)}`);
  assert.ok(counts(QUIET_MS + 10, asked).every((n) => n === 20), `10 ms chunks once quiet: ${counts(QUIET_MS + 10, asked)}`);
  assert.ok(counts(asked + 10, asked + QUIET_MS).every((n) => n === 8), "4 ms chunks again after the reader asked");
  assert.ok(counts(asked + QUIET_MS + 10, Infinity).some((n) => n === 20), "and 10 ms once quiet again");
  assert.equal(chunks.reduce((a, [, n]) => a + n, 0), 4000);
});

test("once the engine names a job's inputs the chunks send the name, and the inputs again when it lets them go", () => {
  const r = rig({ perTrialMs: 0.5 });
  const handle = r.scheduler.handle;
  let lost = false; // the engine lets the inputs go once, a third of the way in
  r.scheduler.handle = (request) => {
    if (request.op !== "estimate") return handle(request);
    if (request.inputs === undefined) {
      assert.equal(request.inputs_name, "n1");
      if (!lost && request.first >= 300) {
        lost = true;
        return { error: { type: "InputsGone", message: "send them again" } };
      }
    } else {
      assert.equal(request.inputs_name, undefined);
      assert.deepEqual(request.inputs, { big: true });
    }
    return { ...handle(request), ...(request.inputs ? { inputs_name: "n1" } : {}) };
  };
  r.scheduler.submit(job(1, 1000, { inputs: { big: true } }));
  r.drain();
  const final = r.posted.find((m) => m.id === 1 && m.result);
  assert.deepEqual(final.result.tally, { sum: sumBelow(1000), n: 1000 }, "every trial once");
  const sent = r.calls.filter((c) => c.op === "estimate").map((c) => (c.inputs ? "inputs" : c.inputs_name));
  assert.deepEqual(sent.slice(0, 2), ["inputs", "n1"]);
  assert.equal(sent.filter((x) => x === "inputs").length, 2, `sent the inputs twice in all: ${sent}`);
  assert.ok(sent.length > 10 && sent.at(-1) === "n1");
});

test("a stage of a run to a precision starts from the tally before it and asks with its target", () => {
  const r = rig();
  r.scheduler.submit(job(1, 600, { first: 400, tally: { sum: sumBelow(400), n: 400 }, precision: "1" }));
  r.drain();
  const final = r.posted.find((m) => m.id === 1 && m.result);
  assert.equal(final.result.trials, 600);
  assert.deepEqual(final.result.tally, { sum: sumBelow(1000), n: 1000 });
  assert.ok(r.calls.every((c) => c.precision === "1" && c.first >= 400 && c.first + c.count <= 1000));
  const fixed = rig();
  fixed.scheduler.submit(job(2, 10));
  fixed.drain();
  assert.ok(fixed.calls.every((c) => !("precision" in c)), "a fixed run asks as before");
});

test("between progresses a chunk names its tally, and a tally the engine lets go is run again from the last whole one", () => {
  for (const partial of [false, true]) {
    const r = rig({ perTrialMs: 0.5, progressMs: 50 });
    const handle = r.scheduler.handle;
    const named = new Map(); // the engine's kept tallies, by name
    let lost = false; // the engine lets the tally go once, a third of the way in
    r.scheduler.handle = (request) => {
      if (request.op !== "estimate") return handle(request);
      let tally = request.tally;
      if (request.tally_name !== undefined) {
        assert.equal(request.tally, undefined, "a name or a tally, never both");
        if (!lost && request.first >= 300) { lost = true; named.clear(); }
        if (!named.has(request.tally_name)) return { error: { type: "TallyGone", message: "send it again" } };
        tally = named.get(request.tally_name);
      }
      const answer = handle({ ...request, tally });
      const name = `t${named.size + 1}-${request.first}`;
      named.set(name, answer.tally);
      return request.tally_by_name ? { ...answer, tally: undefined, tally_name: name } : { ...answer, tally_name: name };
    };
    r.scheduler.submit(job(1, 1000, { partial }));
    r.drain();
    const final = r.posted.find((m) => m.id === 1 && m.result);
    assert.deepEqual(final.result.tally, { sum: sumBelow(1000), n: 1000 }, `every trial once (partial ${partial})`);
    const chunks = r.calls.filter((c) => c.op === "estimate");
    const whole = chunks.filter((c) => c.tally_name === undefined);
    assert.ok(lost && whole.length === 2, `the tally itself sent at the start and once after it was let go: ${whole.length}`);
    assert.ok(chunks.filter((c) => c.tally_by_name).length > chunks.length / 2, "most chunks are answered by name");
    const shown = r.posted.filter((m) => m.id === 1 && m.progress);
    assert.ok(shown.length >= 3 && shown.every((m, i) => i === 0 || m.progress.done > shown[i - 1].progress.done),
              "progress never goes back");
    if (partial) {
      assert.ok(shown.every((m) => m.progress.tally.n === m.progress.done), "a progress's tally holds the trials it says");
    } else {
      assert.ok(shown.every((m) => m.progress.html === `<p>${sumBelow(m.progress.done)}</p>`),
                "a progress's estimate holds the trials it says");
    }
  }
});
