// Checks the snapshot file the site ships: inflated the worker's way
// (site/static/snapshot.js's inflateSnapshot, with the brotli decoder the site
// ships), it must be the sparse snapshot tools/make_snapshot.mjs wrote and
// checked, byte for byte. build.py runs it after compressing.
//
//   node tools/check_snapshot.mjs SHIPPED.br SPARSE.bin DECODER_PACKAGE_DIR
//
// Prints one JSON line: {"shipped": bytes, "sparse": bytes, "inflate_ms": ms}.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [shippedPath, sparsePath, decoderDir] = process.argv.slice(2);
if (!decoderDir) {
  console.error("usage: node tools/check_snapshot.mjs SHIPPED.br SPARSE.bin DECODER_PACKAGE_DIR");
  process.exit(2);
}
const { inflateSnapshot } = await import(new URL("../site/static/snapshot.js", import.meta.url).href);
const brotli = async () => {
  const decoder = await import(pathToFileURL(resolve(decoderDir, "pkg/brotli_dec_wasm.js")).href);
  await decoder.default({ module_or_path: readFileSync(resolve(decoderDir, "pkg/brotli_dec_wasm_bg.wasm")) });
  return decoder;
};
const shipped = readFileSync(shippedPath);
const sparse = readFileSync(sparsePath);
const started = performance.now();
// In pieces of 64 KB, as a download comes.
const body = new ReadableStream({
  start(controller) {
    for (let at = 0; at < shipped.length; at += 1 << 16) controller.enqueue(new Uint8Array(shipped.subarray(at, at + (1 << 16))));
    controller.close();
  },
});
const inflated = await inflateSnapshot(body, 0, () => {}, brotli);
const ms = Math.round(performance.now() - started);
if (!Buffer.from(inflated.buffer, inflated.byteOffset, inflated.length).equals(sparse)) {
  console.error(`the shipped snapshot inflates to ${inflated.length} bytes that are not the snapshot's ${sparse.length}`);
  process.exit(1);
}
console.log(JSON.stringify({ shipped: shipped.length, sparse: sparse.length, inflate_ms: ms }));
