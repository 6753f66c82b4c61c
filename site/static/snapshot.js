// Downloads the Pyodide memory snapshot made at build time and inflates it.
//
// The engine worker starts this module as a worker of its own, named
// HELPER_NAME, so the inflating runs beside Pyodide's start: asked {url, size},
// it answers {bytes} (its buffer transferred) or {error}. Where workers cannot
// start workers, the engine worker imports it and calls fetchSnapshot itself.
// (One file for both, so the helper has no import of its own to wait for.)

export const HELPER_NAME = "rules-explorer-snapshot";

const SNAPSHOT_MAGIC = [0x00, 0x73, 0x6e, 0x70]; // "\0snp", as Pyodide writes it

export function reason(err) {
  return String(err && err.message ? err.message : err).split("\n")[0];
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

// The snapshot's bytes, gunzipped here (static servers send the .gz file as it
// is; a server that decoded it on the way, by Content-Encoding, is fine too).
// With `size` (its unpacked size, from the build) they go straight into one
// buffer of that size as they arrive; a snapshot of another size still comes
// back whole, and the caller sees the difference in its length.
export async function fetchSnapshot(url, size = 0) {
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new Error(`the snapshot did not download: ${reason(err)}`);
  }
  if (!response.ok) throw new Error(`the snapshot did not download: HTTP ${response.status}`);
  const reader = response.body.getReader();
  let bytes = new Uint8Array(size);
  let length = 0;
  try {
    const head = await reader.read();
    let stream = streamOf(head.value, reader);
    if (head.value && head.value[0] === 0x1f && head.value[1] === 0x8b) {
      stream = stream.pipeThrough(new DecompressionStream("gzip"));
    }
    for (const out = stream.getReader(); ;) {
      const { done, value } = await out.read();
      if (done) break;
      if (length + value.length > bytes.length) { // more than expected: grow
        const grown = new Uint8Array(Math.max(2 * bytes.length, length + value.length));
        grown.set(bytes.subarray(0, length));
        bytes = grown;
      }
      bytes.set(value, length);
      length += value.length;
    }
  } catch (err) {
    throw new Error(`the snapshot is corrupt: ${reason(err)}`);
  }
  if (length < 64 || SNAPSHOT_MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new Error("the snapshot is not a Pyodide memory snapshot");
  }
  return length === bytes.length ? bytes : bytes.subarray(0, length);
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
