// The page's engine client: takes over the worker engine-start.js started,
// watches its boot (restarting a boot that stalls), and sends it requests.
// Every message from a worker is read in one place (`WorkerLink.receive`),
// for the page's engine and the pool's extra workers (pool.js) alike.
//
// Public: new Engine(); engine.state ("loading" | "live" | "failed") and
// engine.stage; onState(listener); call(request, {background}) -> Promise<answer>;
// settled(); job(request, onProgress) -> {done, cancel}; idle(). Tests and benchmarks
// read bootStages, bootOrigin, bootSmallModules, bootRestarts and bootStdlibImport.
// new WorkerLink(worker) is the same without the boot's watchdog and restarts;
// it keeps the boot's heartbeats, so its owner (pool.js) can judge a stall
// by the same rule (`stall`).

// Pyodide hangs rather than fails on some broken set-ups (a .wasm served with
// the wrong type, a dropped download): after this long, say so.
export const BOOT_TIMEOUT_MS = globalThis.rulesExplorerBootTimeoutMs ?? 90_000;
// A boot that stalls is started again in a fresh worker. The booting worker
// sends a heartbeat every second with how far it has come: no message at all
// for STALL_MS means its thread is stuck (Firefox did this now and then,
// NOTES.md); heartbeats that show no progress for STUCK_MS mean it waits for
// something that will not come. The last restart boots without the snapshot.
// A plain boot is never restarted: Python's own start then runs for seconds
// without a heartbeat (over 10 s in WebKit on a busy machine), and there is
// no better boot to restart to; BOOT_TIMEOUT_MS still bounds it. A snapshot
// boot has silent steps too (Pyodide's loader and the restore run without a
// break): 2-4 s each in WebKit on a 2-core machine with three busy processes,
// and past 10 s in a loaded test run (session 20), where a bound of 10 s
// started healthy boots again. Tests shorten the bounds through these globals.
export const STALL_MS = globalThis.rulesExplorerStallMs ?? 20_000;
const STUCK_MS = globalThis.rulesExplorerStuckMs ?? 30_000;
export const RESTARTS = 2;
export const WATCH_EVERY_MS = 500;
const ORDINAL = ["first", "second", "third"];
// A call to the page's engine within this long (ms) means the reader is changing things: the page's own
// runs on that engine (a Monte Carlo run's share, pool.js; a scenario's, scenario.js) step aside meanwhile.
export const READER_ACTIVE_MS = 300;

// The page's side of one engine worker: requests by id, progress by job id.
// Every message a worker sends the page is read here (`receive`); the page's
// own engine (Engine, below) adds the boot's messages and its watchdog, and
// the pool's extra workers (pool.js) are plain links.
export class WorkerLink {
  constructor(worker = null, { now = () => performance.now() } = {}) {
    this.nextId = 1;
    this.now = now;
    this.askedAt = -Infinity; // when the reader's last call was made (not background, not a share): see readerActive
    this.onAsk = null; // told of each such call as it is made (pool.js: a run's trials step off this worker)
    this.pending = new Map(); // request or job id -> its answer's listener
    this.progress = new Map(); // job id -> progress listener
    this.asked = new Set(); // answers awaited of calls (but background ones) in flight: see settled()
    this.state = "loading";
    this.plainBoot = false; // the worker said it boots without the snapshot
    this.lost = false; // failed as a pool worker: what is asked is answered WorkerLost
    this.ready = new Promise((resolve) => { this.becameReady = resolve; });
    if (worker) this.attach(worker);
  }

  attach(worker) {
    this.worker = worker;
    this.started = this.heard = this.moved = this.now(); // when the boot began, was last heard of, last moved on
    this.booting = ""; // how far the boot has come, by its last heartbeat
    worker.onmessage = (event) => { if (this.worker === worker) this.receive(event.data); };
    worker.onerror = (event) => { event.preventDefault?.(); if (this.worker === worker) this.workerError(event); };
  }

  // A message of the worker's own (not an answer); true when it was one.
  hear(data) {
    if (data.type === "ready") {
      this.state = "live";
      this.becameReady(true);
    } else if (data.type === "failed") {
      this.fail();
    } else if (data.type !== "alive" && data.type !== "status") { // the boot's own: `track` reads them
      return false;
    }
    return true;
  }

  workerError() {
    this.fail();
  }

