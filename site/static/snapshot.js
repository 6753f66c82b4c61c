// The Pyodide memory snapshot made at build time: downloading it, inflating it,
// and restoring it into Pyodide's memory.
//
// The engine worker imports it and calls fetchSnapshot and readSnapshot;
// tools/make_snapshot.mjs imports it too, to check the snapshot it writes.
//
// The build ships the snapshot sparse. About half of Pyodide's memory is
// all-zero pages, which a fresh WebAssembly memory already is, and another
// 3 MB are pages the fresh runtime already holds as the snapshot has them
// (the WebAssembly's own data, never written since): the file keeps only the
// other pages (SPARSE_MAGIC below), 14 MB instead of 31 MB to inflate and
// copy. Each page left to the runtime comes with a checksum, checked before
// the restore: a runtime that holds something else there is not restored
// into. A plain Pyodide snapshot ("\0snp", what makeMemorySnapshot returns)
// is read too.

const PYODIDE_MAGIC = 0x706e7300; // "\0snp" as Pyodide writes it (little-endian u32)
export const SPARSE_MAGIC = 0x70737200; // "\0rsp": ours
export const SPARSE_VERSION = 2;
// A sparse snapshot, all numbers little-endian u32:
//   0  SPARSE_MAGIC          4  SPARSE_VERSION
//   8  length of the plain snapshot it stands for (what Pyodide sizes its memory by)
//   12 header: length of Pyodide's header, which precedes the memory image
//   16 page size              20 n, the number of pages kept
//   24 m, the number of pages the fresh runtime holds already
//   28 the n kept page numbers, ascending; the m held page numbers, ascending;
//      the m held pages' checksums (pageSum); then Pyodide's header; then the
//      n kept pages.
// Page k covers bytes [header + k * page, header + (k + 1) * page) of the plain
// snapshot, which is memory [k * page, (k + 1) * page). Every other page of
// the image is all zero.
export const SPARSE_FIXED = 28;

// A page's checksum: FNV-1a over its little-endian 32-bit words.
export function pageSum(bytes, at, length) {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + at, length / 4);
  let sum = 0x811c9dc5;
  for (let i = 0; i < words.length; i++) sum = Math.imul(sum ^ words[i], 0x01000193);
  return sum >>> 0;
}

export function reason(err) {
  return String(err && err.message ? err.message : err).split("\n")[0];
}

// The snapshot a file holds, plain or sparse: `length` is the plain snapshot's
// length, which Pyodide asks its memory to be (fitMemory makes sure it is),
// and `restoreInto(module)` makes a freshly created Pyodide module restore this
// snapshot when Pyodide next asks for its restore (module.API.restoreSnapshot,
// for one use: afterwards neither the module nor the hook holds the bytes).
export function readSnapshot(bytes) {
  const words = bytes.length >= SPARSE_FIXED ? new DataView(bytes.buffer, bytes.byteOffset, SPARSE_FIXED) : null;
  const magic = words && words.getUint32(0, true);
  let image;
  if (magic === PYODIDE_MAGIC && bytes.length > 64) image = denseSnapshot(bytes);
  else if (magic === SPARSE_MAGIC && words.getUint32(4, true) === SPARSE_VERSION) image = sparseSnapshot(bytes);
  else throw new Error("the snapshot is not a Pyodide memory snapshot");
  return {
    length: image.length,
    restoreInto(module) {
      const pyodideRestore = module.API.restoreSnapshot;
      module.API.restoreSnapshot = () => {
        module.API.restoreSnapshot = pyodideRestore;
        return image.restore(module, pyodideRestore);
      };
    },
  };
}

function denseSnapshot(bytes) {
  return {
    length: bytes.length,
    // Pyodide's own restore: it checks the header and copies the memory image.
    restore: (module, pyodideRestore) => {
      const header = new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(4, true);
      fitMemory(module, bytes.length - header);
      return pyodideRestore(bytes);
    },
  };
}

// The runtime's memory, grown to hold a memory image of `image` bytes first.
// Pyodide sizes a restoring runtime's memory by the snapshot (INITIAL_MEMORY),
// but its WebAssembly makes its own memory, so the setting has no effect: the
// fresh runtime has what its start grew to, which is less than the snapshot's
// whenever the snapshot was taken after Python's heap grew further (a larger
// warm-up, another machine). Pyodide's own restore then fails to copy.
function fitMemory(module, image) {
  if (module.HEAPU8.length < image && !module.growMemory(image)) {
    throw new Error(`the snapshot does not fit Pyodide's memory (${image} bytes could not be had)`);
  }
  return module.HEAPU8;
}

