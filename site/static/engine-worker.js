// One module worker per page: boots Pyodide once with the engine, and answers
// {id, op, widget, inputs, base?, seed?, params?} with {id, result} or
// {id, error: {type, message, field, allowed}}. Requests are passed to Python
// as JSON text (data), never as Python source.
//
// The boot (Pyodide from the memory snapshot, or plainly) is engine-boot.js;
// requests go through the scheduler (scheduler.js). Messages to the page all
// go through `post`.

import { boot, stage, stages } from "./engine-boot.js";

const post = (message) => self.postMessage(message);

// WebAssembly runs in V8's baseline tier at first and is optimised once it has
// run a while: the first few dozen answers after a start take about twice as
// long as later ones. So while the page is quiet (no request for
// WARM_QUIET_MS) the worker answers requests of its own, every widget's
// (engine.api.warm_up_requests) WARM_ROUNDS times, one per task so that a
// page's request never waits behind more than one, then tells the page "warm".
// Measured on the Small General page: recompute p95 about 18 ms without, 11-12 ms with.
// It costs a page load about 1.3 s of CPU, which the tests (two browsers on two
// cores) spend elsewhere: a page that sets globalThis.rulesExplorerWarmUp to
// false starts its worker with ?warm=0 (engine-start.js) and skips the rounds;
// the rest (the "warm" stage, the standard library fetched after) is as ever.
const WARM_QUIET_MS = 100;
const WARM_ROUNDS = 3;
const warmUp = { handle: null, queue: null, timer: 0, done: false, answered: 0 };

function warmLater() {
  clearTimeout(warmUp.timer);
  if (!warmUp.done && warmUp.handle) warmUp.timer = setTimeout(warmStep, WARM_QUIET_MS);
}

function warmStep() {
  try {
    warmUp.queue ??= WARM ? Array(WARM_ROUNDS).fill(warmUp.handle.warmUpRequests()).flat() : [];
    const request = warmUp.queue.shift();
    if (request) {
      warmUp.handle(request);
      warmUp.answered += 1;
      warmUp.timer = setTimeout(warmStep, 0);
      return;
    }
  } catch {
    // Only a head start: the page's own requests report their errors.
  }
  warmUp.done = true;
  stage("warm");
  post({ type: "warm", stages, requests: warmUp.answered });
  warmUp.handle.stdlib?.fetchLater();
}

const params = new URL(import.meta.url).searchParams;
// An extra worker of a page's pool (pool.js) runs Monte Carlo blocks only,
// which warm up what they use: it skips the warm-up.
const HELPER = params.get("role") === "helper";
const WARM = params.get("warm") !== "0";
const ready = boot(post, params);
// After a snapshot boot, Python's standard library is fetched once the page's
// first answers and the warm-up are done, so that it shares the network with
// nothing the reader waits for (engine-boot.js). An extra worker never fetches
// it ahead: its blocks import nothing the snapshot lacks, and an import that
// did would fetch the zip there and then; the 2.5 MB would otherwise sit in
// every extra worker's memory for nothing.
ready.then((handle) => {
  if (!HELPER) { warmUp.handle = handle; warmLater(); }
}, () => {});
ready.catch((err) => {
  post({ type: "failed", message: String(err && err.message ? err.message : err) });
});

// Requests go through the scheduler (scheduler.js): a reader's requests go
// ahead of Monte Carlo chunks, which are cut to about 10 ms each so that a
// cancel or a change is heard between two. Imported once the boot has
// started, so its fetch does not hold the boot back. If it cannot load (the
// network gone before the site was saved, or the page closing while a worker
// starts), the worker says it failed, as a boot that failed does: nothing is
// left as an unhandled rejection, and a request gets EngineUnavailable.
const scheduling = import("./scheduler.js");
scheduling.catch((err) => {
  post({ type: "failed", message: `its scheduler could not be loaded (${err && err.message ? err.message : err})` });
});
let scheduler = null;

async function getScheduler() {
  if (scheduler) return scheduler;
  const [{ Scheduler }, handle] = await Promise.all([scheduling, ready]);
  scheduler ??= new Scheduler((request) => {
    const answer = handle(request);
    if (answer.error?.detail) console.warn(`engine: ${answer.error.detail}`); // for developers, not readers
    return answer;
  }, post, { onIdle: warmLater });
  return scheduler;
}

self.onmessage = async (event) => {
  clearTimeout(warmUp.timer); // the page's request goes first
  const message = event.data || {};
  let s;
  try {
    s = await getScheduler();
  } catch (err) {
    post({ id: message.id, error: { type: "EngineUnavailable", message: "the engine could not start", field: "", allowed: "" } });
    return;
  }
  s.submit(message);
};