  receive(data) {
    this.track(data);
    if (this.hear(data)) return;
    if (data.progress) {
      this.progress.get(data.id)?.(data.progress);
      return;
    }
    const waiting = this.pending.get(data.id);
    if (!waiting) return;
    this.pending.delete(data.id);
    this.progress.delete(data.id);
    waiting(data);
  }

  // The boot's progress, from any message: the heartbeat `alive` says the worker's thread runs and how far
  // it has come (stages reached, snapshot bytes inflated; engine-boot.js), a `status` that it moved on.
  track(data) {
    this.heard = this.now();
    if (data.type === "alive") {
      const booting = `${data.stages}/${data.bytes}`;
      if (booting !== this.booting) this.moved = this.heard;
      this.booting = booting;
    } else if (data.type === "status") {
      this.moved = this.heard;
      if (data.plain) this.plainBoot = true;
    }
  }

  // Why this worker's boot is stuck ("" while it goes on): no message at all for STALL_MS (its thread is
  // stuck), or heartbeats that show no progress for STUCK_MS (it waits for something that will not come).
  // Not judged while the page is hidden (browsers run its timers late, and may its workers'), nor for a
  // plain boot (Python's own start runs for seconds without a heartbeat): the clock starts again then.
  stall(now = this.now()) {
    if (this.state !== "loading") return "";
    if (globalThis.document?.hidden || this.plainBoot) {
      this.heard = this.moved = now;
      return "";
    }
    if (now - this.heard >= STALL_MS) return "stopped answering";
    if (now - this.moved >= STUCK_MS) return "stopped making progress";
    return "";
  }

  // A pool worker that fails answers everything still waiting with an error, once.
  fail() {
    if (this.lost) return;
    this.lost = true;
    this.state = "failed";
    this.becameReady(false);
    this.worker.terminate();
    for (const [id, waiting] of this.pending) waiting({ id, error: lostError() });
    this.pending.clear();
    this.progress.clear();
  }

  // Whether the reader has asked this worker something within READER_ACTIVE_MS.
  readerActive() {
    return this.now() - this.askedAt < READER_ACTIVE_MS;
  }