function sparseSnapshot(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [length, header, pageSize, count, held] = [8, 12, 16, 20, 24].map((at) => view.getUint32(at, true));
  const pagesAt = SPARSE_FIXED + 4 * (count + 2 * held) + header;
  const image = length - header; // the memory the snapshot covers
  if (bytes.length !== pagesAt + count * pageSize || pageSize % 4 !== 0 || image % pageSize !== 0) {
    throw new Error("the snapshot is corrupt: its sparse layout does not add up");
  }
  const pageCount = image / pageSize;
  const listed = (at, n) => {
    const out = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      out[i] = view.getUint32(at + 4 * i, true);
      if ((i > 0 && out[i] <= out[i - 1]) || out[i] >= pageCount) {
        throw new Error("the snapshot is corrupt: its page list is out of order");
      }
    }
    return out;
  };
  const pages = listed(SPARSE_FIXED, count);
  const heldPages = listed(SPARSE_FIXED + 4 * count, held);
  const heldSums = new Uint32Array(held).map((_, i) => view.getUint32(SPARSE_FIXED + 4 * (count + held + i), true));
  // What each page of the image is: KEPT + its index in the file, HELD, or zero.
  const HELD = -1;
  const ZERO = -2;
  const kind = new Int32Array(pageCount).fill(ZERO);
  pages.forEach((k, i) => { kind[k] = i; });
  for (const k of heldPages) {
    if (kind[k] !== ZERO) throw new Error("the snapshot is corrupt: a page is both kept and held");
    kind[k] = HELD;
  }
  const headerBytes = bytes.subarray(pagesAt - header, pagesAt);
  const page = (i) => bytes.subarray(pagesAt + i * pageSize, pagesAt + (i + 1) * pageSize);
  return {
    length,
    // The held pages are checked first: a runtime that does not hold them as
    // the snapshot has them is refused before anything is written. Pyodide
    // then checks the header (magic, build id) and reads its settings from
    // it; handed the header alone, it copies no memory. Then the kept pages
    // go in, and the all-zero ones are cleared where the fresh runtime has
    // written: below its break (sbrk(0)). Above it the memory is still as
    // WebAssembly made it, all zero. tools/make_snapshot.mjs checks, byte for
    // byte, that this restores the same memory as Pyodide's own restore.
    restore(module, pyodideRestore) {
      const heap = fitMemory(module, image);
      heldPages.forEach((k, i) => {
        if (pageSum(heap, k * pageSize, pageSize) !== heldSums[i]) {
          throw new Error(`the snapshot does not fit this runtime: its memory page ${k} differs`);
        }
      });
      const settings = pyodideRestore(headerBytes);
      const written = Math.min(module._sbrk(0) >>> 0, image);
      for (let k = 0; k < pageCount; k++) {
        const at = k * pageSize;
        if (kind[k] >= 0) heap.set(page(kind[k]), at);
        else if (kind[k] === ZERO && at < written) heap.fill(0, at, Math.min(at + pageSize, written));
      }
      return settings;
    },
  };
}

// Fills one buffer with a stream's chunks. A sparse snapshot says its own
// length in its first bytes; a plain one is expected to be `size` long (the
// page's figure, from the build), and the buffer grows if it is longer.
class Sink {
  constructor(size) {
    this.size = size;
    this.bytes = null;
    this.length = 0;
    this.head = [];
  }

  push(chunk) {
    if (!this.bytes) {
      this.head.push(chunk);
      const seen = this.head.reduce((n, c) => n + c.length, 0);
      if (seen < SPARSE_FIXED) return;
      const head = concat(this.head, seen);
      this.head = null;
      this.bytes = new Uint8Array(Math.max(expectedLength(head, this.size), seen));
      chunk = head;
    }
    if (this.length + chunk.length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(2 * this.bytes.length, this.length + chunk.length));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.bytes.set(chunk, this.length);
    this.length += chunk.length;
  }

