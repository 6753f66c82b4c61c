// The engine worker's request scheduler.
//
// Python answers one call at a time and hears nothing while it runs, so the
// worker never hands it a long job in one piece. Two kinds of message arrive:
//
// - interactive requests ({id, op: "run" | "sample" | "from_link" | ...}): a
//   reader changed an input and waits; each goes ahead of any job chunk.
//   A request marked `background: true` (the page's merge of a shared run's
//   tallies, pool.js) goes after every other request waiting, but still
//   ahead of a job's chunk: a reader's change never queues behind it.
// - jobs ({id, op: "job", widget, inputs, seed, trials, first?, slot}): a
//   Monte Carlo run of trials first .. first + trials - 1 (first defaults to
//   0; a page that splits one run across several workers gives each a range). The scheduler asks the engine's `estimate` op for a chunk
//   of trials at a time, carrying the tally from one chunk to the next (and,
//   once the engine has named the inputs, their name instead of the inputs; between two
//   progresses, the name of the tally the engine answered with instead of the tally), and
//   sizes the chunks so each takes about SLICE_MS: between two chunks every
//   queued request is answered and a `cancel` is heard. Progress (trials
//   done, the estimate so far as HTML) goes out about every PROGRESS_MS; the
//   last chunk's answer is the job's result. A job for a slot that already
//   has one (a widget asking again) replaces it.
//
//   A job that is one block of a run shared by several workers (pool.js)
//   says `partial: true`: its progress carries the tally instead of HTML
//   (the page merges every worker's tally and has one worker render them),
//   and it may start from the worker's `tally` so far and from the `chunk`
//   size the worker's last block ended with, and ask for chunks shorter than
//   SLICE_MS (`slice`, ms). Its first chunk is reported at once, so the page
//   learns what a trial costs.
//
// A turn is one task of the worker's event loop: one request or one chunk.
// Turns are queued through a MessageChannel, not setTimeout, whose nested
// calls browsers stretch to 4 ms each. Nothing here needs SharedArrayBuffer
// or special headers: it works on any static host.
//
// The scheduler knows nothing of Pyodide: `handle(request)` is the engine's
// synchronous entry point (JSON data in, {result} or {error} out), and
// `post(message)` talks to the page. Both are injected, so the tests drive it
// in Node with a fake engine and a fake clock.

export const SLICE_MS = 10;
export const PROGRESS_MS = 250;
// A job's shorter chunks (a `slice` it asks for: the page's own worker, which answers the reader) hold only
// while the reader is active: once no request has come for this long (ms), its chunks are SLICE_MS again.
// A chunk's fixed cost (the request read and the answer written, the chunk's trials merged into the run's
// tally: about 0.15 ms of AT Gold's in Pyodide now that the tally itself travels only at a progress, against
// 0.7 ms when it travelled every chunk) is a small part of a 4 ms chunk; a reader coming back waits behind one
// chunk at most, and every request after that behind short ones again.
export const QUIET_MS = 300;
const MAX_GROWTH = 4; // a chunk grows at most this many times over the last one
const MAX_START_CHUNK = 10_000; // a block's first chunk, from the worker's last block, at most

function channelDefer() {
  if (typeof MessageChannel === "undefined") return (task) => setTimeout(task, 0);
  const channel = new MessageChannel();
  const tasks = [];
  channel.port1.onmessage = () => tasks.shift()();
  return (task) => {
    tasks.push(task);
    channel.port2.postMessage(null);
  };
}

export class Scheduler {
  constructor(handle, post, { now = () => performance.now(), defer = channelDefer(), sliceMs = SLICE_MS,
                              progressMs = PROGRESS_MS, onIdle = () => {} } = {}) {
    this.handle = handle;
    this.post = post;
    this.now = now;
    this.defer = defer;
    this.sliceMs = sliceMs;
    this.progressMs = progressMs;
    this.onIdle = onIdle; // called once the queue has run dry
    this.requests = [];
    this.later = []; // background requests: answered only when no other request waits
    this.jobs = []; // in turn order: the next chunk goes to jobs[0]
    this.askedAt = -Infinity; // when the last request (but a background one) came: see QUIET_MS
    this.scheduled = false;
  }

  // One message from the page.
  submit(message) {
    const { id, op } = message;
    if (op === "cancel") {
      const job = this.jobs.find((j) => j.id === message.job);
      if (job) this.drop(job, "cancelled");
      if (id !== undefined) this.post({ id, result: { cancelled: Boolean(job) } });
      return;
    }
    if (op === "job") {
      const previous = message.slot !== undefined ? this.jobs.find((j) => j.slot === message.slot) : null;
      if (previous) this.drop(previous, "replaced");
      const trials = Number(message.trials);
      const first = Number(message.first ?? 0);
      if (!Number.isSafeInteger(trials) || trials < 1) {
        this.post({ id, error: { type: "InputError", field: "trials", allowed: "",
                                 message: "trials: enter a whole number of at least 1" } });
        return;
      }
      if (!Number.isSafeInteger(first) || first < 0) {
        this.post({ id, error: { type: "InputError", field: "first", allowed: "",
                                 message: "first: the first trial is a whole number of at least 0" } });
        return;
      }
      const chunk = Number(message.chunk ?? 1);
      this.jobs.push({
        id, slot: message.slot, trials, first, done: 0, started: this.now(),
        // `kept` is the last tally received whole and the trials of the job it holds. Between two progresses a
        // chunk names the tally the engine answered the last with (`tallyName`) and is answered with its name.
        kept: { tally: message.tally ?? null, done: 0 }, tallyName: null,
        chunk: Number.isSafeInteger(chunk) && chunk >= 1 ? Math.min(chunk, MAX_START_CHUNK) : 1,
        partial: message.partial === true, lastProgress: this.now(),
        // A job may ask for shorter chunks (pool.js: the page's own worker, which answers the reader).
        slice: Number.isFinite(message.slice) ? Math.min(Math.max(message.slice, 1), this.sliceMs) : this.sliceMs,
        request: { op: "estimate", widget: message.widget, inputs: message.inputs, seed: message.seed,
                   // A job of one trial may be a probe: the engine abandons it (error "Slow") if it would take long.
                   ...(message.probe === true && trials === 1 ? { probe: true } : {}),
                   // A stage of a run to a precision (simulation.js): each answer says where the run stands.
                   ...(message.precision !== undefined ? { precision: message.precision } : {}) },
      });
    } else if (message.background === true) {
      const { background, ...request } = message;
      this.later.push(request);
    } else {
      this.askedAt = this.now();
      this.requests.push(message);
    }
    this.wake();
  }

