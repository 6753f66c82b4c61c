// The Pyodide memory snapshot made at build time: downloading it, inflating it,
// and restoring it into Pyodide's memory.
//
// The engine worker starts this module as a worker of its own, named
// HELPER_NAME, so the inflating runs beside Pyodide's start: asked {url, size},
// it answers {bytes} (its buffer transferred) or {error}. Where workers cannot
// start workers, the engine worker imports it and calls fetchSnapshot itself.
// (One file for both, so the helper has no import of its own to wait for.)
// tools/make_snapshot.mjs imports it too, to check the snapshot it writes.
//
// The build ships the snapshot sparse: about half of Pyodide's memory is
// all-zero pages, which a fresh WebAssembly memory already is, so the file
// keeps only the other pages (SPARSE_MAGIC below). Inflating and copying
// 17 MB instead of 31 MB is about half the work. A plain Pyodide snapshot
// ("\0snp", what makeMemorySnapshot returns) is read too.

export const HELPER_NAME = "rules-explorer-snapshot";

const PYODIDE_MAGIC = 0x706e7300; // "\0snp" as Pyodide writes it (little-endian u32)
export const SPARSE_MAGIC = 0x70737200; // "\0rsp": ours
export const SPARSE_VERSION = 1;
// A sparse snapshot, all numbers little-endian u32:
//   0  SPARSE_MAGIC          4  SPARSE_VERSION
//   8  length of the plain snapshot it stands for (what Pyodide sizes its memory by)
//   12 header: length of Pyodide's header, which precedes the memory image
//   16 page size              20 n, the number of pages kept
//   24 the n kept page numbers, ascending; then Pyodide's header; then the n pages.
// Page k covers bytes [header + k * page, header + (k + 1) * page) of the plain
// snapshot, which is memory [k * page, (k + 1) * page).
const SPARSE_FIXED = 24;

export function reason(err) {
  return String(err && err.message ? err.message : err).split("\n")[0];
}

// The snapshot a file holds, plain or sparse: `length` is the plain snapshot's
// length, which Pyodide sizes its memory by, and `restoreInto(module)` makes a
// freshly created Pyodide module restore this snapshot when Pyodide next asks
// for its restore (module.API.restoreSnapshot, for one use: afterwards neither
// the module nor the hook holds the bytes).
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
    restore: (module, pyodideRestore) => pyodideRestore(bytes),
  };
}

function sparseSnapshot(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [length, header, pageSize, count] = [8, 12, 16, 20].map((at) => view.getUint32(at, true));
  const pagesAt = SPARSE_FIXED + 4 * count + header;
  if (bytes.length !== pagesAt + count * pageSize || (length - header) % pageSize !== 0) {
    throw new Error("the snapshot is corrupt: its sparse layout does not add up");
  }
  const pages = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    pages[i] = view.getUint32(SPARSE_FIXED + 4 * i, true);
    if ((i > 0 && pages[i] <= pages[i - 1]) || (pages[i] + 1) * pageSize > length - header) {
      throw new Error("the snapshot is corrupt: its page list is out of order");
    }
  }
  const headerBytes = bytes.subarray(SPARSE_FIXED + 4 * count, pagesAt);
  const page = (i) => bytes.subarray(pagesAt + i * pageSize, pagesAt + (i + 1) * pageSize);
  return {
    length,
    // Pyodide checks the header (magic, build id) and reads its settings from
    // it; handed the header alone, it copies no memory. Then the kept pages go
    // in, and the left-out ones are cleared where the fresh runtime has
    // written: below its break (sbrk(0)). Above it the memory is still as
    // WebAssembly made it, all zero; tools/make_snapshot.mjs checks, byte for
    // byte, that this restores the same memory as Pyodide's own restore.
    restore(module, pyodideRestore) {
      const settings = pyodideRestore(headerBytes);
      const heap = module.HEAPU8;
      const image = length - header; // the memory the snapshot covers
      if (heap.length < image) throw new Error("the snapshot does not fit Pyodide's memory");
      const written = Math.min(module._sbrk(0) >>> 0, image);
      let next = 0; // the first page not yet restored
      for (let i = 0; i <= count; i++) {
        const kept = i < count ? pages[i] : image / pageSize;
        if (next * pageSize < written) heap.fill(0, next * pageSize, Math.min(kept * pageSize, written));
        if (i < count) heap.set(page(i), kept * pageSize);
        next = kept + 1;
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
  if (view.getUint32(0, true) !== SPARSE_MAGIC) return size;
  const [header, pageSize, count] = [12, 16, 20].map((at) => view.getUint32(at, true));
  return SPARSE_FIXED + 4 * count + header + count * pageSize;
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

// The snapshot file's bytes, gunzipped here (static servers send the .gz file
// as it is; a server that decoded it on the way, by Content-Encoding, is fine
// too), in one buffer of the right size as they arrive. `size` is the page's
// figure for a plain snapshot's length; a sparse one says its own.
export async function fetchSnapshot(url, size = 0) {
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new Error(`the snapshot did not download: ${reason(err)}`);
  }
  if (!response.ok) throw new Error(`the snapshot did not download: HTTP ${response.status}`);
  const reader = response.body.getReader();
  const sink = new Sink(size);
  try {
    const head = await reader.read();
    let stream = streamOf(head.value, reader);
    if (head.value && head.value[0] === 0x1f && head.value[1] === 0x8b) {
      stream = stream.pipeThrough(new DecompressionStream("gzip"));
    }
    for (const out = stream.getReader(); ;) {
      const { done, value } = await out.read();
      if (done) break;
      sink.push(value);
    }
  } catch (err) {
    throw new Error(`the snapshot is corrupt: ${reason(err)}`);
  }
  const bytes = sink.done();
  readSnapshot(bytes); // throws now, with the reason, if it is not one
  return bytes;
}

if (globalThis.name === HELPER_NAME) {
  self.onmessage = async (event) => {
    const { url, size } = event.data;
    try {
      const bytes = await fetchSnapshot(url, size);
      self.postMessage({ bytes }, [bytes.buffer]);
    } catch (err) {
      self.postMessage({ error: reason(err) });
    }
  };
}