  done() {
    if (!this.bytes) return concat(this.head, this.head.reduce((n, c) => n + c.length, 0));
    return this.length === this.bytes.length ? this.bytes : this.bytes.subarray(0, this.length);
  }
}

function concat(chunks, length) {
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}

function expectedLength(head, size) {
  const view = new DataView(head.buffer, head.byteOffset, SPARSE_FIXED);
  if (view.getUint32(0, true) !== SPARSE_MAGIC || view.getUint32(4, true) !== SPARSE_VERSION) return size;
  const [header, pageSize, count, held] = [12, 16, 20, 24].map((at) => view.getUint32(at, true));
  return SPARSE_FIXED + 4 * (count + 2 * held) + header + count * pageSize;
}

// A stream of `first` and then whatever `reader` still has.
function streamOf(first, reader) {
  return new ReadableStream({
    start(controller) { if (first) controller.enqueue(first); },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(why) { return reader.cancel(why); },
  });
}

// The bytes of a snapshot file, inflated here as they arrive, into one buffer
// of the right size. The build ships it brotli-compressed (3.4 MB, where gzip
// makes 4.8 MB), which DecompressionStream cannot read: `brotli()` loads the
// decoder the site ships (engine-boot.js starts it loading beside the
// download). A gzipped file is read too, and so is a plain one (a server that
// decoded it on the way, by Content-Encoding, is fine; so is the inflated copy
// the service worker keeps, see KEPT_CACHE). Which it is, the first bytes
// tell: gzip's magic, a snapshot's own, or else brotli (which has no magic;
// the build's stream never starts with a zero byte, as a snapshot's magic
// does). `size` is the page's figure for a plain snapshot's length; a sparse
// one says its own. `progress(n)` is told the number of bytes inflated so far,
// chunk by chunk.
//
// Resolves with {bytes, kept, brotli}: `kept` is the X-Inflated-From of a kept
// copy the service worker served (else null); `brotli` holds the file as it
// came when it was brotli and `keep` was asked for (for the digest that names
// a kept copy: keepInflated), else null.
export async function fetchSnapshot(url, { size = 0, progress = () => {}, brotli = noBrotli, keep = false,
  request = fetch } = {}) {
  let response;
  try {
    response = await request(url);
  } catch (err) {
    throw new Error(`the snapshot did not download: ${reason(err)}`);
  }
  if (!response.ok) throw new Error(`the snapshot did not download: HTTP ${response.status}`);
  const kept = response.headers.get(KEPT_FROM);
  const chunks = keep && !kept ? [] : null;
  let used = false;
  const body = chunks ? response.body.pipeThrough(new TransformStream({
    transform(chunk, controller) { chunks.push(chunk); controller.enqueue(chunk); },
  })) : response.body;
  let bytes;
  try {
    bytes = await inflateSnapshot(body, size, progress, () => { used = true; return brotli(); });
  } catch (err) {
    err.kept = kept; // the caller drops a kept copy it could not read
    throw err;
  }
  return { bytes, kept, brotli: used && chunks ? concat(chunks, chunks.reduce((n, c) => n + c.length, 0)) : null };
}

// The inflated snapshot kept for later visits. Inflating the brotli file
// takes 0.5-0.8 s in Chromium and Firefox, 2.5 s in WebKitGTK, on every boot;
// so once a page's own worker has booted from it, it puts the sparse bytes in
// Cache Storage (KEPT_CACHE, one entry per snapshot URL), marked with the
// SHA-256 of the brotli file they came from (KEPT_FROM). The site's service
// worker (site/service-worker.js, which names the same cache and header)
// answers the snapshot's URL with that copy only when the mark is the digest
// of its own build's brotli file: the copy is then that file inflated, so a
// runtime is never paired with another build's snapshot, however the copy
// got there (a first visit before the service worker was installed, or an
// older build). Without a service worker nothing reads the copy, and the
// brotli file is inflated on every boot as before; a kept copy the boot could
// not read is dropped (dropInflated) and the brotli file asked for again.
export const KEPT_CACHE = "rules-explorer:inflated";
export const KEPT_FROM = "X-Inflated-From";

export async function sha256(bytes) {
  return Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
    (b) => b.toString(16).padStart(2, "0")).join("");
}

