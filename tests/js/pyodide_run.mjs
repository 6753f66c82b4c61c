// Run a Python file in Pyodide under Node, with the engine and the test
// fixtures importable, and print the string its global RESULT holds.
//
//   node tests/js/pyodide_run.mjs FILE.py
//
// The Pyodide is the one the site ships (node_modules/pyodide), so a test can
// hold the engine's answers in Pyodide against CPython's without a browser.
import { loadPyodide } from "../../node_modules/pyodide/pyodide.mjs";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const py = await loadPyodide({ indexURL: path.join(root, "node_modules", "pyodide") + "/" });

function copy(dir, dest) {
  py.FS.mkdirTree(dest);
  for (const name of fs.readdirSync(dir)) {
    const from = path.join(dir, name);
    if (fs.statSync(from).isDirectory()) {
      if (name !== "__pycache__") copy(from, `${dest}/${name}`);
    } else if (name.endsWith(".py")) {
      py.FS.writeFile(`${dest}/${name}`, fs.readFileSync(from));
    }
  }
}

copy(path.join(root, "engine"), "/home/pyodide/engine");
copy(path.join(root, "tests", "fixtures"), "/home/pyodide/fixtures");
py.globals.set("ROOT", "/home/pyodide");
py.runPython(fs.readFileSync(process.argv[2], "utf8"));
process.stdout.write(py.globals.get("RESULT"));