  // `background`: work of the page's own (a shared run's merge, pool.js), which the worker answers only
  // when no other request waits (scheduler.js) and which waits for the calls in flight (`settled`).
  // `share`: a call of a run of the page's own that waits for the reader's pause (scenario.js), answered in
  // turn like the reader's but not one: it leaves the reader quiet, and `settled` does not wait for it.
  call(request, { background = false, share = false } = {}) {
    const id = this.nextId++;
    if (this.lost) return Promise.resolve({ id, error: lostError() });
    const answer = new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, ...request, ...(background ? { background: true } : {}) });
    });
    if (!background && !share) {
      this.askedAt = this.now();
      this.onAsk?.();
      this.asked.add(answer);
      answer.then(() => this.asked.delete(answer));
    }
    return answer;
  }

  // Resolves once no call of the reader's (background ones and shares are not) is in flight, and the caller
  // of the last has had its answer: the page's own work goes after the reader's, never ahead. Waiting only for
  // the calls in flight when asked let a merge go out behind a slow call (a calculator's note) while the next
  // change's result was already in flight. Changes come from a person, so a gap comes soon; calls that keep
  // coming without one (a scenario streaming its calls here, with no extra worker) are waited for until
  // `patienceMs` has passed, and then only those in flight at that moment.
  async settled(patienceMs = Infinity) {
    const until = this.now() + patienceMs;
    while (this.asked.size) {
      await Promise.all([...this.asked]);
      if (this.now() >= until) return;
    }
  }

  // A Monte Carlo run in the worker's scheduler: `onProgress` hears how far it
  // has come a few times a second; `done` resolves with the last answer (or an
  // error, type "Cancelled" when stopped or replaced).
  job(request, onProgress) {
    const id = this.nextId++;
    if (this.lost) return { done: Promise.resolve({ id, error: lostError() }), cancel: () => {} };
    this.progress.set(id, onProgress);
    const done = new Promise((resolve) => this.pending.set(id, resolve));
    this.worker.postMessage({ id, op: "job", ...request });
    return { done, cancel: () => { if (!this.lost) this.worker.postMessage({ op: "cancel", job: id }); } };
  }

  // Resolves once every request sent so far has been answered (benchmarks use it).
  async idle() {
    while (this.pending.size) {
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
}

function lostError() {
  return { type: "WorkerLost", field: "", allowed: "", message: "an engine worker stopped" };
}

// The page's own engine: a worker link plus the boot's watchdog, restarts
// and states.
export class Engine extends WorkerLink {
  constructor() {
    super();
    this.listeners = new Set();
    this.stage = "Starting the engine";
    this.restarts = 0;
    this.restartNote = ""; // says why the engine was started again, from then on
    // engine-start.js starts the worker, the one place that does (it may have
    // done so while the page was parsed).
    if (!this.adopt(window.rulesExplorerWorker ?? window.rulesExplorerStartEngine?.())) {
      this.setState("failed", typeof Worker === "undefined"
        ? "this browser cannot run it (no Web Workers)" : "its start-up script did not load");
      return;
    }
    this.watchdog = setInterval(() => this.watch(), WATCH_EVERY_MS);
  }

  // Takes over a worker from engine-start.js and replays what it said so far.
  adopt(worker) {
    delete window.rulesExplorerWorker;
    if (!worker) return false;
    const began = this.started;
    this.attach(worker);
    this.started = began ?? this.started; // BOOT_TIMEOUT_MS counts from the first start
    for (const item of worker.early ?? []) {
      if (item.type === "message") this.receive(item.data);
      else this.setState("failed", item.message || "the engine worker could not start");
    }
    return true;
  }

  workerError(event) {
    this.setState("failed", event.message || "the engine worker could not start");
  }

  watch() {
    if (this.state !== "loading") return;
    const now = this.now();
    if (now - this.started >= BOOT_TIMEOUT_MS) {
      this.setState("failed", `it did not start within ${Math.round(BOOT_TIMEOUT_MS / 1000)} s`);
      this.worker.terminate();
    } else if (this.restarts >= RESTARTS) {
      this.heard = this.moved = now; // the last restart is left to BOOT_TIMEOUT_MS
    } else {
      const why = this.stall(now);
      if (why) this.restart(why);
    }
  }

  // Replaces a stalled worker with a fresh one; the last one boots plainly.
  restart(why) {
    this.worker.terminate();
    this.restarts++;
    const plain = this.restarts === RESTARTS;
    this.restartNote = `, on its ${ORDINAL[this.restarts]} start (the ${ORDINAL[this.restarts - 1]} ${why})`;
    this.setState("loading", `Starting the engine again${plain ? " without the snapshot" : ""}`);
    if (!this.adopt(window.rulesExplorerStartEngine?.({ plain }))) this.setState("failed", "it could not be started again");
  }

  // The boot's messages; answers and progress are the link's.
  hear(data) {
    if (data.type === "alive") return true; // the booting worker's heartbeat (`track`)
    if (data.type === "status") {
      this.setState("loading", data.detail + this.restartNote);
      return true;
    }
    if (data.type === "ready") {
      document.documentElement.dataset.boot = data.boot; // "snapshot", or "plain" when the snapshot failed
      this.bootStages = data.stages;
      this.bootOrigin = data.timeOrigin; // the worker's performance.timeOrigin, which its stages count from
      this.bootSmallModules = data.smallModules; // {asked, compiled}: see compileSmallModulesOnce
      this.bootStdlibImport = data.stdlibImport; // only with ?test-import (engine-boot.js)
      this.bootRestarts = this.restarts;
      performance.mark("engine-ready");
      const fallback = data.fallback ? `, started without the snapshot (${data.fallback})` : "";
      this.setState("live", `Live: the engine answered after ${data.ms} ms${fallback}${this.restartNote}.`);
      this.becameReady(true);
      return true;
    }
    if (data.type === "failed") {
      this.setState("failed", data.message);
      return true;
    }
    if (data.type === "warm") { // the worker has warmed its WebAssembly up: answers are at full speed
      this.bootStages = data.stages;
      document.documentElement.dataset.engineWarmMs = String(Math.round(performance.now()));
      document.documentElement.dataset.engineWarmRequests = String(data.requests ?? 0);
      return true;
    }
    return false;
  }

  setState(state, detail) {
    if (this.state === "failed") return; // a failed engine stays failed (the watchdog may have fired)
    if (state !== "loading") clearInterval(this.watchdog);
    this.state = state;
    this.stage = detail;
    for (const listener of this.listeners) listener(state, detail);
  }

  onState(listener) {
    this.listeners.add(listener);
    listener(this.state, this.stage);
  }
}