// Keeps `bytes` (the sparse snapshot inflated from the brotli file `brotli`)
// as `url`'s copy, unless the copy there is already this one. True if written.
export async function keepInflated(url, bytes, brotli, storage = globalThis.caches) {
  const from = await sha256(brotli);
  const cache = await storage.open(KEPT_CACHE);
  const old = await cache.match(url);
  if (old && old.headers.get(KEPT_FROM) === from) return false;
  await cache.put(url, new Response(bytes, { headers: { "Content-Type": "application/octet-stream", [KEPT_FROM]: from } }));
  return true;
}

export async function dropInflated(url, storage = globalThis.caches) {
  return (await storage.open(KEPT_CACHE)).delete(url);
}

async function noBrotli() {
  throw new Error("no brotli decoder");
}

// A snapshot file's stream (see fetchSnapshot), inflated: the snapshot's bytes.
export async function inflateSnapshot(body, size = 0, progress = () => {}, brotli = noBrotli) {
  const reader = body.getReader();
  const sink = new Sink(size);
  let stream;
  try {
    const head = await readAtLeast(reader, 4);
    stream = streamOf(head, reader);
    if (head && head[0] === 0x1f && head[1] === 0x8b) {
      stream = stream.pipeThrough(new DecompressionStream("gzip"));
    } else if (head && !isSnapshotMagic(head)) {
      let decoder;
      try {
        decoder = await brotli();
      } catch (err) {
        throw new Error(`the snapshot's brotli decoder did not load: ${reason(err)}`);
      }
      stream = stream.pipeThrough(brotliStream(decoder));
    }
  } catch (err) {
    reader.cancel().catch(() => {});
    if (String(err && err.message).startsWith("the snapshot")) throw err;
    throw new Error(`the snapshot did not download: ${reason(err)}`);
  }
  try {
    for (const out = stream.getReader(); ;) {
      const { done, value } = await out.read();
      if (done) break;
      sink.push(value);
      progress(sink.length);
    }
  } catch (err) {
    if (err instanceof NotBrotli) throw new Error("the snapshot is not a Pyodide memory snapshot"); // nor gzip, nor brotli
    throw new Error(`the snapshot is corrupt: ${reason(err)}`);
  }
  const bytes = sink.done();
  readSnapshot(bytes); // throws now, with the reason, if it is not one
  return bytes;
}

// The stream's first chunks, joined until they hold `n` bytes (or the stream
// ended): null for an empty stream.
async function readAtLeast(reader, n) {
  const chunks = [];
  let length = 0;
  while (length < n) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
  }
  return length ? (chunks.length === 1 ? chunks[0] : concat(chunks, length)) : null;
}

function isSnapshotMagic(head) {
  if (head.length < 4) return false;
  const magic = new DataView(head.buffer, head.byteOffset, 4).getUint32(0, true);
  return magic === SPARSE_MAGIC || magic === PYODIDE_MAGIC;
}

// A TransformStream that inflates brotli with `decoder` (the brotli-dec-wasm
// package: Rust's brotli-decompressor as WebAssembly), chunk by chunk as the
// file arrives. The decoder's output comes in pieces of OUTPUT_BYTES at most.
// Brotli has no magic number: bytes it cannot read (a host's HTML page for a
// missing file, say) are NotBrotli, as a damaged file is.
const OUTPUT_BYTES = 1 << 20;
class NotBrotli extends Error {}
export function brotliStream(decoder) {
  const { BrotliDecStream, BrotliStreamResultCode: Code } = decoder;
  const state = new BrotliDecStream();
  let code = Code.NeedsMoreInput;
  return new TransformStream({
    transform(chunk, controller) {
      if (code === Code.ResultSuccess) throw new Error("bytes after the end of the brotli stream");
      let input = chunk;
      for (;;) {
        let result;
        try {
          result = state.dec(input, OUTPUT_BYTES);
        } catch (err) {
          throw new NotBrotli(reason(err));
        }
        const out = result.buf;
        code = result.code;
        input = input.subarray(result.input_offset);
        result.free();
        if (out.length) controller.enqueue(out);
        if (code !== Code.NeedsMoreOutput) break;
      }
      if (code === Code.ResultSuccess && input.length) throw new Error("bytes after the end of the brotli stream");
    },
    flush() {
      state.free();
      if (code !== Code.ResultSuccess) throw new Error("the brotli stream ends early");
    },
  });
}
