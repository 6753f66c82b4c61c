// Make the Pyodide memory snapshot the engine worker boots from.
//
//   node tools/make_snapshot.mjs PYODIDE_DIR WHEEL OUT.bin
//
// PYODIDE_DIR is node_modules/pyodide: the very files the site ships, because
// a snapshot only restores into the Pyodide build that made it (the build id is
// checked on restore). The engine wheel is unpacked with unpackArchive (a
// snapshot cannot follow loadPackage), every engine module is imported, every
// widget answers once (engine.api.warm_up), the C heap's free memory is
// zeroed (clearFreeMemory), and the snapshot is taken. It is written sparse
// (site/static/snapshot.js has the layout: its all-zero pages left out, and
// the pages that a fresh runtime, started twice here, holds already as the
// snapshot has them, with a checksum each), uncompressed (build.py compresses
// it with brotli and tools/check_snapshot.mjs inflates that file the worker's
// way), and checked first: restored the way the worker restores it, the
// memory must equal Pyodide's own restore byte for byte, and the engine must
// answer with no standard library on its file system (the worker's comes
// later). Prints one JSON line: {"bytes": the plain snapshot's size,
// "sparse": the file's size, "held_pages": how many pages the fresh runtime
// supplies, "cleared": the free bytes zeroed, ...}.
//
// A restored snapshot has Python's memory but not the file system: the wheel's
// files are gone, so everything the engine will ever import must be imported
// here. The check below fails the build when a module of the wheel was not.
// Made with Node, not Chromium: both restore a Node-made snapshot.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, wheelPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node tools/make_snapshot.mjs PYODIDE_DIR WHEEL OUT.bin");
  process.exit(2);
}
const indexURL = resolve(pyodideDir) + "/";
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const { default: createModule } = await import(pathToFileURL(indexURL + "pyodide.asm.mjs").href);
const { readSnapshot, pageSum, SPARSE_FIXED, SPARSE_MAGIC, SPARSE_VERSION } = await import(new URL("../site/static/snapshot.js", import.meta.url).href);

const quiet = { stdout: () => {}, stderr: (line) => console.error(line) };

// Python run here and on the check below: fixed source, no input.
const IMPORT_ALL = `
def _import_all():
    import gc, importlib, json, pkgutil, sys
    import engine, engine.api
    engine.api.handle('{"op":"describe"}')  # imports every game system via the registry
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
        if not info.name.endswith(".__main__"):
            importlib.import_module(info.name)
    on_disk = {info.name for info in pkgutil.walk_packages(engine.__path__, "engine.")}
    missing = sorted(n for n in on_disk - set(sys.modules) if not n.endswith(".__main__"))
    if missing:
        raise RuntimeError(f"engine modules not imported before the snapshot: {missing}")
    # every widget answers once, so a restored page's first answers are as quick as later ones
    warmed = engine.api.warm_up()
    gc.collect()
    return json.dumps({"modules": sum(1 for n in sys.modules if n == "engine" or n.startswith("engine.")),
                       "warm_up_requests": warmed, "python": sys.version.split()[0]})
_import_all_result = _import_all()
del _import_all
`;
const CHECK = `
def _check():
    import json, sys
    import engine.api
    answer = json.loads(engine.api.handle('{"op":"describe"}'))
    assert "error" not in answer, answer
    return json.dumps({"widgets": len(answer["result"])})
_check_result = _check()
del _check
`;

// _sysExecutable: Node would otherwise make this script's path sys.executable
// (and $_) in the snapshot; "./this.program" is what a browser boot has.
// SNAPSHOT_ENV: Python in the worker never reads a docstring, an assert's
// invariant or a traceback's column carets, so the snapshot's code is compiled
// without them (python -OO, -X no_debug_ranges; the restored runtime keeps
// both flags for the modules it imports later). The brotli file is about 15 %
// smaller (3.9 -> 3.3 MB, NOTES.md "Session 16"). CPython runs the engine with
// its asserts; they check the engine's own invariants, never a reader's input.
const SNAPSHOT_ENV = { PYTHONOPTIMIZE: "2", PYTHONNODEBUGRANGES: "1" };
const pyodide = await loadPyodide({
  indexURL, packages: [], env: SNAPSHOT_ENV, _makeSnapshot: true, _sysExecutable: "./this.program", ...quiet,
});
const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
pyodide.unpackArchive(new Uint8Array(readFileSync(wheelPath)), "wheel", { extractDir: sitePackages });
pyodide.runPython(IMPORT_ALL);
const info = JSON.parse(pyodide.runPython("_import_all_result"));
pyodide.runPython("del _import_all_result; import gc; gc.collect()");
const cleared = clearFreeMemory(pyodide._module);
// Fails ("Can't serialize object at index …") if Python still holds a JS object
// that is not reachable from globalThis.
const snapshot = pyodide.makeMemorySnapshot();

const packed = sparse(snapshot, [await freshMemory(snapshot.length), await freshMemory(snapshot.length)]);

