// Make the Pyodide memory snapshot the engine worker boots from.
//
//   node tools/make_snapshot.mjs PYODIDE_DIR WHEEL OUT.bin.gz
//
// PYODIDE_DIR is node_modules/pyodide: the very files the site ships, because
// a snapshot only restores into the Pyodide build that made it (the build id is
// checked on restore). The engine wheel is unpacked with unpackArchive (a
// snapshot cannot follow loadPackage), every engine module is imported, every
// widget answers once (engine.api.warm_up), and the snapshot is taken, checked by restoring it once, and written gzip-compressed.
// Prints one JSON line: {"bytes": uncompressed size, "gzip": compressed size, ...}.
//
// A restored snapshot has Python's memory but not the file system: the wheel's
// files are gone, so everything the engine will ever import must be imported
// here. The check below fails the build when a module of the wheel was not.
// Made with Node, not Chromium: both restore a Node-made snapshot.

import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, wheelPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node tools/make_snapshot.mjs PYODIDE_DIR WHEEL OUT.bin.gz");
  process.exit(2);
}
const indexURL = resolve(pyodideDir) + "/";
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);

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
const pyodide = await loadPyodide({ indexURL, packages: [], _makeSnapshot: true, _sysExecutable: "./this.program", ...quiet });
const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
pyodide.unpackArchive(new Uint8Array(readFileSync(wheelPath)), "wheel", { extractDir: sitePackages });
pyodide.runPython(IMPORT_ALL);
const info = JSON.parse(pyodide.runPython("_import_all_result"));
pyodide.runPython("del _import_all_result; import gc; gc.collect()");
// Fails ("Can't serialize object at index …") if Python still holds a JS object
// that is not reachable from globalThis.
const snapshot = pyodide.makeMemorySnapshot();

// The snapshot must restore and answer before the site ships it.
const restored = await loadPyodide({ indexURL, packages: [], _loadSnapshot: snapshot, ...quiet });
restored.runPython(CHECK);
const check = JSON.parse(restored.runPython("_check_result"));

const packed = gzipSync(snapshot); // level 9 saves 0.6 % for 1.5 s more
writeFileSync(outPath, packed);
console.log(JSON.stringify({ bytes: snapshot.length, gzip: packed.length, ...info, ...check }));