  // Whether a job or request is waiting (the worker's warm-up waits for none).
  get busy() {
    return this.requests.length > 0 || this.later.length > 0 || this.jobs.length > 0;
  }

  wake() {
    if (this.scheduled) return;
    this.scheduled = true;
    this.defer(() => this.turn());
  }

  turn() {
    this.scheduled = false;
    if (this.requests.length) this.answer(this.requests.shift());
    else if (this.later.length) this.answer(this.later.shift());
    else if (this.jobs.length) this.chunk(this.jobs[0]);
    if (this.busy) this.wake();
    else this.onIdle();
  }

  answer({ id, ...request }) {
    this.post(this.call(id, request));
  }

  // The engine's answer as a message: {id, result} or {id, error}.
  call(id, request) {
    let answer;
    try {
      answer = this.handle(request);
    } catch (err) {
      return { id, error: { type: "BridgeError", field: "", allowed: "", message: "the engine could not answer",
                            detail: String(err) } };
    }
    return answer.error ? { id, error: answer.error } : { id, result: answer };
  }

  chunk(job) {
    // `job.chunk` is sized to the job's own slice; a quiet reader's page gets chunks of the usual one.
    const quiet = job.slice < this.sliceMs && this.now() - this.askedAt >= QUIET_MS;
    const count = Math.min(quiet ? Math.floor(job.chunk * this.sliceMs / job.slice) : job.chunk, job.trials - job.done);
    const last = job.done + count >= job.trials;
    const due = this.now() - job.lastProgress >= this.progressMs;
    const render = !job.partial && (last || due);
    // The tally itself travels only when it is shown or handed on: at a progress, a block's first chunk and the end.
    const whole = last || due || job.done === 0;
    const started = this.now();
    const reply = this.call(job.id, { ...job.request, first: job.first + job.done, count, render,
                                      ...(job.tallyName ? { tally_name: job.tallyName } : { tally: job.kept.tally }),
                                      ...(whole ? {} : { tally_by_name: true }) });
    const took = this.now() - started;
    if (reply.error?.type === "InputsGone" && job.inputs !== undefined) { // the engine let them go: send them again
      const { inputs_name: _, ...request } = job.request;
      job.request = { ...request, inputs: job.inputs };
      delete job.inputs;
      return;
    }
    if (reply.error?.type === "TallyGone") { // the engine let it go: the trials since the last whole one again
      Object.assign(job, { done: job.kept.done, tallyName: null });
      return;
    }
    if (reply.error) {
      this.remove(job);
      this.post(reply);
      return;
    }
    if (reply.result.inputs_name !== undefined && job.request.inputs !== undefined) {
      // The engine holds the inputs by this name: the next chunks send the name, not the inputs again.
      const { inputs, ...request } = job.request;
      job.inputs = inputs;
      job.request = { ...request, inputs_name: reply.result.inputs_name };
    }
    job.done += count;
    job.tallyName = reply.result.tally_name ?? null;
    if (reply.result.tally !== undefined) job.kept = { tally: reply.result.tally, done: job.done };
    // Aim the next chunk at one slice; grow gently, since the first calls run
    // before the WebAssembly is optimised.
    const perTrial = Math.max(took, 0.01) / count;
    job.chunk = Math.max(1, Math.min(Math.floor(job.slice / perTrial), count * MAX_GROWTH));
    const elapsed = Math.round(this.now() - job.started);
    if (last) {
      this.remove(job);
      this.post({ id: job.id, result: { ...reply.result, trials: job.done, elapsed, chunk: job.chunk } });
      return;
    }
    // Round robin: the next chunk goes to the next job.
    this.jobs.push(this.jobs.shift());
    // A block's first chunk is reported at once: the pool learns the trials' cost from it (pool.js).
    if (job.partial ? due || job.done === count : render) {
      job.lastProgress = this.now();
      const shown = job.partial ? { tally: job.kept.tally }
        : { html: reply.result.html, digest: reply.result.digest, precision: reply.result.precision };
      this.post({ id: job.id, progress: { done: job.done, trials: job.trials, elapsed, ...shown } });
    }
  }

  drop(job, why) {
    this.remove(job);
    this.post({ id: job.id, error: { type: "Cancelled", field: "", allowed: "", message: `the run was ${why}`,
                                     done: job.done } });
  }

  remove(job) {
    this.jobs = this.jobs.filter((j) => j !== job);
  }
}