// The snapshot must restore, as the worker restores it, and answer before the
// site ships it: with no standard library, as the worker boots it (its
// standard library comes after the engine is live; engine-boot.js).
let compared = false;
const noStdlib = join(mkdtempSync(join(tmpdir(), "snapshot-")), "empty.zip");
writeFileSync(noStdlib, new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]));
const restored = await loadPyodide({
  indexURL, packages: [], ...quiet, stdLibURL: noStdlib,
  _loadSnapshot: new Uint8Array(snapshot.length), // Pyodide reads only its size
  createPyodideModule: async (settings) => {
    const module = await createModule(settings);
    readSnapshot(packed).restoreInto(module); // as the engine worker does
    const restore = module.API.restoreSnapshot;
    module.API.restoreSnapshot = (...args) => {
      const restoredSettings = restore(...args);
      sameMemory(module.HEAPU8, snapshot);
      compared = true;
      return restoredSettings;
    };
    return module;
  },
});
if (!compared) throw new Error("the check did not restore the snapshot the worker's way");
restored.FS.unlink(restored.runPython("import sys; next(p for p in sys.path if p.endswith('.zip'))")); // as the worker does
rmSync(dirname(noStdlib), { recursive: true });
restored.runPython(CHECK);
const check = JSON.parse(restored.runPython("_check_result"));

writeFileSync(outPath, packed);
const held = new DataView(packed.buffer, packed.byteOffset, SPARSE_FIXED).getUint32(24, true);
console.log(JSON.stringify({ bytes: snapshot.length, sparse: packed.length, held_pages: held, cleared, ...info, ...check }));

// Zeroes the C heap's free memory, as much of it as can be had without the
// heap growing: what Python freed there (the warm-up's garbage, modules'
// temporary data) is left as it was by malloc, and would be shipped and
// compressed for nothing (about 3 MB, 0.8 MB of the gzipped file). Every free
// chunk is taken with malloc (largest requests first, the heap's footprint
// held where it is so that malloc takes only what is free), cleared, and
// freed again. Returns the bytes cleared.
function clearFreeMemory(module) {
  const top = () => module._sbrk(0) >>> 0;
  const [start, memory] = [top(), module.HEAPU8.length];
  const limit = module._malloc_footprint_limit() >>> 0;
  module._malloc_set_footprint_limit(module._malloc_footprint() >>> 0);
  const taken = [];
  let cleared = 0;
  try {
    for (let size = 1 << 24; size >= 16; size >>= 1) {
      for (let at = module._malloc(size) >>> 0; at; at = module._malloc(size) >>> 0) {
        taken.push(at);
        if (top() !== start) throw new Error("the heap grew while its free memory was cleared");
        module.HEAPU8.fill(0, at, at + size);
        cleared += size;
      }
    }
  } finally {
    taken.forEach((at) => module._free(at));
    module._malloc_set_footprint_limit(limit);
  }
  if (top() !== start || module.HEAPU8.length !== memory) throw new Error("the heap grew while its free memory was cleared");
  return cleared;
}

// The memory of a fresh runtime at the point where Pyodide restores a
// snapshot into it: the WebAssembly's data and what the runtime's start wrote.
async function freshMemory(size) {
  const stop = new Error("stopped at the restore");
  let memory;
  try {
    await loadPyodide({
      indexURL, packages: [], ...quiet, _loadSnapshot: new Uint8Array(size),
      createPyodideModule: async (settings) => {
        memory = (await createModule(settings)).HEAPU8.slice();
        throw stop;
      },
    });
  } catch (err) {
    if (err !== stop) throw err;
  }
  return memory;
}

// Pyodide's snapshot laid out as snapshot.js reads it: without its all-zero
// pages, and without the pages every fresh runtime in `fresh` holds as the
// snapshot has them (only their numbers and checksums).
function sparse(snapshot, fresh) {
  const PAGE = 65536;
  const plain = Buffer.from(snapshot.buffer, snapshot.byteOffset, snapshot.length);
  const header = new DataView(plain.buffer, plain.byteOffset, 8).getUint32(4, true); // where the memory image starts
  const image = plain.length - header;
  if (image % PAGE !== 0) throw new Error(`the snapshot's memory is not whole pages: ${image} bytes`);
  const zero = Buffer.alloc(PAGE);
  const kept = [];
  const held = [];
  for (let k = 0; k < image / PAGE; k++) {
    const page = plain.subarray(header + k * PAGE, header + (k + 1) * PAGE);
    if (zero.equals(page)) continue;
    if (fresh.every((memory) => page.equals(memory.subarray(k * PAGE, (k + 1) * PAGE)))) held.push(k);
    else kept.push(k);
  }
  const numbers = [...kept, ...held, ...held.map((k) => pageSum(plain, header + k * PAGE, PAGE))];
  const fixed = new DataView(new ArrayBuffer(SPARSE_FIXED + 4 * numbers.length));
  [SPARSE_MAGIC, SPARSE_VERSION, plain.length, header, PAGE, kept.length, held.length].forEach((n, i) => fixed.setUint32(4 * i, n, true));
  numbers.forEach((n, i) => fixed.setUint32(SPARSE_FIXED + 4 * i, n, true));
  return Buffer.concat([new Uint8Array(fixed.buffer), plain.subarray(0, header),
    ...kept.map((k) => plain.subarray(header + k * PAGE, header + (k + 1) * PAGE))]);
}

// Fails the build unless `heap` starts with the plain snapshot's memory image.
function sameMemory(heap, plain) {
  const header = new DataView(plain.buffer, plain.byteOffset, 8).getUint32(4, true);
  const image = plain.subarray(header);
  const restored = Buffer.from(heap.buffer, heap.byteOffset, image.length);
  if (restored.equals(image)) return;
  let at = 0;
  while (restored[at] === image[at]) at++;
  throw new Error(`the sparse snapshot restores other memory than Pyodide's own restore, first at byte ${at}`);
}
